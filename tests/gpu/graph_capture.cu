// SPDX-License-Identifier: MIT
// A CUDA graph made by stream capture, as frameworks make them
// (cudaStreamCaptureModeGlobal, torch.cuda.graph's default): a buffer d
// allocated and freed in the graph (memory nodes), filled, and added into
// b.  Launched twice: the second launch's d is a new allocation that could
// have been the first's (redundant allocation), and b idles between the
// launches' kernels, findings that need both launches' nodes ordered on s.
// While the stream is captured nothing runs: any call the Sanitizer
// reports then must leave no event.  graph_capture.jsonl is the event model.
#include "common.h"

int main()
{
	const size_t n = 1 << 18, bytes = n * sizeof(float);
	float *b, *d, *h;
	CHECK(cudaMalloc(&b, bytes)); /* obj#1 */
	CHECK(cudaMallocHost(&h, bytes));
	cudaStream_t s;
	CHECK(cudaStreamCreate(&s));

	cudaGraph_t g;
	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	CHECK(cudaMallocAsync((void **)&d, bytes, s)); /* obj#2, and obj#3 at the second launch */
	fill<<<blocks(n), 256, 0, s>>>(d, n, 1.0f);
	add<<<blocks(n), 256, 0, s>>>(b, d, d, n);
	CHECK(cudaFreeAsync(d, s));
	CHECK(cudaStreamEndCapture(s, &g));
	cudaGraphExec_t exec;
	CHECK(cudaGraphInstantiate(&exec, g, 0));

	CHECK(cudaGraphLaunch(exec, s));
	CHECK(cudaStreamSynchronize(s));
	CHECK(cudaGraphLaunch(exec, s));
	CHECK(cudaStreamSynchronize(s));
	CHECK(cudaMemcpy(h, b, bytes, cudaMemcpyDeviceToHost));

	CHECK(cudaGraphExecDestroy(exec));
	CHECK(cudaGraphDestroy(g));
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFreeHost(h));
	CHECK(cudaFree(b));
	return 0;
}
