// SPDX-License-Identifier: MIT
/*
 * Memory shared between processes (CUDA IPC).  A process that maps another
 * process's memory (cudaIpcOpenMemHandle, cudaMemPoolImportPointer, a
 * cuMemMap of a handle from cuMemImportFromShareableHandle) allocates none
 * of it: the object is recorded as kind imported, whose bytes the peaks
 * leave out, whose uses still order the calls, and on which no finding is
 * told.  A process that shares its memory (cudaIpcGetMemHandle,
 * cudaMemPoolExportPointer, cuMemExportToShareableHandle) lets others use
 * it unseen: an EXPORTED record marks the object, and only what those uses
 * cannot make wrong is told on it (docs/known-limits.md).
 *
 * Which allocation callback comes from an import is told by the program's
 * call in progress: the outermost call's name, or, for cuMemMap, whether
 * its handle is one the program imported.  Where an open's call reports no
 * allocation at all (not yet known of the Sanitizer: docs/sanitizer-api.md),
 * the collector asks the driver which allocation the pointer it returned
 * falls in (cuMemGetAddressRange) and records that, and its free at the
 * close that ends the last of its opens (the driver counts opens of one
 * handle), saying so once.  A handle exported before it is
 * mapped marks each later mapping of it; one exported after, the mappings
 * made so far, so every mapping's handle is kept until cuMemUnmap (or the
 * handle's cuMemRelease: the driver may give its value again; a handle
 * cuMemRetainAllocationHandle gives for a mapping is kept as its own).  The
 * handles and mappings are kept under a lock of their own
 * (GMP_IPC_HANDLES_MAX and GMP_IPC_MAPS_MAX of them; past that, said once,
 * the later ones are not told apart).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "alloc_api.h"
#include "collector.h"
#include "ipc.h"
#include "gmprof/trace.h"

#define GMP_IPC_HANDLES_MAX 4096
#define GMP_IPC_MAPS_MAX 16384

enum { HANDLE_IMPORTED = 1, HANDLE_EXPORTED = 2 };

static pthread_mutex_t ipc_lock = PTHREAD_MUTEX_INITIALIZER; /* taken inside gmp_col.lock, never around it */
/* Handles imported or exported, and what of the two. */
static struct handle {
	uint64_t handle;
	int what;
} handles[GMP_IPC_HANDLES_MAX];
static size_t nhandles;
/* Mappings made by cuMemMap: where each starts, and its handle. */
static struct map {
	uint64_t addr, handle;
} maps[GMP_IPC_MAPS_MAX];
static size_t nmaps;
static int maps_lost; /* a mapping found no room */

/* What the thread's cuMemMap in progress maps (HANDLE_*), and its handle. */
static __thread int map_what;
static __thread uint64_t map_handle;
/* Allocations recorded as imported in the thread's call in progress. */
static __thread unsigned imported_in_call;
/* Objects recorded from the driver's address ranges (open_unseen), and their opens not yet closed (ipc_lock). */
static struct opened {
	uint64_t addr;
	uint32_t opens;
} opened[GMP_IPC_HANDLES_MAX];
static size_t nopened;

/* ipc_lock held: addr's entry in opened, or NULL. */
static struct opened *find_opened(uint64_t addr)
{
	for (size_t i = 0; i < nopened; i++)
		if (opened[i].addr == addr)
			return &opened[i];
	return NULL;
}

/* Said once: what is shared past the tables is recorded as the program's own memory. */
static void full(const char *what, int max)
{
	static int warned;
	if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
		rec_say("more than %d %s: memory shared between processes through the later ones may be recorded as the "
			"program's own", max, what);
}

/* ipc_lock held: handle's entry, or NULL. */
static struct handle *find_handle(uint64_t handle)
{
	for (size_t i = 0; i < nhandles; i++)
		if (handles[i].handle == handle)
			return &handles[i];
	return NULL;
}

static void note_handle(uint64_t handle, int what)
{
	pthread_mutex_lock(&ipc_lock);
	struct handle *h = find_handle(handle);
	if (!h && nhandles < GMP_IPC_HANDLES_MAX)
		h = &handles[nhandles++], *h = (struct handle){ handle, 0 };
	if (h)
		h->what |= what;
	pthread_mutex_unlock(&ipc_lock);
	if (!h)
		full("memory handles imported or exported", GMP_IPC_HANDLES_MAX);
}

