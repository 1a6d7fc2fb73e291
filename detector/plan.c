// SPDX-License-Identifier: MIT
/*
 * Several fixes at once: a device's peak with a set of findings fixed
 * together, and which findings bring it under a target.
 * Fixes combine per object, over the topological order's positions as the
 * peaks are measured: an object is absent wherever one of its fixes
 * removes it (early allocation, late deallocation, leak, idle ranges,
 * unused), smaller by its largest overallocation or structured-access
 * saving where it stays, and a redundant pair becomes one buffer of the
 * larger size from the first to the last moment either lives, where no
 * other fix changes either of them (an object in a pair joins no other).
 * Pool regions' fixes free nothing on the device and are left out.  Each
 * evaluation is linear in objects and positions.  What one fix changes is
 * det_fix_mods' (peaks.c), as for each finding's own saving.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "util.h"

struct iv {
	uint32_t x, y;
};

struct plan_ctx {
	const struct gmp_result *r;
	uint32_t npos;
	uint32_t *pos;        /* per event: its place in r->order */
	int64_t *delta;       /* npos + 1 */
	/* per object, for the findings being applied */
	uint32_t *rm_head;    /* first removal in rm[], UINT32_MAX none */
	uint64_t *reduce;
	uint32_t *pair;       /* the other object of its redundant pair, GMP_NO_OBJECT none */
	struct rm {
		struct iv iv;
		uint32_t next;
	} *rm;
	size_t nrm, rm_cap;
	uint32_t *touched;    /* objects whose entries are set */
	size_t ntouched, touched_cap;
	struct iv *pieces;
	size_t pieces_cap;
	struct mod *m;        /* a finding's changes (det_fix_mods): room for the most idle ranges */
};

static void life(const struct plan_ctx *c, const struct gmp_object *o, uint32_t *a, uint32_t *f)
{
	*a = c->pos[o->alloc_ev];
	*f = o->free_ev == GMP_NO_EVENT ? c->npos : c->pos[o->free_ev];
}

static int touch(struct plan_ctx *c, uint32_t o)
{
	if (c->rm_head[o] != UINT32_MAX || c->reduce[o] || c->pair[o] != GMP_NO_OBJECT)
		return 0;
	if (GMP_GROW(c->touched, c->touched_cap, c->ntouched + 1))
		return -ENOMEM;
	c->touched[c->ntouched++] = o;
	return 0;
}

static int add_rm(struct plan_ctx *c, uint32_t o, uint32_t x, uint32_t y)
{
	if (x >= y)
		return 0;
	if (touch(c, o) || GMP_GROW(c->rm, c->rm_cap, c->nrm + 1))
		return -ENOMEM;
	c->rm[c->nrm] = (struct rm){ { x, y }, c->rm_head[o] };
	c->rm_head[o] = (uint32_t)c->nrm++;
	return 0;
}

/*
 * Records what fixing f changes of its object: the ranges it removes it
 * from and the bytes it saves where it stays (det_fix_mods), or, for a
 * redundant pair, the pair (applied last: of objects nothing else changes).
 */
static int apply(struct plan_ctx *c, const struct gmp_finding *f)
{
	const struct gmp_result *r = c->r;
	const struct gmp_object *o = &r->objects[f->object];
	if (f->pattern == GMP_PAT_REDUNDANT_ALLOCATION) {
		if (c->pair[f->object] != GMP_NO_OBJECT || c->pair[f->other] != GMP_NO_OBJECT ||
		    f->other == f->object || c->rm_head[f->object] != UINT32_MAX ||
		    c->rm_head[f->other] != UINT32_MAX || c->reduce[f->object] || c->reduce[f->other])
			return 0;
		if (touch(c, f->object) || touch(c, f->other))
			return -ENOMEM;
		c->pair[f->object] = f->other;
		c->pair[f->other] = f->object;
		return 0;
	}
	if (f->pattern == GMP_PAT_OVERALLOCATION || f->pattern == GMP_PAT_STRUCTURED_ACCESS) {
		uint64_t b = f->bytes < o->size ? f->bytes : o->size;
		if (b > c->reduce[f->object]) {
			if (touch(c, f->object))
				return -ENOMEM;
			c->reduce[f->object] = b;
		}
		return 0;
	}
	size_t nm = det_fix_mods(r, c->pos, c->npos, f, c->m);
	for (size_t i = 0; i < nm; i++)
		if (add_rm(c, f->object, c->m[i].x, c->m[i].y))
			return -ENOMEM;
	return 0;
}

