/* SPDX-License-Identifier: MIT */
/* SARIF 2.1.0 output of `gmprof check --sarif`. */
#ifndef GMPROF_SARIF_H
#define GMPROF_SARIF_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "baseline.h"
#include "session.h"

struct gmp_sarif {
	struct gmp_session *s;
	char root[PATH_MAX];                  /* source root, no trailing slash ("" none) */
	uint32_t error_mask;                  /* patterns reported at level "error" */
	const struct gmp_baseline *baseline;  /* adds baselineState; may be NULL */
};

/* A gmp_output__write callback (ctx: struct gmp_sarif). */
int gmp_sarif__write(FILE *fp, void *ctx);

#endif
