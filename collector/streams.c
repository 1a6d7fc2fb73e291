// SPDX-License-Identifier: MIT
/*
 * Streams the program makes: whether each is blocking.  A stream made by
 * cudaStreamCreate, or with flags that lack cudaStreamNonBlocking, and the
 * legacy default stream wait for each other's earlier work; the detector
 * orders them so (detector/build.c) where the profile says a stream is
 * blocking.  The STREAM_CREATED callback carries no flags, so the end of
 * the call that made the stream, whose parameters hold them and the
 * pointer the new handle was written to, writes the stream's record again
 * with them (format/trace.c: a later record of a number replaces its
 * first).  A stream made by a call not read here (a green context's, a
 * library's driver call with API callbacks off) keeps unknown flags: the
 * detector orders it with nothing but its own work and syncs, as before.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "alloc_api.h"
#include "collector.h"
#include "ipc.h"
#include "nvtx_abi.h"

void stream_created(const Sanitizer_ResourceStreamData *sd)
{
	rec_stream_created((uint64_t)(uintptr_t)sd->stream, rec_device(sd->context));
}

static void stream_call(const char *fn, const void *params, CUcontext ctx, int ok)
{
	int kind = gmp_stream_api__kind(fn);
	if (!kind || !params || !ok)
		return;
	const char *p = params;
	const void *at;
	uint64_t handle;
	uint32_t flags = 0;
	memcpy(&at, p + GMP_STREAM_PARAM_HANDLE, sizeof(at));
	if (!at)
		return;
	memcpy(&handle, at, sizeof(handle));
	if (kind == 2)
		memcpy(&flags, p + GMP_STREAM_PARAM_FLAGS, sizeof(flags));
	pthread_mutex_lock(&gmp_col.lock);
	if (!gmp_col.closed) /* a call at exit, after the profile was closed: nothing to record */
		rec_stream_flags(handle, rec_device(ctx), GMP_STREAM_KNOWN | (flags & GMP_STREAM_NON_BLOCKING));
	pthread_mutex_unlock(&gmp_col.lock);
}

void calls_ended(const char *fn, const void *params, CUcontext ctx, int ok)
{
	tex_call(fn, params, ctx, ok);
	tmap_call(fn, params, ctx, ok);
	stream_call(fn, params, ctx, ok);
	query_call(fn, params, ctx, ok);
	ipc_call_ended(fn, params, ctx, ok);
}

/*
 * Lock held, the profile open: the stream of handle (NULL, CU_STREAM_LEGACY:
 * the legacy default stream; CU_STREAM_PER_THREAD: the calling thread's)
 * named name, as META stream.N.name.  0 where the handle is no stream the
 * collector has seen.
 */
static int record_name(uint64_t handle, const char *name)
{
	uint32_t number;
	if (handle <= 2) { /* a default stream (a thread's: made at first sight) */
		number = rec_stream_in(handle, NULL);
	} else { /* a stream the program made: one the collector has seen */
		const uint32_t *slot = gmp_u64map__get(&gmp_col.streams, handle);
		if (!slot)
			return 0;
		number = *slot;
	}
	char key[40];
	snprintf(key, sizeof(key), "stream.%" PRIu32 ".name", number);
	rec_meta(key, name);
	return 1;
}

/*
 * A stream's name, as the program gives it through NVTX: the runtime's
 * nvtxNameCudaStream and the driver's nvtxNameCuStream take the same
 * handle.  Perfetto and the reports name the stream by it.  (A default
 * stream named before the program's first CUDA call is named in the
 * profile too: NVTX loading the collector as its tool starts it.)
 */
static void name_stream(const void *stream, const char *name)
{
	static int warned;
	int seen = 1;
	pthread_mutex_lock(&gmp_col.lock);
	if (gmp_col.active && !gmp_col.closed && !gmp_col.write_failed) /* after a failure, streams go unrecorded */
		seen = record_name((uint64_t)(uintptr_t)stream, name);
	pthread_mutex_unlock(&gmp_col.lock);
	if (!seen && !__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
		rec_say("NVTX named stream %p, which is no stream the program made: the name is not recorded", stream);
}

void nvtx_name_stream_a(const void *stream, const char *name)
{
	char buf[GMP_NVTX_NAME_MAX];
	if (name && nvtx_name(GMP_NVTX_MESSAGE_ASCII, name, buf, sizeof(buf)) && *buf)
		name_stream(stream, buf);
}

void nvtx_name_stream_w(const void *stream, const wchar_t *name)
{
	char buf[GMP_NVTX_NAME_MAX];
	if (name && nvtx_name(GMP_NVTX_MESSAGE_UNICODE, name, buf, sizeof(buf)) && *buf)
		name_stream(stream, buf);
}