static int cmp_iv(const void *a, const void *b)
{
	const struct iv *x = a, *y = b;
	return (x->x > y->x) - (x->x < y->x);
}

/* What is left of object o's life, after its removals, appended to c->pieces from *n. */
static int kept(struct plan_ctx *c, uint32_t o, size_t *n)
{
	uint32_t a, e;
	life(c, &c->r->objects[o], &a, &e);
	size_t first = *n, nr = 0;
	for (uint32_t k = c->rm_head[o]; k != UINT32_MAX; k = c->rm[k].next)
		nr++;
	if (GMP_GROW(c->pieces, c->pieces_cap, first + nr + 1))
		return -ENOMEM;
	/* The removals, sorted, after the room for the pieces. */
	struct iv *rem = c->pieces + first + 1;
	size_t i = 0;
	for (uint32_t k = c->rm_head[o]; k != UINT32_MAX; k = c->rm[k].next)
		rem[i++] = c->rm[k].iv;
	if (nr > 1)
		qsort(rem, nr, sizeof(*rem), cmp_iv);
	/*
	 * The pieces overwrite the removals already read: the piece before
	 * removal i lands at index m <= i, below removal i at i + 1.
	 */
	struct iv *out = c->pieces + first;
	size_t m = 0;
	uint32_t at = a;
	for (i = 0; i < nr && at < e; i++) {
		struct iv rv = rem[i];
		if (rv.y <= at)
			continue;
		if (rv.x > at)
			out[m++] = (struct iv){ at, rv.x < e ? rv.x : e };
		at = rv.y;
	}
	if (at < e)
		out[m++] = (struct iv){ at, e };
	*n = first + m;
	return 0;
}

static void add(struct plan_ctx *c, const struct iv *p, size_t n, int64_t bytes)
{
	for (size_t i = 0; i < n; i++) {
		c->delta[p[i].x] += bytes;
		c->delta[p[i].y] -= bytes;
	}
}

/* The hull of the pieces c->pieces[0..n), into c->pieces[0]: the shared buffer's life. */
static size_t hull(struct plan_ctx *c, size_t n)
{
	struct iv *p = c->pieces;
	for (size_t i = 1; i < n; i++) {
		p[0].x = p[i].x < p[0].x ? p[i].x : p[0].x;
		p[0].y = p[i].y > p[0].y ? p[i].y : p[0].y;
	}
	return n ? 1 : 0;
}

/* The curve's peak and its first position. */
static int peak_of(struct plan_ctx *c, uint32_t device, uint64_t *peak, uint32_t *at)
{
	const struct gmp_result *r = c->r;
	memset(c->delta, 0, (c->npos + 1) * sizeof(*c->delta));
	for (uint32_t o = 0; o < r->nobjects; o++) {
		const struct gmp_object *ob = &r->objects[o];
		if (!gmp_mem_kind__device_bytes(ob->kind) || ob->device != device)
			continue;
		uint32_t q = c->pair[o];
		size_t n = 0;
		if (q != GMP_NO_OBJECT) {
			if (q < o)
				continue; /* the pair was added with its first object */
			if (kept(c, o, &n) || kept(c, q, &n))
				return -ENOMEM;
			n = hull(c, n);
			uint64_t big = ob->size > r->objects[q].size ? ob->size : r->objects[q].size;
			add(c, c->pieces, n, (int64_t)big);
			continue;
		}
		if (kept(c, o, &n))
			return -ENOMEM;
		add(c, c->pieces, n, (int64_t)(ob->size - c->reduce[o]));
	}
	int64_t live = 0, best = 0;
	*at = 0;
	for (uint32_t p = 0; p < c->npos; p++) {
		live += c->delta[p];
		if (live > best) {
			best = live;
			*at = p;
		}
	}
	*peak = (uint64_t)best;
	return 0;
}

static void clear(struct plan_ctx *c)
{
	for (size_t i = 0; i < c->ntouched; i++) {
		uint32_t o = c->touched[i];
		c->rm_head[o] = UINT32_MAX;
		c->reduce[o] = 0;
		c->pair[o] = GMP_NO_OBJECT;
	}
	c->ntouched = c->nrm = 0;
}

