// SPDX-License-Identifier: MIT
// Tensor maps (the tensor memory accelerator, sm_90 on; built with the
// flags of tma.nvcc): the host encodes a map over a with
// cuTensorMapEncodeTiled, found as cuBLAS and CUTLASS find it
// (cudaGetDriverEntryPoint), and passes it by value to the kernel; each
// block copies 4 KiB of a into shared memory with cp.async.bulk.tensor,
// for which the Sanitizer calls no patch, and writes b twice it with plain
// stores.  The collector reads the launch's parameters for the maps it saw
// encoded, so b is not taken for an object that could reuse a's memory
// (tests/cli/tensormaps.sh, through the test double).  Its event model is
// tma.jsonl.
#include <cstdint>
#include <cuda.h>

#include "common.h"
#include "mbarrier.h"

#define CHUNK 1024 /* floats per block: 4 KiB, four boxes of 256 */
#define BOX 256

__global__ void tma_double(const __grid_constant__ CUtensorMap map, float *b)
{
	__shared__ alignas(128) float buf[CHUNK];
	__shared__ alignas(8) uint64_t bar;
	const uint32_t sbuf = (uint32_t)__cvta_generic_to_shared(buf);
	const uint32_t sbar = (uint32_t)__cvta_generic_to_shared(&bar);
	const uint64_t desc = reinterpret_cast<uint64_t>(&map);
	const int x0 = (int)(blockIdx.x * CHUNK);
	if (threadIdx.x == 0)
		mbar_init(sbar);
	__syncthreads();
	if (threadIdx.x == 0) {
		mbar_expect(sbar, CHUNK * 4);
		for (int k = 0; k < CHUNK / BOX; k++)
			asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes"
				     " [%0], [%1, {%2}], [%3];"
				     ::"r"(sbuf + (uint32_t)(k * BOX * 4)), "l"(desc), "r"(x0 + k * BOX), "r"(sbar)
				     : "memory");
	}
	mbar_wait(sbar);
	for (int i = threadIdx.x; i < CHUNK; i += blockDim.x)
		b[x0 + i] = 2.0f * buf[i];
}

typedef CUresult (*encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
			      const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
			      CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

int main()
{
	const size_t n = 1 << 18;
	void *fn = nullptr;
	cudaDriverEntryPointQueryResult found;
	CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found));
	if (!fn || found != cudaDriverEntryPointSuccess) {
		std::fprintf(stderr, "tma: cuTensorMapEncodeTiled not found\n");
		return 1;
	}
	return a_to_b("tma", n, [&](const float *a, float *b) {
		CUtensorMap map;
		/* A rank-1 map has no global stride to give, but the driver wants the array (an
		   H200, 2026-11-30: CUDA_ERROR_INVALID_VALUE for a null one). */
		const cuuint64_t dim[1] = { n }, gstride[1] = { n * sizeof(float) };
		const cuuint32_t box[1] = { BOX }, stride[1] = { 1 };
		CUresult r = ((encode_fn)fn)(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 1, (void *)a, dim, gstride, box,
					     stride, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
					     CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
		if (r != CUDA_SUCCESS) {
			std::fprintf(stderr, "tma: cuTensorMapEncodeTiled failed (%d)\n", (int)r);
			std::exit(1);
		}
		tma_double<<<(unsigned)(n / CHUNK), 128>>>(map, b);
	});
}
