// SPDX-License-Identifier: MIT
// An object touched only by atomics is read and written, never "unused";
// a histogram read back afterwards.  No findings.
#include <vector>

#include "common.h"

__global__ void histogram(unsigned *bins, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(&bins[i % 64], 1u);
}

int main()
{
	const size_t n = 1 << 20;
	unsigned *bins;
	std::vector<unsigned> host(64);
	CHECK(cudaMalloc(&bins, 64 * sizeof(unsigned)));
	CHECK(cudaMemset(bins, 0, 64 * sizeof(unsigned)));
	histogram<<<blocks(n), 256>>>(bins, n);
	CHECK(cudaMemcpy(host.data(), bins, 64 * sizeof(unsigned), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(bins));
	return host[0] == n / 64 ? 0 : 1;
}
