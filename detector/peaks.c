// SPDX-License-Identifier: MIT
/*
 * Memory peaks and what fixing each finding would save.  Live bytes per
 * device are summed over the topological order (events by level, then
 * issue order); pool regions are not counted, since their pool already
 * is.  A fix changes one or two objects' live ranges; the new peak is the
 * maximum of the curve with those changes, found with a max segment tree
 * over the curve's change points in O(log n) per range.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "util.h"

struct dev_curve {
	uint32_t device;
	uint32_t *pos;    /* pos[0] is a sentinel for "before any change" */
	uint64_t *live;
	size_t m;         /* points including the sentinel */
	uint64_t *tree;   /* max segment tree over live[] */
	size_t leaves;
	uint64_t peak;
};

static int counted(const struct gmp_object *o)
{
	return o->kind != GMP_MEM_POOL_REGION;
}

static size_t dev_index(struct gmp_result *r, uint32_t device)
{
	for (size_t i = 0; i < r->ndevices; i++)
		if (r->devices[i].device == device)
			return i;
	return SIZE_MAX;
}

/* Index of the last change point at or before position p. */
static size_t at_pos(const struct dev_curve *c, uint32_t p)
{
	size_t lo = 1, hi = c->m; /* find first index with pos > p, in [1, m) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->pos[mid] <= p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

static uint64_t tree_max(const struct dev_curve *c, size_t lo, size_t hi) /* [lo, hi] */
{
	uint64_t m = 0;
	for (lo += c->leaves, hi += c->leaves + 1; lo < hi; lo /= 2, hi /= 2) {
		if (lo & 1) {
			if (c->tree[lo] > m)
				m = c->tree[lo];
			lo++;
		}
		if (hi & 1) {
			hi--;
			if (c->tree[hi] > m)
				m = c->tree[hi];
		}
	}
	return m;
}

struct mod {
	uint32_t x, y;   /* positions [x, y) */
	int64_t delta;
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* The curve's maximum with the mods applied. */
static uint64_t peak_with(const struct dev_curve *c, uint32_t npos, const struct mod *m,
			  size_t nm)
{
	uint32_t b[2 + 2 * 4];
	size_t nb = 0;
	b[nb++] = 0;
	b[nb++] = npos;
	for (size_t i = 0; i < nm; i++) {
		b[nb++] = m[i].x;
		b[nb++] = m[i].y;
	}
	qsort(b, nb, sizeof(*b), cmp_u32);
	int64_t best = 0;
	for (size_t j = 0; j + 1 < nb; j++) {
		if (b[j] == b[j + 1])
			continue;
		int64_t delta = 0;
		for (size_t i = 0; i < nm; i++)
			if (m[i].x <= b[j] && b[j + 1] <= m[i].y)
				delta += m[i].delta;
		size_t lo = at_pos(c, b[j]), hi = at_pos(c, b[j + 1] - 1);
		int64_t v = (int64_t)tree_max(c, lo, hi) + delta;
		if (v > best)
			best = v;
	}
	return (uint64_t)best;
}

static int build_curves(struct det *d)
{
	struct gmp_result *r = d->r;
	struct dev_curve *curves;
	size_t cap = 0;
	for (size_t o = 0; o < r->nobjects; o++) {
		const struct gmp_object *ob = &r->objects[o];
		if (!counted(ob))
			continue;
		size_t di = dev_index(r, ob->device);
		if (di == SIZE_MAX) {
			if (GMP_GROW(r->devices, cap, r->ndevices + 1))
				return -ENOMEM;
			di = r->ndevices++;
			r->devices[di] = (struct gmp_device_summary){ .device = ob->device };
		}
		r->devices[di].objects++;
	}
	curves = d->curves = calloc(r->ndevices ? r->ndevices : 1, sizeof(*curves));
	size_t total = 0;
	for (size_t o = 0; o < r->nobjects; o++)
		if (counted(&r->objects[o]))
			total += 1 + (r->objects[o].free_ev != GMP_NO_EVENT);
	r->curve = malloc((total ? total : 1) * sizeof(*r->curve));
	if (!curves || !r->curve)
		return -ENOMEM;
	for (size_t i = 0; i < r->ndevices; i++) {
		struct dev_curve *c = &curves[i];
		c->device = r->devices[i].device;
		size_t m = 1 + 2 * r->devices[i].objects;
		c->pos = malloc(m * sizeof(*c->pos));
		c->live = malloc(m * sizeof(*c->live));
		if (!c->pos || !c->live)
			return -ENOMEM;
		c->pos[0] = 0;
		c->live[0] = 0;
		c->m = 1;
	}
	/* Object of each alloc/free event: deps hold it. */
	for (size_t p = 0; p < d->t->nev; p++) {
		uint32_t v = r->order[p];
		uint8_t op = d->t->ev[v].op;
		if (op != GMP_OP_ALLOC && op != GMP_OP_FREE)
			continue;
		uint32_t obj = DEP_OBJ(d->deps[d->dep_off[v]]);
		const struct gmp_object *ob = &r->objects[obj];
		if (!counted(ob))
			continue;
		struct dev_curve *c = &curves[dev_index(r, ob->device)];
		uint64_t live = c->live[c->m - 1];
		live = op == GMP_OP_ALLOC ? live + ob->size : live - ob->size;
		c->pos[c->m] = (uint32_t)p;
		c->live[c->m++] = live;
		if (live > c->peak)
			c->peak = live;
		r->curve[r->ncurve++] = (struct gmp_curve_point){ .ev = v, .device = ob->device,
								  .live = live };
	}
	for (size_t i = 0; i < r->ndevices; i++) {
		struct dev_curve *c = &curves[i];
		c->leaves = 1;
		while (c->leaves < c->m)
			c->leaves *= 2;
		c->tree = calloc(2 * c->leaves, sizeof(*c->tree));
		if (!c->tree)
			return -ENOMEM;
		for (size_t k = 0; k < c->m; k++)
			c->tree[c->leaves + k] = c->live[k];
		for (size_t k = c->leaves - 1; k >= 1; k--)
			c->tree[k] = c->tree[2 * k] > c->tree[2 * k + 1] ? c->tree[2 * k]
									 : c->tree[2 * k + 1];
		r->devices[i].peak_bytes = c->peak;
		if (c->peak > r->peak_bytes)
			r->peak_bytes = c->peak;
	}
	return 0;
}

struct cand_peak {
	uint64_t live;
	size_t k;
};

static int cmp_peak(const void *a, const void *b)
{
	const struct cand_peak *x = a, *y = b;
	if (x->live != y->live)
		return x->live > y->live ? -1 : 1;
	return (x->k > y->k) - (x->k < y->k);
}

static int cmp_obj_size(const void *a, const void *b, void *ctx)
{
	const struct gmp_result *r = ctx;
	const struct gmp_object *x = &r->objects[*(const uint32_t *)a];
	const struct gmp_object *y = &r->objects[*(const uint32_t *)b];
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return (*(const uint32_t *)a > *(const uint32_t *)b) -
	       (*(const uint32_t *)a < *(const uint32_t *)b);
}

static int live_objects(struct det *d, const struct dev_curve *c, uint32_t p, size_t *cap)
{
	struct gmp_result *r = d->r;
	size_t first = r->npeak_objs;
	for (size_t o = 0; o < r->nobjects; o++) {
		const struct gmp_object *ob = &r->objects[o];
		if (!counted(ob) || ob->device != c->device)
			continue;
		uint32_t a = d->pos[ob->alloc_ev];
		uint32_t f = ob->free_ev == GMP_NO_EVENT ? UINT32_MAX : d->pos[ob->free_ev];
		if (a <= p && p < f) {
			if (GMP_GROW(r->peak_objs, *cap, r->npeak_objs + 1))
				return -ENOMEM;
			r->peak_objs[r->npeak_objs++] = (uint32_t)o;
		}
	}
	if (r->npeak_objs - first > 1)
		qsort_r(r->peak_objs + first, r->npeak_objs - first, sizeof(uint32_t),
			cmp_obj_size, r);
	return 0;
}

static int find_peaks(struct det *d)
{
	struct gmp_result *r = d->r;
	size_t peaks_cap = 0, objs_cap = 0;
	for (size_t i = 0; i < r->ndevices; i++) {
		const struct dev_curve *c = &d->curves[i];
		struct cand_peak *cp = malloc(c->m * sizeof(*cp));
		if (!cp)
			return -ENOMEM;
		size_t n = 0;
		for (size_t k = 1; k < c->m; k++)
			if (c->live[k] > c->live[k - 1] && (k + 1 == c->m || c->live[k + 1] < c->live[k]))
				cp[n++] = (struct cand_peak){ c->live[k], k };
		if (n > 1)
			qsort(cp, n, sizeof(*cp), cmp_peak);
		for (size_t j = 0; j < n && j < d->o->peaks; j++) {
			if (GMP_GROW(r->peaks, peaks_cap, r->npeaks + 1)) {
				free(cp);
				return -ENOMEM;
			}
			struct gmp_peak *pk = &r->peaks[r->npeaks++];
			*pk = (struct gmp_peak){ .device = c->device, .ev = r->order[c->pos[cp[j].k]],
						 .bytes = cp[j].live, .obj_off = (uint32_t)r->npeak_objs };
			if (live_objects(d, c, c->pos[cp[j].k], &objs_cap)) {
				free(cp);
				return -ENOMEM;
			}
			pk->obj_n = (uint32_t)(r->npeak_objs - pk->obj_off);
		}
		free(cp);
	}
	return 0;
}

void det_free_curves(struct det *d)
{
	if (!d->curves)
		return;
	for (size_t i = 0; i < d->r->ndevices; i++) {
		free(d->curves[i].pos);
		free(d->curves[i].live);
		free(d->curves[i].tree);
	}
	free(d->curves);
	d->curves = NULL;
}

int det_peaks(struct det *d)
{
	int err = build_curves(d);
	if (!err)
		err = find_peaks(d);
	if (err)
		det_free_curves(d);
	return err;
}

/* The live range [alloc, free) of an object in positions. */
static void life(const struct det *d, const struct gmp_object *o, uint32_t *a, uint32_t *f)
{
	*a = d->pos[o->alloc_ev];
	*f = o->free_ev == GMP_NO_EVENT ? (uint32_t)d->t->nev : d->pos[o->free_ev];
}

static size_t mods_for(const struct det *d, const struct gmp_finding *fd, struct mod *m)
{
	const struct gmp_object *o = &d->r->objects[fd->object];
	int64_t s = (int64_t)o->size;
	uint32_t a, f;
	life(d, o, &a, &f);
	uint32_t end = (uint32_t)d->t->nev;
	switch (fd->pattern) {
	case GMP_PAT_EARLY_ALLOCATION:
		m[0] = (struct mod){ a, d->pos[fd->ev_b], -s };
		return 1;
	case GMP_PAT_LATE_DEALLOCATION:
		m[0] = (struct mod){ d->pos[fd->ev_a] + 1, f, -s };
		return 1;
	case GMP_PAT_UNUSED_ALLOCATION:
		m[0] = (struct mod){ a, f, -s };
		return 1;
	case GMP_PAT_MEMORY_LEAK:
		m[0] = (struct mod){ o->naccess ? d->pos[o->last_ev] + 1 : a, end, -s };
		return 1;
	case GMP_PAT_TEMPORARY_IDLENESS:
		m[0] = (struct mod){ d->pos[fd->ev_a] + 1, d->pos[fd->ev_b], -s };
		return 1;
	case GMP_PAT_REDUNDANT_ALLOCATION: {
		const struct gmp_object *p = &d->r->objects[fd->other];
		uint32_t pa, pf;
		life(d, p, &pa, &pf);
		m[0] = (struct mod){ a, f, -s };
		m[1] = (struct mod){ pa, pf, -(int64_t)p->size };
		m[2] = (struct mod){ a < pa ? a : pa, f > pf ? f : pf,
				     (int64_t)(o->size > p->size ? o->size : p->size) };
		return 3;
	}
	case GMP_PAT_OVERALLOCATION:
	case GMP_PAT_STRUCTURED_ACCESS:
		m[0] = (struct mod){ a, f, -(int64_t)fd->bytes };
		return 1;
	default:
		return 0;
	}
}

int det_savings(struct det *d)
{
	struct gmp_result *r = d->r;
	for (size_t i = 0; i < r->nfindings; i++) {
		struct gmp_finding *fd = &r->findings[i];
		const struct gmp_object *o = &r->objects[fd->object];
		const struct gmp_object *root = o;
		while (root->parent != GMP_NO_OBJECT)
			root = &r->objects[root->parent];
		size_t di = dev_index(r, root->device);
		if (di == SIZE_MAX)
			continue;
		const struct dev_curve *c = &d->curves[di];
		fd->peak_before = fd->peak_after = c->peak;
		fd->saving = 0;
		/* A fix inside a pool frees nothing on the device unless the pool shrinks. */
		if (!counted(o))
			continue;
		struct mod m[4];
		size_t nm = mods_for(d, fd, m);
		size_t k = 0;
		for (size_t j = 0; j < nm; j++)
			if (m[j].x < m[j].y)
				m[k++] = m[j];
		if (!k)
			continue;
		uint64_t after = peak_with(c, (uint32_t)d->t->nev, m, k);
		if (after < c->peak) {
			fd->peak_after = after;
			fd->saving = c->peak - after;
		}
	}
	det_free_curves(d);
	return 0;
}
