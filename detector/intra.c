// SPDX-License-Identifier: MIT
/*
 * Intra-object patterns (paper, sections 3.2 and 5.2), from the touches a
 * kernel launch recorded (bytes accessed and how often) and from the exact
 * ranges of copies and sets:
 *  - overallocation: bytes accessed over the object's whole life, and the
 *    fragmentation 1 - largest unaccessed chunk / unaccessed bytes;
 *  - non-uniform access frequency: per launch, the coefficient of
 *    variation of access counts over the accessed bytes;
 *  - structured access: per kernel, two or more launches whose access sets
 *    on the object are pairwise disjoint.
 * An object is judged for overallocation only when every kernel that
 * accessed it had at least one launch with touches recorded, and no launch
 * with unknown accesses was issued while it was live.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "u64map.h"
#include "util.h"

struct span {
	uint32_t obj;
	uint32_t tag;          /* launch event (structured) or unused */
	uint64_t start, end;   /* object offsets */
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

struct vec_span {
	struct span *v;
	size_t n, cap;
};

static int push_span(struct vec_span *s, uint32_t obj, uint32_t tag, uint64_t a, uint64_t b)
{
	if (GMP_GROW(s->v, s->cap, s->n + 1))
		return -ENOMEM;
	s->v[s->n++] = (struct span){ obj, tag, a, b };
	return 0;
}

/* One (launch, object) pair with touches. */
struct lrec {
	uint32_t obj, name, ev;
	uint32_t first, count;  /* its touches: tidx[first .. first+count) */
	double cv;
	uint64_t lo, hi;        /* extent of its accesses (object offsets) */
};

static int cmp_lrec(const void *a, const void *b)
{
	const struct lrec *x = a, *y = b;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return (x->ev > y->ev) - (x->ev < y->ev);
}

struct ix {
	struct det *d;
	struct vec_span life;     /* accessed ranges over objects' lives */
	struct lrec *lr;
	size_t nlr, lr_cap;
	uint32_t *tidx;           /* touch indices grouped per lrec */
	size_t ntidx;
	/* 1 for objects some kernel accessed with no launch of it recording touches */
	uint8_t *uncovered;
};

struct edge {
	uint64_t at;
	int64_t delta;
};

static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	return (x->at > y->at) - (x->at < y->at);
}

/*
 * Sweeps the touches of one lrec: fills merged ranges (when out is set),
 * the CV and, when hist is set, the bytes per count bucket.
 */
