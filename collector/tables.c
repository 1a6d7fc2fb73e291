// SPDX-License-Identifier: MIT
/*
 * Object tables: one snapshot of the live set per version, shared by the
 * launches that use it, with a copy on the device per stream that launched
 * with it; blocks no launch needs any more are kept for the next tables
 * uploaded on their stream.  As everywhere in device.h, the lock is held
 * on entry and released around every Sanitizer call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "util.h"

/* Host and device memory that object tables of pending launches may hold. */
#define SNAP_LIMIT (64u << 20)

/* Table blocks kept as spares, at most: 32 MiB, a table of 2M live objects or many smaller ones. */
#define TSPARE_LIMIT (SNAP_LIMIT / 2)

void dev_snap_put(struct gmp_ctx_state *s, struct snapshot *sn)
{
	if (!sn || --sn->refs)
		return;
	s->snap_bytes -= sn->bytes;
	for (size_t i = 0; i < sn->ncopies; i++) {
		struct tcopy c = sn->copies[i];
		if (s->tspare_bytes + c.cap <= TSPARE_LIMIT &&
		    !GMP_GROW(s->tspares, s->tspares_cap, s->ntspares + 1)) {
			s->tspares[s->ntspares++] = c;
			s->tspare_bytes += c.cap;
		} else {
			dev_free_later(s, c.dev, c.cap);
		}
	}
	free(sn->copies);
	free(sn->host);
	free(sn);
}

/*
 * The table of the current live set, with a reference for the caller: the
 * current one, or a new one built from a copy of the live set (host side
 * only; dev_table_on uploads it).
 */
struct snapshot *dev_current_table(struct gmp_ctx_state *s)
{
	/*
	 * Launches waiting for harvest keep their tables alive; with many live
	 * objects and a changing set, that memory grows with every launch.
	 * Past SNAP_LIMIT, collect the oldest launches before building a new
	 * table (collecting releases the lock: another thread may build it).
	 */
	while (!(s->cur && s->cur->version == gmp_col.live_version) && s->snap_bytes > SNAP_LIMIT &&
	       s->npend && dev_collect_oldest(s) > 0) {
	}
	if (s->cur && s->cur->version == gmp_col.live_version) {
		s->cur->refs++;
		return s->cur;
	}
	struct snapshot *sn = calloc(1, sizeof(*sn));
	/* Room for the live objects, each pool split into its NVTX regions and the gaps between them. */
	size_t most = gmp_col.tab_n + 2 * nvtx_region_count();
	if (!sn || !(sn->host = malloc(sizeof(struct gmp_patch_table) + 2 * most * sizeof(uint64_t)))) {
		dev_out_of_memory("building the object table");
		free(sn);
		return NULL;
	}
	uint64_t *start = (uint64_t *)((struct gmp_patch_table *)sn->host + 1);
	size_t n = gmp_col.tab_n;
	if (most > n) {
		n = nvtx_table_pieces(start, start + most);
		memmove(start + n, start + most, n * sizeof(uint64_t)); /* the ends follow the n starts */
	} else if (n) { /* no live objects: the arrays may not exist yet */
		memcpy(start, gmp_col.tab_start, n * sizeof(uint64_t));
		memcpy(start + n, gmp_col.tab_end, n * sizeof(uint64_t));
	}
	size_t bytes = sizeof(struct gmp_patch_table) + 2 * n * sizeof(uint64_t);
	sn->n = n;
	sn->table_bytes = bytes;
	sn->version = gmp_col.live_version;
	sn->refs = 2; /* the caller's, and as the current table */
	/* A copy of the recorder's sorted arrays, kept as the host's view too. */
	struct gmp_patch_table *t = sn->host;
	t->n = n;
	t->version = sn->version;
	sn->start = start;
	sn->end = start + n;
	sn->bytes = bytes;
	s->snap_bytes += sn->bytes;
	dev_snap_put(s, s->cur);
	s->cur = sn;
	return sn;
}

/*
 * The snapshot's table on the device for launches on stream hs.  Each
 * stream gets its own copy, uploaded on that stream: a launch there is
 * ordered after its upload, so no launch waits for the host, and no
 * stream waits for another (a copy costs 16 bytes per live object).
 * The upload runs with the lock released; the caller holds a reference.
 */
void *dev_table_on(struct gmp_ctx_state *s, struct snapshot *sn, Sanitizer_StreamHandle hs)
{
	for (size_t i = 0; i < sn->ncopies; i++)
		if (sn->copies[i].hs == hs)
			return sn->copies[i].dev;
	/* The smallest spare block of this stream that holds the table; or a new one, with room to grow. */
	struct tcopy c = { hs, NULL, 0 };
	size_t best = SIZE_MAX;
	for (size_t i = 0; i < s->ntspares; i++)
		if (s->tspares[i].hs == hs && s->tspares[i].cap >= sn->table_bytes &&
		    (best == SIZE_MAX || s->tspares[i].cap < s->tspares[best].cap))
			best = i;
	if (best != SIZE_MAX) {
		c = s->tspares[best];
		s->tspares[best] = s->tspares[--s->ntspares];
		s->tspare_bytes -= c.cap;
	}
	size_t cap = c.dev ? c.cap : sn->table_bytes + sn->table_bytes / 16 + 256;
	dev_unlock();
	int err = (!c.dev && dev_check(gmp_col.san.Alloc(s->ctx, &c.dev, cap), "allocating the object table")) ||
		  dev_check(gmp_col.san.MemcpyHostToDeviceAsync(c.dev, sn->host, sn->table_bytes, hs),
			    "uploading the object table");
	dev_lock();
	if (c.dev && !c.cap)
		dev_allocated(cap);
	c.cap = cap;
	if (!err && GMP_GROW(sn->copies, sn->copies_cap, sn->ncopies + 1)) {
		dev_out_of_memory("uploading the object table");
		err = -ENOMEM;
	}
	if (err) {
		dev_free_later(s, c.dev, cap);
		return NULL;
	}
	/* (Another thread may have added one for hs meanwhile: both are complete copies.) */
	sn->copies[sn->ncopies++] = c;
	sn->bytes += cap;
	s->snap_bytes += cap;
	return c.dev;
}

void dev_release_tables(struct gmp_ctx_state *s)
{
	dev_snap_put(s, s->cur); /* its table blocks become spares: freed below */
	s->cur = NULL;
	for (size_t i = 0; i < s->ntspares; i++)
		dev_free_later(s, s->tspares[i].dev, s->tspares[i].cap);
	free(s->tspares);
	s->tspares = NULL;
	s->ntspares = s->tspares_cap = s->tspare_bytes = 0;
}
