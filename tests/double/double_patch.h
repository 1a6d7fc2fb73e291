/* SPDX-License-Identifier: MIT */
/*
 * The test double's module patching (double_patch.c): the one module of
 * its "program" patched and unpatched as the collector asks, and the
 * kernels that may be running, which unpatching must not meet.
 */
#ifndef GMPROF_DOUBLE_PATCH_H
#define GMPROF_DOUBLE_PATCH_H

#include "sanitizer_api.h"

#define MODULE ((CUmodule)(uintptr_t)0x2000)
/* The function of kernel name id n (a string id of the script), and whether f is one. */
#define DOUBLE_FUNCTION(n) ((CUfunction)(uintptr_t)(0x3000 + (uintptr_t)(n) * 16))
#define DOUBLE_IS_FUNCTION(f) \
	((uintptr_t)(f) >= 0x3000 && ((uintptr_t)(f) - 0x3000) % 16 == 0 && (uintptr_t)(f) < 0x3000 + ((uintptr_t)16 << 32))
#define DOUBLE_POOL ((CUmemoryPool)(uintptr_t)0x5000) /* the devices' stream-ordered pool (double_memory.c) */
#define DOUBLE_POOL2 ((CUmemoryPool)(uintptr_t)0x5001) /* a pool the program made (GMP_DOUBLE_POOLS=2) */

/* Whether the module is patched now; the device function an instruction id calls (NULL: none). */
int double_module_patched(void);
const char *double_patched_cb(Sanitizer_InstructionId id);
/*
 * A kernel started (its LAUNCH_BEGIN callback returned); it was launched
 * (submitted: its LAUNCH_END callback comes next); a context
 * synchronization's call began: it covers the kernels launched before.
 */
void double_kernel_started(void);
void double_kernel_launched(void);
void double_context_sync_begins(void);
/* The program starts: its module loads now, unless GMP_DOUBLE_LAZY=module (gmp_double_module_used). */
void double_module_start(void);
/* The context was destroyed (a device reset): its kernels ended, its module gone unpatched with it. */
/* GMP_DOUBLE_RELOAD_AT: the module unloaded and loaded again before the Nth event (from 1). */
void double_module_reload_at(long n);
void double_context_destroyed(void);
/*
 * GMP_DOUBLE_LAZY=1: a kernel of fn is about to launch (its function is
 * loaded lazily on the first); whether fn reports no accesses (patched
 * again after it was loaded lazily).
 */
void double_function_launching(CUfunction fn);
/* This thread enters (1) or leaves (0) a kernel launch's callback, where no patching call may come. */
void double_launch_callback(int inside);
/*
 * What sanitizerSetCallbackData set for fn's launches (NULL: nothing), read
 * by a launch given no data of its own (node: a graph's kernel node).  Said
 * on stderr when another thread set it; a launch outside any graph aborts
 * when this thread's graph node left it set.
 */
void *double_function_data(CUfunction fn, int node);
int double_function_silent(CUfunction fn);

#endif
