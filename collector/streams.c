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
#include <string.h>

#include "alloc_api.h"
#include "collector.h"

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
}
