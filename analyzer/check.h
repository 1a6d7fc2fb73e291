/* SPDX-License-Identifier: MIT */
/*
 * gmprof check's results (cmd_check.c makes them) and the files that say
 * them (check_out.c): JUnit XML, and Markdown for a CI job's summary page.
 */
#ifndef GMPROF_CHECK_H
#define GMPROF_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "gmprof/detect.h"

/*
 * The checks one input can get, each at most once: complete, monitored,
 * out_of_memory, suppressions, graphs, tensor_maps, pools, shared, a pattern:NAME
 * per pattern, max_peak, max_in_use, max_range_peak, max_range_growth,
 * max_mark, max_mark_growth, max_leak, baseline:new_findings,
 * baseline:peak, baseline:pools, baseline:in_use, baseline:range_peak,
 * baseline:range_growth, baseline:mark_peak, baseline:mark_growth.
 * gmp_gate__add stops gmprof rather
 * than write past them (a check added without counting it here);
 * tests/cli/all_checks.sh asks for every one.
 */
#define GMP_MAX_CHECKS (GMP_PAT_COUNT + 24)

struct gmp_check {
	char name[64];
	int failed;
	char *detail;   /* owned: one line, or several for findings */
};

/* One input's checks. */
struct gmp_gate {
	struct gmp_session *s;    /* borrowed while its checks run */
	char *name;               /* owned: the input's name */
	struct gmp_check checks[GMP_MAX_CHECKS];
	size_t n;
};

/* Every input's gate, and the totals: what the output files say (borrowed). */
struct gmp_gates {
	const struct gmp_gate *v;
	size_t n;
	size_t checks, failed;
};

struct gmp_baseline;
struct gmp_peak_cmp;

