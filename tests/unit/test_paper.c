// SPDX-License-Identifier: MIT
/*
 * The paper's own examples as event scripts, with the findings the paper
 * reports: Figure 2, Figure 3, Figure 4 and SimpleMultiCopy (section 7.1).
 */
#include <stdlib.h>
#include <string.h>

#include "support.h"

static void figure2(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script_file("figure2.jsonl");
	struct gmp_result *r = ts_detect(t, NULL);
	/* B: early (T2 -> T7, four APIs between) and late (T9 -> T12, two between). */
	const struct gmp_finding *f = ts_one(r, GMP_PAT_EARLY_ALLOCATION, "B");
	assert_int_equal(f->apis_between, 4);
	assert_int_equal(f->distance, 5);
	assert_int_equal(r->level[f->ev_a], 2);
	assert_int_equal(r->level[f->ev_b], 7);
	f = ts_one(r, GMP_PAT_LATE_DEALLOCATION, "B");
	assert_int_equal(f->apis_between, 2);
	assert_int_equal(r->level[f->ev_a], 9);
	assert_int_equal(r->level[f->ev_b], 12);
	/* C: leak and idle. */
	ts_one(r, GMP_PAT_MEMORY_LEAK, "C");
	f = ts_one(r, GMP_PAT_TEMPORARY_IDLENESS, "C");
	assert_int_equal(r->level[f->ev_a], 1);
	assert_int_equal(r->level[f->ev_b], 8);
	/* Nothing else. */
	assert_int_equal(r->nfindings, 4);
	assert_int_equal(ts_count(r, GMP_PAT_EARLY_ALLOCATION, "A"), 0);
	/* The peak is B + C + A while A lives. */
	assert_int_equal(r->peak_bytes, (1 << 20) + 8192 + 4096);
	gmp_result__free(r);
	gmp_trace__free(t);
}

static void figure3(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script_file("figure3.jsonl");
	struct gmp_result *r = ts_detect(t, NULL);
	const struct gmp_finding *f = ts_one(r, GMP_PAT_REDUNDANT_ALLOCATION, "O4");
	assert_int_equal(f->other, ts_obj(r, "O1"));
	/* O3's first use shares a level with O1's last use: no reuse there. */
	assert_int_equal(ts_count(r, GMP_PAT_REDUNDANT_ALLOCATION, NULL), 1);
	/* Sharing O1's memory removes one MiB from the peak of four. */
	assert_int_equal(gmp_finding__peak_before(r, f), 4u << 20);
	assert_int_equal(f->saving, 1u << 20);
	gmp_result__free(r);
	gmp_trace__free(t);
}

static void figure4(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script_file("figure4.jsonl");
	struct gmp_result *r = ts_detect(t, NULL);
	const struct gmp_finding *f = ts_one(r, GMP_PAT_EARLY_ALLOCATION, "O1");
	assert_int_equal(r->level[f->ev_a], 0);
	assert_int_equal(r->level[f->ev_b], 3);
	assert_int_equal(f->distance, 3);
	assert_int_equal(t->ev[f->ev_b].op, GMP_OP_MEMCPY);
	assert_int_equal(t->ev[f->ev_b].stream, 2);
	assert_int_equal(r->nfindings, 1);
	gmp_result__free(r);
	gmp_trace__free(t);
}

/* The GPU APIs whose level lies strictly between those of a and b, in order. */
static size_t between(const struct gmp_result *r, uint32_t a, uint32_t b, uint32_t *out,
		      size_t max)
{
	size_t n = 0;
	for (size_t p = 0; p < r->trace->nev; p++) {
		uint32_t v = r->order[p];
		uint8_t op = r->trace->ev[v].op;
		if (op == GMP_OP_SYNC || op == GMP_OP_EVENT_RECORD || op == GMP_OP_EVENT_WAIT)
			continue;
		if (r->level[v] > r->level[a] && r->level[v] < r->level[b] && n < max)
			out[n++] = v;
	}
	return n;
}

static void expect_api(const struct gmp_result *r, uint32_t ev, const char *label)
{
	char buf[160];
	assert_string_equal(gmp_result__api_label(r, ev, buf, sizeof(buf)), label);
}

static void simple_multi_copy(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script_file("simple_multi_copy.jsonl");
	struct gmp_result *r = ts_detect(t, NULL);
	uint32_t v[16];

	/* d_data_out1: early by three APIs, ALLOC(0,3), SET(0,2) and ALLOC(0,4). */
	const struct gmp_finding *f = ts_one(r, GMP_PAT_EARLY_ALLOCATION, "d_data_out1");
	assert_int_equal(f->apis_between, 3);
	expect_api(r, f->ev_a, "ALLOC (stream 0, #2)");
	expect_api(r, f->ev_b, "KERNEL incKernel (stream 0, #1)");
	assert_int_equal(between(r, f->ev_a, f->ev_b, v, 16), 3);
	expect_api(r, v[0], "ALLOC (stream 0, #3)");
	expect_api(r, v[1], "MEMSET (stream 0, #2)");
	expect_api(r, v[2], "ALLOC (stream 0, #4)");
	char sugg[512];
	assert_string_equal(gmp_result__suggestion(r, f, sugg, sizeof(sugg)),
			    "allocate it just before KERNEL incKernel (stream 0, #1)");

	/* d_data_in1: idle over ALLOC(0,2), ALLOC(0,3), SET(0,2) and ALLOC(0,4). */
	f = ts_one(r, GMP_PAT_TEMPORARY_IDLENESS, "d_data_in1");
	expect_api(r, f->ev_a, "MEMSET (stream 0, #1)");
	assert_int_equal(between(r, f->ev_a, f->ev_b, v, 16), 4);
	expect_api(r, v[0], "ALLOC (stream 0, #2)");
	expect_api(r, v[3], "ALLOC (stream 0, #4)");

	/* d_data_in2 and d_data_out2: late deallocation. */
	ts_one(r, GMP_PAT_LATE_DEALLOCATION, "d_data_in2");
	ts_one(r, GMP_PAT_LATE_DEALLOCATION, "d_data_out2");

	/* Table 1: a dead write (the memset of d_data_in2, overwritten by an upload). */
	f = ts_one(r, GMP_PAT_DEAD_WRITE, "d_data_in2");
	expect_api(r, f->ev_a, "MEMSET (stream 0, #2)");
	assert_int_equal(t->ev[f->ev_b].op, GMP_OP_MEMCPY);
	assert_int_equal(f->bytes, 4u << 20);
	assert_int_equal(ts_count(r, GMP_PAT_DEAD_WRITE, NULL), 1);
	assert_int_equal(ts_count(r, GMP_PAT_MEMORY_LEAK, NULL), 0);
	assert_int_equal(r->peak_bytes, 16u << 20);
	gmp_result__free(r);
	gmp_trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(figure2),
		cmocka_unit_test(figure3),
		cmocka_unit_test(figure4),
		cmocka_unit_test(simple_multi_copy),
	};
	return cmocka_run_group_tests_name("paper", tests, NULL, NULL);
}
