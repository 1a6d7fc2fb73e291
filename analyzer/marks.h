/* SPDX-License-Identifier: MIT */
/*
 * Memory at NVTX marks in the analyzer's outputs (marks_out.c); what the
 * numbers are: markmem.h.
 */
#ifndef GMPROF_MARKS_H
#define GMPROF_MARKS_H

#include <stdio.h>

#include "jw.h"
#include "markmem.h"

struct gmp_sites;

/*
 * The text report's section (nothing when the trace has no marks): per
 * device a table of the marks by name, in the order of their first marks
 * (at most max: the first half and the last half of them), the live bytes
 * at the first, the last, the least and the most; then the names whose
 * live bytes grew from the first mark to the last, and what they kept by
 * allocation site.  0 or -ENOMEM.
 */
int gmp_mmem__text(FILE *fp, const struct gmp_result *r, struct gmp_sites *sites, size_t max);
/* The same tables in the Markdown report, and in the HTML report. */
int gmp_mmem__markdown(FILE *fp, const struct gmp_result *r, struct gmp_sites *sites, size_t max);
int gmp_mmem__html(FILE *fp, const struct gmp_result *r, struct gmp_sites *sites, size_t max);
/*
 * For gmprof run's summary: the marks whose live bytes grew on any device,
 * the most first, at most max of "  marks    epoch: live bytes grew ... on
 * device N" with what they kept, and one line counting the rest.  0 or -ENOMEM.
 */
int gmp_mmem__summary(FILE *fp, const struct gmp_result *r, struct gmp_sites *sites, size_t max);
/* "memory_at_marks" in a JSON report: every name on every device it is shown on (nothing without marks). */
int gmp_mmem__json(struct gmp_jw *jw, const struct gmp_result *r, struct gmp_sites *sites);
/* "live bytes grew from 4.0 KiB (the first of its 3 marks) to ..." of group g on device index d, into buf. */
const char *gmp_mmem__grew_text(const struct gmp_mmem *m, size_t g, size_t d, char *buf, size_t n);
/* What group g kept on device index d (gmp_mmem__kept), by allocation site.  0 or -ENOMEM; release kp in every case. */
struct gmp_rmem_kept;
int gmp_mmem__kept_sites(struct gmp_sites *sites, const struct gmp_result *r, const struct gmp_mmem *m, size_t g,
			 size_t d, struct gmp_rmem_kept *kp);
/* "live at its last mark, allocated since its first: ..." by site, at most max sites, into buf (-ENOMEM: none). */
int gmp_mmem__kept_text(struct gmp_sites *sites, const struct gmp_result *r, const struct gmp_mmem *m, size_t g,
			size_t d, size_t max, char *buf, size_t n);

/*
 * gmprof diff by NVTX mark (marks_diff.c): device's mark names in either
 * run, matched by name, the largest change (of the most live at their
 * marks, or of their growth) first, with what run b's marks kept (sites_b:
 * b's) where a name's growth grew.  Text (under the device's peak) and
 * Markdown: the changed ones, at most max; JSON: "marks", every one
 * (nothing where neither run has marks on the device).  0 or -ENOMEM.
 */
int gmp_mmem__diff_text(FILE *fp, const struct gmp_result *a, const struct gmp_result *b, struct gmp_sites *sites_b,
			uint32_t device, size_t max);
int gmp_mmem__diff_md(FILE *fp, const struct gmp_result *a, const struct gmp_result *b, struct gmp_sites *sites_b,
		      uint32_t device, size_t max);
int gmp_mmem__diff_json(struct gmp_jw *jw, const struct gmp_result *a, const struct gmp_result *b,
			struct gmp_sites *sites_b, uint32_t device);

#endif
