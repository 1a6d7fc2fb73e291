/* SPDX-License-Identifier: MIT */
/*
 * What the reader fuzz targets do with a trace they accepted: run the
 * detector, which may reject it but never crash, with its levels checked
 * against the general Kahn's algorithm; a disagreement aborts.
 */
#ifndef GMPROF_FUZZ_DETECT_H
#define GMPROF_FUZZ_DETECT_H

#include <stdlib.h>
#include <string.h>

#include "gmprof/detect.h"

static inline void fuzz_detect(const struct gmp_trace *t)
{
	struct gmp_result *r = NULL;
	struct gmp_detect_opts o;
	struct gmp_detect_error de;
	gmp_detect_opts__defaults(&o);
	o.verify_order = 1;
	if (gmp_detect(t, &o, &r, &de) == 0)
		gmp_result__free(r);
	else if (strncmp(de.msg, "internal error", 14) == 0)
		abort();
}

#endif
