// SPDX-License-Identifier: MIT
/*
 * Redundant allocation: the paper's one-pass algorithm (section 5.1,
 * Figure 3), made O(n log n).  Walking the sorted first/last-use list from
 * the tail, an object becomes Done at its first use; it may then reuse the
 * closest object on its left still in the Initial state, i.e. the one
 * whose last use is latest among those ending strictly before this
 * object's first use, not yet reused, of similar size (within X%) and on
 * the same device.  A max segment tree over objects sorted by size answers
 * "latest last use within a size range"; objects leave it when their last
 * use is passed or when they are reused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "radix.h"

/* What the walk needs of an object, in one place: it visits them at random. */
struct cand {
	uint32_t obj, group;
	uint64_t size;
	uint32_t first, last;        /* levels */
	uint32_t first_ev, last_ev;
	uint32_t lo, hi;             /* candidates of similar size: [lo, hi) in size order */
};

static int cmp_size(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return (x->obj > y->obj) - (x->obj < y->obj);
}

/* Fills out[] with indices into c by (first level, obj) descending; keys has room for n. */
static int by_first_desc(const struct cand *c, size_t n, const uint32_t *rank, uint64_t *keys,
			 uint32_t *out)
{
	for (size_t i = 0; i < n; i++)
		keys[i] = (uint64_t)c[i].first << 32 | c[i].obj;
	if (gmp_radix_sort_u64(keys, n))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (i + 16 < n)
			__builtin_prefetch(&rank[(uint32_t)keys[n - 17 - i]]);
		out[i] = rank[(uint32_t)keys[n - 1 - i]];
	}
	return 0;
}

/*
 * keys[] = (last level << 32 | index into c), ascending (read from the end
 * for descending).  Objects with one last level all leave the tree before
 * the next query, so their order among themselves does not matter.
 */
static int by_last_keys(const struct cand *c, size_t n, uint64_t *keys)
{
	for (size_t i = 0; i < n; i++)
		keys[i] = (uint64_t)c[i].last << 32 | i;
	return gmp_radix_sort_u64(keys, n);
}

struct segtree {
	uint64_t *t;
	size_t n;  /* leaves */
};

static void seg_set(struct segtree *s, size_t i, uint64_t v)
{
	i += s->n;
	s->t[i] = v;
	for (i /= 2; i >= 1; i /= 2)
		s->t[i] = s->t[2 * i] > s->t[2 * i + 1] ? s->t[2 * i] : s->t[2 * i + 1];
}

static uint64_t seg_max(const struct segtree *s, size_t lo, size_t hi) /* [lo, hi) */
{
	uint64_t m = 0;
	for (lo += s->n, hi += s->n; lo < hi; lo /= 2, hi /= 2) {
		if (lo & 1) {
			if (s->t[lo] > m)
				m = s->t[lo];
			lo++;
		}
		if (hi & 1) {
			hi--;
			if (s->t[hi] > m)
				m = s->t[hi];
		}
	}
	return m;
}

/* Bits needed to hold values 0 .. n - 1. */
static unsigned bits_for(uint64_t n)
{
	unsigned b = 0;
	while (b < 64 && ((uint64_t)1 << b) < n)
		b++;
	return b;
}

/*
 * Sorts c by (group, size, obj).  c comes in obj order, so a stable sort by
 * (group, size) is enough: a radix sort of (group, size, index) keys when
 * they fit in 64 bits (nearly always), else a comparison sort.
 */
static int sort_by_size(struct cand *c, size_t n)
{
	uint64_t max_size = 0;
	uint32_t max_group = 0;
	for (size_t i = 0; i < n; i++) {
		if (c[i].size > max_size)
			max_size = c[i].size;
		if (c[i].group > max_group)
			max_group = c[i].group;
	}
	unsigned sb = bits_for(max_size + (max_size < UINT64_MAX)), ib = bits_for(n);
	unsigned gb = bits_for((uint64_t)max_group + 1);
	if (sb + ib + gb > 64) {
		qsort(c, n, sizeof(*c), cmp_size);
		return 0;
	}
	uint64_t *key = malloc(n * sizeof(*key));
	struct cand *out = malloc(n * sizeof(*out));
	int err = -ENOMEM;
	if (key && out) {
		for (size_t i = 0; i < n; i++)
			key[i] = (((uint64_t)c[i].group << sb | c[i].size) << ib) | i;
		if (!(err = gmp_radix_sort_u64(key, n))) {
			uint64_t mask = ((uint64_t)1 << ib) - 1;
			for (size_t i = 0; i < n; i++)
				out[i] = c[key[i] & mask];
			memcpy(c, out, n * sizeof(*c));
		}
	}
	free(key);
	free(out);
	return err;
}

/*
 * For each candidate (c sorted by group and size), the index range of the
 * candidates of its group whose size is within x of its own: [lo[i], hi[i]).
 * Both ends only move forward as sizes grow: one sweep.
 */
