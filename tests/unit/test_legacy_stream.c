// SPDX-License-Identifier: MIT
/*
 * The legacy default stream (stream 0) and blocking streams wait for each
 * other's earlier work (detector/build.c): which ops take part, what a
 * `stream` line declares, and what a trace without declarations keeps.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define BLOCKING(s) "{\"op\":\"stream\",\"stream\":" #s ",\"blocking\":true}\n"
#define NONBLOCKING(s) "{\"op\":\"stream\",\"stream\":" #s ",\"blocking\":false}\n"
#define A(addr, label) "{\"op\":\"alloc\",\"addr\":\"" addr "\",\"size\":4096,\"label\":\"" label "\"}\n"
#define K(addr, s) "{\"op\":\"kernel\",\"name\":\"k\",\"write\":[\"" addr "\"],\"stream\":" #s "}\n"
#define KD(addr, s, d) "{\"op\":\"kernel\",\"name\":\"k\",\"write\":[\"" addr "\"],\"stream\":" #s ",\"device\":" #d "}\n"

static struct gmp_result *run(const char *text, struct gmp_trace **t)
{
	*t = ts_script(text);
	return ts_detect(*t, NULL);
}

static void done(struct gmp_result *r, struct gmp_trace *t)
{
	gmp_result__free(r);
	gmp_trace__free(t);
}

/* Three launches on stream 1, then one on stream 0: its level, with and without the declaration. */
static uint32_t level_after(const char *decl, const char *last)
{
	char body[2048];
	snprintf(body, sizeof(body), "%s" A("0x1000", "A") A("0x9000", "B") K("0x1000", 1) K("0x1000", 1)
		 K("0x1000", 1) "%s", decl, last);
	struct gmp_trace *t;
	struct gmp_result *r = run(body, &t);
	uint32_t l = r->level[t->nev - 1];
	done(r, t);
	return l;
}

/* Stream 0's work waits for a blocking stream's; a non-blocking or undeclared one's it does not. */
static void legacy_waits_for_blocking(void **state)
{
	(void)state;
	const char *k0 = K("0x9000", 0);
	assert_int_equal(level_after(BLOCKING(1), k0), 4);     /* after the third launch (level 3) */
	assert_int_equal(level_after(NONBLOCKING(1), k0), 2);  /* after B's allocation on stream 0 */
	assert_int_equal(level_after("", k0), 2);
	/* Copies and sets on stream 0 wait too. */
	const char *decl = BLOCKING(1);
	assert_int_equal(level_after(decl, "{\"op\":\"memcpy\",\"dst\":\"0x9000\",\"size\":16}\n"), 4);
	assert_int_equal(level_after(decl, "{\"op\":\"memset\",\"addr\":\"0x9000\",\"size\":16,\"async\":true}\n"), 4);
	/* An event recorded on stream 0 is recorded after stream 1's launches: a wait for it follows them. */
	const char *ev = "{\"op\":\"event_record\",\"event\":5}\n"
			 "{\"op\":\"event_wait\",\"event\":5,\"stream\":2}\n" K("0x9000", 2);
	assert_int_equal(level_after(decl, ev), 4);
	assert_int_equal(level_after("", ev), 2);
	/* The host's wait for stream 0 is a wait for stream 1's launches: stream 2's next op follows them. */
	const char *sync = "{\"op\":\"sync\",\"stream\":0}\n"
			   "{\"op\":\"alloc\",\"addr\":\"0x20000\",\"size\":8,\"stream\":2}\n";
	assert_int_equal(level_after(decl, sync), 4);
	assert_int_equal(level_after("", sync), 2);
}

/* A blocking stream's work waits for stream 0's earlier work; once per op of stream 0. */
static void blocking_waits_for_legacy(void **state)
{
	(void)state;
	static const char body[] =
		BLOCKING(1) A("0x1000", "A") A("0x9000", "B")
		K("0x9000", 0) K("0x9000", 0) K("0x9000", 0) /* levels 2, 3, 4 */
		K("0x1000", 1)                                /* after them: 5 */
		K("0x1000", 1);
	struct gmp_trace *t;
	struct gmp_result *r = run(body, &t);
	assert_int_equal(r->level[5], 5);
	assert_int_equal(r->level[6], 6);
	/* Edges: the two allocations' stream, B's three launches, and stream 1's: one from stream 0. */
	uint64_t with = r->nedges;
	done(r, t);
	r = run(body + strlen(BLOCKING(1)), &t);
	assert_int_equal(r->level[5], 1); /* after A's allocation alone */
	assert_int_equal(with, r->nedges + 1);
	done(r, t);
}

/*
 * Not in the legacy order: cudaMalloc and cudaFree (made on no stream),
 * a blocking stream's own sync (the host waits for that stream alone),
 * and another device's streams.
 */
