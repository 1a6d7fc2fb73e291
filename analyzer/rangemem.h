/* SPDX-License-Identifier: MIT */
/*
 * Memory by NVTX range in the analyzer's outputs (rangemem_out.c) and gmprof
 * diff (rangemem_diff.c); what each range's numbers are: rangemem_core.h.
 */
#ifndef GMPROF_RANGEMEM_H
#define GMPROF_RANGEMEM_H

#include <stdio.h>

#include "jw.h"
#include "rangemem_core.h"

struct gmp_sites;

/* What a range's times kept (gmp_rmem__kept) from one allocation site. */
struct gmp_rmem_kept_site {
	char *site;               /* "file:line" (owned); the object's label where named; "no site": neither */
	int named;                /* no source line: one object's label (or several of that label) */
	uint32_t alloc_ev;        /* the earliest of their allocations */
	uint64_t bytes, objects;
};

struct gmp_rmem_kept {
	uint64_t bytes, objects;
	struct gmp_rmem_kept_site *sites; /* the most bytes first */
	size_t nsites;
};

/*
 * Node's kept objects on device index d, by allocation site (sites may be
 * NULL: by the objects' names) into out.  0 or -ENOMEM; release it in
 * every case.
 */
int gmp_rmem__kept_sites(struct gmp_sites *sites, const struct gmp_result *r, const struct gmp_rmem *m, uint32_t node,
			 size_t d, struct gmp_rmem_kept *out);
void gmp_rmem_kept__release(struct gmp_rmem_kept *k);
/* The same of any n objects (objs: r's object indices, borrowed), by allocation site.  0 or -ENOMEM; release out. */
int gmp_kept__sites(struct gmp_sites *sites, const struct gmp_result *r, const uint32_t *objs, size_t n,
		    struct gmp_rmem_kept *out);
/*
 * "live as its last time began, allocated since its first: 8.0 KiB in 2
 * objects, from a.cu:4 (8.0 KiB in 2)", at most max sites, into buf.
 */
const char *gmp_rmem_kept__text(const struct gmp_rmem_kept *k, size_t max, char *buf, size_t n);
/* The same after another lead than "live as its last time began, allocated since its first". */
const char *gmp_kept__text(const char *lead, const struct gmp_rmem_kept *k, size_t max, char *buf, size_t n);
/* key: {"bytes", "objects", "sites": [{"site" or "object", "bytes", "objects"}]}. */
void gmp_rmem_kept__json(struct gmp_jw *jw, const char *key, const struct gmp_rmem_kept *k);

/*
 * The text report's section (nothing when the trace has no ranges): per
 * device a table of at most max ranges (those of the largest peaks, with the
 * ranges they nest in), in tree order.  0 or -ENOMEM.
 */
int gmp_rmem__text(FILE *fp, const struct gmp_result *r, struct gmp_sites *sites, size_t max);
/*
 * For gmprof run's summary: the ranges that grew (gmp_rmem__growth) on any
 * device, the most first, at most max lines of "  ranges   PATH on device
 * N: ..." and one counting the rest; nothing when none grew.  0 or -ENOMEM.
 */
int gmp_rmem__summary(FILE *fp, const struct gmp_result *r, struct gmp_sites *sites, size_t max);
/* "memory_by_range" in a JSON report: every node on every device it has calls on. */
int gmp_rmem__json(struct gmp_jw *jw, const struct gmp_result *r, struct gmp_sites *sites);
/* The Markdown report's tables, and the HTML report's (nothing without ranges). */
int gmp_rmem__markdown(FILE *fp, const struct gmp_result *r, struct gmp_sites *sites, size_t max);
int gmp_rmem__html(FILE *fp, const struct gmp_result *r, struct gmp_sites *sites, size_t max);

/*
 * Device's ranges in either run as rows of d (namediff.h: each named by its
 * path, with its peak, the bytes that outlived it and its growth in each
 * run), matched by path, the largest change first; with changed_only,
 * those in both runs with the same numbers are left out.  0 or -ENOMEM;
 * release d after 0.
 */
struct gmp_ndiff;
int gmp_rmem__deltas(const struct gmp_result *a, const struct gmp_result *b, uint32_t device, int changed_only,
		     struct gmp_ndiff *d);
/*
 * The changed ones (at most max) under a device's peak in gmprof diff (a
 * range whose last time began further above its first than before has,
 * under it, what run b's times kept by allocation site: sites_b, b's), and
 * as a Markdown table.
 */
int gmp_rmem__diff_text(FILE *fp, const struct gmp_result *a, const struct gmp_result *b, struct gmp_sites *sites_b,
			uint32_t device, size_t max);
int gmp_rmem__diff_md(FILE *fp, const struct gmp_result *a, const struct gmp_result *b, struct gmp_sites *sites_b,
		      uint32_t device, size_t max);
/*
 * "ranges": every one, before and after (null where a run has none), and
 * where its growth grew "kept_after": what run b's times kept, by site.
 */
int gmp_rmem__diff_json(struct gmp_jw *jw, const struct gmp_result *a, const struct gmp_result *b,
			struct gmp_sites *sites_b, uint32_t device);

#endif
