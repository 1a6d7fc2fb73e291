// SPDX-License-Identifier: MIT
/*
 * collector/alloc_api.c: the names of the CUDA calls that allocate device
 * memory, and where each call's parameter block holds the size, against
 * the toolkit's generated parameter structs (the layouts the API callbacks
 * hand over), and the pool attributes it asks the driver for.  The name checks run everywhere; without the toolkit's
 * headers the layout check says so and skips.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "alloc_api.h"
#include "gmprof/trace.h"
#include "support.h"

static void names(void **state)
{
	(void)state;
	static const struct {
		const char *fn, *base;
		unsigned kind;
	} cases[] = {
		{ "cudaMalloc", "cudaMalloc", GMP_MEM_DEVICE },
		{ "cudaMalloc_v3020", "cudaMalloc", GMP_MEM_DEVICE },
		{ "cudaMallocAsync_ptsz_v11020", "cudaMallocAsync", GMP_MEM_ASYNC },
		{ "cudaMallocAsync_v11020", "cudaMallocAsync", GMP_MEM_ASYNC },
		{ "cudaMallocManaged_v6000", "cudaMallocManaged", GMP_MEM_MANAGED },
		{ "cuMemAlloc_v2", "cuMemAlloc", GMP_MEM_DEVICE },
		{ "cuMemAllocAsync_ptsz", "cuMemAllocAsync", GMP_MEM_ASYNC },
		{ "cuMemAllocPitch_v2", "cuMemAllocPitch", GMP_MEM_DEVICE },
		{ "cuMemCreate", "cuMemCreate", GMP_MEM_DEVICE },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct gmp_alloc_api *a = gmp_alloc_api__find(cases[i].fn);
		assert_non_null(a);
		assert_string_equal(a->name, cases[i].base);
		assert_int_equal(a->kind, cases[i].kind);
	}
	/* Host memory, other calls, and near misses are no device allocation. */
	static const char *const no[] = { "cudaMallocHost", "cuMemAllocHost_v2", "cudaFree",
					  "cudaMalloc_", "cudaMallocX", "cudaMalloc_vx", "cuMem", "",
					  "_v2" };
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_null(gmp_alloc_api__find(no[i]));
	assert_null(gmp_alloc_api__find(NULL));
}

/* The texture object calls (collector/textures.c), with any suffixes; nothing else. */
static void texture_calls(void **state)
{
	(void)state;
	assert_int_equal(gmp_tex_api__kind("cudaCreateTextureObject"), 1);
	assert_int_equal(gmp_tex_api__kind("cudaCreateTextureObject_v5000"), 1);
	assert_int_equal(gmp_tex_api__kind("cudaCreateTextureObject_v2"), 1);
	assert_int_equal(gmp_tex_api__kind("cuTexObjectCreate"), 1);
	assert_int_equal(gmp_tex_api__kind("cudaDestroyTextureObject_v5000"), -1);
	assert_int_equal(gmp_tex_api__kind("cuTexObjectDestroy"), -1);
	static const char *const no[] = { "cudaCreateSurfaceObject", "cuTexObjectGetResourceDesc",
					  "cudaCreateTextureObjectX", "cudaCreateTextureObjec", "cuTexObject",
					  "cudaMalloc", "", "c" };
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_int_equal(gmp_tex_api__kind(no[i]), 0);
	assert_int_equal(gmp_tex_api__kind(NULL), 0);
}

/* The calls that share memory between processes (collector/ipc.c), with any suffixes; nothing else. */
static void ipc_calls(void **state)
{
	(void)state;
	assert_int_equal(gmp_ipc_api__kind("cudaIpcOpenMemHandle_v4010"), GMP_IPC_OPEN);
	assert_int_equal(gmp_ipc_api__kind("cuIpcOpenMemHandle_v2"), GMP_IPC_OPEN);
	assert_int_equal(gmp_ipc_api__kind("cudaMemPoolImportPointer_v11020"), GMP_IPC_OPEN);
	assert_int_equal(gmp_ipc_api__kind("cuMemPoolImportPointer"), GMP_IPC_OPEN);
	assert_int_equal(gmp_ipc_api__kind("cuMemImportFromShareableHandle"), GMP_IPC_IMPORT_HANDLE);
	assert_int_equal(gmp_ipc_api__kind("cuMemMap"), GMP_IPC_MAP);
	assert_int_equal(gmp_ipc_api__kind("cuMemUnmap"), GMP_IPC_UNMAP);
	assert_int_equal(gmp_ipc_api__kind("cudaIpcGetMemHandle_v4010"), GMP_IPC_EXPORT_POINTER);
	assert_int_equal(gmp_ipc_api__kind("cuIpcGetMemHandle"), GMP_IPC_EXPORT_POINTER);
	assert_int_equal(gmp_ipc_api__kind("cudaMemPoolExportPointer_v11020"), GMP_IPC_EXPORT_POINTER);
	assert_int_equal(gmp_ipc_api__kind("cuMemPoolExportPointer"), GMP_IPC_EXPORT_POINTER);
	assert_int_equal(gmp_ipc_api__kind("cuMemExportToShareableHandle"), GMP_IPC_EXPORT_HANDLE);
	assert_int_equal(gmp_ipc_api__kind("cuMemRelease"), GMP_IPC_RELEASE);
	assert_int_equal(gmp_ipc_api__kind("cudaIpcCloseMemHandle_v4010"), GMP_IPC_CLOSE);
	assert_int_equal(gmp_ipc_api__kind("cuIpcCloseMemHandle"), GMP_IPC_CLOSE);
	assert_int_equal(gmp_ipc_api__kind("cuMemRetainAllocationHandle"), GMP_IPC_RETAIN);
	static const char *const no[] = { "cudaIpcOpenEventHandle", "cuIpcGetEventHandle", "cuMemMapArrayAsync",
					  "cuMemCreate", "cudaMalloc", "cuMemPoolExportToShareableHandle",
					  "cuMemRetainAllocationHandl", "cuMemMa", "cuMemMapX", "cudaIpc", "", "c",
					  "cudaMemcpyAsync", "cuMemAlloc_v2", "cudaMemsetAsync", "cuMem", "cudaMemPrefetchAsync",
					  "cuMemPoolCreate", "cuda", "cu" };
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_int_equal(gmp_ipc_api__kind(no[i]), 0);
	assert_int_equal(gmp_ipc_api__kind(NULL), 0);
}

