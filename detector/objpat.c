// SPDX-License-Identifier: MIT
/*
 * Object-level lifetime patterns (paper, section 5.1): early allocation,
 * late deallocation, unused allocation, memory leak and temporary
 * idleness.  "Between" counts GPU APIs whose level lies strictly between
 * the two levels; sync and event ops never count.  An object's idle ranges
 * form one finding that lists every range.
 */
#include "internal.h"

static struct gmp_finding base(uint32_t pattern, uint32_t obj)
{
	return (struct gmp_finding){ .pattern = pattern, .object = obj,
				     .other = GMP_NO_OBJECT, .ev_a = GMP_NO_EVENT,
				     .ev_b = GMP_NO_EVENT };
}

static void bounded(const struct det *d, struct gmp_finding *f, uint32_t a, uint32_t b)
{
	const uint32_t *level = d->r->level;
	f->ev_a = a;
	f->ev_b = b;
	f->distance = (int32_t)((int64_t)level[b] - (int64_t)level[a]);
	f->apis_between = (uint32_t)det_apis_between(d, level[a], level[b]);
}

static int idleness(struct det *d, uint32_t obj)
{
	const uint32_t *level = d->r->level;
	struct gmp_finding f = base(GMP_PAT_TEMPORARY_IDLENESS, obj);
	if (!(d->o->patterns & (1u << f.pattern)))
		return 0;
	for (uint32_t k = d->oacc_off[obj]; k + 1 < d->oacc_off[obj + 1]; k++) {
		uint32_t x = d->oacc[k], y = d->oacc[k + 1];
		uint64_t between = det_apis_between(d, level[x], level[y]);
		if (between < d->o->idle_apis)
			continue;
		struct gmp_span sp = { .ev_a = x, .ev_b = y, .apis_between = (uint32_t)between };
		int64_t at = det_add_span(d, &sp);
		if (at < 0)
			return (int)at;
		if (f.count++ == 0)
			f.range_off = (uint32_t)at;
		if (f.ev_a == GMP_NO_EVENT || between > f.apis_between)
			bounded(d, &f, x, y);
	}
	f.range_n = f.count;
	return f.count ? det_add_finding(d, &f) : 0;
}

static int one_object(struct det *d, uint32_t obj)
{
	const struct gmp_object *o = &d->r->objects[obj];
	const uint32_t *level = d->r->level;
	int err;
	if (o->naccess == 0) {
		struct gmp_finding f = base(GMP_PAT_UNUSED_ALLOCATION, obj);
		f.ev_a = o->alloc_ev;
		f.ev_b = o->free_ev;
		if ((err = det_add_finding(d, &f)))
			return err;
	} else {
		if (d->o->early_apis > 0 &&
		    det_apis_between(d, level[o->alloc_ev], level[o->first_ev]) >= d->o->early_apis) {
			struct gmp_finding f = base(GMP_PAT_EARLY_ALLOCATION, obj);
			bounded(d, &f, o->alloc_ev, o->first_ev);
			if ((err = det_add_finding(d, &f)))
				return err;
		}
		if (o->free_ev != GMP_NO_EVENT && d->o->late_apis > 0 &&
		    det_apis_between(d, level[o->last_ev], level[o->free_ev]) >= d->o->late_apis) {
			struct gmp_finding f = base(GMP_PAT_LATE_DEALLOCATION, obj);
			bounded(d, &f, o->last_ev, o->free_ev);
			if ((err = det_add_finding(d, &f)))
				return err;
		}
		if (d->o->idle_apis > 0 && (err = idleness(d, obj)))
			return err;
	}
	if (o->free_ev == GMP_NO_EVENT) {
		struct gmp_finding f = base(GMP_PAT_MEMORY_LEAK, obj);
		f.ev_a = o->naccess ? o->last_ev : o->alloc_ev;
		if ((err = det_add_finding(d, &f)))
			return err;
	}
	return 0;
}

int det_object_patterns(struct det *d)
{
	for (size_t obj = 0; obj < d->r->nobjects; obj++) {
		int err = one_object(d, (uint32_t)obj);
		if (err)
			return err;
	}
	return 0;
}
