// SPDX-License-Identifier: MIT
/*
 * A stress test of the collector in the shape of a framework without a
 * caching allocator: 5000 small buffers allocated up front, 1000 kernels
 * each writing five of them, everything freed at the end.  Every buffer is
 * allocated early and freed late.  Built with -DFIXED, each kernel's
 * buffers are allocated just before it and freed just after.  Expected
 * findings (counts per pattern): many_allocs.expect, which is what the
 * detector finds in the program's event model (models/many_allocs.jsonl).
 * Its run on an H100 (2026-11-23) gave them exactly (its profile, 6.4 MB,
 * is not kept in tests/data/gpu).
 */
#include "bench.h"

#define BUFFERS 5000
#define PER 5
#define FLOATS 1024

__global__ void touch5(float *a, float *b, float *c, float *d, float *e, float v, int scale)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	for (int r = 0; r < scale && i < FLOATS; r++, bench_repeated()) {
		a[i] = v;
		b[i] = v + 1;
		c[i] = v + 2;
		d[i] = v + 3;
		e[i] = v + 4;
	}
}

int main()
{
	static float *p[BUFFERS];
	const size_t bytes = FLOATS * sizeof(float);
#ifndef FIXED
	for (int i = 0; i < BUFFERS; i++)
		CHECK(cudaMalloc(&p[i], bytes));
	for (int k = 0; k < BUFFERS / PER; k++) {
		float **q = p + k * PER;
		touch5<<<FLOATS / 256, 256>>>(q[0], q[1], q[2], q[3], q[4], (float)k, bench_scale);
	}
	CHECK(cudaDeviceSynchronize());
	for (int i = 0; i < BUFFERS; i++)
		CHECK(cudaFree(p[i]));
#else
	for (int k = 0; k < BUFFERS / PER; k++) {
		float **q = p + k * PER;
		for (int j = 0; j < PER; j++)
			CHECK(cudaMalloc(&q[j], bytes));
		touch5<<<FLOATS / 256, 256>>>(q[0], q[1], q[2], q[3], q[4], (float)k, bench_scale);
		for (int j = 0; j < PER; j++)
			CHECK(cudaFree(q[j]));
	}
#endif
	std::printf("done\n");
	return 0;
}
