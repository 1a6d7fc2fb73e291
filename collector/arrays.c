// SPDX-License-Identifier: MIT
/*
 * CUDA arrays (cudaMallocArray, cudaMalloc3DArray, cuArrayCreate,
 * cuArray3DCreate): device memory laid out for textures and surfaces.
 * They count towards what a device holds and can run it out of memory as
 * any allocation can, but they have no address a kernel's global accesses
 * could name: the Sanitizer reports them by handle, with their dimensions
 * (ARRAY_CREATED, ARRAY_DESTROYED), and the driver says their element
 * format (cuArray3DGetDescriptor), which gives their bytes (alloc_api.c).
 *
 * Each array is recorded as an object of kind cuda_array at an address of
 * its own, from GMP_ARRAY_BASE up, never reused in a run and far above any
 * address a GPU or a host maps, so that no access, copy or other object
 * can ever fall in it.  The driver is asked about a new array at the end
 * of the program's call that made it (the collector's lock not held, as
 * for the free memory at a failure), and the ALLOC event is recorded then,
 * labelled with that call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "alloc_api.h"
#include "collector.h"
#include "util.h"

#define GMP_ARRAY_BASE 0xa000000000000000ull
#define GMP_ARRAY_GAP (2ull << 20) /* between two arrays' ranges, and each range rounded up to it */
#define FRESH_MAX 16                /* arrays made in one call and not yet recorded, per thread */

/* This thread's arrays made since its last arrays_record. */
static __thread struct fresh {
	CUarray handle;
	CUcontext ctx;
	uint64_t width, height, depth; /* the Sanitizer's */
	uint64_t bytes;                /* 0: not known (arrays_describe) */
	uint32_t format;
	int answered;                  /* the driver described it */
} fresh[FRESH_MAX];
static __thread size_t nfresh;

/* The live arrays (gmp_col.lock). */
static struct live_array {
	CUarray handle;
	uint64_t addr;
	uint32_t device;
} *live;
static size_t nlive, live_cap;
static uint64_t next_addr = GMP_ARRAY_BASE;

void arrays_created(const Sanitizer_ResourceArrayData *ad)
{
	static int warned;
	if (!ad->hArray)
		return;
	if (nfresh == FRESH_MAX) {
		if (!warned++)
			rec_say("more than %d CUDA arrays made in one call: the later ones are left out of the profile",
				FRESH_MAX);
		return;
	}
	fresh[nfresh++] = (struct fresh){ .handle = ad->hArray, .ctx = ad->context, .width = ad->width,
					  .height = ad->height, .depth = ad->depth };
}

int arrays_due(void)
{
	return nfresh > 0;
}

void arrays_describe(void)
{
	for (size_t i = 0; i < nfresh; i++) {
		struct gmp_array3d_desc d;
		struct fresh *f = &fresh[i];
		f->answered = !drv_array_desc(f->handle, &d);
		if (!f->answered)
			continue;
		f->format = d.format;
		f->bytes = gmp_array_bytes(d.format, d.channels, d.width, d.height, d.depth);
	}
}

/* The live array of handle, or nlive. */
static size_t find(CUarray handle)
{
	size_t i = 0;
	while (i < nlive && live[i].handle != handle)
		i++;
	return i;
}

/* One described array: its ALLOC event at a range of its own. */
static void record_one(const struct fresh *f, const char *api)
{
	static int unanswered, unknown;
	if (!f->answered) {
		if (!unanswered++)
			rec_say("the driver did not describe a CUDA array (%llu x %llu x %llu): it is left out of the "
				"profile, and its memory out of the peaks",
				(unsigned long long)f->width, (unsigned long long)f->height,
				(unsigned long long)f->depth);
		return;
	}
	if (!f->bytes) {
		if (!unknown++)
			rec_say("a CUDA array of format 0x%x, whose element size gmprof does not know: it is left out "
				"of the profile, and its memory out of the peaks", f->format);
		return;
	}
	uint64_t span = (f->bytes + GMP_ARRAY_GAP - 1) / GMP_ARRAY_GAP * GMP_ARRAY_GAP + GMP_ARRAY_GAP;
	if (f->bytes > UINT64_MAX - 2 * GMP_ARRAY_GAP || next_addr > UINT64_MAX - span) {
		rec_say("the CUDA arrays' address range is used up: later arrays are left out of the profile");
		return;
	}
	size_t i = find(f->handle);
	if (i == nlive) { /* else the handle of an array of a context torn down since, now another's */
		if (GMP_GROW(live, live_cap, nlive + 1)) {
			rec_write_failed(-ENOMEM); /* an object left out would mislead: stop instead */
			return;
		}
		nlive++;
	}
	uint32_t device = rec_device(f->ctx);
	live[i] = (struct live_array){ f->handle, next_addr, device };
	struct gmp_event e = { .op = GMP_OP_ALLOC, .kind = GMP_MEM_ARRAY, .addr = next_addr,
			       .size = f->bytes, .device = device, .stream = rec_stream(0) };
	next_addr += span;
	rec_event(&e, api, 1);
}

void arrays_record(const char *api)
{
	for (size_t i = 0; i < nfresh; i++)
		record_one(&fresh[i], api);
	nfresh = 0;
}

void arrays_destroyed(const Sanitizer_ResourceArrayData *ad, int dying)
{
	/* Made in this call and not yet recorded (a call that makes an array and fails?): never mind it. */
	for (size_t i = 0; i < nfresh; i++)
		if (fresh[i].handle == ad->hArray) {
			fresh[i] = fresh[--nfresh];
			return;
		}
	size_t i = find(ad->hArray);
	if (i == nlive)
		return; /* made before gmprof was loaded, or left out */
	struct gmp_event e = { .op = GMP_OP_FREE, .addr = live[i].addr, .device = live[i].device,
			       .stream = rec_stream(0) };
	live[i] = live[--nlive];
	if (!dying) /* torn down with its context: the program leaked it */
		rec_event(&e, NULL, 1);
}

void cb_arrays(const char *api)
{
	uint64_t t0 = st_now();
	int was = cb_guard();
	arrays_describe();
	cb_unguard(was);
	st_lock(t0);
	if (gmp_col.closed)
		nfresh = 0; /* the profile is closed: nothing more goes in */
	else
		arrays_record(api);
	st_since(GMP_ST_CALLBACKS, t0);
	pthread_mutex_unlock(&gmp_col.lock);
}
