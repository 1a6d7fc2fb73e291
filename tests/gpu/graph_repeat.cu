// SPDX-License-Identifier: MIT
// A CUDA graph that runs one kernel as two nodes, as a framework's
// captured graph runs one GEMM kernel per layer: fill writes c, then pass
// reads a, then pass again reads a and writes b.  With each kernel node's
// buffer per function (GMPROF_GRAPH_NODE_DATA=function, the default), the
// two nodes of pass share its buffer: where the first reports nothing and
// the second both (as the test double has it), the detector merges those
// two alone (graph_repeat.merged), and fill keeps its own write of c;
// where each reports its own, the findings are graph_repeat.expect's.
// Either way b may reuse c's memory (c's last use is fill), which a merge
// of the whole launch would lose.  graph_repeat.jsonl is the event model.
#include "common.h"

/* Copies in to out, or with no out only reads in (a load the compiler keeps). */
__global__ void pass(const float *in, float *out, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = in[i];
	if (out)
		out[i] = v;
	else if (v < 0.0f)
		__trap();
}

int main()
{
	const size_t n = 1 << 18, bytes = n * sizeof(float);
	float *a, *b, *c, *h;
	CHECK(cudaMalloc(&a, bytes)); /* obj#1 */
	CHECK(cudaMalloc(&b, bytes)); /* obj#2 */
	CHECK(cudaMalloc(&c, bytes)); /* obj#3 */
	CHECK(cudaMallocHost(&h, bytes));
	cudaStream_t s;
	CHECK(cudaStreamCreate(&s));
	CHECK(cudaMemsetAsync(a, 0, bytes, s));

	cudaGraph_t g;
	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	fill<<<blocks(n), 256, 0, s>>>(c, n, 2.0f);
	pass<<<blocks(n), 256, 0, s>>>(a, nullptr, n);
	pass<<<blocks(n), 256, 0, s>>>(a, b, n);
	CHECK(cudaStreamEndCapture(s, &g));
	cudaGraphExec_t exec;
	CHECK(cudaGraphInstantiate(&exec, g, 0));
	CHECK(cudaGraphLaunch(exec, s));
	CHECK(cudaStreamSynchronize(s));
	CHECK(cudaGraphExecDestroy(exec));
	CHECK(cudaGraphDestroy(g));

	pass<<<blocks(n), 256, 0, s>>>(b, nullptr, n);
	pass<<<blocks(n), 256, 0, s>>>(b, nullptr, n);
	CHECK(cudaMemcpy(h, b, bytes, cudaMemcpyDeviceToHost));
	CHECK(cudaFree(c));
	CHECK(cudaFree(a));
	CHECK(cudaFree(b));
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFreeHost(h));
	return 0;
}