static void what_takes_no_part(void **state)
{
	(void)state;
	/* A plain allocation on stream 0 after stream 1's launches: not after them. */
	assert_int_equal(level_after(BLOCKING(1), A("0x20000", "C")), 2);
	/* A stream-ordered one is. */
	assert_int_equal(level_after(BLOCKING(1), "{\"op\":\"alloc\",\"addr\":\"0x20000\",\"size\":8,\"kind\":\"async\"}\n"), 4);
	/* Stream 0's work on device 1 does not wait for device 0's stream 1. */
	assert_int_equal(level_after(BLOCKING(1), KD("0x9000", 0, 1)), 2);
	/* A sync of stream 1 does not wait for stream 0's launch before it (it is on stream 1's order alone). */
	static const char body[] =
		BLOCKING(1) A("0x1000", "A") A("0x9000", "B") K("0x9000", 0) K("0x9000", 0)
		"{\"op\":\"sync\",\"stream\":1}\n"
		"{\"op\":\"alloc\",\"addr\":\"0x20000\",\"size\":8,\"stream\":3}\n";
	struct gmp_trace *t;
	struct gmp_result *r = run(body, &t);
	assert_int_equal(r->level[5], 0);
	done(r, t);
	/* A stream-ordered free on stream 0 waits; cudaFree's sync is already a device sync. */
	static const char freed[] =
		BLOCKING(1) A("0x1000", "A")
		"{\"op\":\"alloc\",\"addr\":\"0x9000\",\"size\":8,\"kind\":\"async\",\"stream\":2}\n"
		K("0x1000", 1) K("0x1000", 1) "{\"op\":\"free\",\"addr\":\"0x9000\"}\n";
	r = run(freed, &t);
	assert_int_equal(r->level[4], 3);
	done(r, t);
}

/* What the ordering changes in findings: B's allocation is early only when stream 0 waits. */
static void early_allocation_seen(void **state)
{
	(void)state;
	static const char body[] =
		A("0x1000", "A") A("0x9000", "B") K("0x1000", 1) K("0x1000", 1) K("0x1000", 1)
		K("0x1000", 1) K("0x1000", 1) K("0x9000", 0)
		"{\"op\":\"free\",\"addr\":\"0x1000\"}\n{\"op\":\"free\",\"addr\":\"0x9000\"}\n";
	char decl[2048];
	snprintf(decl, sizeof(decl), BLOCKING(1) "%s", body);
	struct gmp_trace *t;
	struct gmp_result *r = run(decl, &t);
	assert_int_equal(ts_one(r, GMP_PAT_EARLY_ALLOCATION, "B")->apis_between, 4); /* k2 to k5 */
	done(r, t);
	r = run(body, &t);
	assert_int_equal(ts_count(r, GMP_PAT_EARLY_ALLOCATION, "B"), 0);
	done(r, t);
}

/* How long the finding's memory waited: at least lo, at most hi (ns). */
static void waited(const char *text, const char *label, uint64_t lo, uint64_t hi)
{
	struct gmp_trace *t;
	struct gmp_result *r = run(text, &t);
	struct gmp_clock *c = ts_clock(r);
	struct gmp_held h;
	assert_int_equal(gmp_clock__held(c, ts_one(r, GMP_PAT_LATE_DEALLOCATION, label), &h), 0);
	if (h.lo_ns != lo || h.hi_ns != hi)
		fail_msg("%s waited %llu to %llu ns, expected %llu to %llu", label, (unsigned long long)h.lo_ns,
			 (unsigned long long)h.hi_ns, (unsigned long long)lo, (unsigned long long)hi);
	gmp_clock__free(c);
	done(r, t);
}

/*
 * waited() on A (0x1000) and B (0x9000), stream 1 declared blocking or not,
 * then body, then a device sync and the free of `label` at 10 us, and
 * another and the other's free at 11 us.
 */
static void waited_in(int blocking, const char *body, const char *label, uint64_t lo, uint64_t hi)
{
	const char *first = label[0] == 'A' ? "0x1000" : "0x9000", *second = label[0] == 'A' ? "0x9000" : "0x1000";
	char text[4096];
	snprintf(text, sizeof(text),
		 "%s" A("0x1000", "A") A("0x9000", "B") "%s"
		 "{\"op\":\"sync\",\"time_ns\":10000}\n{\"op\":\"free\",\"addr\":\"%s\",\"time_ns\":10000}\n"
		 "{\"op\":\"sync\",\"time_ns\":11000}\n{\"op\":\"free\",\"addr\":\"%s\",\"time_ns\":11000}\n",
		 blocking ? BLOCKING(1) : "", body, first, second);
	waited(text, label, lo, hi);
}

