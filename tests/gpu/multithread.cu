// SPDX-License-Identifier: MIT
// Eight host threads, each with its own stream and objects, all at once:
// every event appears once, on its thread and stream.  No findings.
#include <thread>
#include <vector>

#include "common.h"

static void worker(int id)
{
	const size_t n = 1 << 16;
	cudaStream_t s;
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	for (int k = 0; k < 4; k++) {
		float *p;
		CHECK(cudaMallocAsync(&p, n * sizeof(float), s));
		fill<<<blocks(n), 256, 0, s>>>(p, n, (float)id);
		CHECK(cudaFreeAsync(p, s));
	}
	CHECK(cudaStreamSynchronize(s));
	CHECK(cudaStreamDestroy(s));
}

int main()
{
	CHECK(cudaFree(0)); /* create the context before the threads race */
	std::vector<std::thread> t;
	for (int i = 0; i < 8; i++)
		t.emplace_back(worker, i);
	for (auto &th : t)
		th.join();
	return 0;
}
