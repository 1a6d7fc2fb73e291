// SPDX-License-Identifier: MIT
// early_late.cu's program, its kernels launched through cudaLaunchKernelEx
// and cudaLaunchCooperativeKernel (the driver's cuLaunchKernelEx and
// cuLaunchCooperativeKernel, whose parameters name the function in other
// places than cuLaunchKernel's): obj#1 is allocated long before its first
// use and freed long after its last.  gpu-check runs it with modules patched
// at load and at their first launch (GMPROF_PATCH_AT=launch).
#include "common.h"

static void launch_ex(void (*kernel)(float *, size_t, float), float *p, size_t n, float v)
{
	cudaLaunchConfig_t cfg = {};
	cfg.gridDim = dim3(blocks(n));
	cfg.blockDim = dim3(256);
	CHECK(cudaLaunchKernelEx(&cfg, kernel, p, n, v));
}

static void launch_cooperative(void (*kernel)(float *, size_t, float), float *p, size_t n, float v)
{
	void *args[] = { &p, &n, &v };
	CHECK(cudaLaunchCooperativeKernel((const void *)kernel, dim3(blocks(n)), dim3(256), args, 0, 0));
}

int main()
{
	const size_t n = 1 << 16; /* 256 blocks: co-resident on any GPU, as a cooperative launch needs */
	float *a, *b;
	CHECK(cudaMalloc(&a, n * sizeof(float)));      /* obj#1, allocated early */
	CHECK(cudaMalloc(&b, n * sizeof(float)));      /* obj#2 */
	launch_ex(fill, b, n, 1.0f);
	launch_cooperative(scale, b, n, 2.0f);
	launch_ex(fill, a, n, 3.0f);                   /* a's only use */
	launch_cooperative(scale, b, n, 2.0f);
	launch_ex(scale, b, n, 2.0f);
	CHECK(cudaFree(b));
	CHECK(cudaFree(a));                            /* freed late */
	return 0;
}
