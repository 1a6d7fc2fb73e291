// SPDX-License-Identifier: MIT
/*
 * Memory by NVTX range (detector/rangemem.c, analyzer/rangemem_out.c):
 * each range's peak, calls, bytes allocated inside and bytes that outlived
 * it, per device; on the training-step script (every number worked out by
 * hand) and on pools with regions (random traces: test_rangemem_random.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "check.h"
#include "namediff.h"
#include "rangemem.h"

#define MIB (1024ull * 1024)

/* The node whose path is text ("a > b"), or fails. */
static uint32_t node_of(const struct gmp_rmem *m, const struct gmp_result *r, const char *text)
{
	char buf[512];
	for (uint32_t k = 0; k < m->n; k++)
		if (!strcmp(gmp_rmem__path(m, r, k, buf, sizeof(buf)), text))
			return k;
	fail_msg("no range '%s'", text);
	return 0;
}

static void expect(const struct gmp_rmem *m, const struct gmp_result *r, const char *path, uint64_t calls,
		   uint64_t peak, uint64_t alloc, uint64_t nalloc, uint64_t outlive, uint64_t noutlive)
{
	const struct gmp_rmem_dev *x = gmp_rmem__at(m, node_of(m, r, path), 0);
	if (x->calls != calls || x->peak != peak || x->alloc_bytes != alloc || x->alloc_objects != nalloc ||
	    x->outlive_bytes != outlive || x->outlive_objects != noutlive)
		fail_msg("%s: %llu calls, peak %llu, %llu B in %llu allocated, %llu B in %llu outlived", path,
			 (unsigned long long)x->calls, (unsigned long long)x->peak, (unsigned long long)x->alloc_bytes,
			 (unsigned long long)x->alloc_objects, (unsigned long long)x->outlive_bytes,
			 (unsigned long long)x->outlive_objects);
}

static void training_step(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script_file("nvtx_ranges.jsonl");
	struct gmp_result *r = ts_detect(t, NULL);
	struct gmp_rmem m;
	assert_int_equal(gmp_rmem__build(r, &m), 0);
	assert_int_equal(m.ndev, 1);
	/* setup: weights, adam_m, adam_v (768 MiB), all freed after the step, outside every range. */
	expect(&m, r, "setup", 4, 768 * MIB, 768 * MIB, 3, 768 * MIB, 3);
	/* forward: act1 and act2 on top of setup's (1 GiB); both freed in backward. */
	expect(&m, r, "step > forward", 4, 1024 * MIB, 256 * MIB, 2, 256 * MIB, 2);
	/* backward: grads makes the peak (1.25 GiB); it is freed in optimizer: outlives backward only. */
	expect(&m, r, "step > backward", 5, 1280 * MIB, 256 * MIB, 1, 256 * MIB, 1);
	expect(&m, r, "step > optimizer", 2, 1024 * MIB, 0, 0, 0, 0);
	expect(&m, r, "step", 11, 1280 * MIB, 512 * MIB, 3, 0, 0);
	/* Each range entered once. */
	for (uint32_t k = 0; k < m.n; k++)
		assert_int_equal(gmp_rmem__at(&m, k, 0)->times, 1);
	/* The peak is reached at grads' allocation, the first call in backward to reach it. */
	const struct gmp_rmem_dev *bw = gmp_rmem__at(&m, node_of(&m, r, "step > backward"), 0);
	assert_int_equal(bw->peak_ev, gmp_result__top_peak(r, 0)->ev);
	/* Tree order: setup, step, then step's ranges in the order they began. */
	static const char *const order[] = { "setup", "step", "step > forward", "step > backward",
					     "step > optimizer" };
	assert_int_equal(m.ntree, 5);
	char buf[256];
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(gmp_rmem__path(&m, r, m.tree[i], buf, sizeof(buf)), order[i]);
	gmp_rmem__release(&m);
	gmp_result__free(r);
	gmp_trace__free(t);
}

