// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the event-script reader, on any bytes.  Accepted
 * scripts go through the detector (errors allowed, crashes not).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gmprof/detect.h"
#include "gmprof/script.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gmp_trace *t = NULL;
	struct gmp_script_error err;
	if (gmp_script__read_mem((const char *)data, size, &t, &err) || !t)
		return 0;
	struct gmp_result *r = NULL;
	struct gmp_detect_opts o;
	struct gmp_detect_error de;
	gmp_detect_opts__defaults(&o);
	o.verify_order = 1;
	if (gmp_detect(t, &o, &r, &de) == 0)
		gmp_result__free(r);
	else if (strncmp(de.msg, "internal error", 14) == 0)
		abort(); /* the levels disagree with Kahn's algorithm */
	gmp_trace__free(t);
	return 0;
}
