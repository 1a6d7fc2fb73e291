// SPDX-License-Identifier: MIT
/*
 * The clock of memory over time (gmp_clock__new): when each event that
 * bounds a finding was issued, and by when it is known to have finished.
 *
 * Times are the events' host_ns, when the host issued each call.  A use
 * issued asynchronously ran on the GPU at some moment between its issue
 * and the return of a call known to wait for it (its completion bound,
 * "done"): a sync of its device, of its stream, or of an event recorded
 * after it on its stream; a synchronous copy between host and device
 * memory after it on its stream (which waits for the stream's earlier work
 * and, from the device to the host, for itself); and, through events, a
 * call that waits for a stream that waited for an event recorded after it;
 * and, through the legacy default stream's implicit synchronization
 * (legacy.h), a wait for stream 0 that followed it on a blocking stream,
 * or a wait for a blocking stream that followed it on stream 0.
 * The collector stamps a call, and the syncs a blocking call makes, as
 * they begin, so a blocking call's return is bounded by its thread's next
 * call that is not a sync, or by the return the collector stamped at the
 * call's end (a RETURNED record, trace->rets), whichever comes first; a
 * use nothing is known to wait for, by the run's last call or return.
 * One pass over the events and returns, in issue order, keeping per
 * stream the bounds not yet known to have finished.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "legacy.h"
#include "u64map.h"
#include "util.h"

#define NONE UINT32_MAX

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
		uint32_t at;     /* the event_wait (or the op that waits: pre) */
		uint32_t on;     /* the recording stream (its index in pass.st) */
		uint32_t upto;   /* the event_record (or the waiting op: on's events before it) */
		uint32_t pre;    /* the legacy stream's wait, before the op at `at` starts */
	} *w;
	size_t whead, wn, wcap;
	struct det_lstream lg;   /* its part in the legacy stream's order (legacy.h) */
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
	struct det_legacy legacy;
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
		p->st[p->nst++] = (struct pending){ .device = device, .lg = DET_LSTREAM_INIT };
		p->st[p->nst - 1].lg.blocking = det_legacy_blocking(&p->legacy, s);
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
	while (q->whead < q->wn && (q->w[q->whead].at < before || (q->w[q->whead].pre && q->w[q->whead].at == before))) {
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

/* The call that made event r->ev returned by r->host_ns: so had its thread's blocking calls up to it. */
static int apply_return(struct pass *p, const struct gmp_return *r)
{
	uint32_t *th = gmp_u64map__get(&p->threads, p->c->r->trace->ev[r->ev].thread);
	if (!th)
		return 0;
	struct blocked *t = &p->th[*th];
	size_t kept = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (t->b[i].ev > r->ev)
			t->b[kept++] = t->b[i];
		else {
			int err = returned(p, &t->b[i], r->host_ns);
			if (err)
				return err;
		}
	}
	t->n = kept;
	return 0;
}

static int add_wait(struct pass *p, size_t qi, struct wait w)
{
	struct pending *q = &p->st[qi];
	if (GMP_GROW(q->w, q->wcap, q->wn + 1))
		return -ENOMEM;
	q->w[q->wn++] = w;
	return 0;
}

static struct det_lstream *lstate(void *ctx, size_t i)
{
	return &((struct pass *)ctx)->st[i].lg;
}

/*
 * Op v waits, before it starts (pre), for the work of stream index i issued
 * before it (stream 0's: i SIZE_MAX): once v's stream is known past the
 * wait, so is that work.
 */
static int lwait(void *ctx, uint32_t v, size_t i, uint32_t u)
{
	struct pass *p = ctx;
	const struct gmp_event *e = &p->c->r->trace->ev[v];
	size_t on = i == SIZE_MAX ? stream(p, e->device, 0) : i, qi = stream(p, e->device, e->stream);
	(void)u;
	if (on == SIZE_MAX || qi == SIZE_MAX)
		return -ENOMEM;
	return add_wait(p, qi, (struct wait){ v, (uint32_t)on, v, 1 });
}

/* The legacy default stream's synchronization (legacy.h) as waits. */
static int legacy_waits(struct pass *p, uint32_t v, const struct gmp_event *e)
{
	int kind = det_legacy_kind(&p->legacy, e, v);
	if (!kind)
		return 0;
	size_t qi = stream(p, e->device, e->stream);
	if (qi == SIZE_MAX)
		return -ENOMEM;
	const struct det_lpass pass = { lstate, lwait, p };
	return det_legacy_step(&p->legacy, &pass, qi, v, e, kind);
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
		if ((err = add_wait(p, qi, (struct wait){ v, (uint32_t)on, *waited, 0 })))
			return err;
	}
	if (det_legacy_on(&p->legacy) && (err = legacy_waits(p, v, e)))
		return err;
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

size_t det_clock_slot(const struct gmp_clock *c, uint32_t ev)
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
	det_legacy_release(&p->legacy);
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
	for (size_t i = 0; i < t->nrets && end; i++) /* a return after the last call: the run lasted until it */
		end = t->rets[i].host_ns > end ? t->rets[i].host_ns : end;
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
	if (!err)
		err = det_legacy_setup(&p.legacy, r);
	size_t ri = 0; /* the next return, in the order they were recorded */
	for (uint32_t v = 0; v <= t->nev && !err; v++) {
		for (; ri < t->nrets && t->rets[ri].before <= v && !err; ri++)
			err = apply_return(&p, &t->rets[ri]);
		size_t k = v < t->nev ? det_clock_slot(c, v) : SIZE_MAX;
		if (k != SIZE_MAX)
			c->at[k].issue = t->ev[v].host_ns;
		if (!err && v < t->nev)
			err = step(&p, v, k == SIZE_MAX ? 0 : k + 1);
	}
	pass_release(&p);
	if (!err)
		err = det_clock_summarize(c);
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
