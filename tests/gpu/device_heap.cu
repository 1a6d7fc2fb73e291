// SPDX-License-Identifier: MIT
// malloc() and free() inside kernels (the device heap).  build_nodes
// malloc()s one 4 KiB node per thread (64) and keeps the pointers in a
// cudaMalloc'd array; scratch malloc()s and free()s a buffer in each of
// its 32 threads; release_half free()s the even nodes.  The 32 odd nodes
// are never freed: exactly 32 memory leaks, each a device_heap object.
// Nothing else: the heap's own backing store must not appear as an object.
#include "common.h"

#define NODES 64
#define NODE_BYTES 4096

__global__ void build_nodes(int **roots)
{
	int i = threadIdx.x;
	int *node = (int *)malloc(NODE_BYTES);
	if (node)
		for (int k = 0; k < NODE_BYTES / 4; k++)
			node[k] = i + k;
	roots[i] = node;
}

__global__ void scratch(float *out)
{
	float *tmp = (float *)malloc(256);
	float s = 0;
	if (tmp) {
		for (int k = 0; k < 64; k++)
			tmp[k] = threadIdx.x * k;
		for (int k = 0; k < 64; k++)
			s += tmp[k];
		free(tmp);
	}
	out[threadIdx.x] = s;
}

__global__ void release_half(int **roots, int *sums)
{
	int i = threadIdx.x;
	int *node = roots[i];
	sums[i] = node ? node[0] + node[NODE_BYTES / 4 - 1] : -1;
	if (node && i % 2 == 0)
		free(node);
}

int main()
{
	CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 16 << 20));
	int **roots;
	int *sums, host[NODES];
	float *out;
	CHECK(cudaMalloc(&roots, NODES * sizeof(int *)));
	CHECK(cudaMalloc(&sums, NODES * sizeof(int)));
	CHECK(cudaMalloc(&out, 32 * sizeof(float)));
	build_nodes<<<1, NODES>>>(roots);
	scratch<<<1, 32>>>(out);
	release_half<<<1, NODES>>>(roots, sums);
	CHECK(cudaMemcpy(host, sums, sizeof(host), cudaMemcpyDeviceToHost));
	float o[32];
	CHECK(cudaMemcpy(o, out, sizeof(o), cudaMemcpyDeviceToHost));
	for (int i = 0; i < NODES; i++)
		if (host[i] != i + i + NODE_BYTES / 4 - 1) {
			std::fprintf(stderr, "node %d: got %d\n", i, host[i]);
			return 1;
		}
	CHECK(cudaFree(roots));
	CHECK(cudaFree(sums));
	CHECK(cudaFree(out));
	return 0;
}