/*
 * Memory over time: a wait for the legacy stream is a wait for the blocking
 * streams' work before it, and a blocking stream's wait for its own work a
 * wait for the legacy stream's work before that.
 */
static void completion_bounds(void **state)
{
	(void)state;
#define KT(name, addr, s, t) \
	"{\"op\":\"kernel\",\"name\":\"" name "\",\"write\":[\"" addr "\"],\"stream\":" #s ",\"time_ns\":" #t "}\n"
	/* A's last use on stream 1 is known done when the blocking copy on stream 0 returned (at k2, 4 us). */
	const char *copy = KT("k", "0x1000", 1, 2000) "{\"op\":\"memcpy\",\"dst\":\"0x9000\",\"size\":16,\"time_ns\":3000}\n"
			   "{\"op\":\"sync\",\"stream\":0,\"time_ns\":3000}\n" KT("k2", "0x9000", 0, 4000) KT("k3", "0x9000", 0, 5000);
	waited_in(1, copy, "A", 6000, 8000);
	waited_in(0, copy, "A", 0, 8000); /* undeclared: known done only at the device sync */
	/* cudaStreamSynchronize(0) alone: the sync itself waits for stream 1's launch. */
	waited_in(1, KT("k", "0x1000", 1, 2000) "{\"op\":\"sync\",\"stream\":0,\"time_ns\":3000}\n"
		  KT("k2", "0x9000", 0, 4000) KT("k3", "0x9000", 0, 5000), "A", 6000, 8000);
	/* B's last use on stream 0 is known done when stream 1's later launch is (its stream's sync returned at 5 us). */
	const char *back = KT("kb", "0x9000", 0, 2000) KT("k1", "0x1000", 1, 3000)
			   "{\"op\":\"sync\",\"stream\":1,\"time_ns\":4000}\n" KT("k3", "0x1000", 1, 5000) KT("k4", "0x1000", 1, 6000);
	waited_in(1, back, "B", 5000, 8000);
	waited_in(0, back, "B", 0, 8000);
	/* A sync of the blocking stream alone: it does not wait for stream 0 (kb before it, no launch of stream 1 since). */
	waited_in(1, KT("k1", "0x1000", 1, 1500) KT("kb", "0x9000", 0, 2000) "{\"op\":\"sync\",\"stream\":1,\"time_ns\":4000}\n"
		  KT("k3", "0x1000", 1, 5000) KT("k4", "0x1000", 1, 6000), "B", 0, 8000);
#undef KT
}

/* The rule, written again for the test: 1 stream work, 2 a stream sync, 0 neither. */
static int takes_part(const struct gmp_trace *t, size_t v)
{
	const struct gmp_event *e = &t->ev[v];
	switch (e->op) {
	case GMP_OP_KERNEL: case GMP_OP_MEMCPY: case GMP_OP_MEMSET: case GMP_OP_EVENT_RECORD: case GMP_OP_EVENT_WAIT:
		return 1;
	case GMP_OP_SYNC:
		return e->flags & GMP_EF_SYNC_STREAM ? 2 : 0;
	case GMP_OP_ALLOC:
		return e->kind == GMP_MEM_ASYNC;
	case GMP_OP_FREE:
		for (size_t a = v; a--;) /* the allocation it ends: the latest at its address */
			if (t->ev[a].op == GMP_OP_ALLOC && t->ev[a].addr == e->addr)
				return t->ev[a].kind == GMP_MEM_ASYNC;
		return 0;
	default:
		return 0;
	}
}

static int is_api(const struct gmp_event *e)
{
	return e->op != GMP_OP_SYNC && e->op != GMP_OP_EVENT_RECORD && e->op != GMP_OP_EVENT_WAIT;
}

/*
 * Random multi-stream traces with streams 1 to 3 declared blocking,
 * non-blocking or not at all, and some allocations stream-ordered: every
 * op on stream 0 that takes part comes after the earlier work of each
 * blocking stream of its device, and every such op of a blocking stream
 * after stream 0's earlier ones (levels, which Kahn's algorithm on the
 * whole graph checks too); declaring no stream blocking changes no level.
 */
