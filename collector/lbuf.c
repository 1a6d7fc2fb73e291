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

/*
 * Hit lists in pinned host memory are pieces of slabs of SLAB_BYTES: one
 * sanitizerAllocHost for dozens of launch buffers, where each took its
 * own.  Pinning host memory is a call into the OS and the driver (the
 * reason frameworks keep caching host allocators), and a launch-heavy
 * program's launches before its first sync each take a new buffer (the
 * many_allocs model: 256 in its first 256 launches).  Pieces come back to
 * hfree with their buffers, slabs are freed at the context's end.
 */
#define SLAB_BYTES ((size_t)256 << 10)
#define PIECE_ALIGN ((size_t)64)

static size_t piece_bytes(uint32_t list_cap)
{
	return (sizeof(struct gmp_patch_host_list) + (size_t)list_cap * 4 + PIECE_ALIGN - 1) & ~(PIECE_ALIGN - 1);
}

/* A piece given back (lock held): kept for the next lists, or left to its slab's end. */
static void piece_give(struct gmp_ctx_state *s, void *p, size_t bytes)
{
	if (p && !GMP_GROW(s->hfree, s->hfree_cap, s->nhfree + 1))
		s->hfree[s->nhfree++] = (struct hpiece){ p, bytes };
}

/* A piece of at least bytes (lock held): a free one of at most twice that, or the newest slab's next; NULL: none. */
static void *piece_take(struct gmp_ctx_state *s, size_t bytes, size_t *got)
{
	for (size_t i = 0; i < s->nhfree; i++) {
		if (s->hfree[i].bytes >= bytes && s->hfree[i].bytes <= 2 * bytes) {
			void *p = s->hfree[i].p;
			*got = s->hfree[i].bytes;
			s->hfree[i] = s->hfree[--s->nhfree];
			return p;
		}
	}
	if (s->slab_left < bytes)
		return NULL;
	void *p = s->slab_at;
	s->slab_at += bytes;
	s->slab_left -= bytes;
	*got = bytes;
	return p;
}

/* A launch buffer's device memory, and its pinned host list back to the pieces: lock held. */
static void lbuf_free_later(struct gmp_ctx_state *s, const struct lbuf *b)
{
	free_later(s, b->dev, lbuf_bytes(b), 0);
	piece_give(s, b->host_list, b->host_bytes);
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
	for (size_t i = 0; i < s->nslabs; i++)
		free_later(s, s->slabs[i], 0, 1);
	free(s->slabs);
	free(s->hfree);
	s->slabs = NULL;
	s->hfree = NULL;
	s->nslabs = s->slabs_cap = s->nhfree = s->hfree_cap = s->slab_left = 0;
	s->slab_at = NULL;
}

/*
 * A new slab of pinned host memory for hit lists (lock released), *size
 * bytes: SLAB_BYTES, or where the Sanitizer refuses that much, need alone;
 * NULL where it refuses that too (said once; the caller asks no more in
 * this context: its lists stay on the device).
 */
static void *slab_new(struct gmp_ctx_state *s, size_t need, size_t *size)
{
	void *p = NULL;
	SanitizerResult r = gmp_col.san.AllocHost(s->ctx, &p, SLAB_BYTES);
	*size = SLAB_BYTES;
	if (r != SANITIZER_SUCCESS || !p) {
		p = NULL;
		r = gmp_col.san.AllocHost(s->ctx, &p, need);
		*size = need;
	}
	if (r == SANITIZER_SUCCESS && p)
		return p;
	static int said;
	if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		rec_say("cannot allocate pinned host memory for a launch's hit list (%s): hit lists are read back "
			"from the device", gmp_san__strerror(&gmp_col.san, r));
	return NULL;
}

/*
 * The slab of size bytes made for b's list, its first piece (lock held):
 * now the context's newest, what is left of it to carve, the last one's
 * end kept as a piece.  0, or -ENOMEM: not kept (freed later).
 */
