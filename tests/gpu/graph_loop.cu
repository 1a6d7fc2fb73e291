// SPDX-License-Identifier: MIT
// A captured graph replayed in a loop without waiting between launches, as
// a training loop replays torch.cuda.graph: x is filled and added into y
// by the graph's two kernels, four launches back to back, then one sync
// and a copy of y; a third buffer, spare, is never used.  The kernels of a
// launch may run after the next launch's callbacks set its buffers: on an
// H100 two kernel nodes of one launch both reported into the last one's
// buffer (graph_capture.cu), so a launch's nodes may also report into a
// later launch's.  graph_loop.expect is what the graph does, which gmprof
// reports only where the nodes are kept apart: merged (detector/graphs.c),
// x looks allocated one call early (the first kernel then waits for y's
// allocation); counted as not monitored, the spare buffer looks freed late
// instead of unused.  make gpu-check's log of it says which happened.
// graph_loop.jsonl is the event model.
#include "common.h"

int main()
{
	const size_t n = 1 << 18, bytes = n * sizeof(float);
	float *x, *y, *spare, *h;
	CHECK(cudaMalloc(&x, bytes));     /* obj#1 */
	CHECK(cudaMalloc(&y, bytes));     /* obj#2 */
	CHECK(cudaMalloc(&spare, bytes)); /* obj#3: never used */
	CHECK(cudaMallocHost(&h, bytes));
	cudaStream_t s;
	CHECK(cudaStreamCreate(&s));

	cudaGraph_t g;
	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	fill<<<blocks(n), 256, 0, s>>>(x, n, 1.0f);
	add<<<blocks(n), 256, 0, s>>>(y, x, x, n);
	CHECK(cudaStreamEndCapture(s, &g));
	cudaGraphExec_t exec;
	CHECK(cudaGraphInstantiate(&exec, g, 0));
	for (int k = 0; k < 4; k++)
		CHECK(cudaGraphLaunch(exec, s));
	CHECK(cudaStreamSynchronize(s));
	CHECK(cudaMemcpy(h, y, bytes, cudaMemcpyDeviceToHost));

	CHECK(cudaGraphExecDestroy(exec));
	CHECK(cudaGraphDestroy(g));
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFreeHost(h));
	CHECK(cudaFree(spare));
	CHECK(cudaFree(y));
	CHECK(cudaFree(x));
	return 0;
}
