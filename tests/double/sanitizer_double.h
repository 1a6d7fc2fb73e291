/* SPDX-License-Identifier: MIT */
/* The test double's own controls (see sanitizer_double.c). */
#ifndef GMPROF_SANITIZER_DOUBLE_H
#define GMPROF_SANITIZER_DOUBLE_H

#include <stddef.h>
#include <stdint.h>

enum { GMP_DOUBLE_DIE_KILL = 1, GMP_DOUBLE_DIE_SEGV, GMP_DOUBLE_DIE_ABORT, GMP_DOUBLE_DIE_EXIT };

/* The CUDA context and module come to life (the collector patches the module). */
void gmp_double_start(void);
/* The program's module is used: loaded now if it was not (GMP_DOUBLE_LAZY=module). */
void gmp_double_module_used(void);
/*
 * Replays a script as callbacks.  Stream numbers are shifted by
 * stream_base and device addresses by addr_offset, so threads can replay
 * on streams and objects of their own.  Returns 0 or -errno (see
 * gmp_double_error).
 */
int gmp_double_replay(const char *script, uint32_t stream_base, uint64_t addr_offset);
/* The context goes away (as when the CUDA runtime tears down at exit). */
void gmp_double_teardown(void);
/* Kills the process after that many events of a replay. */
void gmp_double_set_die(long after_events, int how);
/* sanitizerAlloc fails for larger blocks (device memory is full). */
void gmp_double_set_oom_above(uint64_t bytes);
const char *gmp_double_error(void);
/* A replay's stream-ordered pool (0 or 1), as cuMemPoolGetAttribute answers (CUmemPool_attribute 4 to 8): 0 or 1. */
int gmp_double_pool_attr(unsigned which, int attr, uint64_t *value);
/*
 * Forks n workers while another thread begins and ends NVTX ranges by id
 * without pause; each worker begins and ends one range and exits.  0 when
 * every worker exited within 10 s; -1 when one hung (killed) or failed, or
 * without the nvtx3 headers.
 */
int gmp_double_fork_during_ranges(int n);
/* The driver's cuArray3DGetDescriptor_v2 for the double's CUDA arrays (double_memory.c): 0, or 1 (invalid). */
int gmp_double_array_desc(void *desc, void *array);
/* The driver's cuMemGetAddressRange_v2 for the memory the double's IPC opens mapped (double_ipc.c): 0, or 1. */
int gmp_double_address_range(uint64_t *base, size_t *size, uint64_t ptr);

#endif
