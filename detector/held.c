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
 * and, from the device to the host, for itself); and, through events, a
 * call that waits for a stream that waited for an event recorded after it.  The collector stamps a
 * call, and the syncs a blocking call makes, as they begin, so a blocking
 * call's return is bounded by its thread's next call that is not a sync; a
 * use nothing is known to wait for is bounded by the run's last call.  Each duration is then a range (struct gmp_held): from
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
	uint64_t *need;          /* a bit per event: a finding is bounded by it */
	uint32_t *rank;          /* per word of need: the bits set in the words before it */
	struct when {            /* per event bounding a finding, in event order (compact: the */
		uint64_t issue;  /* findings' walks read these, not the 64-byte events) */
		uint64_t done;   /* its completion bound */
	} *at;
	size_t nneed;
	struct gmp_memtime *mt;  /* per device in r->devices' order */
	struct gmp_held *idle;   /* per object: its idleness finding's waiting (an object has one at most) */
	uint8_t *idle_known;     /* per object: idle[] holds it */
};

static int summarize(struct gmp_clock *c);

/*
 * A stream's needed events not yet known to have finished, in issue order,
 * and its waits for events recorded on other streams: once the stream is
 * known to have passed a wait, the work before that record is finished too.
 */
struct pending {
	uint32_t device;
	uint32_t *ev, *slot;     /* event, and its place in at[] */
	size_t head, n, cap;
	struct wait {
		uint32_t at;     /* the event_wait */
		uint32_t on;     /* the recording stream (its index in pass.st) */
		uint32_t upto;   /* the event_record */
	} *w;
	size_t whead, wn, wcap;
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
	uint32_t last_thread, last_th; /* the last call's thread, and its place in th[] */
};

/* The stream's index in p->st (made on first use), or SIZE_MAX for -ENOMEM. */
static size_t stream(struct pass *p, uint32_t device, uint32_t s)
{
	int is_new;
	uint32_t *idx = gmp_u64map__slot(&p->streams, (uint64_t)device << 32 | s, (uint32_t)p->nst, &is_new);
	if (!idx)
		return SIZE_MAX;
	if (is_new) {
		if (GMP_GROW(p->st, p->st_cap, p->nst + 1))
			return SIZE_MAX;
		p->st[p->nst++] = (struct pending){ .device = device };
	}
	return *idx;
}

/*
 * Stream qi's events issued before `before` (or at it, with through)
 * finished by t, and with them the work its waits before that point waited
 * for, on the streams that recorded the events (and theirs in turn).
 */
static void finish(struct pass *p, size_t qi, uint32_t before, int through, uint64_t t)
{
	struct pending *q = &p->st[qi];
	while (q->head < q->n && (q->ev[q->head] < before || (through && q->ev[q->head] == before)))
		p->c->at[q->slot[q->head++]].done = t;
	if (q->head == q->n)
		q->head = q->n = 0;
	while (q->whead < q->wn && q->w[q->whead].at < before) {
		struct wait w = q->w[q->whead++];
		finish(p, w.on, w.upto, 0, t);
	}
	if (q->whead == q->wn)
		q->whead = q->wn = 0;
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
				finish(p, i, b->ev, 0, t);
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
	size_t q = stream(p, on->device, on->stream);
	if (q == SIZE_MAX)
		return -ENOMEM;
	/* A copy from the device to the host returns once it is done itself. */
	finish(p, q, upto, e->op == GMP_OP_MEMCPY && !(e->flags & GMP_EF_HAS_DST), t);
	return 0;
}