static int slab_add(struct gmp_ctx_state *s, void *slab, size_t size, const struct lbuf *b)
{
	if (GMP_GROW(s->slabs, s->slabs_cap, s->nslabs + 1)) {
		free_later(s, slab, 0, 1);
		return -ENOMEM;
	}
	s->slabs[s->nslabs++] = slab;
	if (s->slab_left >= PIECE_ALIGN)
		piece_give(s, s->slab_at, s->slab_left);
	s->slab_at = (char *)slab + b->host_bytes;
	s->slab_left = size - b->host_bytes;
	return 0;
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
	/*
	 * The list first: with it in host memory, the device holds ring
	 * headers and no list (device.h).  A piece of a slab, or the first of
	 * a new one; none where the Sanitizer cannot pin host memory, or under
	 * GMPROF_FALLBACK=device-lists.
	 */
	uint32_t lcap = lbuf_list_cap(out);
	int pinned = lcap && gmp_col.san.AllocHost && gmp_col.san.FreeHost && !s->slab_failed &&
		     !(gmp_col.opts.fallback & GMP_FALLBACK_DEVICE_LISTS);
	if (pinned)
		out->host_list = piece_take(s, piece_bytes(lcap), &out->host_bytes);
	dev_unlock();
	size_t slab_size = 0;
	void *slab = pinned && !out->host_list ? slab_new(s, piece_bytes(lcap), &slab_size) : NULL;
	if (slab) {
		out->host_list = slab;
		out->host_bytes = piece_bytes(lcap);
	}
	size_t bytes = lbuf_bytes(out);
	SanitizerResult r = gmp_col.san.Alloc(s->ctx, &out->dev, bytes);
	dev_lock();
	if (pinned && !out->host_list)
		s->slab_failed = 1;
	int kept = !slab || !slab_add(s, slab, slab_size, out);
	if (r != SANITIZER_SUCCESS || !kept) {
		if (kept)
			piece_give(s, out->host_list, out->host_bytes);
		if (r == SANITIZER_SUCCESS) /* laid out for a list in host memory that is gone */
			free_later(s, out->dev, bytes, 0);
		out->dev = NULL;
		out->host_list = NULL;
		if (r == SANITIZER_SUCCESS) {
			dev_out_of_memory("keeping a slab of pinned host memory");
			return -ENOMEM;
		}
		return dev_check(r, "allocating a launch buffer");
	}
	dev_allocated(bytes);
	s->lbuf_out += bytes;
	return 0;
}

/*
 * Large reads (intra maps, access records, every hit word) go through a
 * pinned host buffer of the context's, STAGE_BYTES at a time, copied on
 * into the caller's memory: the Sanitizer's copy into pageable memory is
 * the driver's staged copy, and on the H100 (2026-11-27) intra mode's
 * reads of maps ran at about 1 GB/s, 483 of simple_multi_copy's 489 ms of
 * host time (benchmarks/results).  A read under STAGE_MIN, or with no
 * staging buffer (GMPROF_FALLBACK=pinned-reads, or sanitizerAllocHost
 * missing or refusing: said once), is copied straight into dst, as is
 * one while another thread's read uses the buffer (stage_lock, only ever
 * tried: see dev_read).  A reader whose bytes fit in the buffer may take
 * it and parse them there instead (dev_stage_take: a launch's intra maps),
 * which saves the copy on and memory of its own.
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

/*
 * The staging buffer with stage_lock held, or NULL (not held): another
 * thread's read uses it, or there is none.  Never waited for: a read may
 * come from inside an allocation or free callback, which holds the
 * driver's lock that another thread's copy through the buffer may be
 * waiting for (docs/sanitizer-api.md); a wait here would deadlock.
 */
static void *stage_try(struct gmp_ctx_state *s)
{
	if (pthread_mutex_trylock(&s->stage_lock))
		return NULL;
	void *stage = stage_of(s);
	if (!stage)
		pthread_mutex_unlock(&s->stage_lock);
	return stage;
}

int dev_read(struct gmp_ctx_state *s, void *dst, void *src, size_t n, Sanitizer_StreamHandle hs, const char *what)
{
	void *stage = n < STAGE_MIN ? NULL : stage_try(s);
	if (!stage)
		return dev_check(gmp_col.san.MemcpyDeviceToHost(dst, src, n, hs), what);
	int err = 0;
	for (size_t at = 0; !err && at < n; at += STAGE_BYTES) {
		size_t c = n - at < STAGE_BYTES ? n - at : STAGE_BYTES;
		err = dev_check(gmp_col.san.MemcpyDeviceToHost(stage, (char *)src + at, c, hs), what);
		if (!err)
			memcpy((char *)dst + at, stage, c);
	}
	pthread_mutex_unlock(&s->stage_lock);
	return err;
}

void *dev_stage_take(struct gmp_ctx_state *s, size_t n)
{
	return n < STAGE_MIN || n > STAGE_BYTES ? NULL : stage_try(s);
}

void dev_stage_give(struct gmp_ctx_state *s)
{
	pthread_mutex_unlock(&s->stage_lock);
}

void dev_release_stage(struct gmp_ctx_state *s)
{
	pthread_mutex_lock(&s->stage_lock);
	void *stage = s->stage;
	s->stage = NULL;
	pthread_mutex_unlock(&s->stage_lock);
	free_later(s, stage, 0, 1);
}
