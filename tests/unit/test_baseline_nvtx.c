// SPDX-License-Identifier: MIT
/*
 * What a baseline records of its run's NVTX names (analyzer/baseline_nvtx.c):
 * how they were folded (version 8, which a check must fold alike) and which
 * NVTX domains the collector left out (version 9, which a check whose run
 * left out others names).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "baseline.h"
#include "baseline_cases.h"
#include "support.h"

#include "gmprof/trace.h"

static void version8_names(void **state)
{
	(void)state;
	static const char v8[] =
		"{\"gmprof_baseline\":8,\"peak_bytes\":1000,\"leaked_bytes\":0,"
		"\"nvtx_names\":{\"numbers\":true,\"strip\":\"^ep\"},\"peaks\":["
		"{\"input\":\"a.gmprof\",\"device\":0,\"peak_bytes\":1000,\"peak_sites\":[],\"mark_peaks\":["
		"{\"mark\":\"och N\",\"max_bytes\":900,\"times\":5,\"grew_bytes\":100}]}],\"findings\":[]}";
	static const char v7[] =
		"{\"gmprof_baseline\":7,\"peak_bytes\":1000,\"leaked_bytes\":0,\"peaks\":["
		"{\"input\":\"a.gmprof\",\"device\":0,\"peak_bytes\":1000,\"peak_sites\":[],\"mark_peaks\":["
		"{\"mark\":\"epoch 3\",\"max_bytes\":900,\"times\":1,\"grew_bytes\":0}]}],\"findings\":[]}";
	struct gmp_baseline b;
	char why[400];
	parse(v8, &b);
	assert_true(b.nvtx_numbers);
	assert_string_equal(b.nvtx_strip, "^ep");
	assert_int_equal(gmp_baseline__same_names(&b, 1, "^ep", why, sizeof(why)), 1);
	assert_int_equal(gmp_baseline__same_names(&b, 1, NULL, why, sizeof(why)), 0);
	assert_string_equal(why, "its run's NVTX names were folded by --nvtx-numbers --nvtx-strip '^ep', and this check "
				 "folds them by --nvtx-numbers");
	assert_int_equal(gmp_baseline__same_names(&b, 1, "^e", why, sizeof(why)), 0);
	assert_int_equal(gmp_baseline__same_names(&b, 0, NULL, why, sizeof(why)), 0);
	assert_string_equal(why, "its run's NVTX names were folded (--nvtx-numbers --nvtx-strip '^ep'), and this check "
				 "does not fold them");
	gmp_baseline__release(&b);
	assert_null(b.nvtx_strip);
	parse(v7, &b); /* marks, names as given */
	assert_false(b.nvtx_numbers);
	assert_null(b.nvtx_strip);
	assert_int_equal(gmp_baseline__same_names(&b, 0, NULL, why, sizeof(why)), 1);
	assert_int_equal(gmp_baseline__same_names(&b, 0, "x", why, sizeof(why)), 0);
	assert_string_equal(why, "its run's NVTX names were not folded, and this check folds them (--nvtx-strip 'x')");
	gmp_baseline__release(&b);
	parse(v3, &b); /* neither ranges nor marks (baseline_cases.h's version 3): nothing to fold alike */
	assert_int_equal(gmp_baseline__same_names(&b, 1, "x", why, sizeof(why)), 1);
	gmp_baseline__release(&b);
}

/* Version 9: the NVTX domains the run left out, and a run that left out others. */
static void version9_domains(void **state)
{
	(void)state;
	static const char v9[] =
		"{\"gmprof_baseline\":9,\"peak_bytes\":1000,\"leaked_bytes\":0,\"nvtx_domains_left_out\":[\"default\",\"NCCL\"],"
		"\"peaks\":[{\"input\":\"a.gmprof\",\"device\":0,\"peak_bytes\":1000,\"peak_sites\":[]}],\"findings\":[]}";
	static const char v9_folded[] =
		"{\"gmprof_baseline\":9,\"peak_bytes\":1000,\"leaked_bytes\":0,\"nvtx_names\":{\"numbers\":true},"
		"\"nvtx_domains_left_out\":[\"NCCL\"],\"peaks\":[{\"input\":\"a.gmprof\",\"device\":0,"
		"\"peak_bytes\":1000,\"peak_sites\":[],\"range_peaks\":[{\"range\":\"epoch N\",\"peak_bytes\":9}]}],"
		"\"findings\":[]}";
	struct gmp_baseline b;
	char buf[400];
	parse(v9, &b);
	assert_int_equal(b.ndomains_out, 2);
	assert_string_equal(b.domains_out[0], "default");
	assert_string_equal(b.domains_out[1], "NCCL");
	struct gmp_trace *t = gmp_trace__new();
	assert_non_null(t);
	assert_int_equal(gmp_trace__set_meta(t, "nvtx.default.left_out", "1"), 0);
	assert_int_equal(gmp_trace__set_meta(t, "nvtx.domain.0.name", "NCCL"), 0);
	assert_int_equal(gmp_trace__set_meta(t, "nvtx.domain.0.left_out", "1"), 0);
	assert_string_equal(gmp_baseline__domains_differ(&b, t, buf, sizeof(buf)), ""); /* alike */
	assert_int_equal(gmp_trace__set_meta(t, "nvtx.domain.1.name", "cuDNN"), 0);
	assert_int_equal(gmp_trace__set_meta(t, "nvtx.domain.1.left_out", "1"), 0);
	assert_int_equal(gmp_trace__set_meta(t, "nvtx.default.left_out", "0"), 0);
	assert_string_equal(gmp_baseline__domains_differ(&b, t, buf, sizeof(buf)),
			    "cuDNN (this run only), the default domain (the baseline's run only)");
	gmp_trace__free(t);
	gmp_baseline__release(&b);
	assert_null(b.domains_out);
	parse(v9_folded, &b); /* version 9 may say how the names were folded too */
	assert_true(b.nvtx_numbers);
	assert_int_equal(b.ndomains_out, 1);
	t = gmp_trace__new();
	assert_non_null(t);
	assert_string_equal(gmp_baseline__domains_differ(&b, t, buf, sizeof(buf)), "NCCL (the baseline's run only)");
	gmp_trace__free(t);
	gmp_baseline__release(&b);
	parse(v3, &b); /* before version 9: no domain left out, as no collector could */
	assert_int_equal(b.ndomains_out, 0);
	gmp_baseline__release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(version8_names),
		cmocka_unit_test(version9_domains),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
