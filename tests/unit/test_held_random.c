// SPDX-License-Identifier: MIT
/*
 * Memory over time by the host's clock (detector/clock.c, held.c) on
 * random multi-stream, two-thread traces, some with the returns of their
 * blocking calls, against a plain reimplementation: completion bounds by
 * searching every later call and return, waiting summed one nanosecond at
 * a time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static int is_blocking(const struct gmp_event *e)
{
	return e->op == GMP_OP_SYNC ||
	       (e->op == GMP_OP_MEMCPY && !(e->flags & GMP_EF_ASYNC) &&
		(e->flags & (GMP_EF_HAS_DST | GMP_EF_HAS_SRC)) != (GMP_EF_HAS_DST | GMP_EF_HAS_SRC));
}

/* The last record of event id before event k, or UINT32_MAX. */
static uint32_t record_before(const struct gmp_trace *t, uint64_t id, uint32_t k)
{
	while (k-- > 0)
		if (t->ev[k].op == GMP_OP_EVENT_RECORD && t->ev[k].value == id)
			return k;
	return UINT32_MAX;
}

/* A stream's work issued before upto (or at it, with through), waited for. */
struct cover {
	uint32_t device, stream, upto;
	int through;
};

static void add_cover(struct cover *cv, size_t *n, uint32_t device, uint32_t stream, uint32_t upto, int through)
{
	for (size_t i = 0; i < *n; i++)
		if (cv[i].device == device && cv[i].stream == stream && cv[i].upto >= upto && cv[i].through >= through)
			return;
	assert_true(*n < 1024);
	cv[(*n)++] = (struct cover){ device, stream, upto, through };
}

/* Whether blocking call b waits for v: directly, or through the events its streams waited for. */
static int waits_for(const struct gmp_trace *t, uint32_t b, uint32_t v)
{
	static struct cover cv[1024];
	size_t n = 0;
	const struct gmp_event *e = &t->ev[b], *x = &t->ev[v];
	if (v > b || gmp_event__in_kernel(x) || x->op == GMP_OP_SYNC)
		return 0;
	if (e->op == GMP_OP_MEMCPY) {
		add_cover(cv, &n, e->device, e->stream, b, !(e->flags & GMP_EF_HAS_DST));
	} else if (e->flags & GMP_EF_SYNC_STREAM) {
		add_cover(cv, &n, e->device, e->stream, b, 0);
	} else if (e->flags & GMP_EF_SYNC_EVENT) {
		uint32_t r = record_before(t, e->value, b);
		if (r == UINT32_MAX)
			return 0;
		add_cover(cv, &n, t->ev[r].device, t->ev[r].stream, r, 0);
	} else {
		for (uint32_t k = 0; k < b; k++) {
			const struct gmp_event *y = &t->ev[k];
			if (y->device == e->device && y->op != GMP_OP_SYNC && !gmp_event__in_kernel(y))
				add_cover(cv, &n, y->device, y->stream, b, 0);
		}
	}
	for (size_t i = 0; i < n; i++) /* the events the covered streams waited for, and theirs */
		for (uint32_t k = 0; k < cv[i].upto; k++) {
			const struct gmp_event *w = &t->ev[k];
			if (w->op != GMP_OP_EVENT_WAIT || w->device != cv[i].device || w->stream != cv[i].stream)
				continue;
			uint32_t r = record_before(t, w->value, k);
			if (r != UINT32_MAX)
				add_cover(cv, &n, t->ev[r].device, t->ev[r].stream, r, 0);
		}
	for (size_t i = 0; i < n; i++)
		if (x->device == cv[i].device && x->stream == cv[i].stream &&
		    (v < cv[i].upto || (cv[i].through && v == cv[i].upto)))
			return 1;
	return 0;
}

