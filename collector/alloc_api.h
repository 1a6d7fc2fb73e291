/* SPDX-License-Identifier: MIT */
/*
 * The CUDA calls that allocate device memory, and where each one's
 * parameter block (the API callback's functionParams) holds the size asked
 * for.  The Sanitizer reports only allocations that succeed; one that runs
 * out of memory shows only as such a call returning 2 (cudaErrorMemoryAllocation,
 * CUDA_ERROR_OUT_OF_MEMORY).  The offsets follow from each call's signature
 * on LP64; tests/unit/test_alloc_abi.c checks them against the toolkit's
 * generated parameter structs.
 */
#ifndef GMPROF_ALLOC_API_H
#define GMPROF_ALLOC_API_H

#include <stddef.h>
#include <stdint.h>

#define GMP_ALLOC_OUT_OF_MEMORY 2 /* the same code in the runtime and the driver API */

/* How a CUDA array call's parameters give its size (struct gmp_alloc_api's array). */
enum {
	GMP_ARRAY_RUNTIME = 1, /* a cudaChannelFormatDesc * at off[0], width, height (and depth) at off[1..n) */
	GMP_ARRAY_DRIVER,      /* a CUDA_ARRAY_DESCRIPTOR * at off[0] */
	GMP_ARRAY3D_DRIVER,    /* a CUDA_ARRAY3D_DESCRIPTOR * at off[0] */
};

struct gmp_alloc_api {
	const char *name;     /* the call, without version (_v2) or per-thread (_ptsz) suffixes */
	uint8_t kind;         /* enum gmp_mem_kind */
	uint8_t nfactors;     /* the size is the product of the size_t values at off[0..n) */
	uint8_t off[4];
	uint8_t stream_off;   /* where the stream is, 0 for none (offset 0 is the result pointer) */
	uint8_t array;        /* 0, or how a CUDA array's descriptor gives the size (GMP_ARRAY_*) */
};

/* Length of a call's name without trailing _v<digits>, _ptsz and _ptds suffixes. */
size_t gmp_api__base_len(const char *name);
/* The allocation call functionName names (any suffixes), or NULL. */
const struct gmp_alloc_api *gmp_alloc_api__find(const char *function_name);
/*
 * The bytes the call asked for, read from its parameters (0 when they
 * overflow; for an array, also when its format's element size is not
 * known).  An array call's descriptor is read through the pointer its
 * parameters hold: the caller is inside that call.
 */
uint64_t gmp_alloc_api__size(const struct gmp_alloc_api *a, const void *params);
/* Every entry, for the layout test: *n gets the count. */
const struct gmp_alloc_api *gmp_alloc_api__all(unsigned *n);

/*
 * Texture objects (textures.c): cudaCreateTextureObject and
 * cuTexObjectCreate take (handle *, resource description *, ...), their
 * Destroy (handle), a 64-bit value; both resource descriptions (struct
 * cudaResourceDesc, CUDA_RESOURCE_DESC) start with the type, an int, then
 * a union whose linear and pitch2D members start with the device pointer.
 * tests/unit/test_alloc_abi.c checks these against the toolkit's headers.
 */
#define GMP_TEX_PARAM_HANDLE 0     /* a create's handle pointer, a destroy's handle */
#define GMP_TEX_PARAM_RESOURCE 8   /* a create's resource description pointer */
#define GMP_TEX_RES_DEVPTR 8       /* the device pointer in a resource description */
enum { GMP_TEX_RES_LINEAR = 2, GMP_TEX_RES_PITCH2D = 3 };
/* What a call does with texture objects: 1 makes one, -1 destroys one, 0 neither (any suffixes). */
int gmp_tex_api__kind(const char *function_name);

/*
 * Tensor maps (tensormaps.c): cuTensorMapEncodeTiled, cuTensorMapEncodeIm2col
 * and cuTensorMapEncodeIm2colWide take (CUtensorMap *, data type, rank,
 * global address, ...), cuTensorMapReplaceAddress (CUtensorMap *, global
 * address); a map is 128 opaque bytes.  The launch calls that pass kernel
 * parameters: cuLaunchKernel (function, ..., kernelParams, extra),
 * cuLaunchKernelEx (config, function, kernelParams, extra) and
 * cuLaunchCooperativeKernel (function, ..., kernelParams).  An extra array
 * is pairs of a key and a value, ending with key 0; key 1 gives the packed
 * parameters' buffer, key 2 a pointer to its size.
 * tests/unit/test_alloc_abi.c checks these against the toolkit's headers.
 */
