// SPDX-License-Identifier: MIT
/*
 * Memory over time, by the host's clock: how long each finding's memory
 * waited (before its first use, between uses, after its last, or never
 * used), and per device the bytes held over the run (bytes x time) and the
 * share of it that waited.
 *
 * Times are the events' host_ns, when the host issued each call.  A use
 * issued asynchronously ran on the GPU at some moment between its issue
 * and the return of a call known to wait for it (its completion bound,
 * "done"): a sync of its device, of its stream, or of an event recorded
 * after it on its stream, or a synchronous copy between host and device
 * memory after it on its stream (which waits for the stream's earlier work
 * and, from the device to the host, for itself).  The collector stamps a
 * call when it is issued, so a blocking call's return is bounded by its
 * thread's next call; a use nothing is known to wait for is bounded by the
 * run's last call.  Each duration is then a range (struct gmp_held): from
 * a use's done to the next issue at least, from an issue to the next done
 * at most.  Allocations and frees take effect when issued, but for the
 * stream-ordered ones (cudaMallocAsync, cudaFreeAsync), which bound a
 * finding's waiting as uses do; an object's lifetime is taken from issue
 * to issue.
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

#include "gmprof/detect.h"
#include "u64map.h"
#include "util.h"

#define NONE UINT32_MAX

struct gmp_clock {
	const struct gmp_result *r;
	uint64_t start, end;     /* the first and last host times */
	uint32_t *need;          /* the events findings are bounded by, sorted */
	uint64_t *done;          /* per need[]: its completion bound */
	size_t nneed;
};

/* A stream's needed events not yet known to have finished, in issue order. */
struct pending {
	uint32_t device;
	uint32_t *ev, *slot;     /* event, and its place in need[] */
	size_t head, n, cap;
};

struct pass {
	struct gmp_clock *c;
	struct gmp_u64map streams, threads, records;
	struct pending *st;
	size_t nst, st_cap;
	/* per thread (threads map): the blocking calls it issued since its last call that is no sync */
	struct blocked {
		struct blocking { uint32_t ev, rec; } *b;
		size_t n, cap;
	} *th;
	size_t nth, th_cap;
};

static struct pending *stream(struct pass *p, uint32_t device, uint32_t s)
{
	int is_new;
	uint32_t *idx = gmp_u64map__slot(&p->streams, (uint64_t)device << 32 | s, (uint32_t)p->nst, &is_new);
	if (!idx)
		return NULL;
	if (is_new) {
		if (GMP_GROW(p->st, p->st_cap, p->nst + 1))
			return NULL;
		p->st[p->nst++] = (struct pending){ .device = device };
	}
	return &p->st[*idx];
}

/* Its events issued before `before` (or at it, with through) finished by t. */
static void finish(struct pass *p, struct pending *q, uint32_t before, int through, uint64_t t)
{
	while (q->head < q->n && (q->ev[q->head] < before || (through && q->ev[q->head] == before)))
		p->c->done[q->slot[q->head++]] = t;
	if (q->head == q->n)
		q->head = q->n = 0;
}

static int is_blocking(const struct gmp_event *e)
{
	if (e->op == GMP_OP_SYNC)
		return 1;
	/* A synchronous copy with host memory on one side (device to device ones do not wait). */
	return e->op == GMP_OP_MEMCPY && !(e->flags & GMP_EF_ASYNC) &&
	       (e->flags & (GMP_EF_HAS_DST | GMP_EF_HAS_SRC)) != (GMP_EF_HAS_DST | GMP_EF_HAS_SRC);
}

