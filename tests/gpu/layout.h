/* SPDX-License-Identifier: MIT */
/*
 * Every size, offset and constant of the Sanitizer API the collector
 * relies on.  layout.c prints them; built once against gmprof's own
 * declarations and once against the toolkit's headers, the two outputs
 * must be identical (make gpu-check).
 */
#define GMP_LAYOUT_STRUCTS(S, F)                                                  \
	S(Sanitizer_CallbackData) F(Sanitizer_CallbackData, callbackSite)         \
	F(Sanitizer_CallbackData, functionName) F(Sanitizer_CallbackData, context) \
	S(Sanitizer_ResourceContextData) F(Sanitizer_ResourceContextData, context)  \
	F(Sanitizer_ResourceContextData, device)                                   \
	S(Sanitizer_ResourceStreamData) F(Sanitizer_ResourceStreamData, context)    \
	F(Sanitizer_ResourceStreamData, stream) F(Sanitizer_ResourceStreamData, hStream) \
	S(Sanitizer_ResourceModuleData) F(Sanitizer_ResourceModuleData, context)    \
	F(Sanitizer_ResourceModuleData, module)                                    \
	S(Sanitizer_ResourceMemoryData) F(Sanitizer_ResourceMemoryData, address)    \
	F(Sanitizer_ResourceMemoryData, size) F(Sanitizer_ResourceMemoryData, context) \
	F(Sanitizer_ResourceMemoryData, device) F(Sanitizer_ResourceMemoryData, stream) \
	F(Sanitizer_ResourceMemoryData, hStream) F(Sanitizer_ResourceMemoryData, memoryPool) \
	F(Sanitizer_ResourceMemoryData, flags)                                     \
	S(Sanitizer_ResourceMempoolData) F(Sanitizer_ResourceMempoolData, memoryPool) \
	F(Sanitizer_ResourceMempoolData, device)                                   \
	S(Sanitizer_ResourceArrayData) F(Sanitizer_ResourceArrayData, context)      \
	F(Sanitizer_ResourceArrayData, hArray) F(Sanitizer_ResourceArrayData, width) \
	F(Sanitizer_ResourceArrayData, height) F(Sanitizer_ResourceArrayData, depth) \
	S(Sanitizer_ResourceFunctionsLazyLoadedData)                              \
	F(Sanitizer_ResourceFunctionsLazyLoadedData, context)                      \
	F(Sanitizer_ResourceFunctionsLazyLoadedData, module)                       \
	S(Sanitizer_SynchronizeData) F(Sanitizer_SynchronizeData, context)          \
	F(Sanitizer_SynchronizeData, stream) F(Sanitizer_SynchronizeData, hStream)  \
	S(Sanitizer_LaunchData) F(Sanitizer_LaunchData, context) F(Sanitizer_LaunchData, stream) \
	F(Sanitizer_LaunchData, hStream) F(Sanitizer_LaunchData, module)            \
	F(Sanitizer_LaunchData, function) F(Sanitizer_LaunchData, functionName)     \
	F(Sanitizer_LaunchData, gridId) F(Sanitizer_LaunchData, hLaunch)            \
	F(Sanitizer_LaunchData, device) F(Sanitizer_LaunchData, apiStream)          \
	S(Sanitizer_MemcpyData) F(Sanitizer_MemcpyData, srcContext)                 \
	F(Sanitizer_MemcpyData, dstContext) F(Sanitizer_MemcpyData, srcStream)      \
	F(Sanitizer_MemcpyData, dstStream) F(Sanitizer_MemcpyData, srcAddress)      \
	F(Sanitizer_MemcpyData, dstAddress) F(Sanitizer_MemcpyData, size)           \
	F(Sanitizer_MemcpyData, isAsync) F(Sanitizer_MemcpyData, direction)         \
	F(Sanitizer_MemcpyData, apiStream)                                         \
	S(Sanitizer_MemsetData) F(Sanitizer_MemsetData, context) F(Sanitizer_MemsetData, stream) \
	F(Sanitizer_MemsetData, address) F(Sanitizer_MemsetData, width)             \
	F(Sanitizer_MemsetData, height) F(Sanitizer_MemsetData, elementSize)        \
	F(Sanitizer_MemsetData, value) F(Sanitizer_MemsetData, isAsync)             \
	S(Sanitizer_EventData) F(Sanitizer_EventData, event) F(Sanitizer_EventData, context) \
	F(Sanitizer_EventData, stream) F(Sanitizer_EventData, hStream)              \
	S(Sanitizer_GraphNodeLaunchData) F(Sanitizer_GraphNodeLaunchData, nodeType) \
	F(Sanitizer_GraphNodeLaunchData, launchData)                               \
	F(Sanitizer_GraphNodeLaunchData, memAllocData)                             \
	F(Sanitizer_GraphNodeLaunchData, memFreeAddress)                           \
	F(Sanitizer_GraphNodeLaunchData, memcpyData)                               \
	F(Sanitizer_GraphNodeLaunchData, memsetData)                               \
	F(Sanitizer_GraphNodeLaunchData, isGraphUpload)                            \
	S(Sanitizer_GraphLaunchData) F(Sanitizer_GraphLaunchData, stream)           \
	F(Sanitizer_GraphLaunchData, isGraphUpload)

