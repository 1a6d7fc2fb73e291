// SPDX-License-Identifier: MIT
// A solver's iterations on a stream made by cudaStreamCreate (a blocking
// stream), its setup and its residual check on the legacy default stream
// (cudaMemcpy, cudaMemset, a launch with no stream).  The legacy stream
// waits for the blocking stream's earlier work, and the blocking stream
// for the legacy stream's: the check runs after all four iterations, so
// the solution x (obj#1) is idle while it runs (temporary idleness).
// per_thread.cu builds this program with --default-stream per-thread: the
// check runs on the thread's default stream, which waits for the legacy
// stream only, so it may overlap the iterations and x is not idle.
// legacy_stream.jsonl and per_thread.jsonl are the event models.
#include "common.h"

int main()
{
	const size_t n = 1 << 24; /* 64 MiB of floats each */
	float *x, *r, *host;
	cudaStream_t s;
	CHECK(cudaMallocHost(&host, n * sizeof(float)));
	for (size_t i = 0; i < n; i++)
		host[i] = 1.0f;
	CHECK(cudaStreamCreate(&s));
	CHECK(cudaMalloc(&x, n * sizeof(float)));
	CHECK(cudaMalloc(&r, n * sizeof(float)));
	CHECK(cudaMemcpy(x, host, n * sizeof(float), cudaMemcpyHostToDevice));
	for (int i = 0; i < 4; i++)
		scale<<<blocks(n), 256, 0, s>>>(x, n, 0.5f);
	CHECK(cudaMemset(r, 0, n * sizeof(float)));
	add<<<blocks(n), 256>>>(r, r, r, n); /* the residual check */
	float res;
	CHECK(cudaMemcpy(&res, r, sizeof(res), cudaMemcpyDeviceToHost));
	scale<<<blocks(n), 256, 0, s>>>(x, n, 0.5f);
	CHECK(cudaMemcpyAsync(host, x, n * sizeof(float), cudaMemcpyDeviceToHost, s));
	CHECK(cudaStreamSynchronize(s));
	CHECK(cudaFree(r));
	CHECK(cudaFree(x));
	CHECK(cudaStreamDestroy(s));
	std::printf("residual %g, x[0] %g\n", res, host[0]);
	CHECK(cudaFreeHost(host));
	return 0;
}
