/* SPDX-License-Identifier: MIT */
/*
 * gmprof check's results (cmd_check.c makes them) and the files that say
 * them (check_out.c): JUnit XML, and Markdown for a CI job's summary page.
 */
#ifndef GMPROF_CHECK_H
#define GMPROF_CHECK_H

#include <stddef.h>
#include <stdio.h>

#include "gmprof/detect.h"

#define GMP_MAX_CHECKS (GMP_PAT_COUNT + 9)

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

/* How many of the gate's checks failed. */
size_t gmp_gate__failures(const struct gmp_gate *g);
/* gmp_output__write writers, ctx a struct gmp_gates: 0, -EIO or -ENOMEM. */
int gmp_gates__junit(FILE *fp, void *ctx);
int gmp_gates__markdown(FILE *fp, void *ctx);

#endif
