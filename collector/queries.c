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
 * loop's) records nothing more.
 *
 * A successful event query also collects the launches the event was
 * recorded after, on its stream (and, recorded on the legacy default
 * stream, on the blocking streams: DEV_SYNC_LEGACY), as a sync would: a
 * program that only polls (a framework's event manager) would otherwise
 * leave them pending until the launch buffers ran out, when the collector
 * waits for the oldest.  A stream query collects nothing: its data names
 * no Sanitizer stream handle.
 *
 * The end of a call that synchronized (a stream, event or device sync, a
 * blocking copy, cudaFree) is when what it waited for is known finished:
 * its events are stamped as the call began, so call_returned writes a
 * RETURNED record with the time of its return (memory over time bounds
 * the work it waited for by it, rather than by the thread's next call).
 */
#define _GNU_SOURCE
#include <string.h>

#include "alloc_api.h"
#include "collector.h"
#include "util.h"

/* Where each event was last recorded (lock held): event handle -> its index in recs. */
static struct gmp_u64map rec_of;
static struct recorded {
	CUcontext ctx;
	Sanitizer_StreamHandle hs;
	uint64_t seq;            /* launches enqueued when it was recorded */
	uint32_t stream;
} *recs;
static size_t nrecs, recs_cap;

void query_recorded(uint64_t event, CUcontext ctx, Sanitizer_StreamHandle hs, uint32_t stream)
{
	int is_new;
	uint32_t *i = gmp_u64map__slot(&rec_of, event, (uint32_t)nrecs, &is_new);
	if (!i || (is_new && GMP_GROW(recs, recs_cap, nrecs + 1))) {
		static int said;
		if (!said++)
			rec_say("out of memory for where events were recorded: a successful event query collects no launch");
		return;
	}
	if (is_new)
		nrecs++;
	recs[*i] = (struct recorded){ ctx, hs, __atomic_load_n(&gmp_col.enqueue_seq, __ATOMIC_ACQUIRE), stream };
}

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
	pthread_mutex_lock(&gmp_col.lock);
	if (!gmp_col.closed && !gmp_col.write_failed &&
	    !(last.kind == kind && last.handle == handle && last.events == gmp_writer__events(gmp_col.w))) {
		struct gmp_event e = { .op = GMP_OP_SYNC, .device = rec_device(ctx) };
		if (kind == 1) {
			e.flags = GMP_EF_SYNC_EVENT;
			e.value = handle;
		} else {
			e.flags = GMP_EF_SYNC_STREAM;
			e.stream = rec_stream_in(handle, fn); /* cudaStreamQuery_ptsz's NULL: the thread's default stream */
		}
		if (rec_event(&e, fn, 1) >= 0) {
			last.kind = kind;
			last.handle = handle;
			last.events = gmp_writer__events(gmp_col.w);
		}
		const uint32_t *i = kind == 1 ? gmp_u64map__get(&rec_of, handle) : NULL;
		if (i) { /* the Sanitizer's calls it makes are not the program's */
			const struct recorded r = recs[*i];
			int was = cb_guard();
			dev_synced(r.ctx, r.hs, r.stream ? DEV_SYNC_STREAM : DEV_SYNC_LEGACY, r.seq, !r.stream);
			cb_unguard(was);
		}
	}
	pthread_mutex_unlock(&gmp_col.lock);
}

void call_returned(int64_t *sync_ev)
{
	if (*sync_ev < 0)
		return;
	uint64_t t0 = st_now();
	st_lock(t0);
	if (gmp_col.w && !gmp_col.closed && !gmp_col.write_failed) {
		uint64_t ns = rec_now();
		int err = gmp_writer__returned(gmp_col.w, (uint64_t)*sync_ev, ns);
		if (err)
			rec_write_failed(err);
		else if (gmp_col.trace && gmp_trace__add_return(gmp_col.trace, (uint32_t)*sync_ev, ns))
			rec_online_lost();
	}
	st_since(GMP_ST_CALLBACKS, t0);
	pthread_mutex_unlock(&gmp_col.lock);
	*sync_ev = -1;
}