/* The text report's section, at most max ranges a device (malloc'd). */
static char *text_of(const struct gmp_result *r, size_t max)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	assert_non_null(fp);
	assert_int_equal(gmp_rmem__text(fp, r, NULL, max), 0);
	fclose(fp);
	return text;
}

static void expect_times(const struct gmp_rmem *m, const struct gmp_result *r, const char *path, uint64_t times,
			 uint64_t peak_min, uint64_t entry_first, uint64_t entry_last)
{
	const struct gmp_rmem_dev *x = gmp_rmem__at(m, node_of(m, r, path), 0);
	if (x->times != times || x->time_peak_min != peak_min || x->entry_first != entry_first ||
	    x->entry_last != entry_last)
		fail_msg("%s: %llu times, the least peak %llu, %llu live as the first began, %llu as the last", path,
			 (unsigned long long)x->times, (unsigned long long)x->time_peak_min,
			 (unsigned long long)x->entry_first, (unsigned long long)x->entry_last);
}

/*
 * A range entered again: two steps, the first with two forward passes (a
 * pop and a push of the same name between two calls), and a second thread
 * whose step holds a buffer into the next one's: each time counts.
 */
static void times(void **state)
{
	(void)state;
	static const char body[] =
		"{\"op\":\"alloc\",\"addr\":\"0x1000000\",\"size\":1048576}\n"
		"{\"op\":\"range_push\",\"name\":\"step\"}\n"
		"{\"op\":\"range_push\",\"name\":\"fwd\"}\n"
		"{\"op\":\"alloc\",\"addr\":\"0x2000000\",\"size\":2097152}\n"
		"{\"op\":\"range_pop\"}\n"
		"{\"op\":\"range_push\",\"name\":\"fwd\"}\n"
		"{\"op\":\"alloc\",\"addr\":\"0x3000000\",\"size\":2097152}\n"
		"{\"op\":\"free\",\"addr\":\"0x2000000\"}\n"
		"{\"op\":\"range_pop\"}\n"
		"{\"op\":\"free\",\"addr\":\"0x3000000\"}\n"
		"{\"op\":\"range_pop\"}\n"
		"{\"op\":\"range_push\",\"name\":\"step\",\"thread\":2}\n"
		"{\"op\":\"alloc\",\"addr\":\"0x4000000\",\"size\":4194304,\"thread\":2}\n"
		"{\"op\":\"range_pop\",\"thread\":2}\n"
		"{\"op\":\"range_push\",\"name\":\"step\"}\n"
		"{\"op\":\"range_push\",\"name\":\"fwd\"}\n"
		"{\"op\":\"alloc\",\"addr\":\"0x5000000\",\"size\":2097152}\n"
		"{\"op\":\"free\",\"addr\":\"0x5000000\"}\n"
		"{\"op\":\"range_pop\"}\n"
		"{\"op\":\"range_pop\"}\n"
		"{\"op\":\"free\",\"addr\":\"0x4000000\"}\n"
		"{\"op\":\"free\",\"addr\":\"0x1000000\"}\n";
	struct gmp_trace *t = ts_script(body);
	struct gmp_result *r = ts_detect(t, NULL);
	struct gmp_rmem m;
	assert_int_equal(gmp_rmem__build(r, &m), 0);
	/*
	 * step: thread 1's first (peak 5 MiB: weights and both buffers; began
	 * with 1 MiB live), thread 2's (5 MiB; 1 MiB), thread 1's second (7 MiB:
	 * thread 2's 4 MiB still live; began with 5 MiB).
	 */
	expect_times(&m, r, "step", 3, 5 * MIB, 1 * MIB, 5 * MIB);
	/* fwd: 3 MiB, then 5 MiB in the first step; 7 MiB in the second. */
	expect_times(&m, r, "step > fwd", 3, 3 * MIB, 1 * MIB, 5 * MIB);
	expect(&m, r, "step", 7, 7 * MIB, 10 * MIB, 4, 4 * MIB, 1);
	char *text = text_of(r, 16);
	assert_non_null(strstr(text, "\n  step: live bytes as it began grew from 1.0 MiB (the first of its 3 times) to 5.0 MiB "
				     "(the last), 2.0 MiB more each time\n"));
	free(text);
	/* A table of one range (step): fwd's row left out, not its growth, which comes after step's (a tie, by first call). */
	text = text_of(r, 1);
	assert_null(strstr(text, "\n    fwd "));
	const char *st = strstr(text, "\n  step: live bytes as it began grew");
	const char *fw = strstr(text, "\n  step > fwd: live bytes as it began grew from 1.0 MiB (the first of its 3 times) to 5.0 MiB "
				      "(the last), 2.0 MiB more each time\n");
	assert_non_null(st);
	assert_non_null(fw);
	assert_true(st < fw);
	free(text);
	gmp_rmem__release(&m);
	gmp_result__free(r);
	gmp_trace__free(t);
}