#define GMP_TMAP_BYTES 128
#define GMP_TMAP_PARAM_MAP 0      /* every call's CUtensorMap * */
#define GMP_TMAP_PARAM_ADDRESS 16 /* an encode's global address */
#define GMP_TMAP_REPLACE_ADDRESS 8 /* cuTensorMapReplaceAddress's */
enum { GMP_LAUNCH_EXTRA_END = 0, GMP_LAUNCH_EXTRA_BUFFER = 1, GMP_LAUNCH_EXTRA_SIZE = 2 };
/* What a call does with tensor maps: 1 encodes one, 2 replaces a map's address, 0 neither. */
int gmp_tmap_api__kind(const char *function_name);
/*
 * Where a launch call's parameters hold the function, kernelParams and
 * extra (-1: none); 0 when the call launches no kernel with parameters.
 */
struct gmp_launch_layout {
	int function, kernel_params, extra;
};
int gmp_launch_api__layout(const char *function_name, struct gmp_launch_layout *l);

/*
 * Stream creation (streams.c): cudaStreamCreate takes (stream *),
 * cudaStreamCreateWithFlags, cudaStreamCreateWithPriority, cuStreamCreate
 * and cuStreamCreateWithPriority (stream *, unsigned flags, ...).
 * tests/unit/test_alloc_abi.c checks these against the toolkit's headers.
 */
#define GMP_STREAM_PARAM_HANDLE 0 /* the stream pointer the call writes */
#define GMP_STREAM_PARAM_FLAGS 8
/* 2: the call makes a stream and takes flags, 1: makes one without (a blocking stream), 0: neither. */
int gmp_stream_api__kind(const char *function_name);
/* 1 when the call is a per-thread default stream variant (a _ptsz or _ptds suffix). */
int gmp_api__per_thread(const char *function_name);

/*
 * Memory shared between processes (ipc.c).  An import maps another
 * process's memory: cudaIpcOpenMemHandle and cuIpcOpenMemHandle take
 * (pointer *, handle, flags), cudaMemPoolImportPointer and
 * cuMemPoolImportPointer (pointer *, pool, export data *), and
 * cuMemImportFromShareableHandle (CUmemGenericAllocationHandle *, OS
 * handle, type) gives a handle that cuMemMap (pointer, size, offset,
 * handle, flags) then maps.  An export shares this process's memory:
 * cudaIpcGetMemHandle, cuIpcGetMemHandle, cudaMemPoolExportPointer and
 * cuMemPoolExportPointer take (handle or export data *, pointer),
 * cuMemExportToShareableHandle (OS handle *, handle, type, flags);
 * cuMemUnmap (pointer, size) ends mappings, cudaIpcCloseMemHandle and
 * cuIpcCloseMemHandle (pointer) an open's, cuMemRelease (handle) lets a
 * handle go, and cuMemRetainAllocationHandle (handle *, pointer) gives a
 * new one to the memory mapped at a pointer.  tests/unit/test_alloc_abi.c
 * checks these against the toolkit's headers.
 */
#define GMP_IPC_PARAM_IMPORTED 0 /* an import's pointer (or handle) pointer */
#define GMP_IPC_PARAM_EXPORTED 8 /* an export's pointer (or handle) */
#define GMP_IPC_MAP_HANDLE 24     /* cuMemMap's handle */
#define GMP_IPC_RELEASE_HANDLE 0  /* cuMemRelease's */
#define GMP_IPC_UNMAP_SIZE 8      /* cuMemUnmap (pointer, size)'s size */
#define GMP_IPC_RETAIN_POINTER 8  /* cuMemRetainAllocationHandle (handle *, pointer)'s pointer */
enum {
	GMP_IPC_OPEN = 1,       /* maps another process's memory at a new pointer */
	GMP_IPC_IMPORT_HANDLE,  /* gives a handle to another process's memory */
	GMP_IPC_MAP,            /* cuMemMap */
	GMP_IPC_EXPORT_POINTER, /* shares the allocation a pointer is in */
	GMP_IPC_EXPORT_HANDLE,  /* shares the memory of a handle */
	GMP_IPC_RELEASE,        /* cuMemRelease */
	GMP_IPC_UNMAP,          /* cuMemUnmap */
	GMP_IPC_CLOSE,          /* cudaIpcCloseMemHandle, cuIpcCloseMemHandle: unmaps what an open mapped */
	GMP_IPC_RETAIN,         /* cuMemRetainAllocationHandle: a new handle to a mapping's memory */
};
/* What a call does with memory shared between processes (GMP_IPC_*), or 0 (any suffixes). */
int gmp_ipc_api__kind(const char *function_name);

