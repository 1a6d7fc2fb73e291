// SPDX-License-Identifier: MIT
// A buffer that is used and never freed: memory_leak (and nothing else).
#include "common.h"

int main()
{
	const size_t n = 1 << 20;
	float *a;
	CHECK(cudaMalloc(&a, n * sizeof(float)));
	fill<<<blocks(n), 256>>>(a, n, 1.0f);
	CHECK(cudaDeviceSynchronize());
	return 0; /* a is never freed */
}