static int ctx_init(struct plan_ctx *c, const struct gmp_result *r)
{
	memset(c, 0, sizeof(*c));
	c->r = r;
	c->npos = (uint32_t)r->trace->nev;
	size_t no = r->nobjects ? r->nobjects : 1;
	c->pos = malloc((c->npos ? c->npos : 1) * sizeof(*c->pos));
	c->delta = malloc((c->npos + 1) * sizeof(*c->delta));
	c->rm_head = malloc(no * sizeof(*c->rm_head));
	c->reduce = calloc(no, sizeof(*c->reduce));
	c->pair = malloc(no * sizeof(*c->pair));
	uint32_t most = 3;
	for (size_t i = 0; i < r->nfindings; i++)
		most = r->findings[i].range_n > most && r->findings[i].pattern == GMP_PAT_TEMPORARY_IDLENESS
			       ? r->findings[i].range_n : most;
	c->m = malloc(most * sizeof(*c->m));
	if (!c->pos || !c->delta || !c->rm_head || !c->reduce || !c->pair || !c->m)
		return -ENOMEM;
	for (uint32_t i = 0; i < c->npos; i++)
		c->pos[r->order[i]] = i;
	memset(c->rm_head, 0xff, no * sizeof(*c->rm_head));
	for (size_t o = 0; o < no; o++)
		c->pair[o] = GMP_NO_OBJECT;
	return 0;
}

static void ctx_release(struct plan_ctx *c)
{
	free(c->pos);
	free(c->delta);
	free(c->rm_head);
	free(c->reduce);
	free(c->pair);
	free(c->rm);
	free(c->touched);
	free(c->pieces);
	free(c->m);
}

/* The state of fixes fix[0..n) applied, pairs last (clear() undoes it). */
static int rebuild(struct plan_ctx *c, const uint32_t *fix, size_t n)
{
	int err = 0;
	for (int pairs = 0; pairs < 2; pairs++)
		for (size_t i = 0; i < n && !err; i++)
			if ((c->r->findings[fix[i]].pattern == GMP_PAT_REDUNDANT_ALLOCATION) == pairs)
				err = apply(c, &c->r->findings[fix[i]]);
	return err;
}

/* The peak of device with findings fix[0..n) fixed together. */
static int with(struct plan_ctx *c, uint32_t device, const uint32_t *fix, size_t n, uint64_t *peak)
{
	uint32_t at;
	int err = rebuild(c, fix, n);
	if (!err)
		err = peak_of(c, device, peak, &at);
	clear(c);
	return err;
}

int gmp_result__peak_with_fixes(const struct gmp_result *r, uint32_t device, const uint32_t *fix,
				size_t n, uint64_t *peak)
{
	struct plan_ctx c;
	int err = ctx_init(&c, r);
	if (!err)
		err = with(&c, device, fix, n, peak);
	ctx_release(&c);
	return err;
}

#define PLAN_MAX 64  /* fixes a plan may take; a budget that needs more is out of reach */

/*
 * What fixing f as well would take off the curve at position p: its
 * object's bytes there, where one of its removed ranges holds p, or what
 * it saves beyond the object's saving so far.  (Plans hold no pairs.)
 */
static uint64_t gain_at(struct plan_ctx *c, const struct gmp_finding *f, uint32_t p)
{
	const struct gmp_object *o = &c->r->objects[f->object];
	uint32_t a, e;
	life(c, o, &a, &e);
	if (p < a || p >= e)
		return 0;
	for (uint32_t k = c->rm_head[f->object]; k != UINT32_MAX; k = c->rm[k].next)
		if (c->rm[k].iv.x <= p && p < c->rm[k].iv.y)
			return 0; /* removed there already */
	if (f->pattern == GMP_PAT_OVERALLOCATION || f->pattern == GMP_PAT_STRUCTURED_ACCESS) {
		uint64_t b = f->bytes < o->size ? f->bytes : o->size;
		return b > c->reduce[f->object] ? b - c->reduce[f->object] : 0;
	}
	size_t nm = det_fix_mods(c->r, c->pos, c->npos, f, c->m);
	for (size_t i = 0; i < nm; i++)
		if (c->m[i].x <= p && p < c->m[i].y)
			return o->size - c->reduce[f->object];
	return 0;
}

/*
 * Drops from chosen[0..*k) every fix the others make unneeded, the earliest
 * chosen first (a fix picked for the first peak's moment may be covered by
 * those picked later for other moments), keeping the order; *peak becomes
 * the peak with what is left.  One pass leaves each fix needed: since
 * every fix only lowers the curve, a fix needed beside some others is
 * needed beside fewer.
 */