#define GMP_LAYOUT_CONSTANTS(C)                                                   \
	C(SANITIZER_SUCCESS) C(SANITIZER_ERROR_OUT_OF_MEMORY) C(SANITIZER_ERROR_MAX_LIMIT_REACHED) \
	C(SANITIZER_ERROR_NOT_INITIALIZED) C(SANITIZER_CB_DOMAIN_DRIVER_API)          \
	C(SANITIZER_CB_DOMAIN_RUNTIME_API) C(SANITIZER_CB_DOMAIN_RESOURCE)            \
	C(SANITIZER_CB_DOMAIN_SYNCHRONIZE) C(SANITIZER_CB_DOMAIN_LAUNCH)             \
	C(SANITIZER_CB_DOMAIN_MEMCPY) C(SANITIZER_CB_DOMAIN_MEMSET) C(SANITIZER_CB_DOMAIN_GRAPHS) \
	C(SANITIZER_CB_DOMAIN_EVENTS) C(SANITIZER_API_ENTER) C(SANITIZER_API_EXIT)    \
	C(SANITIZER_CBID_RESOURCE_CONTEXT_CREATION_FINISHED)                         \
	C(SANITIZER_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)                          \
	C(SANITIZER_CBID_RESOURCE_STREAM_CREATED) C(SANITIZER_CBID_RESOURCE_MODULE_LOADED) \
	C(SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC) C(SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE) \
	C(SANITIZER_CBID_RESOURCE_MEMORY_ALLOC_ASYNC) C(SANITIZER_CBID_RESOURCE_MEMORY_FREE_ASYNC) \
	C(SANITIZER_CBID_RESOURCE_FUNCTIONS_LAZY_LOADED)                             \
	C(SANITIZER_CBID_RESOURCE_MEMPOOL_DESTROYING)                                \
	C(SANITIZER_CBID_RESOURCE_ARRAY_CREATED) C(SANITIZER_CBID_RESOURCE_ARRAY_DESTROYED) \
	C(SANITIZER_CBID_SYNCHRONIZE_STREAM_SYNCHRONIZED)                            \
	C(SANITIZER_CBID_SYNCHRONIZE_CONTEXT_SYNCHRONIZED)                           \
	C(SANITIZER_CBID_LAUNCH_BEGIN) C(SANITIZER_CBID_LAUNCH_END)                  \
	C(SANITIZER_CBID_MEMCPY_STARTING) C(SANITIZER_CBID_MEMSET_STARTING)          \
	C(SANITIZER_CBID_GRAPHS_NODE_LAUNCH_BEGIN) C(SANITIZER_CBID_GRAPHS_NODE_LAUNCH_END) \
	C(SANITIZER_CBID_GRAPHS_LAUNCH_BEGIN) C(SANITIZER_CBID_GRAPHS_LAUNCH_END)    \
	C(SANITIZER_CBID_EVENTS_RECORD) C(SANITIZER_CBID_EVENTS_STREAM_WAIT)         \
	C(SANITIZER_CBID_EVENTS_SYNCHRONIZE) C(SANITIZER_MEMORY_FLAG_MODULE)          \
	C(SANITIZER_MEMORY_FLAG_MANAGED) C(SANITIZER_MEMORY_FLAG_HOST_PINNED)        \
	C(SANITIZER_MEMORY_FLAG_CG_RUNTIME) C(SANITIZER_MEMORY_FLAG_CNP)             \
	C(SANITIZER_MEMORY_FLAG_PEER)                                                \
	C(SANITIZER_MEMCPY_DIRECTION_HOST_TO_HOST)                                   \
	C(SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS) C(SANITIZER_INSTRUCTION_DEVICE_SIDE_MALLOC) \
	C(SANITIZER_INSTRUCTION_DEVICE_SIDE_FREE) C(SANITIZER_INSTRUCTION_MEMCPY_ASYNC) \
	C(SANITIZER_INSTRUCTION_BULK_COPY_GLOBAL_TO_SHARED) C(SANITIZER_INSTRUCTION_BULK_COPY_SHARED_TO_GLOBAL) \
	C(SANITIZER_INSTRUCTION_BULK_REDUCTION_SHARED_TO_GLOBAL)
