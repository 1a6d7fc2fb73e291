// SPDX-License-Identifier: MIT
// Managed memory used as managed-memory programs do: the input filled on
// the host before the kernel reads it, the output read on the host after a
// sync.  The host's loads and stores reach no callback, so gmprof reports
// no early allocation of x, no late deallocation of y and no reuse of y's
// memory for w; z (managed) leaks, and t (device memory) is allocated early
// and freed late.  With --managed-gpu-only the findings on x, y and w come
// back (tests/cli/managed.sh, on this program's event model managed.jsonl).
#include "common.h"

__global__ void gather(float *y, const float *x, const float *z, size_t n, size_t m)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] + z[i % m];
}

int main()
{
	const size_t n = 1 << 18, m = 1024;
	float *x, *y, *t, *z, *w;
	CHECK(cudaMallocManaged(&x, n * sizeof(float)));   /* obj#1 */
	CHECK(cudaMallocManaged(&y, n * sizeof(float)));   /* obj#2 */
	CHECK(cudaMalloc(&t, (n / 4) * sizeof(float)));     /* obj#3, allocated early */
	CHECK(cudaMallocManaged(&z, m * sizeof(float)));   /* obj#4, never freed */
	for (size_t i = 0; i < n; i++)                      /* the host writes x ... */
		x[i] = (float)i;
	for (size_t i = 0; i < m; i++)                      /* ... and z */
		z[i] = 1.0f;
	gather<<<blocks(n), 256>>>(y, x, z, n, m);
	CHECK(cudaDeviceSynchronize());
	double sum = 0;
	for (size_t i = 0; i < n; i++)                      /* the host reads y */
		sum += y[i];
	fill<<<blocks(n / 4), 256>>>(t, n / 4, 2.0f);        /* t's first use */
	scale<<<blocks(n / 4), 256>>>(t, n / 4, 2.0f);       /* its last */
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaFree(x));
	CHECK(cudaFree(y));
	CHECK(cudaFree(t));                                  /* freed late */
	CHECK(cudaMallocManaged(&w, n * sizeof(float)));   /* obj#5: could have reused y */
	fill<<<blocks(n), 256>>>(w, n, 3.0f);
	CHECK(cudaDeviceSynchronize());
	sum += w[n - 1];                                     /* the host reads w */
	CHECK(cudaFree(w));
	std::printf("%.1f\n", sum);
	return 0;
}
