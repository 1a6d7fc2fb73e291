// SPDX-License-Identifier: MIT
/*
 * Object-level lifetime patterns (paper, section 5.1): early allocation,
 * late deallocation, unused allocation, memory leak and temporary
 * idleness.  "Between" counts GPU APIs whose level lies strictly between
 * the two levels; sync and event ops never count.  An object's idle ranges
 * form one finding that lists every range; the gaps themselves are found
 * by the build pass's topological walk (build.c).
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"
#include "util.h"

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
		if (ngap && (err = idleness(d, obj, gap_off, ngap)))
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
	struct gmp_result *r = d->r;
	size_t nobj = r->nobjects;
	/*
	 * The build pass's idle gaps become spans grouped by object (a stable
	 * counting sort that writes each span once, in its final place).
	 */
	uint32_t *off = calloc(nobj + 2, sizeof(*off));
	if (!off)
		return -ENOMEM;
	uint32_t base = (uint32_t)r->nspans;
	if (d->ngaps && (r->nspans + d->ngaps >= UINT32_MAX ||
			 GMP_GROW(r->spans, d->spans_cap, r->nspans + d->ngaps))) {
		free(off);
		return -ENOMEM;
	}
	for (size_t i = 0; i < d->ngaps; i++)
		off[d->gaps[i].obj + 2]++;
	for (size_t o = 0; o < nobj; o++)
		off[o + 2] += off[o + 1];
	for (size_t i = 0; i < d->ngaps; i++) {
		const struct det_gap *g = &d->gaps[i];
		r->spans[base + off[g->obj + 1]++] = (struct gmp_span){ g->x, g->y, g->between };
	}
	r->nspans += d->ngaps;
	free(d->gaps);
	d->gaps = NULL;
	d->ngaps = d->gaps_cap = 0;
	/* off[o] .. off[o + 1] now bounds object o's gaps. */
	int err = 0;
	for (size_t obj = 0; obj < nobj && !err; obj++)
		err = one_object(d, (uint32_t)obj, base + off[obj], off[obj + 1] - off[obj]);
	free(off);
	return err;
}