static int prune(struct plan_ctx *c, uint32_t device, uint32_t *chosen, size_t *k, uint64_t target,
		 uint64_t *peak)
{
	for (size_t i = 0; i < *k;) {
		uint32_t drop = chosen[i];
		uint64_t v;
		memmove(chosen + i, chosen + i + 1, (*k - i - 1) * sizeof(*chosen));
		int err = with(c, device, chosen, *k - 1, &v);
		if (!err && v <= target) {
			(*k)--;
			*peak = v;
			continue;
		}
		memmove(chosen + i + 1, chosen + i, (*k - i - 1) * sizeof(*chosen));
		chosen[i++] = drop;
		if (err)
			return err;
	}
	return 0;
}

/*
 * Greedy: while the peak is above the target, fix the finding that takes
 * most off the curve at the peak's first moment (the first in rank order
 * among equals).  Plans hold no redundant pairs, so every fix only lowers
 * the curve, each object's alone: none taking anything off there means no
 * set of them can, since that moment's bytes stay.  At most PLAN_MAX fixes,
 * then those the others make unneeded are dropped (prune).
 */
static int fit(struct plan_ctx *c, struct gmp_plan *p, uint32_t *cand, size_t n, uint64_t target,
	       uint32_t *chosen)
{
	for (size_t k = 0;; k++) {
		uint64_t peak;
		uint32_t at;
		int err = rebuild(c, chosen, k);
		if (!err)
			err = peak_of(c, p->device, &peak, &at);
		if (err || peak <= target) {
			clear(c);
			if (!err && !(err = prune(c, p->device, chosen, &k, target, &peak))) {
				p->fit_n = (uint32_t)k;
				p->peak_fit = peak;
			}
			return err;
		}
		size_t best = n;
		uint64_t best_gain = 0;
		for (size_t i = 0; i < n && k < PLAN_MAX; i++) {
			uint64_t g = cand[i] == UINT32_MAX ? 0 : gain_at(c, &c->r->findings[cand[i]], at);
			if (g > best_gain) {
				best = i;
				best_gain = g;
			}
		}
		clear(c);
		p->fit_capped = k == PLAN_MAX;
		if (err || best == n)
			return err; /* fit_n stays UINT32_MAX */
		chosen[k] = cand[best];
		cand[best] = UINT32_MAX;
	}
}

/*
 * The fewest fixes: the greedy plan (chosen[0..*k)) is often not the
 * smallest (a fix taking most off the peak's moment, where another that
 * takes less there also covers the other moments over the target).  Depth
 * first over sets smaller than the best so far, branching at each set's
 * peak moment on the fixes that take something off there (any set that
 * reaches the target takes something off there, and fixes only add what
 * they take off, per object at most its bytes, so a fix taking nothing
 * there alone takes nothing there beside others); a branch's fixes are
 * left out of the branches after it (so each set is seen once), and a set
 * is given up when its remaining slots' largest gains together cannot
 * bring the peak down to the target.  Bounded: at most `left` sets are
 * evaluated (each a pass over the positions); p->fit_fewest says whether
 * the search ended within that, so that no smaller set exists.
 */
struct search {
	struct plan_ctx *c;
	uint32_t device;
	uint64_t target;
	const uint32_t *cand;  /* the device's candidates (finding indices) */
	size_t n;
	uint8_t *off;          /* per candidate: in the set, or left out of this branch */
	struct opt {
		uint64_t gain;
		uint32_t i;
	} *opts;               /* per depth, n of them */
	uint32_t cur[PLAN_MAX], best[PLAN_MAX];
	size_t ncur, nbest;
	uint64_t best_peak, left;
	int ran_out;
};

static int by_gain(const void *a, const void *b)
{
	const struct opt *x = a, *y = b;
	return x->gain != y->gain ? (x->gain < y->gain ? 1 : -1) : (x->i > y->i) - (x->i < y->i);
}

static int fewer(struct search *s, size_t depth)
{
	if (!s->left) {
		s->ran_out = 1;
		return 0;
	}
	s->left--;
	uint64_t peak;
	uint32_t at;
	int err = rebuild(s->c, s->cur, s->ncur);
	if (!err)
		err = peak_of(s->c, s->device, &peak, &at);
	if (err || peak <= s->target || s->ncur + 1 >= s->nbest) {
		clear(s->c);
		if (!err && peak <= s->target) {
			memcpy(s->best, s->cur, s->ncur * sizeof(*s->cur));
			s->nbest = s->ncur;
			s->best_peak = peak;
		}
		return err;
	}
	struct opt *o = s->opts + depth * s->n;
	size_t no = 0;
	for (size_t i = 0; i < s->n; i++) {
		uint64_t g = s->off[i] ? 0 : gain_at(s->c, &s->c->r->findings[s->cand[i]], at);
		if (g)
			o[no++] = (struct opt){ g, (uint32_t)i };
	}
	clear(s->c);
	qsort(o, no, sizeof(*o), by_gain);
	uint64_t sum = 0;
	for (size_t j = 0; j < no && j < s->nbest - 1 - s->ncur; j++)
		sum += o[j].gain;
	size_t j = 0;
	for (; sum >= peak - s->target && j < no && s->ncur + 1 < s->nbest && !s->ran_out; j++) {
		s->off[o[j].i] = 1;
		s->cur[s->ncur++] = s->cand[o[j].i];
		err = fewer(s, depth + 1);
		s->ncur--;
		if (err)
			break;
	}
	while (j-- > 0)
		s->off[o[j].i] = 0;
	return err;
}

