// SPDX-License-Identifier: MIT
/*
 * Memory over time by the host's clock (detector/held.c): how long each
 * finding's memory waited, at least and at most, and per device the bytes
 * held and the share that waited.  On the paper's Figure 2 with host times
 * (every number worked out by hand), on each way a call is known to have
 * finished (device, stream and event syncs, synchronous copies, a sync's
 * return seen at its thread's next call or stamped at its end).  Random
 * traces against a plain reimplementation: test_held_random.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define MIB (1024ull * 1024)

static void expect_held(const struct gmp_clock *c, const struct gmp_finding *f, uint64_t lo, uint64_t hi)
{
	struct gmp_held h;
	assert_int_equal(gmp_clock__held(c, f, &h), 0);
	if (h.lo_ns != lo || h.hi_ns != hi)
		fail_msg("%s: waited %llu to %llu ns, expected %llu to %llu", gmp_pattern__name(f->pattern),
			 (unsigned long long)h.lo_ns, (unsigned long long)h.hi_ns, (unsigned long long)lo,
			 (unsigned long long)hi);
}

/* tests/scripts/figure2_timed.jsonl: the paper's Figure 2 with host times (the numbers are explained there). */
static void figure2(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script_file("figure2_timed.jsonl");
	struct gmp_result *r = ts_detect(t, NULL);
	struct gmp_clock *c = ts_clock(r);
	assert_int_equal(gmp_clock__run_ns(c), 12000);
	expect_held(c, ts_one(r, GMP_PAT_EARLY_ALLOCATION, "B"), 5000, 7000);
	expect_held(c, ts_one(r, GMP_PAT_LATE_DEALLOCATION, "B"), 0, 3000);
	expect_held(c, ts_one(r, GMP_PAT_TEMPORARY_IDLENESS, "C"), 6000, 8000);
	expect_held(c, ts_one(r, GMP_PAT_MEMORY_LEAK, "C"), 0, 1000);
	struct gmp_held h;
	assert_int_equal(gmp_clock__held(c, ts_one(r, GMP_PAT_TEMPORARY_IDLENESS, "C"), &h), 0);
	assert_int_equal(h.longest_lo_ns, 6000);
	assert_int_equal(h.longest_hi_ns, 8000);

	size_t n;
	const struct gmp_memtime *m = gmp_clock__memtime(c, &n);
	assert_int_equal(n, 1);
	const double C = 8192, B = MIB, A = 4096;
	assert_true(m[0].held == C * 12000 + B * 10000 + A * 3000);
	/* At least: C idle 3000..9000; B early 3000..8000.  At most: C idle 2000..10000 and
	   leaked 12000..13000; B early 3000..10000 and late 10000..13000. */
	assert_true(m[0].lo_all == C * 6000 + B * 5000);
	assert_true(m[0].hi_all == C * 9000 + B * 10000);
	assert_true(m[0].lo[GMP_WAIT_BEFORE_FIRST_USE] == B * 5000);
	assert_true(m[0].hi[GMP_WAIT_BEFORE_FIRST_USE] == B * 7000);
	assert_true(m[0].lo[GMP_WAIT_BETWEEN_USES] == C * 6000);
	assert_true(m[0].hi[GMP_WAIT_BETWEEN_USES] == C * 8000);
	assert_true(m[0].lo[GMP_WAIT_AFTER_LAST_USE] == 0);
	assert_true(m[0].hi[GMP_WAIT_AFTER_LAST_USE] == B * 3000 + C * 1000);
	assert_true(m[0].lo[GMP_WAIT_NEVER_USED] == 0 && m[0].hi[GMP_WAIT_NEVER_USED] == 0);
	assert_int_equal(m[0].untimed_objects, 0);
	assert_int_equal(m[0].unknown_waiting_objects, 0);
	gmp_clock__free(c);
	gmp_result__free(r);
	gmp_trace__free(t);
}

/*
 * X's last use is k2 on stream 1 (issued 300); it is freed at 1000, after
 * `tail` and k3 (stream 1, 950, which the free waits for through an event).
 * lo = 1000 - when k2 is known to have finished.
 */
