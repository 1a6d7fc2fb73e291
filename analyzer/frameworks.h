/* SPDX-License-Identifier: MIT */
/*
 * Frameworks' caching allocators among the allocations' call paths
 * (frameworks.c).  A framework that keeps GPU memory in a pool of its own
 * (PyTorch's caching allocator, CuPy's memory pool, TensorFlow's and XLA's
 * BFC allocators) asks cudaMalloc for large blocks and hands out pieces of
 * them: gmprof sees the blocks, and its findings are about them, not about
 * the program's tensors.  The note says so, and what turns the pool off.
 */
#ifndef GMPROF_FRAMEWORKS_H
#define GMPROF_FRAMEWORKS_H

#include "gmprof/trace.h"
#include "symbolize.h"

/*
 * Adds to notes the device allocations of t whose call path runs through
 * a framework's allocator (a frame in its module), unless t has NVTX pool
 * regions (the framework then shows gmprof its pieces), merged with those
 * of earlier inputs.
 */
void gmp_fwnotes__add(struct gmp_symnotes *notes, const struct gmp_trace *t);
/* A line per framework seen, after prefix, as gmp_symnotes__print's. */
void gmp_fwnotes__print(const struct gmp_symnotes *notes, FILE *fp, const char *prefix);

/*
 * Adds to notes the kernel launches of t, on devices of compute capability
 * 9.0 and later (META device.N.cc), whose call path runs through cuBLAS or
 * cuDNN: such kernels copy most of their operands through the tensor
 * memory accelerator, which the Sanitizer of CUDA 13.0 cannot patch, so
 * what they read and write that way is not seen (docs/known-limits.md).
 */
void gmp_tmanotes__add(struct gmp_symnotes *notes, const struct gmp_trace *t);
/* Its line, when it counted any launch. */
void gmp_tmanotes__print(const struct gmp_symnotes *notes, FILE *fp, const char *prefix);

/* What the reports say of t's tensor maps, into buf (returns 1), when t says (gmp_tmaps__of); else 0. */
int gmp_tmaps__words(const struct gmp_trace *t, char *buf, size_t size);

#endif
