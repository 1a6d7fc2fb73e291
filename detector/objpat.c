// SPDX-License-Identifier: MIT
/*
 * Object-level lifetime patterns (paper, section 5.1): early allocation,
 * late deallocation, unused allocation, memory leak and temporary
 * idleness.  "Between" counts GPU APIs whose level lies strictly between
 * the two levels; sync and event ops never count.
 */
#include <inttypes.h>

#include "internal.h"

static struct gmp_finding base(uint32_t pattern, uint32_t obj)
{
	return (struct gmp_finding){ .pattern = pattern, .object = obj,
				     .other = GMP_NO_OBJECT, .ev_a = GMP_NO_EVENT,
				     .ev_b = GMP_NO_EVENT };
}

static int bounded(struct det *d, struct gmp_finding *f, uint32_t a, uint32_t b)
{
	const uint32_t *level = d->r->level;
	f->ev_a = a;
	f->ev_b = b;
	f->distance = (int64_t)level[b] - (int64_t)level[a];
	f->apis_between = det_apis_between(d, level[a], level[b]);
	return 0;
}

static int idleness(struct det *d, uint32_t obj)
{
	const uint32_t *level = d->r->level;
	char a[160], b[160];
	for (uint32_t k = d->oacc_off[obj]; k + 1 < d->oacc_off[obj + 1]; k++) {
		uint32_t x = d->oacc[k], y = d->oacc[k + 1];
		if (det_apis_between(d, level[x], level[y]) < d->o->idle_apis)
			continue;
		struct gmp_finding f = base(GMP_PAT_TEMPORARY_IDLENESS, obj);
		bounded(d, &f, x, y);
		int err = det_add_finding(d, &f,
			"free it (or move it to host memory) just after %s and reallocate it just before %s",
			det_api(d, x, a, sizeof(a)), det_api(d, y, b, sizeof(b)));
		if (err)
			return err;
	}
	return 0;
}

static int one_object(struct det *d, uint32_t obj)
{
	const struct gmp_object *o = &d->r->objects[obj];
	const uint32_t *level = d->r->level;
	char a[160];
	int err;
	if (o->naccess == 0) {
		struct gmp_finding f = base(GMP_PAT_UNUSED_ALLOCATION, obj);
		f.ev_a = o->alloc_ev;
		f.ev_b = o->free_ev;
		if ((err = det_add_finding(d, &f, "remove this allocation: no GPU API accesses it")))
			return err;
	} else {
		if (det_apis_between(d, level[o->alloc_ev], level[o->first_ev]) >= d->o->early_apis &&
		    d->o->early_apis > 0) {
			struct gmp_finding f = base(GMP_PAT_EARLY_ALLOCATION, obj);
			bounded(d, &f, o->alloc_ev, o->first_ev);
			if ((err = det_add_finding(d, &f, "allocate it just before %s",
						   det_api(d, o->first_ev, a, sizeof(a)))))
				return err;
		}
		if (o->free_ev != GMP_NO_EVENT && d->o->late_apis > 0 &&
		    det_apis_between(d, level[o->last_ev], level[o->free_ev]) >= d->o->late_apis) {
			struct gmp_finding f = base(GMP_PAT_LATE_DEALLOCATION, obj);
			bounded(d, &f, o->last_ev, o->free_ev);
			if ((err = det_add_finding(d, &f, "free it just after %s",
						   det_api(d, o->last_ev, a, sizeof(a)))))
				return err;
		}
		if (d->o->idle_apis > 0 && (err = idleness(d, obj)))
			return err;
	}
	if (o->free_ev == GMP_NO_EVENT) {
		struct gmp_finding f = base(GMP_PAT_MEMORY_LEAK, obj);
		f.ev_a = o->naccess ? o->last_ev : o->alloc_ev;
		if (o->naccess)
			err = det_add_finding(d, &f, "free it just after %s, its last use",
					      det_api(d, o->last_ev, a, sizeof(a)));
		else
			err = det_add_finding(d, &f, "free it, or better remove it: it is never used");
		if (err)
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
