// SPDX-License-Identifier: MIT
// A program that polls instead of syncing: it waits for stream 1's work on
// a by querying an event until the query says it finished, and then starts
// on b on stream 2; later it polls stream 1 itself.  What the successful
// queries told the host orders b's first use after a's two launches, so b
// (obj#2) was allocated early; without them recorded, stream 2 would look
// free to start at once.  event_query.jsonl is the event model.
#include "common.h"

static void poll_event(cudaEvent_t e)
{
	cudaError_t r;
	while ((r = cudaEventQuery(e)) == cudaErrorNotReady)
		;
	CHECK(r);
}

static void poll_stream(cudaStream_t s)
{
	cudaError_t r;
	while ((r = cudaStreamQuery(s)) == cudaErrorNotReady)
		;
	CHECK(r);
}

int main()
{
	const size_t n = 1 << 24;
	float *a, *b;
	cudaStream_t s1, s2;
	cudaEvent_t done;
	CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
	CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
	CHECK(cudaMalloc(&a, n * sizeof(float)));
	CHECK(cudaMalloc(&b, n * sizeof(float)));
	fill<<<blocks(n), 256, 0, s1>>>(a, n, 1.0f);
	scale<<<blocks(n), 256, 0, s1>>>(a, n, 2.0f);
	CHECK(cudaEventRecord(done, s1));
	poll_event(done);
	fill<<<blocks(n), 256, 0, s2>>>(b, n, 3.0f);
	scale<<<blocks(n), 256, 0, s1>>>(a, n, 0.5f);
	scale<<<blocks(n), 256, 0, s1>>>(a, n, 0.5f);
	poll_stream(s1);
	add<<<blocks(n), 256, 0, s2>>>(b, b, a, n);
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaFree(a));
	CHECK(cudaFree(b));
	CHECK(cudaEventDestroy(done));
	CHECK(cudaStreamDestroy(s1));
	CHECK(cudaStreamDestroy(s2));
	return 0;
}