static uint64_t late_lo(const char *tail)
{
	char text[2048];
	snprintf(text, sizeof(text),
		 "{\"op\":\"alloc\",\"addr\":\"0x1000\",\"size\":4096,\"label\":\"X\",\"time_ns\":100}\n"
		 "{\"op\":\"alloc\",\"addr\":\"0x9000\",\"size\":4096,\"label\":\"Y\",\"time_ns\":110}\n"
		 "{\"op\":\"kernel\",\"name\":\"k1\",\"stream\":1,\"write\":[\"0x1000\"],\"time_ns\":200}\n"
		 "{\"op\":\"event_record\",\"event\":1,\"stream\":1,\"time_ns\":250}\n"
		 "{\"op\":\"kernel\",\"name\":\"k2\",\"stream\":1,\"read\":[\"0x1000\"],\"time_ns\":300}\n"
		 "%s"
		 "{\"op\":\"kernel\",\"name\":\"k3\",\"stream\":1,\"write\":[\"0x9000\"],\"time_ns\":950}\n"
		 "{\"op\":\"event_record\",\"event\":3,\"stream\":1,\"time_ns\":960}\n"
		 "{\"op\":\"event_wait\",\"event\":3,\"time_ns\":970}\n"
		 "{\"op\":\"free\",\"addr\":\"0x1000\",\"time_ns\":1000}\n"
		 "{\"op\":\"kernel\",\"name\":\"k4\",\"stream\":2,\"read\":[\"0x9000\"],\"time_ns\":1100}\n"
		 "{\"op\":\"free\",\"addr\":\"0x9000\",\"time_ns\":1200}\n",
		 tail);
	struct gmp_trace *t = ts_script(text);
	struct gmp_result *r = ts_detect(t, NULL);
	struct gmp_clock *c = ts_clock(r);
	struct gmp_held h;
	assert_int_equal(gmp_clock__held(c, ts_one(r, GMP_PAT_LATE_DEALLOCATION, "X"), &h), 0);
	assert_int_equal(h.hi_ns, 700);
	gmp_clock__free(c);
	gmp_result__free(r);
	gmp_trace__free(t);
	return h.lo_ns;
}

