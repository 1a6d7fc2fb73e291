// SPDX-License-Identifier: MIT
/*
 * Intra-object patterns from `touch` entries: overallocation, non-uniform
 * access frequency and structured access, each with the near-misses that
 * must not be reported.
 */
#include <math.h>
#include <string.h>

#include "support.h"

#define OBJ(addr, size, label) \
	"{\"op\":\"alloc\",\"addr\":\"" addr "\",\"size\":" #size ",\"label\":\"" label "\"}\n"
#define TOUCH(a, n, c) "{\"addr\":\"" a "\",\"size\":" #n ",\"count\":" #c ",\"rw\":\"r\"}"
#define KT(name, touches) "{\"op\":\"kernel\",\"name\":\"" name "\",\"touch\":[" touches "]}\n"
#define FREE(addr) "{\"op\":\"free\",\"addr\":\"" addr "\"}\n"

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

static void overallocation(void **state)
{
	(void)state;
	/* A 1 MiB table of which kernels only touch the first 64 KiB. */
	struct gmp_trace *t;
	struct gmp_result *r = run(OBJ("0x100000", 1048576, "table")
				   KT("lookup", TOUCH("0x100000", 32768, 1))
				   KT("lookup", TOUCH("0x108000", 32768, 2))
				   FREE("0x100000"), &t);
	const struct gmp_finding *f = ts_one(r, GMP_PAT_OVERALLOCATION, "table");
	assert_true(fabs(f->accessed_pct - 6.25) < 1e-3);
	assert_true(f->frag_pct < 1e-3); /* one unaccessed chunk: easy to shrink */
	assert_int_equal(f->bytes, 1048576 - 65536);
	assert_int_equal(r->ranges[f->range_off].off, 65536);
	assert_int_equal(f->saving, 1048576 - 65536);
	char buf[512];
	assert_non_null(strstr(gmp_result__suggestion(r, f, buf, sizeof(buf)), "easy to optimize"));
	done(r, t);
}

static void overallocation_near_misses(void **state)
{
	(void)state;
	struct gmp_trace *t;
	/* Fully accessed, by two kernels and a copy. */
	struct gmp_result *r = run(OBJ("0x100000", 4096, "full")
				   KT("a", TOUCH("0x100000", 2048, 1))
				   "{\"op\":\"memcpy\",\"dst\":\"0x100800\",\"size\":1024}\n"
				   KT("b", TOUCH("0x100c00", 1024, 1))
				   FREE("0x100000"), &t);
	assert_int_equal(ts_count(r, GMP_PAT_OVERALLOCATION, NULL), 0);
	done(r, t);
	/* Half accessed but scattered (every other 4 bytes): fragmentation is high. */
	char text[8192] = OBJ("0x100000", 256, "scattered") "{\"op\":\"kernel\",\"name\":\"s\",\"touch\":[";
	for (int i = 0; i < 32; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 "%s{\"addr\":%d,\"size\":4,\"rw\":\"r\"}", i ? "," : "", 0x100000 + 8 * i);
	strcat(text, "]}\n" FREE("0x100000"));
	r = run(text, &t);
	assert_int_equal(ts_count(r, GMP_PAT_OVERALLOCATION, NULL), 0);
	done(r, t);
	/* A kernel with no recorded touches may have used the rest: no verdict. */
	r = run(OBJ("0x100000", 1048576, "partial")
		KT("lookup", TOUCH("0x100000", 4096, 1))
		"{\"op\":\"kernel\",\"name\":\"other\",\"read\":[\"0x100000\"]}\n"
		FREE("0x100000"), &t);
	assert_int_equal(ts_count(r, GMP_PAT_OVERALLOCATION, NULL), 0);
	done(r, t);
	/* ...but another launch of the same kernel that recorded touches counts. */
	r = run(OBJ("0x100000", 1048576, "sampled")
		KT("lookup", TOUCH("0x100000", 4096, 1))
		"{\"op\":\"kernel\",\"name\":\"lookup\",\"read\":[\"0x100000\"]}\n"
		FREE("0x100000"), &t);
	assert_int_equal(ts_count(r, GMP_PAT_OVERALLOCATION, "sampled"), 1);
	done(r, t);
	/*
	 * A launch whose touches are known, reading an object it touched no
	 * byte of (as the collector records a read through a texture): the
	 * object's bytes are not all known, whatever other launches touched.
	 */
	r = run(OBJ("0x100000", 1048576, "textured") OBJ("0x300000", 4096, "out")
		KT("lookup", TOUCH("0x100000", 4096, 1))
		"{\"op\":\"kernel\",\"name\":\"lookup\",\"read\":[\"0x100000\"],"
		"\"touch\":[{\"addr\":\"0x300000\",\"size\":4096,\"rw\":\"w\"}]}\n"
		FREE("0x100000") FREE("0x300000"), &t);
	assert_int_equal(ts_count(r, GMP_PAT_OVERALLOCATION, "textured"), 0);
	assert_int_equal(ts_count(r, GMP_PAT_OVERALLOCATION, NULL), 0); /* out: every byte written */
	done(r, t);
}

