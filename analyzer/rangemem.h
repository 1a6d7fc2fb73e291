/* SPDX-License-Identifier: MIT */
/*
 * Memory by NVTX range: for each range a program pushed (a node of the
 * tree of range paths: "step", "step > forward", ...) and each device, the
 * most live bytes the device held at a call made inside it (the phase's
 * peak), what was allocated inside it, and how much of that outlived it
 * (was freed outside the range, or never).  It answers "which phase makes
 * the peak" and "which phase keeps memory past its end" (a training step
 * whose allocations outlive it grows every iteration).
 *
 * A call is inside a range when its host thread had the range open (at any
 * depth) when it made the call; live bytes are the device's as the peaks
 * count them (r->curve: pool regions not counted), right after the call in
 * the topological order; with pools that have NVTX regions, also the bytes
 * in use (r->inuse_curve).  Only calls made on a device count towards its
 * peak inside a range.  A range entered again and again (a loop's "step")
 * also has its times: how many, each one's peak, and the live bytes as
 * each began, whose growth from the first time to the last is memory that
 * each time leaves behind.
 */
#ifndef GMPROF_RANGEMEM_H
#define GMPROF_RANGEMEM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gmprof/detect.h"
#include "jw.h"

#define GMP_RMEM_ROOT UINT32_MAX

struct gmp_rmem_node {
	uint32_t parent;          /* the enclosing range's node, GMP_RMEM_ROOT at the top */
	uint32_t name;            /* string id of the range's name */
	uint32_t depth;           /* 0 at the top */
	uint32_t first;           /* position in r->order of the first call inside (UINT32_MAX: none) */
};

/* A node on a device (r->devices[d]). */
struct gmp_rmem_dev {
	uint64_t calls;           /* the device's calls made inside */
	uint64_t peak;            /* the most live bytes right after one of them */
	uint32_t peak_ev;         /* the first of them to reach it (GMP_NO_EVENT: no call) */
	uint32_t reserved;
	uint64_t inuse_peak;      /* likewise the bytes in use (0 without pool regions) */
	uint64_t alloc_bytes, alloc_objects;     /* the device's objects allocated inside */
	uint64_t outlive_bytes, outlive_objects; /* of those, freed outside it or never */
	/*
	 * Each time a thread entered the range (pushed it, or its path came to
	 * hold it anew) is a time; the times with a call on the device: how
	 * many, the smallest of their peaks, and the live bytes right before
	 * the first call of the earliest time and of the latest (by their first
	 * calls in the topological order).
	 */
	uint64_t times, time_peak_min, entry_first, entry_last;
	uint32_t first_pos, last_pos; /* those first calls' positions in r->order */
};

struct gmp_rmem {
	struct gmp_rmem_node *node;
	size_t n;
	struct gmp_rmem_dev *dev; /* node k on r->devices[d]: dev[k * ndev + d] */
	size_t ndev;
	uint32_t *tree;           /* the nodes with a call inside, in tree order (each
				     after its parent, siblings by their first call) */
	size_t ntree;
};

/*
 * Builds the ranges' memory from r (and r->trace's range paths).  0 (no
 * nodes when the trace has no ranges) or -ENOMEM; release it in every case.
 */
int gmp_rmem__build(const struct gmp_result *r, struct gmp_rmem *m);
void gmp_rmem__release(struct gmp_rmem *m);

static inline const struct gmp_rmem_dev *gmp_rmem__at(const struct gmp_rmem *m, uint32_t node, size_t d)
{
	return &m->dev[(size_t)node * m->ndev + d];
}

/* How many more bytes were live as x's latest time began than as its first did (0: none, or one time). */
static inline uint64_t gmp_rmem__growth(const struct gmp_rmem_dev *x)
{
	return x->entry_last > x->entry_first ? x->entry_last - x->entry_first : 0;
}

/* The chain of nodes from the top down to node k (at most GMP_RANGE_DEPTH_MAX) into out; their count. */
size_t gmp_rmem__chain(const struct gmp_rmem *m, uint32_t k, uint32_t *out);
/* Node k's path, "outer > inner", into buf. */
const char *gmp_rmem__path(const struct gmp_rmem *m, const struct gmp_result *r, uint32_t k, char *buf, size_t n);

/*
 * The text report's section (nothing when the trace has no ranges): per
 * device a table of at most max ranges (those of the largest peaks, with the
 * ranges they nest in), in tree order.  0 or -ENOMEM.
 */
int gmp_rmem__text(FILE *fp, const struct gmp_result *r, size_t max);
/*
 * For gmprof run's summary: the ranges that grew (gmp_rmem__growth) on any
 * device, the most first, at most max lines of "  ranges   PATH on device
 * N: ..." and one counting the rest; nothing when none grew.  0 or -ENOMEM.
 */
int gmp_rmem__summary(FILE *fp, const struct gmp_result *r, size_t max);
/* "memory_by_range" in a JSON report: every node on every device it has calls on. */
int gmp_rmem__json(struct gmp_jw *jw, const struct gmp_result *r);
/* The Markdown report's tables, and the HTML report's (nothing without ranges). */
int gmp_rmem__markdown(FILE *fp, const struct gmp_result *r, size_t max);
int gmp_rmem__html(FILE *fp, const struct gmp_result *r, size_t max);

/*
 * gmprof diff by range (rangemem_diff.c): a range path of device's, in
 * run a (index 0) or b (1) or both, with its peak, outlived bytes and growth.
 */
struct gmp_rmem_delta {
	char *path;               /* "outer > inner" (owned) */
	int has[2];
	uint64_t peak[2], outlived[2];
	uint64_t grew[2];         /* how much more was live as its last time began than as its first */
};

/*
 * Device's ranges in either run, matched by path, the largest change (of
 * the peak, or of what outlived it) first; with changed_only, those in
 * both runs with the same numbers are left out.  0 or -ENOMEM.
 */
int gmp_rmem__deltas(const struct gmp_result *a, const struct gmp_result *b, uint32_t device, int changed_only,
		     struct gmp_rmem_delta **out, size_t *n);
void gmp_rmem__deltas_free(struct gmp_rmem_delta *v, size_t n);
/* The changed ones (at most max) under a device's peak in gmprof diff, and as a Markdown table. */
int gmp_rmem__diff_text(FILE *fp, const struct gmp_result *a, const struct gmp_result *b, uint32_t device, size_t max);
int gmp_rmem__diff_md(FILE *fp, const struct gmp_result *a, const struct gmp_result *b, uint32_t device, size_t max);
/* "ranges": every one, before and after (null where a run has none). */
int gmp_rmem__diff_json(struct gmp_jw *jw, const struct gmp_result *a, const struct gmp_result *b, uint32_t device);

#endif
