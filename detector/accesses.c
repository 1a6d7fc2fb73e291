// SPDX-License-Identifier: MIT
/*
 * Each object's accesses in topological order (after det_build has the
 * order), and the idle gaps between them that temporary idleness reads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "util.h"

#define NONE UINT32_MAX

/*
 * Walks every access (read or write) in topological order: with `fill`,
 * appends it to its object's list in oacc.  Levels only grow along the walk,
 * so api_before is read in order, and idle gaps (consecutive accesses to an
 * object with at least idle_apis GPU APIs strictly between their levels,
 * api_before[l] - api_before[l' + 1]) are found here rather than by a pass
 * over each object's accesses, which reads levels and counts at random.
 * With gap_off set: spans NULL counts each object's gaps into
 * gap_off[obj + 2]; otherwise writes them to spans[gap_off[obj + 1]++].
 */
static int walk_accesses(struct det *d, uint32_t *fill, struct gmp_span *spans)
{
	const struct gmp_result *r = d->r;
	uint32_t idle = d->gap_off ? d->o->idle_apis : 0;
	/* per object: its last access, APIs up to its level, unknown launches before it */
	uint32_t (*last)[3] = NULL;
	uint32_t unk = 0; /* launches with unknown accesses before place p (unmonitored.c) */
	if (idle) {
		if (!(last = malloc((r->nobjects + 1) * sizeof(*last))))
			return -ENOMEM;
		for (size_t o = 0; o < r->nobjects; o++)
			last[o][0] = NONE;
	}
	uint32_t l = 0;
	for (size_t p = 0; p < d->t->nev; p++) {
		uint32_t v = r->order[p];
		while (p >= d->level_end[l])
			l++; /* v's level, without reading r->level at random */
		while (unk < d->nunk && d->unk[unk] < p)
			unk++;
		for (uint32_t k = d->dep_off[v]; k < d->dep_off[v + 1]; k++) {
			if (DEP_KIND(d->deps[k]) > DEP_RW)
				continue;
			uint32_t obj = DEP_OBJ(d->deps[k]);
			if (fill)
				d->oacc[fill[obj]++] = v;
			if (!idle)
				continue;
			uint32_t before = d->api_before[l];
			/* Not idle where a launch that may have used it came between. */
			if (last[obj][0] != NONE && before > last[obj][1] &&
			    before - last[obj][1] >= idle && last[obj][2] == unk) {
				if (spans)
					spans[d->gap_off[obj + 1]++] = (struct gmp_span){
						last[obj][0], v, before - last[obj][1] };
				else
					d->gap_off[obj + 2]++;
			}
			last[obj][0] = v;
			last[obj][1] = d->api_before[l + 1];
			last[obj][2] = unk;
		}
	}
	free(last);
	return 0;
}

int det_idle_spans(struct det *d, uint32_t *base)
{
	struct gmp_result *r = d->r;
	*base = (uint32_t)r->nspans;
	if (!d->gap_off)
		return 0;
	for (size_t o = 0; o < r->nobjects; o++)
		d->gap_off[o + 2] += d->gap_off[o + 1];
	size_t n = d->gap_off[r->nobjects + 1];
	if (r->nspans + n >= UINT32_MAX || GMP_GROW(r->spans, d->spans_cap, r->nspans + n + 1))
		return -ENOMEM;
	int err = walk_accesses(d, NULL, r->spans + r->nspans);
	if (!err)
		r->nspans += n;
	return err;
}

/* Per object: the events that read or write it, by (level, index). */
int det_object_accesses(struct det *d)
{
	struct gmp_result *r = d->r;
	size_t nobj = r->nobjects;
	d->oacc_off = calloc(nobj + 1, sizeof(*d->oacc_off));
	if (!d->oacc_off)
		return -ENOMEM;
	size_t total = 0;
	for (size_t k = 0; k < d->ndeps; k++)
		if (DEP_KIND(d->deps[k]) <= DEP_RW) {
			d->oacc_off[DEP_OBJ(d->deps[k]) + 1]++;
			total++;
		}
	for (size_t o = 0; o < nobj; o++)
		d->oacc_off[o + 1] += d->oacc_off[o];
	d->oacc = malloc((total ? total : 1) * sizeof(*d->oacc));
	uint32_t *fill = malloc((nobj + 1) * sizeof(*fill));
	if (!d->oacc || !fill) {
		free(fill);
		return -ENOMEM;
	}
	memcpy(fill, d->oacc_off, (nobj + 1) * sizeof(*fill));
	/* Idle gaps are counted in the same walk and written by det_idle_spans. */
	uint32_t idle = d->o->patterns & (1u << GMP_PAT_TEMPORARY_IDLENESS) ? d->o->idle_apis : 0;
	int err = 0;
	if (idle && !(d->gap_off = calloc(nobj + 2, sizeof(*d->gap_off))))
		err = -ENOMEM;
	if (!err)
		err = walk_accesses(d, fill, NULL);
	free(fill);
	if (err)
		return err;
	for (size_t o = 0; o < nobj; o++) {
		uint32_t a = d->oacc_off[o], b = d->oacc_off[o + 1];
		struct gmp_object *ob = &r->objects[o];
		ob->naccess = b - a;
		if (b > a) {
			ob->first_ev = d->oacc[a];
			ob->last_ev = d->oacc[b - 1];
		}
	}
	return 0;
}

