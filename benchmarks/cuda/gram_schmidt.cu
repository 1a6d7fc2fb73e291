// SPDX-License-Identifier: MIT
/*
 * A Gram-Schmidt-like loop in the shape of PolyBench's gramschmidt: each
 * launch of the column kernel works on one column block of Q and never on
 * the others (structured access: one block's worth of memory would do,
 * reused launch after launch), and every thread reads the first norm of R
 * while writing its own entry once (non-uniform access frequency: the hot
 * words belong in shared memory).  Run in intra mode (gram_schmidt.mode).
 * Built with -DFIXED, one column block is allocated and reused, and the
 * hot norm is read once per block into shared memory.  Expected findings:
 * gram_schmidt.expect, which is what the detector finds in the program's
 * event model (models/gram_schmidt.jsonl).
 * Its run on an H100 (2026-11-23) gave them exactly: tests/data/gpu/gram_schmidt.gmprof.
 */
#include "bench.h"

#define BLOCKS 4
#define BLOCK_FLOATS (1u << 18)   /* 1 MiB per column block */
#define RN 4096                    /* entries of R */

/* Orthogonalize column block q (BLOCK_FLOATS floats) against the first norm. */
__global__ void column(float *q, float *r, unsigned k, int scale)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= BLOCK_FLOATS)
		return;
	for (int s = 0; s < scale; s++, bench_repeated()) {
#ifndef FIXED
		float n0 = r[0];                  /* every thread: the hot word */
#else
		__shared__ float n0s;
		if (threadIdx.x == 0)
			n0s = r[0];
		__syncthreads();
		float n0 = n0s;
		__syncthreads();
#endif
		q[i] = q[i] / (n0 + 1.0f) + (float)k;
		if (i >= 64 && i < RN)
			r[i] = q[i];              /* the rest of R: once each */
	}
}

__global__ void init(float *p, size_t n, float v, int scale)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	for (int s = 0; s < scale && i < n; s++, bench_repeated())
		p[i] = v;
}

int main()
{
	float *q, *r;
	const unsigned b = (BLOCK_FLOATS + 255) / 256;
#ifndef FIXED
	CHECK(cudaMalloc(&q, (size_t)BLOCKS * BLOCK_FLOATS * sizeof(float)));   /* obj#1 */
#else
	CHECK(cudaMalloc(&q, (size_t)BLOCK_FLOATS * sizeof(float)));
#endif
	CHECK(cudaMalloc(&r, RN * sizeof(float)));                               /* obj#2 */
	init<<<(RN + 255) / 256, 256>>>(r, RN, 1.0f, bench_scale);
	for (unsigned k = 0; k < BLOCKS; k++) {
#ifndef FIXED
		float *blk = q + (size_t)k * BLOCK_FLOATS;
#else
		float *blk = q;
#endif
		init<<<b, 256>>>(blk, BLOCK_FLOATS, (float)k, bench_scale);
		column<<<b, 256>>>(blk, r, k, bench_scale);
	}
	float out;
	CHECK(cudaMemcpy(&out, r + 64, sizeof(out), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(q));
	CHECK(cudaFree(r));
	std::printf("r[64] = %g\n", out);
	return 0;
}
