// SPDX-License-Identifier: MIT
/* libFuzzer target: the baseline reader of `gmprof check --baseline`. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
		/* Peaks: one of any device and input (versions 1 and 2), or one per input and device. */
		size_t distinct = 0;
		for (size_t i = 0; i < b.npeaks; i++) {
			const struct gmp_baseline_peak *p = &b.peaks[i];
			if ((p->device == GMP_ANY_DEVICE) != (p->input == NULL) ||
			    (p->device == GMP_ANY_DEVICE && (b.npeaks != 1 || b.ninputs)))
				abort();
			size_t same = 0;
			for (size_t k = 0; k < i && p->input; k++) {
				same += !strcmp(b.peaks[k].input, p->input);
				if (!strcmp(b.peaks[k].input, p->input) && b.peaks[k].device == p->device)
					abort();
			}
			distinct += p->input && !same;
			/* Version 4's ranges: sorted, each found by its path. */
			for (size_t k = 0; k < p->nranges; k++)
				if ((k && strcmp(p->ranges[k - 1].range, p->ranges[k].range) >= 0) ||
				    gmp_baseline__range(p, p->ranges[k].range) != &p->ranges[k])
					abort();
		}
		if (distinct != b.ninputs)
			abort();
		gmp_baseline__release(&b);
	} else if (rc != -EINVAL && rc != -ENOMEM) {
		abort();
	}
	return 0;
}
