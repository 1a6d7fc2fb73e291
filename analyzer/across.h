/* SPDX-License-Identifier: MIT */
/*
 * The closing summary of a report of several inputs (an MPI job's ranks, a
 * training job's processes): a line per input (peak, findings, top saving,
 * leaked), then the findings of all of them grouped by fingerprint (the
 * pattern, the allocation site and the calls that bound the finding: what
 * baselines and gmprof diff match findings by), so that the fix that helps
 * every rank reads once with the count of ranks it helps, not once per rank.
 * Inputs are added one at a time, while each session is open; what the
 * summary keeps of them is copied.
 */
#ifndef GMPROF_ACROSS_H
#define GMPROF_ACROSS_H

#include <stddef.h>
#include <stdio.h>

struct gmp_across;
struct gmp_session;

/* For n inputs: 0 or -ENOMEM. */
int gmp_across__new(size_t n, struct gmp_across **out);
/* Input i's numbers and findings (i < n; each once): 0 or -ENOMEM. */
int gmp_across__add(struct gmp_across *a, size_t i, struct gmp_session *s);
/* The two tables, as text; max: fingerprint rows at most (0: 20). */
int gmp_across__text(FILE *fp, const struct gmp_across *a, const char *const *names, size_t max);
/* The same as Markdown (GitHub's). */
int gmp_across__markdown(FILE *fp, const struct gmp_across *a, const char *const *names, size_t max);
void gmp_across__free(struct gmp_across *a);

#endif