/* gmp_col.lock held: the live object containing addr, exported (another process's shared again: not ours). */
static void export_at(uint64_t addr)
{
	uint64_t start, end;
	uint8_t kind;
	if (rec_live_floor(addr, &start, &end) && addr < end) {
		uint32_t ev = rec_live_event(start, &kind);
		if (ev != UINT32_MAX && gmp_mem_kind__device_bytes(kind))
			rec_exported(ev);
	}
}

/* A mapping of handle at addr (its start, or a pointer into it): kept, room allowing. */
static void note_map(uint64_t addr, uint64_t handle)
{
	pthread_mutex_lock(&ipc_lock);
	if (nmaps < GMP_IPC_MAPS_MAX)
		maps[nmaps++] = (struct map){ addr, handle };
	else
		maps_lost = 1;
	pthread_mutex_unlock(&ipc_lock);
}

/* The starts of the mappings of handle, into at (at most n): their count. */
static size_t mappings_of(uint64_t handle, uint64_t *at, size_t n)
{
	size_t k = 0;
	pthread_mutex_lock(&ipc_lock);
	int lost = maps_lost;
	for (size_t i = 0; i < nmaps && k < n; i++)
		if (maps[i].handle == handle)
			at[k++] = maps[i].addr;
	pthread_mutex_unlock(&ipc_lock);
	if (lost || k == n)
		full("mappings of memory handles", lost ? GMP_IPC_MAPS_MAX : (int)n);
	return k;
}

void ipc_call_begins(const char *fn, const void *params)
{
	int call = gmp_ipc_api__kind(fn);
	imported_in_call = 0;
	if (call != GMP_IPC_MAP || !params)
		return;
	uint64_t handle;
	memcpy(&handle, (const char *)params + GMP_IPC_MAP_HANDLE, sizeof(handle));
	pthread_mutex_lock(&ipc_lock);
	const struct handle *h = find_handle(handle);
	map_what = h ? h->what : 0;
	map_handle = handle;
	pthread_mutex_unlock(&ipc_lock);
}

int ipc_kind(int kind, int *exported)
{
	*exported = 0;
	if (!cb_api_name)
		return kind;
	int call = gmp_ipc_api__kind(cb_api_name);
	if (call == GMP_IPC_OPEN || (call == GMP_IPC_MAP && (map_what & HANDLE_IMPORTED))) {
		imported_in_call++;
		return GMP_MEM_IMPORTED;
	}
	*exported = call == GMP_IPC_MAP && (map_what & HANDLE_EXPORTED);
	return kind;
}

int ipc_closing(void)
{
	return cb_api_name && gmp_ipc_api__kind(cb_api_name) == GMP_IPC_CLOSE;
}

static void unseen(const char *fn)
{
	static int said;
	if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		rec_say("the Sanitizer reported no allocation for %s: the memory it mapped is recorded as the driver's "
			"address range gives it", fn);
}

/* An open that reported no allocation: the allocation the pointer it wrote falls in, recorded as imported. */
static void open_unseen(const char *fn, const void *params, CUcontext ctx)
{
	const void *out;
	uint64_t ptr, base, size;
	memcpy(&out, (const char *)params + GMP_IPC_PARAM_IMPORTED, sizeof(out));
	if (!out)
		return;
	memcpy(&ptr, out, sizeof(ptr));
	int was = cb_guard(); /* the driver's own callbacks are not the program's */
	int err = drv_address_range(ptr, &base, &size);
	cb_unguard(was);
	if (err)
		return;
	unseen(fn);
	pthread_mutex_lock(&gmp_col.lock);
	pthread_mutex_lock(&ipc_lock); /* inside the collector's lock: never the other way */
	struct opened *o = find_opened(base);
	uint64_t start, end;
	if (o) { /* the same handle opened again: the driver gives the same mapping */
		o->opens++;
	} else if (!gmp_col.closed && nopened < GMP_IPC_HANDLES_MAX &&
		   !(rec_live_floor(base + size - 1, &start, &end) && end > base)) { /* else the Sanitizer's */
		opened[nopened++] = (struct opened){ base, 1 };
		uint32_t device = rec_device(ctx);
		struct gmp_event e = { .op = GMP_OP_ALLOC, .kind = GMP_MEM_IMPORTED, .addr = base, .size = size,
				       .device = device, .stream = rec_stream(0) };
		rec_live_add(base, size, device, rec_event(&e, fn, 1), GMP_MEM_IMPORTED);
	}
	pthread_mutex_unlock(&ipc_lock);
	pthread_mutex_unlock(&gmp_col.lock);
}

