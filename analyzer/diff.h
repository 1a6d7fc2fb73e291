/* SPDX-License-Identifier: MIT */
/*
 * gmprof diff's comparisons beside the findings (diff_sites.c): at a
 * device's largest peak in each run, the bytes by allocation site that
 * changed, the largest change first.  By NVTX range: rangemem.h.
 */
#ifndef GMPROF_DIFF_H
#define GMPROF_DIFF_H

#include <stdint.h>
#include <stdio.h>

#include "jw.h"
#include "session.h"

/* Under the device's peak in the text (at most 10 sites). */
void gmp_diff__sites_text(FILE *fp, struct gmp_session *a, struct gmp_session *b, uint32_t device);
/* "peak_sites": every site that changed.  0 or -ENOMEM. */
int gmp_diff__sites_json(struct gmp_jw *jw, struct gmp_session *a, struct gmp_session *b, uint32_t device);
/* A Markdown table (nothing when no site changed).  0 or -ENOMEM. */
int gmp_diff__sites_md(FILE *fp, struct gmp_session *a, struct gmp_session *b, uint32_t device);

#endif