static int fewest(struct plan_ctx *c, struct gmp_plan *p, const uint32_t *cand, size_t n, uint32_t *chosen)
{
	p->fit_fewest = p->fit_n <= 1; /* none or one: no fewer can */
	if (p->fit_n == UINT32_MAX || p->fit_n <= 1)
		return 0;
	struct search s = { .c = c, .device = p->device, .target = p->target, .cand = cand, .n = n,
			    .nbest = p->fit_n, .best_peak = p->peak_fit };
	/* About 2^25 positions' work in all (a few tenths of a second), and no fewer than 16 sets. */
	s.left = (32u << 20) / (c->npos + c->r->nobjects + 1);
	s.left = s.left < 16 ? 16 : s.left;
	s.off = calloc(n ? n : 1, 1);
	s.opts = malloc((n ? n : 1) * p->fit_n * sizeof(*s.opts));
	int err = s.off && s.opts ? fewer(&s, 0) : -ENOMEM;
	if (!err && s.nbest < p->fit_n) {
		memcpy(chosen, s.best, s.nbest * sizeof(*chosen));
		p->fit_n = (uint32_t)s.nbest;
		p->peak_fit = s.best_peak;
	}
	p->fit_fewest = !err && !s.ran_out;
	free(s.off);
	free(s.opts);
	return err;
}

int gmp_result__plan(const struct gmp_result *r, const uint64_t *targets, struct gmp_plan *plans,
		     uint32_t **fixes)
{
	struct plan_ctx c = { 0 }; /* released whole even where its init was not reached */
	size_t nf = r->nfindings ? r->nfindings : 1;
	int any = 0;
	for (size_t d = 0; targets && d < r->ndevices; d++)
		any |= targets[d] != 0;
	uint32_t *cand = malloc(nf * sizeof(*cand)), *all = malloc(nf * sizeof(*all));
	uint32_t *out = any ? malloc(r->ndevices * nf * sizeof(*out) + 1) : NULL;
	int err = cand && all && (out || !any) ? ctx_init(&c, r) : -ENOMEM;
	for (size_t d = 0; d < r->ndevices && !err; d++) {
		struct gmp_plan *p = &plans[d];
		uint32_t dev = r->devices[d].device;
		uint64_t target = targets ? targets[d] : 0;
		*p = (struct gmp_plan){ .device = dev, .peak = r->devices[d].peak_bytes, .target = target,
					.fit_n = UINT32_MAX, .fit_off = (uint32_t)(d * nf) };
		/* Its findings, in rank order, whose fixes can free device memory. */
		size_t n = 0;
		for (uint32_t i = 0; i < r->nfindings; i++) {
			const struct gmp_finding *f = &r->findings[i];
			if (!gmp_mem_kind__device_bytes(r->objects[f->object].kind) ||
			    det_root(r, f->object)->device != dev)
				continue;
			/*
			 * No redundant pairs: sharing a buffer fills the gap between two
			 * lives and undoes other fixes of either object, so with pairs
			 * more fixes could raise the peak.
			 */
			if (f->pattern == GMP_PAT_REDUNDANT_ALLOCATION)
				p->pairs_left_out++;
			else if (gmp_finding__frees_memory(f))
				cand[n++] = i;
		}
		p->findings = (uint32_t)n;
		if (!(err = with(&c, dev, cand, n, &p->peak_all_fixed)) && target) {
			memcpy(all, cand, n * sizeof(*cand)); /* fit() marks those it takes */
			err = fit(&c, p, cand, n, target, out + d * nf);
			if (!err)
				err = fewest(&c, p, all, n, out + d * nf);
		}
	}
	ctx_release(&c);
	free(cand);
	free(all);
	if (err) {
		free(out);
		out = NULL;
	}
	if (fixes)
		*fixes = out;
	else
		free(out);
	return err;
}