static void completion_bounds(void **state)
{
	(void)state;
	/* Nothing waits for k2: finished by the run's last call (1200), after the free. */
	assert_int_equal(late_lo(""), 0);
	/* A sync of stream 1 returns by the thread's next call (k3, 950). */
	assert_int_equal(late_lo("{\"op\":\"sync\",\"stream\":1,\"time_ns\":400}\n"), 50);
	/* ... of another stream, or an event recorded before k2: neither waits for it. */
	assert_int_equal(late_lo("{\"op\":\"sync\",\"stream\":2,\"time_ns\":400}\n"), 0);
	assert_int_equal(late_lo("{\"op\":\"sync\",\"event\":1,\"time_ns\":400}\n"), 0);
	/* An event recorded after k2 does; so does a device sync. */
	assert_int_equal(late_lo("{\"op\":\"event_record\",\"event\":2,\"stream\":1,\"time_ns\":350}\n"
				 "{\"op\":\"sync\",\"event\":2,\"time_ns\":400}\n"), 50);
	assert_int_equal(late_lo("{\"op\":\"sync\",\"time_ns\":400}\n"), 50);
	/* A sync of stream 2, which waited for an event recorded after k2: through the event, it does. */
	assert_int_equal(late_lo("{\"op\":\"event_record\",\"event\":2,\"stream\":1,\"time_ns\":350}\n"
				 "{\"op\":\"event_wait\",\"event\":2,\"stream\":2,\"time_ns\":360}\n"
				 "{\"op\":\"sync\",\"stream\":2,\"time_ns\":400}\n"), 50);
	/* ... not when it waited for the event recorded before k2. */
	assert_int_equal(late_lo("{\"op\":\"event_wait\",\"event\":1,\"stream\":2,\"time_ns\":360}\n"
				 "{\"op\":\"sync\",\"stream\":2,\"time_ns\":400}\n"), 0);
	/* A device sync of another device does not. */
	assert_int_equal(late_lo("{\"op\":\"sync\",\"device\":1,\"time_ns\":400}\n"), 0);
	/* Syncs stamped as they begin: the return is known at the next call that is no sync. */
	assert_int_equal(late_lo("{\"op\":\"sync\",\"time_ns\":400}\n{\"op\":\"sync\",\"stream\":1,\"time_ns\":420}\n"
				 "{\"op\":\"memset\",\"addr\":\"0x9000\",\"size\":16,\"stream\":2,\"async\":true,\"time_ns\":700}\n"),
			 300);
	/* Its return, stamped at the call's end (RETURNED), bounds it sooner: done at 420, not 950. */
	assert_int_equal(late_lo("{\"op\":\"sync\",\"stream\":1,\"time_ns\":400,\"returned_ns\":420}\n"), 580);
	/* ... also a later call's return on its thread (the thread's calls return in order); another thread's not. */
	assert_int_equal(late_lo("{\"op\":\"sync\",\"stream\":1,\"time_ns\":400}\n"
				 "{\"op\":\"sync\",\"stream\":2,\"time_ns\":410,\"returned_ns\":430}\n"), 570);
	assert_int_equal(late_lo("{\"op\":\"sync\",\"stream\":1,\"time_ns\":400}\n"
				 "{\"op\":\"sync\",\"stream\":2,\"thread\":7,\"time_ns\":410,\"returned_ns\":430}\n"), 50);
	/* A blocking copy's return bounds what it waited for, and the copy itself from the device. */
	assert_int_equal(late_lo("{\"op\":\"memcpy\",\"dst\":\"0x9000\",\"size\":16,\"stream\":1,\"time_ns\":400,\"returned_ns\":450}\n"), 550);
	/* A return says nothing of what the call did not wait for. */
	assert_int_equal(late_lo("{\"op\":\"sync\",\"stream\":2,\"time_ns\":400,\"returned_ns\":420}\n"), 0);
	/* A synchronous copy on stream 1, to or from the host, waits for the stream's earlier work. */
	assert_int_equal(late_lo("{\"op\":\"memcpy\",\"dst\":\"0x9000\",\"size\":16,\"stream\":1,\"time_ns\":400}\n"
				 "{\"op\":\"memset\",\"addr\":\"0x9000\",\"size\":16,\"stream\":2,\"async\":true,\"time_ns\":800}\n"),
			 200);
	assert_int_equal(late_lo("{\"op\":\"memcpy\",\"src\":\"0x9000\",\"size\":16,\"stream\":1,\"time_ns\":400}\n"
				 "{\"op\":\"memset\",\"addr\":\"0x9000\",\"size\":16,\"stream\":2,\"async\":true,\"time_ns\":800}\n"),
			 200);
	/* An asynchronous one does not, nor a synchronous one between two device buffers. */
	assert_int_equal(late_lo("{\"op\":\"memcpy\",\"src\":\"0x9000\",\"size\":16,\"stream\":1,\"async\":true,\"time_ns\":400}\n"
				 "{\"op\":\"memset\",\"addr\":\"0x9000\",\"size\":16,\"stream\":2,\"async\":true,\"time_ns\":800}\n"),
			 0);
	assert_int_equal(late_lo("{\"op\":\"memcpy\",\"src\":\"0x9000\",\"dst\":\"0x9800\",\"size\":16,\"stream\":1,\"time_ns\":400}\n"
				 "{\"op\":\"memset\",\"addr\":\"0x9000\",\"size\":16,\"stream\":2,\"async\":true,\"time_ns\":800}\n"),
			 0);
	/* A return stamped before k2 was issued (two threads' clocks): k2 finished no sooner than issued. */
	assert_int_equal(late_lo("{\"op\":\"sync\",\"stream\":1,\"thread\":5,\"time_ns\":400}\n"
				 "{\"op\":\"memset\",\"addr\":\"0x9000\",\"size\":16,\"stream\":2,\"async\":true,\"thread\":5,\"time_ns\":250}\n"),
			 700);
	/* Another thread's next call says nothing of this thread's sync. */
	assert_int_equal(late_lo("{\"op\":\"sync\",\"time_ns\":400}\n"
				 "{\"op\":\"memset\",\"addr\":\"0x9000\",\"size\":16,\"stream\":2,\"async\":true,\"thread\":7,\"time_ns\":500}\n"),
			 50);
}

/*
 * A return recorded after the last event (the program's last sync): it
 * still bounds what the sync waited for.  Thread 2's clock ran ahead (its
 * allocation at 1000 is recorded first), so the run ends at 1000, and X,
 * last used by k (200) and known done at the sync's return (400), waited
 * 600 to 800 for the end.
 */
