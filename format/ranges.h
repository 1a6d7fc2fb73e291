/* SPDX-License-Identifier: MIT */
/*
 * NVTX range paths inside the format library: the trace's tables (the
 * public part is in gmprof/trace.h) and the per-thread range stacks that
 * event scripts push and pop.
 */
#ifndef GMPROF_RANGES_H
#define GMPROF_RANGES_H

#include <stddef.h>
#include <stdint.h>

#include "gmprof/trace.h"
#include "u64map.h"

/* Frees a trace's range tables (gmp_trace__free). */
void gmp_trace__free_ranges(struct gmp_trace *t);

/* Each host thread's stack of open ranges, as a script pushes and pops them. */
struct gmp_range_stacks {
	struct gmp_u64map of;  /* thread -> its stack + 1 */
	struct stack {
		uint32_t *names;
		size_t n, cap;
	} *s;
	size_t n, cap;
};

void gmp_range_stacks__init(struct gmp_range_stacks *st);
void gmp_range_stacks__release(struct gmp_range_stacks *st);
/*
 * Pushes name (a STRING id; 0 pops) on thread's stack and records the new
 * path as a change before event `before` of t.  0, -ENOENT (a pop with
 * nothing open), -E2BIG (deeper than GMP_RANGE_DEPTH_MAX), or -errno.
 */
int gmp_range_stacks__change(struct gmp_range_stacks *st, struct gmp_trace *t, uint32_t thread,
			     uint32_t name, uint64_t before);

#endif
