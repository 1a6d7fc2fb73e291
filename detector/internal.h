/* SPDX-License-Identifier: MIT */
/*
 * The detector's working state, shared by its passes: resolve (objects and
 * per-event dependencies), build (graph, levels, order), the pattern
 * passes, and peaks/savings.  Internal to detector/.
 */
#ifndef GMPROF_DETECT_INTERNAL_H
#define GMPROF_DETECT_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>

#include "gmprof/detect.h"
#include "graph.h"

/* What an event does to an object (low 3 bits of a dependency entry). */
enum dep_kind {
	DEP_READ = GMP_DEP_READ,
	DEP_WRITE = GMP_DEP_WRITE,
	DEP_RW = GMP_DEP_RW,
	DEP_ALLOC = GMP_DEP_ALLOC,
	DEP_FREE = GMP_DEP_FREE,
};

#define DEP_OBJ(d) GMP_DEP_OBJ(d)
#define DEP_KIND(d) GMP_DEP_KIND(d)
#define DEP_MAX_OBJ ((1u << 29) - 1)

/*
 * A hint to fetch memory that a loop will read a few iterations on.  Used
 * where a pass streams through the event array while doing enough other
 * work per event that the hardware prefetcher falls behind (measured:
 * benchmarks/results/).
 */
#if defined(__GNUC__)
#define DET_PREFETCH(p) __builtin_prefetch(p)
#else
#define DET_PREFETCH(p) ((void)(p))
#endif

struct det {
	const struct gmp_trace *t;
	const struct gmp_detect_opts *o;
	struct gmp_result *r;
	struct gmp_detect_error *err;
	size_t objects_cap, findings_cap, ranges_cap, spans_cap, hists_cap;
	/* resolve: deps of event v are deps[dep_off[v] .. dep_off[v+1]) */
	uint32_t *dep_off;
	uint32_t *deps;
	size_t ndeps, deps_cap;
	uint32_t *touch_obj;   /* per trace touch: its object */
	/* build */
	uint8_t *weight;       /* 1 for GPU APIs, 0 for sync and event ops */
	uint32_t *pos;         /* per event: its place in r->order */
	uint32_t *api_before;  /* api_before[L]: GPU APIs with level < L */
	/* per-object accesses, sorted by (level, event): oacc[oacc_off[o] ..] */
	uint32_t *oacc_off;
	uint32_t *oacc;
	uint32_t *level_end;   /* per level: its end in r->order (until the lifetime pass) */
	/* launches whose accesses are unknown (det_unknown_launch): their places in
	 * r->order, ascending (unmonitored.c) */
	uint32_t *unk;
	uint32_t nunk;
	/* idle gaps: object o's are spans[base + gap_off[o] .. base + gap_off[o + 1])
	 * after det_idle_spans; NULL when temporary idleness is off */
	uint32_t *gap_off;
	/* peaks: one live-bytes curve per device (peaks.c) */
	struct dev_curve *curves;
	/* and, where pools have regions, one of the bytes in use (NULL when none) */
	struct dev_curve *icurves;
};

/*
 * The kernel nodes of CUDA graph launches whose accesses mixed (graphs.c):
 * each such node's accesses are its launch's union (or its kernel's nodes'
 * in the launch), u[uoff[k] .. uoff[k + 1]) for k = grp[i] of node ev[i]
 * (ascending).
 */
struct det_graphs {
	uint32_t *ev, *grp;
	size_t n, next;          /* nodes; the next one det_graphs_union may be asked for */
	struct gmp_access *u;    /* each union sorted by address, its read/write bits ORed */
	size_t nu;
	uint32_t *uoff;
	size_t ngroups;          /* unions */
	size_t nmerged;          /* graph launches some of whose nodes share a union */
	uint32_t *lost;          /* kernel nodes of launches that reported no access at all, ascending */
	size_t nlost, nlost_launches;
};