static void size_windows(struct cand *c, size_t n, double x)
{
	size_t a = 0, b = 0;
	uint64_t min_size = 0, max_size = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		int new_group = i == 0 || c[i].group != c[i - 1].group;
		if (new_group)
			a = b = i;
		else if (c[i].size == c[i - 1].size) { /* sizes repeat: the same window */
			c[i].lo = c[i - 1].lo;
			c[i].hi = c[i - 1].hi;
			continue;
		}
		min_size = 0;
		max_size = UINT64_MAX;
		if (x < 1.0) {
			long double s = (long double)c[i].size;
			min_size = (uint64_t)ceill(s * (1.0L - x));
			long double m = floorl(s / (1.0L - x));
			max_size = m >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)m;
		}
		while (a < n && c[a].group == c[i].group && c[a].size < min_size)
			a++;
		while (b < n && c[b].group == c[i].group && c[b].size <= max_size)
			b++;
		c[i].lo = (uint32_t)a;
		c[i].hi = (uint32_t)b;
	}
}

static int similar(uint64_t a, uint64_t b, double pct)
{
	uint64_t big = a > b ? a : b, diff = a > b ? a - b : b - a;
	return (long double)diff * 100.0L <= (long double)big * (long double)pct;
}

/* j may reuse p: the finding, from the candidates alone (no lookups at random). */
static int report(struct det *d, const struct cand *j, const struct cand *p)
{
	struct gmp_finding f = { .pattern = GMP_PAT_REDUNDANT_ALLOCATION, .object = j->obj,
				 .other = p->obj, .ev_a = p->last_ev, .ev_b = j->first_ev };
	f.distance = (int32_t)((int64_t)j->first - (int64_t)p->last);
	f.apis_between = (uint32_t)det_apis_between(d, p->last, j->first);
	return det_add_finding(d, &f);
}

/*
 * An object whose memory another could reuse, or that could reuse
 * another's: used, and neither another process's (imported) nor shared
 * with one (exported), whose use there is not seen.
 */
static int candidate(const struct gmp_result *r, uint32_t obj)
{
	return r->objects[obj].naccess > 0 && !gmp_object__shared(r, obj);
}

int det_redundant(struct det *d)
{
	struct gmp_result *r = d->r;
	size_t n = 0;
	for (size_t o = 0; o < r->nobjects; o++)
		n += candidate(r, (uint32_t)o);
	if (n < 2)
		return 0;
	int err = -ENOMEM;
	struct segtree st = { .n = n }; /* bottom-up: any number of leaves */
	uint32_t *by_first = NULL, *rank = NULL;
	uint64_t *keys = NULL, *by_last = NULL;
	struct cand *c = malloc(n * sizeof(*c));
	if (!c)
		return -ENOMEM;
	size_t k = 0;
	for (size_t o = 0; o < r->nobjects; o++) {
		const struct gmp_object *ob = &r->objects[o];
		if (!candidate(r, (uint32_t)o))
			continue;
		c[k++] = (struct cand){ .obj = (uint32_t)o, .size = ob->size,
					.group = ob->device * 2 + (ob->kind == GMP_MEM_POOL_REGION),
					.first = r->level[ob->first_ev], .last = r->level[ob->last_ev],
					.first_ev = ob->first_ev, .last_ev = ob->last_ev };
	}
	/* Allocated as needed: the sort's own temporaries are gone before the rest comes. */
	if (sort_by_size(c, n))
		goto out;
	rank = malloc(r->nobjects * sizeof(*rank));
	keys = malloc(n * sizeof(*keys));
	by_last = malloc(n * sizeof(*by_last));
	by_first = malloc(n * sizeof(*by_first));
	if (!rank || !keys || !by_last || !by_first)
		goto out;
	size_windows(c, n, d->o->redundant_pct / 100.0);
	for (uint32_t i = 0; i < n; i++)
		rank[c[i].obj] = i;
	if (by_last_keys(c, n, by_last) || by_first_desc(c, n, rank, keys, by_first))
		goto out;
	free(keys);
	keys = NULL;
	st.t = malloc(2 * st.n * sizeof(*st.t));
	if (!st.t)
		goto out;
	st.t[0] = 0;
	for (uint32_t i = 0; i < n; i++)
		st.t[st.n + i] = ((uint64_t)c[i].last + 1) << 32 | c[i].obj;
	for (size_t i = st.n - 1; i >= 1; i--)
		st.t[i] = st.t[2 * i] > st.t[2 * i + 1] ? st.t[2 * i] : st.t[2 * i + 1];
	size_t p = n; /* by_last is ascending: walk it from the end */
	err = 0;
	for (size_t i = 0; i < n && !err; i++) {
		if (i + 8 < n)
			__builtin_prefetch(&c[by_first[i + 8]]);
		const struct cand *j = &c[by_first[i]];
		/* Objects whose last use is not strictly before j's first use are no longer Initial. */
		while (p > 0 && (uint32_t)(by_last[p - 1] >> 32) >= j->first)
			seg_set(&st, (uint32_t)by_last[--p], 0);
		uint64_t best = j->lo < j->hi ? seg_max(&st, j->lo, j->hi) : 0;
		if (!best)
			continue;
		const struct cand *other = &c[rank[(uint32_t)best]];
		if (!similar(other->size, j->size, d->o->redundant_pct))
			continue;
		seg_set(&st, rank[other->obj], 0); /* Reused: nobody else may take it */
		err = report(d, j, other);
	}
out:
	free(c);
	free(by_last);
	free(by_first);
	free(rank);
	free(keys);
	free(st.t);
	return err;
}
