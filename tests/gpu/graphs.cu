// SPDX-License-Identifier: MIT
// A CUDA graph built node by node (cudaGraphAdd*Node): a set of a, a
// kernel reading a into b, and a copy of b to the host, launched three
// times into a stream.  The driver runs a graph's nodes on streams of its
// own; gmprof records them on the stream the graph was launched into, in
// the order their callbacks come.  c is never used.  graphs.jsonl is the
// event model.
#include "common.h"

int main()
{
	const size_t n = 1 << 18, bytes = n * sizeof(float);
	float *a, *b, *c, *h;
	CHECK(cudaMalloc(&a, bytes)); /* obj#1 */
	CHECK(cudaMalloc(&b, bytes)); /* obj#2 */
	CHECK(cudaMalloc(&c, bytes)); /* obj#3: never used */
	CHECK(cudaMallocHost(&h, bytes));
	cudaStream_t s;
	CHECK(cudaStreamCreate(&s));

	cudaGraph_t g;
	CHECK(cudaGraphCreate(&g, 0));
	cudaMemsetParams mp = {};
	mp.dst = a;
	mp.value = 0;
	mp.elementSize = sizeof(float);
	mp.width = n;
	mp.height = 1;
	cudaGraphNode_t set, kernel, copy;
	CHECK(cudaGraphAddMemsetNode(&set, g, nullptr, 0, &mp));
	size_t count = n;
	void *args[] = { &b, &a, &a, &count };
	cudaKernelNodeParams kp = {};
	kp.func = (void *)add;
	kp.gridDim = dim3(blocks(n));
	kp.blockDim = dim3(256);
	kp.kernelParams = args;
	CHECK(cudaGraphAddKernelNode(&kernel, g, &set, 1, &kp));
	CHECK(cudaGraphAddMemcpyNode1D(&copy, g, &kernel, 1, h, b, bytes, cudaMemcpyDeviceToHost));
	cudaGraphExec_t exec;
	CHECK(cudaGraphInstantiate(&exec, g, 0));

	CHECK(cudaGraphLaunch(exec, s));
	CHECK(cudaGraphLaunch(exec, s));
	CHECK(cudaStreamSynchronize(s));
	CHECK(cudaGraphLaunch(exec, s));
	CHECK(cudaStreamSynchronize(s));

	CHECK(cudaGraphExecDestroy(exec));
	CHECK(cudaGraphDestroy(g));
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFreeHost(h));
	CHECK(cudaFree(a));
	CHECK(cudaFree(b));
	CHECK(cudaFree(c));
	return 0;
}
