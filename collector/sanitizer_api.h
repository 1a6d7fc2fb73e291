/* SPDX-License-Identifier: MIT */
/*
 * The part of the Compute Sanitizer API that the collector uses, declared
 * by gmprof from its reference (docs/sanitizer-api.md): the same names,
 * values and layouts as the toolkit's headers, written for machines that
 * have no toolkit (CI).  Where the toolkit's headers exist the build uses
 * them instead (GMP_HAVE_SANITIZER_HEADERS), and `make gpu-check` proves
 * the two agree on every size and offset the collector reads.
 *
 * The library itself is never linked: the collector loads it with dlopen
 * and looks the functions up by name, so the prototypes below only give
 * their types.
 */
#ifndef GMPROF_SANITIZER_API_H
#define GMPROF_SANITIZER_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef GMP_HAVE_SANITIZER_HEADERS
#include <sanitizer.h>
#else

#if defined(__has_include)
#if __has_include(<cuda.h>)
#include <cuda.h>
#define GMP_HAVE_CUDA_H 1
#endif
#endif

#ifndef GMP_HAVE_CUDA_H
/* The driver's opaque handles, as cuda.h declares them. */
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUmemPoolHandle_st *CUmemoryPool;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUgraphNode_st *CUgraphNode;
typedef struct CUevent_st *CUevent;
typedef struct CUlib_st *CUlibrary;
typedef struct CUarray_st *CUarray;
typedef int CUgraphNodeType;
#endif

#define SANITIZERAPI

typedef enum {
	SANITIZER_SUCCESS = 0,
	SANITIZER_ERROR_INVALID_PARAMETER = 1,
	SANITIZER_ERROR_INVALID_DEVICE = 2,
	SANITIZER_ERROR_INVALID_CONTEXT = 3,
	SANITIZER_ERROR_INVALID_DOMAIN_ID = 4,
	SANITIZER_ERROR_INVALID_CALLBACK_ID = 5,
	SANITIZER_ERROR_INVALID_OPERATION = 6,
	SANITIZER_ERROR_OUT_OF_MEMORY = 7,
	SANITIZER_ERROR_PARAMETER_SIZE_NOT_SUFFICIENT = 8,
	SANITIZER_ERROR_API_NOT_IMPLEMENTED = 9,
	SANITIZER_ERROR_MAX_LIMIT_REACHED = 10,
	SANITIZER_ERROR_NOT_READY = 11,
	SANITIZER_ERROR_NOT_COMPATIBLE = 12,
	SANITIZER_ERROR_NOT_INITIALIZED = 13,
	SANITIZER_ERROR_NOT_SUPPORTED = 14,
	SANITIZER_ERROR_ADDRESS_NOT_IN_DEVICE_MEMORY = 15,
	SANITIZER_ERROR_UNKNOWN = 999,
	SANITIZER_ERROR_FORCE_INT = 0x7fffffff
} SanitizerResult;

typedef struct Sanitizer_Subscriber_st *Sanitizer_SubscriberHandle;
typedef struct Sanitizer_Stream_st *Sanitizer_StreamHandle;
typedef struct Sanitizer_Launch_st *Sanitizer_LaunchHandle;
typedef uint32_t Sanitizer_CallbackId;

typedef enum {
	SANITIZER_CB_DOMAIN_INVALID = 0,
	SANITIZER_CB_DOMAIN_DRIVER_API = 1,
	SANITIZER_CB_DOMAIN_RUNTIME_API = 2,
	SANITIZER_CB_DOMAIN_RESOURCE = 3,
	SANITIZER_CB_DOMAIN_SYNCHRONIZE = 4,
	SANITIZER_CB_DOMAIN_LAUNCH = 5,
	SANITIZER_CB_DOMAIN_MEMCPY = 6,
	SANITIZER_CB_DOMAIN_MEMSET = 7,
	SANITIZER_CB_DOMAIN_BATCH_MEMOP = 8,
	SANITIZER_CB_DOMAIN_UVM = 9,
	SANITIZER_CB_DOMAIN_GRAPHS = 10,
	SANITIZER_CB_DOMAIN_EVENTS = 11,
	SANITIZER_CB_DOMAIN_EXTERNAL_MEMORY = 12,
	SANITIZER_CB_DOMAIN_FORCE_INT = 0x7fffffff
} Sanitizer_CallbackDomain;

typedef enum {
	SANITIZER_API_ENTER = 0,
	SANITIZER_API_EXIT = 1,
	SANITIZER_API_CBSITE_FORCE_INT = 0x7fffffff
} Sanitizer_ApiCallbackSite;