/*
 * Queries (queries.c): cudaEventQuery and cuEventQuery take (event),
 * cudaStreamQuery and cuStreamQuery (stream), by value.
 */
#define GMP_QUERY_PARAM_HANDLE 0
/* 1: asks whether an event's work finished, 2: a stream's, 0: neither (any suffixes). */
int gmp_query_api__kind(const char *function_name);

/*
 * CUmemPool_attribute values the collector asks the driver for (pools.c;
 * tests/unit/test_alloc_abi.c compares them with cuda.h's).
 */
enum {
	GMP_POOL_ATTR_RELEASE_THRESHOLD = 4,
	GMP_POOL_ATTR_RESERVED_MEM_CURRENT = 5,
	GMP_POOL_ATTR_RESERVED_MEM_HIGH = 6,
	GMP_POOL_ATTR_USED_MEM_CURRENT = 7,
	GMP_POOL_ATTR_USED_MEM_HIGH = 8,
};

/*
 * CUarray_format values whose element size gmp_array_bytes knows
 * (tests/unit/test_alloc_abi.c compares them with cuda.h's).
 */
enum {
	GMP_AD_FORMAT_UNSIGNED_INT8 = 0x01,
	GMP_AD_FORMAT_UNSIGNED_INT16 = 0x02,
	GMP_AD_FORMAT_UNSIGNED_INT32 = 0x03,
	GMP_AD_FORMAT_SIGNED_INT8 = 0x08,
	GMP_AD_FORMAT_SIGNED_INT16 = 0x09,
	GMP_AD_FORMAT_SIGNED_INT32 = 0x0a,
	GMP_AD_FORMAT_HALF = 0x10,
	GMP_AD_FORMAT_FLOAT = 0x20,
	GMP_AD_FORMAT_UNORM_INT_101010_2 = 0x50,
	GMP_AD_FORMAT_BC1_UNORM = 0x91,      /* ... to BC7_UNORM_SRGB, 0x9e: 4x4 blocks */
	GMP_AD_FORMAT_BC7_UNORM_SRGB = 0x9e,
	GMP_AD_FORMAT_P010 = 0x9f,           /* 4:2:0, 16-bit words */
	GMP_AD_FORMAT_P016 = 0xa1,
	GMP_AD_FORMAT_NV12 = 0xb0,           /* 4:2:0, bytes */
	GMP_AD_FORMAT_UNORM_INT8X1 = 0xc0,   /* ... to SNORM_INT16X4, 0xcb: the channels in the format */
	GMP_AD_FORMAT_SNORM_INT16X4 = 0xcb,
};

/*
 * The bytes of a CUDA array's elements: width x height x depth (a 0 counts
 * as 1) elements of format (CUarray_format) with channels channels each
 * (the format's own count where it has one), 4x4 blocks for the
 * block-compressed formats.  What the driver pads rows and planes to is
 * not included.  0 for a format not listed above, a channel count other
 * than 1, 2 or 4, or a product that overflows.
 */
/* cudaChannelFormatDesc: bits in each of four channels, then their kind (0 signed, 1 unsigned, 2 float). */
struct gmp_channel_desc {
	int32_t x, y, z, w;
	int32_t kind;
};

/* CUDA_ARRAY_DESCRIPTOR (cuArrayCreate's). */
struct gmp_array_desc {
	uint64_t width, height; /* size_t */
	uint32_t format;        /* CUarray_format */
	uint32_t channels;
};

/* What cuArray3DGetDescriptor_v2 fills in: CUDA_ARRAY3D_DESCRIPTOR's layout (checked against cuda.h). */
struct gmp_array3d_desc {
	uint64_t width, height, depth; /* size_t */
	uint32_t format;               /* CUarray_format */
	uint32_t channels;
	uint32_t flags;
};

uint64_t gmp_array_bytes(unsigned format, unsigned channels, uint64_t width, uint64_t height, uint64_t depth);

#endif
