// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the profile reader, on any bytes.  Whatever it accepts
 * is run through the detector (which must reject inconsistencies with an
 * error, never crash) and written back as an event script.
 */
#include <stdint.h>
#include <stdio.h>

#include "fuzz_detect.h"
#include "gmprof/profile.h"
#include "gmprof/script.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gmp_trace *t = NULL;
	if (gmp_profile__read_mem(data, size, &t) || !t)
		return 0;
	fuzz_detect(t);
	fuzz_fold(t);
	FILE *null = fopen("/dev/null", "w");
	if (null) {
		gmp_script__write(null, t, NULL, NULL);
		fclose(null);
	}
	gmp_trace__free(t);
	return 0;
}
