/* SPDX-License-Identifier: MIT */
/*
 * Host call paths and the module map.  A call path is the return
 * addresses from the application's call into CUDA outwards; frames of
 * gmprof, the Sanitizer library and the CUDA runtime and driver at the
 * top of the stack are skipped.  The module map (path, load bias, extent,
 * build-id) lets the analyzer symbolize offline; it is refreshed when the
 * program loads or unloads libraries.  Thread-safe for capture; module
 * listing is serialized by the caller.
 */
#ifndef GMPROF_CALLPATH_H
#define GMPROF_CALLPATH_H

#include <stddef.h>
#include <stdint.h>

struct gmp_callpath;

typedef int (*gmp_module_fn)(void *ctx, const char *path, const char *build_id,
			     uint64_t base, uint64_t size, uint64_t bias);

int gmp_callpath__new(struct gmp_callpath **out);
void gmp_callpath__free(struct gmp_callpath *cp);
/* Captures up to max frames; returns how many. */
size_t gmp_callpath__capture(struct gmp_callpath *cp, uint64_t *pcs, size_t max);
/* Reports modules loaded since the last call (all, the first time); 0 or the callback's error. */
int gmp_callpath__modules(struct gmp_callpath *cp, gmp_module_fn fn, void *ctx);
/* The extent of the loaded module that holds addr: 0, or -ENOENT when none does. */
int gmp_callpath__extent_of(uint64_t addr, uint64_t *lo, uint64_t *hi);
/* 1 when the loaded-module set changed since the last gmp_callpath__modules. */
int gmp_callpath__stale(struct gmp_callpath *cp);

#endif
