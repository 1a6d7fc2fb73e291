// SPDX-License-Identifier: MIT
/*
 * A BICG-like step on a lower-triangular system: q = A p, where row i
 * reads p[0..i].  The first entries of p are read by nearly every thread
 * and the last by almost none (non-uniform access frequency: the hot head
 * of p belongs in shared or constant memory).  Run in intra mode
 * (bicg.mode).  Built with -DFIXED, each block stages p in shared memory.
 * Expected findings: bicg.expect, which is what the detector finds in the
 * program's event model (models/bicg.jsonl).
 * Its run on an H100 (2026-11-23) gave them exactly: tests/data/gpu/bicg.gmprof.
 */
#include "bench.h"

#define N 4096
#define TILE 256

__global__ void init(float *x, size_t n, float v, int scale)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	for (int r = 0; r < scale && i < n; r++, bench_repeated())
		x[i] = v;
}

__global__ void lower_mv(float *q, const float *a, const float *p, int scale)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	for (int r = 0; r < scale; r++, bench_repeated()) {
		float s = 0.0f;
#ifndef FIXED
		if (i < N)
			for (int j = 0; j <= i; j++)
				s += a[(size_t)i * N + j] * p[j];
#else
		__shared__ float ps[TILE];
		for (int t = 0; t < N; t += TILE) {
			ps[threadIdx.x] = p[t + threadIdx.x];
			__syncthreads();
			for (int j = 0; j < TILE && t + j <= i; j++)
				s += a[(size_t)i * N + t + j] * ps[j];
			__syncthreads();
		}
#endif
		if (i < N)
			q[i] = s;
	}
}

int main()
{
	float *a, *p, *q;
	CHECK(cudaMalloc(&a, (size_t)N * N * sizeof(float)));   /* obj#1 */
	CHECK(cudaMalloc(&p, N * sizeof(float)));               /* obj#2: non-uniform */
	CHECK(cudaMalloc(&q, N * sizeof(float)));               /* obj#3 */
	init<<<(unsigned)(((size_t)N * N + 255) / 256), 256>>>(a, (size_t)N * N, 0.001f, bench_scale);
	init<<<N / 256, 256>>>(p, N, 1.0f, bench_scale);
	lower_mv<<<N / TILE, TILE>>>(q, a, p, bench_scale);
	float out;
	CHECK(cudaMemcpy(&out, q + N - 1, sizeof(out), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(a));
	CHECK(cudaFree(p));
	CHECK(cudaFree(q));
	std::printf("q[N-1] = %g\n", out);
	return 0;
}
