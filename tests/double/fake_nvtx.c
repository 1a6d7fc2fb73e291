// SPDX-License-Identifier: MIT
/* fake_app's own NVTX calls (fake_nvtx.h). */
#include "fake_nvtx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if __has_include(<nvtx3/nvToolsExtCudaRt.h>) && __has_include(<cuda.h>) && __has_include(<driver_types.h>)
#include <nvtx3/nvToolsExtCuda.h>
#include <nvtx3/nvToolsExtCudaRt.h>
#define HAVE_NVTX_CUDA 1
#else
#define HAVE_NVTX_CUDA 0
#endif

int fake_nvtx_early(void)
{
	const char *v = getenv("GMP_DOUBLE_NVTX_STREAM_NAMES");
	if (!v || strcmp(v, "early"))
		return 0;
#if HAVE_NVTX_CUDA
	nvtxNameCudaStreamA(NULL, "early-legacy");
	nvtxNameCuStreamA(CU_STREAM_PER_THREAD, "early-default");
	return 0;
#else
	fprintf(stderr, "fake_app: GMP_DOUBLE_NVTX_STREAM_NAMES=early needs the toolkit's nvtx3 headers\n");
	return -1;
#endif
}
