// SPDX-License-Identifier: MIT
// malloc() and free() inside kernels (the device heap).  build_nodes
// malloc()s one 4 KiB node per thread (64) and keeps the pointers in a
// cudaMalloc'd array; scratch malloc()s and free()s a buffer in each of
// its 32 threads; release_half free()s the even nodes.  The 32 odd nodes
// are never freed: exactly 32 memory leaks, each a device_heap object.
// Nothing else: the heap's own backing store must not appear as an object.
// (An event script of the same calls gives exactly these findings.)
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
	/* Each buffer allocated just before its first use and freed after its last:
	   the heap objects are the program's only inefficiency. */
	int **roots;
	int *sums, host[NODES];
	float *out, o[32];
	CHECK(cudaMalloc(&roots, NODES * sizeof(int *)));
	build_nodes<<<1, NODES>>>(roots);
	CHECK(cudaMalloc(&sums, NODES * sizeof(int)));
	release_half<<<1, NODES>>>(roots, sums);
	CHECK(cudaFree(roots));
	CHECK(cudaMemcpy(host, sums, sizeof(host), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(sums));
	CHECK(cudaMalloc(&out, 32 * sizeof(float)));
	scratch<<<1, 32>>>(out);
	CHECK(cudaMemcpy(o, out, sizeof(o), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(out));
	for (int i = 0; i < NODES; i++)
		if (host[i] != i + i + NODE_BYTES / 4 - 1) {
			std::fprintf(stderr, "node %d: got %d\n", i, host[i]);
			return 1;
		}
	return 0;
}