/* The tensor map calls and the launch calls with kernel parameters (collector/tensormaps.c). */
static void tensor_map_calls(void **state)
{
	(void)state;
	assert_int_equal(gmp_tmap_api__kind("cuTensorMapEncodeTiled"), 1);
	assert_int_equal(gmp_tmap_api__kind("cuTensorMapEncodeIm2col"), 1);
	assert_int_equal(gmp_tmap_api__kind("cuTensorMapEncodeIm2colWide"), 1);
	assert_int_equal(gmp_tmap_api__kind("cuTensorMapReplaceAddress"), 2);
	static const char *const no[] = { "cuTensorMapEncode", "cuTensorMapEncodeTiledX", "cuTexObjectCreate",
					  "cudaLaunchKernel", "", NULL };
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_int_equal(gmp_tmap_api__kind(no[i]), 0);
	struct gmp_launch_layout l;
	assert_int_equal(gmp_launch_api__layout("cuLaunchKernel_ptsz", &l), 1);
	assert_int_equal(l.function, 0);
	assert_int_equal(l.kernel_params, 48);
	assert_int_equal(l.extra, 56);
	assert_int_equal(gmp_launch_api__layout("cuLaunchKernelEx", &l), 1);
	assert_int_equal(l.function, 8);
	assert_int_equal(l.kernel_params, 16);
	assert_int_equal(l.extra, 24);
	assert_int_equal(gmp_launch_api__layout("cuLaunchCooperativeKernel", &l), 1);
	assert_int_equal(l.kernel_params, 48);
	assert_int_equal(l.extra, -1);
	assert_int_equal(gmp_launch_api__layout("cudaLaunchKernel", &l), 0);
	assert_int_equal(gmp_launch_api__layout("cuLaunchHostFunc", &l), 0);
	assert_int_equal(gmp_launch_api__layout(NULL, &l), 0);
}

/* The stream-creating calls (collector/streams.c), the queries (queries.c), and the per-thread variants. */
static void stream_calls(void **state)
{
	(void)state;
	assert_int_equal(gmp_stream_api__kind("cudaStreamCreate"), 1);
	assert_int_equal(gmp_stream_api__kind("cudaStreamCreate_v3020"), 1);
	assert_int_equal(gmp_stream_api__kind("cudaStreamCreateWithFlags_v5000"), 2);
	assert_int_equal(gmp_stream_api__kind("cudaStreamCreateWithPriority_v5050"), 2);
	assert_int_equal(gmp_stream_api__kind("cuStreamCreate"), 2);
	assert_int_equal(gmp_stream_api__kind("cuStreamCreateWithPriority"), 2);
	static const char *const no[] = { "cudaStreamDestroy", "cuStreamCreateX", "cudaStreamCreat",
					  "cuGreenCtxStreamCreate", "cudaStreamGetFlags", "", "c" };
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_int_equal(gmp_stream_api__kind(no[i]), 0);
	assert_int_equal(gmp_stream_api__kind(NULL), 0);
	assert_int_equal(gmp_query_api__kind("cudaEventQuery"), 1);
	assert_int_equal(gmp_query_api__kind("cudaEventQuery_v3020"), 1);
	assert_int_equal(gmp_query_api__kind("cuEventQuery"), 1);
	assert_int_equal(gmp_query_api__kind("cudaStreamQuery_ptsz"), 2);
	assert_int_equal(gmp_query_api__kind("cuStreamQuery_ptsz"), 2);
	assert_int_equal(gmp_query_api__kind("cudaStreamQuery_v3020"), 2);
	static const char *const not_queries[] = { "cudaEventSynchronize", "cudaEventQueryX", "cuStreamQuer",
						   "cudaStreamSynchronize", "", NULL };
	for (size_t i = 0; i < sizeof(not_queries) / sizeof(not_queries[0]); i++)
		assert_int_equal(gmp_query_api__kind(not_queries[i]), 0);
	assert_true(gmp_api__per_thread("cudaLaunchKernel_ptsz"));
	assert_true(gmp_api__per_thread("cudaMemcpy_ptds_v7000"));
	assert_true(gmp_api__per_thread("cuLaunchKernel_ptsz"));
	assert_false(gmp_api__per_thread("cudaLaunchKernel"));
	assert_false(gmp_api__per_thread("cuMemcpyHtoD_v2"));
	assert_false(gmp_api__per_thread(NULL));
}

