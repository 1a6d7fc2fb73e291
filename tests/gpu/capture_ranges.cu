// SPDX-License-Identifier: MIT
/*
 * Two capture ranges (gmprof run --capture profiler-api, from
 * capture_ranges.capture), each followed by cudaDeviceSynchronize.  Under
 * GMPROF_PATCH_AT=range the module is patched at the first range's first
 * launch, unpatched at the sync after it (scale then runs unpatched, at
 * native speed), and patched again by the second range's launch, whose
 * accesses (add reads y, writes x) must be exact: had it run unpatched,
 * x's free would read as late by two APIs.  Under every other
 * GMPROF_PATCH_AT the findings are the same, capture_ranges.expect, which
 * is what the event model capture_ranges.jsonl gives; gpu-check also looks
 * for the profile's count of modules unpatched (two).
 */
#include <cuda_profiler_api.h>

#include "common.h"

int main()
{
	const size_t n = 4u << 20; /* 16 MiB of floats */
	const size_t bytes = n * sizeof(float);
	float *w, *x, *y;
	CHECK(cudaMalloc(&w, bytes));
	CHECK(cudaMalloc(&x, bytes));
	CHECK(cudaMalloc(&y, bytes));
	fill<<<blocks(n), 256>>>(w, n, 1.0f);   /* not monitored */
	CHECK(cudaProfilerStart());
	fill<<<blocks(n), 256>>>(x, n, 2.0f);
	add<<<blocks(n), 256>>>(y, x, w, n);
	CHECK(cudaProfilerStop());
	CHECK(cudaDeviceSynchronize());          /* the range is over: unpatched here */
	scale<<<blocks(n), 256>>>(w, n, 0.5f);  /* not monitored */
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaProfilerStart());
	add<<<blocks(n), 256>>>(x, y, y, n);     /* patched again */
	CHECK(cudaProfilerStop());
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaFree(x));
	CHECK(cudaFree(y));
	CHECK(cudaFree(w));
	return 0;
}
