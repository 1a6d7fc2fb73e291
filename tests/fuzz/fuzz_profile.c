// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the profile reader, on any bytes.  Whatever it accepts
 * is run through the detector (which must reject inconsistencies with an
 * error, never crash) and written back as an event script.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "gmprof/detect.h"
#include "gmprof/profile.h"
#include "gmprof/script.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gmp_trace *t = NULL;
	if (gmp_profile__read_mem(data, size, &t) || !t)
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
	FILE *null = fopen("/dev/null", "w");
	if (null) {
		gmp_script__write(null, t, NULL, NULL);
		fclose(null);
	}
	gmp_trace__free(t);
	return 0;
}