static void random_traces(void **state)
{
	(void)state;
	uint64_t seed = 0x1e9acf;
	for (int round = 0; round < 300; round++) {
		struct gmp_trace *t = ts_random_trace(&seed);
		for (size_t v = 0; v < t->nev; v++)
			if (t->ev[v].op == GMP_OP_ALLOC && ts_rnd(&seed) % 3 == 0)
				t->ev[v].kind = GMP_MEM_ASYNC;
		struct gmp_result *plain = ts_detect(t, NULL);
		int blocking[4] = { 0 }, any = 0;
		for (uint32_t n = 1; n <= 3; n++) {
			unsigned how = (unsigned)(ts_rnd(&seed) % 3); /* 0 undeclared, 1 blocking, 2 non-blocking */
			struct gmp_stream_info si = { .number = n,
						      .flags = GMP_STREAM_KNOWN | (how == 2 ? GMP_STREAM_NON_BLOCKING : 0) };
			if (how)
				assert_int_equal(gmp_trace__add_stream(t, &si), 0);
			blocking[n] = how == 1;
			any |= blocking[n];
		}
		struct gmp_result *r = ts_detect(t, NULL);
		for (size_t v = 0; v < t->nev; v++) {
			const struct gmp_event *ev = &t->ev[v];
			int kv = takes_part(t, v);
			if (!any && r->level[v] != plain->level[v])
				fail_msg("round %d: event %zu: level %u, %u with no stream declared blocking", round, v,
					 r->level[v], plain->level[v]);
			if (!kv || (ev->stream && (!blocking[ev->stream] || kv == 2)))
				continue;
			for (size_t u = 0; u < v; u++) {
				const struct gmp_event *eu = &t->ev[u];
				int ku = takes_part(t, u);
				if (eu->device != ev->device || !ku || (eu->stream == 0) == (ev->stream == 0) ||
				    (eu->stream && (!blocking[eu->stream] || ku == 2)))
					continue;
				if (r->level[v] < r->level[u] + (uint32_t)is_api(eu))
					fail_msg("round %d: event %zu (stream %u, level %u) is not after event %zu "
						 "(stream %u, level %u)", round, v, ev->stream, r->level[v], u,
						 eu->stream, r->level[u]);
			}
		}
		gmp_result__free(plain);
		gmp_result__free(r);
		gmp_trace__free(t);
	}
}

/* The `stream` line: its fields, and that it comes before the stream's ops, once. */
static void stream_line_errors(void **state)
{
	(void)state;
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "{\"op\":\"stream\",\"stream\":1}\n", "missing required field 'blocking'" },
		{ "{\"op\":\"stream\",\"blocking\":true}\n", "missing required field 'stream'" },
		{ "{\"op\":\"stream\",\"stream\":1,\"blocking\":1}\n", "'blocking' must be true or false" },
		{ "{\"op\":\"stream\",\"stream\":0,\"blocking\":true}\n", "legacy default stream" },
		{ "{\"op\":\"stream\",\"stream\":1,\"blocking\":true,\"device\":1}\n", "takes no 'device'" },
		{ "{\"op\":\"stream\",\"stream\":1,\"blocking\":true,\"size\":1}\n", "unknown field 'size'" },
		{ K("0x1000", 1) BLOCKING(1), "declared after an op on it" },
		{ BLOCKING(1) NONBLOCKING(1), "declared after its first declaration" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[512];
		snprintf(text, sizeof(text), A("0x1000", "A") "%s", bad[i].text);
		struct gmp_trace *t = NULL;
		struct gmp_script_error err;
		assert_int_equal(gmp_script__read_mem(text, strlen(text), &t, &err), -EINVAL);
		if (!strstr(err.msg, bad[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, bad[i].msg);
		assert_int_equal(err.line, i >= 6 ? 3 : 2);
	}
	/* Declared, the flags are in the trace's streams. */
	struct gmp_trace *t = ts_script(BLOCKING(3) NONBLOCKING(4) K("0x1000", 3));
	assert_int_equal(t->nstreams, 2);
	assert_true(gmp_stream__blocking(t->streams[0].flags));
	assert_int_equal(t->streams[1].flags, GMP_STREAM_KNOWN | GMP_STREAM_NON_BLOCKING);
	gmp_trace__free(t);
}

/* A later record of a stream replaces its first: the collector's, once a stream's flags are known. */
static void stream_record_replaced(void **state)
{
	(void)state;
	struct gmp_trace *t = gmp_trace__new();
	assert_non_null(t);
	struct gmp_stream_info s1 = { .number = 1, .handle = 0x10 }, s2 = { .number = 2, .handle = 0x20 };
	assert_int_equal(gmp_trace__add_stream(t, &s1), 0);
	assert_int_equal(gmp_trace__add_stream(t, &s2), 0);
	s1.flags = GMP_STREAM_KNOWN;
	assert_int_equal(gmp_trace__add_stream(t, &s1), 0);
	assert_int_equal(t->nstreams, 2);
	assert_int_equal(t->streams[0].flags, GMP_STREAM_KNOWN);
	assert_int_equal(t->streams[1].flags, 0);
	gmp_trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(legacy_waits_for_blocking),
		cmocka_unit_test(blocking_waits_for_legacy),
		cmocka_unit_test(what_takes_no_part),
		cmocka_unit_test(early_allocation_seen),
		cmocka_unit_test(completion_bounds),
		cmocka_unit_test(random_traces),
		cmocka_unit_test(stream_line_errors),
		cmocka_unit_test(stream_record_replaced),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
