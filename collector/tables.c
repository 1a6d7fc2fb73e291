// SPDX-License-Identifier: MIT
/*
 * Object tables (patch_abi.h): per version of the live set, a snapshot of
 * a base, the live set as it was when the base was built, and a small
 * recent table of the objects allocated since; the base's objects freed
 * since are its tombstones.  A change of the live set costs the recent
 * table (at most RECENT_MAX objects) and a small copy per tombstone, not a
 * copy of every live object; the base is rebuilt when the recent table or
 * its tombstones would grow past their bounds, or when the changes are
 * not all known (NVTX regions, a log that restarted).  Each stream that
 * launches gets its own copy of each table, uploaded on that stream;
 * blocks no launch needs any more are kept for the next tables uploaded
 * on their stream.  As everywhere in device.h, the lock is held on entry
 * and released around every Sanitizer call.
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

/* Recent objects a snapshot holds, at most (a 32 KiB table), and never more than its base. */
#define RECENT_MAX 1024u

/* A table block no launch needs any more: a spare for its stream, or freed later. */
static void tcopy_release(struct gmp_ctx_state *s, struct tcopy c)
{
	if (!(gmp_col.opts.fallback & GMP_FALLBACK_TABLE_REUSE) && s->tspare_bytes + c.cap <= TSPARE_LIMIT &&
	    !GMP_GROW(s->tspares, s->tspares_cap, s->ntspares + 1)) {
		s->tspares[s->ntspares++] = c;
		s->tspare_bytes += c.cap;
	} else {
		dev_free_later(s, c.dev, c.cap);
	}
}

static void base_put(struct gmp_ctx_state *s, struct tbase *b)
{
	if (!b || --b->refs)
		return;
	s->snap_bytes -= b->bytes;
	for (size_t i = 0; i < b->ncopies; i++)
		tcopy_release(s, b->copies[i]);
	free(b->copies);
	free(b->dead);
	free(b->host);
	free(b);
}

void dev_snap_put(struct gmp_ctx_state *s, struct snapshot *sn)
{
	if (!sn || --sn->refs)
		return;
	s->snap_bytes -= sn->bytes;
	for (size_t i = 0; i < sn->ncopies; i++)
		tcopy_release(s, sn->copies[i]);
	base_put(s, sn->base);
	free(sn->copies);
	free(sn->host);
	free(sn);
}

/*
 * A base with room for most entries, before they are written (NULL: out
 * of memory, or 2^31 entries or more, past what the patches index).
 */
static struct tbase *new_base(size_t most)
{
	if (most >= (size_t)1 << 31)
		return NULL;
	struct tbase *b = calloc(1, sizeof(*b));
	if (!b || !(b->host = malloc(sizeof(struct gmp_patch_table) + 2 * most * sizeof(uint64_t))) ||
	    !(b->dead = malloc((most ? most : 1) * sizeof(uint64_t)))) {
		if (b)
			free(b->host);
		free(b);
		return NULL;
	}
	b->start = (uint64_t *)((struct gmp_patch_table *)b->host + 1);
	return b;
}

/* Its n entries written (starts, then ends after the n starts): the rest of it. */
static struct tbase *finish_base(struct gmp_ctx_state *s, struct tbase *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b->dead[i] = UINT64_MAX;
	struct gmp_patch_table *t = b->host;
	t->n = n;
	t->version = gmp_col.live_version;
	b->n = n;
	b->end = b->start + n;
	b->bytes = sizeof(struct gmp_patch_table) + 3 * n * sizeof(uint64_t);
	b->refs = 1; /* the context's */
	b->gen = ++s->bases;
	s->snap_bytes += b->bytes;
	return b;
}

static void free_base(struct tbase *b)
{
	free(b->dead);
	free(b->host);
	free(b);
}

/* A base of the whole live set (each pool split into its NVTX regions and the gaps between them). */
static struct tbase *build_base(struct gmp_ctx_state *s)
{
	size_t n = gmp_col.tab_n, most = n + 2 * nvtx_region_count();
	struct tbase *b = new_base(most);
	if (!b)
		return NULL;
	if (most > n) {
		/* The live objects first, then split into pieces over them. */
		uint64_t *live = malloc(2 * n * sizeof(uint64_t) + 1);
		if (!live) {
			free_base(b);
			return NULL;
		}
		rec_live_copy(live, live + n);
		n = nvtx_table_pieces(live, live + n, n, b->start, b->start + most);
		free(live);
		memmove(b->start + n, b->start + most, n * sizeof(uint64_t)); /* the ends follow the n starts */
		b->pieces = 1;
	} else {
		rec_live_copy(b->start, b->start + n);
	}
	return finish_base(s, b, n);
}

