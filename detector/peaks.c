// SPDX-License-Identifier: MIT
/*
 * Memory peaks and what fixing each finding would save.  Live bytes per
 * device are summed over the topological order (events by level, then
 * issue order); pool regions are not counted, since their pool already
 * is.  Where pools have regions, a second curve per device counts the
 * bytes in use: such a pool by its live regions, every other object by
 * itself; fixes to regions are measured against that one.  A fix changes one or two objects' live ranges; the new peak is the
 * maximum of the curve with those changes, found with a max segment tree
 * over the curve's change points in O(log n) per range.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "util.h"

#define PEAK_SPANS 64

struct dev_curve {
	uint32_t device;
	uint32_t *pos;    /* pos[0] is a sentinel for "before any change" */
	uint64_t *live;   /* while building; then the tree's leaves */
	size_t m;         /* points including the sentinel */
	uint64_t *tree;   /* max segment tree over live[], bottom-up: 2 * m entries */
	size_t leaves;    /* m */
	uint64_t peak;
	/* Where the curve stands at its peak: [pk_start[i], pk_end[i]) in positions. */
	uint32_t pk_start[PEAK_SPANS], pk_end[PEAK_SPANS];
	size_t npk;       /* PEAK_SPANS + 1 when there are more */
};

static int counted(const struct gmp_object *o)
{
	return gmp_mem_kind__device_bytes(o->kind);
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

struct bound {
	uint32_t at;
	int64_t delta;   /* change of the offset from here on */
};

static int cmp_bound(const void *a, const void *b)
{
	const struct bound *x = a, *y = b;
	return (x->at > y->at) - (x->at < y->at);
}

/*
 * The curve's maximum with the mods applied: the mods cut the positions
 * into segments of constant offset; each segment costs one range query.
 * b has room for 2 * nm + 2 entries.
 */
static uint64_t peak_with(const struct dev_curve *c, uint32_t npos, const struct mod *m,
			  size_t nm, struct bound *b)
{
	size_t nb = 0;
	b[nb++] = (struct bound){ 0, 0 };
	b[nb++] = (struct bound){ npos, 0 };
	for (size_t i = 0; i < nm; i++) {
		b[nb++] = (struct bound){ m[i].x, m[i].delta };
		b[nb++] = (struct bound){ m[i].y, -m[i].delta };
	}
	qsort(b, nb, sizeof(*b), cmp_bound);
	int64_t best = 0, delta = 0;
	for (size_t j = 0; j + 1 < nb; j++) {
		delta += b[j].delta;
		if (b[j].at == b[j + 1].at || b[j].at >= npos)
			continue;
		size_t lo = at_pos(c, b[j].at), hi = at_pos(c, b[j + 1].at - 1);
		int64_t v = (int64_t)tree_max(c, lo, hi) + delta;
		if (v > best)
			best = v;
	}
	return (uint64_t)best;
}

/*
 * Curves over the objects use[] marks (one per device of r->devices, in
 * that order): change points, peak, the moments at the peak, and the max
 * tree.  With points, every change also goes there (*npoints of them).
 */
static int build_set(struct det *d, struct dev_curve **out, const uint8_t *use,
		     struct gmp_curve_point **points, size_t *npoints)
{
	struct gmp_result *r = d->r;
	struct dev_curve *curves = *out = calloc(r->ndevices ? r->ndevices : 1, sizeof(*curves));
	if (!curves)
		return -ENOMEM;
	size_t *nobj = calloc(r->ndevices ? r->ndevices : 1, sizeof(*nobj));
	if (!nobj)
		return -ENOMEM;
	size_t total = 0;
	for (size_t o = 0; o < r->nobjects; o++)
		if (use[o]) {
			size_t di = gmp_result__device_index(r, r->objects[o].device);
			if (di != SIZE_MAX) {
				nobj[di]++;
				total += 1 + (r->objects[o].free_ev != GMP_NO_EVENT);
			}
		}
	if (points && !(*points = malloc((total ? total : 1) * sizeof(**points)))) {
		free(nobj);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->ndevices; i++) {
		struct dev_curve *c = &curves[i];
		c->device = r->devices[i].device;
		size_t m = 1 + 2 * nobj[i];
		c->pos = malloc(m * sizeof(*c->pos));
		c->live = malloc(m * sizeof(*c->live));
		if (!c->pos || !c->live) {
			free(nobj);
			return -ENOMEM;
		}
		c->pos[0] = 0;
		c->live[0] = 0;
		c->m = 1;
	}
	free(nobj);
	/* The object each alloc/free position belongs to (high bit: a free). */
	uint32_t *obj_at = malloc((d->t->nev ? d->t->nev : 1) * sizeof(*obj_at));
	if (!obj_at)
		return -ENOMEM;
	memset(obj_at, 0xff, d->t->nev * sizeof(*obj_at));
	for (size_t o = 0; o < r->nobjects; o++) {
		const struct gmp_object *ob = &r->objects[o];
		if (!use[o] || gmp_result__device_index(r, ob->device) == SIZE_MAX)
			continue;
		obj_at[d->pos[ob->alloc_ev]] = (uint32_t)o;
		if (ob->free_ev != GMP_NO_EVENT)
			obj_at[d->pos[ob->free_ev]] = (uint32_t)o | 0x80000000u;
	}
	for (size_t p = 0; p < d->t->nev; p++) {
		if (obj_at[p] == UINT32_MAX)
			continue;
		uint32_t obj = obj_at[p] & 0x7fffffffu;
		int is_free = (obj_at[p] >> 31) != 0;
		const struct gmp_object *ob = &r->objects[obj];
		struct dev_curve *c = &curves[gmp_result__device_index(r, ob->device)];
		uint64_t live = c->live[c->m - 1];
		live = is_free ? live - ob->size : live + ob->size;
		c->pos[c->m] = (uint32_t)p;
		c->live[c->m++] = live;
		if (live > c->peak)
			c->peak = live;
		if (points)
			(*points)[(*npoints)++] = (struct gmp_curve_point){ .ev = r->order[p],
									    .device = ob->device,
									    .live = live };
	}
	free(obj_at);
	for (size_t i = 0; i < r->ndevices; i++) {
		struct dev_curve *c = &curves[i];
		for (size_t k = 1; k < c->m && c->npk <= PEAK_SPANS; k++) {
			if (c->live[k] != c->peak)
				continue;
			if (c->npk < PEAK_SPANS) {
				c->pk_start[c->npk] = c->pos[k];
				c->pk_end[c->npk] = k + 1 < c->m ? c->pos[k + 1] : (uint32_t)d->t->nev;
			}
			c->npk++;
		}
		/* A bottom-up tree needs no power of two; its leaves replace live[]. */
		c->leaves = c->m;
		c->tree = malloc(2 * c->leaves * sizeof(*c->tree));
		if (!c->tree)
			return -ENOMEM;
		c->tree[0] = 0;
		memcpy(c->tree + c->leaves, c->live, c->m * sizeof(*c->tree));
		free(c->live);
		c->live = c->tree + c->leaves;
		for (size_t k = c->leaves - 1; k >= 1; k--)
			c->tree[k] = c->tree[2 * k] > c->tree[2 * k + 1] ? c->tree[2 * k]
									 : c->tree[2 * k + 1];
	}
	return 0;
}

static int build_curves(struct det *d)
{
	struct gmp_result *r = d->r;
	size_t cap = 0, nregions = 0;
	for (size_t o = 0; o < r->nobjects; o++) {
		const struct gmp_object *ob = &r->objects[o];
		nregions += ob->kind == GMP_MEM_POOL_REGION;
		if (!counted(ob))
			continue;
		size_t di = gmp_result__device_index(r, ob->device);
		if (di == SIZE_MAX) {
			if (GMP_GROW(r->devices, cap, r->ndevices + 1))
				return -ENOMEM;
			di = r->ndevices++;
			r->devices[di] = (struct gmp_device_summary){ .device = ob->device };
		}
		r->devices[di].objects++;
	}
	uint8_t *use = malloc(r->nobjects ? r->nobjects : 1);
	if (!use)
		return -ENOMEM;
	for (size_t o = 0; o < r->nobjects; o++)
		use[o] = (uint8_t)counted(&r->objects[o]);
	int err = build_set(d, &d->curves, use, &r->curve, &r->ncurve);
	for (size_t i = 0; !err && i < r->ndevices; i++) {
		r->devices[i].peak_bytes = d->curves[i].peak;
		if (d->curves[i].peak > r->peak_bytes)
			r->peak_bytes = d->curves[i].peak;
	}
	if (!err && nregions) {
		/* In use: a pool with regions counts by its regions, every other object by itself. */
		for (size_t o = 0; o < r->nobjects; o++)
			use[o] = r->objects[o].kind != GMP_MEM_IMPORTED;
		for (size_t o = 0; o < r->nobjects; o++)
			if (r->objects[o].kind == GMP_MEM_POOL_REGION && r->objects[o].parent != GMP_NO_OBJECT)
				use[r->objects[o].parent] = 0;
		err = build_set(d, &d->icurves, use, &r->inuse_curve, &r->ninuse_curve);
		for (size_t i = 0; !err && i < r->ndevices; i++)
			if (d->icurves[i].m > 1 || d->icurves[i].peak)
				r->devices[i].inuse_peak_bytes = d->icurves[i].peak;
	}
	free(use);
	return err;
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

static void free_set(struct det *d, struct dev_curve **set)
{
	if (!*set)
		return;
	for (size_t i = 0; i < d->r->ndevices; i++) {
		free((*set)[i].pos);
		if (!(*set)[i].tree)
			free((*set)[i].live); /* else live points into the tree */
		free((*set)[i].tree);
	}
	free(*set);
	*set = NULL;
}

void det_free_curves(struct det *d)
{
	free_set(d, &d->curves);
	free_set(d, &d->icurves);
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
static void life(const uint32_t *pos, uint32_t npos, const struct gmp_object *o, uint32_t *a,
		 uint32_t *f)
{
	*a = pos[o->alloc_ev];
	*f = o->free_ev == GMP_NO_EVENT ? npos : pos[o->free_ev];
}

/*
 * 1 when some moment of the peak lies outside every range the mods lower:
 * then the fix cannot lower the peak.  Mods must not overlap and, beyond
 * the first, come in position order (idle spans do).
 */
static int peak_untouched(const struct dev_curve *c, const struct mod *m, size_t nm)
{
	if (c->npk > PEAK_SPANS)
		return 0; /* too many moments to check quickly */
	for (size_t i = 0; i < nm; i++)
		if (m[i].delta > 0)
			return 0;
	for (size_t p = 0; p < c->npk; p++) {
		/* The last mod starting at or before this peak moment must cover it. */
		size_t lo = 0, hi = nm;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (m[mid].x <= c->pk_start[p])
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0 || m[lo - 1].y < c->pk_end[p])
			return 1;
	}
	return 0;
}

int gmp_finding__frees_memory(const struct gmp_finding *f)
{
	return f->pattern != GMP_PAT_DEAD_WRITE && f->pattern != GMP_PAT_NON_UNIFORM_ACCESS_FREQUENCY &&
	       !(f->pattern == GMP_PAT_MEMORY_LEAK && f->ev_a == GMP_NO_EVENT);
}

size_t det_fix_mods(const struct gmp_result *r, const uint32_t *pos, uint32_t npos,
		    const struct gmp_finding *fd, struct mod *m)
{
	const struct gmp_object *o = &r->objects[fd->object];
	int64_t s = (int64_t)o->size;
	uint32_t a, f;
	life(pos, npos, o, &a, &f);
	uint32_t end = npos;
	switch (fd->pattern) {
	case GMP_PAT_EARLY_ALLOCATION:
		m[0] = (struct mod){ a, pos[fd->ev_b], -s };
		return 1;
	case GMP_PAT_LATE_DEALLOCATION:
		m[0] = (struct mod){ pos[fd->ev_a] + 1, f, -s };
		return 1;
	case GMP_PAT_UNUSED_ALLOCATION:
		m[0] = (struct mod){ a, f, -s };
		return 1;
	case GMP_PAT_MEMORY_LEAK:
		if (fd->ev_a == GMP_NO_EVENT)
			return 0; /* its last use unknown: where to free it is too */
		m[0] = (struct mod){ o->naccess ? pos[o->last_ev] + 1 : a, end, -s };
		return 1;
	case GMP_PAT_TEMPORARY_IDLENESS:
		/* Absent over every idle range. */
		for (uint32_t i = 0; i < fd->range_n; i++) {
			const struct gmp_span *sp = &r->spans[fd->range_off + i];
			m[i] = (struct mod){ pos[sp->ev_a] + 1, pos[sp->ev_b], -s };
		}
		return fd->range_n;
	case GMP_PAT_REDUNDANT_ALLOCATION: {
		const struct gmp_object *p = &r->objects[fd->other];
		uint32_t pa, pf;
		life(pos, npos, p, &pa, &pf);
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
	size_t most = 3;
	for (size_t i = 0; i < r->nfindings; i++)
		if (r->findings[i].pattern == GMP_PAT_TEMPORARY_IDLENESS && r->findings[i].range_n > most)
			most = r->findings[i].range_n;
	struct mod *m = malloc(most * sizeof(*m));
	struct bound *b = malloc((2 * most + 2) * sizeof(*b));
	if (!m || !b) {
		free(m);
		free(b);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->nfindings; i++) {
		struct gmp_finding *fd = &r->findings[i];
		const struct gmp_object *o = &r->objects[fd->object];
		const struct gmp_object *root = det_root(r, fd->object);
		size_t di = gmp_result__device_index(r, root->device);
		if (di == SIZE_MAX)
			continue;
		/*
		 * A fix inside a pool frees nothing on the device unless the pool
		 * shrinks: it lowers the peak of the bytes in use instead.
		 */
		const struct dev_curve *c = counted(o) ? &d->curves[di] : d->icurves ? &d->icurves[di] : NULL;
		fd->saving = 0;
		if (!c)
			continue;
		size_t nm = det_fix_mods(r, d->pos, (uint32_t)d->t->nev, fd, m);
		size_t k = 0;
		for (size_t j = 0; j < nm; j++)
			if (m[j].x < m[j].y)
				m[k++] = m[j];
		if (!k)
			continue;
		if (fd->pattern == GMP_PAT_REDUNDANT_ALLOCATION) {
			/*
			 * Sharing one buffer lowers the curve only where both objects
			 * lived; a peak moment anywhere else keeps the peak.
			 */
			struct mod both = { m[0].x > m[1].x ? m[0].x : m[1].x,
					    m[0].y < m[1].y ? m[0].y : m[1].y, -1 };
			if (both.x >= both.y || peak_untouched(c, &both, 1))
				continue;
		} else if (peak_untouched(c, m, k)) {
			continue;
		}
		uint64_t after = peak_with(c, (uint32_t)d->t->nev, m, k, b);
		if (after < c->peak)
			fd->saving = c->peak - after;
	}
	free(m);
	free(b);
	det_free_curves(d);
	return 0;
}
