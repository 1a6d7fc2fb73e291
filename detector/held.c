// SPDX-License-Identifier: MIT
/*
 * Memory over time, by the host's clock (the times: clock.c): how long
 * each finding's memory waited (before its first use, between uses, after
 * its last, or never used), and per device the bytes held over the run
 * (bytes x time) and the share of it that waited.
 *
 * A use ran somewhere between its issue and its completion bound, so each
 * duration is a range (struct gmp_held): from a use's done to the next
 * issue at least, from an issue to the next done at most.  Allocations and
 * frees take effect when issued, but for the stream-ordered ones
 * (cudaMallocAsync, cudaFreeAsync), which bound a finding's waiting as uses
 * do; an object's lifetime is taken from issue to issue.
 *
 * An object's waiting intervals come from its findings (as reported:
 * thresholds, --patterns and --min-size apply) and may overlap, since the
 * topological order the findings follow is not the order the host issued
 * calls in, and a range's ends are not one moment: each moment of an
 * object's life counts once in its waiting, and once in each kind of
 * waiting it falls in.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "util.h"

/* When ev was issued; 0 when unknown (also for GMP_NO_EVENT). */
static uint64_t issued(const struct gmp_clock *c, uint32_t ev)
{
	return ev < c->r->trace->nev ? c->r->trace->ev[ev].host_ns : 0;
}

/*
 * When a finding's bound ev was issued (0: unknown) and by when it is known
 * to have finished (at least its issue).
 */
static uint64_t bound(const struct gmp_clock *c, uint32_t ev, uint64_t *done)
{
	size_t k = det_clock_slot(c, ev);
	uint64_t t = k == SIZE_MAX ? issued(c, ev) : c->at[k].issue;
	*done = k == SIZE_MAX || !t || c->at[k].done < t ? t : c->at[k].done;
	return t;
}

