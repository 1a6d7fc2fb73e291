/* SPDX-License-Identifier: MIT */
/*
 * What the reader fuzz targets do with a trace they accepted: run the
 * detector, which may reject it but never crash, with its levels checked
 * against the general Kahn's algorithm; a disagreement aborts.  Then
 * combine its fixes (plans, with a budget of half each peak), whose
 * fixes must bring no peak above the measured one, make memory over
 * time, whose least must never pass its most, nor its most what was held,
 * and the memory at NVTX marks, whose first and last lie between their
 * least and most, and whose kept objects lie between their first and last.
 * Last, fold the trace's NVTX names (--nvtx-numbers): every event's ranges
 * and every mark's name must read as the old ones folded, and the folded
 * trace go through the same.
 */
#ifndef GMPROF_FUZZ_DETECT_H
#define GMPROF_FUZZ_DETECT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gmprof/detect.h"
#include "markmem.h"
#include "nvtx_fold.h"

static inline void fuzz_clock(const struct gmp_result *r)
{
	struct gmp_clock *c = NULL;
	if (gmp_clock__new(r, &c) || !c)
		return;
	for (size_t i = 0; i < r->nfindings; i++) {
		struct gmp_held h;
		if (gmp_clock__held(c, &r->findings[i], &h) == 0 &&
		    (h.lo_ns > h.hi_ns || h.longest_lo_ns > h.longest_hi_ns || h.longest_hi_ns > h.hi_ns))
			abort();
	}
	size_t n;
	const struct gmp_memtime *m = gmp_clock__memtime(c, &n);
	for (size_t d = 0; d < n; d++) {
		if (!(m[d].lo_all <= m[d].hi_all && m[d].hi_all <= m[d].held))
			abort();
		for (int k = 0; k < GMP_WAIT_COUNT; k++)
			if (!(m[d].lo[k] <= m[d].hi[k] && m[d].lo[k] <= m[d].lo_all && m[d].hi[k] <= m[d].hi_all))
				abort();
	}
	gmp_clock__free(c);
}

static inline void fuzz_marks(const struct gmp_result *r)
{
	struct gmp_mmem m;
	if (gmp_mmem__build(r, &m) == 0)
		for (size_t g = 0; g < m.ngroups; g++)
			for (size_t d = 0; d < m.ndev; d++) {
				const struct gmp_mmem_dev *v = gmp_mmem__at(&m, g, d);
				if (!(v->min <= v->first && v->first <= v->max && v->min <= v->last && v->last <= v->max) ||
				    m.live[(size_t)v->max_mark * m.ndev + d] != v->max || m.of[v->max_mark] != g)
					abort();
				uint32_t *kept;
				size_t n;
				if (gmp_mmem__kept(&m, r, g, d, &kept, &n))
					continue;
				uint64_t from = r->trace->marks[m.group[g].first_mark].before;
				uint64_t to = r->trace->marks[m.group[g].last_mark].before;
				for (size_t i = 0; i < n; i++)
					if (r->objects[kept[i]].alloc_ev < from || r->objects[kept[i]].alloc_ev >= to)
						abort();
				free(kept);
			}
	gmp_mmem__release(&m);
}

static inline void fuzz_detect(const struct gmp_trace *t)
{
	struct gmp_result *r = NULL;
	struct gmp_detect_opts o;
	struct gmp_detect_error de;
	gmp_detect_opts__defaults(&o);
	o.verify_order = 1;
	if (gmp_detect(t, &o, &r, &de) != 0) {
		if (strncmp(de.msg, "internal error", 14) == 0)
			abort();
		return;
	}
	uint64_t budget = r->peak_bytes / 2;
	struct gmp_plan *p = calloc(r->ndevices ? r->ndevices : 1, sizeof(*p));
	uint64_t *targets = calloc(r->ndevices ? r->ndevices : 1, sizeof(*targets));
	uint32_t *fix = NULL;
	for (size_t d = 0; targets && d < r->ndevices; d++)
		targets[d] = budget ? budget : 1;
	if (p && targets && gmp_result__plan(r, targets, p, &fix) == 0)
		for (size_t d = 0; d < r->ndevices; d++)
			if (p[d].peak_all_fixed > p[d].peak ||
			    (p[d].fit_n != UINT32_MAX && p[d].peak_fit > (budget ? budget : 1)))
				abort();
	free(fix);
	free(targets);
	free(p);
	fuzz_clock(r);
	fuzz_marks(r);
	gmp_result__free(r);
}

/* Event ev's ranges, each name folded by f (fold NULL: as they are), joined by " > " (NULL: out of memory). */
static inline char *fuzz_ranges(const struct gmp_trace *t, size_t ev, const struct gmp_nvtx_fold *f)
{
	const uint32_t *names;
	size_t k = gmp_trace__range_path(t, gmp_trace__event_range(t, ev), &names), len = 0;
	char *out = calloc(1, 1);
	for (size_t i = 0; out && i < k; i++) {
		const char *name = gmp_trace__str(t, names[i], NULL);
		char *one = f ? gmp_nvtx_fold__dup(f, name) : strdup(name);
		char *more = one ? realloc(out, len + strlen(one) + 4) : NULL;
		if (!more) {
			free(one);
			free(out);
			return NULL;
		}
		out = more;
		len += (size_t)sprintf(out + len, "%s%s", i ? " > " : "", one);
		free(one);
	}
	return out;
}

static inline void fuzz_fold(struct gmp_trace *t)
{
	struct gmp_nvtx_fold f = { .numbers = 1 };
	size_t nev = t->nev < 4096 ? t->nev : 4096, nm = t->nmarks < 4096 ? t->nmarks : 4096;
	char **want = calloc(nev + nm + 1, sizeof(*want)); /* each event's ranges and mark's name, folded */
	if (!want)
		return;
	for (size_t i = 0; i < nev; i++)
		want[i] = fuzz_ranges(t, i, &f);
	for (size_t i = 0; i < nm; i++)
		want[nev + i] = gmp_nvtx_fold__dup(&f, gmp_trace__str(t, t->marks[i].name, NULL));
	if (gmp_nvtx_fold__trace(&f, t) == 0) {
		for (size_t i = 0; i < nev; i++) {
			char *now = fuzz_ranges(t, i, NULL);
			if (want[i] && now && strcmp(want[i], now))
				abort();
			free(now);
		}
		for (size_t i = 0; i < nm; i++)
			if (want[nev + i] && strcmp(want[nev + i], gmp_trace__str(t, t->marks[i].name, NULL)))
				abort();
		fuzz_detect(t);
	}
	for (size_t i = 0; i < nev + nm; i++)
		free(want[i]);
	free(want);
}

#endif
