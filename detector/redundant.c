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

struct cand {
	uint32_t obj, group;
	uint64_t size;
	uint32_t first, last;  /* levels */
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

/*
 * Fills out[] with indices into c, by (level, obj) descending: key(i) is
 * c[i].first or c[i].last.  keys has room for n entries.
 */
static int by_level_desc(const struct cand *c, size_t n, int last, const uint32_t *rank,
			 uint64_t *keys, uint32_t *out)
{
	for (size_t i = 0; i < n; i++)
		keys[i] = (uint64_t)(last ? c[i].last : c[i].first) << 32 | c[i].obj;
	if (gmp_radix_sort_u64(keys, n))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		out[i] = rank[(uint32_t)keys[n - 1 - i]];
	return 0;
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
static void size_windows(const struct cand *c, size_t n, double x, uint32_t *lo, uint32_t *hi)
{
	size_t a = 0, b = 0;
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || c[i].group != c[i - 1].group)
			a = b = i;
		uint64_t min_size = 0, max_size = UINT64_MAX;
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
		lo[i] = (uint32_t)a;
		hi[i] = (uint32_t)b;
	}
}

static int similar(uint64_t a, uint64_t b, double pct)
{
	uint64_t big = a > b ? a : b, diff = a > b ? a - b : b - a;
	return (long double)diff * 100.0L <= (long double)big * (long double)pct;
}

static int report(struct det *d, uint32_t obj, uint32_t other)
{
	const struct gmp_object *o = &d->r->objects[obj], *p = &d->r->objects[other];
	struct gmp_finding f = { .pattern = GMP_PAT_REDUNDANT_ALLOCATION, .object = obj,
				 .other = other, .ev_a = p->last_ev, .ev_b = o->first_ev };
	f.distance = (int32_t)((int64_t)d->r->level[f.ev_b] - (int64_t)d->r->level[f.ev_a]);
	f.apis_between = (uint32_t)det_apis_between(d, d->r->level[f.ev_a], d->r->level[f.ev_b]);
	return det_add_finding(d, &f);
}

int det_redundant(struct det *d)
{
	struct gmp_result *r = d->r;
	size_t n = 0;
	for (size_t o = 0; o < r->nobjects; o++)
		n += r->objects[o].naccess > 0;
	if (n < 2)
		return 0;
	int err = -ENOMEM;
	struct segtree st = { .n = n }; /* bottom-up: any number of leaves */
	uint32_t *by_last = NULL, *by_first = NULL, *lo_w = NULL, *hi_w = NULL, *rank = NULL;
	uint64_t *keys = NULL;
	struct cand *c = malloc(n * sizeof(*c));
	if (!c)
		return -ENOMEM;
	size_t k = 0;
	for (size_t o = 0; o < r->nobjects; o++) {
		const struct gmp_object *ob = &r->objects[o];
		if (!ob->naccess)
			continue;
		c[k++] = (struct cand){ .obj = (uint32_t)o, .size = ob->size,
					.group = ob->device * 2 + (ob->kind == GMP_MEM_POOL_REGION),
					.first = r->level[ob->first_ev], .last = r->level[ob->last_ev] };
	}
	/* Allocated as needed: the sort's own temporaries are gone before the rest comes. */
	if (sort_by_size(c, n))
		goto out;
	lo_w = malloc(n * sizeof(*lo_w));
	hi_w = malloc(n * sizeof(*hi_w));
	rank = malloc(r->nobjects * sizeof(*rank));
	keys = malloc(n * sizeof(*keys));
	by_last = malloc(n * sizeof(*by_last));
	by_first = malloc(n * sizeof(*by_first));
	if (!lo_w || !hi_w || !rank || !keys || !by_last || !by_first)
		goto out;
	size_windows(c, n, d->o->redundant_pct / 100.0, lo_w, hi_w);
	for (uint32_t i = 0; i < n; i++)
		rank[c[i].obj] = i;
	if (by_level_desc(c, n, 1, rank, keys, by_last) ||
	    by_level_desc(c, n, 0, rank, keys, by_first))
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
	size_t p = 0;
	err = 0;
	for (size_t i = 0; i < n && !err; i++) {
		uint32_t jc = by_first[i];
		const struct cand *j = &c[jc];
		/* Objects whose last use is not strictly before j's first use are no longer Initial. */
		while (p < n && c[by_last[p]].last >= j->first)
			seg_set(&st, by_last[p++], 0);
		size_t lo = lo_w[jc], hi = hi_w[jc];
		uint64_t best = lo < hi ? seg_max(&st, lo, hi) : 0;
		if (!best)
			continue;
		uint32_t other = (uint32_t)(best & 0xffffffffu);
		if (!similar(r->objects[other].size, j->size, d->o->redundant_pct))
			continue;
		seg_set(&st, rank[other], 0); /* Reused: nobody else may take it */
		err = report(d, j->obj, other);
	}
out:
	free(c);
	free(by_last);
	free(by_first);
	free(lo_w);
	free(hi_w);
	free(rank);
	free(keys);
	free(st.t);
	return err;
}