/* Nine ranges that grew: the eight that grew most have their lines, the ninth is counted. */
static void many_grew(void **state)
{
	(void)state;
	char *body = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&body, &len);
	assert_non_null(fp);
	for (int k = 0; k < 9; k++) /* r<k>'s second time begins with (k + 1) * 4 KiB more live than its first */
		for (int t = 0; t < 2; t++) {
			fprintf(fp, "{\"op\":\"range_push\",\"name\":\"r%d\"}\n", k);
			for (int j = 0; j <= k; j++)
				fprintf(fp, "{\"op\":\"alloc\",\"addr\":%d,\"size\":4096}\n", (k * 64 + t * 16 + j + 1) * 65536);
			fprintf(fp, "{\"op\":\"range_pop\"}\n");
		}
	fclose(fp);
	struct gmp_trace *t = ts_script(body);
	struct gmp_result *r = ts_detect(t, NULL);
	char *text = text_of(r, 16);
	for (int k = 1; k < 9; k++) {
		char line[128];
		snprintf(line, sizeof(line), "\n  r%d: live bytes as it began grew", k);
		assert_non_null(strstr(text, line));
	}
	assert_null(strstr(text, "\n  r0: live bytes"));
	const char *r8 = strstr(text, "\n  r8: "), *r1 = strstr(text, "\n  r1: ");
	assert_true(r8 && r1 && r8 < r1); /* the most first */
	assert_non_null(strstr(text, "\n  ... and 1 more range grew (--format json lists every one)\n"));
	free(text);
	free(body);
	gmp_result__free(r);
	gmp_trace__free(t);
}

/* A trace without ranges has no nodes, and the text report says nothing of them. */
static void no_ranges(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script_file("figure2.jsonl");
	struct gmp_result *r = ts_detect(t, NULL);
	struct gmp_rmem m;
	assert_int_equal(gmp_rmem__build(r, &m), 0);
	assert_int_equal(m.n, 0);
	assert_int_equal(m.ntree, 0);
	gmp_rmem__release(&m);
	char *text = text_of(r, 16);
	assert_int_equal(strlen(text), 0);
	free(text);
	gmp_result__free(r);
	gmp_trace__free(t);
}

