/* SPDX-License-Identifier: MIT */
/*
 * The legacy default stream's implicit synchronization (detector/build.c
 * orders by it, detector/clock.c bounds completion by it): stream 0 and
 * the blocking streams of its device (gmp_stream__blocking) wait for each
 * other's earlier work.
 */
#ifndef GMPROF_DETECT_LEGACY_H
#define GMPROF_DETECT_LEGACY_H

#include <stddef.h>
#include <stdint.h>

#include "gmprof/detect.h"
#include "gmprof/trace.h"
#include "u64map.h"

/* A stream's part in that order, kept in each pass's state of the stream. */
struct det_lstream {
	uint32_t work;          /* blocking: its latest op that stream 0 waits for */
	uint32_t seen;          /* blocking: the op of stream 0 it last followed */
	uint8_t blocking;       /* a blocking stream (gmp_stream__blocking) */
	uint8_t pending;        /* blocking: on its device's list, work since stream 0's latest op */
};
#define DET_LSTREAM_INIT { UINT32_MAX, UINT32_MAX, 0, 0 }

/*
 * A pass's view of that order: which streams the trace declares blocking,
 * which frees end stream-ordered allocations, and the devices' legacy
 * streams (each one's latest op the blocking streams wait for, and their
 * pending work).  Zeroed, then det_legacy_setup; det_legacy_release.
 */
struct det_legacy {
	struct gmp_u64map blocking;     /* stream number -> 1 */
	uint64_t *frees;                /* a bit per event; NULL where no stream is blocking */
	struct det_ldev {
		uint32_t device, last;
		uint32_t *pending;      /* indices of blocking streams with work since `last` */
		size_t n, cap;
	} *dev;
	size_t n, cap;
};

/* From r (its objects resolved): the blocking streams and the frees.  0 or -ENOMEM. */
int det_legacy_setup(struct det_legacy *l, const struct gmp_result *r);
void det_legacy_release(struct det_legacy *l);

/* Whether the trace declares any stream blocking: else the order has nothing to add. */
static inline int det_legacy_on(const struct det_legacy *l)
{
	return l->blocking.n != 0;
}

/* Whether stream number s is declared blocking. */
static inline int det_legacy_blocking(const struct det_legacy *l, uint32_t s)
{
	return s && gmp_u64map__get(&l->blocking, s);
}

/*
 * What the order does with event v (e): 0 nothing (cudaMalloc and
 * cudaFree are made on no stream; device and event syncs; in-kernel heap
 * ops), 1 stream work (launches, copies, sets, event records and waits,
 * stream-ordered allocations and their frees), 2 a stream sync, which on
 * a blocking stream waits for that stream alone and on stream 0 for the
 * blocking streams too.
 */
static inline int det_legacy_kind(const struct det_legacy *l, const struct gmp_event *e, uint32_t v)
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
		return l->frees && (l->frees[v >> 6] >> (v & 63) & 1);
	default:
		return 0;
	}
}

/* A pass's streams, as det_legacy_step reads them: the state of stream index i, and an ordering. */
struct det_lpass {
	struct det_lstream *(*state)(void *ctx, size_t i);
	/*
	 * Op v follows op u: the latest work of blocking stream index i (v on
	 * stream 0), or stream 0's latest op (i SIZE_MAX, v on a blocking stream).
	 */
	int (*follow)(void *ctx, uint32_t v, size_t i, uint32_t u);
	void *ctx;
};

/*
 * Op v (e, of det_legacy_kind `kind`, not 0) on stream index si: its
 * orderings (pass->follow) and the state they change.  0 or -ENOMEM, or
 * what follow returned.
 */
int det_legacy_step(struct det_legacy *l, const struct det_lpass *pass, size_t si, uint32_t v,
		    const struct gmp_event *e, int kind);

#endif
