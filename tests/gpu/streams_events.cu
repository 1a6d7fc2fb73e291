// SPDX-License-Identifier: MIT
// Two streams: work on one does not make the other's allocation look early;
// an event orders the consumer after the producer.  Findings: b and c are
// freed late (after a's free), and a sits idle from its fill (level 2) to
// the add (level 8) while stream 2 runs its four fills: in the timestamps
// of the dependency graph those come after a's last use.  (The first H100
// run, 2026-11-23, showed the idleness this file had not expected.)
#include "common.h"

int main()
{
	const size_t n = 1 << 18;
	cudaStream_t s1, s2;
	cudaEvent_t ready;
	CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
	CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
	float *a, *b, *c;
	CHECK(cudaMallocAsync(&a, n * sizeof(float), s1));
	CHECK(cudaMallocAsync(&b, n * sizeof(float), s2));
	for (int i = 0; i < 4; i++)
		fill<<<blocks(n), 256, 0, s2>>>(b, n, (float)i);   /* busy stream 2 */
	fill<<<blocks(n), 256, 0, s1>>>(a, n, 1.0f);            /* stream 1's first use */
	CHECK(cudaEventRecord(ready, s1));
	CHECK(cudaStreamWaitEvent(s2, ready, 0));
	CHECK(cudaMallocAsync(&c, n * sizeof(float), s2));
	add<<<blocks(n), 256, 0, s2>>>(c, a, b, n);
	CHECK(cudaFreeAsync(a, s2));
	CHECK(cudaFreeAsync(b, s2));
	CHECK(cudaFreeAsync(c, s2));
	CHECK(cudaStreamSynchronize(s2));
	CHECK(cudaEventDestroy(ready));
	CHECK(cudaStreamDestroy(s1));
	CHECK(cudaStreamDestroy(s2));
	return 0;
}
