// SPDX-License-Identifier: MIT
/*
 * An allocation that runs out of memory: twice the device's memory asked
 * of cudaMalloc, which fails at once without filling anything.  The
 * Sanitizer reports no resource callback for it; gmprof is to see the
 * cudaMalloc call return cudaErrorMemoryAllocation in the runtime API's
 * exit callback and read the size from its parameters.  "b" is allocated
 * before the failure and first used after it (early allocation), so the
 * report says its fix frees 64 MiB at the failure.  The program goes on
 * after the failure, as programs that retry smaller do.  oom.failures
 * holds the failed calls that gpu-check expects; oom.jsonl is the event
 * model the expected findings come from (make test checks that).
 */
#include "common.h"

int main()
{
	const size_t n = 16u << 20; /* 64 MiB of floats */
	float *a, *b;
	CHECK(cudaMalloc(&a, n * sizeof(float)));
	CHECK(cudaMalloc(&b, n * sizeof(float)));
	fill<<<blocks(n), 256>>>(a, n, 1.0f);
	CHECK(cudaDeviceSynchronize());
	size_t free_bytes, total;
	CHECK(cudaMemGetInfo(&free_bytes, &total));
	void *huge = nullptr;
	cudaError_t e = cudaMalloc(&huge, 2 * total);
	if (e != cudaErrorMemoryAllocation) {
		std::fprintf(stderr, "oom: cudaMalloc of %zu bytes returned %s, not out of memory\n",
			     2 * total, cudaGetErrorString(e));
		return 1;
	}
	(void)cudaGetLastError(); /* the failure is not sticky; clear it */
	add<<<blocks(n), 256>>>(b, a, a, n);
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaFree(a));
	CHECK(cudaFree(b));
	return 0;
}