/* A close of an object open_unseen recorded: at the last of its opens, its free. */
static void close_unseen(const char *fn, const void *params, CUcontext ctx)
{
	uint64_t ptr;
	uint8_t kind;
	memcpy(&ptr, params, sizeof(ptr));
	pthread_mutex_lock(&ipc_lock);
	struct opened *o = find_opened(ptr);
	int last = o && --o->opens == 0;
	if (last)
		*o = opened[--nopened];
	pthread_mutex_unlock(&ipc_lock);
	if (!last)
		return; /* reported by the Sanitizer (its free comes with the last close), or still open */
	pthread_mutex_lock(&gmp_col.lock);
	if (!gmp_col.closed && rec_live_event(ptr, &kind) != UINT32_MAX && kind == GMP_MEM_IMPORTED) {
		struct gmp_event e = { .op = GMP_OP_FREE, .addr = ptr, .device = rec_device(ctx), .stream = rec_stream(0) };
		rec_event(&e, fn, 1);
		rec_live_remove(ptr);
	}
	pthread_mutex_unlock(&gmp_col.lock);
}

void ipc_call_ended(const char *fn, const void *params, CUcontext ctx, int ok)
{
	int call = gmp_ipc_api__kind(fn);
	if (!call || !params)
		return;
	const char *p = params;
	uint64_t v, at[64];
	const void *out;
	if (call == GMP_IPC_MAP) {
		map_what = 0;
		if (!ok)
			return;
		memcpy(&v, p, sizeof(v)); /* the mapping's start */
		note_map(v, map_handle);
		return;
	}
	if (!ok)
		return;
	switch (call) {
	case GMP_IPC_OPEN:
		if (!imported_in_call)
			open_unseen(fn, params, ctx);
		break;
	case GMP_IPC_CLOSE:
		close_unseen(fn, params, ctx);
		break;
	case GMP_IPC_IMPORT_HANDLE: /* the handle it wrote */
		memcpy(&out, p + GMP_IPC_PARAM_IMPORTED, sizeof(out));
		if (out) {
			memcpy(&v, out, sizeof(v));
			note_handle(v, HANDLE_IMPORTED);
		}
		break;
	case GMP_IPC_EXPORT_POINTER:
		memcpy(&v, p + GMP_IPC_PARAM_EXPORTED, sizeof(v));
		pthread_mutex_lock(&gmp_col.lock);
		export_at(v);
		pthread_mutex_unlock(&gmp_col.lock);
		break;
	case GMP_IPC_EXPORT_HANDLE: { /* its mappings so far; later ones at their cuMemMap */
		memcpy(&v, p + GMP_IPC_PARAM_EXPORTED, sizeof(v));
		note_handle(v, HANDLE_EXPORTED);
		size_t n = mappings_of(v, at, sizeof(at) / sizeof(at[0]));
		pthread_mutex_lock(&gmp_col.lock);
		for (size_t i = 0; i < n; i++)
			export_at(at[i]);
		pthread_mutex_unlock(&gmp_col.lock);
		break;
	}
	case GMP_IPC_UNMAP: { /* the mappings in [ptr, ptr + size) */
		uint64_t size;
		memcpy(&v, p, sizeof(v));
		memcpy(&size, p + GMP_IPC_UNMAP_SIZE, sizeof(size));
		pthread_mutex_lock(&ipc_lock);
		for (size_t i = nmaps; i--;)
			if (maps[i].addr >= v && maps[i].addr - v < size)
				maps[i] = maps[--nmaps];
		pthread_mutex_unlock(&ipc_lock);
		break;
	}
	case GMP_IPC_RETAIN: { /* the handle it wrote, to the memory mapped at the pointer */
		uint64_t addr;
		memcpy(&out, p + GMP_IPC_PARAM_IMPORTED, sizeof(out));
		memcpy(&addr, p + GMP_IPC_RETAIN_POINTER, sizeof(addr));
		if (out) {
			memcpy(&v, out, sizeof(v));
			note_map(addr, v);
		}
		break;
	}
	case GMP_IPC_RELEASE: /* the driver may give the handle again: it names neither it nor its mappings now */
		memcpy(&v, p + GMP_IPC_RELEASE_HANDLE, sizeof(v));
		pthread_mutex_lock(&ipc_lock);
		struct handle *h = find_handle(v);
		if (h)
			*h = handles[--nhandles];
		for (size_t i = nmaps; i--;)
			if (maps[i].handle == v)
				maps[i] = maps[--nmaps];
		pthread_mutex_unlock(&ipc_lock);
		break;
	default:
		break;
	}
}