typedef enum {
	SANITIZER_CBID_RESOURCE_INVALID = 0,
	SANITIZER_CBID_RESOURCE_INIT_FINISHED = 1,
	SANITIZER_CBID_RESOURCE_CONTEXT_CREATION_STARTING = 2,
	SANITIZER_CBID_RESOURCE_CONTEXT_CREATION_FINISHED = 3,
	SANITIZER_CBID_RESOURCE_CONTEXT_DESTROY_STARTING = 4,
	SANITIZER_CBID_RESOURCE_CONTEXT_DESTROY_FINISHED = 5,
	SANITIZER_CBID_RESOURCE_STREAM_CREATED = 6,
	SANITIZER_CBID_RESOURCE_STREAM_DESTROY_STARTING = 7,
	SANITIZER_CBID_RESOURCE_STREAM_DESTROY_FINISHED = 8,
	SANITIZER_CBID_RESOURCE_MODULE_LOADED = 9,
	SANITIZER_CBID_RESOURCE_MODULE_UNLOAD_STARTING = 10,
	SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC = 11,
	SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE = 12,
	SANITIZER_CBID_RESOURCE_HOST_MEMORY_ALLOC = 13,
	SANITIZER_CBID_RESOURCE_HOST_MEMORY_FREE = 14,
	SANITIZER_CBID_RESOURCE_MEMORY_ALLOC_ASYNC = 15,
	SANITIZER_CBID_RESOURCE_MEMORY_FREE_ASYNC = 16,
	SANITIZER_CBID_RESOURCE_MEMORY_FREE_ASYNC_DONE = 17,
	SANITIZER_CBID_RESOURCE_MEMPOOL_CREATED = 18,
	SANITIZER_CBID_RESOURCE_MEMPOOL_DESTROYING = 19,
	SANITIZER_CBID_RESOURCE_MEMPOOL_PEER_ACCESS_ENABLED = 20,
	SANITIZER_CBID_RESOURCE_MEMPOOL_PEER_ACCESS_DISABLING = 21,
	SANITIZER_CBID_RESOURCE_ARRAY_CREATED = 22,
	SANITIZER_CBID_RESOURCE_ARRAY_DESTROYED = 23,
	SANITIZER_CBID_RESOURCE_FUNCTIONS_LAZY_LOADED = 24,
	SANITIZER_CBID_RESOURCE_FUNCTIONS_LAZY_PATCHED = 25,
	SANITIZER_CBID_RESOURCE_VIRTUAL_RESERVE = 26,
	SANITIZER_CBID_RESOURCE_VIRTUAL_RELEASE = 27,
	SANITIZER_CBID_RESOURCE_MEMPOOL_IMPORT_POINTER = 28,
	SANITIZER_CBID_RESOURCE_FORCE_INT = 0x7fffffff
} Sanitizer_CallbackIdResource;

typedef enum {
	SANITIZER_CBID_SYNCHRONIZE_INVALID = 0,
	SANITIZER_CBID_SYNCHRONIZE_STREAM_SYNCHRONIZED = 1,
	SANITIZER_CBID_SYNCHRONIZE_CONTEXT_SYNCHRONIZED = 2,
	SANITIZER_CBID_SYNCHRONIZE_FORCE_INT = 0x7fffffff
} Sanitizer_CallackIdSync;

typedef enum {
	SANITIZER_CBID_LAUNCH_INVALID = 0,
	SANITIZER_CBID_LAUNCH_BEGIN = 1,
	SANITIZER_CBID_LAUNCH_AFTER_SYSCALL_SETUP = 2,
	SANITIZER_CBID_LAUNCH_END = 3,
	SANITIZER_CBID_LAUNCH_FORCE_INT = 0x7fffffff
} Sanitizer_CallbackIdLaunch;

typedef enum {
	SANITIZER_CBID_MEMCPY_INVALID = 0,
	SANITIZER_CBID_MEMCPY_STARTING = 1,
	SANITIZER_CBID_MEMCPY_FORCE_INT = 0x7fffffff
} Sanitizer_CallbackIdMemcpy;

typedef enum {
	SANITIZER_CBID_MEMSET_INVALID = 0,
	SANITIZER_CBID_MEMSET_STARTING = 1,
	SANITIZER_CBID_MEMSET_FORCE_INT = 0x7fffffff
} Sanitizer_CallbackIdMemset;