static int step(struct pass *p, uint32_t v, size_t needed)
{
	const struct gmp_event *e = &p->c->r->trace->ev[v];
	int is_new, err;
	if (!p->nth || e->thread != p->last_thread) { /* runs of one thread's calls are common */
		uint32_t *th = gmp_u64map__slot(&p->threads, e->thread, (uint32_t)p->nth, &is_new);
		if (!th || (is_new && GMP_GROW(p->th, p->th_cap, p->nth + 1)))
			return -ENOMEM;
		if (is_new)
			p->th[p->nth++] = (struct blocked){ 0 };
		p->last_thread = e->thread;
		p->last_th = *th;
	}
	struct blocked *t = &p->th[p->last_th];
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
	uint32_t *waited = e->op == GMP_OP_EVENT_WAIT ? gmp_u64map__get(&p->records, e->value) : NULL;
	if (waited) {
		const struct gmp_event *re = &p->c->r->trace->ev[*waited];
		size_t on = stream(p, re->device, re->stream), qi = stream(p, e->device, e->stream);
		if (on == SIZE_MAX || qi == SIZE_MAX)
			return -ENOMEM;
		struct pending *q = &p->st[qi];
		if (GMP_GROW(q->w, q->wcap, q->wn + 1))
			return -ENOMEM;
		q->w[q->wn++] = (struct wait){ v, (uint32_t)on, *waited };
	}
	if (needed && !in_kernel && e->op != GMP_OP_SYNC) {
		size_t qi = stream(p, e->device, e->stream);
		if (qi == SIZE_MAX)
			return -ENOMEM;
		struct pending *q = &p->st[qi];
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

static void mark(struct gmp_clock *c, uint32_t ev)
{
	if (ev < c->r->trace->nev)
		c->need[ev >> 6] |= 1ull << (ev & 63);
}

/* Event ev's place in done[], or SIZE_MAX when no finding is bounded by it. */
static size_t slot(const struct gmp_clock *c, uint32_t ev)
{
	if (ev >= c->r->trace->nev)
		return SIZE_MAX;
	uint64_t w = c->need[ev >> 6], bit = 1ull << (ev & 63);
	return w & bit ? c->rank[ev >> 6] + (size_t)__builtin_popcountll(w & (bit - 1)) : SIZE_MAX;
}

/* The events the findings are bounded by: a bit each, ranked (O(events / 64) words, no sort). */
static int needed_events(struct gmp_clock *c)
{
	const struct gmp_result *r = c->r;
	size_t words = (r->trace->nev + 63) / 64 + 1;
	c->need = calloc(words, sizeof(*c->need));
	c->rank = malloc(words * sizeof(*c->rank));
	if (!c->need || !c->rank)
		return -ENOMEM;
	for (size_t i = 0; i < r->nfindings; i++) {
		const struct gmp_finding *f = &r->findings[i];
		if (f->pattern == GMP_PAT_TEMPORARY_IDLENESS)
			for (uint32_t s = 0; s < f->range_n; s++) {
				mark(c, r->spans[f->range_off + s].ev_a);
				mark(c, r->spans[f->range_off + s].ev_b);
			}
		mark(c, f->ev_a);
		mark(c, f->ev_b);
	}
	size_t k = 0;
	for (size_t w = 0; w < words; w++) {
		c->rank[w] = (uint32_t)k;
		k += (size_t)__builtin_popcountll(c->need[w]);
	}
	c->nneed = k;
	if (!(c->at = malloc((k ? k : 1) * sizeof(*c->at))))
		return -ENOMEM;
	for (size_t i = 0; i < k; i++)
		c->at[i].done = c->end; /* what nothing is known to wait for; issue: set by the pass */
	return 0;
}

static void pass_release(struct pass *p)
{
	for (size_t i = 0; i < p->nst; i++) {
		free(p->st[i].ev);
		free(p->st[i].slot);
		free(p->st[i].w);
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
	for (uint32_t v = 0; v < t->nev && !err; v++) {
		size_t k = slot(c, v);
		if (k != SIZE_MAX)
			c->at[k].issue = t->ev[v].host_ns;
		err = step(&p, v, k == SIZE_MAX ? 0 : k + 1);
	}
	pass_release(&p);
	if (!err)
		err = summarize(c);
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
	free(c->rank);
	free(c->at);
	free(c->mt);
	free(c->idle);
	free(c->idle_known);
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

/*
 * When a finding's bound ev was issued (0: unknown) and by when it is known
 * to have finished (at least its issue).
 */
static uint64_t bound(const struct gmp_clock *c, uint32_t ev, uint64_t *done)
{
	size_t k = slot(c, ev);
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
 * (c->idle): an object at a time, its findings' intervals in one buffer as
 * large as the most one object has.  0 or -ENOMEM.
 */
static int summarize(struct gmp_clock *c)
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
		if (o->kind != GMP_MEM_POOL_REGION && d != SIZE_MAX)
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
