/* SPDX-License-Identifier: MIT */
/* Helpers for the GPU test programs: fail loudly on any CUDA error. */
#ifndef GMPROF_GPU_TEST_COMMON_H
#define GMPROF_GPU_TEST_COMMON_H

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                              \
	do {                                                                     \
		cudaError_t e_ = (call);                                         \
		if (e_ != cudaSuccess) {                                         \
			std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
				     cudaGetErrorString(e_));                    \
			std::exit(1);                                            \
		}                                                                \
	} while (0)

__global__ void fill(float *p, size_t n, float v)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		p[i] = v;
}

__global__ void add(float *out, const float *a, const float *b, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = a[i] + b[i];
}

__global__ void scale(float *p, size_t n, float s)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		p[i] *= s;
}

static inline unsigned blocks(size_t n)
{
	return (unsigned)((n + 255) / 256);
}

/*
 * The host side of the programs whose kernel makes b twice a (of ones)
 * in a way the global-access patch does not cover (texture.cu, bulk.cu,
 * cdp.cu): a (obj#1) and b (obj#2) of n floats, a uploaded, launch(a, b),
 * b downloaded, then after(), both freed; 1 (said) unless b holds twos.
 */
template <typename Launch, typename After>
static int a_to_b(const char *name, size_t n, Launch launch, After after)
{
	float *host = (float *)std::malloc(n * sizeof(float)), *a, *b;
	if (!host)
		return 1;
	for (size_t i = 0; i < n; i++)
		host[i] = 1.0f;
	CHECK(cudaMalloc(&a, n * sizeof(float)));
	CHECK(cudaMalloc(&b, n * sizeof(float)));
	CHECK(cudaMemcpy(a, host, n * sizeof(float), cudaMemcpyHostToDevice));
	launch(a, b);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(host, b, n * sizeof(float), cudaMemcpyDeviceToHost));
	after();
	CHECK(cudaFree(a));
	CHECK(cudaFree(b));
	const float last = host[n - 1];
	std::free(host);
	if (last != 2.0f) {
		std::fprintf(stderr, "%s: read %f, want 2\n", name, last);
		return 1;
	}
	return 0;
}

template <typename Launch> static int a_to_b(const char *name, size_t n, Launch launch)
{
	return a_to_b(name, n, launch, [] {});
}

#endif
