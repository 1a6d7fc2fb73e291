// SPDX-License-Identifier: MIT
/*
 * Kernel launches whose accesses are unknown (det_unknown_launch): those
 * gmprof did not monitor (outside the capture range, or where the
 * collector could not) and those whose access sets never came back.  Each
 * may have read and written any object live when it was issued, so it
 * counts as a use of each: nothing is reported that such a launch could
 * make false.
 *  - early and late: an object's first and last use include the first and
 *    last of these launches issued while it was live (by their places in
 *    the topological order), so the distances can only shrink;
 *  - unused: an object live during one of them is not unused;
 *  - idleness: a gap between two accesses with one of them in between (in
 *    the topological order) is not idle (build.c's walk);
 *  - dead writes: a write before one of them (in issue order) may have
 *    been read (deadwrite.c);
 *  - overallocation: an object live during one of them is not judged
 *    (intra.c).
 * They add no data edges: their accesses are unknown, so the graph orders
 * them by their stream and synchronization alone.
 *
 * "Live when it was issued" is by issue order, alloc_ev < launch < free_ev:
 * a launch's level need not follow its objects' allocations when no data
 * edge ties them.  Each object's first and last such launch in the
 * topological order come from a segment tree over the launches in issue
 * order: O((U + objects) log U) time, 4U words.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

int det_unknown_launches(struct det *d)
{
	const struct gmp_result *r = d->r;
	const size_t n = d->t->nev;
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		m += det_unknown_launch(d, &d->t->ev[i]);
	d->nunk = (uint32_t)m;
	if (!m)
		return 0;
	if (!(d->unk = malloc(m * sizeof(*d->unk))))
		return -ENOMEM;
	size_t k = 0;
	for (size_t p = 0; p < n; p++)
		if (det_unknown_launch(d, &d->t->ev[r->order[p]]))
			d->unk[k++] = (uint32_t)p;
	return 0;
}

/* Min (lo) and max (hi) of the leaves [a, b) of a bottom-up segment tree of m leaves. */
static void span(const uint32_t *lo, const uint32_t *hi, size_t m, size_t a, size_t b,
		 uint32_t *min, uint32_t *max)
{
	*min = UINT32_MAX;
	*max = 0;
	for (a += m, b += m; a < b; a >>= 1, b >>= 1) {
		if (a & 1) {
			if (lo[a] < *min)
				*min = lo[a];
			if (hi[a] > *max)
				*max = hi[a];
			a++;
		}
		if (b & 1) {
			b--;
			if (lo[b] < *min)
				*min = lo[b];
			if (hi[b] > *max)
				*max = hi[b];
		}
	}
}

/* The first index i of ev[0 .. m) with ev[i] > x (ev ascending). */
static size_t after(const uint32_t *ev, size_t m, uint32_t x)
{
	size_t a = 0, b = m;
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (ev[mid] <= x)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

int det_unknown_uses(struct det *d)
{
	struct gmp_result *r = d->r;
	const size_t m = d->nunk, n = d->t->nev;
	if (!m)
		return 0;
	/* The launches in issue order (ev), and the tree of their places in the topological order. */
	uint32_t *ev = malloc(m * sizeof(*ev));
	uint32_t *lo = malloc(2 * m * sizeof(*lo));
	uint32_t *hi = malloc(2 * m * sizeof(*hi));
	if (!ev || !lo || !hi) {
		free(ev);
		free(lo);
		free(hi);
		return -ENOMEM;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (det_unknown_launch(d, &d->t->ev[i])) {
			ev[k] = (uint32_t)i;
			lo[m + k] = hi[m + k] = d->pos[i];
			k++;
		}
	for (size_t i = m - 1; i > 0; i--) {
		lo[i] = lo[2 * i] < lo[2 * i + 1] ? lo[2 * i] : lo[2 * i + 1];
		hi[i] = hi[2 * i] > hi[2 * i + 1] ? hi[2 * i] : hi[2 * i + 1];
	}
	for (size_t obj = 0; obj < r->nobjects; obj++) {
		struct gmp_object *o = &r->objects[obj];
		if (gmp_mem_kind__unanalyzed(o->kind))
			continue; /* its accesses are not analyzed (resolve.c) */
		size_t a = after(ev, m, o->alloc_ev);
		size_t b = o->free_ev == GMP_NO_EVENT ? m : after(ev, m, o->free_ev - 1);
		if (a >= b)
			continue;
		uint32_t first, last;
		span(lo, hi, m, a, b, &first, &last);
		if (!o->naccess || first < d->pos[o->first_ev])
			o->first_ev = r->order[first];
		if (!o->naccess || last > d->pos[o->last_ev])
			o->last_ev = r->order[last];
		o->unmonitored = (uint32_t)(b - a);
		o->naccess += o->unmonitored;
	}
	free(ev);
	free(lo);
	free(hi);
	return 0;
}
