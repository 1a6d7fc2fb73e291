// SPDX-License-Identifier: MIT
/*
 * Dead writes, range-exact.  Each object keeps the byte ranges written by
 * a memcpy or memset that nothing has accessed since.  A later memcpy or
 * memset over those bytes makes them dead; any access (a kernel, a copy
 * reading them) clears them.  A kernel clears only the bytes it touched
 * when its touches were recorded, else the whole object.  A launch whose
 * accesses are unknown may have read anything: ranges written before it
 * are never dead (each range keeps how many such launches came before).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "util.h"

struct pend {
	uint64_t start, end;
	uint32_t writer;
	uint32_t unk;        /* launches with unknown accesses issued before the write */
};

struct pvec {
	struct pend *v;
	size_t n, cap;
};

struct dead {
	uint32_t obj, writer, killer;
	uint64_t start, end;
};

struct dw {
	struct det *d;
	struct pvec *pv;     /* per object */
	struct dead *dead;
	size_t ndead, dead_cap;
	struct pend *tmp;
	size_t tmp_cap;
	uint32_t unk;        /* launches with unknown accesses so far */
};

/* Removes [s, e) from the pending ranges of obj, recording them as dead when killer is set. */
static int cut(struct dw *w, uint32_t obj, uint64_t s, uint64_t e, uint32_t killer)
{
	struct pvec *p = &w->pv[obj];
	size_t out = 0;
	if (GMP_GROW(w->tmp, w->tmp_cap, p->n * 2 + 1))
		return -ENOMEM;
	for (size_t i = 0; i < p->n; i++) {
		struct pend x = p->v[i];
		if (x.end <= s || x.start >= e) {
			w->tmp[out++] = x;
			continue;
		}
		if (killer != GMP_NO_EVENT && x.unk == w->unk) { /* else it may have been read */
			if (GMP_GROW(w->dead, w->dead_cap, w->ndead + 1))
				return -ENOMEM;
			w->dead[w->ndead++] = (struct dead){
				.obj = obj, .writer = x.writer, .killer = killer,
				.start = x.start > s ? x.start : s, .end = x.end < e ? x.end : e };
		}
		if (x.start < s)
			w->tmp[out++] = (struct pend){ x.start, s, x.writer, x.unk };
		if (x.end > e)
			w->tmp[out++] = (struct pend){ e, x.end, x.writer, x.unk };
	}
	if (GMP_GROW(p->v, p->cap, out + 1))
		return -ENOMEM;
	memcpy(p->v, w->tmp, out * sizeof(*p->v));
	p->n = out;
	return 0;
}

static int write_range(struct dw *w, uint32_t obj, uint64_t s, uint64_t e, uint32_t v)
{
	int err = cut(w, obj, s, e, v);
	if (err)
		return err;
	struct pvec *p = &w->pv[obj];
	if (GMP_GROW(p->v, p->cap, p->n + 1))
		return -ENOMEM;
	p->v[p->n++] = (struct pend){ s, e, v, w->unk };
	return 0;
}

static int contains(const struct gmp_object *o, uint64_t s, uint64_t size)
{
	return s >= o->addr && s + size <= o->addr + o->size;
}

static int kernel_clears(struct dw *w, const struct gmp_event *e, uint32_t obj)
{
	const struct gmp_trace *t = w->d->t;
	const struct gmp_object *o = &w->d->r->objects[obj];
	int any = 0;
	if (e->flags & GMP_EF_TOUCH_KNOWN) {
		for (uint32_t i = 0; i < e->touch_n; i++) {
			const struct gmp_touch *tc = &t->touch[e->touch_off + i];
			if (!contains(o, tc->addr, tc->size))
				continue;
			any = 1;
			int err = cut(w, obj, tc->addr, tc->addr + tc->size, GMP_NO_EVENT);
			if (err)
				return err;
		}
	}
	if (!any)
		w->pv[obj].n = 0;
	return 0;
}

