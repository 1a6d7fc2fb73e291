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
	assert_int_equal(GMP_ALLOC_OUT_OF_MEMORY, cudaErrorMemoryAllocation);
	assert_int_equal(GMP_ALLOC_OUT_OF_MEMORY, CUDA_ERROR_OUT_OF_MEMORY);
	/* What the collector asks of a stream-ordered pool (collector/pools.c). */
	assert_int_equal(GMP_POOL_ATTR_RELEASE_THRESHOLD, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD);
	assert_int_equal(GMP_POOL_ATTR_RESERVED_MEM_CURRENT, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT);
	assert_int_equal(GMP_POOL_ATTR_RESERVED_MEM_HIGH, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH);
	assert_int_equal(GMP_POOL_ATTR_USED_MEM_CURRENT, CU_MEMPOOL_ATTR_USED_MEM_CURRENT);
	assert_int_equal(GMP_POOL_ATTR_USED_MEM_HIGH, CU_MEMPOOL_ATTR_USED_MEM_HIGH);
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
		cmocka_unit_test(layouts_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
