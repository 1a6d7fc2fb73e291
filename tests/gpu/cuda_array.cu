// SPDX-License-Identifier: MIT
/*
 * CUDA arrays: a 2048 x 2048 float4 frame (64 MiB) made with
 * cudaMallocArray, uploaded with cudaMemcpy2DToArray and read through a
 * texture object into an output buffer, then freed with cudaFreeArray;
 * and a 256 x 256 x 64 table of bytes (4 MiB) made with cudaMalloc3DArray,
 * uploaded with cudaMemcpy3D and never freed; then a 64 TiB one that runs
 * out of memory (cuda_array.failures: its size read from the descriptor
 * the call's parameters point to).  gmprof is to record each
 * array (the Sanitizer's ARRAY_CREATED and ARRAY_DESTROYED, the driver's
 * cuArray3DGetDescriptor for the format: docs/sanitizer-api.md), count it
 * at the peak (80 MiB: the frame and the output) and report the table's
 * leak, and nothing else of either: a texture's reads are not seen.  If the
 * Sanitizer also reported an array's memory as a device allocation, an
 * unexpected object (and an unused allocation) would show here.
 * cuda_array.jsonl is the event model the expected findings come from.
 */
#include <vector>

#include "common.h"

__global__ void sample(cudaTextureObject_t tex, float *out, int w, int h)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x < w && y < h) {
		float4 v = tex2D<float4>(tex, x + 0.5f, y + 0.5f);
		out[(size_t)y * w + x] = v.x + v.y + v.z + v.w;
	}
}

int main()
{
	const int w = 2048, h = 2048;
	std::vector<float4> host((size_t)w * h, make_float4(1, 2, 3, 4));
	std::vector<float> back((size_t)w * h);
	cudaChannelFormatDesc f4 = cudaCreateChannelDesc<float4>();
	cudaArray_t frame;
	CHECK(cudaMallocArray(&frame, &f4, w, h));
	CHECK(cudaMemcpy2DToArray(frame, 0, 0, host.data(), w * sizeof(float4), w * sizeof(float4), h,
				  cudaMemcpyHostToDevice));
	cudaResourceDesc res = {};
	res.resType = cudaResourceTypeArray;
	res.res.array.array = frame;
	cudaTextureDesc td = {};
	td.readMode = cudaReadModeElementType;
	cudaTextureObject_t tex;
	CHECK(cudaCreateTextureObject(&tex, &res, &td, nullptr));
	float *out;
	CHECK(cudaMalloc(&out, (size_t)w * h * sizeof(float)));
	sample<<<dim3(w / 16, h / 16), dim3(16, 16)>>>(tex, out, w, h);
	CHECK(cudaMemcpy(back.data(), out, (size_t)w * h * sizeof(float), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(out));
	CHECK(cudaDestroyTextureObject(tex));
	CHECK(cudaFreeArray(frame));
	if (back[12345] != 10.0f) {
		std::fprintf(stderr, "cuda_array: sampled %f, not 10\n", back[12345]);
		return 1;
	}
	/* The table: made, filled, never freed. */
	cudaChannelFormatDesc u8 = cudaCreateChannelDesc<unsigned char>();
	cudaArray_t lut;
	const cudaExtent ext = make_cudaExtent(256, 256, 64);
	CHECK(cudaMalloc3DArray(&lut, &u8, ext));
	std::vector<unsigned char> table(256 * 256 * 64, 7);
	cudaMemcpy3DParms p = {};
	p.srcPtr = make_cudaPitchedPtr(table.data(), 256, 256, 256);
	p.dstArray = lut;
	p.extent = ext;
	p.kind = cudaMemcpyHostToDevice;
	CHECK(cudaMemcpy3D(&p));
	/* An array no device holds, 16384^3 float4 (64 TiB): the call runs out of memory. */
	cudaArray_t huge;
	cudaError_t e = cudaMalloc3DArray(&huge, &f4, make_cudaExtent(16384, 16384, 16384));
	if (e != cudaErrorMemoryAllocation)
		std::fprintf(stderr, "cuda_array: cudaMalloc3DArray of 64 TiB returned %s, not out of memory\n",
			     cudaGetErrorString(e)); /* cuda_array.failures then differs: said, not fatal */
	(void)cudaGetLastError();
	CHECK(cudaDeviceSynchronize());
	return 0;
}
