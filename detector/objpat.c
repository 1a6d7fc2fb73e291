// SPDX-License-Identifier: MIT
/*
 * Object-level lifetime patterns (paper, section 5.1): early allocation,
 * late deallocation, unused allocation, memory leak and temporary
 * idleness.  "Between" counts GPU APIs whose level lies strictly between
 * the two levels; sync and event ops never count.  An object's idle ranges
 * form one finding that lists every range; the ranges themselves are found
 * by walks over the topological order (build.c).
 */
#include <stdlib.h>

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

/* sp[0 .. n): obj's idle gaps, in topological order, already in r->spans at off. */
static int idleness(struct det *d, uint32_t obj, uint32_t off, uint32_t n)
{
	struct gmp_finding f = base(GMP_PAT_TEMPORARY_IDLENESS, obj);
	const struct gmp_span *sp = d->r->spans + off;
	f.range_off = off;
	f.range_n = f.count = n;
	uint32_t best = 0;
	for (uint32_t k = 1; k < n; k++)
		if (sp[k].apis_between > sp[best].apis_between)
			best = k;
	bounded(d, &f, sp[best].ev_a, sp[best].ev_b);
	return det_add_finding(d, &f);
}

static int one_object(struct det *d, uint32_t obj, uint32_t gap_off, uint32_t ngap)
{
	const struct gmp_object *o = &d->r->objects[obj];
	const uint32_t *level = d->r->level;
	int err;
	if (gmp_mem_kind__unanalyzed(o->kind)) {
		/* Its accesses are not analyzed (resolve.c): only a leak can be told. */
	} else if (o->naccess == 0) {
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
		if (ngap && (err = idleness(d, obj, gap_off, ngap)))
			return err;
	}
	if (o->free_ev == GMP_NO_EVENT) {
		struct gmp_finding f = base(GMP_PAT_MEMORY_LEAK, obj);
		/*
		 * Its last use; unknown when kernels may have used it unrecorded,
		 * or the host or another process may have (a texture's reads are
		 * not seen, nor the host's use of managed memory, nor another
		 * process's of memory shared with it).
		 */
		if (d->o->accesses_unknown || o->kind == GMP_MEM_ARRAY ||
		    (o->kind == GMP_MEM_MANAGED && !d->o->managed_gpu_only) ||
		    gmp_object__shared(d->r, obj) == GMP_SHARED_EXPORTED)
			f.ev_a = GMP_NO_EVENT;
		else
			f.ev_a = o->naccess ? o->last_ev : o->alloc_ev;
		if ((err = det_add_finding(d, &f)))
			return err;
	}
	return 0;
}

int det_object_patterns(struct det *d)
{
	uint32_t base;
	int err = det_idle_spans(d, &base);
	const uint32_t *g = d->gap_off; /* NULL: no idle gaps were looked for */
	for (size_t obj = 0; obj < d->r->nobjects && !err; obj++)
		err = one_object(d, (uint32_t)obj, base + (g ? g[obj] : 0),
				 g ? g[obj + 1] - g[obj] : 0);
	/* The later passes need neither. */
	free(d->level_end);
	free(d->gap_off);
	d->level_end = NULL;
	d->gap_off = NULL;
	return err;
}
