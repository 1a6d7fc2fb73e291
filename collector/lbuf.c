// SPDX-License-Identifier: MIT
/*
 * Memory the collector's device side holds: launch buffers (pooled per
 * context) with their hit lists in pinned host memory, the device memory
 * to free once the lock is released (device.h says why), and the pinned
 * buffer large reads of device memory go through.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "patch_abi.h"
#include "util.h"

/* Device memory (host: pinned host memory) to free once the lock is released. */
static void free_later(struct gmp_ctx_state *s, void *p, size_t bytes, int host)
{
	if (!p)
		return;
	if (GMP_GROW(s->garbage, s->garbage_cap, s->ngarbage + 1)) {
		dev_out_of_memory("freeing device memory"); /* kept: freeing here could deadlock */
		return;
	}
	s->garbage[s->ngarbage++] = (struct gmp_dev_block){ p, bytes, host };
}

void dev_free_later(struct gmp_ctx_state *s, void *dev, size_t bytes)
{
	free_later(s, dev, bytes, 0);
}

/* A launch buffer's device memory and pinned host list. */
static void lbuf_free_later(struct gmp_ctx_state *s, const struct lbuf *b)
{
	free_later(s, b->dev, lbuf_bytes(b), 0);
	free_later(s, b->host_list, 0, 1);
}

void dev_collect_garbage(struct gmp_ctx_state *s)
{
	while (s->ngarbage) {
		struct gmp_dev_block *g = s->garbage;
		size_t n = s->ngarbage, freed = 0;
		s->garbage = NULL;
		s->ngarbage = s->garbage_cap = 0;
		dev_unlock();
		for (size_t i = 0; i < n; i++)
			if ((g[i].host ? gmp_col.san.FreeHost(s->ctx, g[i].dev) : gmp_col.san.Free(s->ctx, g[i].dev)) ==
			    SANITIZER_SUCCESS)
				freed += g[i].bytes;
		free(g);
		dev_lock();
		gmp_col.dev_bytes -= freed;
	}
}

void dev_put_buffer(struct gmp_ctx_state *s, struct lbuf b)
{
	s->lbuf_out -= lbuf_bytes(&b);
	if (GMP_GROW(s->free, s->free_cap, s->nfree + 1)) {
		lbuf_free_later(s, &b);
		return;
	}
	s->free[s->nfree++] = b;
}

void dev_release_buffers(struct gmp_ctx_state *s)
{
	for (size_t i = 0; i < s->nfree; i++)
		lbuf_free_later(s, &s->free[i]);
	s->nfree = 0;
}

/*
 * A hit list of cap items in pinned host memory (patch_abi.h), where the
 * host reads it after the sync without a copy; NULL where the Sanitizer
 * has no sanitizerAllocHost, under GMPROF_FALLBACK=device-lists, or when
 * it fails (said once): the list is then read back from the device.  Lock
 * released.
 */
static struct gmp_patch_host_list *host_list(struct gmp_ctx_state *s, uint32_t cap)
{
	if (!cap || !gmp_col.san.AllocHost || !gmp_col.san.FreeHost ||
	    (gmp_col.opts.fallback & GMP_FALLBACK_DEVICE_LISTS))
		return NULL;
	void *p = NULL;
	SanitizerResult r = gmp_col.san.AllocHost(s->ctx, &p, sizeof(struct gmp_patch_host_list) + (size_t)cap * 4);
	if (r != SANITIZER_SUCCESS || !p) {
		static int said;
		if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
			rec_say("cannot allocate pinned host memory for a launch's hit list (%s): hit lists are read back "
				"from the device", gmp_san__strerror(&gmp_col.san, r));
		return NULL;
	}
	return p;
}

/*
 * A launch buffer for n entries (and heap records when the context's
 * kernels may malloc()): from the pool, or allocated with the lock released.
 */