/* Blocking call b of a thread returned by t (its thread's next call): what it waited for finished. */
static int returned(struct pass *p, const struct blocking *b, uint64_t t)
{
	const struct gmp_event *e = &p->c->r->trace->ev[b->ev];
	if (e->op == GMP_OP_SYNC && !(e->flags & (GMP_EF_SYNC_STREAM | GMP_EF_SYNC_EVENT))) {
		for (size_t i = 0; i < p->nst; i++)
			if (p->st[i].device == e->device)
				finish(p, &p->st[i], b->ev, 0, t);
		return 0;
	}
	uint32_t upto = b->ev;
	const struct gmp_event *on = e;
	if (e->op == GMP_OP_SYNC && (e->flags & GMP_EF_SYNC_EVENT)) {
		if (b->rec == NONE)
			return 0; /* an event never recorded: nothing to wait for */
		upto = b->rec;
		on = &p->c->r->trace->ev[b->rec];
	}
	struct pending *q = stream(p, on->device, on->stream);
	if (!q)
		return -ENOMEM;
	/* A copy from the device to the host returns once it is done itself. */
	finish(p, q, upto, e->op == GMP_OP_MEMCPY && !(e->flags & GMP_EF_HAS_DST), t);
	return 0;
}

static int step(struct pass *p, uint32_t v, size_t needed)
{
	const struct gmp_event *e = &p->c->r->trace->ev[v];
	int is_new, err;
	uint32_t *th = gmp_u64map__slot(&p->threads, e->thread, (uint32_t)p->nth, &is_new);
	if (!th || (is_new && GMP_GROW(p->th, p->th_cap, p->nth + 1)))
		return -ENOMEM;
	if (is_new)
		p->th[p->nth++] = (struct blocked){ 0 };
	struct blocked *t = &p->th[*th];
	/*
	 * The collector stamps a blocking call, and the syncs it makes (a copy's
	 * stream sync), as they begin: only the thread's next call that is not a
	 * sync is known to come after they returned.
	 */
	if (e->op != GMP_OP_SYNC && e->host_ns) {
		for (size_t i = 0; i < t->n; i++)
			if ((err = returned(p, &t->b[i], e->host_ns)))
				return err;
		t->n = 0;
	}
	int in_kernel = gmp_event__in_kernel(e);
	if (e->op == GMP_OP_EVENT_RECORD) {
		uint32_t *slot = gmp_u64map__slot(&p->records, e->value, v, NULL);
		if (!slot)
			return -ENOMEM;
		*slot = v;
	}
	if (needed && !in_kernel && e->op != GMP_OP_SYNC) {
		struct pending *q = stream(p, e->device, e->stream);
		if (!q)
			return -ENOMEM;
		if (q->n == q->cap) {
			if (GMP_GROW(q->ev, q->cap, q->n + 1))
				return -ENOMEM;
			uint32_t *slot = realloc(q->slot, q->cap * sizeof(*slot));
			if (!slot)
				return -ENOMEM;
			q->slot = slot;
		}
		q->ev[q->n] = v;
		q->slot[q->n++] = (uint32_t)(needed - 1);
	}
	if (is_blocking(e)) {
		uint32_t *rec = e->flags & GMP_EF_SYNC_EVENT ? gmp_u64map__get(&p->records, e->value) : NULL;
		if (GMP_GROW(t->b, t->cap, t->n + 1))
			return -ENOMEM;
		t->b[t->n++] = (struct blocking){ v, rec ? *rec : NONE };
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* The events the findings are bounded by, sorted, without repeats. */
static int needed_events(struct gmp_clock *c)
{
	const struct gmp_result *r = c->r;
	size_t cap = 0;
	for (size_t i = 0; i < r->nfindings; i++)
		cap += 2 + (r->findings[i].pattern == GMP_PAT_TEMPORARY_IDLENESS ? 2 * (size_t)r->findings[i].range_n : 0);
	if (!(c->need = malloc((cap ? cap : 1) * sizeof(*c->need))))
		return -ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < r->nfindings; i++) {
		const struct gmp_finding *f = &r->findings[i];
		if (f->pattern == GMP_PAT_TEMPORARY_IDLENESS)
			for (uint32_t s = 0; s < f->range_n; s++) {
				c->need[n++] = r->spans[f->range_off + s].ev_a;
				c->need[n++] = r->spans[f->range_off + s].ev_b;
			}
		if (f->ev_a != GMP_NO_EVENT)
			c->need[n++] = f->ev_a;
		if (f->ev_b != GMP_NO_EVENT)
			c->need[n++] = f->ev_b;
	}
	qsort(c->need, n, sizeof(*c->need), cmp_u32);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || c->need[k - 1] != c->need[i])
			c->need[k++] = c->need[i];
	c->nneed = k;
	if (!(c->done = malloc((k ? k : 1) * sizeof(*c->done))))
		return -ENOMEM;
	for (size_t i = 0; i < k; i++)
		c->done[i] = c->end; /* what nothing is known to wait for */
	return 0;
}

