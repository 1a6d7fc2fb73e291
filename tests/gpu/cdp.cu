// SPDX-License-Identifier: MIT
// Dynamic parallelism: a kernel launches the kernels that read a and write
// b (built with the flags in cdp.nvcc).  Whether the patches of a grid a
// kernel launches get its host launch's data (and so report its accesses
// under that launch) is what this program asks of a GPU: if they do, the
// findings are those of cdp.expect (the model cdp.jsonl, where the parent
// launch reads a and writes b); if not, a looks unread after its upload
// and b unwritten, and b is taken for an object that could reuse a's
// memory (a redundant allocation: docs/known-limits.md).
#include <vector>

#include "common.h"

__global__ void child(const float *a, float *b, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		b[i] = a[i] + 1.0f;
}

__global__ void parent(const float *a, float *b, size_t n)
{
	if (blockIdx.x == 0 && threadIdx.x == 0)
		child<<<(unsigned)((n + 255) / 256), 256>>>(a, b, n);
}

int main()
{
	const size_t n = 1 << 18;
	std::vector<float> host(n, 1.0f);
	float *a, *b;
	CHECK(cudaMalloc(&a, n * sizeof(float)));   /* obj#1 */
	CHECK(cudaMalloc(&b, n * sizeof(float)));   /* obj#2 */
	CHECK(cudaMemcpy(a, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
	parent<<<1, 32>>>(a, b, n);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(host.data(), b, n * sizeof(float), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(a));
	CHECK(cudaFree(b));
	if (host[n - 1] != 2.0f) {
		std::fprintf(stderr, "cdp: read %f, want 2\n", host[n - 1]);
		return 1;
	}
	return 0;
}