/* Pools with regions: the peak counts the pool, "in use" its regions; regions are not allocations. */
static void pool_regions(void **state)
{
	(void)state;
	static const char body[] =
		"{\"op\":\"range_push\",\"name\":\"init\"}\n"
		"{\"op\":\"alloc\",\"addr\":\"0x100000\",\"size\":1048576,\"label\":\"pool\"}\n"
		"{\"op\":\"range_pop\"}\n"
		"{\"op\":\"range_push\",\"name\":\"run\"}\n"
		"{\"op\":\"alloc\",\"addr\":\"0x100000\",\"size\":65536,\"kind\":\"pool_region\",\"label\":\"x\"}\n"
		"{\"op\":\"alloc\",\"addr\":\"0x110000\",\"size\":4096,\"kind\":\"pool_region\",\"label\":\"y\"}\n"
		"{\"op\":\"kernel\",\"name\":\"k\",\"write\":[\"0x100000\",\"0x110000\"]}\n"
		"{\"op\":\"free\",\"addr\":\"0x110000\"}\n"
		"{\"op\":\"alloc\",\"addr\":\"0x300000\",\"size\":512}\n"
		"{\"op\":\"kernel\",\"name\":\"k2\",\"read\":[\"0x100000\"],\"write\":[\"0x300000\"]}\n"
		"{\"op\":\"free\",\"addr\":\"0x300000\"}\n"
		"{\"op\":\"free\",\"addr\":\"0x100000\"}\n"
		"{\"op\":\"range_pop\"}\n"
		"{\"op\":\"free\",\"addr\":\"0x100000\"}\n";
	struct gmp_trace *t = ts_script(body);
	struct gmp_result *r = ts_detect(t, NULL);
	assert_true(r->devices[0].inuse_peak_bytes > 0);
	struct gmp_rmem m;
	assert_int_equal(gmp_rmem__build(r, &m), 0);
	/* run: the pool (1 MiB) and the 512 B buffer at most; in use: x and y (68 KiB), then x and 512 B. */
	expect(&m, r, "run", 8, 1048576 + 512, 512, 1, 0, 0);
	assert_int_equal(gmp_rmem__at(&m, node_of(&m, r, "run"), 0)->inuse_peak, 65536 + 4096);
	/* init: the pool, freed outside it. */
	expect(&m, r, "init", 1, 1048576, 1048576, 1, 1048576, 1);
	assert_int_equal(gmp_rmem__at(&m, node_of(&m, r, "init"), 0)->inuse_peak, 0);
	gmp_rmem__release(&m);
	gmp_result__free(r);
	gmp_trace__free(t);
}

/* The text section on the script: its rows in tree order, the peak's ranges marked. */
static void text_section(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script_file("nvtx_ranges.jsonl");
	struct gmp_result *r = ts_detect(t, NULL);
	char *text = text_of(r, 2);
	/* At most 2 ranked by peak (step, backward) and the ranges around them: step's own row. */
	assert_non_null(strstr(text, "Memory by NVTX range on device 0"));
	assert_non_null(strstr(text, "\n  step                                  1.2 GiB#       11      1  512.0 MiB in 3     -\n"));
	assert_non_null(strstr(text, "\n    backward                            1.2 GiB#        5      1  256.0 MiB in 1     "
				     "256.0 MiB in 1\n"));
	assert_null(strstr(text, "forward"));
	assert_null(strstr(text, "setup"));
	assert_non_null(strstr(text, "... and 3 more ranges"));
	free(text);
	gmp_result__free(r);
	gmp_trace__free(t);
}

