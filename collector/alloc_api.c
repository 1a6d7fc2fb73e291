// SPDX-License-Identifier: MIT
/* Allocation calls and their parameter layouts (alloc_api.h). */
#include "alloc_api.h"

#include <stddef.h>
#include <string.h>

#include "gmprof/trace.h"

#define P(x) ((uint8_t)(x * sizeof(void *)))

static const struct gmp_alloc_api apis[] = {
	/* runtime API */
	{ "cudaMalloc", GMP_MEM_DEVICE, 1, { P(1) }, 0 },
	{ "cudaMallocManaged", GMP_MEM_MANAGED, 1, { P(1) }, 0 },
	{ "cudaMallocAsync", GMP_MEM_ASYNC, 1, { P(1) }, P(2) },
	{ "cudaMallocFromPoolAsync", GMP_MEM_ASYNC, 1, { P(1) }, P(3) },
	{ "cudaMallocPitch", GMP_MEM_DEVICE, 2, { P(2), P(3) }, 0 },
	{ "cudaMalloc3D", GMP_MEM_DEVICE, 3, { P(1), P(2), P(3) }, 0 },
	{ "cudaMallocArray", GMP_MEM_ARRAY, 3, { P(1), P(2), P(3) }, 0, GMP_ARRAY_RUNTIME },
	{ "cudaMalloc3DArray", GMP_MEM_ARRAY, 4, { P(1), P(2), P(3), P(4) }, 0, GMP_ARRAY_RUNTIME },
	/* driver API */
	{ "cuMemAlloc", GMP_MEM_DEVICE, 1, { P(1) }, 0 },
	{ "cuMemAllocManaged", GMP_MEM_MANAGED, 1, { P(1) }, 0 },
	{ "cuMemAllocAsync", GMP_MEM_ASYNC, 1, { P(1) }, P(2) },
	{ "cuMemAllocFromPoolAsync", GMP_MEM_ASYNC, 1, { P(1) }, P(3) },
	{ "cuMemAllocPitch", GMP_MEM_DEVICE, 2, { P(2), P(3) }, 0 },
	{ "cuMemCreate", GMP_MEM_DEVICE, 1, { P(1) }, 0 },
	{ "cuArrayCreate", GMP_MEM_ARRAY, 1, { P(1) }, 0, GMP_ARRAY_DRIVER },
	{ "cuArray3DCreate", GMP_MEM_ARRAY, 1, { P(1) }, 0, GMP_ARRAY3D_DRIVER },
};

size_t gmp_api__base_len(const char *name)
{
	size_t n = strlen(name);
	for (;;) {
		if (n > 5 && (!strncmp(name + n - 5, "_ptsz", 5) || !strncmp(name + n - 5, "_ptds", 5))) {
			n -= 5;
			continue;
		}
		size_t d = n;
		while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
			d--;
		if (d < n && d >= 2 && name[d - 1] == 'v' && name[d - 2] == '_') {
			n = d - 2;
			continue;
		}
		return n;
	}
}

const struct gmp_alloc_api *gmp_alloc_api__find(const char *function_name)
{
	if (!function_name)
		return NULL;
	size_t n = gmp_api__base_len(function_name);
	for (size_t i = 0; i < sizeof(apis) / sizeof(apis[0]); i++)
		if (strlen(apis[i].name) == n && !strncmp(apis[i].name, function_name, n))
			return &apis[i];
	return NULL;
}

/*
 * The letter after a call's "cuda" or "cu" (0 for another name): the
 * classifiers below run at the end of every call, and most calls leave on
 * it (cudaLaunchKernel, cudaMemcpyAsync, cudaGetDevice, ...).
 */
static char letter(const char *name)
{
	if (!name || name[0] != 'c' || name[1] != 'u')
		return 0;
	return name[2] == 'd' && name[3] == 'a' ? name[4] : name[2];
}

int gmp_tex_api__kind(const char *function_name)
{
	char l = letter(function_name);
	if (l != 'C' && l != 'D' && l != 'T')
		return 0;
	size_t n = gmp_api__base_len(function_name);
	if ((n == 23 && !strncmp(function_name, "cudaCreateTextureObject", n)) ||
	    (n == 17 && !strncmp(function_name, "cuTexObjectCreate", n)))
		return 1;
	if ((n == 24 && !strncmp(function_name, "cudaDestroyTextureObject", n)) ||
	    (n == 18 && !strncmp(function_name, "cuTexObjectDestroy", n)))
		return -1;
	return 0;
}

