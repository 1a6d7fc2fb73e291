/* SPDX-License-Identifier: MIT */
/* `gmprof html`: the parts of the page written outside html.c (html_run.c). */
#ifndef GMPROF_ANALYZER_HTML_H
#define GMPROF_ANALYZER_HTML_H

#include <stdint.h>
#include <stdio.h>

struct gmp_session;
struct gmp_trace;

/* The run's summary, a definition list: metadata, devices, pools, capture, graphs, own cost. */
void gmp_html__summary(FILE *fp, struct gmp_session *s);
/* The table of allocations that ran out of memory (nothing when none did). */
void gmp_html__failures(FILE *fp, struct gmp_session *s);
/* " in outer &gt; inner": the NVTX ranges of range path `path`, if any. */
void gmp_html__in_ranges(FILE *fp, const struct gmp_trace *t, uint32_t path);

#endif