int dev_get_buffer(struct gmp_ctx_state *s, size_t n, struct lbuf *out)
{
	size_t heap = s->heap ? gmp_col.opts.heap_records : 0;
	int hints = gmp_col.opts.patch_hints;
	for (size_t i = 0; i < s->nfree; i++) {
		if (s->free[i].cap >= n && s->free[i].heap_cap >= heap && s->free[i].hints >= hints) {
			*out = s->free[i];
			s->free[i] = s->free[--s->nfree];
			s->lbuf_out += lbuf_bytes(out);
			return 0;
		}
	}
	size_t cap = n < 64 ? 64 : n + n / 4;
	*out = (struct lbuf){ .cap = cap, .heap_cap = heap, .hints = hints };
	dev_unlock();
	/* The list first: with it in host memory, the device holds ring headers and no list (device.h). */
	out->host_list = host_list(s, lbuf_list_cap(out));
	size_t bytes = lbuf_bytes(out);
	SanitizerResult r = gmp_col.san.Alloc(s->ctx, &out->dev, bytes);
	if (r != SANITIZER_SUCCESS && out->host_list) {
		SanitizerResult f = gmp_col.san.FreeHost(s->ctx, out->host_list);
		if (f != SANITIZER_SUCCESS)
			rec_say("cannot free a launch's pinned hit list (%s)", gmp_san__strerror(&gmp_col.san, f));
		out->host_list = NULL;
	}
	dev_lock();
	if (r == SANITIZER_SUCCESS) {
		dev_allocated(bytes);
		s->lbuf_out += bytes;
	}
	return dev_check(r, "allocating a launch buffer");
}

/*
 * Large reads (intra maps, access records, every hit word) go through a
 * pinned host buffer of the context's, STAGE_BYTES at a time, copied on
 * into the caller's memory: the Sanitizer's copy into pageable memory is
 * the driver's staged copy, and on the H100 (2026-11-27) intra mode's
 * reads of maps ran at about 1 GB/s, 483 of simple_multi_copy's 489 ms of
 * host time (benchmarks/results).  A read under STAGE_MIN, or with no
 * staging buffer (GMPROF_FALLBACK=pinned-reads, or sanitizerAllocHost
 * missing or refusing: said once), is copied straight into dst.  One
 * thread at a time uses the buffer (stage_lock, taken with gmp_col.lock
 * released and never the other way round).
 */
#define STAGE_BYTES ((size_t)8 << 20)
#define STAGE_MIN ((size_t)64 << 10)

/* The staging buffer, allocated at its first use: stage_lock held. */
static void *stage_of(struct gmp_ctx_state *s)
{
	if (s->stage || s->stage_failed)
		return s->stage;
	if (!gmp_col.san.AllocHost || !gmp_col.san.FreeHost || (gmp_col.opts.fallback & GMP_FALLBACK_PINNED_READS)) {
		s->stage_failed = 1;
		return NULL;
	}
	SanitizerResult r = gmp_col.san.AllocHost(s->ctx, &s->stage, STAGE_BYTES);
	if (r != SANITIZER_SUCCESS || !s->stage) {
		s->stage = NULL;
		s->stage_failed = 1;
		static int said;
		if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
			rec_say("cannot allocate pinned host memory for reading intra maps (%s): they are read straight "
				"into pageable memory, more slowly", gmp_san__strerror(&gmp_col.san, r));
	}
	return s->stage;
}

int dev_read(struct gmp_ctx_state *s, void *dst, void *src, size_t n, Sanitizer_StreamHandle hs, const char *what)
{
	if (n < STAGE_MIN)
		return dev_check(gmp_col.san.MemcpyDeviceToHost(dst, src, n, hs), what);
	pthread_mutex_lock(&s->stage_lock);
	void *stage = stage_of(s);
	int err = 0;
	if (!stage)
		err = dev_check(gmp_col.san.MemcpyDeviceToHost(dst, src, n, hs), what);
	for (size_t at = 0; stage && !err && at < n; at += STAGE_BYTES) {
		size_t c = n - at < STAGE_BYTES ? n - at : STAGE_BYTES;
		err = dev_check(gmp_col.san.MemcpyDeviceToHost(stage, (char *)src + at, c, hs), what);
		if (!err)
			memcpy((char *)dst + at, stage, c);
	}
	pthread_mutex_unlock(&s->stage_lock);
	return err;
}

void dev_release_stage(struct gmp_ctx_state *s)
{
	pthread_mutex_lock(&s->stage_lock);
	void *stage = s->stage;
	s->stage = NULL;
	pthread_mutex_unlock(&s->stage_lock);
	free_later(s, stage, 0, 1);
}