static void sizes(void **state)
{
	(void)state;
	size_t block[5] = { 0x1000, 64, 100, 7, 3 };
	assert_int_equal(gmp_alloc_api__size(gmp_alloc_api__find("cudaMalloc"), block), 64);
	assert_int_equal(gmp_alloc_api__size(gmp_alloc_api__find("cudaMallocPitch"), block), 700);
	assert_int_equal(gmp_alloc_api__size(gmp_alloc_api__find("cudaMalloc3D"), block), 64 * 100 * 7);
	size_t huge[4] = { 0, 0, SIZE_MAX, 3 };
	assert_int_equal(gmp_alloc_api__size(gmp_alloc_api__find("cuMemAllocPitch"), huge), 0);
}

/* A CUDA array's bytes from its descriptor (collector/arrays.c). */
static void array_sizes(void **state)
{
	(void)state;
	/* 1024x768 float4: 16 bytes an element. */
	assert_int_equal(gmp_array_bytes(GMP_AD_FORMAT_FLOAT, 4, 1024, 768, 0), 1024 * 768 * 16);
	/* 1D (height 0), 3D, layered: a 0 counts as 1. */
	assert_int_equal(gmp_array_bytes(GMP_AD_FORMAT_UNSIGNED_INT8, 1, 4096, 0, 0), 4096);
	assert_int_equal(gmp_array_bytes(GMP_AD_FORMAT_HALF, 2, 64, 64, 64), 64 * 64 * 64 * 4);
	assert_int_equal(gmp_array_bytes(GMP_AD_FORMAT_SIGNED_INT32, 1, 10, 10, 6), 2400);
	/* The channels are the format's own for the normalized formats: 16X4 is 8 bytes whatever is passed. */
	assert_int_equal(gmp_array_bytes(GMP_AD_FORMAT_SNORM_INT16X4, 4, 100, 1, 1), 800);
	assert_int_equal(gmp_array_bytes(GMP_AD_FORMAT_UNORM_INT8X1, 1, 100, 1, 1), 100);
	assert_int_equal(gmp_array_bytes(0xc4 /* UNORM_INT16X2 */, 2, 100, 1, 1), 400);
	assert_int_equal(gmp_array_bytes(0xc7 /* SNORM_INT8X2 */, 2, 100, 1, 1), 200);
	assert_int_equal(gmp_array_bytes(GMP_AD_FORMAT_UNORM_INT_101010_2, 4, 100, 2, 1), 800);
	/* Block-compressed: 4x4 blocks, a partial block whole; BC1 8 bytes a block, BC7 16. */
	assert_int_equal(gmp_array_bytes(GMP_AD_FORMAT_BC1_UNORM, 4, 256, 256, 0), 64 * 64 * 8);
	assert_int_equal(gmp_array_bytes(GMP_AD_FORMAT_BC7_UNORM_SRGB, 4, 5, 5, 0), 4 * 16);
	assert_int_equal(gmp_array_bytes(0x98 /* BC4_SNORM */, 1, 8, 4, 0), 2 * 8);
	assert_int_equal(gmp_array_bytes(0x93 /* BC2_UNORM */, 4, 8, 4, 0), 2 * 16);
	/* NV12: a byte per luma sample, half as many rows of chroma pairs; P016: 2 bytes a sample. */
	assert_int_equal(gmp_array_bytes(GMP_AD_FORMAT_NV12, 1, 1920, 1080, 0), 1920 * 1080 * 3 / 2);
	assert_int_equal(gmp_array_bytes(GMP_AD_FORMAT_P016, 1, 1920, 1080, 0), 1920 * 1080 * 3);
	assert_int_equal(gmp_array_bytes(GMP_AD_FORMAT_NV12, 1, 3, 3, 0), 9 + 4 * 2);
	/* Unknown: a format not listed, channels not 1, 2 or 4, an overflow. */
	assert_int_equal(gmp_array_bytes(0xa5 /* YUY2 */, 2, 64, 64, 0), 0);
	assert_int_equal(gmp_array_bytes(0x7f, 1, 64, 64, 0), 0);
	assert_int_equal(gmp_array_bytes(GMP_AD_FORMAT_FLOAT, 3, 64, 64, 0), 0);
	assert_int_equal(gmp_array_bytes(GMP_AD_FORMAT_FLOAT, 0, 64, 64, 0), 0);
	assert_int_equal(gmp_array_bytes(GMP_AD_FORMAT_FLOAT, 4, UINT64_MAX / 2, 2, 0), 0);
	assert_int_equal(gmp_array_bytes(GMP_AD_FORMAT_BC1_UNORM, 4, UINT64_MAX, UINT64_MAX, 0), 0);
	assert_int_equal(gmp_array_bytes(GMP_AD_FORMAT_NV12, 1, UINT64_MAX, 2, 0), 0);
}