static void non_uniform(void **state)
{
	(void)state;
	/* 64 hot bytes read 100 times, 4032 cold bytes read once. */
	struct gmp_trace *t;
	struct gmp_result *r = run(OBJ("0x200000", 4096, "R")
				   KT("gram", TOUCH("0x200000", 64, 100) "," TOUCH("0x200040", 4032, 1))
				   KT("gram", TOUCH("0x200000", 4096, 3))
				   FREE("0x200000"), &t);
	const struct gmp_finding *f = ts_one(r, GMP_PAT_NON_UNIFORM_ACCESS_FREQUENCY, "R");
	/* mean = (64*100 + 4032)/4096, CV = sqrt(E[c^2] - mean^2) / mean */
	double mean = (64.0 * 100 + 4032.0) / 4096, e2 = (64.0 * 10000 + 4032.0) / 4096;
	double cv = sqrt(e2 - mean * mean) / mean * 100;
	assert_true(fabs(f->cv_pct - cv) < 0.01);
	assert_int_equal(f->count, 1);  /* one launch of two is over 20% */
	assert_int_equal(f->total, 2);
	assert_string_equal(gmp_trace__str(t, f->kernel, NULL), "gram");
	const struct gmp_hist *h = &r->hists[f->hist];
	assert_int_equal(h->max_count, 100);
	assert_int_equal(h->bytes[0], 4032);            /* count 1 */
	assert_int_equal(h->bytes[GMP_HIST_BUCKETS - 1], 64); /* count 100 */
	assert_int_equal(f->saving, 0);                 /* a speed-up, not memory */
	done(r, t);
}

static void non_uniform_near_miss(void **state)
{
	(void)state;
	struct gmp_trace *t;
	/* Uniform counts, even in pieces: the CV is 0. */
	struct gmp_result *r = run(OBJ("0x200000", 4096, "U")
				   KT("k", TOUCH("0x200000", 2048, 5) "," TOUCH("0x200800", 2048, 5))
				   FREE("0x200000"), &t);
	assert_int_equal(ts_count(r, GMP_PAT_NON_UNIFORM_ACCESS_FREQUENCY, NULL), 0);
	done(r, t);
	/* Overlapping touches add up: 2 and 2+1 -> CV 20% exactly is not over 20%. */
	r = run(OBJ("0x200000", 4096, "V")
		KT("k", TOUCH("0x200000", 4096, 2) "," TOUCH("0x200000", 2048, 1))
		FREE("0x200000"), &t);
	/* counts 3 (half) and 2 (half): mean 2.5, sd 0.5, CV 20% */
	assert_int_equal(ts_count(r, GMP_PAT_NON_UNIFORM_ACCESS_FREQUENCY, NULL), 0);
	done(r, t);
}

static void structured(void **state)
{
	(void)state;
	/* gramschmidt_kernel3 touches one disjoint 1 KiB slice per launch. */
	struct gmp_trace *t;
	struct gmp_result *r = run(OBJ("0x300000", 4096, "R_gpu")
				   KT("gs3", TOUCH("0x300000", 1024, 1))
				   KT("gs3", TOUCH("0x300400", 1024, 1))
				   KT("other", TOUCH("0x300000", 4096, 1))
				   KT("gs3", TOUCH("0x300800", 512, 1) "," TOUCH("0x300a00", 512, 1))
				   KT("gs3", TOUCH("0x300c00", 1024, 1))
				   FREE("0x300000"), &t);
	const struct gmp_finding *f = ts_one(r, GMP_PAT_STRUCTURED_ACCESS, "R_gpu");
	assert_string_equal(gmp_trace__str(t, f->kernel, NULL), "gs3");
	assert_int_equal(f->count, 4);
	assert_int_equal(f->range_n, 4);
	assert_int_equal(r->ranges[f->range_off + 2].off, 2048);
	assert_int_equal(r->ranges[f->range_off + 2].len, 1024);
	assert_int_equal(f->bytes, 3072); /* the object minus its largest slice */
	assert_int_equal(f->saving, 3072);
	done(r, t);
	/*
	 * A launch whose slice is two pieces with a gap between them (the same
	 * launch's ranges next to each other in address order), and another
	 * launch's slice past both: disjoint, and the check must carry the first
	 * launch's end over its second piece (the second launch starts inside the
	 * first piece's reach otherwise: [0, 768) is A's, B starts at 1024).
	 */
	r = run(OBJ("0x300000", 4096, "G")
		KT("k", TOUCH("0x300000", 256, 1) "," TOUCH("0x300200", 256, 1))
		KT("k", TOUCH("0x300400", 256, 1))
		FREE("0x300000"), &t);
	f = ts_one(r, GMP_PAT_STRUCTURED_ACCESS, "G");
	assert_int_equal(f->count, 2);
	done(r, t);
	/* The same with the second launch starting inside the first's second piece: not disjoint. */
	r = run(OBJ("0x300000", 4096, "H")
		KT("k", TOUCH("0x300000", 256, 1) "," TOUCH("0x300200", 256, 1))
		KT("k", TOUCH("0x300280", 256, 1))
		FREE("0x300000"), &t);
	assert_int_equal(ts_count(r, GMP_PAT_STRUCTURED_ACCESS, NULL), 0);
	done(r, t);
}

