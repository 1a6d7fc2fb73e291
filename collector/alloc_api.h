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

#include <stdint.h>

#define GMP_ALLOC_OUT_OF_MEMORY 2 /* the same code in the runtime and the driver API */

struct gmp_alloc_api {
	const char *name;     /* the call, without version (_v2) or per-thread (_ptsz) suffixes */
	uint8_t kind;         /* enum gmp_mem_kind */
	uint8_t nfactors;     /* the size is the product of the size_t values at off[0..n) */
	uint8_t off[3];
	uint8_t stream_off;   /* where the stream is, 0 for none (offset 0 is the result pointer) */
};

/* The allocation call functionName names (any suffixes), or NULL. */
const struct gmp_alloc_api *gmp_alloc_api__find(const char *function_name);
/* The bytes the call asked for, read from its parameters (0 when they overflow). */
uint64_t gmp_alloc_api__size(const struct gmp_alloc_api *a, const void *params);
/* Every entry, for the layout test: *n gets the count. */
const struct gmp_alloc_api *gmp_alloc_api__all(unsigned *n);

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

#endif
