// SPDX-License-Identifier: MIT
// A memset that a copy overwrites before anything reads it: dead_write.
#include <vector>

#include "common.h"

int main()
{
	const size_t n = 1 << 18;
	std::vector<float> host(n, 1.0f);
	float *a;
	CHECK(cudaMalloc(&a, n * sizeof(float)));
	CHECK(cudaMemset(a, 0, n * sizeof(float)));                        /* dead */
	CHECK(cudaMemcpy(a, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
	scale<<<blocks(n), 256>>>(a, n, 2.0f);
	CHECK(cudaMemcpy(host.data(), a, n * sizeof(float), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(a));
	return 0;
}
