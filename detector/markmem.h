/* SPDX-License-Identifier: MIT */
/*
 * Memory at NVTX marks (pure: no I/O; the analyzer's report, JSON, Perfetto
 * trace and check gates use it).  A mark ("epoch 3", "model loaded") is a
 * moment a host thread named; the live bytes at it, on each device, are
 * those of the objects that the calls issued before it had allocated and
 * not freed: issue order, as failed allocations count them (the driver's
 * allocator had handed those out when the host got there), objects counted
 * as the peaks count them (a pool whole, its NVTX regions not).  Marks of
 * one name are a series: a loop that marks "epoch" each time round has, on
 * each device, the live bytes at its first mark and its last, the least and
 * the most; what its last mark found live that was allocated since its
 * first is what the loop kept.
 */
#ifndef GMPROF_MARKMEM_H
#define GMPROF_MARKMEM_H

#include <stddef.h>
#include <stdint.h>

#include "gmprof/detect.h"

/* A name's marks on a device (r->devices[d]). */
struct gmp_mmem_dev {
	uint64_t first, last;     /* live bytes at its first mark and its last */
	uint64_t min, max;        /* the least and the most at one of them */
	uint32_t max_mark;        /* the first mark to find the most (index in trace->marks) */
	uint32_t reserved;
};

/* The marks of one name. */
struct gmp_mmem_group {
	uint32_t name;            /* string id */
	uint32_t first_mark, last_mark; /* indices in trace->marks */
	uint32_t reserved;
	uint64_t times;           /* how many marks of that name, on any thread */
};

struct gmp_mmem {
	uint64_t *live;           /* mark k on device index d: live[k * ndev + d] */
	size_t nmarks, ndev;      /* ndev: r->ndevices */
	struct gmp_mmem_group *group; /* by their first marks */
	size_t ngroups;
	uint32_t *of;             /* mark k's group: group[of[k]] */
	struct gmp_mmem_dev *dev; /* group g on device index d: dev[g * ndev + d] */
};

/* The marks' memory of r (none when its trace has no marks).  0 or -ENOMEM; release m in every case. */
int gmp_mmem__build(const struct gmp_result *r, struct gmp_mmem *m);
void gmp_mmem__release(struct gmp_mmem *m);

static inline const struct gmp_mmem_dev *gmp_mmem__at(const struct gmp_mmem *m, size_t g, size_t d)
{
	return &m->dev[g * m->ndev + d];
}

/* How many more bytes were live at the group's last mark than at its first (0: none, or one mark). */
static inline uint64_t gmp_mmem__growth(const struct gmp_mmem_dev *x)
{
	return x->last > x->first ? x->last - x->first : 0;
}

/*
 * Whether group g is worth telling on device index d: marks of a program
 * that allocated on several devices are told on those where something was
 * live at one of them (a program with one device, always).
 */
int gmp_mmem__shown(const struct gmp_mmem *m, size_t g, size_t d);

/* A mark name that grew on a device (r->devices[d]). */
struct gmp_mmem_grown {
	size_t g, d;
	uint64_t growth;          /* gmp_mmem__growth, > 0 */
};

/*
 * Every name that grew on any device, the most first (then by their first
 * marks, then by device), into *out (malloc'd; NULL when none), *n of them.
 * 0 or -ENOMEM.
 */
int gmp_mmem__grown(const struct gmp_mmem *m, struct gmp_mmem_grown **out, size_t *n);

/* Group of mark name `name` (a string of r's trace), or SIZE_MAX. */
size_t gmp_mmem__group_named(const struct gmp_mmem *m, const struct gmp_result *r, const char *name);

/*
 * The objects live on device index d at r's mark k (counted as above: their
 * bytes are gmp_mmem's live[k * ndev + d]), in the order of their allocations, into
 * *out (malloc'd; NULL when none), *n of them.  0 or -ENOMEM.
 */
int gmp_mmem__live_at(const struct gmp_result *r, size_t k, size_t d, uint32_t **out, size_t *n);

/*
 * What group g's series kept on device index d: the objects (counted as
 * above) allocated after its first mark and still live at its last, in
 * the order of their allocations, into *out (malloc'd; NULL when none),
 * *n of them.  Their bytes, less those of the objects live at the first
 * mark and freed before the last, are its growth.  0 or -ENOMEM.
 */
int gmp_mmem__kept(const struct gmp_mmem *m, const struct gmp_result *r, size_t g, size_t d, uint32_t **out,
		   size_t *n);

#endif