typedef enum {
	SANITIZER_CBID_GRAPHS_INVALID = 0,
	SANITIZER_CBID_GRAPHS_GRAPHEXEC_CREATING = 1,
	SANITIZER_CBID_GRAPHS_GRAPHEXEC_CREATED = 2,
	SANITIZER_CBID_GRAPHS_GRAPHEXEC_DESTROYING = 3,
	SANITIZER_CBID_GRAPHS_NODE_LAUNCH_BEGIN = 4,
	SANITIZER_CBID_GRAPHS_NODE_LAUNCH_END = 5,
	SANITIZER_CBID_GRAPHS_LAUNCH_BEGIN = 6,
	SANITIZER_CBID_GRAPHS_LAUNCH_END = 7,
	SANITIZER_CBID_GRAPHS_FORCE_INT = 0x7fffffff
} Sanitizer_CallbackIdGraphs;

typedef enum {
	SANITIZER_CBID_EVENTS_INVALID = 0,
	SANITIZER_CBID_EVENTS_CREATED = 1,
	SANITIZER_CBID_EVENTS_DESTROYED = 2,
	SANITIZER_CBID_EVENTS_RECORD = 3,
	SANITIZER_CBID_EVENTS_STREAM_WAIT = 4,
	SANITIZER_CBID_EVENTS_SYNCHRONIZE = 5,
	SANITIZER_CBID_EVENTS_FORCE_INT = 0x7fffffff
} Sanitizer_CallbackIdEvents;

typedef enum {
	SANITIZER_MEMORY_FLAG_NONE = 0,
	SANITIZER_MEMORY_FLAG_MODULE = 0x1,
	SANITIZER_MEMORY_FLAG_MANAGED = 0x2,
	SANITIZER_MEMORY_FLAG_HOST_MAPPED = 0x4,
	SANITIZER_MEMORY_FLAG_HOST_PINNED = 0x8,
	SANITIZER_MEMORY_FLAG_PEER = 0x10,
	SANITIZER_MEMORY_FLAG_PEER_ATOMIC = 0x20,
	SANITIZER_MEMORY_FLAG_CG_RUNTIME = 0x40,
	SANITIZER_MEMORY_FLAG_CNP = 0x80,
	SANITIZER_MEMORY_FLAG_FORCE_INT = 0x7fffffff
} Sanitizer_ResourceMemoryFlags;

typedef enum {
	SANITIZER_MEMORY_VISIBILITY_INVALID = 0,
	SANITIZER_MEMORY_VISIBILITY_GLOBAL = 1,
	SANITIZER_MEMORY_VISIBILITY_HOST = 2,
	SANITIZER_MEMORY_VISIBILITY_STREAM = 3,
	SANITIZER_MEMORY_VISIBILITY_FORCE_INT = 0x7fffffff
} Sanitizer_MemoryVisibility;

typedef enum {
	SANITIZER_MEMCPY_DIRECTION_UNKNOWN = 0,
	SANITIZER_MEMCPY_DIRECTION_HOST_TO_HOST = 1,
	SANITIZER_MEMCPY_DIRECTION_HOST_TO_DEVICE = 2,
	SANITIZER_MEMCPY_DIRECTION_DEVICE_TO_HOST = 3,
	SANITIZER_MEMCPY_DIRECTION_DEVICE_TO_DEVICE = 4,
	SANITIZER_MEMCPY_DIRECTION_FORCE_INT = 0x7fffffff
} Sanitizer_MemcpyDirection;

typedef enum {
	SANITIZER_INSTRUCTION_INVALID = 0,
	SANITIZER_INSTRUCTION_BLOCK_ENTER = 1,
	SANITIZER_INSTRUCTION_BLOCK_EXIT = 2,
	SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS = 3,
	SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS = 4,
	SANITIZER_INSTRUCTION_LOCAL_MEMORY_ACCESS = 5,
	SANITIZER_INSTRUCTION_BARRIER = 6,
	SANITIZER_INSTRUCTION_SYNCWARP = 7,
	SANITIZER_INSTRUCTION_SHFL = 8,
	SANITIZER_INSTRUCTION_CALL = 9,
	SANITIZER_INSTRUCTION_RET = 10,
	SANITIZER_INSTRUCTION_DEVICE_SIDE_MALLOC = 11,
	SANITIZER_INSTRUCTION_DEVICE_SIDE_FREE = 12,
	SANITIZER_INSTRUCTION_CUDA_BARRIER = 13,
	SANITIZER_INSTRUCTION_MEMCPY_ASYNC = 14,
	SANITIZER_INSTRUCTION_BULK_COPY_GLOBAL_TO_SHARED = 30,
	SANITIZER_INSTRUCTION_BULK_COPY_SHARED_TO_GLOBAL = 35,
	SANITIZER_INSTRUCTION_BULK_REDUCTION_SHARED_TO_GLOBAL = 37,
	SANITIZER_INSTRUCTION_FORCE_INT = 0x7fffffff
} Sanitizer_InstructionId;

