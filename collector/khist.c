// SPDX-License-Identifier: MIT
/*
 * Which objects each kernel touched, for intra mode's maps.  A launch
 * monitored in intra mode gets maps (a bit per granule, a counter per cell)
 * for every entry of its tables, about a tenth of the live bytes, since
 * what it touches is known only after it ran.  Where that is more than an
 * eighth of GMPROF_MAPS_MB, a launch of a kernel gets maps only for the
 * objects of the base its kernel touched in launches already collected
 * with the same base, and for every recent object (allocated since the
 * base was built): kernels mostly touch the same buffers launch after
 * launch.  A launch that touches an object without maps has its touches
 * unknown (the detector then treats its objects as it treats launches of
 * kernels not monitored), and its kernel's next launches get maps for it.
 * Where maps of every object would pass GMPROF_MAPS_MB itself, a kernel's
 * first launch gets none (monitored at object level, its touches unknown)
 * rather than pass the bound: its hit list says what the next ones need.
 * Callers hold the lock.
 */
#include <stdlib.h>

#include "device.h"
#include "findings_json.h"
#include "util.h"

/* Kernel-and-object keys remembered, at most: past it they are forgotten and learned again. */
#define KHIST_MAX (1u << 20)

/* One line, the first time maps are restricted. */
static void say_once(size_t full_bytes)
{
	static int said;
	if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		return;
	char h[32];
	rec_say("intra maps of every live object would take %s per launch: a kernel's launches get maps for "
		"the objects it touched before and those allocated since (a first launch, where that passes "
		"GMPROF_MAPS_MB, none: it is monitored at object level); a launch that touches another has its "
		"touches unknown (GMPROF_MAPS_MB raises the limit, an eighth of it)",
		gmp_human_bytes(full_bytes, h, sizeof(h)));
}

static uint64_t key_of(CUfunction fn, uint64_t start)
{
	uint64_t k = (uint64_t)(uintptr_t)fn * 0x9e3779b97f4a7c15ull ^ start;
	return k == UINT64_MAX ? k - 1 : k; /* UINT64_MAX is the map's own */
}

int khist_plan(struct gmp_ctx_state *s, const struct snapshot *sn, CUfunction fn, size_t full_bytes,
	       uint8_t **mask)
{
	size_t cap = (size_t)gmp_col.opts.maps_mb << 20;
	const uint32_t *gen = gmp_u64map__get(&s->klast, (uint64_t)(uintptr_t)fn);
	*mask = NULL;
	if (full_bytes <= cap / 8)
		return KH_ALL;
	if (!gen && full_bytes > cap) {
		say_once(full_bytes);
		return KH_NONE;
	}
	/* What it touched with an earlier base may miss what was allocated since: used only past the cap. */
	if (!gen || (*gen != sn->base->gen && full_bytes <= cap) || !(*mask = malloc(sn->n ? sn->n : 1)))
		return KH_ALL;
	const struct tbase *b = sn->base;
	for (size_t i = 0; i < sn->n; i++)
		(*mask)[i] = i >= b->n || gmp_u64map__get(&s->khist, key_of(fn, b->start[i])) != NULL;
	say_once(full_bytes);
	return KH_MASK;
}

void khist_learn(struct gmp_ctx_state *s, const struct pending *p)
{
	if (p->read != 1)
		return;
	if (s->khist.n + p->nacc > KHIST_MAX) {
		gmp_u64map__release(&s->khist);
		gmp_u64map__release(&s->klast); /* nothing learned: every kernel starts over */
		gmp_u64map__init(&s->khist);
		gmp_u64map__init(&s->klast);
	}
	for (size_t i = 0; i < p->nacc; i++)
		if (!gmp_u64map__slot(&s->khist, key_of(p->fn, p->acc[i].addr), 1, NULL))
			return; /* out of memory: what is learned is kept, the base's generation is not */
	uint32_t *gen = gmp_u64map__slot(&s->klast, (uint64_t)(uintptr_t)p->fn, 0, NULL);
	if (gen)
		*gen = p->snap->base->gen;
}

void khist_release(struct gmp_ctx_state *s)
{
	gmp_u64map__release(&s->khist);
	gmp_u64map__release(&s->klast);
}