int gmp_ipc_api__kind(const char *function_name)
{
	static const struct {
		const char *name;
		int kind;
	} calls[] = {
		{ "cudaIpcOpenMemHandle", GMP_IPC_OPEN },
		{ "cuIpcOpenMemHandle", GMP_IPC_OPEN },
		{ "cudaMemPoolImportPointer", GMP_IPC_OPEN },
		{ "cuMemPoolImportPointer", GMP_IPC_OPEN },
		{ "cuMemImportFromShareableHandle", GMP_IPC_IMPORT_HANDLE },
		{ "cuMemMap", GMP_IPC_MAP },
		{ "cudaIpcGetMemHandle", GMP_IPC_EXPORT_POINTER },
		{ "cuIpcGetMemHandle", GMP_IPC_EXPORT_POINTER },
		{ "cudaMemPoolExportPointer", GMP_IPC_EXPORT_POINTER },
		{ "cuMemPoolExportPointer", GMP_IPC_EXPORT_POINTER },
		{ "cuMemExportToShareableHandle", GMP_IPC_EXPORT_HANDLE },
		{ "cuMemRelease", GMP_IPC_RELEASE },
		{ "cuMemUnmap", GMP_IPC_UNMAP },
		{ "cudaIpcCloseMemHandle", GMP_IPC_CLOSE },
		{ "cuIpcCloseMemHandle", GMP_IPC_CLOSE },
		{ "cuMemRetainAllocationHandle", GMP_IPC_RETAIN },
	};
	/* Every call ends here: most (cudaMalloc, cudaMemcpyAsync, cuMemAlloc) leave on the letters after the prefix. */
	char l = letter(function_name);
	if (l != 'I' && l != 'M')
		return 0;
	const char *rest = function_name + (function_name[2] == 'd' ? 4 : 2); /* "Ipc...", "Mem..." */
	if (rest[1] != (l == 'I' ? 'p' : 'e') || (l == 'M' && !strchr("MUREIP", rest[3] ? rest[3] : '-')))
		return 0;
	size_t n = gmp_api__base_len(function_name);
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (strlen(calls[i].name) == n && !strncmp(calls[i].name, function_name, n))
			return calls[i].kind;
	return 0;
}

int gmp_tmap_api__kind(const char *function_name)
{
	if (letter(function_name) != 'T')
		return 0;
	size_t n = gmp_api__base_len(function_name);
	if ((n == 22 && !strncmp(function_name, "cuTensorMapEncodeTiled", n)) ||
	    (n == 23 && !strncmp(function_name, "cuTensorMapEncodeIm2col", n)) ||
	    (n == 27 && !strncmp(function_name, "cuTensorMapEncodeIm2colWide", n)))
		return 1;
	if (n == 25 && !strncmp(function_name, "cuTensorMapReplaceAddress", n))
		return 2;
	return 0;
}

int gmp_launch_api__layout(const char *function_name, struct gmp_launch_layout *l)
{
	if (letter(function_name) != 'L')
		return 0;
	size_t n = gmp_api__base_len(function_name);
	if (n == 14 && !strncmp(function_name, "cuLaunchKernel", n))
		*l = (struct gmp_launch_layout){ 0, 48, 56 };
	else if (n == 16 && !strncmp(function_name, "cuLaunchKernelEx", n))
		*l = (struct gmp_launch_layout){ 8, 16, 24 };
	else if (n == 25 && !strncmp(function_name, "cuLaunchCooperativeKernel", n))
		*l = (struct gmp_launch_layout){ 0, 48, -1 };
	else
		return 0;
	return 1;
}

int gmp_stream_api__kind(const char *function_name)
{
	if (letter(function_name) != 'S')
		return 0;
	size_t n = gmp_api__base_len(function_name);
	if (n == 16 && !strncmp(function_name, "cudaStreamCreate", n))
		return 1;
	if ((n == 25 && !strncmp(function_name, "cudaStreamCreateWithFlags", n)) ||
	    (n == 28 && !strncmp(function_name, "cudaStreamCreateWithPriority", n)) ||
	    (n == 14 && !strncmp(function_name, "cuStreamCreate", n)) ||
	    (n == 26 && !strncmp(function_name, "cuStreamCreateWithPriority", n)))
		return 2;
	return 0;
}

int gmp_query_api__kind(const char *function_name)
{
	char l = letter(function_name);
	if (l != 'E' && l != 'S')
		return 0;
	size_t n = gmp_api__base_len(function_name);
	if ((n == 14 && !strncmp(function_name, "cudaEventQuery", n)) ||
	    (n == 12 && !strncmp(function_name, "cuEventQuery", n)))
		return 1;
	if ((n == 15 && !strncmp(function_name, "cudaStreamQuery", n)) ||
	    (n == 13 && !strncmp(function_name, "cuStreamQuery", n)))
		return 2;
	return 0;
}

int gmp_api__per_thread(const char *function_name)
{
	const char *u = function_name ? strchr(function_name, '_') : NULL; /* most names have no suffix */
	return u && (strstr(u, "_ptsz") || strstr(u, "_ptds"));
}

/* The size_t parameter at off. */
static uint64_t param(const void *params, unsigned off)
{
	size_t v;
	memcpy(&v, (const char *)params + off, sizeof(v));
	return v;
}

static uint64_t array_size(const struct gmp_alloc_api *a, const void *params);
static uint64_t mul(uint64_t a, uint64_t b);