typedef void(SANITIZERAPI *Sanitizer_CallbackFunc)(void *userdata, Sanitizer_CallbackDomain domain,
						   Sanitizer_CallbackId cbid, const void *cbdata);

/* DRIVER_API and RUNTIME_API domains. */
typedef struct {
	Sanitizer_ApiCallbackSite callbackSite;
	const char *functionName;
	const void *functionParams;
	const void *functionReturnValue;
	const char *symbolName;
	CUcontext context;
} Sanitizer_CallbackData;

typedef struct {
	CUcontext context;
	CUdevice device;
} Sanitizer_ResourceContextData;

typedef struct {
	CUcontext context;
	CUstream stream;
	Sanitizer_StreamHandle hStream;
} Sanitizer_ResourceStreamData;

typedef struct {
	CUcontext context;
	CUmodule module;
	size_t cubinSize;
	const char *pCubin;
	CUlibrary library;
} Sanitizer_ResourceModuleData;

/* VIRTUAL_RESERVE and VIRTUAL_RELEASE: a reserved address range (logged only). */
typedef struct {
	uint64_t address;
	uint64_t size;
} Sanitizer_ResourceVirtualRange;

typedef struct {
	uint64_t address;
	uint64_t size;
	CUcontext context;
	CUdevice device;
	CUstream stream;
	Sanitizer_StreamHandle hStream;
	CUmemoryPool memoryPool;
	uint32_t flags;
	uint32_t permissions;
	Sanitizer_MemoryVisibility visibility;
	CUdevice sourceDevice;
} Sanitizer_ResourceMemoryData;

/* MEMPOOL_CREATED, _DESTROYING (peerDevice: the PEER_ACCESS ones only). */
typedef struct {
	CUmemoryPool memoryPool;
	CUdevice device;
	CUdevice peerDevice;
} Sanitizer_ResourceMempoolData;

/* ARRAY_CREATED, ARRAY_DESTROYED: a CUDA array (its element format is the driver's to say). */
typedef struct {
	CUcontext context;
	CUarray hArray;
	uint64_t width;
	uint64_t height;
	uint64_t depth;
} Sanitizer_ResourceArrayData;

typedef struct {
	CUcontext context;
	CUmodule module;
	const CUfunction *functions;
	uint32_t numFunctions;
} Sanitizer_ResourceFunctionsLazyLoadedData;

typedef struct {
	CUcontext context;
	CUstream stream;
	Sanitizer_StreamHandle hStream;
} Sanitizer_SynchronizeData;

typedef struct {
	CUcontext context;
	CUstream stream;
	Sanitizer_StreamHandle hStream;
	CUmodule module;
	CUfunction function;
	const char *functionName;
	uint32_t gridDim_x, gridDim_y, gridDim_z;
	uint32_t blockDim_x, blockDim_y, blockDim_z;
	uint32_t clusterDim_x, clusterDim_y, clusterDim_z;
	uint64_t gridId;
	Sanitizer_LaunchHandle hLaunch;
	CUdevice device;
	CUcontext apiContext;
	CUstream apiStream;
	Sanitizer_StreamHandle hApiStream;
} Sanitizer_LaunchData;

typedef struct {
	CUcontext srcContext;
	CUcontext dstContext;
	CUstream srcStream;
	Sanitizer_StreamHandle hSrcStream;
	CUstream dstStream;
	Sanitizer_StreamHandle hDstStream;
	uint64_t srcAddress;
	uint64_t dstAddress;
	uint64_t size;
	uint64_t width, height, depth;
	uint64_t srcPitch;
	uint64_t dstPitch;
	uint32_t isAsync;
	Sanitizer_MemcpyDirection direction;
	CUcontext apiContext;
	CUstream apiStream;
	Sanitizer_StreamHandle hApiStream;
} Sanitizer_MemcpyData;

typedef struct {
	CUcontext context;
	CUstream stream;
	Sanitizer_StreamHandle hStream;
	uint64_t address;
	uint64_t width;
	uint64_t height;
	uint64_t pitch;
	uint32_t elementSize;
	uint32_t value;
	uint32_t isAsync;
} Sanitizer_MemsetData;

