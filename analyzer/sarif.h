/* SPDX-License-Identifier: MIT */
/* SARIF 2.1.0 output of `gmprof check --sarif`. */
#ifndef GMPROF_SARIF_H
#define GMPROF_SARIF_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "baseline.h"
#include "session.h"

#include "jw.h"

struct gmp_sarif {
	struct gmp_session *s;
	char root[PATH_MAX];                  /* source root, no trailing slash ("" none) */
	uint32_t error_mask;                  /* patterns reported at level "error" */
	const struct gmp_baseline *baseline;  /* adds baselineState; may be NULL */
};

/*
 * A SARIF log with one run per input: begin, a run for each session (sf->s
 * set to it), end; then gmp_jw__finish.
 */
void gmp_sarif__begin(struct gmp_jw *jw, FILE *fp);
void gmp_sarif__run(struct gmp_sarif *sf, struct gmp_jw *jw);
void gmp_sarif__end(struct gmp_jw *jw);

#endif
