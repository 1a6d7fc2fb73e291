// SPDX-License-Identifier: MIT
/*
 * Queries that say work finished: cudaEventQuery and cudaStreamQuery (and
 * cuEventQuery, cuStreamQuery) returning success.  A program that polls
 * instead of waiting (a pipeline that checks an event before it reuses a
 * buffer, a framework's caching allocator before it hands a block freed on
 * another stream to the next request) learns then what an event or stream
 * sync would have told it, and orders its later calls after that work.
 * The Sanitizer brings no SYNCHRONIZE callback for a query, so the end of
 * the call records a sync of the event (or the stream), as
 * cudaEventSynchronize (cudaStreamSynchronize) would have been recorded.
 * A query that says "not ready" tells nothing.  A query that repeats the
 * same thread's last successful one with nothing recorded since (a polling
 * loop's) records nothing more.  The collector collects no launch there:
 * they wait for a sync.
 */
#define _GNU_SOURCE
#include <string.h>

#include "alloc_api.h"
#include "collector.h"

/* This thread's last query that recorded a sync: its kind and handle, and the events recorded then. */
static __thread struct {
	int kind;
	uint64_t handle, events;
} last;

void query_call(const char *fn, const void *params, CUcontext ctx, int ok)
{
	int kind = gmp_query_api__kind(fn);
	if (!kind || !params || !ok)
		return;
	uint64_t handle;
	memcpy(&handle, (const char *)params + GMP_QUERY_PARAM_HANDLE, sizeof(handle));
	/* A stream query's NULL in a per-thread call (cudaStreamQuery_ptsz) is the thread's default stream. */
	if (kind == 2 && handle == 0 && gmp_api__per_thread(fn))
		handle = 2;
	pthread_mutex_lock(&gmp_col.lock);
	if (!gmp_col.closed && !gmp_col.write_failed &&
	    !(last.kind == kind && last.handle == handle && last.events == gmp_writer__events(gmp_col.w))) {
		struct gmp_event e = { .op = GMP_OP_SYNC, .device = rec_device(ctx) };
		if (kind == 1) {
			e.flags = GMP_EF_SYNC_EVENT;
			e.value = handle;
		} else {
			e.flags = GMP_EF_SYNC_STREAM;
			e.stream = rec_stream(handle);
		}
		if (rec_event(&e, fn, 1) >= 0) {
			last.kind = kind;
			last.handle = handle;
			last.events = gmp_writer__events(gmp_col.w);
		}
	}
	pthread_mutex_unlock(&gmp_col.lock);
}