int det_graphs_plan(const struct gmp_trace *t, struct det_graphs *g);
/* Event v's accesses when it is a merged node (n set), else NULL; v ascending from call to call. */
const struct gmp_access *det_graphs_union(struct det_graphs *g, uint32_t v, uint32_t *n);
void det_graphs_release(struct det_graphs *g);
/* Event ev is a kernel node of a graph launch that reported no access at all (r->graph_lost). */
int det_graph_lost(const struct gmp_result *r, uint32_t ev);

/*
 * A kernel launch whose accesses are unknown: not monitored (outside the
 * capture range, or the collector could not), or never read back.  It may
 * have read and written any object live when it was issued, so the
 * patterns count it as a use of each (unmonitored.c).  Not in a trace
 * where no kernel's accesses were recorded (alloc mode): there only leaks
 * are told.
 */
static inline int det_unknown_launch_of(const struct gmp_detect_opts *o, const struct gmp_event *e)
{
	return e->op == GMP_OP_KERNEL && !(e->flags & GMP_EF_ACCESS_KNOWN) && !o->accesses_unknown;
}

static inline int det_unknown_launch(const struct det *d, const struct gmp_event *e)
{
	return det_unknown_launch_of(d->o, e) ||
	       (e->op == GMP_OP_KERNEL && e->graph && det_graph_lost(d->r, (uint32_t)(e - d->t->ev)));
}

int det_resolve(struct det *d);
/* The launches with unknown accesses, in topological order (d->unk); after the order is built. */
int det_unknown_launches(struct det *d);
/* Counts them among the uses of the objects live when they were issued (first, last, naccess). */
int det_unknown_uses(struct det *d);
int det_build(struct det *d);
/* Each object's accesses in topological order (d->oacc) and its first and last; inside det_build. */
int det_object_accesses(struct det *d);
/* Writes the idle gaps that det_build counted to r->spans from *base, grouped by object. */
int det_idle_spans(struct det *d, uint32_t *base);
int det_object_patterns(struct det *d);
int det_dead_writes(struct det *d);
int det_redundant(struct det *d);
int det_intra(struct det *d);
/* A change of live bytes over positions [x, y) of the topological order. */
struct mod {
	uint32_t x, y;
	int64_t delta;
};
/*
 * What fixing fd changes of the live bytes, over positions (pos: each
 * event's place in r->order; npos events): the early, late, unused, leak
 * and idle ranges it removes its object from (-size each), the bytes an
 * overallocation or structured access saves over its life, or a redundant
 * pair's three changes.  m has room for max(3, fd's idle ranges); returns
 * how many.  (peaks.c: what each finding saves; plan.c: fixes combined.)
 */
size_t det_fix_mods(const struct gmp_result *r, const uint32_t *pos, uint32_t npos,
		    const struct gmp_finding *fd, struct mod *m);
int det_peaks(struct det *d);
int det_savings(struct det *d);
void det_free_curves(struct det *d);
/* After ranking: how each device stood when an allocation failed (failures.c). */
int det_failures(struct det *d);

/* Reports an inconsistency at event ev; returns -EINVAL. */
int det_fail(struct det *d, uint32_t ev, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Appends a finding (unless its pattern is filtered out); returns 0 or -ENOMEM. */
int det_add_finding(struct det *d, const struct gmp_finding *f);
/* Appends a range or a histogram; returns its index or -ENOMEM (idle gaps: det_idle_spans). */
int64_t det_add_range(struct det *d, const struct gmp_range *rg);
int64_t det_add_hist(struct det *d, const struct gmp_hist *h);

/* GPU APIs whose level lies strictly between la and lb (0 when lb <= la + 1). */
uint64_t det_apis_between(const struct det *d, uint32_t la, uint32_t lb);

/* The object an object lives in at the top (a pool region's pool; itself for most). */
static inline const struct gmp_object *det_root(const struct gmp_result *r, uint32_t obj)
{
	const struct gmp_object *o = &r->objects[obj];
	while (o->parent != GMP_NO_OBJECT)
		o = &r->objects[o->parent];
	return o;
}

/* An object's label for messages (a buffer of at least 160 bytes). */
const char *det_obj(const struct det *d, uint32_t obj, char *buf, size_t n);

#endif
