// SPDX-License-Identifier: MIT
/*
 * Memory shared between processes, as the test double replays it: each
 * allocation of kind imported is another process's memory mapped into the
 * program, and each one flagged exported the program's own, shared.
 * GMP_DOUBLE_IPC says through which calls (each with its parameters, the
 * Sanitizer's allocation callback inside the call that maps the memory):
 *   open (the default)  cudaIpcOpenMemHandle and cudaIpcCloseMemHandle;
 *                       an export: cudaMalloc, then cudaIpcGetMemHandle
 *   pool                cudaMemPoolImportPointer (a stream-ordered
 *                       allocation from the imported pool, DOUBLE_POOL2's
 *                       handle); an export: cudaMallocAsync, then
 *                       cudaMemPoolExportPointer
 *   vmm                 cuMemImportFromShareableHandle, then cuMemMap;
 *                       freed by cuMemUnmap and cuMemRelease; an export:
 *                       cuMemCreate, cuMemExportToShareableHandle, then
 *                       cuMemMap (the handle shared before it is mapped)
 *   vmm-late            the same, an export's handle shared after cuMemMap
 *   vmm-reshare         vmm-late, and each imported handle shared again
 *                       after it is mapped (cuMemExportToShareableHandle)
 *   vmm-retain          an export's handle released once mapped (every
 *                       cuMemCreate giving the same value, as a driver
 *                       may), then a handle from cuMemRetainAllocationHandle
 *                       of a pointer into the mapping shared
 * A cuMemMap's handle is the mapping's address, so the free finds it.
 * GMP_DOUBLE_IPC_UNSEEN=1: an open (open, pool) and its close bring no
 * allocation or free callback; the driver's cuMemGetAddressRange_v2
 * (fake_app) answers for what they mapped (gmp_double_address_range).
 * GMP_DOUBLE_IPC_UNSEEN=2: the same, each open made twice and closed once
 * at once (the driver counts the opens of a handle: the memory stays
 * mapped until the second close, at the script's free).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "double_calls.h"
#include "double_memory.h"
#include "double_patch.h"
#include "sanitizer_double.h"

enum { OPEN, POOL, VMM, VMM_LATE, VMM_RESHARE, VMM_RETAIN };

static int mode(void)
{
	const char *m = getenv("GMP_DOUBLE_IPC");
	return !m || !strcmp(m, "open") ? OPEN
	       : !strcmp(m, "pool")     ? POOL
	       : !strcmp(m, "vmm")      ? VMM
	       : !strcmp(m, "vmm-late") ? VMM_LATE
	       : !strcmp(m, "vmm-reshare") ? VMM_RESHARE
					: VMM_RETAIN;
}

/* GMP_DOUBLE_IPC_UNSEEN: 0, 1 or 2. */
static int unseen(void)
{
	const char *v = getenv("GMP_DOUBLE_IPC_UNSEEN");
	return v && (!strcmp(v, "1") || !strcmp(v, "2")) ? v[0] - '0' : 0;
}

/* What the opens mapped, for cuMemGetAddressRange_v2. */
#define MAPPED_MAX 64
static pthread_mutex_t mapped_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	uint64_t addr, size;
} mapped[MAPPED_MAX];
static size_t nmapped;

static void mapped_add(uint64_t addr, uint64_t size)
{
	pthread_mutex_lock(&mapped_lock);
	if (nmapped < MAPPED_MAX)
		mapped[nmapped].addr = addr, mapped[nmapped++].size = size;
	pthread_mutex_unlock(&mapped_lock);
}

int gmp_double_address_range(uint64_t *base, size_t *size, uint64_t ptr)
{
	int rc = 1; /* CUDA_ERROR_INVALID_VALUE */
	pthread_mutex_lock(&mapped_lock);
	for (size_t i = 0; i < nmapped && rc; i++)
		if (ptr >= mapped[i].addr && ptr - mapped[i].addr < mapped[i].size) {
			*base = mapped[i].addr;
			*size = mapped[i].size;
			rc = 0;
		}
	pthread_mutex_unlock(&mapped_lock);
	return rc;
}

static void resource(Sanitizer_CallbackId cbid, const Sanitizer_ResourceMemoryData *md)
{
	double_deliver(SANITIZER_CB_DOMAIN_RESOURCE, cbid, md);
}

/* A call with parameters p, and the Sanitizer's callback cbid of md inside it (cbid 0: none). */
static void call(const char *name, const void *p, Sanitizer_CallbackId cbid, const Sanitizer_ResourceMemoryData *md)
{
	double_api_params(name, p, SANITIZER_API_ENTER);
	if (cbid)
		resource(cbid, md);
	double_api_params(name, p, SANITIZER_API_EXIT);
}