static void pass_release(struct pass *p)
{
	for (size_t i = 0; i < p->nst; i++) {
		free(p->st[i].ev);
		free(p->st[i].slot);
	}
	free(p->st);
	for (size_t i = 0; i < p->nth; i++)
		free(p->th[i].b);
	free(p->th);
	gmp_u64map__release(&p->streams);
	gmp_u64map__release(&p->threads);
	gmp_u64map__release(&p->records);
}

int gmp_clock__new(const struct gmp_result *r, struct gmp_clock **out)
{
	const struct gmp_trace *t = r->trace;
	*out = NULL;
	uint64_t start = UINT64_MAX, end = 0;
	for (size_t i = 0; i < t->nev; i++) {
		uint64_t h = t->ev[i].host_ns;
		if (h) {
			start = h < start ? h : start;
			end = h > end ? h : end;
		}
	}
	if (!end)
		return 0;
	struct gmp_clock *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	*c = (struct gmp_clock){ .r = r, .start = start, .end = end };
	struct pass p = { .c = c };
	gmp_u64map__init(&p.streams);
	gmp_u64map__init(&p.threads);
	gmp_u64map__init(&p.records);
	int err = needed_events(c);
	size_t k = 0;
	for (uint32_t v = 0; v < t->nev && !err; v++) {
		while (k < c->nneed && c->need[k] < v)
			k++;
		err = step(&p, v, k < c->nneed && c->need[k] == v ? k + 1 : 0);
	}
	pass_release(&p);
	if (err) {
		gmp_clock__free(c);
		return err;
	}
	*out = c;
	return 0;
}

void gmp_clock__free(struct gmp_clock *c)
{
	if (!c)
		return;
	free(c->need);
	free(c->done);
	free(c);
}

uint64_t gmp_clock__run_ns(const struct gmp_clock *c)
{
	return c->end - c->start;
}

/* When ev was issued; 0 when unknown (also for GMP_NO_EVENT). */
static uint64_t issued(const struct gmp_clock *c, uint32_t ev)
{
	return ev < c->r->trace->nev ? c->r->trace->ev[ev].host_ns : 0;
}

/* By when ev is known to have finished: at least its issue; 0 when unknown. */
static uint64_t done(const struct gmp_clock *c, uint32_t ev)
{
	uint64_t t = issued(c, ev);
	size_t lo = 0, hi = c->nneed;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->need[mid] < ev)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!t || lo == c->nneed || c->need[lo] != ev)
		return t;
	return c->done[lo] > t ? c->done[lo] : t;
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
	uint32_t obj;
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
	uint64_t ia = issued(c, a), ib = b == GMP_NO_EVENT ? c->end : issued(c, b);
	if (!ia || !ib)
		return -ENOENT;
	iv->lo_a = a_is_use ? done(c, a) : ia;
	iv->hi_a = ia;
	iv->lo_b = ib;
	iv->hi_b = b_is_use && b != GMP_NO_EVENT ? done(c, b) : ib;
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

int gmp_clock__held(const struct gmp_clock *c, const struct gmp_finding *f, struct gmp_held *h)
{
	memset(h, 0, sizeof(*h));
	uint32_t n = f->pattern == GMP_PAT_TEMPORARY_IDLENESS ? f->range_n : 1;
	struct interval one, *iv = n > 1 ? malloc(n * sizeof(*iv)) : &one;
	if (!iv)
		return -ENOMEM;
	int k = finding_intervals(c, f, iv);
	for (int i = 0; i < k; i++) {
		uint64_t lo = span(iv[i].lo_a, iv[i].lo_b), hi = span(iv[i].hi_a, iv[i].hi_b);
		h->lo_ns += lo;
		h->hi_ns += hi;
		h->longest_lo_ns = lo > h->longest_lo_ns ? lo : h->longest_lo_ns;
		h->longest_hi_ns = hi > h->longest_hi_ns ? hi : h->longest_hi_ns;
	}
	if (iv != &one)
		free(iv);
	return k > 0 ? 0 : k == -ENOMEM ? k : -ENOENT;
}

