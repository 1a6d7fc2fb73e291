// SPDX-License-Identifier: MIT
// The intra-object patterns on a real GPU (run in intra mode):
//   obj#1: 16 MiB of which the kernel touches 1 MiB       -> overallocation
//   obj#2: 64 hot words read by every thread, the rest once -> non_uniform_access_frequency
//   obj#3: four launches of one kernel on disjoint quarters -> structured_access,
//          and it could reuse obj#2's memory                -> redundant_allocation
#include "common.h"

__global__ void head(float *t, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		t[i] = 1.0f;
}

__global__ void hot(float *r, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i >= 64 && i < n)
		r[i] = r[i % 64] + 1.0f;
}

__global__ void quarter(float *r, size_t offset, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		r[offset + i] = 2.0f;
}

int main()
{
	const size_t big = 4 << 20, part = 256 << 10, m = 1 << 16;
	float *t, *r, *q;
	CHECK(cudaMalloc(&t, big * sizeof(float)));      /* obj#1 */
	head<<<blocks(part), 256>>>(t, part);
	CHECK(cudaFree(t));
	CHECK(cudaMalloc(&r, m * sizeof(float)));        /* obj#2 */
	hot<<<blocks(m), 256>>>(r, m);
	CHECK(cudaFree(r));
	CHECK(cudaMalloc(&q, m * sizeof(float)));        /* obj#3 */
	for (int k = 0; k < 4; k++)
		quarter<<<blocks(m / 4), 256>>>(q, k * (m / 4), m / 4);
	CHECK(cudaFree(q));
	return 0;
}
