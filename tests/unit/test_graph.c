// SPDX-License-Identifier: MIT
/* Kahn's algorithm with levels: weights, cycles, the incremental builder. */
#include <errno.h>
#include <stdlib.h>

#include "graph.h"
#include "support.h"

static void levels_and_weights(void **state)
{
	(void)state;
	/* 0 -> 1 -> 3, 0 -> 2 -> 3, 2 -> 4; vertex 2 weighs 0 (a sync). */
	static const uint32_t e[][2] = { { 0, 1 }, { 1, 3 }, { 0, 2 }, { 2, 3 }, { 2, 4 } };
	struct gmp_csr g;
	assert_int_equal(gmp_csr__from_pairs(&g, 5, e, 5), 0);
	uint32_t level[5];
	uint8_t w[5] = { 1, 1, 0, 1, 1 };
	struct gmp_cycle c;
	assert_int_equal(gmp_graph__levels(&g, NULL, level, &c), 0);
	assert_int_equal(level[3], 2);
	assert_int_equal(level[4], 2);
	assert_int_equal(gmp_graph__levels(&g, w, level, &c), 0);
	assert_int_equal(level[2], 1);
	assert_int_equal(level[3], 2);
	assert_int_equal(level[4], 1); /* the sync adds no step */
	gmp_csr__release(&g);
}

static void cycle_is_named(void **state)
{
	(void)state;
	/* 4 -> 0 -> 1 -> 2 -> 0 (a cycle of three), 2 -> 3. */
	static const uint32_t e[][2] = { { 4, 0 }, { 0, 1 }, { 1, 2 }, { 2, 0 }, { 2, 3 } };
	struct gmp_csr g;
	assert_int_equal(gmp_csr__from_pairs(&g, 5, e, 5), 0);
	uint32_t level[5];
	struct gmp_cycle c;
	assert_int_equal(gmp_graph__levels(&g, NULL, level, &c), -ELOOP);
	assert_int_equal(c.len, 3);
	/* In edge order, starting anywhere on the cycle. */
	for (uint32_t i = 0; i < 3; i++) {
		uint32_t a = c.v[i], b = c.v[(i + 1) % 3];
		assert_true((a == 0 && b == 1) || (a == 1 && b == 2) || (a == 2 && b == 0));
	}
	gmp_csr__release(&g);
	/* A self-loop is a cycle of one. */
	static const uint32_t s[][2] = { { 1, 1 } };
	assert_int_equal(gmp_csr__from_pairs(&g, 2, s, 1), 0);
	assert_int_equal(gmp_graph__levels(&g, NULL, level, &c), -ELOOP);
	assert_int_equal(c.len, 1);
	assert_int_equal(c.v[0], 1);
	gmp_csr__release(&g);
}

static void long_chain_is_linear(void **state)
{
	(void)state;
	enum { N = 200000 };
	struct gmp_csr g = { 0 };
	for (uint32_t v = 0; v < N; v++) {
		assert_int_equal(gmp_csr__begin_vertex(&g, v), 0);
		if (v) {
			assert_int_equal(gmp_csr__add_src(&g, v - 1), 0);
			assert_int_equal(gmp_csr__add_src(&g, v - 1), 0); /* a duplicate is dropped */
		}
		if (v > 1)
			assert_int_equal(gmp_csr__add_src(&g, v - 2), 0);
	}
	assert_int_equal(gmp_csr__finish(&g, N), 0);
	assert_int_equal(g.nadj, 2 * (size_t)N - 3);
	uint32_t *level = malloc(N * sizeof(*level));
	struct gmp_cycle c;
	assert_int_equal(gmp_graph__levels(&g, NULL, level, &c), 0);
	assert_int_equal(level[N - 1], N - 1);
	free(level);
	gmp_csr__release(&g);
}

static void bad_edge(void **state)
{
	(void)state;
	static const uint32_t e[][2] = { { 0, 9 } };
	struct gmp_csr g;
	assert_int_equal(gmp_csr__from_pairs(&g, 2, e, 1), -EINVAL);
}

/*
 * On random traces the detector's levels, computed as vertices are added,
 * must equal those of the general Kahn's algorithm on the whole graph
 * (ts_detect checks with gmp_detect_opts.verify_order), and every edge
 * must point forward.
 */
static void streaming_levels_match_kahn(void **state)
{
	(void)state;
	uint64_t seed = 0x9e3779b97f4a7c15u;
	for (int round = 0; round < 200; round++) {
		struct gmp_trace *t = ts_random_trace_with(&seed, round % 2 ? 30 : 0);
		struct gmp_result *r = ts_detect(t, NULL);
		for (size_t v = 0; v < t->nev; v++)
			assert_true(r->level[v] <= r->max_level);
		gmp_result__free(r);
		gmp_trace__free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(levels_and_weights),
		cmocka_unit_test(cycle_is_named),
		cmocka_unit_test(long_chain_is_linear),
		cmocka_unit_test(bad_edge),
		cmocka_unit_test(streaming_levels_match_kahn),
	};
	return cmocka_run_group_tests_name("graph", tests, NULL, NULL);
}
