// SPDX-License-Identifier: MIT
/*
 * collector/nvtx_abi.h against the toolkit's nvtx3 headers: every size,
 * offset, callback id and constant the collector relies on must agree.
 * Without the headers (no CUDA toolkit) the test says so and skips.
 */
#include <stddef.h>
#include <stdint.h>

#include "nvtx_abi.h"
#include "support.h"

#if __has_include(<nvtx3/nvToolsExtMem.h>)
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtMem.h>
/* The loader's module types: included the way the extension headers do. */
#define NVTX_EXT_TYPES_GUARD
#include <nvtx3/nvtxDetail/nvtxExtTypes.h>
#undef NVTX_EXT_TYPES_GUARD

#define SAME_FIELD(ours, f, theirs, g)                                              \
	do {                                                                        \
		assert_int_equal(offsetof(ours, f), offsetof(theirs, g));           \
		assert_int_equal(sizeof(((ours *)0)->f), sizeof(((theirs *)0)->g)); \
	} while (0)

static void layouts_agree(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct gmp_nvtx_segment), sizeof(nvtxExtModuleSegment_t));
	SAME_FIELD(struct gmp_nvtx_segment, id, nvtxExtModuleSegment_t, segmentId);
	SAME_FIELD(struct gmp_nvtx_segment, nslots, nvtxExtModuleSegment_t, slotCount);
	SAME_FIELD(struct gmp_nvtx_segment, slots, nvtxExtModuleSegment_t, functionSlots);

	assert_int_equal(sizeof(struct gmp_nvtx_module), sizeof(nvtxExtModuleInfo_t));
	SAME_FIELD(struct gmp_nvtx_module, nvtx_version, nvtxExtModuleInfo_t, nvtxVer);
	SAME_FIELD(struct gmp_nvtx_module, struct_size, nvtxExtModuleInfo_t, structSize);
	SAME_FIELD(struct gmp_nvtx_module, module_id, nvtxExtModuleInfo_t, moduleId);
	SAME_FIELD(struct gmp_nvtx_module, compat_id, nvtxExtModuleInfo_t, compatId);
	SAME_FIELD(struct gmp_nvtx_module, nsegments, nvtxExtModuleInfo_t, segmentsCount);
	SAME_FIELD(struct gmp_nvtx_module, segments, nvtxExtModuleInfo_t, segments);
	SAME_FIELD(struct gmp_nvtx_module, get_export, nvtxExtModuleInfo_t, getExportFunction);
	SAME_FIELD(struct gmp_nvtx_module, ext_info, nvtxExtModuleInfo_t, extInfo);

	assert_int_equal(sizeof(struct gmp_nvtx_range), sizeof(nvtxMemVirtualRangeDesc_t));
	SAME_FIELD(struct gmp_nvtx_range, size, nvtxMemVirtualRangeDesc_t, size);
	SAME_FIELD(struct gmp_nvtx_range, ptr, nvtxMemVirtualRangeDesc_t, ptr);

	SAME_FIELD(struct gmp_nvtx_heap_desc, compat_id, nvtxMemHeapDesc_t, extCompatID);
	SAME_FIELD(struct gmp_nvtx_heap_desc, struct_size, nvtxMemHeapDesc_t, structSize);
	SAME_FIELD(struct gmp_nvtx_heap_desc, usage, nvtxMemHeapDesc_t, usage);
	SAME_FIELD(struct gmp_nvtx_heap_desc, type, nvtxMemHeapDesc_t, type);
	SAME_FIELD(struct gmp_nvtx_heap_desc, type_desc_size, nvtxMemHeapDesc_t, typeSpecificDescSize);
	SAME_FIELD(struct gmp_nvtx_heap_desc, type_desc, nvtxMemHeapDesc_t, typeSpecificDesc);
	SAME_FIELD(struct gmp_nvtx_heap_desc, category, nvtxMemHeapDesc_t, category);
	SAME_FIELD(struct gmp_nvtx_heap_desc, message_type, nvtxMemHeapDesc_t, messageType);
	SAME_FIELD(struct gmp_nvtx_heap_desc, message, nvtxMemHeapDesc_t, message);
	assert_int_equal(sizeof(struct gmp_nvtx_heap_desc), sizeof(nvtxMemHeapDesc_t));

	assert_int_equal(sizeof(struct gmp_nvtx_regions_register), sizeof(nvtxMemRegionsRegisterBatch_t));
	SAME_FIELD(struct gmp_nvtx_regions_register, compat_id, nvtxMemRegionsRegisterBatch_t, extCompatID);
	SAME_FIELD(struct gmp_nvtx_regions_register, struct_size, nvtxMemRegionsRegisterBatch_t, structSize);
	SAME_FIELD(struct gmp_nvtx_regions_register, region_type, nvtxMemRegionsRegisterBatch_t, regionType);
	SAME_FIELD(struct gmp_nvtx_regions_register, heap, nvtxMemRegionsRegisterBatch_t, heap);
	SAME_FIELD(struct gmp_nvtx_regions_register, count, nvtxMemRegionsRegisterBatch_t, regionCount);
	SAME_FIELD(struct gmp_nvtx_regions_register, elem_size, nvtxMemRegionsRegisterBatch_t, regionDescElementSize);
	SAME_FIELD(struct gmp_nvtx_regions_register, descs, nvtxMemRegionsRegisterBatch_t, regionDescElements);
	SAME_FIELD(struct gmp_nvtx_regions_register, handles_out, nvtxMemRegionsRegisterBatch_t,
		   regionHandleElementsOut);

	assert_int_equal(sizeof(struct gmp_nvtx_regions_resize), sizeof(nvtxMemRegionsResizeBatch_t));
	SAME_FIELD(struct gmp_nvtx_regions_resize, region_type, nvtxMemRegionsResizeBatch_t, regionType);
	SAME_FIELD(struct gmp_nvtx_regions_resize, count, nvtxMemRegionsResizeBatch_t, regionDescCount);
	SAME_FIELD(struct gmp_nvtx_regions_resize, elem_size, nvtxMemRegionsResizeBatch_t, regionDescElementSize);
	SAME_FIELD(struct gmp_nvtx_regions_resize, descs, nvtxMemRegionsResizeBatch_t, regionDescElements);

	assert_int_equal(sizeof(struct gmp_nvtx_regions_unregister), sizeof(nvtxMemRegionsUnregisterBatch_t));
	SAME_FIELD(struct gmp_nvtx_regions_unregister, ref_type, nvtxMemRegionsUnregisterBatch_t, refType);
	SAME_FIELD(struct gmp_nvtx_regions_unregister, count, nvtxMemRegionsUnregisterBatch_t, refCount);
	SAME_FIELD(struct gmp_nvtx_regions_unregister, elem_size, nvtxMemRegionsUnregisterBatch_t, refElementSize);
	SAME_FIELD(struct gmp_nvtx_regions_unregister, refs, nvtxMemRegionsUnregisterBatch_t, refElements);
	assert_int_equal(sizeof(void *), sizeof(nvtxMemRegionRef_t));

	assert_int_equal(sizeof(struct gmp_nvtx_region_name), sizeof(nvtxMemRegionNameDesc_t));
	SAME_FIELD(struct gmp_nvtx_region_name, ref_type, nvtxMemRegionNameDesc_t, regionRefType);
	SAME_FIELD(struct gmp_nvtx_region_name, name_type, nvtxMemRegionNameDesc_t, nameType);
	SAME_FIELD(struct gmp_nvtx_region_name, ref, nvtxMemRegionNameDesc_t, region);
	SAME_FIELD(struct gmp_nvtx_region_name, name, nvtxMemRegionNameDesc_t, name);
	SAME_FIELD(struct gmp_nvtx_region_name, category, nvtxMemRegionNameDesc_t, category);
	assert_int_equal(sizeof(struct gmp_nvtx_regions_name), sizeof(nvtxMemRegionsNameBatch_t));
	SAME_FIELD(struct gmp_nvtx_regions_name, compat_id, nvtxMemRegionsNameBatch_t, extCompatID);
	SAME_FIELD(struct gmp_nvtx_regions_name, struct_size, nvtxMemRegionsNameBatch_t, structSize);
	SAME_FIELD(struct gmp_nvtx_regions_name, count, nvtxMemRegionsNameBatch_t, regionCount);
	SAME_FIELD(struct gmp_nvtx_regions_name, elem_size, nvtxMemRegionsNameBatch_t, regionElementSize);
	SAME_FIELD(struct gmp_nvtx_regions_name, elems, nvtxMemRegionsNameBatch_t, regionElements);

	assert_int_equal(sizeof(struct gmp_nvtx_callbacks_table), sizeof(NvtxExportTableCallbacks));
	SAME_FIELD(struct gmp_nvtx_callbacks_table, struct_size, NvtxExportTableCallbacks, struct_size);
	SAME_FIELD(struct gmp_nvtx_callbacks_table, get_module_function_table, NvtxExportTableCallbacks,
		   GetModuleFunctionTable);
	assert_int_equal(sizeof(struct gmp_nvtx_event_attr), sizeof(nvtxEventAttributes_t));
	SAME_FIELD(struct gmp_nvtx_event_attr, size, nvtxEventAttributes_t, size);
	SAME_FIELD(struct gmp_nvtx_event_attr, payload, nvtxEventAttributes_t, payload);
	SAME_FIELD(struct gmp_nvtx_event_attr, message_type, nvtxEventAttributes_t, messageType);
	SAME_FIELD(struct gmp_nvtx_event_attr, message, nvtxEventAttributes_t, message);
}