static int sweep(struct ix *x, const struct lrec *l, struct vec_span *out, double *cv,
		 uint64_t *hist, uint64_t *hist_max)
{
	const struct gmp_trace *t = x->d->t;
	const struct gmp_object *o = &x->d->r->objects[l->obj];
	struct edge *e = malloc(2 * (size_t)l->count * sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (uint32_t i = 0; i < l->count; i++) {
		const struct gmp_touch *tc = &t->touch[x->tidx[l->first + i]];
		int64_t c = tc->count > INT64_MAX / 4 ? INT64_MAX / 4 : (int64_t)tc->count;
		e[2 * i] = (struct edge){ tc->addr - o->addr, c ? c : 0 };
		e[2 * i + 1] = (struct edge){ tc->addr + tc->size - o->addr, c ? -c : 0 };
	}
	size_t ne = 2 * (size_t)l->count;
	qsort(e, ne, sizeof(*e), cmp_edge);
	/* First pass: moments (and the largest count for the histogram). */
	long double n = 0, s1 = 0, s2 = 0;
	int64_t cur = 0, maxc = 0;
	uint64_t run_start = 0;
	int in_run = 0;
	int err = 0;
	for (size_t i = 0; i < ne; i++) {
		if (i > 0 && e[i].at > e[i - 1].at && cur > 0) {
			long double len = (long double)(e[i].at - e[i - 1].at);
			n += len;
			s1 += len * (long double)cur;
			s2 += len * (long double)cur * (long double)cur;
			if (cur > maxc)
				maxc = cur;
		}
		cur += e[i].delta;
	}
	/* Merged extents come from the touches themselves (count-independent). */
	if (out) {
		struct span *sp = malloc((size_t)l->count * sizeof(*sp));
		if (!sp) {
			free(e);
			return -ENOMEM;
		}
		for (uint32_t i = 0; i < l->count; i++) {
			const struct gmp_touch *tc = &t->touch[x->tidx[l->first + i]];
			sp[i] = (struct span){ l->obj, l->ev, tc->addr - o->addr,
					       tc->addr + tc->size - o->addr };
		}
		qsort(sp, l->count, sizeof(*sp), cmp_span);
		for (uint32_t i = 0; i < l->count && !err; i++) {
			if (!in_run) {
				run_start = sp[i].start;
				cur = (int64_t)sp[i].end;
				in_run = 1;
			} else if (sp[i].start <= (uint64_t)cur) {
				if (sp[i].end > (uint64_t)cur)
					cur = (int64_t)sp[i].end;
			} else {
				err = push_span(out, l->obj, l->ev, run_start, (uint64_t)cur);
				run_start = sp[i].start;
				cur = (int64_t)sp[i].end;
			}
		}
		if (in_run && !err)
			err = push_span(out, l->obj, l->ev, run_start, (uint64_t)cur);
		free(sp);
	}
	if (n > 0 && s1 > 0) {
		long double mean = s1 / n;
		long double var = s2 / n - mean * mean;
		*cv = var > 0 ? (double)(sqrtl(var) / mean * 100.0L) : 0.0;
	} else {
		*cv = 0.0;
	}
	if (hist && maxc > 0) {
		cur = 0;
		for (size_t i = 0; i < ne; i++) {
			if (i > 0 && e[i].at > e[i - 1].at && cur > 0) {
				uint64_t b = (uint64_t)(cur - 1) * GMP_HIST_BUCKETS / (uint64_t)maxc;
				hist[b < GMP_HIST_BUCKETS ? b : GMP_HIST_BUCKETS - 1] +=
					e[i].at - e[i - 1].at;
			}
			cur += e[i].delta;
		}
		*hist_max = (uint64_t)maxc;
	}
	free(e);
	return err;
}

static int cmp_tidx_obj(const void *a, const void *b, void *ctx)
{
	const uint32_t *obj = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (obj[x] != obj[y])
		return obj[x] < obj[y] ? -1 : 1;
	return (x > y) - (x < y);
}

/* Groups each touched launch's touches by object into lrecs. */
static int collect_launches(struct ix *x)
{
	struct det *d = x->d;
	const struct gmp_trace *t = d->t;
	x->tidx = malloc((t->ntouch ? t->ntouch : 1) * sizeof(*x->tidx));
	if (!x->tidx)
		return -ENOMEM;
	for (size_t v = 0; v < t->nev; v++) {
		const struct gmp_event *e = &t->ev[v];
		if (e->op != GMP_OP_KERNEL || !(e->flags & GMP_EF_TOUCH_KNOWN) || !e->touch_n)
			continue;
		uint32_t *g = x->tidx + x->ntidx;
		for (uint32_t i = 0; i < e->touch_n; i++)
			g[i] = e->touch_off + i;
		qsort_r(g, e->touch_n, sizeof(*g), cmp_tidx_obj, d->touch_obj);
		for (uint32_t i = 0; i < e->touch_n;) {
			uint32_t j = i, obj = d->touch_obj[g[i]];
			while (j < e->touch_n && d->touch_obj[g[j]] == obj)
				j++;
			if (gmp_mem_kind__unanalyzed(d->r->objects[obj].kind)) {
				i = j; /* not analyzed: see resolve.c */
				continue;
			}
			if (GMP_GROW(x->lr, x->lr_cap, x->nlr + 1))
				return -ENOMEM;
			x->lr[x->nlr++] = (struct lrec){ .obj = obj, .name = e->name, .ev = (uint32_t)v,
							 .first = (uint32_t)(x->ntidx + i),
							 .count = j - i };
			i = j;
		}
		x->ntidx += e->touch_n;
	}
	return 0;
}

/*
 * Marks the objects whose accesses are not all known: a kernel accessed
 * them and no launch of that kernel recorded touches on them, or a launch
 * whose touches are known accessed them with none (the collector adds a
 * read to each launch that may read an object through a texture, which
 * the patches do not see).
 */
static int coverage(struct ix *x)
{
	struct det *d = x->d;
	const struct gmp_trace *t = d->t;
	x->uncovered = calloc(d->r->nobjects ? d->r->nobjects : 1, 1);
	if (!x->uncovered)
		return -ENOMEM;
	struct gmp_u64map touched;
	gmp_u64map__init(&touched);
	for (size_t i = 0; i < x->nlr; i++) {
		uint64_t key = (uint64_t)x->lr[i].obj << 32 | x->lr[i].name;
		if (!gmp_u64map__slot(&touched, key, 1, NULL)) {
			gmp_u64map__release(&touched);
			return -ENOMEM;
		}
	}
	uint32_t *seen = NULL; /* per object: 1 + the touch-known launch that touched it last */
	for (size_t v = 0; v < t->nev; v++) {
		const struct gmp_event *e = &t->ev[v];
		if (e->op != GMP_OP_KERNEL)
			continue;
		if (e->flags & GMP_EF_TOUCH_KNOWN) {
			if (!seen && !(seen = calloc(d->r->nobjects ? d->r->nobjects : 1, sizeof(*seen)))) {
				gmp_u64map__release(&touched);
				return -ENOMEM;
			}
			for (uint32_t i = 0; i < e->touch_n; i++) /* the object, and the pool holding it */
				for (uint32_t obj = d->touch_obj[e->touch_off + i]; obj != GMP_NO_OBJECT;
				     obj = d->r->objects[obj].parent)
					seen[obj] = (uint32_t)v + 1;
		}
		for (uint32_t k = d->dep_off[v]; k < d->dep_off[v + 1]; k++) {
			uint32_t obj = DEP_OBJ(d->deps[k]);
			if ((e->flags & GMP_EF_TOUCH_KNOWN) ? seen[obj] != (uint32_t)v + 1
			    : !x->nlr || !gmp_u64map__get(&touched, (uint64_t)obj << 32 | e->name))
				x->uncovered[obj] = 1;
		}
	}
	free(seen);
	gmp_u64map__release(&touched);
	for (size_t obj = 0; obj < d->r->nobjects; obj++)
		x->uncovered[obj] |= d->r->objects[obj].unmonitored > 0; /* unmonitored.c */
	return 0;
}

/* Exact ranges of copies and sets over the objects whose accesses are all known. */
static int collect_life(struct ix *x)
{
	struct det *d = x->d;
	const struct gmp_trace *t = d->t;
	int err = coverage(x);
	if (err)
		return err;
	for (size_t v = 0; v < t->nev; v++) {
		const struct gmp_event *e = &t->ev[v];
		if (e->op != GMP_OP_MEMCPY && e->op != GMP_OP_MEMSET)
			continue;
		for (uint32_t k = d->dep_off[v]; k < d->dep_off[v + 1]; k++) {
			uint32_t obj = DEP_OBJ(d->deps[k]);
			if (DEP_KIND(d->deps[k]) > DEP_RW || x->uncovered[obj])
				continue;
			const struct gmp_object *o = &d->r->objects[obj];
			uint64_t a[2] = { 0, 0 }, n = 0;
			if (e->op == GMP_OP_MEMSET || (e->op == GMP_OP_MEMCPY && (e->flags & GMP_EF_HAS_DST)))
				a[n++] = e->addr;
			if (e->op == GMP_OP_MEMCPY && (e->flags & GMP_EF_HAS_SRC))
				a[n++] = e->src;
			for (uint64_t i = 0; i < n; i++) {
				if (a[i] >= o->addr && a[i] + e->size <= o->addr + o->size &&
				    push_span(&x->life, obj, 0, a[i] - o->addr,
					      a[i] - o->addr + e->size))
					return -ENOMEM;
			}
		}
	}
	/* Touched bytes count for the object and for the pool that holds it. */
	for (size_t i = 0; i < x->nlr; i++) {
		const struct lrec *l = &x->lr[i];
		for (uint32_t j = 0; j < l->count; j++) {
			const struct gmp_touch *tc = &t->touch[x->tidx[l->first + j]];
			for (uint32_t obj = l->obj; obj != GMP_NO_OBJECT;
			     obj = d->r->objects[obj].parent) {
				const struct gmp_object *o = &d->r->objects[obj];
				if (x->uncovered[obj])
					continue;
				if (push_span(&x->life, obj, 0, tc->addr - o->addr,
					      tc->addr + tc->size - o->addr))
					return -ENOMEM;
			}
		}
	}
	return 0;
}

static int overallocation(struct ix *x)
{
	struct det *d = x->d;
	if (x->life.n > 1)
		qsort(x->life.v, x->life.n, sizeof(*x->life.v), cmp_span);
	for (size_t i = 0; i < x->life.n;) {
		uint32_t obj = x->life.v[i].obj;
		const struct gmp_object *o = &d->r->objects[obj];
		uint64_t accessed = 0, largest = 0, largest_off = 0, prev_end = 0, cur_s = 0, cur_e = 0;
		int run = 0;
		size_t j = i;
		for (; j < x->life.n && x->life.v[j].obj == obj; j++) {
			const struct span *s = &x->life.v[j];
			if (run && s->start <= cur_e) {
				if (s->end > cur_e)
					cur_e = s->end;
				continue;
			}
			if (run) {
				accessed += cur_e - cur_s;
				prev_end = cur_e;
			}
			if (s->start - prev_end > largest) {
				largest = s->start - prev_end;
				largest_off = prev_end;
			}
			cur_s = s->start;
			cur_e = s->end;
			run = 1;
		}
		accessed += cur_e - cur_s;
		if (o->size - cur_e > largest) {
			largest = o->size - cur_e;
			largest_off = cur_e;
		}
		i = j;
		if (accessed >= o->size)
			continue;
		uint64_t unacc = o->size - accessed;
		double acc_pct = (double)accessed * 100.0 / (double)o->size;
		double frag = (1.0 - (double)largest / (double)unacc) * 100.0;
		if (!(acc_pct < d->o->overalloc_pct && frag < d->o->frag_pct))
			continue;
		struct gmp_finding f = { .pattern = GMP_PAT_OVERALLOCATION, .object = obj,
					 .other = GMP_NO_OBJECT, .ev_a = o->alloc_ev,
					 .ev_b = o->free_ev, .bytes = unacc,
					 .accessed_pct = (float)acc_pct, .frag_pct = (float)frag };
		struct gmp_range rg = { .off = largest_off, .len = largest, .ev = GMP_NO_EVENT };
		int64_t off = det_add_range(d, &rg);
		if (off < 0)
			return (int)off;
		f.range_off = (uint32_t)off;
		f.range_n = 1;
		int err = det_add_finding(d, &f);
		if (err)
			return err;
	}
	return 0;
}

/* Two ranges from different launches overlap?  Ranges sorted by start. */
static int disjoint(const struct span *s, size_t n)
{
	uint64_t end1 = 0, end2 = 0;
	uint32_t l1 = UINT32_MAX;
	for (size_t i = 0; i < n; i++) {
		uint64_t other_end = s[i].tag == l1 ? end2 : end1;
		if (other_end > s[i].start)
			return 0;
		if (s[i].tag == l1) {
			if (s[i].end > end1)
				end1 = s[i].end;
		} else if (s[i].end > end1) {
			end2 = end1;
			end1 = s[i].end;
			l1 = s[i].tag;
		} else if (s[i].end > end2) {
			end2 = s[i].end;
		}
	}
	return 1;
}

static int group(struct ix *x, size_t a, size_t b)
{
	struct det *d = x->d;
	const struct lrec *first = &x->lr[a];
	const struct gmp_object *o = &d->r->objects[first->obj];
	int err = 0;
	/* Non-uniform access frequency: the launch with the largest CV. */
	size_t worst = a, over = 0;
	for (size_t i = a; i < b; i++) {
		if (x->lr[i].cv > d->o->cv_pct)
			over++;
		if (x->lr[i].cv > x->lr[worst].cv)
			worst = i;
	}
	if (over) {
		struct gmp_finding f = { .pattern = GMP_PAT_NON_UNIFORM_ACCESS_FREQUENCY,
					 .object = first->obj, .other = GMP_NO_OBJECT,
					 .ev_a = x->lr[worst].ev, .ev_b = GMP_NO_EVENT,
					 .kernel = first->name, .cv_pct = (float)x->lr[worst].cv,
					 .count = (uint32_t)over, .total = (uint32_t)(b - a) };
		double cv;
		struct gmp_hist h = { 0 };
		if ((err = sweep(x, &x->lr[worst], NULL, &cv, h.bytes, &h.max_count)))
			return err;
		int64_t hi = det_add_hist(d, &h);
		if (hi < 0)
			return (int)hi;
		f.hist = (uint32_t)hi;
		if ((err = det_add_finding(d, &f)))
			return err;
	}
	if (b - a < 2)
		return 0;
	struct vec_span sl = { 0 };
	for (size_t i = a; i < b && !err; i++) {
		double cv;
		err = sweep(x, &x->lr[i], &sl, &cv, NULL, NULL);
	}
	if (err) {
		free(sl.v);
		return err;
	}
	if (sl.n > 1)
		qsort(sl.v, sl.n, sizeof(*sl.v), cmp_span);
	if (disjoint(sl.v, sl.n)) {
		struct gmp_finding f = { .pattern = GMP_PAT_STRUCTURED_ACCESS, .object = first->obj,
					 .other = GMP_NO_OBJECT, .ev_a = x->lr[a].ev,
					 .ev_b = x->lr[b - 1].ev, .kernel = first->name,
					 .count = (uint32_t)(b - a), .total = (uint32_t)(b - a) };
		uint64_t largest = 0;
		for (size_t i = a; i < b && !err; i++) {
			const struct lrec *l = &x->lr[i];
			struct gmp_range rg = { .off = l->lo, .len = l->hi - l->lo, .ev = l->ev };
			if (rg.len > largest)
				largest = rg.len;
			int64_t off = det_add_range(d, &rg);
			if (off < 0)
				err = (int)off;
			else if (f.range_n++ == 0)
				f.range_off = (uint32_t)off;
		}
		f.bytes = o->size > largest ? o->size - largest : 0;
		if (!err)
			err = det_add_finding(d, &f);
	}
	free(sl.v);
	return err;
}

static int per_launch(struct ix *x)
{
	const struct gmp_trace *t = x->d->t;
	for (size_t i = 0; i < x->nlr; i++) {
		struct lrec *l = &x->lr[i];
		const struct gmp_object *o = &x->d->r->objects[l->obj];
		l->lo = UINT64_MAX;
		l->hi = 0;
		for (uint32_t j = 0; j < l->count; j++) {
			const struct gmp_touch *tc = &t->touch[x->tidx[l->first + j]];
			if (tc->addr - o->addr < l->lo)
				l->lo = tc->addr - o->addr;
			if (tc->addr + tc->size - o->addr > l->hi)
				l->hi = tc->addr + tc->size - o->addr;
		}
		int err = sweep(x, l, NULL, &l->cv, NULL, NULL);
		if (err)
			return err;
	}
	if (x->nlr > 1)
		qsort(x->lr, x->nlr, sizeof(*x->lr), cmp_lrec);
	for (size_t a = 0; a < x->nlr;) {
		size_t b = a;
		while (b < x->nlr && x->lr[b].obj == x->lr[a].obj && x->lr[b].name == x->lr[a].name)
			b++;
		int err = group(x, a, b);
		if (err)
			return err;
		a = b;
	}
	return 0;
}

int det_intra(struct det *d)
{
	struct ix x = { .d = d };
	int err = collect_launches(&x);
	if (!err)
		err = collect_life(&x);
	if (!err)
		err = overallocation(&x);
	if (!err)
		err = per_launch(&x);
	free(x.life.v);
	free(x.lr);
	free(x.tidx);
	free(x.uncovered);
	return err;
}
