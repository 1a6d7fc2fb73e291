// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the event-script reader, on any bytes.  Accepted
 * scripts go through the detector (errors allowed, crashes not).
 */
#include <stdint.h>

#include "fuzz_detect.h"
#include "gmprof/script.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gmp_trace *t = NULL;
	struct gmp_script_error err;
	if (gmp_script__read_mem((const char *)data, size, &t, &err) || !t)
		return 0;
	fuzz_detect(t);
	fuzz_fold(t);
	gmp_trace__free(t);
	return 0;
}
