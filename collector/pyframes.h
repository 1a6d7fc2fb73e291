/* SPDX-License-Identifier: MIT */
/*
 * Python frames in call paths (pyframes.c): where a CPython program's
 * thread holds the GIL, its Python functions and lines replace the
 * interpreter's native frames.  Call with the collector's lock held.
 */
#ifndef GMPROF_PYFRAMES_H
#define GMPROF_PYFRAMES_H

#include <stddef.h>
#include <stdint.h>

/* The profile's STRING id of s (> 0), or a negative error. */
typedef int64_t (*gmp_pyframes_intern_fn)(void *ctx, const char *s);

/* pcs: n native frames, innermost first, room for max.  Returns the new count. */
size_t gmp_pyframes__splice(uint64_t *pcs, size_t n, size_t max, gmp_pyframes_intern_fn intern,
			    void *ctx);

#endif
