/* SPDX-License-Identifier: MIT */
/*
 * The part of NVTX's tool interface the collector implements, declared by
 * gmprof from NVTX's documented ABI (version 3, memory extension 1.2):
 * what the loader passes to an injection library and the layouts of the
 * memory-annotation descriptors.  tests/unit/test_nvtx_abi.c checks every
 * size and offset here against the toolkit's nvtx3 headers.
 *
 * How a program's NVTX calls reach the collector: the first call of a
 * module loads the library named by NVTX_INJECTION64_PATH (gmprof run sets
 * it to the collector) and calls its InitializeInjectionNvtx2 (the core
 * module) or InitializeInjectionNvtxExtension (extensions such as the
 * memory one).  An extension's initializer gets the module's function
 * slots and stores the address of each function it implements at the
 * slot's callback id; slots left empty become no-ops.
 */
#ifndef GMPROF_NVTX_ABI_H
#define GMPROF_NVTX_ABI_H

#include <stddef.h>
#include <stdint.h>

struct gmp_nvtx_segment {
	size_t id;
	size_t nslots;
	intptr_t *slots;              /* indexed by callback id */
};

struct gmp_nvtx_module {
	uint16_t nvtx_version;
	uint16_t struct_size;
	uint16_t module_id;           /* GMP_NVTX_MODULE_MEM */
	uint16_t compat_id;           /* GMP_NVTX_COMPAT_MEM */
	size_t nsegments;
	struct gmp_nvtx_segment *segments;
	void *get_export;
	const void *ext_info;
};

#define GMP_NVTX_MODULE_MEM 1
#define GMP_NVTX_COMPAT_MEM 0x0102

/* Callback ids (slot indices) of the memory extension. */
enum {
	GMP_NVTX_CB_HEAP_REGISTER = 0,
	GMP_NVTX_CB_HEAP_UNREGISTER = 1,
	GMP_NVTX_CB_HEAP_RESET = 2,
	GMP_NVTX_CB_REGIONS_REGISTER = 3,
	GMP_NVTX_CB_REGIONS_RESIZE = 4,
	GMP_NVTX_CB_REGIONS_UNREGISTER = 5,
	GMP_NVTX_CB_REGIONS_NAME = 6,
	GMP_NVTX_CB_MEM_COUNT = 7         /* the ones gmprof fills */
};

#define GMP_NVTX_MEM_TYPE_VIRTUAL_ADDRESS 1
#define GMP_NVTX_REF_POINTER 1
#define GMP_NVTX_REF_HANDLE 2
/* How a name is given (NVTX's message types). */
#define GMP_NVTX_MESSAGE_ASCII 1
#define GMP_NVTX_MESSAGE_UNICODE 2     /* wchar_t */
#define GMP_NVTX_MESSAGE_REGISTERED 3  /* a string handle of the core module's */

/* A range of virtual addresses (a heap's, a region's). */
struct gmp_nvtx_range {
	size_t size;
	const void *ptr;
};

struct gmp_nvtx_heap_desc {
	uint16_t compat_id;
	uint16_t struct_size;
	uint32_t reserved0;
	uint32_t usage;               /* sub-allocator, layout */
	uint32_t type;                /* GMP_NVTX_MEM_TYPE_* */
	size_t type_desc_size;
	const void *type_desc;        /* struct gmp_nvtx_range for virtual addresses */
	uint32_t category;
	uint32_t message_type;        /* GMP_NVTX_MESSAGE_*: the heap's name */
	const void *message;          /* const char *, const wchar_t * or a string handle */
};

struct gmp_nvtx_regions_register {
	uint16_t compat_id;
	uint16_t struct_size;
	uint32_t region_type;         /* GMP_NVTX_MEM_TYPE_* */
	void *heap;                   /* a heap handle; NULL: the process-wide heap */
	size_t count;
	size_t elem_size;             /* stride of descs */
	const void *descs;            /* struct gmp_nvtx_range, elem_size apart */
	void **handles_out;           /* optional: a handle per region */
};

struct gmp_nvtx_regions_resize {
	uint16_t compat_id;
	uint16_t struct_size;
	uint32_t region_type;
	size_t count;
	size_t elem_size;
	const void *descs;            /* struct gmp_nvtx_range: start and new size */
};

struct gmp_nvtx_regions_unregister {
	uint16_t compat_id;
	uint16_t struct_size;
	uint32_t ref_type;            /* GMP_NVTX_REF_* */
	size_t count;
	size_t elem_size;
	const void *refs;             /* a pointer or a handle each, elem_size apart */
};

