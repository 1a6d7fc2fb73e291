// SPDX-License-Identifier: MIT
/*
 * The per-access cost of gmprof's device patch: one kernel whose warps each
 * execute a known number of global load and store instructions, timed with
 * CUDA events (the kernel alone, not the program).  Run natively, under
 * gmprof with GMPROF_PATCH_EMPTY=1 (the Sanitizer's call into an empty
 * callback), in object mode (first-touch hit flags) and in intra mode
 * (warp-aggregated counters and bitmaps); make bench-gpu subtracts the
 * native time and divides by the warp instructions:
 *   ns per warp instruction = (kernel ms - native kernel ms) * 1e6 / instructions
 * Output, one line: "access_cost: WARP_INSTRUCTIONS KERNEL_MS".
 * Usage: access_cost [ELEMENTS [ITERATIONS]]
 */
#include "../cuda/bench.h"

__global__ void touch(float *a, size_t n, int iters)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	volatile float *p = a; /* every load and store stays a memory instruction */
	float v = 0.0f;
	for (int k = 0; k < iters; k++) {
		v += p[i];          /* one global load per warp and iteration */
		p[i] = v * 0.5f;    /* one global store */
	}
}

int main(int argc, char **argv)
{
	const size_t n = (size_t)(argc > 1 ? atol(argv[1]) : 1 << 22);
	const int iters = argc > 2 ? atoi(argv[2]) : 64;
	float *a;
	CHECK(cudaMalloc(&a, n * sizeof(float)));
	CHECK(cudaMemset(a, 0, n * sizeof(float)));
	const unsigned block = 256, grid = (unsigned)((n + block - 1) / block);
	touch<<<grid, block>>>(a, n, 1); /* warm-up: module load and patching */
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	cudaEvent_t t0, t1;
	CHECK(cudaEventCreate(&t0));
	CHECK(cudaEventCreate(&t1));
	CHECK(cudaEventRecord(t0));
	touch<<<grid, block>>>(a, n, iters);
	CHECK(cudaGetLastError());
	CHECK(cudaEventRecord(t1));
	CHECK(cudaEventSynchronize(t1));
	float ms = 0.0f;
	CHECK(cudaEventElapsedTime(&ms, t0, t1));
	/* Full warps only: n is a multiple of 32 by default. */
	unsigned long long warp_instr = (unsigned long long)((n + 31) / 32) * (unsigned long long)iters * 2;
	std::printf("access_cost: %llu %.6f\n", warp_instr, ms);
	CHECK(cudaFree(a));
	CHECK(cudaEventDestroy(t0));
	CHECK(cudaEventDestroy(t1));
	return 0;
}
