// SPDX-License-Identifier: MIT
/*
 * The reports' line on NVTX domains (detector/nvtx_domains.c), from the
 * META records the collector writes at exit: recorded and left-out
 * domains, counts in the singular and plural, the default domain left
 * out, many domains, and room for less than the whole line; and gmprof
 * diff's line on two runs that left out different domains.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "support.h"

#include "gmprof/trace.h"
#include "nvtx_domains.h"

/* Domain k's META as the collector writes it (left_out: whether the options left it out). */
static void domain(struct gmp_trace *t, size_t k, const char *name, const char *ranges, const char *marks, int left_out)
{
	char key[64];
	snprintf(key, sizeof(key), "nvtx.domain.%zu.name", k);
	assert_int_equal(gmp_trace__set_meta(t, key, name), 0);
	snprintf(key, sizeof(key), "nvtx.domain.%zu.ranges", k);
	assert_int_equal(gmp_trace__set_meta(t, key, ranges), 0);
	snprintf(key, sizeof(key), "nvtx.domain.%zu.marks", k);
	assert_int_equal(gmp_trace__set_meta(t, key, marks), 0);
	if (left_out) {
		snprintf(key, sizeof(key), "nvtx.domain.%zu.left_out", k);
		assert_int_equal(gmp_trace__set_meta(t, key, "1"), 0);
	}
}

static void says(const struct gmp_trace *t, size_t n, const char *want)
{
	char buf[1024];
	assert_true(n <= sizeof(buf));
	const char *got = gmp_nvtx_domains__note(t, buf, n);
	assert_ptr_equal(got, buf);
	if (strcmp(got, want))
		fail_msg("note: '%s', want '%s'", got, want);
}

static void none(void **state)
{
	(void)state;
	struct gmp_trace *t = gmp_trace__new();
	assert_non_null(t);
	says(t, 1024, ""); /* every range the default domain's, all recorded */
	gmp_trace__free(t);
}

static void recorded_and_left_out(void **state)
{
	(void)state;
	struct gmp_trace *t = gmp_trace__new();
	assert_non_null(t);
	domain(t, 0, "NCCL", "120", "0", 0);
	says(t, 1024, "NVTX domains besides the default: NCCL (120 ranges)");
	domain(t, 1, "noise", "1", "2", 1);
	says(t, 1024, "NVTX domains besides the default: NCCL (120 ranges); left out when recorded: noise (1 range, 2 marks)");
	domain(t, 2, "cuDNN", "0", "1", 0);
	says(t, 1024, "NVTX domains besides the default: NCCL (120 ranges), cuDNN (1 mark); "
		      "left out when recorded: noise (1 range, 2 marks)");
	assert_int_equal(gmp_trace__set_meta(t, "nvtx.default.left_out", "1"), 0);
	says(t, 1024, "NVTX domains besides the default: NCCL (120 ranges), cuDNN (1 mark); "
		      "left out when recorded: the default domain, noise (1 range, 2 marks)");
	gmp_trace__free(t);
}

static void default_only_left_out(void **state)
{
	(void)state;
	struct gmp_trace *t = gmp_trace__new();
	assert_non_null(t);
	assert_int_equal(gmp_trace__set_meta(t, "nvtx.default.left_out", "1"), 0);
	says(t, 1024, "left out when recorded: the default domain");
	gmp_trace__free(t);
}

/* Past 8 in a list, the others are counted; a gap in the numbering ends the list. */
static void many(void **state)
{
	(void)state;
	struct gmp_trace *t = gmp_trace__new();
	assert_non_null(t);
	char name[16];
	for (size_t k = 0; k < 11; k++) {
		snprintf(name, sizeof(name), "d%zu", k);
		domain(t, k, name, "1", "0", 0);
	}
	domain(t, 12, "after-a-gap", "1", "0", 0);
	says(t, 1024, "NVTX domains besides the default: d0 (1 range), d1 (1 range), d2 (1 range), d3 (1 range), "
		      "d4 (1 range), d5 (1 range), d6 (1 range), d7 (1 range) and 3 more");
	gmp_trace__free(t);
}

/* Less room than the line: cut, and still a string. */
static void cut(void **state)
{
	(void)state;
	struct gmp_trace *t = gmp_trace__new();
	assert_non_null(t);
	domain(t, 0, "NCCL", "120", "0", 0);
	says(t, 20, "NVTX domains beside");
	says(t, 1, "");
	gmp_trace__free(t);
}

/* Two runs that left out different domains: each named once, with the run that left it out. */
static void differ(void **state)
{
	(void)state;
	struct gmp_trace *a = gmp_trace__new(), *b = gmp_trace__new();
	assert_non_null(a);
	assert_non_null(b);
	char buf[1024];
	assert_string_equal(gmp_nvtx_domains__differ(a, b, buf, sizeof(buf)), "");
	domain(a, 0, "NCCL", "4", "0", 1);
	domain(b, 0, "NCCL", "4", "0", 1);
	assert_string_equal(gmp_nvtx_domains__differ(a, b, buf, sizeof(buf)), ""); /* both left it out */
	domain(a, 1, "noise", "1", "0", 1);
	domain(b, 1, "noise", "1", "0", 0);
	domain(b, 2, "cuDNN", "0", "3", 1);
	assert_int_equal(gmp_trace__set_meta(b, "nvtx.default.left_out", "1"), 0);
	assert_string_equal(gmp_nvtx_domains__differ(a, b, buf, sizeof(buf)),
			    "NVTX domains were left out of one run only: noise (before), the default domain (after), "
			    "cuDNN (after)");
	assert_string_equal(gmp_nvtx_domains__differ(b, a, buf, sizeof(buf)),
			    "NVTX domains were left out of one run only: the default domain (before), cuDNN (before), "
			    "noise (after)");
	assert_string_equal(gmp_nvtx_domains__differ(a, b, buf, 12), "NVTX domain");
	gmp_trace__free(a);
	gmp_trace__free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(none),
		cmocka_unit_test(recorded_and_left_out),
		cmocka_unit_test(default_only_left_out),
		cmocka_unit_test(many),
		cmocka_unit_test(cut),
		cmocka_unit_test(differ),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