struct gmp_nvtx_region_name {
	uint32_t ref_type;            /* GMP_NVTX_REF_* */
	uint32_t name_type;           /* GMP_NVTX_MESSAGE_* */
	const void *ref;              /* the region: a pointer or a handle */
	const void *name;             /* const char *, const wchar_t * or a string handle */
	uint32_t category;
	uint32_t reserved0;
};

/*
 * The core modules (ranges): the core initializer gets NVTX's export-table
 * getter; the callbacks table's function returns a module's table of
 * pointers to its function slots, indexed by callback id.
 */
#define GMP_NVTX_ETID_CALLBACKS 1
#define GMP_NVTX_CB_MODULE_CORE 1
#define GMP_NVTX_CB_MODULE_CUDA 2      /* names of the driver's objects */
#define GMP_NVTX_CB_MODULE_CUDART 4    /* names of the runtime's objects */
#define GMP_NVTX_CB_MODULE_CORE2 5     /* the domain functions */
enum {
	GMP_NVTX_CBID_CORE_MARK_EX = 1,
	GMP_NVTX_CBID_CORE_MARK_A = 2,
	GMP_NVTX_CBID_CORE_MARK_W = 3,
	GMP_NVTX_CBID_CORE_RANGE_START_EX = 4,
	GMP_NVTX_CBID_CORE_RANGE_START_A = 5,
	GMP_NVTX_CBID_CORE_RANGE_START_W = 6,
	GMP_NVTX_CBID_CORE_RANGE_END = 7,
	GMP_NVTX_CBID_CORE_RANGE_PUSH_EX = 8,
	GMP_NVTX_CBID_CORE_RANGE_PUSH_A = 9,
	GMP_NVTX_CBID_CORE_RANGE_PUSH_W = 10,
	GMP_NVTX_CBID_CORE_RANGE_POP = 11,
	GMP_NVTX_CBID_CORE_NAME_OS_THREAD_A = 14,
	GMP_NVTX_CBID_CORE_NAME_OS_THREAD_W = 15,
	GMP_NVTX_CBID_CORE2_DOMAIN_MARK_EX = 1,
	GMP_NVTX_CBID_CORE2_DOMAIN_RANGE_START_EX = 2,
	GMP_NVTX_CBID_CORE2_DOMAIN_RANGE_END = 3,
	GMP_NVTX_CBID_CORE2_DOMAIN_RANGE_PUSH_EX = 4,
	GMP_NVTX_CBID_CORE2_DOMAIN_RANGE_POP = 5,
	GMP_NVTX_CBID_CORE2_DOMAIN_REGISTER_STRING_A = 10,
	GMP_NVTX_CBID_CORE2_DOMAIN_REGISTER_STRING_W = 11,
	GMP_NVTX_CBID_CORE2_DOMAIN_CREATE_A = 12,
	GMP_NVTX_CBID_CORE2_DOMAIN_CREATE_W = 13,
	GMP_NVTX_CBID_CORE2_DOMAIN_DESTROY = 14,
	GMP_NVTX_CBID_CUDA_NAME_STREAM_A = 5,     /* nvtxNameCuStreamA */
	GMP_NVTX_CBID_CUDA_NAME_STREAM_W = 6,
	GMP_NVTX_CBID_CUDART_NAME_STREAM_A = 3,   /* nvtxNameCudaStreamA */
	GMP_NVTX_CBID_CUDART_NAME_STREAM_W = 4,
};

typedef void (*gmp_nvtx_fn)(void);
typedef const void *(*gmp_nvtx_get_export_table)(uint32_t id);

struct gmp_nvtx_callbacks_table {
	size_t struct_size;
	int (*get_module_function_table)(int module, gmp_nvtx_fn ***table, unsigned int *size);
};

/* An event's attributes (nvtxRangePushEx): what gmprof reads is the message. */
struct gmp_nvtx_event_attr {
	uint16_t version;
	uint16_t size;
	uint32_t category;
	int32_t color_type;
	uint32_t color;
	int32_t payload_type;
	int32_t reserved0;
	uint64_t payload;
	int32_t message_type;         /* GMP_NVTX_MESSAGE_* */
	const void *message;
};

struct gmp_nvtx_regions_name {
	uint16_t compat_id;
	uint16_t struct_size;
	uint32_t reserved0;
	size_t count;
	size_t elem_size;             /* stride of elems */
	const struct gmp_nvtx_region_name *elems;
	size_t reserved1;
};

#endif