/* b - a, or 0 when b came first (calls of other threads issued out of the order). */
static uint64_t span(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

/* Where waiting ends when nothing ends it: the object's free, or the run's end. */
static uint64_t end_of(const struct gmp_clock *c, const struct gmp_object *o)
{
	return o->free_ev == GMP_NO_EVENT ? c->end : issued(c, o->free_ev);
}

/* One waiting interval: at least [lo_a, lo_b), at most [hi_a, hi_b). */
struct interval {
	uint64_t lo_a, lo_b, hi_a, hi_b;
	uint32_t kind;           /* enum gmp_waiting */
};

/*
 * The waiting between a use (or an allocation: it takes effect when
 * issued) a and a use (or a free, or the run's end) b.  0, or -ENOENT when
 * a bound's time is unknown.
 */
static int between(const struct gmp_clock *c, uint32_t a, int a_is_use, uint32_t b, int b_is_use,
		   struct interval *iv)
{
	uint64_t da, db = c->end, ia = bound(c, a, &da), ib = b == GMP_NO_EVENT ? c->end : bound(c, b, &db);
	if (!ia || !ib)
		return -ENOENT;
	iv->lo_a = a_is_use ? da : ia;
	iv->hi_a = ia;
	iv->lo_b = ib;
	iv->hi_b = b_is_use ? db : ib;
	return 0;
}

/*
 * f's waiting intervals into iv (room for 1, or range_n for idleness):
 * their number, 0 for patterns without one, -ENOENT when a time is unknown.
 */
static int finding_intervals(const struct gmp_clock *c, const struct gmp_finding *f, struct interval *iv)
{
	const struct gmp_result *r = c->r;
	const struct gmp_object *o = &r->objects[f->object];
	/* Stream-ordered (cudaMallocAsync, cudaFreeAsync): its allocation and free run on the GPU, as uses do. */
	int so = o->kind == GMP_MEM_ASYNC;
	int err;
	switch (f->pattern) {
	case GMP_PAT_EARLY_ALLOCATION:
		iv->kind = GMP_WAIT_BEFORE_FIRST_USE;
		err = between(c, f->ev_a, so, f->ev_b, 1, iv);
		break;
	case GMP_PAT_LATE_DEALLOCATION:
		iv->kind = GMP_WAIT_AFTER_LAST_USE;
		err = between(c, f->ev_a, 1, f->ev_b, so, iv);
		break;
	case GMP_PAT_MEMORY_LEAK:
		/* From its last use (its allocation: never used); unknown (ev_a none) when the kernels'
		   accesses were not recorded. */
		iv->kind = f->ev_a == o->alloc_ev ? GMP_WAIT_NEVER_USED : GMP_WAIT_AFTER_LAST_USE;
		err = f->ev_a == GMP_NO_EVENT ? -ENOENT
					      : between(c, f->ev_a, so || f->ev_a != o->alloc_ev, GMP_NO_EVENT, 0, iv);
		break;
	case GMP_PAT_UNUSED_ALLOCATION:
		iv->kind = GMP_WAIT_NEVER_USED;
		err = between(c, o->alloc_ev, so, o->free_ev, so, iv);
		break;
	case GMP_PAT_TEMPORARY_IDLENESS:
		for (uint32_t s = 0; s < f->range_n; s++) {
			const struct gmp_span *sp = &r->spans[f->range_off + s];
			iv[s].kind = GMP_WAIT_BETWEEN_USES;
			if ((err = between(c, sp->ev_a, 1, sp->ev_b, 1, &iv[s])))
				return err;
		}
		return (int)f->range_n;
	default:
		return 0;
	}
	return err ? err : 1;
}

/* The waiting of intervals iv[0..n): their sums and the longest. */
static void held_of(const struct interval *iv, size_t n, struct gmp_held *h)
{
	memset(h, 0, sizeof(*h));
	for (size_t i = 0; i < n; i++) {
		uint64_t lo = span(iv[i].lo_a, iv[i].lo_b), hi = span(iv[i].hi_a, iv[i].hi_b);
		/* Saturating: ranges of calls stamped out of order may overlap, and sum past 2^64. */
		h->lo_ns = lo > UINT64_MAX - h->lo_ns ? UINT64_MAX : h->lo_ns + lo;
		h->hi_ns = hi > UINT64_MAX - h->hi_ns ? UINT64_MAX : h->hi_ns + hi;
		h->longest_lo_ns = lo > h->longest_lo_ns ? lo : h->longest_lo_ns;
		h->longest_hi_ns = hi > h->longest_hi_ns ? hi : h->longest_hi_ns;
	}
}

int gmp_clock__held(const struct gmp_clock *c, const struct gmp_finding *f, struct gmp_held *h)
{
	memset(h, 0, sizeof(*h));
	if (f->pattern == GMP_PAT_TEMPORARY_IDLENESS) {
		/* Summed when the clock was made: an object's idle ranges are walked once. */
		if (!c->idle_known[f->object])
			return -ENOENT;
		*h = c->idle[f->object];
		return 0;
	}
	struct interval iv;
	int k = finding_intervals(c, f, &iv);
	if (k <= 0)
		return -ENOENT;
	held_of(&iv, 1, h);
	return 0;
}

static int cmp_lo(const void *x, const void *y)
{
	const struct interval *p = x, *q = y;
	return (p->lo_a > q->lo_a) - (p->lo_a < q->lo_a);
}

static int cmp_hi(const void *x, const void *y)
{
	const struct interval *p = x, *q = y;
	return (p->hi_a > q->hi_a) - (p->hi_a < q->hi_a);
}

/* The findings by object: those of object o are by[off[o] .. off[o + 1]) (a counting sort). */
static int by_object(const struct gmp_result *r, uint32_t **by, uint32_t **off)
{
	*by = malloc((r->nfindings ? r->nfindings : 1) * sizeof(**by));
	*off = calloc(r->nobjects + 2, sizeof(**off));
	if (!*by || !*off)
		return -ENOMEM;
	for (size_t i = 0; i < r->nfindings; i++)
		(*off)[r->findings[i].object + 2]++;
	for (size_t o = 2; o < r->nobjects + 2; o++)
		(*off)[o] += (*off)[o - 1];
	for (size_t i = 0; i < r->nfindings; i++)
		(*by)[(*off)[r->findings[i].object + 1]++] = (uint32_t)i;
	return 0;
}

/*
 * The time in [lo, hi) that an object's intervals v[0..n) (sorted by their
 * start) cover, each moment once (a sweep with the end covered so far):
 * those of one kind of waiting, or all (kind GMP_WAIT_COUNT).
 */
static uint64_t sweep(const struct interval *v, size_t n, int upper, int kind, uint64_t lo, uint64_t hi)
{
	uint64_t covered = lo, t = 0;
	for (size_t i = 0; i < n; i++) {
		if (kind != GMP_WAIT_COUNT && (int)v[i].kind != kind)
			continue;
		uint64_t a = upper ? v[i].hi_a : v[i].lo_a, b = upper ? v[i].hi_b : v[i].lo_b;
		a = a > covered ? a : covered;
		b = b < hi ? b : hi;
		if (b <= a)
			continue;
		t += b - a;
		covered = b;
	}
	return t;
}

/* Object obj's numbers, from its findings' intervals v[0..n), added to its device's. */
static void add_object(const struct gmp_clock *c, uint32_t obj, struct interval *v, size_t n, int untimed,
		       struct gmp_memtime *m)
{
	const struct gmp_object *o = &c->r->objects[obj];
	uint64_t lo = issued(c, o->alloc_ev), hi = end_of(c, o);
	if (!lo || !hi) {
		m->untimed_objects++;
		return;
	}
	hi = hi > lo ? hi : lo;
	double size = (double)o->size;
	m->held += size * (double)(hi - lo);
	m->unknown_waiting_objects += untimed != 0;
	for (int upper = 0; upper < 2; upper++) {
		/* An idle finding's ranges come in the topological order: mostly sorted already. */
		size_t i = 1;
		while (i < n && (upper ? cmp_hi : cmp_lo)(&v[i - 1], &v[i]) <= 0)
			i++;
		if (i < n)
			qsort(v, n, sizeof(*v), upper ? cmp_hi : cmp_lo);
		for (int kind = 0; kind <= GMP_WAIT_COUNT; kind++) {
			double w = size * (double)sweep(v, n, upper, kind, lo, hi);
			if (kind == GMP_WAIT_COUNT)
				*(upper ? &m->hi_all : &m->lo_all) += w;
			else
				(upper ? m->hi : m->lo)[kind] += w;
		}
	}
}

/*
 * Each device's numbers (c->mt) and each idleness finding's waiting
 * (c->idle), once the times are known: an object at a time, its findings' intervals in one buffer as
 * large as the most one object has.  0 or -ENOMEM.
 */
int det_clock_summarize(struct gmp_clock *c)
{
	const struct gmp_result *r = c->r;
	c->mt = calloc(r->ndevices ? r->ndevices : 1, sizeof(*c->mt));
	c->idle = malloc((r->nobjects ? r->nobjects : 1) * sizeof(*c->idle));
	c->idle_known = calloc(r->nobjects ? r->nobjects : 1, 1);
	uint32_t *by = NULL, *off = NULL;
	struct interval *v = NULL;
	size_t cap = 0;
	int err = !c->mt || !c->idle || !c->idle_known ? -ENOMEM : by_object(r, &by, &off);
	for (size_t d = 0; d < r->ndevices && !err; d++)
		c->mt[d].device = r->devices[d].device;
	for (uint32_t obj = 0; obj < r->nobjects && !err; obj++) {
		size_t need = 0, k = 0;
		for (uint32_t i = off[obj]; i < off[obj + 1]; i++)
			need += r->findings[by[i]].pattern == GMP_PAT_TEMPORARY_IDLENESS ? r->findings[by[i]].range_n : 1;
		if (need > cap && GMP_GROW(v, cap, need)) {
			err = -ENOMEM;
			break;
		}
		int untimed = 0;
		for (uint32_t i = off[obj]; i < off[obj + 1]; i++) {
			const struct gmp_finding *f = &r->findings[by[i]];
			int got = finding_intervals(c, f, &v[k]);
			untimed |= got < 0;
			if (got > 0 && f->pattern == GMP_PAT_TEMPORARY_IDLENESS) {
				held_of(&v[k], (size_t)got, &c->idle[obj]);
				c->idle_known[obj] = 1;
			}
			k += got > 0 ? (size_t)got : 0;
		}
		const struct gmp_object *o = &r->objects[obj];
		size_t d = gmp_result__device_index(r, o->device);
		if (gmp_mem_kind__device_bytes(o->kind) && d != SIZE_MAX)
			add_object(c, obj, v, k, untimed, &c->mt[d]);
	}
	free(v);
	free(by);
	free(off);
	return err;
}

const struct gmp_memtime *gmp_clock__memtime(const struct gmp_clock *c, size_t *n)
{
	*n = c->r->ndevices;
	return c->mt;
}
