// SPDX-License-Identifier: MIT
/* Address-range map as an array-backed treap with a free list. */
#include "objmap.h"

#include <errno.h>
#include <stdlib.h>

#include "util.h"

#define NIL UINT32_MAX

struct node {
	uint64_t start, end;
	uint32_t obj, prio;
	uint32_t l, r;
};

struct gmp_objmap {
	struct node *n;
	size_t len, cap;
	uint32_t root, free_list;
	size_t count;
	uint32_t seed;
};

struct gmp_objmap *gmp_objmap__new(void)
{
	struct gmp_objmap *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->root = m->free_list = NIL;
	m->seed = 0x9e3779b9u;
	return m;
}

void gmp_objmap__free(struct gmp_objmap *m)
{
	if (!m)
		return;
	free(m->n);
	free(m);
}

static uint32_t next_prio(struct gmp_objmap *m)
{
	/* xorshift32: deterministic, so results never depend on the run. */
	uint32_t x = m->seed;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	m->seed = x;
	return x;
}

/* Splits t into keys < key (l) and keys >= key (r). */
static void split(struct node *n, uint32_t t, uint64_t key, uint32_t *l, uint32_t *r)
{
	if (t == NIL) {
		*l = *r = NIL;
		return;
	}
	if (n[t].start < key) {
		split(n, n[t].r, key, &n[t].r, r);
		*l = t;
	} else {
		split(n, n[t].l, key, l, &n[t].l);
		*r = t;
	}
}

static uint32_t merge(struct node *n, uint32_t a, uint32_t b)
{
	if (a == NIL)
		return b;
	if (b == NIL)
		return a;
	if (n[a].prio > n[b].prio) {
		n[a].r = merge(n, n[a].r, b);
		return a;
	}
	n[b].l = merge(n, a, n[b].l);
	return b;
}

int gmp_objmap__insert(struct gmp_objmap *m, uint64_t start, uint64_t end, uint32_t obj)
{
	uint32_t id;
	if (m->free_list != NIL) {
		id = m->free_list;
		m->free_list = m->n[id].l;
	} else {
		if (m->len >= NIL - 1 || GMP_GROW(m->n, m->cap, m->len + 1))
			return -ENOMEM;
		id = (uint32_t)m->len++;
	}
	m->n[id] = (struct node){ .start = start, .end = end, .obj = obj,
				  .prio = next_prio(m), .l = NIL, .r = NIL };
	uint32_t l, r;
	split(m->n, m->root, start, &l, &r);
	m->root = merge(m->n, merge(m->n, l, id), r);
	m->count++;
	return 0;
}

int gmp_objmap__remove(struct gmp_objmap *m, uint64_t start)
{
	uint32_t *link = &m->root;
	while (*link != NIL && m->n[*link].start != start)
		link = start < m->n[*link].start ? &m->n[*link].l : &m->n[*link].r;
	if (*link == NIL)
		return -ENOENT;
	uint32_t dead = *link;
	*link = merge(m->n, m->n[dead].l, m->n[dead].r);
	m->n[dead].l = m->free_list;
	m->free_list = dead;
	m->count--;
	return 0;
}

int gmp_objmap__floor(const struct gmp_objmap *m, uint64_t addr, uint64_t *start,
		      uint64_t *end, uint32_t *obj)
{
	uint32_t t = m->root, best = NIL;
	while (t != NIL) {
		if (m->n[t].start <= addr) {
			best = t;
			t = m->n[t].r;
		} else {
			t = m->n[t].l;
		}
	}
	if (best == NIL)
		return 0;
	if (start)
		*start = m->n[best].start;
	if (end)
		*end = m->n[best].end;
	if (obj)
		*obj = m->n[best].obj;
	return 1;
}

uint32_t gmp_objmap__find(const struct gmp_objmap *m, uint64_t addr)
{
	uint64_t end;
	uint32_t obj;
	if (gmp_objmap__floor(m, addr, NULL, &end, &obj) && addr < end)
		return obj;
	return UINT32_MAX;
}

uint32_t gmp_objmap__overlap(const struct gmp_objmap *m, uint64_t start, uint64_t end)
{
	uint64_t e;
	uint32_t obj;
	if (end > start && gmp_objmap__floor(m, end - 1, NULL, &e, &obj) && e > start)
		return obj;
	return UINT32_MAX;
}

size_t gmp_objmap__count(const struct gmp_objmap *m)
{
	return m->count;
}

static int walk(const struct node *n, uint32_t t,
		int (*fn)(void *ctx, uint64_t start, uint64_t end, uint32_t obj), void *ctx)
{
	while (t != NIL) {
		int rc = walk(n, n[t].l, fn, ctx);
		if (rc)
			return rc;
		if ((rc = fn(ctx, n[t].start, n[t].end, n[t].obj)))
			return rc;
		t = n[t].r;
	}
	return 0;
}

int gmp_objmap__each(const struct gmp_objmap *m,
		     int (*fn)(void *ctx, uint64_t start, uint64_t end, uint32_t obj), void *ctx)
{
	return walk(m->n, m->root, fn, ctx);
}
