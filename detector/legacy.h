/* SPDX-License-Identifier: MIT */
/*
 * The legacy default stream's implicit synchronization (detector/build.c
 * orders by it, detector/clock.c bounds completion by it): stream 0 and
 * the blocking streams of its device (gmp_stream__blocking) wait for each
 * other's earlier work.
 */
#ifndef GMPROF_DETECT_LEGACY_H
#define GMPROF_DETECT_LEGACY_H

#include "gmprof/trace.h"

/*
 * What that synchronization does with e: 0 nothing (cudaMalloc and
 * cudaFree are made on no stream; device and event syncs; in-kernel heap
 * ops), 1 stream work (launches, copies, sets, event records and waits,
 * stream-ordered allocations, and frees of stream-ordered allocations:
 * frees_async), 2 a stream sync, which on a blocking stream waits for that
 * stream alone and on stream 0 for the blocking streams too.
 */
static inline int det_legacy_kind(const struct gmp_event *e, int frees_async)
{
	if (gmp_event__in_kernel(e))
		return 0;
	switch (e->op) {
	case GMP_OP_KERNEL:
	case GMP_OP_MEMCPY:
	case GMP_OP_MEMSET:
	case GMP_OP_EVENT_RECORD:
	case GMP_OP_EVENT_WAIT:
		return 1;
	case GMP_OP_SYNC:
		return e->flags & GMP_EF_SYNC_STREAM ? 2 : 0;
	case GMP_OP_ALLOC:
		return e->kind == GMP_MEM_ASYNC;
	case GMP_OP_FREE:
		return frees_async;
	default:
		return 0;
	}
}

#endif
