/* SPDX-License-Identifier: MIT */
/*
 * Memory over time in the reports: per device the bytes live on average
 * and the share of them that waited (numbers from gmp_clock__memtime,
 * detector/held.c; the host's clock); each finding's waiting time is
 * gmp_findings__waited (findings_json.h).  Every section is empty when no
 * event has a host time (event scripts without time_ns).
 */
#ifndef GMPROF_MEMTIME_H
#define GMPROF_MEMTIME_H

#include <stdio.h>

#include "gmprof/detect.h"
#include "jw.h"

/* The report's section, as text, Markdown, HTML, and "memory_over_time" in JSON.  0, -ENOMEM or -EIO. */
int gmp_memtime__text(FILE *fp, const struct gmp_result *r, const struct gmp_clock *c);
int gmp_memtime__markdown(FILE *fp, const struct gmp_result *r, const struct gmp_clock *c);
int gmp_memtime__html(FILE *fp, const struct gmp_result *r, const struct gmp_clock *c);
int gmp_memtime__json(struct gmp_jw *jw, const struct gmp_clock *c);

struct gmp_session;
/*
 * gmprof diff's: a device's bytes live on average in a run, into *avg.  1,
 * 0 when not known (no host times, every object of the device's left out,
 * or nothing on it), -ENOMEM.
 */
int gmp_memtime__average(struct gmp_session *s, uint32_t device, uint64_t *avg);

#endif