/* The recent objects of a version of the live set, sorted. */
struct recent {
	uint64_t *s, *e;
	size_t n;
};

/*
 * A base of the live set from the previous base's live entries and the
 * recent objects, merged in address order: what walking the live set
 * would give, from memory read in order.  NULL when they do not make the
 * live set (the caller walks it instead) or out of memory.
 */
static struct tbase *merge_base(struct gmp_ctx_state *s, const struct tbase *old, const struct recent *r)
{
	size_t n = gmp_col.tab_n, m = 0, i = 0, k = 0;
	struct tbase *b = new_base(n);
	if (!b)
		return NULL;
	uint64_t *end = b->start + n;
	for (;;) {
		while (i < old->n && old->dead[i] != UINT64_MAX)
			i++;
		int from_old = i < old->n && (k == r->n || old->start[i] < r->s[k]);
		if (!from_old && k == r->n)
			break;
		if (m == n) {
			free_base(b);
			return NULL;
		}
		b->start[m] = from_old ? old->start[i] : r->s[k];
		end[m++] = from_old ? old->end[i++] : r->e[k++];
	}
	if (m != n) {
		free_base(b);
		return NULL;
	}
	return finish_base(s, b, n);
}

/* The first of a[0..n) that is >= x (a sorted). */
static size_t lower_bound(const uint64_t *a, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The recent objects of the current version into r (its arrays the
 * caller's to free): the current snapshot's, with the changes logged since
 * (live.c) applied; a freed object of the base becomes its tombstone.
 * 0: they fit (at most RECENT_MAX recent objects, never more than the
 * base; at most TOMB_MAX tombstones); 1: they do not, the base is to be
 * merged with them (merge_base); -1: it is to be built from the live set
 * (changes not all logged, a base split by NVTX regions, GMPROF_FALLBACK=
 * two-tables, no memory).  A tombstone set
 * here and not used belongs to a version no snapshot of this base will
 * have.
 */
static int advance(struct gmp_ctx_state *s, struct recent *r)
{
	const struct snapshot *cur = s->cur;
	struct tbase *b = s->base;
	uint64_t v = gmp_col.live_version, v0 = gmp_col.live_log_v0;
	/*
	 * NVTX regions change the live version unlogged: a base built with them,
	 * or since, is rebuilt; and every base is, under GMPROF_FALLBACK=two-tables.
	 */
	if (!cur || !b || cur->base != b || b->pieces || cur->version < v0 || v0 + gmp_col.live_log_n != v ||
	    (gmp_col.opts.fallback & GMP_FALLBACK_TWO_TABLES))
		return -1;
	size_t cap = cur->nr + (size_t)(v - cur->version), n = cur->nr;
	if (!(r->s = malloc(2 * cap * sizeof(uint64_t))))
		return -1;
	uint64_t *rs = r->s, *re = r->e = r->s + cap;
	memcpy(rs, cur->rstart, n * sizeof(uint64_t));
	memcpy(re, cur->rend, n * sizeof(uint64_t));
	int over = 0;
	for (uint64_t ver = cur->version; ver < v; ver++) {
		const struct gmp_live_change *c = &gmp_col.live_log[ver - v0];
		size_t k = lower_bound(rs, n, c->start);
		if (!c->freed) {
			memmove(rs + k + 1, rs + k, (n - k) * sizeof(uint64_t));
			memmove(re + k + 1, re + k, (n - k) * sizeof(uint64_t));
			rs[k] = c->start;
			re[k] = c->end;
			n++;
		} else if (k < n && rs[k] == c->start) {
			memmove(rs + k, rs + k + 1, (n - k - 1) * sizeof(uint64_t));
			memmove(re + k, re + k + 1, (n - k - 1) * sizeof(uint64_t));
			n--;
		} else {
			size_t i = lower_bound(b->start, b->n, c->start);
			if (i == b->n || b->start[i] != c->start || b->dead[i] != UINT64_MAX)
				return -1;
			__atomic_store_n(&b->dead[i], ver + 1, __ATOMIC_RELAXED); /* snapshots read it unlocked */
			if (b->ntombs < TOMB_MAX)
				b->tombs[b->ntombs++] = (uint32_t)i;
			else
				over = 1;
		}
	}
	r->n = n;
	return over || n > RECENT_MAX || n > b->n;
}

/*
 * The tables of the current live set, with a reference for the caller: the
 * current ones, or new ones (host side only; dev_tables_on uploads them).
 */
struct snapshot *dev_current_table(struct gmp_ctx_state *s)
{
	/*
	 * Launches waiting for harvest keep their tables alive; with many live
	 * objects and a changing set, that memory grows with every launch.
	 * Past SNAP_LIMIT, collect the oldest launches before building new
	 * tables (collecting releases the lock: another thread may build them).
	 */
	while (!(s->cur && s->cur->version == gmp_col.live_version) && s->snap_bytes > SNAP_LIMIT &&
	       s->npend && dev_collect_oldest(s) > 0) {
	}
	if (s->cur && s->cur->version == gmp_col.live_version) {
		s->cur->refs++;
		return s->cur;
	}
	struct snapshot *sn = calloc(1, sizeof(*sn));
	struct recent r = { NULL, NULL, 0 };
	int how = sn ? advance(s, &r) : -1;
	struct tbase *b = how == 1 ? merge_base(s, s->base, &r) : NULL;
	if (sn && how != 0 && !b)
		b = build_base(s);
	if (b) {
		base_put(s, s->base);
		s->base = b;
		r.n = 0;
	}
	size_t bytes = sizeof(struct gmp_patch_table) + 2 * r.n * sizeof(uint64_t);
	if (!sn || (how != 0 && !b) || !(sn->host = malloc(bytes))) {
		dev_out_of_memory("building the object table");
		free(r.s);
		free(sn);
		return NULL;
	}
	struct gmp_patch_table *t = sn->host;
	t->n = r.n;
	t->version = gmp_col.live_version;
	sn->rstart = (uint64_t *)(t + 1);
	sn->rend = sn->rstart + r.n;
	if (r.n) {
		memcpy(sn->rstart, r.s, r.n * sizeof(uint64_t));
		memcpy(sn->rend, r.e, r.n * sizeof(uint64_t));
	}
	free(r.s);
	sn->nr = r.n;
	sn->base = s->base;
	sn->base->refs++;
	sn->ntombs = sn->base->ntombs;
	sn->n = sn->base->n + r.n;
	sn->version = gmp_col.live_version;
	sn->id = ++s->snaps;
	sn->table_bytes = sn->bytes = bytes;
	sn->refs = 2; /* the caller's, and as the current one */
	s->snap_bytes += sn->bytes;
	dev_snap_put(s, s->cur);
	s->cur = sn;
	return sn;
}

/*
 * A block on stream hs holding the bytes at host: the smallest spare of
 * that stream that holds them, or a new one with room to grow.  Uploaded
 * on hs, so a launch there is ordered after it: no launch waits for the
 * host, no stream for another.  Lock released around the upload.
 */
static int upload(struct gmp_ctx_state *s, Sanitizer_StreamHandle hs, void *host, size_t bytes,
		  struct tcopy *out)
{
	struct tcopy c = { hs, NULL, 0, 0 };
	size_t best = SIZE_MAX;
	for (size_t i = 0; i < s->ntspares; i++)
		if (s->tspares[i].hs == hs && s->tspares[i].cap >= bytes &&
		    (best == SIZE_MAX || s->tspares[i].cap < s->tspares[best].cap))
			best = i;
	if (best != SIZE_MAX) {
		c = s->tspares[best];
		s->tspares[best] = s->tspares[--s->ntspares];
		s->tspare_bytes -= c.cap;
		c.applied = 0;
	}
	size_t cap = c.dev ? c.cap : bytes + bytes / 16 + 256;
	dev_unlock();
	int err = (!c.dev && dev_check(gmp_col.san.Alloc(s->ctx, &c.dev, cap), "allocating the object table")) ||
		  dev_check(gmp_col.san.MemcpyHostToDeviceAsync(c.dev, host, bytes, hs), "uploading the object table");
	dev_lock();
	if (c.dev && !c.cap)
		dev_allocated(cap);
	c.cap = cap;
	if (err) {
		dev_free_later(s, c.dev, cap);
		return -EIO;
	}
	*out = c;
	return 0;
}

/* Adds a block to a table's copies, counted in its bytes; on failure the block is freed later. */
static int add_copy(struct gmp_ctx_state *s, struct tcopy **v, size_t *n, size_t *cap, size_t *bytes,
		    struct tcopy c)
{
	if (GMP_GROW(*v, *cap, *n + 1)) {
		dev_out_of_memory("uploading the object table");
		dev_free_later(s, c.dev, c.cap);
		return -ENOMEM;
	}
	(*v)[(*n)++] = c;
	*bytes += c.cap;
	s->snap_bytes += c.cap;
	return 0;
}

/*
 * The base's copy on stream hs with the first ntombs tombstones set: each
 * run of consecutive entries is one copy of their starts over their ends,
 * from the base's own starts (which never change while it lives).  A
 * tombstone set twice (two threads, a copy that failed halfway) is the
 * same bytes again.
 */
static void *base_on(struct gmp_ctx_state *s, struct tbase *b, size_t ntombs, Sanitizer_StreamHandle hs)
{
	size_t k = 0;
	while (k < b->ncopies && b->copies[k].hs != hs)
		k++;
	if (k == b->ncopies) {
		struct tcopy c;
		if (upload(s, hs, b->host, sizeof(struct gmp_patch_table) + 2 * b->n * sizeof(uint64_t), &c) ||
		    add_copy(s, &b->copies, &b->ncopies, &b->copies_cap, &b->bytes, c))
			return NULL;
		/* (Another thread may have added one for hs meanwhile: both are complete copies.) */
		k = b->ncopies - 1;
	}
	void *dev = b->copies[k].dev;
	if (b->copies[k].applied >= ntombs)
		return dev;
	uint32_t t[TOMB_MAX];
	size_t m = ntombs - b->copies[k].applied;
	memcpy(t, b->tombs + b->copies[k].applied, m * sizeof(*t));
	for (size_t i = 1; i < m; i++) /* into runs of entries: at most TOMB_MAX */
		for (size_t j = i; j > 0 && t[j - 1] > t[j]; j--) {
			uint32_t x = t[j];
			t[j] = t[j - 1];
			t[j - 1] = x;
		}
	uint64_t *ends = (uint64_t *)((struct gmp_patch_table *)dev + 1) + b->n;
	int err = 0;
	dev_unlock();
	for (size_t i = 0, j; i < m && !err; i = j) {
		for (j = i + 1; j < m && t[j] == t[j - 1] + 1; j++) {
		}
		err = dev_check(gmp_col.san.MemcpyHostToDeviceAsync(ends + t[i], b->start + t[i],
								    (j - i) * sizeof(uint64_t), hs),
				"setting tombstones in the object table");
	}
	dev_lock();
	if (err)
		return NULL;
	for (k = 0; k < b->ncopies; k++) /* the copies may have moved meanwhile */
		if (b->copies[k].dev == dev && b->copies[k].applied < ntombs)
			b->copies[k].applied = ntombs;
	return dev;
}

int dev_tables_on(struct gmp_ctx_state *s, struct snapshot *sn, Sanitizer_StreamHandle hs, void **base,
		  void **recent)
{
	*recent = NULL;
	if (!(*base = base_on(s, sn->base, sn->ntombs, hs)))
		return -EIO;
	if (!sn->nr)
		return 0;
	for (size_t i = 0; i < sn->ncopies; i++)
		if (sn->copies[i].hs == hs) {
			*recent = sn->copies[i].dev;
			return 0;
		}
	struct tcopy c;
	if (upload(s, hs, sn->host, sn->table_bytes, &c) ||
	    add_copy(s, &sn->copies, &sn->ncopies, &sn->copies_cap, &sn->bytes, c))
		return -EIO;
	*recent = c.dev;
	return 0;
}

void dev_release_tables(struct gmp_ctx_state *s)
{
	dev_snap_put(s, s->cur); /* its table blocks become spares: freed below */
	s->cur = NULL;
	base_put(s, s->base);
	s->base = NULL;
	for (size_t i = 0; i < s->ntspares; i++)
		dev_free_later(s, s->tspares[i].dev, s->tspares[i].cap);
	free(s->tspares);
	s->tspares = NULL;
	s->ntspares = s->tspares_cap = s->tspare_bytes = 0;
}
