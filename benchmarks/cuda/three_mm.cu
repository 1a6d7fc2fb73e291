// SPDX-License-Identifier: MIT
/*
 * Chained matrix products in the shape of PolyBench 3MM: E = A*B, F = C*D,
 * G = E*F.  As PolyBench writes it, every matrix is allocated up front and
 * freed at the end: F is allocated long before it is first written (early
 * allocation), A and B stay allocated long after E is computed (late
 * deallocation), and F could have reused A's memory, dead by then
 * (redundant allocation).  Built with -DFIXED, each matrix is allocated just
 * before its first use and freed right after its last, and F reuses A.
 * Expected findings of the unfixed version (18: every matrix early and late,
 * three redundant, E idle): three_mm.expect, which is what the detector finds
 * in the program's event model (models/three_mm.jsonl); `make gpu-check`
 * compares a real run with it.
 * Its run on an H100 (2026-11-23) gave them exactly: tests/data/gpu/three_mm.gmprof.
 */
#include "bench.h"

#ifndef N
#define N 2048
#endif

__global__ void init(float *m, int n, float v, int scale)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	for (int r = 0; r < scale && i < n * n; r++, bench_repeated())
		m[i] = v * (float)(i % 7 + 1);
}

__global__ void mm(float *c, const float *a, const float *b, int n, int scale)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= n || col >= n)
		return;
	for (int r = 0; r < scale; r++, bench_repeated()) {
		float s = 0.0f;
		for (int k = 0; k < n; k++)
			s += a[row * n + k] * b[k * n + col];
		c[row * n + col] = s;
	}
}

int main()
{
	const int n = N;
	const size_t bytes = (size_t)n * n * sizeof(float);
	const dim3 tb(16, 16), grid((n + 15) / 16, (n + 15) / 16);
	const int lin = (n * n + 255) / 256;
	float *a, *b, *c, *d, *e, *f, *g;
#ifndef FIXED
	CHECK(cudaMalloc(&a, bytes));                      /* obj#1 */
	CHECK(cudaMalloc(&b, bytes));                      /* obj#2 */
	CHECK(cudaMalloc(&c, bytes));                      /* obj#3 */
	CHECK(cudaMalloc(&d, bytes));                      /* obj#4 */
	CHECK(cudaMalloc(&e, bytes));                      /* obj#5 */
	CHECK(cudaMalloc(&f, bytes));                      /* obj#6: early, and could reuse a */
	CHECK(cudaMalloc(&g, bytes));                      /* obj#7 */
	init<<<lin, 256>>>(a, n, 1.0f, bench_scale);
	init<<<lin, 256>>>(b, n, 2.0f, bench_scale);
	mm<<<grid, tb>>>(e, a, b, n, bench_scale);                      /* a's and b's last use */
	init<<<lin, 256>>>(c, n, 3.0f, bench_scale);
	init<<<lin, 256>>>(d, n, 4.0f, bench_scale);
	mm<<<grid, tb>>>(f, c, d, n, bench_scale);
	mm<<<grid, tb>>>(g, e, f, n, bench_scale);
	float out;
	CHECK(cudaMemcpy(&out, g, sizeof(out), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(a));                                /* late */
	CHECK(cudaFree(b));                                /* late */
	CHECK(cudaFree(c));
	CHECK(cudaFree(d));
	CHECK(cudaFree(e));
	CHECK(cudaFree(f));
	CHECK(cudaFree(g));
#else
	CHECK(cudaMalloc(&a, bytes));
	CHECK(cudaMalloc(&b, bytes));
	CHECK(cudaMalloc(&e, bytes));
	init<<<lin, 256>>>(a, n, 1.0f, bench_scale);
	init<<<lin, 256>>>(b, n, 2.0f, bench_scale);
	mm<<<grid, tb>>>(e, a, b, n, bench_scale);
	CHECK(cudaFree(b));
	f = a;                                             /* F reuses A's memory */
	CHECK(cudaMalloc(&c, bytes));
	CHECK(cudaMalloc(&d, bytes));
	init<<<lin, 256>>>(c, n, 3.0f, bench_scale);
	init<<<lin, 256>>>(d, n, 4.0f, bench_scale);
	mm<<<grid, tb>>>(f, c, d, n, bench_scale);
	CHECK(cudaFree(c));
	CHECK(cudaFree(d));
	CHECK(cudaMalloc(&g, bytes));
	mm<<<grid, tb>>>(g, e, f, n, bench_scale);
	CHECK(cudaFree(e));
	CHECK(cudaFree(f));
	float out;
	CHECK(cudaMemcpy(&out, g, sizeof(out), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(g));
#endif
	size_t free_b, total_b;
	CHECK(cudaMemGetInfo(&free_b, &total_b));
	std::printf("G[0] = %g\n", out);
	return 0;
}