/* A failed array call's size, from the descriptor its parameters point to (collector/oom.c). */
static void array_call_sizes(void **state)
{
	(void)state;
	struct gmp_channel_desc f4 = { 32, 32, 32, 32, 2 }, u8 = { 8, 0, 0, 0, 1 };
	size_t p[6] = { 0x1000, (size_t)(uintptr_t)&f4, 1024, 768, 0, 0 };
	const struct gmp_alloc_api *a = gmp_alloc_api__find("cudaMallocArray");
	assert_non_null(a);
	assert_int_equal(a->kind, GMP_MEM_ARRAY);
	assert_int_equal(gmp_alloc_api__size(a, p), 16 * 1024 * 768);
	p[3] = 0; /* one row */
	assert_int_equal(gmp_alloc_api__size(a, p), 16 * 1024);
	/* cudaMalloc3DArray: its extent (width, height, depth) by value after the descriptor. */
	size_t p3[6] = { 0x1000, (size_t)(uintptr_t)&u8, 256, 256, 64, 0 };
	assert_int_equal(gmp_alloc_api__size(gmp_alloc_api__find("cudaMalloc3DArray_v3020"), p3), 256 * 256 * 64);
	/* Channels of a kind not signed, unsigned or float, bits not whole bytes, no descriptor: not known. */
	struct gmp_channel_desc odd = { 12, 0, 0, 0, 1 }, nv12 = { 8, 8, 8, 0, 4 }, neg = { -8, 0, 0, 0, 1 };
	p[1] = (size_t)(uintptr_t)&odd;
	assert_int_equal(gmp_alloc_api__size(a, p), 0);
	p[1] = (size_t)(uintptr_t)&nv12;
	assert_int_equal(gmp_alloc_api__size(a, p), 0);
	p[1] = (size_t)(uintptr_t)&neg;
	assert_int_equal(gmp_alloc_api__size(a, p), 0);
	p[1] = 0;
	assert_int_equal(gmp_alloc_api__size(a, p), 0);
	/* The driver's: a descriptor with the format, as cuArray3DGetDescriptor gives. */
	struct gmp_array_desc d2 = { 1920, 1080, GMP_AD_FORMAT_NV12, 1 };
	struct gmp_array3d_desc d3 = { 64, 64, 6, GMP_AD_FORMAT_HALF, 4, 0 };
	size_t q[2] = { 0x1000, (size_t)(uintptr_t)&d2 };
	assert_int_equal(gmp_alloc_api__size(gmp_alloc_api__find("cuArrayCreate_v2"), q), 1920 * 1080 * 3 / 2);
	q[1] = (size_t)(uintptr_t)&d3;
	assert_int_equal(gmp_alloc_api__size(gmp_alloc_api__find("cuArray3DCreate_v2"), q), 64 * 64 * 6 * 8);
}

#if __has_include(<cupti.h>)
/* CUPTI's header brings the generated parameter structs with what they need. */
#include <cupti.h>

#define OFF(name, type, field) \
	do { \
		const struct gmp_alloc_api *a = gmp_alloc_api__find(name); \
		assert_non_null(a); \
		assert_int_equal(a->off[k], offsetof(type, field)); \
		assert_int_equal(sizeof(((type *)0)->field), sizeof(size_t)); \
	} while (0)
#define STREAM(name, type, field) \
	assert_int_equal(gmp_alloc_api__find(name)->stream_off, offsetof(type, field))

