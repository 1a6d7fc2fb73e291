// SPDX-License-Identifier: MIT
/* The runtime and driver calls the collector needs no callback of (api_quiet.h). */
#include "api_quiet.h"

#include <stdlib.h>
#include <string.h>

#include "alloc_api.h"

/*
 * Queries of the device, the context, a stream, a pointer or a function,
 * errors and versions: calls that make no GPU work, allocate nothing,
 * sync nothing and launch nothing, and that frameworks make around every
 * operation (the runtime itself asks cuCtxGetCurrent in most of its calls).
 * Sorted as strcmp sorts (tests/unit/test_collector.c checks it).  Left
 * out on purpose: cudaStreamQuery and cudaEventQuery (a completed query
 * is the program learning that work finished), cudaSetDevice and
 * cudaFree(0)-like calls (they may create a context), module and library
 * lookups (lazy loading loads modules in them).
 */
static const char *const quiet[] = {
	"cuCtxGetApiVersion", "cuCtxGetCacheConfig", "cuCtxGetCurrent", "cuCtxGetDevice", "cuCtxGetFlags",
	"cuCtxGetId", "cuCtxGetLimit", "cuCtxGetSharedMemConfig", "cuCtxGetStreamPriorityRange",
	"cuCtxPopCurrent", "cuCtxPushCurrent", "cuCtxSetCurrent", "cuDeviceCanAccessPeer", "cuDeviceGet",
	"cuDeviceGetAttribute", "cuDeviceGetCount", "cuDeviceGetDefaultMemPool", "cuDeviceGetMemPool",
	"cuDeviceGetName", "cuDeviceGetPCIBusId", "cuDeviceGetUuid", "cuDevicePrimaryCtxGetState",
	"cuDeviceTotalMem", "cuDriverGetVersion", "cuEventElapsedTime", "cuFuncGetAttribute",
	"cuFuncGetModule", "cuFuncGetName", "cuGetErrorName", "cuGetErrorString", "cuGetProcAddress",
	"cuKernelGetAttribute", "cuMemGetAddressRange", "cuMemGetAllocationGranularity", "cuMemGetInfo",
	"cuMemPoolGetAttribute", "cuOccupancyAvailableDynamicSMemPerBlock",
	"cuOccupancyMaxActiveBlocksPerMultiprocessor",
	"cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", "cuPointerGetAttribute",
	"cuPointerGetAttributes", "cuStreamGetCaptureInfo", "cuStreamGetCtx", "cuStreamGetDevice",
	"cuStreamGetFlags", "cuStreamGetId", "cuStreamGetPriority", "cuStreamIsCapturing",
	"cuThreadExchangeStreamCaptureMode", "cudaDeviceCanAccessPeer", "cudaDeviceGetAttribute",
	"cudaDeviceGetDefaultMemPool", "cudaDeviceGetLimit", "cudaDeviceGetMemPool",
	"cudaDeviceGetPCIBusId", "cudaDeviceGetStreamPriorityRange", "cudaDriverGetVersion",
	"cudaEventElapsedTime", "cudaFuncGetAttributes", "cudaFuncGetName", "cudaGetDevice",
	"cudaGetDeviceCount", "cudaGetDeviceFlags", "cudaGetDeviceProperties", "cudaGetDriverEntryPoint",
	"cudaGetDriverEntryPointByVersion", "cudaGetErrorName", "cudaGetErrorString", "cudaGetLastError",
	"cudaMemGetInfo", "cudaMemPoolGetAttribute", "cudaOccupancyAvailableDynamicSMemPerBlock",
	"cudaOccupancyMaxActiveBlocksPerMultiprocessor",
	"cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", "cudaPeekAtLastError",
	"cudaPointerGetAttributes", "cudaRuntimeGetVersion", "cudaStreamGetCaptureInfo",
	"cudaStreamGetDevice", "cudaStreamGetFlags", "cudaStreamGetId", "cudaStreamGetPriority",
	"cudaStreamIsCapturing", "cudaThreadExchangeStreamCaptureMode",
};

static int cmp(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

int gmp_api__quiet(const char *function_name)
{
	if (!function_name)
		return 0;
	size_t n = gmp_api__base_len(function_name);
	char base[80];
	if (!n || n >= sizeof(base))
		return 0;
	memcpy(base, function_name, n);
	base[n] = 0;
	return bsearch(base, quiet, sizeof(quiet) / sizeof(quiet[0]), sizeof(quiet[0]), cmp) != NULL;
}

const char *const *gmp_api__quiet_all(size_t *n)
{
	*n = sizeof(quiet) / sizeof(quiet[0]);
	return quiet;
}