static int one_event(struct dw *w, uint32_t v)
{
	struct det *d = w->d;
	const struct gmp_event *e = &d->t->ev[v];
	int err = 0;
	for (uint32_t k = d->dep_off[v]; k < d->dep_off[v + 1] && !err; k++) {
		uint32_t obj = DEP_OBJ(d->deps[k]);
		unsigned kind = DEP_KIND(d->deps[k]);
		const struct gmp_object *o = &d->r->objects[obj];
		if (kind == DEP_FREE) {
			w->pv[obj].n = 0;
		} else if (kind == DEP_ALLOC) {
			continue;
		} else if (e->op == GMP_OP_KERNEL) {
			err = kernel_clears(w, e, obj);
		} else if (e->op == GMP_OP_MEMCPY) {
			/* Reading comes first: a copy within one object reads, then writes. */
			if ((e->flags & GMP_EF_HAS_SRC) && contains(o, e->src, e->size))
				err = cut(w, obj, e->src, e->src + e->size, GMP_NO_EVENT);
			if (!err && (e->flags & GMP_EF_HAS_DST) && contains(o, e->addr, e->size))
				err = write_range(w, obj, e->addr, e->addr + e->size, v);
		} else if (e->op == GMP_OP_MEMSET) {
			err = write_range(w, obj, e->addr, e->addr + e->size, v);
		}
	}
	return err;
}

static int cmp_dead(const void *a, const void *b)
{
	const struct dead *x = a, *y = b;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	if (x->writer != y->writer)
		return x->writer < y->writer ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

static int report(struct dw *w)
{
	struct det *d = w->d;
	if (w->ndead > 1)
		qsort(w->dead, w->ndead, sizeof(*w->dead), cmp_dead);
	for (size_t i = 0; i < w->ndead;) {
		size_t j = i;
		struct gmp_finding f = { .pattern = GMP_PAT_DEAD_WRITE, .object = w->dead[i].obj,
					 .other = GMP_NO_OBJECT, .ev_a = w->dead[i].writer,
					 .ev_b = w->dead[i].killer };
		const struct gmp_object *o = &d->r->objects[f.object];
		for (; j < w->ndead && w->dead[j].obj == f.object &&
		       w->dead[j].writer == f.ev_a; j++) {
			const struct dead *x = &w->dead[j];
			if (x->killer < f.ev_b)
				f.ev_b = x->killer;
			f.bytes += x->end - x->start;
			struct gmp_range rg = { .off = x->start - o->addr, .len = x->end - x->start,
						.ev = x->killer };
			int64_t off = det_add_range(d, &rg);
			if (off < 0)
				return (int)off;
			if (f.range_n++ == 0)
				f.range_off = (uint32_t)off;
		}
		f.distance = (int32_t)((int64_t)d->r->level[f.ev_b] - (int64_t)d->r->level[f.ev_a]);
		f.apis_between = (uint32_t)det_apis_between(d, d->r->level[f.ev_a],
							     d->r->level[f.ev_b]);
		int err = det_add_finding(d, &f);
		if (err)
			return err;
		i = j;
	}
	return 0;
}

int det_dead_writes(struct det *d)
{
	struct dw w = { .d = d };
	int err = 0;
	w.pv = calloc(d->r->nobjects ? d->r->nobjects : 1, sizeof(*w.pv));
	if (!w.pv)
		return -ENOMEM;
	for (size_t v = 0; v < d->t->nev && !err; v++) {
		uint8_t op = d->t->ev[v].op;
		w.unk += det_unknown_launch(d, &d->t->ev[v]);
		if (op == GMP_OP_MEMCPY || op == GMP_OP_MEMSET || op == GMP_OP_KERNEL ||
		    op == GMP_OP_FREE)
			err = one_event(&w, (uint32_t)v);
		if (op == GMP_OP_FREE && !err) {
			/* Release the freed object's ranges now: memory stays bounded. */
			for (uint32_t k = d->dep_off[v]; k < d->dep_off[v + 1]; k++) {
				struct pvec *p = &w.pv[DEP_OBJ(d->deps[k])];
				free(p->v);
				*p = (struct pvec){ 0 };
			}
		}
	}
	if (!err)
		err = report(&w);
	for (size_t o = 0; o < d->r->nobjects; o++)
		free(w.pv[o].v);
	free(w.pv);
	free(w.dead);
	free(w.tmp);
	return err;
}