/* Adds a check (failed or not) with the first line of its detail; returns it. */
struct gmp_check *gmp_gate__add(struct gmp_gate *g, const char *name, int failed, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Appends a line to a check's detail. */
void gmp_check__more(struct gmp_check *c, const char *line);
/* The checks that never fail (check_notes.c): graphs, tensor_maps, pools, shared, where each has something to say. */
void gmp_gate__notes(struct gmp_gate *g);
/*
 * Adds "  pattern: object (size) allocated at site [fingerprint]" to c's
 * detail, and under it the site's source line ("      | code") where the
 * session reads sources and has it.
 */
void gmp_gate__finding(struct gmp_gate *g, struct gmp_check *c, const struct gmp_finding *f);
/* x and y in words, each n bytes; with their bytes too where the words are the same ("1.0 MiB"). */
void gmp_gate__two_sizes(uint64_t x, uint64_t y, char *a, char *b, size_t n);
/* A failed check: where the largest peak on device (GMP_ANY_DEVICE: of them all) was reached, as a line. */
void gmp_gate__peak_where(struct gmp_gate *g, struct gmp_check *c, uint32_t device);
/*
 * The checks against baseline b: its new findings, and the peaks (cmps,
 * from gmp_baseline__compare): baseline:peak, and baseline:in_use where the
 * baseline has peaks of bytes in use.
 */
void gmp_gate__baseline(struct gmp_gate *g, const struct gmp_baseline *b, const struct gmp_peak_cmp *cmps,
			size_t ncmps);

/*
 * gmprof check --max-range-peak GLOB=BUDGET (check_ranges.c): the NVTX
 * ranges whose path matches GLOB ("outer > inner", fnmatch) held to a
 * peak, in bytes or as a share of each device's memory; and
 * --max-range-growth GLOB=BUDGET: held to how much more was live as their
 * latest time began than as their first did (rangemem.h).
 */
#define GMP_RANGE_BUDGETS 16   /* --max-range-peak and --max-range-growth options at most (and of --max-mark*) */

struct gmp_range_budget {
	char glob[256];
	uint64_t bytes;
	double pct;               /* > 0: a share of the device's memory instead */
	int growth;               /* --max-range-growth's (else --max-range-peak's) */
};
/*
 * Under a check of range (ranges) or mark budgets: a line for each of
 * rules (of kind growth) that matched none (matched[k] 0) of t's names,
 * with what --nvtx-numbers would make of one where that would match.
 */
void gmp_check__unmatched(struct gmp_check *c, const struct gmp_trace *t, int ranges,
			  const struct gmp_range_budget *rules, size_t n, int growth, const size_t *matched);
/*
 * Under a baseline's range (ranges) or mark check that found fresh names
 * new in the run, which it does not compare: a line where t's names carry
 * numbers that --nvtx-numbers would fold ("epoch 4" new, "epoch N" not).
 * 0 or -ENOMEM.
 */
int gmp_check__fresh_names(struct gmp_check *c, const struct gmp_trace *t, int ranges, size_t fresh);

/* A range over a budget on a device. */
struct gmp_range_over {
	uint32_t device;
	uint32_t peak_ev;         /* the first call inside to reach its peak */
	uint64_t peak, budget;    /* peak: the growth, for a growth budget */
	uint64_t times;
	size_t rule;              /* the budget's index */
	uint32_t node, d;         /* its node and device index in gmp_rmem__build of the result */
	char path[256];
};

struct gmp_range_eval {
	struct gmp_range_over *over;  /* the largest excess first */
	size_t nover;
	size_t *matched;              /* per budget: ranges (per device) it matched */
	uint64_t *largest;            /* and the largest peak (or growth) among them */
};

/* "GLOB=BUDGET" (the last '=' splits) of a peak or growth budget: 0, or -EINVAL (no glob, a glob too long, a bad budget). */
int gmp_range_budget__parse(const char *arg, int growth, struct gmp_range_budget *b);
/* "'step > *' <= 1.0 GiB" (or "<= 50% of each device's memory"), into buf. */
const char *gmp_range_budget__text(const struct gmp_range_budget *b, char *buf, size_t n);
/* b's bytes on device of t's run: its bytes, or its share of the device's memory. */
uint64_t gmp_range_budget__bytes(const struct gmp_range_budget *b, const struct gmp_trace *t, uint32_t device);
/* The budgets on r's ranges.  0 or -ENOMEM; release ev in every case. */
int gmp_range_budget__eval(const struct gmp_result *r, const struct gmp_range_budget *rules, size_t n,
			   struct gmp_range_eval *ev);
void gmp_range_eval__release(struct gmp_range_eval *ev);
/*
 * The checks max_range_peak and max_range_growth (each where a budget is
 * of its kind): fail on a range over its budget, and on a budget that
 * matched no range.
 */
void gmp_gate__range_peaks(struct gmp_gate *g, const struct gmp_range_budget *rules, size_t n);

/*
 * The checks max_mark and max_mark_growth (check_marks.c; each where a
 * budget of rules is of its kind): --max-mark GLOB=BUDGET holds the live
 * bytes at every NVTX mark whose name matches GLOB, --max-mark-growth
 * GLOB=BUDGET how many more were live at the last mark of a name than at
 * its first (markmem.h); a budget that matched no mark fails.
 */
void gmp_gate__marks(struct gmp_gate *g, const struct gmp_range_budget *rules, size_t n);

/*
 * Against a baseline that has NVTX marks for a device of cmps (version 7):
 * baseline:mark_peak, each mark name of the run that the baseline has on
 * the device held to the most live at its marks there plus the tolerance
 * (pct percent or abs bytes, the larger), failing too where a device has
 * none of the baseline's names; baseline:mark_growth, where a name was made
 * more than once in either run, its growth held to the baseline's plus the
 * tolerance.
 */
void gmp_gate__baseline_marks(struct gmp_gate *g, const struct gmp_peak_cmp *cmps, size_t ncmps, double pct,
			      uint64_t abs);

/*
 * baseline:range_peak, where the baseline has NVTX ranges' peaks (version
 * 4) for a device of cmps: each range of the run that the baseline has,
 * held to its peak there plus the tolerance (pct percent or abs bytes, the
 * larger); fails too where a device has none of the baseline's ranges.
 * baseline:range_growth, where the baseline has its ranges' times
 * (version 5) and a range of a compared device was entered more than once
 * in either run: each such range's growth (rangemem.h) held to the
 * baseline's plus the tolerance.
 */
void gmp_gate__baseline_ranges(struct gmp_gate *g, const struct gmp_peak_cmp *cmps, size_t ncmps, double pct,
			       uint64_t abs);

/*
 * Whether range x's growth is compared with its baseline br (one of them
 * was entered more than once), and the most br allows it (*allowed: its
 * growth plus the tolerance, pct percent or abs bytes, the larger).
 */
struct gmp_rmem_dev;
struct gmp_baseline_range;
int gmp_range__growth_compared(const struct gmp_rmem_dev *x, const struct gmp_baseline_range *br, double pct,
			       uint64_t abs, uint64_t *allowed);

/* How many of the gate's checks failed. */
size_t gmp_gate__failures(const struct gmp_gate *g);
/* gmp_output__write writers, ctx a struct gmp_gates: 0, -EIO or -ENOMEM. */
int gmp_gates__junit(FILE *fp, void *ctx);
int gmp_gates__markdown(FILE *fp, void *ctx);

/* What gmprof check checks: its budgets, its baseline and how far to trust it. */
struct gmp_budgets {
	uint32_t fail_on;
	int have_peak;
	uint64_t max_peak;
	int have_inuse;
	uint64_t max_inuse;
	double peak_pct, inuse_pct; /* the budgets as shares of each device's memory (0: in bytes) */
	int have_leak;
	uint64_t max_leak;
	const struct gmp_range_budget *range;  /* --max-range-peak and --max-range-growth, nrange of them */
	size_t nrange;
	const struct gmp_range_budget *mark;   /* --max-mark and --max-mark-growth, nmark of them */
	size_t nmark;
	const struct gmp_baseline *base;   /* NULL: no baseline */
	double tol_pct;
	uint64_t tol_abs;
	int allow_incomplete;
	int allow_oom;
};

/* What check's command line asks for: the checks (bu, ranges) and where their results go. */
struct gmp_check_args {
	struct gmp_cli_common cm;
	struct gmp_budgets bu;         /* base: set once the baseline is loaded */
	struct gmp_range_budget ranges[GMP_RANGE_BUDGETS];
	struct gmp_range_budget marks[GMP_RANGE_BUDGETS];
	const char *sarif, *junit, *md, *basefile, *root, *cq;
	int annotations;
};

/*
 * check's options into *ar (check_args.c; usage: what --help prints): 0,
 * or 1 with the exit status in *ex (after --help, or one sentence naming a
 * bad option).
 */
int gmp_check__args(int argc, char **argv, const char *usage, struct gmp_check_args *ar, int *ex);
/*
 * --baseline path: a baseline file, or a run (profile or event script) to
 * take one from, analyzed with cm's thresholds and suppressions, into b.
 * 0, or -1 said in one line.
 */
struct gmp_baseline;
int gmp_check__load_baseline(const char *path, struct gmp_cli_common *cm, struct gmp_baseline *b);

#endif
