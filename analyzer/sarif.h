/* SPDX-License-Identifier: MIT */
/* SARIF 2.1.0 output of `gmprof check --sarif`. */
#ifndef GMPROF_SARIF_H
#define GMPROF_SARIF_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "baseline.h"
#include "check.h"
#include "session.h"

#include "jw.h"

struct gmp_sarif {
	struct gmp_session *s;
	char root[PATH_MAX];                  /* source root, no trailing slash ("" none) */
	uint32_t error_mask;                  /* patterns reported at level "error"; bit
						 GMP_PAT_COUNT: failed allocations,
						 GMP_PAT_COUNT + 1: peak growth, and
						 GMP_PAT_COUNT + 2: a peak over --max-peak,
						 GMP_PAT_COUNT + 3: a range over --max-range-peak,
						 GMP_PAT_COUNT + 4: a range's growth over its
						 budget or past the baseline's,
						 GMP_PAT_COUNT + 5: a mark's growth over its
						 budget or past the baseline's */
	const struct gmp_baseline *baseline;  /* adds baselineState; may be NULL */
	const struct gmp_peak_cmp *cmps;      /* the session's peaks against the baseline's
						 (borrowed): each past what it allows adds a
						 peak_growth result at each site that grew most */
	size_t ncmps;
	int has_max_peak;                     /* gmprof check --max-peak: in bytes, or as a */
	uint64_t max_peak;                    /* share of each device's memory (pct > 0); a */
	double max_peak_pct;                  /* peak over it adds a peak_over_budget result
						 at each site that holds most of it */
	const struct gmp_range_budget *range; /* gmprof check --max-range-peak (nrange): a */
	size_t nrange;                        /* range over one adds a range_peak_over_budget
						 result where its peak is first reached; over
						 --max-range-growth, range_growth results */
	const struct gmp_range_budget *mark;  /* gmprof check --max-mark (nmark): over a */
	size_t nmark;                         /* --max-mark-growth, mark_growth results */
	double tol_pct;                       /* --tolerance, for the baseline's ranges' growth */
	uint64_t tol_abs;
	int name_inputs;                      /* each result names its input (several inputs) */
};

/* What the run's properties say of each input. */
struct gmp_sarif_input {
	const char *name;
	uint64_t peak_bytes;
	int complete;
};

/*
 * A SARIF log of one run (code scanning takes one run per tool and
 * category), whatever the number of inputs: begin, the results of each
 * session (sf->s set to it), end with what each input was; then
 * gmp_jw__finish.
 */
void gmp_sarif__begin(struct gmp_sarif *sf, struct gmp_jw *jw, FILE *fp);
void gmp_sarif__results(struct gmp_sarif *sf, struct gmp_jw *jw);
void gmp_sarif__end(struct gmp_jw *jw, const struct gmp_sarif_input *in, size_t n);

/* sarif.c's parts that sarif_ranges.c shares. */
#define GMP_SARIF_RULE_RANGE (GMP_PAT_COUNT + 3)
#define GMP_SARIF_RULE_GROWTH (GMP_PAT_COUNT + 4)
#define GMP_SARIF_RULE_MARK (GMP_PAT_COUNT + 5)
struct gmp_sarif_loc {
	char file[PATH_MAX];
	uint32_t line;
};
/* Splits "file:line" at its last colon: 0, or -1 where it is no file and line. */
int gmp_sarif__split_site(const char *site, struct gmp_sarif_loc *l);
/* Opens a result: its rule, level (error where the mask has its rule), message and location. */
void gmp_sarif__result_head(struct gmp_sarif *sf, struct gmp_jw *jw, const char *rule, unsigned index,
			    const char *msg, const struct gmp_sarif_loc *l);
/*
 * What closes a range_growth or mark_growth result after
 * gmp_sarif__result_head, at one site of what the range's times (the mark
 * name's marks) kept: its fingerprint, of the site's key and the name, and
 * its properties.
 */
struct gmp_rmem_kept_site;
struct gmp_sarif_growth {
	const char *rule;         /* "range_growth", "mark_growth" */
	const char *fingerprint;  /* its partialFingerprints key, "gmprofRangeGrowth/v1" */
	const char *what;         /* the property naming it: "range", "mark" */
	const char *name;         /* the range's path, the marks' name */
	uint32_t device;
	uint64_t times, grew, allowed;
	const struct gmp_rmem_kept_site *site;
	uint64_t key;             /* the site as fingerprints know it */
	int has_before;           /* the baseline knows what it kept there (before) */
	uint64_t before;
};
void gmp_sarif__growth_tail(struct gmp_sarif *sf, struct gmp_jw *jw, const struct gmp_sarif_growth *g);
/*
 * sarif_ranges.c: a range_peak_over_budget result for each range over its
 * --max-range-peak, and range_growth results at the allocation sites of
 * what each range over its --max-range-growth, or past the baseline's
 * growth, kept.
 */
void gmp_sarif__ranges(struct gmp_sarif *sf, struct gmp_jw *jw);
/*
 * check_marks.c: mark_growth results at the allocation sites (the three
 * that hold most, with a file and line) of what each mark name over its
 * --max-mark-growth, or past the baseline's growth, kept.  A mark over
 * --max-mark has none: a mark has no source line of its own.
 */
void gmp_sarif__marks(struct gmp_sarif *sf, struct gmp_jw *jw);

#endif
