// SPDX-License-Identifier: MIT
/*
 * The live device objects, as the collector knows them from allocation
 * and free callbacks: an ordered map of their ranges (a treap: the driver
 * reuses freed addresses, so objects come and go anywhere in the order,
 * and sorted arrays cost a move of every object above each one), with
 * each one's device and ALLOC event.  The object tables the patches
 * search are built from them (tables.c), from the changes logged here
 * when they can be.  Callers hold gmp_col.lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "objmap.h"
#include "util.h"

/* Changes kept for the object tables: more are rarely read (tables.c rebuilds past a few hundred). */
#define LIVE_LOG_MAX 4096

/* Logs the change that made the live version what it is now. */
static void log_change(uint64_t start, uint64_t end, int freed)
{
	if (!gmp_col.live_log && !(gmp_col.live_log = malloc(LIVE_LOG_MAX * sizeof(*gmp_col.live_log)))) {
		gmp_col.live_log_n = 0; /* tables are rebuilt from the live set instead: slower, as right */
		gmp_col.live_log_v0 = gmp_col.live_version;
		return;
	}
	if (gmp_col.live_log_v0 + gmp_col.live_log_n + 1 != gmp_col.live_version ||
	    gmp_col.live_log_n == LIVE_LOG_MAX) {
		gmp_col.live_log_n = 0;
		gmp_col.live_log_v0 = gmp_col.live_version - 1;
	}
	gmp_col.live_log[gmp_col.live_log_n++] = (struct gmp_live_change){ start, end, freed };
}

int rec_live_floor(uint64_t addr, uint64_t *start, uint64_t *end)
{
	return gmp_col.live && gmp_objmap__floor(gmp_col.live, addr, start, end, NULL);
}

int rec_live_add(uint64_t addr, uint64_t size, uint32_t device, int64_t ev, uint8_t kind)
{
	uint32_t slot = gmp_col.live_free_n ? gmp_col.live_free[gmp_col.live_free_n - 1]
					    : (uint32_t)gmp_col.live_info_n;
	if ((!gmp_col.live && !(gmp_col.live = gmp_objmap__new())) || gmp_col.live_info_n >= UINT32_MAX ||
	    (slot == gmp_col.live_info_n &&
	     GMP_GROW(gmp_col.live_info, gmp_col.live_info_cap, gmp_col.live_info_n + 1)) ||
	    gmp_objmap__insert(gmp_col.live, addr, addr + size, slot)) {
		rec_write_failed(-ENOMEM); /* an object left out would mislead: stop instead */
		return -ENOMEM;
	}
	if (slot == gmp_col.live_info_n)
		gmp_col.live_info_n++;
	else
		gmp_col.live_free_n--;
	gmp_col.live_info[slot] = (struct gmp_live_info){
		device, ev >= 0 && ev < UINT32_MAX ? (uint32_t)ev : UINT32_MAX, kind };
	gmp_col.tab_n++;
	gmp_col.live_version++;
	log_change(addr, addr + size, 0);
	return 0;
}

int rec_live_remove(uint64_t addr)
{
	uint64_t start;
	uint32_t slot;
	if (!gmp_col.live || !gmp_objmap__floor(gmp_col.live, addr, &start, NULL, &slot) || start != addr)
		return -ENOENT;
	/* Its slot is reused; without room to list it, it is left unused (a leak of 8 bytes, not an error). */
	if (!GMP_GROW(gmp_col.live_free, gmp_col.live_free_cap, gmp_col.live_free_n + 1))
		gmp_col.live_free[gmp_col.live_free_n++] = slot;
	gmp_objmap__remove(gmp_col.live, addr);
	gmp_col.tab_n--;
	gmp_col.live_version++;
	log_change(addr, 0, 1);
	tex_object_freed(addr);
	return 0;
}

uint32_t rec_live_device(uint64_t addr)
{
	uint32_t slot = gmp_col.live ? gmp_objmap__find(gmp_col.live, addr) : UINT32_MAX;
	return slot == UINT32_MAX ? UINT32_MAX : gmp_col.live_info[slot].device;
}

int rec_is_device(uint64_t addr, uint64_t size)
{
	uint64_t start, end;
	if (!rec_live_floor(addr, &start, &end))
		return 0;
	return addr >= start && addr + (size ? size : 1) <= end;
}

uint32_t rec_live_event(uint64_t addr, uint8_t *kind)
{
	uint64_t start;
	uint32_t slot;
	if (!gmp_col.live || !gmp_objmap__floor(gmp_col.live, addr, &start, NULL, &slot) || start != addr)
		return UINT32_MAX;
	if (kind)
		*kind = gmp_col.live_info[slot].kind;
	return gmp_col.live_info[slot].ev;
}

struct each_ctx {
	int (*fn)(void *ctx, uint64_t start, uint64_t end, uint32_t device);
	void *ctx;
};

static int each_one(void *ctx, uint64_t start, uint64_t end, uint32_t slot)
{
	struct each_ctx *c = ctx;
	return c->fn(c->ctx, start, end, gmp_col.live_info[slot].device);
}

int rec_live_each(int (*fn)(void *ctx, uint64_t start, uint64_t end, uint32_t device), void *ctx)
{
	struct each_ctx c = { fn, ctx };
	return gmp_col.live ? gmp_objmap__each(gmp_col.live, each_one, &c) : 0;
}

struct copy_ctx {
	uint64_t *start, *end;
	size_t n;
};

static int copy_one(void *ctx, uint64_t start, uint64_t end, uint32_t device)
{
	(void)device;
	struct copy_ctx *c = ctx;
	c->start[c->n] = start;
	c->end[c->n++] = end;
	return 0;
}

void rec_live_copy(uint64_t *start, uint64_t *end)
{
	struct copy_ctx c = { start, end, 0 };
	rec_live_each(copy_one, &c);
}
