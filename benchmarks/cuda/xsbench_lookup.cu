// SPDX-License-Identifier: MIT
/*
 * A cross-section lookup in the shape of XSBench: the energy grid is
 * allocated for the largest problem (256 MiB) but this run fills and reads
 * only its first 16 MiB (overallocation, seen in intra-object mode), and
 * the results buffer is never freed (memory leak).  Built with -DFIXED, the
 * grid is sized to the problem and the results are freed.  Run in intra
 * mode (xsbench_lookup.mode).  Expected findings: xsbench_lookup.expect,
 * which is what the detector finds in the program's event model
 * (models/xsbench_lookup.jsonl).
 * Its run on an H100 (2026-11-23) gave them exactly: tests/data/gpu/xsbench_lookup.gmprof.
 */
#include <vector>
#include "bench.h"

#define MAX_POINTS (64u << 20)   /* floats: 256 MiB, the largest problem */
#define POINTS (4u << 20)        /* floats: 16 MiB, this run's */

/* Each thread reads its own grid point once: uniform, no hot spots. */
__global__ void lookup(float *out, const float *grid, size_t n, int scale)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	for (int r = 0; r < scale && i < n; r++, bench_repeated())
		out[i] = grid[i] * 0.5f + 1.0f;
}

int main()
{
	std::vector<float> host(POINTS, 2.0f);
	float *grid, *out;
#ifndef FIXED
	CHECK(cudaMalloc(&grid, (size_t)MAX_POINTS * sizeof(float)));   /* obj#1: overallocated */
#else
	CHECK(cudaMalloc(&grid, (size_t)POINTS * sizeof(float)));
#endif
	CHECK(cudaMalloc(&out, (size_t)POINTS * sizeof(float)));        /* obj#2: leaked */
	CHECK(cudaMemcpy(grid, host.data(), (size_t)POINTS * sizeof(float), cudaMemcpyHostToDevice));
	lookup<<<(POINTS + 255) / 256, 256>>>(out, grid, POINTS, bench_scale);
	CHECK(cudaMemcpy(host.data(), out, (size_t)POINTS * sizeof(float), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(grid));
#ifdef FIXED
	CHECK(cudaFree(out));
#endif
	std::printf("out[0] = %g\n", host[0]);
	return 0;
}