/* cuMemMap (ptr, size, offset, handle, flags) of handle at md's address. */
static void map(const Sanitizer_ResourceMemoryData *md, uint64_t handle)
{
	uint64_t p[5] = { md->address, md->size, 0, handle, 0 };
	call("cuMemMap", p, SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC, md);
}

int double_ipc_alloc(const Sanitizer_ResourceMemoryData *md, int imported)
{
	int m = mode();
	uint64_t out = md->address, handle = md->address;
	void *outp = &out, *hp = &handle;
	char data[64] = { 0 }; /* an IPC handle, export data: opaque */
	if (imported) {
		if (m <= POOL)
			mapped_add(md->address, md->size);
		if (m <= POOL && unseen()) {
			const void *p[10] = { outp };
			call(m == OPEN ? "cudaIpcOpenMemHandle" : "cudaMemPoolImportPointer", p, 0, NULL);
			if (m == OPEN && unseen() == 2) { /* opened again, and that open closed */
				uint64_t close[1] = { md->address };
				call("cudaIpcOpenMemHandle", p, 0, NULL);
				call("cudaIpcCloseMemHandle", close, 0, NULL);
			}
		} else if (m == OPEN) {
			const void *p[10] = { outp }; /* (devPtr *, handle (64 bytes), flags) */
			call("cudaIpcOpenMemHandle", p, SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC, md);
		} else if (m == POOL) {
			const void *p[3] = { outp, NULL, data };
			Sanitizer_ResourceMemoryData in_pool = *md;
			in_pool.memoryPool = DOUBLE_POOL2;
			call("cudaMemPoolImportPointer", p, SANITIZER_CBID_RESOURCE_MEMORY_ALLOC_ASYNC, &in_pool);
		} else {
			const void *p[3] = { hp, NULL, NULL };
			call("cuMemImportFromShareableHandle", p, 0, NULL);
			map(md, handle);
			int fd = 0;
			const void *exp[4] = { &fd, (const void *)(uintptr_t)handle, NULL, NULL };
			if (m == VMM_RESHARE) /* another process's memory shared on: still not the program's */
				call("cuMemExportToShareableHandle", exp, 0, NULL);
		}
		return 1;
	}
	if (m == OPEN || m == POOL) {
		call(m == OPEN ? "cudaMalloc" : "cudaMallocAsync", NULL,
		     m == OPEN ? SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC : SANITIZER_CBID_RESOURCE_MEMORY_ALLOC_ASYNC, md);
		const void *p[2] = { data, (const void *)(uintptr_t)(md->address + md->size / 2) }; /* a pointer inside */
		call(m == OPEN ? "cudaIpcGetMemHandle" : "cudaMemPoolExportPointer", p, 0, NULL);
		return 3;
	}
	const void *create[4] = { hp, (const void *)(uintptr_t)md->size, NULL, NULL };
	if (m == VMM_RETAIN)
		handle = 0x7700; /* each handle is released before the next is made */
	call("cuMemCreate", create, 0, NULL);
	int fd = 0;
	const void *exp[4] = { &fd, (const void *)(uintptr_t)handle, NULL, NULL };
	if (m == VMM)
		call("cuMemExportToShareableHandle", exp, 0, NULL);
	map(md, handle);
	if (m == VMM_RETAIN) {
		uint64_t release[1] = { handle }, again = md->address | 1;
		call("cuMemRelease", release, 0, NULL);
		const void *retain[2] = { &again, (const void *)(uintptr_t)(md->address + md->size - 1) };
		call("cuMemRetainAllocationHandle", retain, 0, NULL);
		exp[1] = (const void *)(uintptr_t)again;
	}
	if (m >= VMM_LATE)
		call("cuMemExportToShareableHandle", exp, 0, NULL);
	return 2;
}

void double_ipc_free(const Sanitizer_ResourceMemoryData *md, int shared, int blocking)
{
	int m = mode();
	uint64_t p[2] = { md->address, md->size };
	if ((shared == 1 && m >= VMM) || shared == 2) {
		call("cuMemUnmap", p, SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE, md);
		call("cuMemRelease", p, 0, NULL); /* its handle: the mapping's address */
	} else if (shared == 1 && m == OPEN) {
		call("cudaIpcCloseMemHandle", p, unseen() ? 0 : SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE, md);
	} else if (shared == 1) { /* an imported pool pointer is freed as any stream-ordered one */
		call("cudaFreeAsync", p, SANITIZER_CBID_RESOURCE_MEMORY_FREE_ASYNC, md);
	} else {
		blocking = blocking && m != POOL;
		call(blocking ? "cudaFree" : "cudaFreeAsync", p,
		     blocking ? SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE : SANITIZER_CBID_RESOURCE_MEMORY_FREE_ASYNC, md);
	}
}
