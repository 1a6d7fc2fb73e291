// SPDX-License-Identifier: MIT
// Two host threads launch one kernel, scale, at once: thread a as the only
// kernel node of a CUDA graph (ROUNDS launches of it) into x (obj#1),
// thread b plainly (ROUNDS launches) into y (obj#2), each on a stream of
// its own.  A graph node's buffer is set as its kernel's data
// (GMPROF_GRAPH_NODE_DATA=function, the default), which is the process's:
// the collector gives a node its buffer per launch while another thread
// issues a launch of the kernel, and counts thread b's launches begun
// while thread a's graph launch held it (META graph_data_crossed; the
// report's "graphs" line).  graph_threads.launches: every launch reported
// exactly its own object, whichever data the Sanitizer gave thread b's
// launches (were it the node's, they would report nothing and the node y
// too).  No findings; with thread b's launches reporting nothing, y would
// be temporarily idle.  The main thread makes the first launch of each
// before the threads start, and frees each right after its last use.
#include <thread>
#include <vector>

#include "common.h"

#define ROUNDS 200

int main()
{
	const size_t n = 1 << 16, bytes = n * sizeof(float);
	std::vector<float> host(n);
	cudaStream_t sa, sb;
	CHECK(cudaStreamCreateWithFlags(&sa, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&sb, cudaStreamNonBlocking));
	float *x, *y;
	CHECK(cudaMalloc(&x, bytes)); /* obj#1 */
	cudaGraph_t g;
	CHECK(cudaStreamBeginCapture(sa, cudaStreamCaptureModeGlobal));
	scale<<<blocks(n), 256, 0, sa>>>(x, n, 1.0f);
	CHECK(cudaStreamEndCapture(sa, &g));
	cudaGraphExec_t exec;
	CHECK(cudaGraphInstantiate(&exec, g, 0));
	CHECK(cudaGraphLaunch(exec, sa));
	CHECK(cudaStreamSynchronize(sa));
	CHECK(cudaMalloc(&y, bytes)); /* obj#2 */
	scale<<<blocks(n), 256, 0, sb>>>(y, n, 1.0f);
	CHECK(cudaStreamSynchronize(sb));

	std::thread a([&] {
		for (int i = 0; i < ROUNDS; i++) {
			CHECK(cudaGraphLaunch(exec, sa));
			CHECK(cudaStreamSynchronize(sa));
		}
	});
	std::thread b([&] {
		for (int i = 0; i < ROUNDS; i++) {
			scale<<<blocks(n), 256, 0, sb>>>(y, n, 1.0f);
			CHECK(cudaStreamSynchronize(sb));
		}
	});
	a.join();
	b.join();

	CHECK(cudaMemcpy(host.data(), x, bytes, cudaMemcpyDeviceToHost));
	CHECK(cudaFree(x));
	CHECK(cudaMemcpy(host.data(), y, bytes, cudaMemcpyDeviceToHost));
	CHECK(cudaFree(y));
	CHECK(cudaGraphExecDestroy(exec));
	CHECK(cudaGraphDestroy(g));
	CHECK(cudaStreamDestroy(sa));
	CHECK(cudaStreamDestroy(sb));
	return 0;
}
