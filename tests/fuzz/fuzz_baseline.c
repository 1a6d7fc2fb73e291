// SPDX-License-Identifier: MIT
/* libFuzzer target: the baseline reader of `gmprof check --baseline`. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "baseline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gmp_baseline b;
	char err[160];
	int rc = gmp_baseline__parse((const char *)data, size, &b, err, sizeof(err));
	if (rc == 0) {
		/* Sorted and unique, as the reader promises. */
		for (size_t i = 1; i < b.nfingerprints; i++)
			if (b.fingerprints[i - 1] >= b.fingerprints[i])
				abort();
		for (size_t i = 0; i < b.nfingerprints; i++)
			if (!gmp_baseline__has(&b, b.fingerprints[i]))
				abort();
		gmp_baseline__release(&b);
	} else if (rc != -EINVAL && rc != -ENOMEM) {
		abort();
	}
	return 0;
}