/* gmprof diff by range: ranges matched by path, those of one run alone, the unchanged left out on request. */
static void deltas(void **state)
{
	(void)state;
#define PUSH(n) "{\"op\":\"range_push\",\"name\":\"" n "\"}\n"
#define POP "{\"op\":\"range_pop\"}\n"
#define ALLOC(a, n) "{\"op\":\"alloc\",\"addr\":" #a ",\"size\":" #n "}\n"
#define KERNEL(a) "{\"op\":\"kernel\",\"name\":\"k\",\"write\":[" #a "]}\n"
#define FREE(a) "{\"op\":\"free\",\"addr\":" #a "}\n"
	static const char before[] = PUSH("setup") ALLOC(65536, 1024) KERNEL(65536) POP PUSH("step") PUSH("fwd")
		ALLOC(131072, 1024) KERNEL(131072) FREE(131072) POP PUSH("bwd") KERNEL(65536) POP POP FREE(65536);
	static const char after[] = PUSH("setup") ALLOC(65536, 1024) KERNEL(65536) POP PUSH("step") PUSH("fwd")
		ALLOC(131072, 4096) KERNEL(131072) POP PUSH("extra") KERNEL(65536) POP POP FREE(131072) FREE(65536);
	struct gmp_trace *ta = ts_script(before), *tb = ts_script(after);
	struct gmp_result *a = ts_detect(ta, NULL), *b = ts_detect(tb, NULL);
	struct gmp_ndiff d;
	assert_int_equal(gmp_rmem__deltas(a, b, 0, 1, &d), 0);
	/* fwd's and step's peaks grew by 3 KiB and what outlived fwd by 4 KiB; extra is new, bwd gone. */
	static const struct { const char *path; int has0, has1; uint64_t p0, p1, o0, o1; } want[] = {
		{ "step > fwd", 1, 1, 2048, 5120, 0, 4096 },
		{ "step > extra", 0, 1, 0, 5120, 0, 0 },
		{ "step", 1, 1, 2048, 5120, 0, 4096 },
		{ "step > bwd", 1, 0, 1024, 0, 0, 0 },
	};
	/* A row's numbers in run k: its peak (0), what outlived it (1). */
	assert_int_equal(d.n, 4);
	for (size_t i = 0; i < d.n; i++) {
		const struct gmp_ndiff_row *e = NULL;
		for (size_t j = 0; j < d.n && !e; j++)
			if (!strcmp(d.v[j].name, want[i].path))
				e = &d.v[j];
		assert_non_null(e);
		if (e->has[0] != want[i].has0 || e->has[1] != want[i].has1 || e->v[0][0] != want[i].p0 ||
		    e->v[1][0] != want[i].p1 || e->v[0][1] != want[i].o0 || e->v[1][1] != want[i].o1)
			fail_msg("%s: has %d %d, peak %llu -> %llu, outlived %llu -> %llu", e->name, e->has[0], e->has[1],
				 (unsigned long long)e->v[0][0], (unsigned long long)e->v[1][0],
				 (unsigned long long)e->v[0][1], (unsigned long long)e->v[1][1]);
	}
	/* The largest change first: 5 KiB (extra's peak), 4 KiB (fwd, step: by path), 1 KiB (bwd). */
	assert_string_equal(d.v[0].name, "step > extra");
	assert_string_equal(d.v[1].name, "step");
	assert_string_equal(d.v[2].name, "step > fwd");
	assert_string_equal(d.v[3].name, "step > bwd");
	gmp_ndiff__release(&d);
	assert_int_equal(gmp_rmem__deltas(a, b, 0, 0, &d), 0);
	assert_int_equal(d.n, 5); /* and setup, the same in both */
	assert_string_equal(d.v[4].name, "setup");
	assert_true(d.v[4].has[0] && d.v[4].has[1]);
	gmp_ndiff__release(&d);
	/* The other way round: the same ranges, before and after swapped. */
	assert_int_equal(gmp_rmem__deltas(b, a, 0, 1, &d), 0);
	assert_int_equal(d.n, 4);
	assert_string_equal(d.v[3].name, "step > bwd");
	assert_true(!d.v[3].has[0] && d.v[3].has[1] && d.v[3].v[1][0] == 1024);
	gmp_ndiff__release(&d);
	/* A device neither run has: nothing. */
	assert_int_equal(gmp_rmem__deltas(a, b, 7, 0, &d), 0);
	assert_int_equal(d.n, 0);
	assert_null(d.v);
	gmp_result__free(a);
	gmp_result__free(b);
	gmp_trace__free(ta);
	gmp_trace__free(tb);
}