static void return_at_end(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script(
		"{\"op\":\"alloc\",\"addr\":\"0x1000\",\"size\":4096,\"label\":\"X\",\"thread\":1,\"time_ns\":100}\n"
		"{\"op\":\"kernel\",\"name\":\"k\",\"write\":[\"0x1000\"],\"thread\":1,\"time_ns\":200}\n"
		"{\"op\":\"alloc\",\"addr\":\"0x9000\",\"size\":64,\"thread\":2,\"time_ns\":1000}\n"
		"{\"op\":\"sync\",\"thread\":1,\"time_ns\":300,\"returned_ns\":400}\n");
	assert_int_equal(t->nrets, 1);
	assert_int_equal(t->rets[0].before, t->nev);
	struct gmp_result *r = ts_detect(t, NULL);
	struct gmp_clock *c = ts_clock(r);
	expect_held(c, ts_one(r, GMP_PAT_MEMORY_LEAK, "X"), 600, 800);
	gmp_clock__free(c);
	gmp_result__free(r);
	gmp_trace__free(t);
}

/* A copy from the device to the host returns once it is done itself; one from the host may not. */
static void copy_itself(void **state)
{
	(void)state;
	static const char text[] =
		"{\"op\":\"alloc\",\"addr\":\"0x1000\",\"size\":4096,\"label\":\"X\",\"time_ns\":100}\n"
		"{\"op\":\"memcpy\",\"%s\":\"0x1000\",\"size\":16,\"time_ns\":200}\n"
		"{\"op\":\"alloc\",\"addr\":\"0x9000\",\"size\":4096,\"time_ns\":300}\n"
		"{\"op\":\"kernel\",\"name\":\"k\",\"write\":[\"0x9000\"],\"time_ns\":400}\n"
		"{\"op\":\"free\",\"addr\":\"0x1000\",\"time_ns\":1000}\n"
		"{\"op\":\"free\",\"addr\":\"0x9000\",\"time_ns\":1100}\n";
	static const char *const side[] = { "src", "dst" };
	static const uint64_t lo[] = { 700, 0 }; /* done at 300, or at the run's end */
	for (int i = 0; i < 2; i++) {
		char s[1024];
		snprintf(s, sizeof(s), text, side[i]);
		struct gmp_trace *t = ts_script(s);
		struct gmp_result *r = ts_detect(t, NULL);
		struct gmp_clock *c = ts_clock(r);
		expect_held(c, ts_one(r, GMP_PAT_LATE_DEALLOCATION, "X"), lo[i], 800);
		gmp_clock__free(c);
		gmp_result__free(r);
		gmp_trace__free(t);
	}
}

/*
 * X is allocated with cudaMallocAsync on stream 1 (100), which runs on the
 * GPU like a use: by the time stream 1's sync returned (500) at the latest.
 * Its first use, k (300), may have run right after it: at least nothing
 * waited; at most from 100 to k's done (500).
 */
static void stream_ordered(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script(
		"{\"op\":\"alloc\",\"addr\":\"0x1000\",\"size\":4096,\"label\":\"X\",\"kind\":\"async\",\"stream\":1,\"time_ns\":100}\n"
		"{\"op\":\"alloc\",\"addr\":\"0x9000\",\"size\":4096,\"time_ns\":110}\n"
		"{\"op\":\"kernel\",\"name\":\"a\",\"stream\":1,\"write\":[\"0x9000\"],\"time_ns\":200}\n"
		"{\"op\":\"kernel\",\"name\":\"b\",\"stream\":1,\"write\":[\"0x9000\"],\"time_ns\":250}\n"
		"{\"op\":\"kernel\",\"name\":\"k\",\"stream\":1,\"write\":[\"0x1000\"],\"time_ns\":300}\n"
		"{\"op\":\"sync\",\"stream\":1,\"time_ns\":400}\n"
		"{\"op\":\"memset\",\"addr\":\"0x9000\",\"size\":16,\"stream\":2,\"async\":true,\"time_ns\":500}\n"
		"{\"op\":\"free\",\"addr\":\"0x1000\",\"stream\":1,\"time_ns\":600}\n"
		"{\"op\":\"free\",\"addr\":\"0x9000\",\"time_ns\":800}\n");
	struct gmp_result *r = ts_detect(t, NULL);
	struct gmp_clock *c = ts_clock(r);
	expect_held(c, ts_one(r, GMP_PAT_EARLY_ALLOCATION, "X"), 0, 400);
	gmp_clock__free(c);
	gmp_result__free(r);
	gmp_trace__free(t);
}