static void constants_agree(void **state)
{
	(void)state;
	assert_int_equal(GMP_NVTX_MODULE_MEM, NVTX_EXT_MODULEID_MEM);
	assert_int_equal(GMP_NVTX_COMPAT_MEM, NVTX_EXT_COMPATID_MEM);
	assert_int_equal(GMP_NVTX_CB_HEAP_REGISTER, NVTX3EXT_CBID_nvtxMemHeapRegister);
	assert_int_equal(GMP_NVTX_CB_HEAP_UNREGISTER, NVTX3EXT_CBID_nvtxMemHeapUnregister);
	assert_int_equal(GMP_NVTX_CB_HEAP_RESET, NVTX3EXT_CBID_nvtxMemHeapReset);
	assert_int_equal(GMP_NVTX_CB_REGIONS_REGISTER, NVTX3EXT_CBID_nvtxMemRegionsRegister);
	assert_int_equal(GMP_NVTX_CB_REGIONS_RESIZE, NVTX3EXT_CBID_nvtxMemRegionsResize);
	assert_int_equal(GMP_NVTX_CB_REGIONS_UNREGISTER, NVTX3EXT_CBID_nvtxMemRegionsUnregister);
	assert_int_equal(GMP_NVTX_CB_REGIONS_NAME, NVTX3EXT_CBID_nvtxMemRegionsName);
	assert_int_equal(GMP_NVTX_MESSAGE_ASCII, NVTX_MESSAGE_TYPE_ASCII);
	assert_int_equal(GMP_NVTX_MESSAGE_UNICODE, NVTX_MESSAGE_TYPE_UNICODE);
	assert_int_equal(GMP_NVTX_MESSAGE_REGISTERED, NVTX_MESSAGE_TYPE_REGISTERED);
	assert_int_equal(GMP_NVTX_MEM_TYPE_VIRTUAL_ADDRESS, NVTX_MEM_TYPE_VIRTUAL_ADDRESS);
	assert_int_equal(GMP_NVTX_REF_POINTER, NVTX_MEM_REGION_REF_TYPE_POINTER);
	assert_int_equal(GMP_NVTX_REF_HANDLE, NVTX_MEM_REGION_REF_TYPE_HANDLE);
	assert_int_equal(GMP_NVTX_ETID_CALLBACKS, NVTX_ETID_CALLBACKS);
	assert_int_equal(GMP_NVTX_CB_MODULE_CORE, NVTX_CB_MODULE_CORE);
	assert_int_equal(GMP_NVTX_CB_MODULE_CORE2, NVTX_CB_MODULE_CORE2);
	assert_int_equal(GMP_NVTX_CBID_CORE_MARK_EX, NVTX_CBID_CORE_MarkEx);
	assert_int_equal(GMP_NVTX_CBID_CORE_MARK_A, NVTX_CBID_CORE_MarkA);
	assert_int_equal(GMP_NVTX_CBID_CORE_MARK_W, NVTX_CBID_CORE_MarkW);
	assert_int_equal(GMP_NVTX_CBID_CORE2_DOMAIN_MARK_EX, NVTX_CBID_CORE2_DomainMarkEx);
	assert_int_equal(GMP_NVTX_CBID_CORE_RANGE_START_EX, NVTX_CBID_CORE_RangeStartEx);
	assert_int_equal(GMP_NVTX_CBID_CORE_RANGE_START_A, NVTX_CBID_CORE_RangeStartA);
	assert_int_equal(GMP_NVTX_CBID_CORE_RANGE_START_W, NVTX_CBID_CORE_RangeStartW);
	assert_int_equal(GMP_NVTX_CBID_CORE_RANGE_END, NVTX_CBID_CORE_RangeEnd);
	assert_int_equal(GMP_NVTX_CBID_CORE_RANGE_PUSH_EX, NVTX_CBID_CORE_RangePushEx);
	assert_int_equal(GMP_NVTX_CBID_CORE_RANGE_PUSH_A, NVTX_CBID_CORE_RangePushA);
	assert_int_equal(GMP_NVTX_CBID_CORE_RANGE_PUSH_W, NVTX_CBID_CORE_RangePushW);
	assert_int_equal(GMP_NVTX_CBID_CORE_RANGE_POP, NVTX_CBID_CORE_RangePop);
	assert_int_equal(GMP_NVTX_CBID_CORE_NAME_OS_THREAD_A, NVTX_CBID_CORE_NameOsThreadA);
	assert_int_equal(GMP_NVTX_CBID_CORE_NAME_OS_THREAD_W, NVTX_CBID_CORE_NameOsThreadW);
	assert_int_equal(GMP_NVTX_CBID_CORE2_DOMAIN_RANGE_START_EX, NVTX_CBID_CORE2_DomainRangeStartEx);
	assert_int_equal(GMP_NVTX_CBID_CORE2_DOMAIN_RANGE_END, NVTX_CBID_CORE2_DomainRangeEnd);
	assert_int_equal(GMP_NVTX_CBID_CORE2_DOMAIN_RANGE_PUSH_EX, NVTX_CBID_CORE2_DomainRangePushEx);
	assert_int_equal(GMP_NVTX_CBID_CORE2_DOMAIN_RANGE_POP, NVTX_CBID_CORE2_DomainRangePop);
	assert_int_equal(GMP_NVTX_CBID_CORE2_DOMAIN_REGISTER_STRING_A, NVTX_CBID_CORE2_DomainRegisterStringA);
	assert_int_equal(GMP_NVTX_CBID_CORE2_DOMAIN_REGISTER_STRING_W, NVTX_CBID_CORE2_DomainRegisterStringW);
	assert_int_equal(GMP_NVTX_CBID_CORE2_DOMAIN_CREATE_A, NVTX_CBID_CORE2_DomainCreateA);
	assert_int_equal(GMP_NVTX_CBID_CORE2_DOMAIN_CREATE_W, NVTX_CBID_CORE2_DomainCreateW);
	assert_int_equal(GMP_NVTX_CBID_CORE2_DOMAIN_DESTROY, NVTX_CBID_CORE2_DomainDestroy);
	assert_int_equal(GMP_NVTX_CB_MODULE_CUDA, NVTX_CB_MODULE_CUDA);
	assert_int_equal(GMP_NVTX_CB_MODULE_CUDART, NVTX_CB_MODULE_CUDART);
	assert_int_equal(GMP_NVTX_CBID_CUDA_NAME_STREAM_A, NVTX_CBID_CUDA_NameCuStreamA);
	assert_int_equal(GMP_NVTX_CBID_CUDA_NAME_STREAM_W, NVTX_CBID_CUDA_NameCuStreamW);
	assert_int_equal(GMP_NVTX_CBID_CUDART_NAME_STREAM_A, NVTX_CBID_CUDART_NameCudaStreamA);
	assert_int_equal(GMP_NVTX_CBID_CUDART_NAME_STREAM_W, NVTX_CBID_CUDART_NameCudaStreamW);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(layouts_agree),
		cmocka_unit_test(constants_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
static void no_headers(void **state)
{
	(void)state;
	print_message("the CUDA toolkit's nvtx3 headers are not here; the NVTX layout check is skipped\n");
	skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(no_headers) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
