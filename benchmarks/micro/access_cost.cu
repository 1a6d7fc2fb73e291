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
 * Usage: access_cost [ELEMENTS [ITERATIONS [ARRAYS]]]
 * With ARRAYS > 1 the elements are split into that many allocations and
 * consecutive warps touch different ones (warp w the array w % ARRAYS),
 * so one load or store instruction finds another object warp after warp:
 * the worst case for per-instruction records (GMPROF_PATCH_HINTS=1),
 * whose entry is then wrong for almost every warp.
 */
#include <vector>

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

/* The same accesses, warp w's in array w % k of `per` elements each (n = k * per, whole warps). */
__global__ void touch_gather(float *const *arrays, unsigned k, size_t per, int iters)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x, w = i / 32;
	size_t e = w / k * 32 + i % 32;
	if (e >= per)
		return;
	volatile float *p = arrays[w % k]; /* one more load per warp, outside the loop */
	float v = 0.0f;
	for (int j = 0; j < iters; j++) {
		v += p[e];
		p[e] = v * 0.5f;
	}
}

static void run(float *a, float *const *arrays, unsigned k, size_t n, int iters)
{
	const unsigned block = 256, grid = (unsigned)((n + block - 1) / block);
	if (k > 1)
		touch_gather<<<grid, block>>>(arrays, k, n / k, iters);
	else
		touch<<<grid, block>>>(a, n, iters);
	CHECK(cudaGetLastError());
}

int main(int argc, char **argv)
{
	const size_t n = (size_t)(argc > 1 ? atol(argv[1]) : 1 << 22);
	const int iters = argc > 2 ? atoi(argv[2]) : 64;
	const unsigned k = argc > 3 ? (unsigned)atoi(argv[3]) : 1;
	if (k < 1 || k > 4096 || n % (32ull * k)) {
		std::fprintf(stderr, "access_cost: ARRAYS must be 1 to 4096 and divide ELEMENTS into whole warps\n");
		return 2;
	}
	float *a = NULL, **arrays = NULL;
	std::vector<float *> host(k);
	if (k > 1) {
		for (unsigned j = 0; j < k; j++) {
			CHECK(cudaMalloc(&host[j], n / k * sizeof(float)));
			CHECK(cudaMemset(host[j], 0, n / k * sizeof(float)));
		}
		CHECK(cudaMalloc(&arrays, k * sizeof(float *)));
		CHECK(cudaMemcpy(arrays, host.data(), k * sizeof(float *), cudaMemcpyHostToDevice));
	} else {
		CHECK(cudaMalloc(&a, n * sizeof(float)));
		CHECK(cudaMemset(a, 0, n * sizeof(float)));
	}
	run(a, arrays, k, n, 1); /* warm-up: module load and patching */
	CHECK(cudaDeviceSynchronize());
	cudaEvent_t t0, t1;
	CHECK(cudaEventCreate(&t0));
	CHECK(cudaEventCreate(&t1));
	CHECK(cudaEventRecord(t0));
	run(a, arrays, k, n, iters);
	CHECK(cudaEventRecord(t1));
	CHECK(cudaEventSynchronize(t1));
	float ms = 0.0f;
	CHECK(cudaEventElapsedTime(&ms, t0, t1));
	/* Full warps only: n is a multiple of 32 by default. */
	unsigned long long warp_instr = (unsigned long long)((n + 31) / 32) * (unsigned long long)iters * 2;
	std::printf("access_cost: %llu %.6f\n", warp_instr, ms);
	if (k > 1) {
		for (unsigned j = 0; j < k; j++)
			CHECK(cudaFree(host[j]));
		CHECK(cudaFree(arrays));
	} else {
		CHECK(cudaFree(a));
	}
	CHECK(cudaEventDestroy(t0));
	CHECK(cudaEventDestroy(t1));
	return 0;
}