/* When v is known to have finished: the first return (in issue order) of a call waiting for it. */
static uint64_t plain_done(const struct gmp_trace *t, uint32_t v, uint64_t end)
{
	/*
	 * Each waiting call returns at the first moment, in the order they were
	 * recorded, that says so: its thread's next call that is no sync (at 2k + 1,
	 * k its place), or a return of it or of a later call of its thread (at
	 * 2 before: a return recorded before event k comes before it).
	 */
	uint64_t best = 0, best_at = UINT64_MAX;
	for (uint32_t b = v; b < t->nev; b++) {
		if (!is_blocking(&t->ev[b]) || !waits_for(t, b, v))
			continue;
		for (uint32_t k = b + 1; k < t->nev; k++)
			if (t->ev[k].thread == t->ev[b].thread && t->ev[k].op != GMP_OP_SYNC && t->ev[k].host_ns) {
				if (2ull * k + 1 < best_at) {
					best_at = 2ull * k + 1;
					best = t->ev[k].host_ns;
				}
				break;
			}
		for (size_t i = 0; i < t->nrets; i++) {
			const struct gmp_return *rt = &t->rets[i];
			if (rt->ev >= b && t->ev[rt->ev].thread == t->ev[b].thread) {
				if (2 * rt->before < best_at) {
					best_at = 2 * rt->before;
					best = rt->host_ns;
				}
				break;
			}
		}
	}
	uint64_t issue = t->ev[v].host_ns;
	best = best_at == UINT64_MAX ? end : best;
	return best > issue ? best : issue;
}

struct plain_iv {
	uint64_t a[2], b[2]; /* [0]: at least, [1]: at most */
	uint32_t obj, kind;
};

static int plain_between(const struct gmp_trace *t, uint64_t end, uint32_t a, int a_use, uint32_t b, int b_use,
			 struct plain_iv *iv)
{
	uint64_t ia = t->ev[a].host_ns, ib = b == GMP_NO_EVENT ? end : t->ev[b].host_ns;
	if (!ia || !ib)
		return -1;
	iv->a[0] = a_use ? plain_done(t, a, end) : ia;
	iv->a[1] = ia;
	iv->b[0] = ib;
	iv->b[1] = b_use && b != GMP_NO_EVENT ? plain_done(t, b, end) : ib;
	return 0;
}

