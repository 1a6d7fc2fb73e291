// SPDX-License-Identifier: MIT
/*
 * A stream-ordered pool that keeps what was freed back to it: the default
 * pool's release threshold is raised to 4 GiB, 1 GiB of activations is
 * allocated with cudaMallocAsync, written, read and freed back, and after
 * the stream's sync the pool still holds it reserved (no object in it).
 * Then cudaMalloc asks for twice the device's memory and fails: gmprof
 * asks the driver what the pool holds right after the failure.  On an
 * H200 (2026-11-30) the driver gave the cache back inside the failed call
 * (docs/sanitizer-api.md), so the report says nothing cached then; it
 * says the most the pool reserved and used, and its release threshold
 * (pool_cache.report; cuMemPoolGetAttribute, from the
 * API exit callbacks: docs/sanitizer-api.md).  pool_cache.jsonl is the
 * event model the expected findings come from.
 */
#include <cstdint>

#include "common.h"

int main()
{
	const size_t n = 256u << 20; /* 1 GiB of floats */
	const size_t nw = 16u << 20; /* 64 MiB */
	cudaMemPool_t pool;
	CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
	uint64_t keep = 4ull << 30;
	CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
	cudaStream_t s;
	CHECK(cudaStreamCreate(&s));
	float *w, *act;
	CHECK(cudaMalloc(&w, nw * sizeof(float)));
	CHECK(cudaMallocAsync(&act, n * sizeof(float), s));
	fill<<<blocks(n), 256, 0, s>>>(act, n, 1.0f);
	add<<<blocks(nw), 256, 0, s>>>(w, act, act, nw);
	CHECK(cudaFreeAsync(act, s));
	CHECK(cudaStreamSynchronize(s));
	size_t free_bytes, total;
	CHECK(cudaMemGetInfo(&free_bytes, &total));
	void *huge = nullptr;
	cudaError_t e = cudaMalloc(&huge, 2 * total);
	if (e != cudaErrorMemoryAllocation) {
		std::fprintf(stderr, "pool_cache: cudaMalloc of %zu bytes returned %s, not out of memory\n",
			     2 * total, cudaGetErrorString(e));
		return 1;
	}
	(void)cudaGetLastError();
	scale<<<blocks(nw), 256, 0, s>>>(w, nw, 2.0f);
	CHECK(cudaStreamSynchronize(s));
	CHECK(cudaFree(w));
	CHECK(cudaStreamDestroy(s));
	return 0;
}
