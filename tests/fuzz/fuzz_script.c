// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the event-script reader, on any bytes.  Accepted
 * scripts go through the detector (errors allowed, crashes not).
 */
#include <stdint.h>

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
	if (gmp_detect(t, NULL, &r, NULL) == 0)
		gmp_result__free(r);
	gmp_trace__free(t);
	return 0;
}