static void layouts_agree(void **state)
{
	(void)state;
	unsigned k = 0;
	OFF("cudaMalloc", cudaMalloc_v3020_params, size);
	OFF("cudaMallocManaged", cudaMallocManaged_v6000_params, size);
	OFF("cudaMallocAsync", cudaMallocAsync_v11020_params, size);
	OFF("cudaMallocAsync_ptsz", cudaMallocAsync_ptsz_v11020_params, size);
	STREAM("cudaMallocAsync", cudaMallocAsync_v11020_params, hStream);
	OFF("cudaMallocFromPoolAsync", cudaMallocFromPoolAsync_v11020_params, size);
	STREAM("cudaMallocFromPoolAsync", cudaMallocFromPoolAsync_v11020_params, stream);
	OFF("cudaMallocPitch", cudaMallocPitch_v3020_params, width);
	OFF("cudaMalloc3D", cudaMalloc3D_v3020_params, extent.width);
	OFF("cuMemAlloc_v2", cuMemAlloc_v2_params, bytesize);
	OFF("cuMemAllocManaged", cuMemAllocManaged_params, bytesize);
	OFF("cuMemAllocAsync", cuMemAllocAsync_params, bytesize);
	STREAM("cuMemAllocAsync", cuMemAllocAsync_params, hStream);
	OFF("cuMemAllocFromPoolAsync", cuMemAllocFromPoolAsync_params, bytesize);
	STREAM("cuMemAllocFromPoolAsync", cuMemAllocFromPoolAsync_params, hStream);
	OFF("cuMemAllocPitch_v2", cuMemAllocPitch_v2_params, WidthInBytes);
	OFF("cuMemCreate", cuMemCreate_params, size);
	k = 1;
	OFF("cudaMallocPitch", cudaMallocPitch_v3020_params, height);
	OFF("cudaMalloc3D", cudaMalloc3D_v3020_params, extent.height);
	OFF("cuMemAllocPitch_v2", cuMemAllocPitch_v2_params, Height);
	k = 2;
	OFF("cudaMalloc3D", cudaMalloc3D_v3020_params, extent.depth);
	/* Texture objects (collector/textures.c): parameters and resource descriptions. */
	assert_int_equal(offsetof(cudaCreateTextureObject_v5000_params, pTexObject), GMP_TEX_PARAM_HANDLE);
	assert_int_equal(offsetof(cudaCreateTextureObject_v5000_params, pResDesc), GMP_TEX_PARAM_RESOURCE);
	assert_int_equal(offsetof(cuTexObjectCreate_params, pTexObject), GMP_TEX_PARAM_HANDLE);
	assert_int_equal(offsetof(cuTexObjectCreate_params, pResDesc), GMP_TEX_PARAM_RESOURCE);
	assert_int_equal(offsetof(cudaDestroyTextureObject_v5000_params, texObject), GMP_TEX_PARAM_HANDLE);
	assert_int_equal(sizeof(((cudaDestroyTextureObject_v5000_params *)0)->texObject), sizeof(uint64_t));
	assert_int_equal(offsetof(cuTexObjectDestroy_params, texObject), GMP_TEX_PARAM_HANDLE);
	assert_int_equal(sizeof(((cuTexObjectDestroy_params *)0)->texObject), sizeof(uint64_t));
	assert_int_equal(offsetof(struct cudaResourceDesc, resType), 0);
	assert_int_equal(sizeof(((struct cudaResourceDesc *)0)->resType), sizeof(int));
	assert_int_equal(offsetof(struct cudaResourceDesc, res.linear.devPtr), GMP_TEX_RES_DEVPTR);
	assert_int_equal(offsetof(struct cudaResourceDesc, res.pitch2D.devPtr), GMP_TEX_RES_DEVPTR);
	assert_int_equal(offsetof(CUDA_RESOURCE_DESC, resType), 0);
	assert_int_equal(offsetof(CUDA_RESOURCE_DESC, res.linear.devPtr), GMP_TEX_RES_DEVPTR);
	assert_int_equal(offsetof(CUDA_RESOURCE_DESC, res.pitch2D.devPtr), GMP_TEX_RES_DEVPTR);
	assert_int_equal(GMP_TEX_RES_LINEAR, cudaResourceTypeLinear);
	assert_int_equal(GMP_TEX_RES_PITCH2D, cudaResourceTypePitch2D);
	assert_int_equal(GMP_TEX_RES_LINEAR, CU_RESOURCE_TYPE_LINEAR);
	assert_int_equal(GMP_TEX_RES_PITCH2D, CU_RESOURCE_TYPE_PITCH2D);
	/* Stream creation (collector/streams.c): the stream pointer, the flags, the non-blocking bit. */
	assert_int_equal(offsetof(cudaStreamCreate_v3020_params, pStream), GMP_STREAM_PARAM_HANDLE);
	assert_int_equal(offsetof(cudaStreamCreateWithFlags_v5000_params, pStream), GMP_STREAM_PARAM_HANDLE);
	assert_int_equal(offsetof(cudaStreamCreateWithFlags_v5000_params, flags), GMP_STREAM_PARAM_FLAGS);
	assert_int_equal(offsetof(cudaStreamCreateWithPriority_v5050_params, pStream), GMP_STREAM_PARAM_HANDLE);
	assert_int_equal(offsetof(cudaStreamCreateWithPriority_v5050_params, flags), GMP_STREAM_PARAM_FLAGS);
	assert_int_equal(offsetof(cuStreamCreate_params, phStream), GMP_STREAM_PARAM_HANDLE);
	assert_int_equal(offsetof(cuStreamCreate_params, Flags), GMP_STREAM_PARAM_FLAGS);
	assert_int_equal(offsetof(cuStreamCreateWithPriority_params, phStream), GMP_STREAM_PARAM_HANDLE);
	assert_int_equal(offsetof(cuStreamCreateWithPriority_params, flags), GMP_STREAM_PARAM_FLAGS);
	assert_int_equal(sizeof(((cuStreamCreate_params *)0)->Flags), sizeof(uint32_t));
	assert_int_equal(sizeof(CUstream), sizeof(uint64_t));
	/* Tensor maps and launches (collector/tensormaps.c). */
	assert_int_equal(sizeof(CUtensorMap), GMP_TMAP_BYTES);
	assert_int_equal(offsetof(cuTensorMapEncodeTiled_params, tensorMap), GMP_TMAP_PARAM_MAP);
	assert_int_equal(offsetof(cuTensorMapEncodeTiled_params, globalAddress), GMP_TMAP_PARAM_ADDRESS);
	assert_int_equal(offsetof(cuTensorMapEncodeIm2col_params, tensorMap), GMP_TMAP_PARAM_MAP);
	assert_int_equal(offsetof(cuTensorMapEncodeIm2col_params, globalAddress), GMP_TMAP_PARAM_ADDRESS);
	assert_int_equal(offsetof(cuTensorMapEncodeIm2colWide_params, tensorMap), GMP_TMAP_PARAM_MAP);
	assert_int_equal(offsetof(cuTensorMapEncodeIm2colWide_params, globalAddress), GMP_TMAP_PARAM_ADDRESS);
	assert_int_equal(offsetof(cuTensorMapReplaceAddress_params, tensorMap), GMP_TMAP_PARAM_MAP);
	assert_int_equal(offsetof(cuTensorMapReplaceAddress_params, globalAddress), GMP_TMAP_REPLACE_ADDRESS);
	struct gmp_launch_layout l;
	assert_int_equal(gmp_launch_api__layout("cuLaunchKernel", &l), 1);
	assert_int_equal(offsetof(cuLaunchKernel_params, f), l.function);
	assert_int_equal(offsetof(cuLaunchKernel_params, kernelParams), l.kernel_params);
	assert_int_equal(offsetof(cuLaunchKernel_params, extra), l.extra);
	assert_int_equal(gmp_launch_api__layout("cuLaunchKernelEx", &l), 1);
	assert_int_equal(offsetof(cuLaunchKernelEx_params, f), l.function);
	assert_int_equal(offsetof(cuLaunchKernelEx_params, kernelParams), l.kernel_params);
	assert_int_equal(offsetof(cuLaunchKernelEx_params, extra), l.extra);
	assert_int_equal(gmp_launch_api__layout("cuLaunchCooperativeKernel", &l), 1);
	assert_int_equal(offsetof(cuLaunchCooperativeKernel_params, f), l.function);
	assert_int_equal(offsetof(cuLaunchCooperativeKernel_params, kernelParams), l.kernel_params);
	assert_int_equal((uintptr_t)CU_LAUNCH_PARAM_END, GMP_LAUNCH_EXTRA_END);
	assert_int_equal((uintptr_t)CU_LAUNCH_PARAM_BUFFER_POINTER, GMP_LAUNCH_EXTRA_BUFFER);
	assert_int_equal((uintptr_t)CU_LAUNCH_PARAM_BUFFER_SIZE, GMP_LAUNCH_EXTRA_SIZE);
	/* Memory shared between processes (collector/ipc.c). */
	assert_int_equal(offsetof(cudaIpcOpenMemHandle_v4010_params, devPtr), GMP_IPC_PARAM_IMPORTED);
	assert_int_equal(offsetof(cuIpcOpenMemHandle_v2_params, pdptr), GMP_IPC_PARAM_IMPORTED);
	assert_int_equal(offsetof(cudaMemPoolImportPointer_v11020_params, ptr), GMP_IPC_PARAM_IMPORTED);
	assert_int_equal(offsetof(cuMemPoolImportPointer_params, ptr_out), GMP_IPC_PARAM_IMPORTED);
	assert_int_equal(offsetof(cuMemImportFromShareableHandle_params, handle), GMP_IPC_PARAM_IMPORTED);
	assert_int_equal(offsetof(cudaIpcGetMemHandle_v4010_params, devPtr), GMP_IPC_PARAM_EXPORTED);
	assert_int_equal(offsetof(cuIpcGetMemHandle_params, dptr), GMP_IPC_PARAM_EXPORTED);
	assert_int_equal(offsetof(cudaMemPoolExportPointer_v11020_params, ptr), GMP_IPC_PARAM_EXPORTED);
	assert_int_equal(offsetof(cuMemPoolExportPointer_params, ptr), GMP_IPC_PARAM_EXPORTED);
	assert_int_equal(offsetof(cuMemExportToShareableHandle_params, handle), GMP_IPC_PARAM_EXPORTED);
	assert_int_equal(offsetof(cuMemMap_params, ptr), 0);
	assert_int_equal(offsetof(cuMemMap_params, handle), GMP_IPC_MAP_HANDLE);
	assert_int_equal(offsetof(cuMemUnmap_params, ptr), 0);
	assert_int_equal(offsetof(cuMemUnmap_params, size), GMP_IPC_UNMAP_SIZE);
	assert_int_equal(offsetof(cuMemRelease_params, handle), GMP_IPC_RELEASE_HANDLE);
	assert_int_equal(offsetof(cuMemRetainAllocationHandle_params, handle), GMP_IPC_PARAM_IMPORTED);
	assert_int_equal(offsetof(cuMemRetainAllocationHandle_params, addr), GMP_IPC_RETAIN_POINTER);
	assert_int_equal(sizeof(CUmemGenericAllocationHandle), sizeof(uint64_t));
	assert_int_equal(sizeof(CUdeviceptr), sizeof(uint64_t));
	/* Queries (collector/queries.c): the handle, by value. */
	assert_int_equal(offsetof(cudaEventQuery_v3020_params, event), GMP_QUERY_PARAM_HANDLE);
	assert_int_equal(offsetof(cuEventQuery_params, hEvent), GMP_QUERY_PARAM_HANDLE);
	assert_int_equal(offsetof(cudaStreamQuery_v3020_params, stream), GMP_QUERY_PARAM_HANDLE);
	assert_int_equal(offsetof(cudaStreamQuery_ptsz_v7000_params, stream), GMP_QUERY_PARAM_HANDLE);
	assert_int_equal(offsetof(cuStreamQuery_params, hStream), GMP_QUERY_PARAM_HANDLE);
	assert_int_equal(sizeof(CUevent), sizeof(uint64_t));
	assert_int_equal(GMP_STREAM_NON_BLOCKING, cudaStreamNonBlocking);
	assert_int_equal(GMP_STREAM_NON_BLOCKING, CU_STREAM_NON_BLOCKING);
	assert_int_equal(GMP_ALLOC_OUT_OF_MEMORY, cudaErrorMemoryAllocation);
	assert_int_equal(GMP_ALLOC_OUT_OF_MEMORY, CUDA_ERROR_OUT_OF_MEMORY);
	/* What the collector asks of a stream-ordered pool (collector/pools.c). */
	assert_int_equal(GMP_POOL_ATTR_RELEASE_THRESHOLD, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD);
	assert_int_equal(GMP_POOL_ATTR_RESERVED_MEM_CURRENT, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT);
	assert_int_equal(GMP_POOL_ATTR_RESERVED_MEM_HIGH, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH);
	assert_int_equal(GMP_POOL_ATTR_USED_MEM_CURRENT, CU_MEMPOOL_ATTR_USED_MEM_CURRENT);
	assert_int_equal(GMP_POOL_ATTR_USED_MEM_HIGH, CU_MEMPOOL_ATTR_USED_MEM_HIGH);
	/* The array formats whose element size the collector knows (collector/alloc_api.c). */
	assert_int_equal(GMP_AD_FORMAT_UNSIGNED_INT8, CU_AD_FORMAT_UNSIGNED_INT8);
	assert_int_equal(GMP_AD_FORMAT_UNSIGNED_INT16, CU_AD_FORMAT_UNSIGNED_INT16);
	assert_int_equal(GMP_AD_FORMAT_UNSIGNED_INT32, CU_AD_FORMAT_UNSIGNED_INT32);
	assert_int_equal(GMP_AD_FORMAT_SIGNED_INT8, CU_AD_FORMAT_SIGNED_INT8);
	assert_int_equal(GMP_AD_FORMAT_SIGNED_INT16, CU_AD_FORMAT_SIGNED_INT16);
	assert_int_equal(GMP_AD_FORMAT_SIGNED_INT32, CU_AD_FORMAT_SIGNED_INT32);
	assert_int_equal(GMP_AD_FORMAT_HALF, CU_AD_FORMAT_HALF);
	assert_int_equal(GMP_AD_FORMAT_FLOAT, CU_AD_FORMAT_FLOAT);
	assert_int_equal(GMP_AD_FORMAT_UNORM_INT_101010_2, CU_AD_FORMAT_UNORM_INT_101010_2);
	assert_int_equal(GMP_AD_FORMAT_BC1_UNORM, CU_AD_FORMAT_BC1_UNORM);
	assert_int_equal(GMP_AD_FORMAT_BC7_UNORM_SRGB, CU_AD_FORMAT_BC7_UNORM_SRGB);
	assert_int_equal(0x92, CU_AD_FORMAT_BC1_UNORM_SRGB);
	assert_int_equal(0x93, CU_AD_FORMAT_BC2_UNORM);
	assert_int_equal(0x97, CU_AD_FORMAT_BC4_UNORM);
	assert_int_equal(0x98, CU_AD_FORMAT_BC4_SNORM);
	assert_int_equal(0x9b, CU_AD_FORMAT_BC6H_UF16);
	assert_int_equal(GMP_AD_FORMAT_P010, CU_AD_FORMAT_P010);
	assert_int_equal(GMP_AD_FORMAT_P016, CU_AD_FORMAT_P016);
	assert_int_equal(GMP_AD_FORMAT_NV12, CU_AD_FORMAT_NV12);
	assert_int_equal(GMP_AD_FORMAT_UNORM_INT8X1, CU_AD_FORMAT_UNORM_INT8X1);
	assert_int_equal(0xc4, CU_AD_FORMAT_UNORM_INT16X2);
	assert_int_equal(0xc6, CU_AD_FORMAT_SNORM_INT8X1);
	assert_int_equal(0xc7, CU_AD_FORMAT_SNORM_INT8X2);
	assert_int_equal(GMP_AD_FORMAT_SNORM_INT16X4, CU_AD_FORMAT_SNORM_INT16X4);
	/* Where the array calls' parameters hold their descriptors and dimensions. */
	const struct gmp_alloc_api *a = gmp_alloc_api__find("cudaMallocArray");
	assert_int_equal(a->off[0], offsetof(cudaMallocArray_v3020_params, desc));
	assert_int_equal(a->off[1], offsetof(cudaMallocArray_v3020_params, width));
	assert_int_equal(a->off[2], offsetof(cudaMallocArray_v3020_params, height));
	a = gmp_alloc_api__find("cudaMalloc3DArray");
	assert_int_equal(a->off[0], offsetof(cudaMalloc3DArray_v3020_params, desc));
	assert_int_equal(a->off[1], offsetof(cudaMalloc3DArray_v3020_params, extent.width));
	assert_int_equal(a->off[2], offsetof(cudaMalloc3DArray_v3020_params, extent.height));
	assert_int_equal(a->off[3], offsetof(cudaMalloc3DArray_v3020_params, extent.depth));
	assert_int_equal(gmp_alloc_api__find("cuArrayCreate")->off[0], offsetof(cuArrayCreate_v2_params, pAllocateArray));
	assert_int_equal(gmp_alloc_api__find("cuArray3DCreate")->off[0],
			 offsetof(cuArray3DCreate_v2_params, pAllocateArray));
	assert_int_equal(sizeof(struct gmp_channel_desc), sizeof(struct cudaChannelFormatDesc));
	assert_int_equal(offsetof(struct gmp_channel_desc, w), offsetof(struct cudaChannelFormatDesc, w));
	assert_int_equal(offsetof(struct gmp_channel_desc, kind), offsetof(struct cudaChannelFormatDesc, f));
	assert_int_equal(cudaChannelFormatKindSigned, 0);
	assert_int_equal(cudaChannelFormatKindUnsigned, 1);
	assert_int_equal(cudaChannelFormatKindFloat, 2);
	assert_int_equal(sizeof(struct gmp_array_desc), sizeof(CUDA_ARRAY_DESCRIPTOR));
	assert_int_equal(offsetof(struct gmp_array_desc, format), offsetof(CUDA_ARRAY_DESCRIPTOR, Format));
	assert_int_equal(offsetof(struct gmp_array_desc, channels), offsetof(CUDA_ARRAY_DESCRIPTOR, NumChannels));
	/* The descriptor the collector asks for: the layout of cuArray3DGetDescriptor_v2's. */
	assert_int_equal(sizeof(struct gmp_array3d_desc), sizeof(CUDA_ARRAY3D_DESCRIPTOR));
	assert_int_equal(offsetof(struct gmp_array3d_desc, height), offsetof(CUDA_ARRAY3D_DESCRIPTOR, Height));
	assert_int_equal(offsetof(struct gmp_array3d_desc, depth), offsetof(CUDA_ARRAY3D_DESCRIPTOR, Depth));
	assert_int_equal(offsetof(struct gmp_array3d_desc, format), offsetof(CUDA_ARRAY3D_DESCRIPTOR, Format));
	assert_int_equal(offsetof(struct gmp_array3d_desc, channels), offsetof(CUDA_ARRAY3D_DESCRIPTOR, NumChannels));
	assert_int_equal(offsetof(struct gmp_array3d_desc, flags), offsetof(CUDA_ARRAY3D_DESCRIPTOR, Flags));
}
#else
static void layouts_agree(void **state)
{
	(void)state;
	print_message("the CUDA toolkit's CUPTI headers are not here; the layout check is skipped\n");
	skip();
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names),
		cmocka_unit_test(sizes),
		cmocka_unit_test(texture_calls),
		cmocka_unit_test(ipc_calls),
		cmocka_unit_test(tensor_map_calls),
		cmocka_unit_test(stream_calls),
		cmocka_unit_test(array_sizes),
		cmocka_unit_test(array_call_sizes),
		cmocka_unit_test(layouts_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
