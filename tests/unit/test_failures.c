// SPDX-License-Identifier: MIT
/*
 * Allocations that ran out of memory: what was live on their device when
 * they failed (in issue order; pool regions and device-heap objects live
 * inside other memory and do not count), and what each finding's fix frees
 * at that moment, the total counting each object once.
 */
#include <string.h>

#include "support.h"

/* Every kind of fix, a pool with a region, a device-heap object, a second device. */
static const char every_fix[] =
	"{\"op\":\"alloc\",\"addr\":\"0x10000\",\"size\":1000,\"label\":\"U\"}\n"
	"{\"op\":\"alloc\",\"addr\":\"0x20000\",\"size\":2000,\"label\":\"L\"}\n"
	"{\"op\":\"alloc\",\"addr\":\"0x30000\",\"size\":4000,\"label\":\"A\"}\n"
	"{\"op\":\"alloc\",\"addr\":\"0x40000\",\"size\":8000,\"label\":\"O\"}\n"
	"{\"op\":\"alloc\",\"addr\":\"0x100000\",\"size\":65536,\"label\":\"P\"}\n"
	"{\"op\":\"alloc\",\"addr\":\"0x100000\",\"size\":4096,\"kind\":\"pool_region\",\"label\":\"R\"}\n"
	"{\"op\":\"alloc\",\"addr\":\"0x900000\",\"size\":16000,\"label\":\"D1\",\"device\":1}\n"
	"{\"op\":\"kernel\",\"name\":\"k1\",\"touch\":[{\"addr\":\"0x20000\",\"size\":2000,\"rw\":\"w\"},{\"addr\":\"0x30000\",\"size\":4000,\"rw\":\"w\"},{\"addr\":\"0x100000\",\"size\":4096,\"rw\":\"w\"},{\"addr\":\"0x40000\",\"size\":1000,\"rw\":\"w\"}]}\n"
	"{\"op\":\"alloc\",\"addr\":\"0x500000\",\"size\":512,\"kind\":\"device_heap\"}\n"
	"{\"op\":\"alloc\",\"addr\":\"0x50000\",\"size\":3000,\"label\":\"B\"}\n"
	"{\"op\":\"kernel\",\"name\":\"k2\",\"touch\":[{\"addr\":\"0x50000\",\"size\":3000,\"rw\":\"w\"},{\"addr\":\"0x40000\",\"size\":1000,\"rw\":\"rw\"}]}\n"
	"{\"op\":\"alloc_failed\",\"size\":100000,\"at\":\"f0\"}\n"
	"{\"op\":\"alloc_failed\",\"size\":100,\"device\":1,\"at\":\"f1\"}\n"
	"{\"op\":\"kernel\",\"name\":\"k3\",\"touch\":[{\"addr\":\"0x50000\",\"size\":3000,\"rw\":\"r\"},{\"addr\":\"0x40000\",\"size\":1000,\"rw\":\"r\"},{\"addr\":\"0x100000\",\"size\":4096,\"rw\":\"r\"}]}\n"
	"{\"op\":\"kernel\",\"name\":\"k4\",\"device\":1,\"touch\":[{\"addr\":\"0x900000\",\"size\":16000,\"rw\":\"w\"}]}\n"
	"{\"op\":\"free\",\"addr\":\"0x50000\"}\n"
	"{\"op\":\"free\",\"addr\":\"0x30000\"}\n"
	"{\"op\":\"free\",\"addr\":\"0x40000\"}\n"
	"{\"op\":\"free\",\"addr\":\"0x100000\"}\n"
	"{\"op\":\"free\",\"addr\":\"0x100000\"}\n"
	"{\"op\":\"free\",\"addr\":\"0x10000\"}\n"
	"{\"op\":\"free\",\"addr\":\"0x900000\",\"device\":1}\n";

static const struct gmp_failure_fix *fix_of(const struct gmp_result *r, const struct gmp_failure *g,
					    unsigned pattern, const char *name)
{
	uint32_t obj = ts_obj(r, name);
	for (uint32_t k = 0; k < g->fix_n; k++) {
		const struct gmp_failure_fix *x = &r->fail_fixes[g->fix_off + k];
		if (r->findings[x->finding].pattern == pattern && r->findings[x->finding].object == obj)
			return x;
	}
	fail_msg("no %s fix of %s at the failure", gmp_pattern__name(pattern), name);
	return NULL;
}

