/* SPDX-License-Identifier: MIT */
/*
 * The CUDA driver's functions for the GPU test programs that call them
 * (vmm.cu, ipc_handles.cu): looked up with cudaGetDriverEntryPointByVersion,
 * so the programs link like the others (no -lcuda), and DRV, which fails
 * loudly on any error as CHECK does; drv, the virtual memory functions.
 */
#ifndef GMPROF_GPU_TEST_DRIVER_H
#define GMPROF_GPU_TEST_DRIVER_H

#include <cuda.h>

#include "common.h"

#define DRV(call)                                                                \
	do {                                                                     \
		CUresult r_ = (call);                                            \
		if (r_ != CUDA_SUCCESS) {                                        \
			std::fprintf(stderr, "%s:%d: %s: CUresult %d\n", __FILE__, __LINE__, #call, \
				     (int)r_);                                   \
			std::exit(1);                                            \
		}                                                                \
	} while (0)

/* *fn = the driver's function name (of CUDA 12.0's signature), or the program exits saying so. */
template <typename F> static void entry(F *fn, const char *name)
{
	void *p = nullptr;
	cudaDriverEntryPointQueryResult st;
	CHECK(cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &st));
	if (st != cudaDriverEntryPointSuccess || !p) {
		std::fprintf(stderr, "the driver has no %s\n", name);
		std::exit(1);
	}
	*fn = reinterpret_cast<F>(p);
}

/* The driver's virtual memory management functions (load_vmm fills it). */
static struct {
	decltype(&::cuMemGetAllocationGranularity) granularity;
	decltype(&::cuMemCreate) create;
	decltype(&::cuMemRelease) release;
	decltype(&::cuMemAddressReserve) reserve;
	decltype(&::cuMemAddressFree) unreserve;
	decltype(&::cuMemMap) map;
	decltype(&::cuMemUnmap) unmap;
	decltype(&::cuMemSetAccess) access;
} drv;

static void load_vmm(void)
{
	entry(&drv.granularity, "cuMemGetAllocationGranularity");
	entry(&drv.create, "cuMemCreate");
	entry(&drv.release, "cuMemRelease");
	entry(&drv.reserve, "cuMemAddressReserve");
	entry(&drv.unreserve, "cuMemAddressFree");
	entry(&drv.map, "cuMemMap");
	entry(&drv.unmap, "cuMemUnmap");
	entry(&drv.access, "cuMemSetAccess");
}

#endif