static void structured_near_misses(void **state)
{
	(void)state;
	struct gmp_trace *t;
	/* Overlapping slices. */
	struct gmp_result *r = run(OBJ("0x300000", 4096, "O")
				   KT("k", TOUCH("0x300000", 2048, 1))
				   KT("k", TOUCH("0x300400", 2048, 1))
				   FREE("0x300000"), &t);
	assert_int_equal(ts_count(r, GMP_PAT_STRUCTURED_ACCESS, NULL), 0);
	done(r, t);
	/* A single launch. */
	r = run(OBJ("0x300000", 4096, "S") KT("k", TOUCH("0x300000", 1024, 1)) FREE("0x300000"), &t);
	assert_int_equal(ts_count(r, GMP_PAT_STRUCTURED_ACCESS, NULL), 0);
	done(r, t);
	/* Disjoint slices, but from two different kernels. */
	r = run(OBJ("0x300000", 4096, "D")
		KT("k1", TOUCH("0x300000", 1024, 1)) KT("k2", TOUCH("0x300400", 1024, 1))
		FREE("0x300000"), &t);
	assert_int_equal(ts_count(r, GMP_PAT_STRUCTURED_ACCESS, NULL), 0);
	done(r, t);
	/* Interleaved but one range overlaps another launch's: not disjoint. */
	r = run(OBJ("0x300000", 4096, "I")
		KT("k", TOUCH("0x300000", 256, 1) "," TOUCH("0x300800", 256, 1))
		KT("k", TOUCH("0x300400", 256, 1) "," TOUCH("0x300880", 16, 1))
		FREE("0x300000"), &t);
	assert_int_equal(ts_count(r, GMP_PAT_STRUCTURED_ACCESS, NULL), 0);
	done(r, t);
}

/*
 * An object idle twice: one finding listing both ranges.  The peak is
 * reached in both ranges, so only removing the object from both lowers it.
 */
static void idle_ranges(void **state)
{
	(void)state;
	struct gmp_trace *t;
	struct gmp_result *r = run(
		OBJ("0x1000", 1000, "W")
		"{\"op\":\"kernel\",\"name\":\"f\",\"read\":[\"0x1000\"]}\n"
		OBJ("0x9000", 500, "a1")
		"{\"op\":\"kernel\",\"name\":\"x\",\"write\":[\"0x9000\"]}\n"
		"{\"op\":\"kernel\",\"name\":\"y\",\"read\":[\"0x9000\"]}\n"
		FREE("0x9000")
		"{\"op\":\"kernel\",\"name\":\"b\",\"read\":[\"0x1000\"]}\n"
		OBJ("0x9000", 500, "a2")
		"{\"op\":\"kernel\",\"name\":\"x\",\"write\":[\"0x9000\"]}\n"
		"{\"op\":\"kernel\",\"name\":\"y\",\"read\":[\"0x9000\"]}\n"
		"{\"op\":\"kernel\",\"name\":\"z\",\"read\":[\"0x9000\"]}\n"
		FREE("0x9000")
		"{\"op\":\"kernel\",\"name\":\"o\",\"read\":[\"0x1000\"]}\n"
		FREE("0x1000"), &t);
	const struct gmp_finding *f = ts_one(r, GMP_PAT_TEMPORARY_IDLENESS, "W");
	assert_int_equal(f->count, 2);
	assert_int_equal(f->range_n, 2);
	assert_int_equal(r->spans[f->range_off].apis_between, 4);
	assert_int_equal(r->spans[f->range_off + 1].apis_between, 5);
	assert_int_equal(f->apis_between, 5); /* the longest */
	assert_int_equal(gmp_finding__peak_before(r, f), 1500);
	assert_int_equal(f->saving, 500);     /* absent in both ranges: peak 1000 */
	done(r, t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(overallocation),
		cmocka_unit_test(overallocation_near_misses),
		cmocka_unit_test(non_uniform),
		cmocka_unit_test(non_uniform_near_miss),
		cmocka_unit_test(structured),
		cmocka_unit_test(structured_near_misses),
		cmocka_unit_test(idle_ranges),
	};
	return cmocka_run_group_tests_name("intra", tests, NULL, NULL);
}