static int cmp_lo(const void *x, const void *y)
{
	const struct interval *p = x, *q = y;
	if (p->obj != q->obj)
		return p->obj < q->obj ? -1 : 1;
	return (p->lo_a > q->lo_a) - (p->lo_a < q->lo_a);
}

static int cmp_hi(const void *x, const void *y)
{
	const struct interval *p = x, *q = y;
	if (p->obj != q->obj)
		return p->obj < q->obj ? -1 : 1;
	return (p->hi_a > q->hi_a) - (p->hi_a < q->hi_a);
}

/* Every finding's intervals; untimed[o] set where one of o's is not known. */
static int all_intervals(const struct gmp_clock *c, uint8_t *untimed, struct interval **out, size_t *n)
{
	const struct gmp_result *r = c->r;
	size_t cap = 0, k = 0;
	for (size_t i = 0; i < r->nfindings; i++)
		cap += r->findings[i].pattern == GMP_PAT_TEMPORARY_IDLENESS ? r->findings[i].range_n : 1;
	struct interval *v = malloc((cap ? cap : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < r->nfindings; i++) {
		int got = finding_intervals(c, &r->findings[i], &v[k]);
		if (got < 0)
			untimed[r->findings[i].object] = 1;
		for (int j = 0; j < got; j++)
			v[k++].obj = r->findings[i].object;
	}
	*out = v;
	*n = k;
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

int gmp_clock__memtime(const struct gmp_clock *c, struct gmp_memtime **out, size_t *n)
{
	const struct gmp_result *r = c->r;
	*out = NULL;
	*n = 0;
	struct gmp_memtime *m = calloc(r->ndevices ? r->ndevices : 1, sizeof(*m));
	uint8_t *untimed = calloc(r->nobjects ? r->nobjects : 1, 1);
	struct interval *v = NULL;
	size_t nv = 0;
	int err = !m || !untimed ? -ENOMEM : all_intervals(c, untimed, &v, &nv);
	if (err) {
		free(m);
		free(untimed);
		return err;
	}
	for (size_t d = 0; d < r->ndevices; d++)
		m[d].device = r->devices[d].device;
	for (int upper = 0; upper < 2; upper++) {
		qsort(v, nv, sizeof(*v), upper ? cmp_hi : cmp_lo);
		size_t k = 0;
		for (uint32_t obj = 0; obj < r->nobjects; obj++) {
			const struct gmp_object *o = &r->objects[obj];
			size_t first = k;
			while (k < nv && v[k].obj == obj)
				k++;
			size_t d = gmp_result__device_index(r, o->device);
			if (o->kind == GMP_MEM_POOL_REGION || d == SIZE_MAX)
				continue;
			uint64_t lo = issued(c, o->alloc_ev), hi = end_of(c, o);
			if (!lo || !hi) {
				m[d].untimed_objects += !upper;
				continue;
			}
			hi = hi > lo ? hi : lo;
			if (!upper) {
				m[d].held += (double)o->size * (double)(hi - lo);
				m[d].unknown_waiting_objects += untimed[obj];
			}
			double size = (double)o->size;
			for (int kind = 0; kind <= GMP_WAIT_COUNT; kind++) {
				double w = size * (double)sweep(&v[first], k - first, upper, kind, lo, hi);
				if (kind == GMP_WAIT_COUNT)
					*(upper ? &m[d].hi_all : &m[d].lo_all) += w;
				else
					(upper ? m[d].hi : m[d].lo)[kind] += w;
			}
		}
	}
	free(v);
	free(untimed);
	*out = m;
	*n = r->ndevices;
	return 0;
}
