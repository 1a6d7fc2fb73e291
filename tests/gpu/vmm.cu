// SPDX-License-Identifier: MIT
/*
 * Memory from the driver's virtual memory management API (cuMemCreate,
 * cuMemAddressReserve, cuMemMap), as allocators that grow in place use it
 * (expandable segments).  Three mappings, each of its own physical
 * allocation, in one reserved range: "a" and "b" are used, "s" never
 * (unused allocation), "b" is mapped one API before its first use (early
 * allocation), the used ones are unmapped only after the sync (late
 * deallocation), and "a" idles while "b" is filled.  gmprof is to see each mapping as an object from
 * cuMemMap to cuMemUnmap; the exact findings are vmm.expect, which is what
 * the event model vmm.jsonl gives (make test checks that).  Not yet run on
 * a GPU: whether the Sanitizer reports mappings as allocations, and with
 * which address, is what this program is for.
 *
 * The driver functions come through driver.h.
 */
#include "driver.h"

static CUmemAllocationProp prop_of(int dev)
{
	CUmemAllocationProp prop = {};
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	return prop;
}

/* Backs [at, at + bytes) with a physical allocation of its own. */
static float *map_at(CUdeviceptr at, size_t bytes, int dev, CUmemGenericAllocationHandle *h)
{
	CUmemAllocationProp prop = prop_of(dev);
	DRV(drv.create(h, bytes, &prop, 0));
	DRV(drv.map(at, bytes, 0, *h, 0));
	CUmemAccessDesc acc = {};
	acc.location = prop.location;
	acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	DRV(drv.access(at, bytes, &acc, 1));
	return reinterpret_cast<float *>(at);
}

static void unmap(CUdeviceptr at, size_t bytes, CUmemGenericAllocationHandle h)
{
	DRV(drv.unmap(at, bytes));
	DRV(drv.release(h));
}

int main()
{
	load_vmm();
	int dev = 0;
	CHECK(cudaSetDevice(dev));
	CHECK(cudaFree(nullptr)); /* the primary context, current */
	CUmemAllocationProp prop = prop_of(dev);
	size_t gran = 0;
	DRV(drv.granularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	const size_t bytes = gran > (1u << 20) ? gran : (1u << 20) / gran * gran; /* >= 1 MiB */
	const size_t n = bytes / sizeof(float);
	CUdeviceptr range = 0;
	DRV(drv.reserve(&range, 3 * bytes, 0, 0, 0));
	CUmemGenericAllocationHandle ha, hb, hs;
	float *a = map_at(range, bytes, dev, &ha);                          /* obj#1 */
	fill<<<blocks(n), 256>>>(a, n, 1.0f);
	float *b = map_at(range + bytes, bytes, dev, &hb);                  /* obj#2 */
	map_at(range + 2 * bytes, bytes, dev, &hs);                         /* obj#3, never used */
	fill<<<blocks(n), 256>>>(b, n, 2.0f);
	add<<<blocks(n), 256>>>(a, a, b, n);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	unmap(range + 2 * bytes, bytes, hs);
	unmap(range + bytes, bytes, hb);
	unmap(range, bytes, ha);
	DRV(drv.unreserve(range, 3 * bytes));
	return 0;
}