/* A leak never used waits as never used, not after a last use; its unused finding covers the same time. */
static void never_used_leak(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script("{\"op\":\"alloc\",\"addr\":\"0x1000\",\"size\":4096,\"label\":\"X\",\"time_ns\":100}\n"
					"{\"op\":\"alloc\",\"addr\":\"0x9000\",\"size\":1024,\"time_ns\":200}\n"
					"{\"op\":\"kernel\",\"name\":\"k\",\"write\":[\"0x9000\"],\"time_ns\":300}\n"
					"{\"op\":\"free\",\"addr\":\"0x9000\",\"time_ns\":1100}\n");
	struct gmp_result *r = ts_detect(t, NULL);
	struct gmp_clock *c = ts_clock(r);
	expect_held(c, ts_one(r, GMP_PAT_MEMORY_LEAK, "X"), 1000, 1000);
	expect_held(c, ts_one(r, GMP_PAT_UNUSED_ALLOCATION, "X"), 1000, 1000);
	size_t n;
	const struct gmp_memtime *m = gmp_clock__memtime(c, &n);
	assert_true(m[0].lo[GMP_WAIT_NEVER_USED] == 4096.0 * 1000 && m[0].hi[GMP_WAIT_NEVER_USED] == 4096.0 * 1000);
	assert_true(m[0].lo[GMP_WAIT_AFTER_LAST_USE] == 0 && m[0].hi[GMP_WAIT_AFTER_LAST_USE] == 0);
	assert_true(m[0].lo_all == 4096.0 * 1000 && m[0].hi_all == 4096.0 * 1000);
	gmp_clock__free(c);
	gmp_result__free(r);
	gmp_trace__free(t);
}

/* No host times: no clock.  A leak whose last use is unknown (alloc mode): its waiting is not known. */
static void untimed(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script_file("figure2.jsonl");
	struct gmp_result *r = ts_detect(t, NULL);
	struct gmp_clock *c = (struct gmp_clock *)1;
	assert_int_equal(gmp_clock__new(r, &c), 0);
	assert_null(c);
	gmp_result__free(r);
	gmp_trace__free(t);

	t = ts_script("{\"op\":\"meta\",\"key\":\"mode\",\"value\":\"alloc\"}\n"
		      "{\"op\":\"alloc\",\"addr\":\"0x1000\",\"size\":4096,\"time_ns\":100}\n"
		      "{\"op\":\"kernel\",\"name\":\"k\",\"monitored\":false,\"time_ns\":200}\n"
		      "{\"op\":\"alloc\",\"addr\":\"0x9000\",\"size\":1024,\"time_ns\":300}\n"
		      "{\"op\":\"free\",\"addr\":\"0x9000\",\"time_ns\":500}\n");
	struct gmp_detect_opts o;
	gmp_detect_opts__defaults(&o);
	o.accesses_unknown = 1;
	r = ts_detect(t, &o);
	c = ts_clock(r);
	struct gmp_held h;
	assert_int_equal(gmp_clock__held(c, ts_one(r, GMP_PAT_MEMORY_LEAK, NULL), &h), -ENOENT);
	size_t n;
	const struct gmp_memtime *m = gmp_clock__memtime(c, &n);
	assert_int_equal(n, 1);
	assert_true(m[0].held == 4096.0 * 400 + 1024.0 * 200);
	assert_int_equal(m[0].unknown_waiting_objects, 1);
	assert_int_equal(m[0].untimed_objects, 0);
	gmp_clock__free(c);
	gmp_result__free(r);
	gmp_trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(figure2),
		cmocka_unit_test(completion_bounds),
		cmocka_unit_test(return_at_end),
		cmocka_unit_test(copy_itself),
		cmocka_unit_test(stream_ordered),
		cmocka_unit_test(never_used_leak),
		cmocka_unit_test(untimed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
