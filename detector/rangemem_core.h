/* SPDX-License-Identifier: MIT */
/*
 * Memory by NVTX range (pure: no I/O; the collector's summary and the
 * analyzer's reports use it): for each range a program pushed (a node of the
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
#ifndef GMPROF_RANGEMEM_CORE_H
#define GMPROF_RANGEMEM_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "gmprof/detect.h"

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
	uint32_t *by_alloc;       /* where a range was entered more than once (gmp_rmem__kept): the
				     objects the peaks count, in the topological order of their
				     allocations */
	size_t nby_alloc;
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
 * What a range that grew (gmp_rmem__growth) left behind each time, the
 * sentence reports give it ("live bytes as it began grew from 0 B (the
 * first of its 3 times) to 8.0 KiB (the last), 4.0 KiB more each time"),
 * into buf.
 */
void gmp_rmem__grew_text(const struct gmp_rmem_dev *x, char *buf, size_t n);

/* A range that grew on a device (r->devices[d]). */
struct gmp_rmem_grown {
	uint32_t node;
	uint32_t d;
	uint64_t growth;          /* gmp_rmem__growth, > 0 */
};

/*
 * Every range that grew on any device, the most first (then by their
 * first calls), into *out (malloc'd; NULL when none), *n of them.  0 or
 * -ENOMEM.
 */
int gmp_rmem__grown(const struct gmp_rmem *m, struct gmp_rmem_grown **out, size_t *n);
/* "step on device 0: live bytes as it began grew ..." (gmp_rmem__grew_text) of g, into buf (m built of r). */
const char *gmp_rmem__grown_line(const struct gmp_rmem *m, const struct gmp_result *r, const struct gmp_rmem_grown *g,
				 char *buf, size_t n);

/*
 * What node's times kept on device index d: the objects (pool regions
 * aside, as the peaks count objects) allocated at or after the first call
 * of its earliest time and live right before the first call of its latest
 * (in the topological order), in the order of their allocations there,
 * into *out (malloc'd; NULL when none), *n of them.  Their bytes, less
 * those of the objects live as the earliest time began and freed before
 * the latest, are its growth.  0 or -ENOMEM.
 */
int gmp_rmem__kept(const struct gmp_rmem *m, const struct gmp_result *r, uint32_t node, size_t d, uint32_t **out,
		   size_t *n);

#endif