/* --max-range-peak: parsing, and the budgets on each range of each device, the largest excess first. */
static void budgets(void **state)
{
	(void)state;
	struct gmp_range_budget b[3];
	assert_int_equal(gmp_range_budget__parse("a > b=c=2KiB", 0, &b[0]), 0); /* the last '=' splits */
	assert_string_equal(b[0].glob, "a > b=c");
	assert_int_equal(b[0].bytes, 2048);
	assert_int_equal(gmp_range_budget__parse("x=25%", 0, &b[0]), 0);
	assert_true(b[0].pct == 25.0);
	static const char *const bad[] = { "x", "=1", "x=", "x=many", "x=150%" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (gmp_range_budget__parse(bad[i], 0, &b[0]) != -EINVAL)
			fail_msg("'%s' parsed", bad[i]);
	char longglob[300];
	memset(longglob, 'g', 290);
	snprintf(longglob + 290, 10, "=1");
	assert_int_equal(gmp_range_budget__parse(longglob, 0, &b[0]), -EINVAL);
	/* Two devices: "step" has calls on both; device 1 holds 8 KiB inside it, device 0 at most 5 KiB. */
	static const char body[] =
		"{\"op\":\"alloc\",\"addr\":65536,\"size\":1024}\n"
		"{\"op\":\"range_push\",\"name\":\"step\"}\n"
		"{\"op\":\"alloc\",\"addr\":131072,\"size\":4096}\n"
		"{\"op\":\"alloc\",\"addr\":196608,\"size\":8192,\"device\":1}\n"
		"{\"op\":\"kernel\",\"name\":\"k\",\"write\":[131072,65536]}\n"
		"{\"op\":\"kernel\",\"name\":\"k1\",\"write\":[196608],\"device\":1}\n"
		"{\"op\":\"range_push\",\"name\":\"inner\"}\n"
		"{\"op\":\"free\",\"addr\":131072}\n"
		"{\"op\":\"range_pop\"}\n"
		"{\"op\":\"free\",\"addr\":196608,\"device\":1}\n"
		"{\"op\":\"range_pop\"}\n"
		"{\"op\":\"free\",\"addr\":65536}\n";
	struct gmp_trace *t = ts_script(body);
	struct gmp_result *r = ts_detect(t, NULL);
	assert_int_equal(gmp_range_budget__parse("step=4KiB", 0, &b[0]), 0);
	assert_int_equal(gmp_range_budget__parse("*=6KiB", 0, &b[1]), 0);
	assert_int_equal(gmp_range_budget__parse("nothing=1", 0, &b[2]), 0);
	struct gmp_range_eval ev;
	assert_int_equal(gmp_range_budget__eval(r, b, 3, &ev), 0);
	/* step: device 0 5 KiB > 4 KiB, device 1 8 KiB > 4 KiB and > 6 KiB; step > inner: 1 KiB on device 0. */
	assert_int_equal(ev.matched[0], 2);
	assert_int_equal(ev.matched[1], 3);
	assert_int_equal(ev.matched[2], 0);
	assert_int_equal(ev.largest[0], 8192);
	assert_int_equal(ev.largest[1], 8192);
	assert_int_equal(ev.nover, 3);
	static const struct { uint32_t device; uint64_t peak, budget; size_t rule; } want[] = {
		{ 1, 8192, 4096, 0 }, { 1, 8192, 6144, 1 }, { 0, 5120, 4096, 0 },
	};
	for (size_t i = 0; i < 3; i++) {
		const struct gmp_range_over *o = &ev.over[i];
		if (strcmp(o->path, "step") || o->device != want[i].device || o->peak != want[i].peak ||
		    o->budget != want[i].budget || o->rule != want[i].rule)
			fail_msg("over %zu: %s on %u, %llu > %llu (rule %zu)", i, o->path, o->device,
				 (unsigned long long)o->peak, (unsigned long long)o->budget, o->rule);
		assert_int_equal(t->ev[o->peak_ev].op, GMP_OP_ALLOC);
	}
	gmp_range_eval__release(&ev);
	gmp_result__free(r);
	gmp_trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(training_step),
		cmocka_unit_test(times),
		cmocka_unit_test(many_grew),
		cmocka_unit_test(no_ranges),
		cmocka_unit_test(pool_regions),
		cmocka_unit_test(text_section),
		cmocka_unit_test(deltas),
		cmocka_unit_test(budgets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
