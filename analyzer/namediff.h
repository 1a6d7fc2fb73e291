/* SPDX-License-Identifier: MIT */
/*
 * gmprof diff by name (namediff.c): rows that two runs of a program name
 * alike (NVTX range paths, NVTX mark names), each with a few numbers per
 * run, matched by name, the largest change first, and written as text,
 * Markdown and JSON.  rangemem_diff.c and marks_diff.c say what their rows
 * and numbers are, in a struct gmp_ndiff_kind each.
 */
#ifndef GMPROF_NAMEDIFF_H
#define GMPROF_NAMEDIFF_H

#include <stdint.h>
#include <stdio.h>

#include "jw.h"

struct gmp_rmem_kept;

#define GMP_NDIFF_VALUES 3

struct gmp_ndiff_row {
	char *name;                      /* owned */
	int has[2];                      /* in run a (0), in run b (1) */
	uint64_t v[2][GMP_NDIFF_VALUES]; /* its numbers in each run (0 where it has none) */
	size_t ref;                      /* the caller's handle of it in run b, where has[1] */
	uint64_t weight;                 /* what ranks it (gmp_ndiff__settle): the largest change of a ranked number */
};

/* What the rows are, for the engine and its outputs. */
struct gmp_ndiff_kind {
	const char *by;        /* "NVTX mark": "by NVTX mark (the largest changes first)", "### Device N by NVTX mark" */
	const char *column;    /* the Markdown column of the names: "mark" */
	const char *things;    /* "marks": "... and 3 more marks", the JSON array's key */
	const char *json_name; /* the JSON key of a row's name: "mark" */
	int json_always;       /* the JSON array also where there are no rows (the diff schema requires "ranges") */
	size_t nvalues;        /* numbers per run, at most GMP_NDIFF_VALUES */
	size_t nranked;        /* the first nranked rank the rows, tell alike from changed, and are in the tables */
	size_t grew;           /* the index of the growth: a row whose growth grew has what run b kept */
	const char *label[GMP_NDIFF_VALUES]; /* Markdown columns: "most" gives "most before", "most after" */
	const char *json[GMP_NDIFF_VALUES];  /* JSON keys: "max" gives "max_before", "max_after" */
	/* A changed number in the text: pre[i] "1.0 KiB -> 2.0 KiB" post[i] ("most ", ""). */
	const char *pre[GMP_NDIFF_VALUES], *post[GMP_NDIFF_VALUES];
	const char *kept_lead; /* "live at its last mark, allocated since its first" */
	/* "most 4.0 KiB over 2 marks": the numbers of a row that run k alone has, into buf. */
	void (*one_run)(const struct gmp_ndiff_row *e, int k, char *buf, size_t n);
	/* What run b kept of row e, by site, into kp (release it in every case).  0 or -ENOMEM. */
	int (*kept)(void *ctx, const struct gmp_ndiff_row *e, struct gmp_rmem_kept *kp);
};

struct gmp_ndiff {
	struct gmp_ndiff_row *v;
	size_t n, cap;
};

/* A row of run k (0: a, 1: b): its name (copied), its kind->nvalues numbers, its handle.  0 or -ENOMEM. */
int gmp_ndiff__add(struct gmp_ndiff *d, int k, const char *name, const uint64_t *v, size_t nv, size_t ref);
/*
 * After both runs' rows: a name of both runs becomes one row; with
 * changed_only, the rows alike in both runs go; the largest change first,
 * then by name.
 */
void gmp_ndiff__settle(struct gmp_ndiff *d, const struct gmp_ndiff_kind *kind, int changed_only);
void gmp_ndiff__release(struct gmp_ndiff *d);

/*
 * Both runs' rows added, one of the three outputs (out: a FILE, or a struct
 * gmp_jw for JSON), settled first: text (under a device's peak in gmprof
 * diff) and Markdown: the changed rows, at most max, with what run b kept
 * under a row whose growth grew (kind->kept(ctx, ...)); JSON: the array of
 * every row.  0 or -ENOMEM.
 */
enum gmp_ndiff_format { GMP_NDIFF_TEXT, GMP_NDIFF_MARKDOWN, GMP_NDIFF_JSON };
int gmp_ndiff__write(enum gmp_ndiff_format f, void *out, struct gmp_ndiff *d, const struct gmp_ndiff_kind *kind,
		     void *ctx, uint32_t device, size_t max);

#endif
