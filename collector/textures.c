// SPDX-License-Identifier: MIT
/*
 * Texture objects over linear memory (cudaCreateTextureObject,
 * cuTexObjectCreate with a resource of type linear or pitch2D): a kernel
 * reads such an object's memory through the texture unit, with texture
 * instructions the device patches are not called for.  Unseen, those
 * reads would make the upload into such a buffer its last use, and its
 * memory free for another object to reuse (a redundant allocation that
 * would break the program).
 *
 * Which launches read through a texture is not known (a kernel names it
 * by a 64-bit handle among its parameters), so every kernel launched on
 * the texture's device while the texture exists, and its object is live,
 * is taken to read the object: a read added to the launch's accesses.
 * That can hide a late deallocation or an idleness of the object, never
 * make one up.  In intra mode the launch records no touch of the object
 * for those reads, so its bytes are not known (detector/intra.c: such an
 * object is not analyzed for overallocation and access patterns).
 *
 * The objects that textures of the launch's device read when it is
 * enqueued go with the pending launch (tex_live), and become reads of its
 * accesses when it is collected (tex_reads).  A texture ends with the call
 * that destroys it, its object's free, or its context's teardown (after
 * cudaDeviceReset the objects the teardown freed stay live: leaks).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_api.h"
#include "collector.h"
#include "util.h"

/* The live textures (gmp_col.lock). */
static struct texture {
	uint64_t handle;
	uint64_t obj;    /* the start of the object it reads */
	CUcontext ctx;
	uint32_t device;
} *texs;
static size_t ntexs, texs_cap;

static void made(uint64_t handle, const void *res, CUcontext ctx, uint32_t device)
{
	int type;
	uint64_t ptr, start, end;
	memcpy(&type, res, sizeof(type));
	if (type != GMP_TEX_RES_LINEAR && type != GMP_TEX_RES_PITCH2D)
		return; /* a CUDA array's: no object gmprof analyzes (arrays.c) */
	memcpy(&ptr, (const char *)res + GMP_TEX_RES_DEVPTR, sizeof(ptr));
	if (!rec_live_floor(ptr, &start, &end) || ptr >= end)
		return; /* not in an object gmprof tracks (module variables, host memory) */
	if (GMP_GROW(texs, texs_cap, ntexs + 1)) {
		static int said;
		if (!said++)
			rec_say("out of memory for a texture object: the reads through it are not recorded");
		return;
	}
	texs[ntexs++] = (struct texture){ .handle = handle, .obj = start, .ctx = ctx, .device = device };
}

static void destroyed(uint64_t handle)
{
	for (size_t i = ntexs; i--;)
		if (texs[i].handle == handle)
			texs[i] = texs[--ntexs];
}

void tex_call(const char *fn, const void *params, CUcontext ctx, int ok)
{
	int kind = gmp_tex_api__kind(fn);
	if (!kind || !params)
		return;
	const char *p = params;
	uint64_t handle;
	const void *handle_at = NULL, *res = NULL;
	if (kind > 0) { /* (handle *, resource *, ...); a destroy's block holds the handle alone */
		memcpy(&handle_at, p + GMP_TEX_PARAM_HANDLE, sizeof(handle_at));
		memcpy(&res, p + GMP_TEX_PARAM_RESOURCE, sizeof(res));
		if (!ok || !handle_at || !res)
			return;
	}
	memcpy(&handle, kind > 0 ? handle_at : (const void *)(p + GMP_TEX_PARAM_HANDLE), sizeof(handle));
	pthread_mutex_lock(&gmp_col.lock);
	uint32_t device = rec_device(ctx);
	destroyed(handle); /* a handle made again was destroyed first */
	if (kind > 0)
		made(handle, res, ctx, device);
	pthread_mutex_unlock(&gmp_col.lock);
}

void tex_object_freed(uint64_t addr)
{
	for (size_t i = ntexs; i--;)
		if (texs[i].obj == addr)
			texs[i] = texs[--ntexs];
}

void tex_context_gone(CUcontext ctx)
{
	for (size_t i = ntexs; i--;)
		if (texs[i].ctx == ctx)
			texs[i] = texs[--ntexs];
}

uint64_t *tex_live(uint32_t device, size_t *n)
{
	*n = 0;
	size_t m = 0;
	for (size_t i = 0; i < ntexs; i++)
		m += texs[i].device == device;
	if (!m)
		return NULL;
	uint64_t *objs = malloc(m * sizeof(*objs));
	if (!objs) {
		static int said;
		if (!said++)
			rec_say("out of memory for a launch's texture reads: they are not recorded");
		return NULL;
	}
	for (size_t i = 0; i < ntexs; i++)
		if (texs[i].device == device)
			objs[(*n)++] = texs[i].obj;
	return objs;
}

static int by_addr(const void *a, const void *b)
{
	uint64_t x = ((const struct gmp_access *)a)->addr, y = ((const struct gmp_access *)b)->addr;
	return (x > y) - (x < y);
}

int tex_reads(const uint64_t *objs, size_t nobjs, struct gmp_access **acc, size_t *n)
{
	size_t added = 0;
	for (size_t i = 0; i < nobjs; i++) {
		size_t k = 0;
		while (k < *n && (*acc)[k].addr != objs[i])
			k++;
		if (k < *n) {
			(*acc)[k].rw |= GMP_RW_READ;
			continue;
		}
		struct gmp_access *a = realloc(*acc, (*n + 1) * sizeof(**acc));
		if (!a)
			return -ENOMEM;
		*acc = a;
		a[(*n)++] = (struct gmp_access){ .addr = objs[i], .rw = GMP_RW_READ };
		added++;
	}
	if (added)
		qsort(*acc, *n, sizeof(**acc), by_addr);
	return 0;
}