static void every_kind_of_fix(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script(every_fix);
	struct gmp_result *r = ts_detect(t, NULL);
	assert_int_equal(t->nfails, 2);
	assert_int_equal(r->nfailures, 2);
	const struct gmp_failure *g = &r->failures[0];
	assert_int_equal(g->device, 0);
	/* U, L, A, O, the pool P and B; not the region R, the heap object, nor D1. */
	assert_int_equal(g->live_objects, 6);
	assert_int_equal(g->live_bytes, 1000 + 2000 + 4000 + 8000 + 65536 + 3000);
	assert_int_equal(g->obj_n, 6);
	assert_int_equal(r->fail_objs[g->obj_off], ts_obj(r, "P")); /* largest first */
	assert_int_equal(r->fail_objs[g->obj_off + 5], ts_obj(r, "U"));
	assert_int_equal(fix_of(r, g, GMP_PAT_UNUSED_ALLOCATION, "U")->bytes, 1000);
	assert_int_equal(fix_of(r, g, GMP_PAT_MEMORY_LEAK, "L")->bytes, 2000);
	assert_int_equal(fix_of(r, g, GMP_PAT_LATE_DEALLOCATION, "A")->bytes, 4000);
	assert_int_equal(fix_of(r, g, GMP_PAT_OVERALLOCATION, "O")->bytes, 7000);
	assert_int_equal(fix_of(r, g, GMP_PAT_TEMPORARY_IDLENESS, "P")->bytes, 65536);
	assert_int_equal(fix_of(r, g, GMP_PAT_OVERALLOCATION, "P")->bytes, 61440);
	/* P counts once, by its largest fix; the region's findings free nothing on the device. */
	assert_int_equal(g->freeable, 65536 + 7000 + 4000 + 2000 + 1000);
	assert_int_equal(g->fix_n, 6);
	for (uint32_t k = 1; k < g->fix_n; k++)
		assert_true(r->fail_fixes[g->fix_off + k - 1].bytes >= r->fail_fixes[g->fix_off + k].bytes);
	/* Early allocations whose first use came before the failure free nothing then. */
	for (uint32_t k = 0; k < g->fix_n; k++)
		assert_int_not_equal(r->findings[r->fail_fixes[g->fix_off + k].finding].pattern,
				     GMP_PAT_EARLY_ALLOCATION);
	/* On device 1: its own object only, and no fix. */
	g = &r->failures[1];
	assert_int_equal(g->device, 1);
	assert_int_equal(g->live_objects, 1);
	assert_int_equal(g->live_bytes, 16000);
	assert_int_equal(g->fix_n, 0);
	assert_int_equal(g->freeable, 0);
	gmp_result__free(r);
	gmp_trace__free(t);
}

/* The paper's Figure 3 with a failure just before A5: O1 lives on, O4 can reuse it. */
static struct gmp_trace *figure3_failing(void)
{
	struct gmp_trace *t = ts_script_file("figure3.jsonl");
	struct gmp_alloc_failure f = { .before = 6, .size = 5u << 20, .stream = 1 };
	assert_int_equal(t->ev[6].op, GMP_OP_KERNEL); /* A5 */
	assert_int_equal(gmp_trace__add_failure(t, &f), 0);
	return t;
}

static void redundant_pairs(void **state)
{
	(void)state;
	struct gmp_trace *t = figure3_failing();
	struct gmp_result *r = ts_detect(t, NULL);
	const struct gmp_failure *g = &r->failures[0];
	/* O4 is freed by its early allocation's fix: sharing O1 adds nothing more. */
	assert_int_equal(fix_of(r, g, GMP_PAT_REDUNDANT_ALLOCATION, "O4")->bytes, 1u << 20);
	assert_int_equal(fix_of(r, g, GMP_PAT_EARLY_ALLOCATION, "O4")->bytes, 1u << 20);
	assert_int_equal(fix_of(r, g, GMP_PAT_EARLY_ALLOCATION, "O3")->bytes, 1u << 20);
	assert_int_equal(fix_of(r, g, GMP_PAT_TEMPORARY_IDLENESS, "O2")->bytes, 1u << 20);
	assert_int_equal(g->live_bytes, 4u << 20);
	assert_int_equal(g->freeable, 3u << 20);
	gmp_result__free(r);
	/* Without early allocations, sharing one buffer frees O4's. */
	struct gmp_detect_opts o;
	gmp_detect_opts__defaults(&o);
	o.patterns &= ~(1u << GMP_PAT_EARLY_ALLOCATION);
	r = ts_detect(t, &o);
	g = &r->failures[0];
	assert_int_equal(g->freeable, 2u << 20); /* O2 idle, O4 in O1's memory */
	gmp_result__free(r);
	gmp_trace__free(t);
}

/* Only the first GMP_FAILURES_ANALYZED are analyzed; the trace keeps them all. */
static void many_failures(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script("{\"op\":\"alloc\",\"addr\":4096,\"size\":64}\n");
	struct gmp_alloc_failure f = { .before = 1, .size = 1 << 30 };
	for (unsigned i = 0; i < GMP_FAILURES_ANALYZED + 5; i++)
		assert_int_equal(gmp_trace__add_failure(t, &f), 0);
	struct gmp_result *r = ts_detect(t, NULL);
	assert_int_equal(t->nfails, GMP_FAILURES_ANALYZED + 5);
	assert_int_equal(r->nfailures, GMP_FAILURES_ANALYZED);
	for (size_t i = 0; i < r->nfailures; i++) {
		assert_int_equal(r->failures[i].fail, i);
		assert_int_equal(r->failures[i].live_bytes, 64);
		assert_int_equal(r->failures[i].freeable, 64); /* never used: removing it frees it */
	}
	gmp_result__free(r);
	gmp_trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_kind_of_fix),
		cmocka_unit_test(redundant_pairs),
		cmocka_unit_test(many_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
