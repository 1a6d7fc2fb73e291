// SPDX-License-Identifier: MIT
/*
 * The collector's record of its own time (META collector_time,
 * format/selftime.c): what is written reads back as it was (in whole
 * microseconds), parts a reader does not know are skipped, and malformed
 * values are refused rather than read as zeros.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "selftime.h"
#include "support.h"

static void round_trip(void **state)
{
	(void)state;
	uint64_t seed = 0x5e1f71e;
	for (int round = 0; round < 2000; round++) {
		struct gmp_selftime st = { .seen = 0 }, back;
		for (int i = 0; i < GMP_ST_N; i++) {
			/* Up to about 10^18 ns: the largest values of the META's width. */
			st.ns[i] = ts_rnd(&seed) % (round & 1 ? 1000000000000000000ull : 100000000ull);
			st.n[i] = ts_rnd(&seed) % (round & 2 ? UINT64_MAX : 1000u);
		}
		char buf[512];
		assert_int_equal(gmp_selftime__format(&st, buf, sizeof(buf)), 0);
		assert_int_equal(gmp_selftime__parse(buf, &back), 0);
		assert_int_equal(back.seen, (1u << GMP_ST_N) - 1);
		for (int i = 0; i < GMP_ST_N; i++) {
			if (back.ns[i] != st.ns[i] / 1000 * 1000 || back.n[i] != st.n[i])
				fail_msg("round %d, part %s: %s", round, gmp_selftime__names[i], buf);
		}
	}
}

static void names_and_order(void **state)
{
	(void)state;
	struct gmp_selftime st = { .ns = { [GMP_ST_WALL] = 412003999, [GMP_ST_WAIT] = 15000000 },
				   .n = { [GMP_ST_WALL] = 1, [GMP_ST_WAIT] = 20 } };
	char buf[512];
	assert_int_equal(gmp_selftime__format(&st, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "wall=412003/1 start=0/0 callbacks=0/0 exit=0/0 lock=0/0 patch=0/0 "
				 "calls=0/0 wait=15000/20 stack=0/0");
	/* Too small a buffer: an error and an empty string, never a cut value. */
	char small[40];
	assert_int_equal(gmp_selftime__format(&st, small, sizeof(small)), -ENOSPC);
	assert_string_equal(small, "");
}

static void unknown_parts_skipped(void **state)
{
	(void)state;
	struct gmp_selftime st;
	assert_int_equal(gmp_selftime__parse("wall=5/1 gpu_copies=9/3  wait=2/4", &st), 0);
	assert_int_equal(st.seen, (1u << GMP_ST_WALL) | (1u << GMP_ST_WAIT));
	assert_int_equal(st.ns[GMP_ST_WALL], 5000);
	assert_int_equal(st.n[GMP_ST_WAIT], 4);
	assert_int_equal(gmp_selftime__parse("", &st), 0);
	assert_int_equal(st.seen, 0);
}

static void malformed_refused(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"wall",              /* no value */
		"wall=",             /* no number */
		"wall=5",            /* no count */
		"wall=5/",           /* no count */
		"wall=5/1x",         /* trailing garbage */
		"=5/1",              /* no name */
		"wall=-5/1",         /* not a number */
		"wall=5/1 wall=6/1", /* a part twice */
		"wall=5/18446744073709551616",           /* 2^64 */
		"wall=18446744073709552/1",              /* microseconds past 2^64 ns */
		"wall=5/1 wait 3/1",                     /* a name without '=' before the next space */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct gmp_selftime st;
		if (gmp_selftime__parse(bad[i], &st) != -EINVAL)
			fail_msg("'%s' was read", bad[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(names_and_order),
		cmocka_unit_test(unknown_parts_skipped),
		cmocka_unit_test(malformed_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
