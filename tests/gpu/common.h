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

#endif
