/* SPDX-License-Identifier: MIT */
/* What the test double counts of the collector's use of the "GPU" (double_memory.c). */
#ifndef GMPROF_DOUBLE_MEMORY_H
#define GMPROF_DOUBLE_MEMORY_H

#include "sanitizer_api.h"

/* Counted atomically; printed at exit with GMP_DOUBLE_STATS=1 (2: the sets too). */
struct double_stats {
	unsigned long stream_syncs, uploads, upload_bytes, allocs, l1_kernels; /* uploads: host-to-device copies */
	unsigned long readbacks, readback_bytes; /* device-to-host copies, and their bytes */
	unsigned long sets, set_bytes; /* sanitizerMemset calls, and their bytes */
	unsigned long held, held_peak; /* device bytes allocated and not freed; the most of it */
	unsigned long unpatched_kernels, module_patches; /* kernels run while their module was not patched */
	unsigned long module_unpatches;
	unsigned long host_allocs, host_frees; /* sanitizerAllocHost and sanitizerFreeHost calls */
	unsigned long pinned_readbacks, pinned_readback_bytes; /* device-to-host copies into pinned host blocks */
};
extern struct double_stats double_stats;

/*
 * One stream's work runs in order on a GPU: two threads' copies, sets or
 * kernels on one stream never overlap, while work on two streams may.  The
 * double does each at once on the calling thread, so it holds the stream's
 * lock meanwhile (the lock of a stripe of handles): a write two threads make
 * to one block on two streams is still a race for ThreadSanitizer.
 */
void double_stream_lock(Sanitizer_StreamHandle stream);
void double_stream_unlock(Sanitizer_StreamHandle stream);
/*
 * A synchronous copy takes the driver's lock exclusively (sanitizer_double.c,
 * as the real driver does): aborts with a sentence when threads inside
 * allocation callbacks hold it too long (a deadlock).
 */
void double_driver_exclusive(const char *fn);
/*
 * A monitored kernel starts (the kernel of script event k): counts it when
 * it tests through the L1; aborts when a per-instruction record claims bits
 * for it already (patch_abi.h: the records were not cleared with the hit words).
 */
struct gmp_patch_launch;
void double_launch_starts(const struct gmp_patch_launch *l, size_t k);
/*
 * The replay's stream-ordered pools: an async allocation of size bytes
 * made from pool 0, the devices' current one, or with GMP_DOUBLE_POOLS=2
 * every second time from pool 1, one the program made (its index to
 * *which; returns the pool the allocation names: NULL for the current one
 * unnamed, GMP_DOUBLE_POOL_UNNAMED); bytes made from a pool and freed back
 * to it; and a sync's trim of them all.
 */
CUmemoryPool double_pool_alloc(uint64_t size, uint8_t *which);
void double_pool_change(unsigned which, uint64_t alloc, uint64_t freed);
void double_pool_trim(void);
/*
 * A CUDA array of size bytes made (create) or destroyed for the script
 * object at addr, with the calls and callbacks a program's cudaMallocArray
 * and cudaFreeArray bring: a one-dimensional array of floats (of bytes when
 * size is not a multiple of 4), its handle addr.  GMP_DOUBLE_ARRAY_FORMAT
 * (a number) gives the format the driver then says instead, and
 * GMP_DOUBLE_ARRAY_UNDESCRIBED=1 has the driver refuse to describe it.
 */
void double_array(uint64_t addr, uint64_t size, int create);
/*
 * What comes with the allocation md, right after the call that made it
 * (made 1) and right before the call that frees it (made 0): a peer
 * device's mapping of it
 * (GMP_DOUBLE_PEER) and a texture object over it (GMP_DOUBLE_TEXTURE).
 */
void double_alongside(const Sanitizer_ResourceMemoryData *md, int made);
/*
 * Memory shared between processes (double_ipc.c): the script's allocation
 * md of kind imported, or flagged exported, made with the calls a program
 * makes for it (GMP_DOUBLE_IPC in double_ipc.c), and freed so (as it was
 * made, kept in the live object's `shared`; blocking: the free follows a
 * device sync, and an exported object's is then a cudaFree, else a
 * cudaFreeAsync).  Returns what the free needs to know: 1 an imported
 * object, 2 an exported one mapped by cuMemMap, 3 another exported one.
 */
int double_ipc_alloc(const Sanitizer_ResourceMemoryData *md, int imported);
void double_ipc_free(const Sanitizer_ResourceMemoryData *md, int shared, int blocking);
/* Sleeps the milliseconds the environment variable env gives (GMP_DOUBLE_SYNC_MS, GMP_DOUBLE_PATCH_MS). */
void double_delay(const char *env);
/* Dies as gmp_double_set_die said when n events have been replayed. */
void double_maybe_die(long n);
/* GMP_DOUBLE_FAIL: 1 when this call of the kind is the one to fail (double_memory.c). */
enum { DOUBLE_FAIL_ALLOC, DOUBLE_FAIL_UPLOAD, DOUBLE_FAIL_SET, DOUBLE_FAIL_DOWNLOAD, DOUBLE_FAIL_PATCHES,
       DOUBLE_FAIL_MODULE, DOUBLE_FAIL_UNPATCH, DOUBLE_FAIL_SUBSCRIBE, DOUBLE_FAIL_DOMAIN, DOUBLE_FAIL_KINDS };
int double_fails(int kind);

#endif
