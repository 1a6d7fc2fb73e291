// SPDX-License-Identifier: MIT
/*
 * The live device objects, as the collector knows them from allocation
 * and free callbacks: sorted arrays of starts, ends and devices (the
 * object tables the patches search are copies of them).  Callers hold
 * gmp_col.lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"

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

/* The first live entry whose start is > addr. */
static size_t tab_after(uint64_t addr)
{
	size_t lo = 0, hi = gmp_col.tab_n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (gmp_col.tab_start[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int rec_live_floor(uint64_t addr, uint64_t *start, uint64_t *end)
{
	size_t k = tab_after(addr);
	if (!k)
		return 0;
	if (start)
		*start = gmp_col.tab_start[k - 1];
	if (end)
		*end = gmp_col.tab_end[k - 1];
	return 1;
}

int rec_live_add(uint64_t addr, uint64_t size, uint32_t device, int64_t ev)
{
	if (gmp_col.tab_n == gmp_col.tab_cap) {
		size_t cap = gmp_col.tab_cap ? 2 * gmp_col.tab_cap : 1024;
		uint64_t *a = realloc(gmp_col.tab_start, cap * sizeof(*a));
		if (a)
			gmp_col.tab_start = a;
		uint64_t *b = a ? realloc(gmp_col.tab_end, cap * sizeof(*b)) : NULL;
		if (b)
			gmp_col.tab_end = b;
		uint32_t *c = b ? realloc(gmp_col.tab_dev, cap * sizeof(*c)) : NULL;
		if (c)
			gmp_col.tab_dev = c;
		uint32_t *d = c ? realloc(gmp_col.tab_ev, cap * sizeof(*d)) : NULL;
		if (d)
			gmp_col.tab_ev = d;
		if (!a || !b || !c || !d) {
			rec_write_failed(-ENOMEM); /* an object left out would mislead: stop instead */
			return -ENOMEM;
		}
		gmp_col.tab_cap = cap;
	}
	size_t k = tab_after(addr), move = gmp_col.tab_n - k;
	memmove(gmp_col.tab_start + k + 1, gmp_col.tab_start + k, move * sizeof(uint64_t));
	memmove(gmp_col.tab_end + k + 1, gmp_col.tab_end + k, move * sizeof(uint64_t));
	memmove(gmp_col.tab_dev + k + 1, gmp_col.tab_dev + k, move * sizeof(uint32_t));
	memmove(gmp_col.tab_ev + k + 1, gmp_col.tab_ev + k, move * sizeof(uint32_t));
	gmp_col.tab_start[k] = addr;
	gmp_col.tab_end[k] = addr + size;
	gmp_col.tab_dev[k] = device;
	gmp_col.tab_ev[k] = ev >= 0 && ev < UINT32_MAX ? (uint32_t)ev : UINT32_MAX;
	gmp_col.tab_n++;
	gmp_col.live_version++;
	log_change(addr, addr + size, 0);
	return 0;
}

int rec_live_remove(uint64_t addr)
{
	size_t k = tab_after(addr);
	if (!k || gmp_col.tab_start[k - 1] != addr)
		return -ENOENT;
	size_t move = gmp_col.tab_n - k;
	memmove(gmp_col.tab_start + k - 1, gmp_col.tab_start + k, move * sizeof(uint64_t));
	memmove(gmp_col.tab_end + k - 1, gmp_col.tab_end + k, move * sizeof(uint64_t));
	memmove(gmp_col.tab_dev + k - 1, gmp_col.tab_dev + k, move * sizeof(uint32_t));
	memmove(gmp_col.tab_ev + k - 1, gmp_col.tab_ev + k, move * sizeof(uint32_t));
	gmp_col.tab_n--;
	gmp_col.live_version++;
	log_change(addr, 0, 1);
	return 0;
}

uint32_t rec_live_device(uint64_t addr)
{
	size_t k = tab_after(addr);
	return k && addr < gmp_col.tab_end[k - 1] ? gmp_col.tab_dev[k - 1] : UINT32_MAX;
}

int rec_is_device(uint64_t addr, uint64_t size)
{
	uint64_t start, end;
	if (!rec_live_floor(addr, &start, &end))
		return 0;
	return addr >= start && addr + (size ? size : 1) <= end;
}

uint32_t rec_live_event(uint64_t addr)
{
	size_t k = tab_after(addr);
	return k && gmp_col.tab_start[k - 1] == addr ? gmp_col.tab_ev[k - 1] : UINT32_MAX;
}
