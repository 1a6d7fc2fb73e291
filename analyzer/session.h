/* SPDX-License-Identifier: MIT */
/*
 * What every analyzing command does first -- load the input, run the
 * detector, set up symbolization -- and last: write an output file safely.
 * Failures print one line and return -1 (the command exits 2).
 */
#ifndef GMPROF_SESSION_H
#define GMPROF_SESSION_H

#include <stdio.h>

#include "gmprof/detect.h"
#include "input.h"
#include "sites.h"
#include "suppress.h"
#include "symbolize.h"

/* An output callback's (or gmp_session__each's) stop after saying why: nothing is written. */
#define GMP_OUTPUT_ABANDON 1

struct gmp_source;


struct gmp_session {
	struct gmp_input in;
	struct gmp_result *r;
	struct gmp_symbolizer *sym;   /* NULL for scripts */
	struct gmp_sites sites;
	const char *name;             /* the input as shown to the user */
	struct gmp_suppress sup;      /* --suppressions (path NULL: none) */
	struct gmp_clock *clock;      /* gmp_session__clock's, once asked for */
	struct gmp_source *src;       /* borrowed from the command: source lines, or NULL */
	struct gmp_symnotes *notes;   /* borrowed: gets the symbolizer's problems at close, or NULL */
	int clock_built;
};

struct gmp_session_opts {
	int salvage;
	const struct gmp_detect_opts *detect;
	const char *symdir;              /* --symbols, or NULL */
	const char *suppress;            /* --suppressions: matching findings are left out; or NULL */
	const char *ranges;              /* --ranges: only findings allocated in matching NVTX ranges; or NULL */
	const char *nvtx_strip;          /* --nvtx-strip: removed from NVTX names (nvtx_fold.h); or NULL */
	int nvtx_numbers;                /* --nvtx-numbers: numbers in NVTX names read N */
	const char *const *alloc_fns;    /* --alloc-fn globs: allocation wrappers, never sites */
	size_t nalloc_fns;
	struct gmp_symnotes *notes;      /* each session's modules without source lines, at its close; or NULL */
	int no_fingerprints;             /* none will be asked for: no index of the calls made (replay) */
};

int gmp_session__open(struct gmp_session *s, const char *path, const struct gmp_session_opts *so);
/* The two halves of open, for a command that times them: reading the input, then the rest. */
int gmp_session__load(struct gmp_session *s, const char *path, const struct gmp_session_opts *so);
int gmp_session__analyze(struct gmp_session *s, const struct gmp_session_opts *so);
void gmp_session__close(struct gmp_session *s);
/*
 * The host times of the findings (detector/held.c), made at the first call
 * (after the findings are final): 0 with *out NULL when the input has none;
 * -ENOMEM.
 */
int gmp_session__clock(struct gmp_session *s, const struct gmp_clock **out);

/* A command's inputs (an MPI job's ranks, say) and how to open them. */
struct gmp_inputs {
	char **v;
	size_t n;
	struct gmp_session_opts so;
};

/*
 * One session open at a time: opens each input in turn and calls fn on it
 * (i: its index), then closes it.  Stops at the first failure:
 * GMP_OUTPUT_ABANDON when an input could not be opened (said in one line),
 * else fn's nonzero return.
 */
int gmp_session__each(const struct gmp_inputs *in,
		      int (*fn)(struct gmp_session *s, size_t i, void *ctx), void *ctx);

/*
 * Writes an output through fn into path ("-": standard output), never
 * leaving half a file or replacing one unless force.  fn returns 0, a
 * negative errno, or GMP_OUTPUT_ABANDON when it said itself why it stopped
 * (a bad input met while writing): nothing is written then.  Returns 0, or
 * -1 after saying why.
 */
int gmp_output__write(const char *path, int force, int (*fn)(FILE *fp, void *ctx), void *ctx);

#endif