uint64_t gmp_alloc_api__size(const struct gmp_alloc_api *a, const void *params)
{
	if (a->array)
		return array_size(a, params);
	uint64_t size = 1;
	for (unsigned i = 0; i < a->nfactors; i++) {
		uint64_t v = param(params, a->off[i]);
		if (v && size > UINT64_MAX / v)
			return 0;
		size *= v;
	}
	return size;
}

const struct gmp_alloc_api *gmp_alloc_api__all(unsigned *n)
{
	*n = (unsigned)(sizeof(apis) / sizeof(apis[0]));
	return apis;
}

/* a * b, or 0 when it overflows (or either is 0). */
static uint64_t mul(uint64_t a, uint64_t b)
{
	return a && b && a <= UINT64_MAX / b ? a * b : 0;
}

/* Bytes of one element of format with channels channels; 0: not known. */
static uint64_t element_bytes(unsigned format, unsigned channels)
{
	if (format >= GMP_AD_FORMAT_UNORM_INT8X1 && format <= GMP_AD_FORMAT_SNORM_INT16X4) {
		/* UNORM 8X1, 8X2, 8X4, 16X1, 16X2, 16X4, then the same six SNORM. */
		static const uint8_t b[6] = { 1, 2, 4, 2, 4, 8 };
		return b[(format - GMP_AD_FORMAT_UNORM_INT8X1) % 6];
	}
	if (format == GMP_AD_FORMAT_UNORM_INT_101010_2)
		return 4;
	if (channels != 1 && channels != 2 && channels != 4)
		return 0;
	switch (format) {
	case GMP_AD_FORMAT_UNSIGNED_INT8:
	case GMP_AD_FORMAT_SIGNED_INT8: return channels;
	case GMP_AD_FORMAT_UNSIGNED_INT16:
	case GMP_AD_FORMAT_SIGNED_INT16:
	case GMP_AD_FORMAT_HALF: return 2 * channels;
	case GMP_AD_FORMAT_UNSIGNED_INT32:
	case GMP_AD_FORMAT_SIGNED_INT32:
	case GMP_AD_FORMAT_FLOAT: return 4 * channels;
	default: return 0;
	}
}

uint64_t gmp_array_bytes(unsigned format, unsigned channels, uint64_t width, uint64_t height, uint64_t depth)
{
	const uint64_t w = width ? width : 1, h = height ? height : 1, d = depth ? depth : 1;
	if (format >= GMP_AD_FORMAT_BC1_UNORM && format <= GMP_AD_FORMAT_BC7_UNORM_SRGB) {
		/* BC1 (0x91, 0x92) and BC4 (0x97, 0x98): 8 bytes a block; BC2, BC3, BC5, BC6H, BC7: 16. */
		uint64_t block = format <= 0x92 || format == 0x97 || format == 0x98 ? 8 : 16;
		return mul(mul(block, w / 4 + (w % 4 != 0)), mul(h / 4 + (h % 4 != 0), d));
	}
	if (format == GMP_AD_FORMAT_NV12 || format == GMP_AD_FORMAT_P010 || format == GMP_AD_FORMAT_P016) {
		/* A luma plane and a chroma plane of half as many rows (a row of interleaved pairs). */
		uint64_t sample = format == GMP_AD_FORMAT_NV12 ? 1 : 2;
		uint64_t luma = mul(w, h), chroma = mul(w + w % 2, h / 2 + h % 2);
		return luma && chroma && luma <= UINT64_MAX - chroma ? mul(mul(sample, luma + chroma), d) : 0;
	}
	return mul(mul(element_bytes(format, channels), w), mul(h, d));
}

/* A CUDA array call's bytes, from the descriptor its parameters point to. */
static uint64_t array_size(const struct gmp_alloc_api *a, const void *params)
{
	const void *desc;
	memcpy(&desc, (const char *)params + a->off[0], sizeof(desc));
	if (!desc)
		return 0;
	if (a->array == GMP_ARRAY_DRIVER) {
		struct gmp_array_desc d;
		memcpy(&d, desc, sizeof(d));
		return gmp_array_bytes(d.format, d.channels, d.width, d.height, 0);
	}
	if (a->array == GMP_ARRAY3D_DRIVER) {
		struct gmp_array3d_desc d;
		memcpy(&d, desc, sizeof(d));
		return gmp_array_bytes(d.format, d.channels, d.width, d.height, d.depth);
	}
	/* The runtime's: bits per channel of a signed, unsigned or float kind, a whole number of bytes. */
	struct gmp_channel_desc c;
	memcpy(&c, desc, sizeof(c));
	if (c.x < 0 || c.y < 0 || c.z < 0 || c.w < 0 || c.x > 64 || c.y > 64 || c.z > 64 || c.w > 64 ||
	    c.kind < 0 || c.kind > 2)
		return 0;
	uint64_t bits = (uint64_t)c.x + (uint64_t)c.y + (uint64_t)c.z + (uint64_t)c.w;
	uint64_t size = bits % 8 ? 0 : bits / 8;
	for (unsigned i = 1; i < a->nfactors; i++) {
		uint64_t v = param(params, a->off[i]);
		size = mul(size, v ? v : 1); /* a height or depth of 0: one row, one plane */
	}
	return size;
}
