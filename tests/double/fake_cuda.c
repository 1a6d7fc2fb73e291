// SPDX-License-Identifier: MIT
/*
 * A stand-in CUDA driver for the `gmprof run` tests: cuInit succeeds and
 * cuDeviceGetCount reports FAKE_CUDA_DEVICES devices (1).
 */
#include <stdlib.h>

int cuInit(unsigned flags);
int cuDeviceGetCount(int *count);

int cuInit(unsigned flags)
{
	(void)flags;
	return 0;
}

int cuDeviceGetCount(int *count)
{
	const char *n = getenv("FAKE_CUDA_DEVICES");
	*count = n ? atoi(n) : 1;
	return 0;
}