typedef struct {
	CUgraph graph;
	CUgraphExec graphExec;
	uint32_t isDeviceLaunch;
	uint32_t containsDeviceGraphLaunches;
	CUcontext deviceGraphLaunchesContext;
} Sanitizer_GraphExecData;

typedef struct {
	CUgraphExec graphExec;
	uint32_t launchId;
	CUgraphNode node;
	CUgraphNodeType nodeType;
	union {
		Sanitizer_LaunchData launchData;
		Sanitizer_ResourceMemoryData memAllocData;
		uint64_t memFreeAddress;
		Sanitizer_MemcpyData memcpyData;
		Sanitizer_MemsetData memsetData;
	};
	uint32_t isGraphUpload;
} Sanitizer_GraphNodeLaunchData;

typedef struct {
	CUcontext context;
	CUstream stream;
	Sanitizer_StreamHandle hStream;
	CUgraphExec graphExec;
	uint32_t isGraphUpload;
} Sanitizer_GraphLaunchData;

typedef struct {
	CUevent event;
	CUcontext context;
	CUstream stream;
	Sanitizer_StreamHandle hStream;
} Sanitizer_EventData;

/* Functions (types only: the collector resolves them with dlsym). */
SanitizerResult SANITIZERAPI sanitizerGetResultString(SanitizerResult result, const char **str);
SanitizerResult SANITIZERAPI sanitizerSubscribe(Sanitizer_SubscriberHandle *subscriber,
						Sanitizer_CallbackFunc callback, void *userdata);
SanitizerResult SANITIZERAPI sanitizerUnsubscribe(Sanitizer_SubscriberHandle subscriber);
SanitizerResult SANITIZERAPI sanitizerEnableDomain(uint32_t enable,
						   Sanitizer_SubscriberHandle subscriber,
						   Sanitizer_CallbackDomain domain);
SanitizerResult SANITIZERAPI sanitizerEnableCallback(uint32_t enable,
						     Sanitizer_SubscriberHandle subscriber,
						     Sanitizer_CallbackDomain domain,
						     Sanitizer_CallbackId cbid);
SanitizerResult SANITIZERAPI sanitizerAlloc(CUcontext ctx, void **devPtr, size_t size);
SanitizerResult SANITIZERAPI sanitizerFree(CUcontext ctx, void *devPtr);
SanitizerResult SANITIZERAPI sanitizerAllocHost(CUcontext ctx, void **devPtr, size_t size);
SanitizerResult SANITIZERAPI sanitizerFreeHost(CUcontext ctx, void *devPtr);
SanitizerResult SANITIZERAPI sanitizerMemcpyHostToDeviceAsync(void *dst, void *src, size_t count,
							       Sanitizer_StreamHandle stream);
SanitizerResult SANITIZERAPI sanitizerMemcpyDeviceToHost(void *dst, void *src, size_t count,
							  Sanitizer_StreamHandle stream);
SanitizerResult SANITIZERAPI sanitizerMemset(void *devPtr, int value, size_t count,
					     Sanitizer_StreamHandle stream);
SanitizerResult SANITIZERAPI sanitizerStreamSynchronize(Sanitizer_StreamHandle stream);
SanitizerResult SANITIZERAPI sanitizerGetStream(Sanitizer_StreamHandle hStream, CUstream *stream);
SanitizerResult SANITIZERAPI sanitizerAddPatchesFromFile(const char *filename, CUcontext ctx);
SanitizerResult SANITIZERAPI sanitizerPatchInstructions(const Sanitizer_InstructionId instructionId,
							 CUmodule module,
							 const char *deviceCallbackName);
SanitizerResult SANITIZERAPI sanitizerPatchModule(CUmodule module);
SanitizerResult SANITIZERAPI sanitizerUnpatchModule(CUmodule module);
SanitizerResult SANITIZERAPI sanitizerSetLaunchCallbackData(Sanitizer_LaunchHandle launch,
							     CUfunction kernel,
							     Sanitizer_StreamHandle stream,
							     const void *userdata);
/* Every later launch of kernel gets userdata, where no launch's own is set. */
SanitizerResult SANITIZERAPI sanitizerSetCallbackData(CUfunction kernel, const void *userdata);

#endif /* GMP_HAVE_SANITIZER_HEADERS */

/* Offsets the collector relies on (checked against the toolkit by `make gpu-check`). */
#define GMP_SAN_LAUNCH_DATA_SIZE 136
#define GMP_SAN_MEMORY_DATA_SIZE 72
#define GMP_SAN_MEMCPY_DATA_SIZE 144
#define GMP_SAN_MEMSET_DATA_SIZE 72

#endif
