/* SPDX-License-Identifier: MIT */
/*
 * What the baseline tests (test_baseline.c, test_baseline_nvtx.c) share:
 * a baseline parsed or the test failed, and a version 3 baseline of two
 * inputs (neither ranges nor marks).
 */
#ifndef GMPROF_TEST_BASELINE_CASES_H
#define GMPROF_TEST_BASELINE_CASES_H

#include <string.h>

#include "baseline.h"
#include "support.h"

static void parse(const char *json, struct gmp_baseline *b)
{
	char err[160];
	int rc = gmp_baseline__parse(json, strlen(json), b, err, sizeof(err));
	if (rc)
		fail_msg("parse: %s", err);
}

static const char v3[] =
	"{\"gmprof_baseline\":3,\"peak_bytes\":4000,\"leaked_bytes\":0,\"peaks\":["
	"{\"input\":\"prof.0.gmprof\",\"device\":0,\"peak_bytes\":1000,\"peak_sites\":[{\"site\":\"a.cu:1\",\"bytes\":600},"
	"{\"site\":\"a.cu:1\",\"bytes\":400}]},"
	"{\"input\":\"prof.0.gmprof\",\"device\":1,\"peak_bytes\":4000,\"peak_sites\":[]},"
	"{\"input\":\"prof.1.gmprof\",\"device\":0,\"peak_bytes\":2000,\"peak_sites\":[]}],\"findings\":[]}";

#endif