static uint64_t sp(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

static void check_random(const struct gmp_trace *t, const struct gmp_result *r, int round)
{
	struct gmp_clock *c = ts_clock(r);
	uint64_t end = 0, start = UINT64_MAX;
	for (size_t i = 0; i < t->nev; i++)
		if (t->ev[i].host_ns) {
			end = t->ev[i].host_ns > end ? t->ev[i].host_ns : end;
			start = t->ev[i].host_ns < start ? t->ev[i].host_ns : start;
		}
	for (size_t i = 0; i < t->nrets && end; i++) /* the run lasted until its last return */
		end = t->rets[i].host_ns > end ? t->rets[i].host_ns : end;
	assert_int_equal(gmp_clock__run_ns(c), end - start);
	struct plain_iv *ivs = calloc(4 * t->nev + 4, sizeof(*ivs));
	uint8_t *untimed = calloc(r->nobjects + 1, 1);
	assert_non_null(ivs);
	assert_non_null(untimed);
	size_t niv = 0;
	for (size_t i = 0; i < r->nfindings; i++) {
		const struct gmp_finding *f = &r->findings[i];
		const struct gmp_object *o = &r->objects[f->object];
		struct plain_iv v[64];
		int n = 0, bad = 0, so = o->kind == GMP_MEM_ASYNC; /* stream-ordered: allocated and freed as a use runs */
		switch (f->pattern) {
		case GMP_PAT_EARLY_ALLOCATION:
			bad = plain_between(t, end, f->ev_a, so, f->ev_b, 1, &v[n]);
			v[n++].kind = GMP_WAIT_BEFORE_FIRST_USE;
			break;
		case GMP_PAT_LATE_DEALLOCATION:
			bad = plain_between(t, end, f->ev_a, 1, f->ev_b, so, &v[n]);
			v[n++].kind = GMP_WAIT_AFTER_LAST_USE;
			break;
		case GMP_PAT_MEMORY_LEAK:
			bad = plain_between(t, end, f->ev_a, so || f->ev_a != o->alloc_ev, GMP_NO_EVENT, 0, &v[n]);
			v[n++].kind = f->ev_a == o->alloc_ev ? GMP_WAIT_NEVER_USED : GMP_WAIT_AFTER_LAST_USE;
			break;
		case GMP_PAT_UNUSED_ALLOCATION:
			bad = plain_between(t, end, o->alloc_ev, so, o->free_ev, so, &v[n]);
			v[n++].kind = GMP_WAIT_NEVER_USED;
			break;
		case GMP_PAT_TEMPORARY_IDLENESS:
			assert_true(f->range_n <= 64);
			for (uint32_t s = 0; s < f->range_n; s++) {
				const struct gmp_span *g = &r->spans[f->range_off + s];
				bad |= plain_between(t, end, g->ev_a, 1, g->ev_b, 1, &v[n]);
				v[n++].kind = GMP_WAIT_BETWEEN_USES;
			}
			break;
		default:
			continue;
		}
		struct gmp_held h;
		int rc = gmp_clock__held(c, f, &h);
		if (bad) {
			if (rc != -ENOENT)
				fail_msg("round %d, finding %zu: timed where a bound has no time", round, i);
			untimed[f->object] = 1;
			continue;
		}
		assert_int_equal(rc, 0);
		uint64_t lo = 0, hi = 0, llo = 0, lhi = 0;
		for (int k = 0; k < n; k++) {
			uint64_t a = sp(v[k].a[0], v[k].b[0]), b = sp(v[k].a[1], v[k].b[1]);
			lo += a;
			hi += b;
			llo = a > llo ? a : llo;
			lhi = b > lhi ? b : lhi;
			v[k].obj = f->object;
			ivs[niv++] = v[k];
		}
		if (h.lo_ns != lo || h.hi_ns != hi || h.longest_lo_ns != llo || h.longest_hi_ns != lhi)
			fail_msg("round %d, finding %zu (%s): %llu..%llu ns, the plain way %llu..%llu", round, i,
				 gmp_pattern__name(f->pattern), (unsigned long long)h.lo_ns, (unsigned long long)h.hi_ns,
				 (unsigned long long)lo, (unsigned long long)hi);
		assert_true(h.lo_ns <= h.hi_ns);
	}
	/* The devices' sums, a nanosecond at a time (the times are small). */
	size_t n;
	const struct gmp_memtime *m = gmp_clock__memtime(c, &n);
	assert_int_equal(n, r->ndevices);
	for (size_t d = 0; d < n; d++) {
		double held = 0, all[2] = { 0, 0 }, kind[2][GMP_WAIT_COUNT] = { { 0 } };
		uint64_t skipped = 0, unknown = 0;
		for (uint32_t obj = 0; obj < r->nobjects; obj++) {
			const struct gmp_object *o = &r->objects[obj];
			if (o->device != m[d].device || o->kind == GMP_MEM_POOL_REGION)
				continue;
			uint64_t lo = t->ev[o->alloc_ev].host_ns, hi = o->free_ev == GMP_NO_EVENT ? end : t->ev[o->free_ev].host_ns;
			if (!lo || !hi) {
				skipped++;
				continue;
			}
			unknown += untimed[obj];
			for (uint64_t x = lo; x < hi; x++) {
				held += (double)o->size;
				for (int u = 0; u < 2; u++) {
					int any = 0, in[GMP_WAIT_COUNT] = { 0 };
					for (size_t k = 0; k < niv; k++)
						if (ivs[k].obj == obj && ivs[k].a[u] <= x && x < ivs[k].b[u])
							any = in[ivs[k].kind] = 1;
					all[u] += any ? (double)o->size : 0;
					for (int w = 0; w < GMP_WAIT_COUNT; w++)
						kind[u][w] += in[w] ? (double)o->size : 0;
				}
			}
		}
		if (m[d].held != held || m[d].lo_all != all[0] || m[d].hi_all != all[1])
			fail_msg("round %d, device %u: held %.0f, waiting %.0f..%.0f; the plain way %.0f, %.0f..%.0f",
				 round, m[d].device, m[d].held, m[d].lo_all, m[d].hi_all, held, all[0], all[1]);
		for (int w = 0; w < GMP_WAIT_COUNT; w++)
			if (m[d].lo[w] != kind[0][w] || m[d].hi[w] != kind[1][w])
				fail_msg("round %d, device %u, waiting kind %d: %.0f..%.0f, the plain way %.0f..%.0f", round,
					 m[d].device, w, m[d].lo[w], m[d].hi[w], kind[0][w], kind[1][w]);
		assert_int_equal(m[d].untimed_objects, skipped);
		assert_int_equal(m[d].unknown_waiting_objects, unknown);
		assert_true(m[d].lo_all <= m[d].hi_all && m[d].hi_all <= m[d].held);
	}
	free(ivs);
	free(untimed);
	gmp_clock__free(c);
}

/*
 * Returns of blocking calls (RETURNED records), for every third round none:
 * each recorded a few events after its call, at a time a little after it,
 * sometimes after its thread's next call (a script may say so).
 */
static void add_random_returns(struct gmp_trace *t, uint64_t *seed, int some)
{
	if (!some)
		return;
	for (size_t before = 1; before <= t->nev; before++) {
		size_t back = ts_rnd(seed) % 3;
		if (back >= before)
			continue;
		uint32_t ev = (uint32_t)(before - 1 - back);
		if (!is_blocking(&t->ev[ev]) || ts_rnd(seed) % 2)
			continue;
		uint64_t ns = t->ev[ev].host_ns + ts_rnd(seed) % 9 + (t->ev[ev].host_ns ? 0 : 1);
		uint64_t all = t->nev;
		t->nev = before; /* recorded after the events before it */
		assert_int_equal(gmp_trace__add_return(t, ev, ns), 0);
		t->nev = all;
	}
}

static void random_traces(void **state)
{
	(void)state;
	uint64_t seed = 0x71de;
	size_t timed = 0, wide = 0, untimed_rounds = 0;
	for (int round = 0; round < 300; round++) {
		struct gmp_trace *t = ts_random_trace(&seed);
		/* Two host threads; times that grow in issue order (small steps), some unknown. */
		int holes = round % 5 == 4;
		uint64_t now = 1 + ts_rnd(&seed) % 50;
		for (size_t i = 0; i < t->nev; i++) {
			struct gmp_event *e = &t->ev[i];
			e->thread = 1 + (uint32_t)(ts_rnd(&seed) % 2);
			now += ts_rnd(&seed) % 6;
			e->host_ns = holes && ts_rnd(&seed) % 8 == 0 ? 0 : now;
			if ((e->op == GMP_OP_MEMCPY || e->op == GMP_OP_MEMSET) && ts_rnd(&seed) % 2)
				e->flags |= GMP_EF_ASYNC;
			if (e->op == GMP_OP_ALLOC && ts_rnd(&seed) % 3 == 0)
				e->kind = GMP_MEM_ASYNC;
		}
		add_random_returns(t, &seed, round % 3);
		struct gmp_result *r = ts_detect(t, NULL);
		check_random(t, r, round);
		struct gmp_clock *c = ts_clock(r);
		for (size_t i = 0; i < r->nfindings; i++) {
			struct gmp_held h;
			if (!gmp_clock__held(c, &r->findings[i], &h)) {
				timed++;
				wide += h.lo_ns < h.hi_ns;
			}
		}
		untimed_rounds += holes;
		gmp_clock__free(c);
		gmp_result__free(r);
		gmp_trace__free(t);
	}
	/* The traces reach both cases: ranges that meet and ranges that do not. */
	assert_true(timed > 1000);
	assert_true(wide > 300 && wide < timed);
	assert_true(untimed_rounds == 60);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_traces),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
