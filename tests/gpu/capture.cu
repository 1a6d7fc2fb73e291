// SPDX-License-Identifier: MIT
/*
 * A capture range (gmprof run --capture profiler-api, from capture.capture):
 * only the launches between cudaProfilerStart and cudaProfilerStop are
 * monitored.  The three outside it (fill w; scale cold; scale w) are
 * recorded with their accesses unknown and count as a use of every object
 * live when they were issued: cold, which only an unmonitored launch
 * uses, is not unused, and its free is late only by the API after that
 * launch.  Inside the range, a's memset is dead (the copy overwrites it).
 * The collector gives the launches outside the range no callback data, so
 * their patches are to return at once (what this run shows on a GPU: add's
 * exact accesses among the findings, and the program finishing without an
 * error).  The findings are capture.expect, which is what the
 * event model capture.jsonl gives; capture.report lists what
 * `gmprof report` must say.
 */
#include <cuda_profiler_api.h>

#include "common.h"

int main()
{
	const size_t n = 4u << 20; /* 16 MiB of floats */
	const size_t bytes = n * sizeof(float);
	float *host = (float *)std::calloc(n, sizeof(float));
	if (!host)
		return 1;
	float *w, *cold, *a;
	CHECK(cudaMalloc(&w, bytes));
	CHECK(cudaMalloc(&cold, bytes));
	fill<<<blocks(n), 256>>>(w, n, 1.0f);                 /* not monitored */
	CHECK(cudaProfilerStart());
	CHECK(cudaMalloc(&a, bytes));
	CHECK(cudaMemset(a, 0, bytes));                        /* dead */
	CHECK(cudaMemcpy(a, host, bytes, cudaMemcpyHostToDevice));
	add<<<blocks(n), 256>>>(a, a, w, n);
	CHECK(cudaProfilerStop());
	scale<<<blocks(n), 256>>>(cold, n, 0.5f);              /* not monitored: cold's only use */
	scale<<<blocks(n), 256>>>(w, n, 0.5f);                 /* not monitored */
	CHECK(cudaFree(a));
	CHECK(cudaFree(cold));
	CHECK(cudaFree(w));
	CHECK(cudaDeviceSynchronize());
	std::free(host);
	return 0;
}
