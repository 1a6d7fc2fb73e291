// SPDX-License-Identifier: MIT
// Dynamic parallelism: a kernel launches the kernels that read a and write
// b (built with the flags in cdp.nvcc).  Whether the patches of a grid a
// kernel launches get its host launch's data (and so report its accesses
// under that launch) is what this program asks of a GPU: if they do, the
// findings are those of cdp.expect (the model cdp.jsonl, where the parent
// launch reads a and writes b); if not, a looks unread after its upload
// and b unwritten, and b is taken for an object that could reuse a's
// memory (a redundant allocation: docs/known-limits.md).
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
	return a_to_b("cdp", n, [n](const float *a, float *b) { parent<<<1, 32>>>(a, b, n); });
}
