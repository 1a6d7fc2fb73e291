// SPDX-License-Identifier: MIT
/*
 * A caching allocator that announces its pieces with the NVTX memory API:
 * one 4 MiB block from cudaMalloc registered as an NVTX heap named "block", three
 * tensors handed out of it as regions and named.  gmprof sees each region
 * as an object of its own (kind pool_region), named as the allocator named
 * it, with its own lifetime: "s" is
 * never used (unused allocation), "b" is registered one API before its
 * first use (early allocation), every region is given back only after the
 * sync (late deallocation), and "a" idles while "b" is filled.  The exact
 * findings are nvtx_pool.expect, which is what the event model
 * nvtx_pool.jsonl gives (make test checks that).  `gmprof run` names the
 * collector to NVTX (NVTX_INJECTION64_PATH).  Not yet run on a GPU.
 */
#include <nvtx3/nvToolsExtMem.h>

#include "common.h"

static nvtxMemHeapHandle_t heap_of(void *block, size_t bytes)
{
	nvtxMemVirtualRangeDesc_t r = { bytes, block };
	nvtxMemHeapDesc_t d = {};
	d.extCompatID = NVTX_EXT_COMPATID_MEM;
	d.structSize = sizeof(d);
	d.usage = NVTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR;
	d.type = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
	d.typeSpecificDescSize = sizeof(r);
	d.typeSpecificDesc = &r;
	d.messageType = NVTX_MESSAGE_TYPE_ASCII;
	d.message.ascii = "block"; /* names the cudaMalloc'd block in gmprof's reports */
	return nvtxMemHeapRegister(nullptr, &d);
}

/* The allocator names what it hands out: gmprof reports the region by that name. */
static void name(const void *p, const char *what)
{
	nvtxMemRegionNameDesc_t d = {};
	d.regionRefType = NVTX_MEM_REGION_REF_TYPE_POINTER;
	d.nameType = NVTX_MESSAGE_TYPE_ASCII;
	d.region.pointer = p;
	d.name.ascii = what;
	nvtxMemRegionsNameBatch_t b = {};
	b.extCompatID = NVTX_EXT_COMPATID_MEM;
	b.structSize = sizeof(b);
	b.regionCount = 1;
	b.regionElementSize = sizeof(d);
	b.regionElements = &d;
	nvtxMemRegionsName(nullptr, &b);
}

static float *take(nvtxMemHeapHandle_t heap, char *at, size_t bytes, const char *what)
{
	nvtxMemVirtualRangeDesc_t r = { bytes, at };
	nvtxMemRegionsRegisterBatch_t b = {};
	b.extCompatID = NVTX_EXT_COMPATID_MEM;
	b.structSize = sizeof(b);
	b.regionType = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
	b.heap = heap;
	b.regionCount = 1;
	b.regionDescElementSize = sizeof(r);
	b.regionDescElements = &r;
	nvtxMemRegionsRegister(nullptr, &b);
	name(at, what);
	return reinterpret_cast<float *>(at);
}

static void give_back(const void *p)
{
	nvtxMemRegionRef_t ref;
	ref.pointer = p;
	nvtxMemRegionsUnregisterBatch_t b = {};
	b.extCompatID = NVTX_EXT_COMPATID_MEM;
	b.structSize = sizeof(b);
	b.refType = NVTX_MEM_REGION_REF_TYPE_POINTER;
	b.refCount = 1;
	b.refElementSize = sizeof(ref);
	b.refElements = &ref;
	nvtxMemRegionsUnregister(nullptr, &b);
}

int main()
{
	const size_t n = 1 << 18, bytes = n * sizeof(float); /* 1 MiB */
	char *block;
	CHECK(cudaMalloc(&block, 4 * bytes));
	nvtxMemHeapHandle_t heap = heap_of(block, 4 * bytes);
	float *a = take(heap, block, bytes, "a");
	fill<<<(n + 255) / 256, 256>>>(a, n, 1.0f);
	float *b = take(heap, block + bytes, bytes, "b");
	float *s = take(heap, block + 2 * bytes, bytes / 4, "s"); /* never used */
	fill<<<(n + 255) / 256, 256>>>(b, n, 2.0f);
	add<<<(n + 255) / 256, 256>>>(a, a, b, n);
	CHECK(cudaDeviceSynchronize());
	give_back(s);
	give_back(b);
	give_back(a);
	nvtxMemHeapUnregister(nullptr, heap);
	CHECK(cudaFree(block));
	return 0;
}
