/* SPDX-License-Identifier: MIT */
/*
 * The test double's NVTX side: pool regions of a script announced as a
 * caching allocator would (tests/double/double_nvtx.c).  Without the
 * toolkit's nvtx3 headers the double replays no pool regions.
 */
#ifndef GMPROF_DOUBLE_NVTX_H
#define GMPROF_DOUBLE_NVTX_H

#include <stddef.h>
#include <stdint.h>

#if __has_include(<nvtx3/nvToolsExtMem.h>)
#define HAVE_NVTX 1
#else
#define HAVE_NVTX 0
#endif

/* The kind of each live object, to pick the free callback; NVTX handles of pools and regions. */
struct live {
	uint64_t addr, size;
	uint8_t kind;
	uint8_t pool;  /* a stream-ordered allocation's pool (double_memory.c) */
	void *handle;  /* a pool's heap, a region's handle */
	const char *label; /* a pool's label in the script: its heap's name (GMP_DOUBLE_NVTX=heapnames) */
	int shared;        /* memory shared between processes: how double_ipc_alloc made it */
};

/* The first NVTX call, with no regions (see double_nvtx.c). */
void double_nvtx_start(void);
struct gmp_trace;
struct gmp_range_change;
/*
 * A script's range change, on the calling thread: the pops and pushes
 * (nvtxRangePop, nvtxRangePushA/W/Ex in turn), or with GMP_DOUBLE_NVTX_RANGES
 * the ends and starts, from *cur to its path, which becomes *cur.  0,
 * -ENOTSUP without the nvtx3 headers, or -2 when no thread could start.
 */
int double_nvtx_ranges(const struct gmp_trace *t, const struct gmp_range_change *c, uint32_t *cur);
struct gmp_mark;
/*
 * A script's mark k, on the calling thread: nvtxMarkA, nvtxMarkW,
 * nvtxMarkEx, nvtxDomainMarkEx by a registered string, and by a string, in
 * turn.  0, or -ENOTSUP without the nvtx3 headers.
 */
int double_nvtx_mark(const struct gmp_trace *t, const struct gmp_mark *m, size_t k);
/*
 * GMP_DOUBLE_NVTX_THREAD_NAMES=1: replaying thread k names itself with
 * nvtxNameOsThread: a worker (k > 0) as "nvtx-worker-k" before its replay
 * (after: 0; A for odd k, W for even), the main thread (k = 0) as
 * "nvtx-main" after its replay (after: 1), once it has recorded events.
 */
void double_nvtx_name_thread(unsigned k, int after);
/*
 * GMP_DOUBLE_NVTX_STREAM_NAMES=1 (or bogus, which also names a handle that
 * is no stream, once): stream n (handle) named "nvtx-stream-n",
 * the legacy default stream (NULL) "nvtx-legacy", the calling thread's
 * default stream (CU_STREAM_PER_THREAD) "nvtx-default-n", with
 * nvtxNameCudaStreamA, nvtxNameCuStreamA, nvtxNameCudaStreamW and
 * nvtxNameCuStreamW in turn (n % 4).
 */
void double_nvtx_name_stream(uint32_t n, void *handle);
#if HAVE_NVTX
/*
 * A region of the live pool containing it (or of the process-wide heap when
 * none does), named label (NULL: no name) with nvtxMemRegionsName.
 */
void *region_register(struct live *live, size_t nlive, uint64_t addr, uint64_t size,
		      const char *label);
/* By handle and by pointer in turn: both name the region. */
void region_unregister(const struct live *l);
/* GMP_DOUBLE_NVTX=m */
int nvtx_mode(const char *m);
void nvtx_heap_reset(void *heap);
void nvtx_heap_unregister(void *heap);
#endif

#endif
