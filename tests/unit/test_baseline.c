// SPDX-License-Identifier: MIT
/*
 * Baselines (analyzer/baseline.c): which of the baseline's peaks each
 * device of a checked run is compared with, and what the tolerance allows.
 * Version 2 holds one peak, of any device; version 3 one per input and
 * device, matched by file name unless one input meets a baseline of one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "baseline_cases.h"
#include "support.h"

#include "gmprof/trace.h"

/* A run on the devices given, with their peaks. */
static void run(struct gmp_result *r, struct gmp_device_summary *ds, size_t n)
{
	memset(r, 0, sizeof(*r));
	r->devices = ds;
	r->ndevices = n;
	for (size_t i = 0; i < n; i++)
		r->peak_bytes = ds[i].peak_bytes > r->peak_bytes ? ds[i].peak_bytes : r->peak_bytes;
}

static void version3_by_name(void **state)
{
	(void)state;
	struct gmp_baseline b;
	parse(v3, &b);
	assert_int_equal(b.npeaks, 3);
	assert_int_equal(b.ninputs, 2);
	assert_int_equal(gmp_baseline__site_bytes(&b.peaks[0], "a.cu:1", 0), 1000);
	assert_int_equal(gmp_baseline__site_bytes(&b.peaks[0], "a.cu:2", 0), 0);
	struct gmp_device_summary ds[3] = { { .device = 0, .peak_bytes = 1100 }, { .device = 1, .peak_bytes = 3000 },
					    { .device = 2, .peak_bytes = 10 } };
	struct gmp_result r;
	run(&r, ds, 3);
	struct gmp_peak_cmp *v;
	size_t n;
	/* Rank 0 of two, in another directory: device 0 grew 10% (past 5%), device 1 shrank, device 2 is new. */
	assert_int_equal(gmp_baseline__compare(&b, &r, "/ci/pr/prof.0.gmprof", 2, 5.0, 0, &v, &n), 0);
	assert_int_equal(n, 3);
	assert_ptr_equal(v[0].base, &b.peaks[0]);
	assert_int_equal(v[0].now, 1100);
	assert_int_equal(v[0].allowed, 1050);
	assert_true(gmp_peak_cmp__failed(&v[0]));
	assert_ptr_equal(v[1].base, &b.peaks[1]);
	assert_int_equal(v[1].allowed, 4200);
	assert_false(gmp_peak_cmp__failed(&v[1]));
	assert_null(v[2].base);
	assert_int_equal(v[2].device, 2);
	assert_true(gmp_peak_cmp__failed(&v[2]));
	free(v);
	/* Rank 1: its own device 0 (2000), and no device 1 in the baseline; the larger of 5% and 200 bytes. */
	assert_int_equal(gmp_baseline__compare(&b, &r, "prof.1.gmprof", 2, 5.0, 200, &v, &n), 0);
	assert_ptr_equal(v[0].base, &b.peaks[2]);
	assert_int_equal(v[0].allowed, 2200);
	assert_false(gmp_peak_cmp__failed(&v[0]));
	assert_null(v[1].base);
	free(v);
	/* One input against a baseline of two inputs: still by name. */
	assert_int_equal(gmp_baseline__compare(&b, &r, "other.gmprof", 1, 0, 0, &v, &n), 0);
	assert_null(v[0].base);
	assert_null(v[1].base);
	free(v);
	gmp_baseline__release(&b);
}

static void version3_one_input(void **state)
{
	(void)state;
	struct gmp_baseline b;
	parse("{\"gmprof_baseline\":3,\"peak_bytes\":5,\"leaked_bytes\":0,\"peaks\":["
	      "{\"input\":\"main.gmprof\",\"device\":3,\"peak_bytes\":5,\"peak_sites\":[]}],\"findings\":[]}", &b);
	assert_int_equal(b.ninputs, 1);
	struct gmp_device_summary ds[1] = { { .device = 3, .peak_bytes = 5 } };
	struct gmp_result r;
	run(&r, ds, 1);
	struct gmp_peak_cmp *v;
	size_t n;
	/* One input against a baseline of one: by device, whatever the name. */
	assert_int_equal(gmp_baseline__compare(&b, &r, "pr.gmprof", 1, 0, 0, &v, &n), 0);
	assert_int_equal(n, 1);
	assert_ptr_equal(v[0].base, &b.peaks[0]);
	assert_true(v[0].by_device);
	assert_false(gmp_peak_cmp__failed(&v[0]));
	free(v);
	/* Two inputs: by name, and pr.gmprof is not main.gmprof. */
	assert_int_equal(gmp_baseline__compare(&b, &r, "pr.gmprof", 2, 0, 0, &v, &n), 0);
	assert_null(v[0].base);
	assert_false(v[0].by_device);
	free(v);
	/* A run that used no device: nothing to compare. */
	run(&r, ds, 0);
	assert_int_equal(gmp_baseline__compare(&b, &r, "pr.gmprof", 1, 0, 0, &v, &n), 0);
	assert_int_equal(n, 0);
	free(v);
	gmp_baseline__release(&b);
}

static void version2_largest_peak(void **state)
{
	(void)state;
	struct gmp_baseline b;
	parse("{\"gmprof_baseline\":2,\"peak_bytes\":4000,\"leaked_bytes\":0,"
	      "\"peak_sites\":[{\"site\":\"a.cu:1\",\"bytes\":4000}],\"findings\":[]}", &b);
	assert_int_equal(b.npeaks, 1);
	assert_int_equal(b.ninputs, 0);
	assert_int_equal(b.peaks[0].device, GMP_ANY_DEVICE);
	assert_null(b.peaks[0].input);
	struct gmp_device_summary ds[2] = { { .device = 0, .peak_bytes = 3000 }, { .device = 1, .peak_bytes = 4100 } };
	struct gmp_result r;
	run(&r, ds, 2);
	struct gmp_peak_cmp *v;
	size_t n;
	/* Whatever the devices and names: the run's largest peak against it. */
	assert_int_equal(gmp_baseline__compare(&b, &r, "x/y.gmprof", 3, 2.0, 0, &v, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].device, GMP_ANY_DEVICE);
	assert_int_equal(v[0].now, 4100);
	assert_int_equal(v[0].allowed, 4080);
	assert_true(gmp_peak_cmp__failed(&v[0]));
	free(v);
	gmp_baseline__release(&b);
}

static void in_use(void **state)
{
	(void)state;
	struct gmp_baseline b;
	parse("{\"gmprof_baseline\":3,\"peak_bytes\":900,\"leaked_bytes\":0,\"peaks\":["
	      "{\"input\":\"a\",\"device\":0,\"peak_bytes\":900,\"inuse_peak_bytes\":500,\"peak_sites\":[]},"
	      "{\"input\":\"a\",\"device\":1,\"peak_bytes\":900,\"peak_sites\":[]}],\"findings\":[]}", &b);
	assert_int_equal(b.peaks[0].inuse_peak_bytes, 500);
	assert_int_equal(b.peaks[1].inuse_peak_bytes, 0);
	/* Device 0 now has no regions: its peak is what it has in use. Device 1 had none: not compared. */
	struct gmp_device_summary ds[2] = { { .device = 0, .peak_bytes = 600 },
					    { .device = 1, .peak_bytes = 900, .inuse_peak_bytes = 100 } };
	struct gmp_result r;
	run(&r, ds, 2);
	struct gmp_peak_cmp *v;
	size_t n;
	assert_int_equal(gmp_baseline__compare(&b, &r, "a", 1, 10.0, 0, &v, &n), 0);
	assert_true(v[0].inuse);
	assert_int_equal(v[0].inuse_now, 600);
	assert_int_equal(v[0].inuse_allowed, 550);
	assert_true(gmp_peak_cmp__inuse_failed(&v[0]));
	assert_false(gmp_peak_cmp__failed(&v[0]));
	assert_false(v[1].inuse);
	assert_false(gmp_peak_cmp__inuse_failed(&v[1]));
	free(v);
	ds[0].inuse_peak_bytes = 540;
	assert_int_equal(gmp_baseline__compare(&b, &r, "a", 1, 10.0, 0, &v, &n), 0);
	assert_int_equal(v[0].inuse_now, 540);
	assert_false(gmp_peak_cmp__inuse_failed(&v[0]));
	free(v);
	gmp_baseline__release(&b);
}

/* The most a device's stream-ordered pools reserved, against the baseline's (where it recorded some). */
static void pools(void **state)
{
	(void)state;
	struct gmp_baseline b;
	parse("{\"gmprof_baseline\":3,\"peak_bytes\":900,\"leaked_bytes\":0,\"peaks\":["
	      "{\"input\":\"a\",\"device\":0,\"peak_bytes\":900,\"pool_reserved_high_bytes\":1000,\"peak_sites\":[]},"
	      "{\"input\":\"a\",\"device\":1,\"peak_bytes\":900,\"peak_sites\":[]}],\"findings\":[]}", &b);
	assert_int_equal(b.peaks[0].pool_reserved_high, 1000);
	assert_int_equal(b.peaks[1].pool_reserved_high, 0);
	struct gmp_device_summary ds[2] = { { .device = 0, .peak_bytes = 600 }, { .device = 1, .peak_bytes = 900 } };
	struct gmp_result r;
	run(&r, ds, 2);
	struct gmp_trace *t = gmp_trace__new();
	assert_non_null(t);
	r.trace = t;
	/* Device 0's pools reserved 1200 at most (the last state says), device 1's some too: not compared. */
	struct gmp_pool_state ps = { .pools = 1, .reserved = 10, .reserved_high = 1100, .used_high = 5 };
	assert_int_equal(gmp_trace__add_pool_state(t, &ps), 0);
	ps.reserved_high = 1200;
	assert_int_equal(gmp_trace__add_pool_state(t, &ps), 0);
	ps.device = 1;
	assert_int_equal(gmp_trace__add_pool_state(t, &ps), 0);
	struct gmp_peak_cmp *v;
	size_t n;
	assert_int_equal(gmp_baseline__compare(&b, &r, "a", 1, 10.0, 0, &v, &n), 0);
	assert_true(v[0].pools);
	assert_int_equal(v[0].pools_now, 1200);
	assert_int_equal(v[0].pools_allowed, 1100);
	assert_true(gmp_peak_cmp__pools_failed(&v[0]));
	assert_false(gmp_peak_cmp__failed(&v[0]));
	assert_false(v[1].pools);
	assert_false(gmp_peak_cmp__pools_failed(&v[1]));
	free(v);
	/* Within the tolerance; and a run without pools reserved nothing. */
	assert_int_equal(gmp_baseline__compare(&b, &r, "a", 1, 20.0, 0, &v, &n), 0);
	assert_false(gmp_peak_cmp__pools_failed(&v[0]));
	free(v);
	gmp_trace__free(t);
	r.trace = t = gmp_trace__new();
	assert_non_null(t);
	assert_int_equal(gmp_baseline__compare(&b, &r, "a", 1, 0.0, 0, &v, &n), 0);
	assert_true(v[0].pools);
	assert_int_equal(v[0].pools_now, 0);
	assert_false(gmp_peak_cmp__pools_failed(&v[0]));
	free(v);
	gmp_trace__free(t);
	gmp_baseline__release(&b);
}

/* Version 4: each peak's NVTX ranges, sorted by path for the lookups; a version 3 baseline has none. */
static void version4_ranges(void **state)
{
	(void)state;
	static const char v4[] =
		"{\"gmprof_baseline\":4,\"peak_bytes\":1000,\"leaked_bytes\":0,\"peaks\":["
		"{\"input\":\"a.gmprof\",\"device\":0,\"peak_bytes\":1000,\"peak_sites\":[],\"range_peaks\":["
		"{\"range\":\"step > fwd\",\"peak_bytes\":900},{\"range\":\"setup\",\"peak_bytes\":300},"
		"{\"range\":\"step\",\"peak_bytes\":1000}]},"
		"{\"input\":\"a.gmprof\",\"device\":1,\"peak_bytes\":10,\"peak_sites\":[]}],\"findings\":[]}";
	struct gmp_baseline b;
	parse(v4, &b);
	assert_int_equal(b.npeaks, 2);
	const struct gmp_baseline_peak *p = &b.peaks[0];
	assert_int_equal(p->nranges, 3);
	assert_string_equal(p->ranges[0].range, "setup");
	assert_string_equal(p->ranges[1].range, "step");
	assert_string_equal(p->ranges[2].range, "step > fwd");
	assert_int_equal(gmp_baseline__range(p, "step > fwd")->peak_bytes, 900);
	assert_int_equal(gmp_baseline__range(p, "step")->peak_bytes, 1000);
	assert_null(gmp_baseline__range(p, "step > bwd"));
	assert_null(gmp_baseline__range(&b.peaks[1], "step"));
	assert_int_equal(b.peaks[1].nranges, 0);
	gmp_baseline__release(&b);
	/* The tolerance: the larger of the share and the bytes. */
	assert_int_equal(gmp_baseline__allowed(1000, 5, 20), 1050);
	assert_int_equal(gmp_baseline__allowed(1000, 1, 20), 1020);
	/* Merging a run's ranges whose paths read alike keeps the larger peak. */
	struct gmp_baseline_range r[3] = { { strdup("x"), 5 }, { strdup("y"), 1 }, { strdup("x"), 9 } };
	struct gmp_baseline_peak q = { .ranges = r, .nranges = 3 };
	assert_non_null(r[0].range);
	assert_non_null(r[1].range);
	assert_non_null(r[2].range);
	assert_int_equal(gmp_baseline__sort_ranges(&q, 1), 0);
	assert_int_equal(q.nranges, 2);
	assert_int_equal(gmp_baseline__range(&q, "x")->peak_bytes, 9);
	free(r[0].range);
	free(r[1].range);
}

/* Version 5: a range entered more than once has its times and growth; one without them was entered once. */
static void version5_times(void **state)
{
	(void)state;
	static const char v5[] =
		"{\"gmprof_baseline\":5,\"peak_bytes\":1000,\"leaked_bytes\":0,\"peaks\":["
		"{\"input\":\"a.gmprof\",\"device\":0,\"peak_bytes\":1000,\"peak_sites\":[],\"range_peaks\":["
		"{\"range\":\"step\",\"peak_bytes\":1000,\"times\":7,\"grew_bytes\":96},"
		"{\"range\":\"setup\",\"peak_bytes\":300}]}],\"findings\":[]}";
	struct gmp_baseline b;
	parse(v5, &b);
	const struct gmp_baseline_peak *p = &b.peaks[0];
	assert_true(p->growth);
	assert_int_equal(gmp_baseline__range(p, "step")->times, 7);
	assert_int_equal(gmp_baseline__range(p, "step")->grew_bytes, 96);
	assert_int_equal(gmp_baseline__range(p, "setup")->times, 1);
	assert_int_equal(gmp_baseline__range(p, "setup")->grew_bytes, 0);
	gmp_baseline__release(&b);
	/* Version 4 did not record them. */
	static const char v4[] =
		"{\"gmprof_baseline\":4,\"peak_bytes\":1000,\"leaked_bytes\":0,\"peaks\":["
		"{\"input\":\"a.gmprof\",\"device\":0,\"peak_bytes\":1000,\"peak_sites\":[],\"range_peaks\":["
		"{\"range\":\"step\",\"peak_bytes\":1000}]}],\"findings\":[]}";
	parse(v4, &b);
	assert_false(b.peaks[0].growth);
	assert_int_equal(gmp_baseline__range(&b.peaks[0], "step")->times, 0);
	gmp_baseline__release(&b);
	/* Merged, ranges whose paths read alike keep the most times and growth of any. */
	struct gmp_baseline_range r[2] = { { strdup("x"), 5, 4, 100 }, { strdup("x"), 9, 2, 300 } };
	struct gmp_baseline_peak q = { .ranges = r, .nranges = 2 };
	assert_non_null(r[0].range);
	assert_non_null(r[1].range);
	assert_int_equal(gmp_baseline__sort_ranges(&q, 1), 0);
	assert_int_equal(q.nranges, 1);
	const struct gmp_baseline_range *x = gmp_baseline__range(&q, "x");
	assert_int_equal(x->peak_bytes, 9);
	assert_int_equal(x->times, 4);
	assert_int_equal(x->grew_bytes, 300);
	free(q.ranges[0].range);
}

/* Version 6: a range that grew has what its times kept, by site (keyed) or label (by name). */
static void version6_kept(void **state)
{
	(void)state;
	static const char v6[] =
		"{\"gmprof_baseline\":6,\"peak_bytes\":1000,\"leaked_bytes\":0,\"peaks\":["
		"{\"input\":\"a.gmprof\",\"device\":0,\"peak_bytes\":1000,\"peak_sites\":[],\"range_peaks\":["
		"{\"range\":\"step\",\"peak_bytes\":1000,\"times\":3,\"grew_bytes\":96,\"kept_sites\":["
		"{\"site\":\"train.cu:42\",\"bytes\":64,\"key\":\"00000000000000ab\"},{\"site\":\"acts\",\"bytes\":32}]},"
		"{\"range\":\"setup\",\"peak_bytes\":300}]}],\"findings\":[]}";
	struct gmp_baseline b;
	parse(v6, &b);
	const struct gmp_baseline_peak *p = &b.peaks[0];
	assert_true(p->growth);
	assert_true(p->kept);
	const struct gmp_baseline_range *step = gmp_baseline__range(p, "step");
	assert_int_equal(step->nkept, 2);
	assert_int_equal(gmp_baseline__kept_bytes(step, "elsewhere.cu:1", 0xab), 64); /* by key: lines moved */
	assert_int_equal(gmp_baseline__kept_bytes(step, "train.cu:42", 0xcd), 0);
	assert_int_equal(gmp_baseline__kept_bytes(step, "acts", 0), 32);            /* a label, by name */
	assert_int_equal(gmp_baseline__range(p, "setup")->nkept, 0);
	gmp_baseline__release(&b);
	/* Merged, the range that grew more keeps its kept sites; the other's are freed. */
	struct gmp_baseline_site *k0 = calloc(1, sizeof(*k0)), *k1 = calloc(1, sizeof(*k1));
	assert_non_null(k0);
	assert_non_null(k1);
	*k0 = (struct gmp_baseline_site){ strdup("a.cu:1"), 10, 0, 0 };
	*k1 = (struct gmp_baseline_site){ strdup("b.cu:2"), 20, 0, 0 };
	struct gmp_baseline_range r[2] = { { strdup("x"), 5, 4, 100, k0, 1 }, { strdup("x"), 9, 2, 300, k1, 1 } };
	struct gmp_baseline_peak q = { .ranges = r, .nranges = 2 };
	assert_int_equal(gmp_baseline__sort_ranges(&q, 1), 0);
	assert_int_equal(q.nranges, 1);
	assert_int_equal(q.ranges[0].grew_bytes, 300);
	assert_int_equal(q.ranges[0].peak_bytes, 9);
	assert_int_equal(q.ranges[0].times, 4);
	assert_int_equal(gmp_baseline__kept_bytes(&q.ranges[0], "b.cu:2", 0), 20);
	assert_int_equal(gmp_baseline__kept_bytes(&q.ranges[0], "a.cu:1", 0), 0);
	gmp_baseline__range_release(&q.ranges[0]);
}

/* Version 7: each device's mark names, sorted for lookup by name. */
static void version7_marks(void **state)
{
	(void)state;
	static const char v7[] =
		"{\"gmprof_baseline\":7,\"peak_bytes\":1000,\"leaked_bytes\":0,\"peaks\":["
		"{\"input\":\"a.gmprof\",\"device\":0,\"peak_bytes\":1000,\"peak_sites\":[],\"mark_peaks\":["
		"{\"mark\":\"loaded\",\"max_bytes\":400,\"times\":1,\"grew_bytes\":0},"
		"{\"mark\":\"epoch\",\"max_bytes\":900,\"times\":5,\"grew_bytes\":100}]},"
		"{\"input\":\"a.gmprof\",\"device\":1,\"peak_bytes\":10,\"peak_sites\":[]}],\"findings\":[]}";
	struct gmp_baseline b;
	parse(v7, &b);
	const struct gmp_baseline_peak *p = &b.peaks[0];
	assert_int_equal(p->nmarks, 2);
	assert_string_equal(p->marks[0].mark, "epoch"); /* sorted */
	const struct gmp_baseline_mark *e = gmp_baseline__mark(p, "epoch");
	assert_non_null(e);
	assert_int_equal(e->max_bytes, 900);
	assert_int_equal(e->times, 5);
	assert_int_equal(e->grew_bytes, 100);
	assert_int_equal(gmp_baseline__mark(p, "loaded")->max_bytes, 400);
	assert_null(gmp_baseline__mark(p, "done"));
	assert_int_equal(b.peaks[1].nmarks, 0); /* a device without marks */
	assert_null(gmp_baseline__mark(&b.peaks[1], "epoch"));
	gmp_baseline__release(&b);
}

/* Version 8: how the NVTX names were folded, which a check must fold alike where the run had ranges or marks. */
static void rejected(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"{\"gmprof_baseline\":3,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"a\",\"device\":4294967295,"
		"\"peak_bytes\":1,\"peak_sites\":[]}],\"findings\":[]}",
		"{\"gmprof_baseline\":3,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"\",\"device\":0,"
		"\"peak_bytes\":1,\"peak_sites\":[]}],\"findings\":[]}",
		"{\"gmprof_baseline\":3,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"a\",\"device\":0,"
		"\"peak_bytes\":1,\"peak_sites\":[],\"extra\":1}],\"findings\":[]}",
		"{\"gmprof_baseline\":3,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":{},\"findings\":[]}",
		"{\"gmprof_baseline\":3,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[],\"peak_sites\":[],\"findings\":[]}",
		/* range peaks: only in version 4; a non-empty range name, a peak; each range once */
		"{\"gmprof_baseline\":3,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"a\",\"device\":0,"
		"\"peak_bytes\":1,\"peak_sites\":[],\"range_peaks\":[]}],\"findings\":[]}",
		"{\"gmprof_baseline\":4,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"a\",\"device\":0,"
		"\"peak_bytes\":1,\"peak_sites\":[],\"range_peaks\":[{\"range\":\"\",\"peak_bytes\":1}]}],\"findings\":[]}",
		"{\"gmprof_baseline\":4,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"a\",\"device\":0,"
		"\"peak_bytes\":1,\"peak_sites\":[],\"range_peaks\":[{\"range\":\"s\"}]}],\"findings\":[]}",
		"{\"gmprof_baseline\":4,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"a\",\"device\":0,"
		"\"peak_bytes\":1,\"peak_sites\":[],\"range_peaks\":[{\"range\":\"s\",\"peak_bytes\":1},"
		"{\"range\":\"s\",\"peak_bytes\":2}]}],\"findings\":[]}",
		"{\"gmprof_baseline\":4,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"a\",\"device\":0,"
		"\"peak_bytes\":1,\"peak_sites\":[],\"range_peaks\":[{\"range\":\"s\",\"peak_bytes\":1,\"x\":0}]}],"
		"\"findings\":[]}",
		"{\"gmprof_baseline\":8,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[],\"findings\":[]}",
		/* mark peaks: only in version 7; a non-empty name, its most, 1 or more times, a growth within its most */
		"{\"gmprof_baseline\":6,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"a\",\"device\":0,"
		"\"peak_bytes\":1,\"peak_sites\":[],\"mark_peaks\":[]}],\"findings\":[]}",
		"{\"gmprof_baseline\":7,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"a\",\"device\":0,"
		"\"peak_bytes\":1,\"peak_sites\":[],\"mark_peaks\":[{\"mark\":\"\",\"max_bytes\":1,\"times\":1,"
		"\"grew_bytes\":0}]}],\"findings\":[]}",
		"{\"gmprof_baseline\":7,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"a\",\"device\":0,"
		"\"peak_bytes\":1,\"peak_sites\":[],\"mark_peaks\":[{\"mark\":\"m\",\"max_bytes\":1,\"times\":0,"
		"\"grew_bytes\":0}]}],\"findings\":[]}",
		"{\"gmprof_baseline\":7,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"a\",\"device\":0,"
		"\"peak_bytes\":1,\"peak_sites\":[],\"mark_peaks\":[{\"mark\":\"m\",\"max_bytes\":1,\"times\":2}]}],"
		"\"findings\":[]}",
		"{\"gmprof_baseline\":7,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"a\",\"device\":0,"
		"\"peak_bytes\":1,\"peak_sites\":[],\"mark_peaks\":[{\"mark\":\"m\",\"max_bytes\":4,\"times\":2,"
		"\"grew_bytes\":5}]}],\"findings\":[]}",
		"{\"gmprof_baseline\":7,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"a\",\"device\":0,"
		"\"peak_bytes\":1,\"peak_sites\":[],\"mark_peaks\":[{\"mark\":\"m\",\"max_bytes\":4,\"times\":1,"
		"\"grew_bytes\":1}]}],\"findings\":[]}",
		"{\"gmprof_baseline\":7,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"a\",\"device\":0,"
		"\"peak_bytes\":1,\"peak_sites\":[],\"mark_peaks\":[{\"mark\":\"m\",\"max_bytes\":4,\"times\":1,"
		"\"grew_bytes\":0},{\"mark\":\"m\",\"max_bytes\":5,\"times\":1,\"grew_bytes\":0}]}],\"findings\":[]}",
		"{\"gmprof_baseline\":7,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"a\",\"device\":0,"
		"\"peak_bytes\":1,\"peak_sites\":[],\"mark_peaks\":{}}],\"findings\":[]}",
		/* nvtx_names: in version 8 and only there; "numbers" a boolean, "strip" an expression, one of them */
		"{\"gmprof_baseline\":7,\"peak_bytes\":1,\"leaked_bytes\":0,\"nvtx_names\":{\"numbers\":true},"
		"\"peaks\":[],\"findings\":[]}",
		"{\"gmprof_baseline\":8,\"peak_bytes\":1,\"leaked_bytes\":0,\"nvtx_names\":{\"numbers\":1},"
		"\"peaks\":[],\"findings\":[]}",
		"{\"gmprof_baseline\":8,\"peak_bytes\":1,\"leaked_bytes\":0,\"nvtx_names\":{\"numbers\":false},"
		"\"peaks\":[],\"findings\":[]}",
		"{\"gmprof_baseline\":8,\"peak_bytes\":1,\"leaked_bytes\":0,\"nvtx_names\":{\"numbers\":true,"
		"\"strip\":\"\"},\"peaks\":[],\"findings\":[]}",
		"{\"gmprof_baseline\":8,\"peak_bytes\":1,\"leaked_bytes\":0,\"nvtx_names\":{\"numbers\":true,"
		"\"strip\":3},\"peaks\":[],\"findings\":[]}",
		"{\"gmprof_baseline\":8,\"peak_bytes\":1,\"leaked_bytes\":0,\"nvtx_names\":{\"numbers\":true,"
		"\"x\":1},\"peaks\":[],\"findings\":[]}",
		"{\"gmprof_baseline\":8,\"peak_bytes\":1,\"leaked_bytes\":0,\"nvtx_names\":[],\"peaks\":[],"
		"\"findings\":[]}",
		"{\"gmprof_baseline\":9,\"peak_bytes\":1,\"leaked_bytes\":0,\"nvtx_names\":{\"numbers\":true},"
		"\"peaks\":[],\"findings\":[]}",
		/* kept sites: only in version 6, only where the range grew */
		"{\"gmprof_baseline\":5,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"a\",\"device\":0,"
		"\"peak_bytes\":1,\"peak_sites\":[],\"range_peaks\":[{\"range\":\"s\",\"peak_bytes\":1,\"times\":2,"
		"\"grew_bytes\":1,\"kept_sites\":[]}]}],\"findings\":[]}",
		"{\"gmprof_baseline\":6,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"a\",\"device\":0,"
		"\"peak_bytes\":1,\"peak_sites\":[],\"range_peaks\":[{\"range\":\"s\",\"peak_bytes\":1,\"times\":2,"
		"\"grew_bytes\":0,\"kept_sites\":[]}]}],\"findings\":[]}",
		"{\"gmprof_baseline\":6,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"a\",\"device\":0,"
		"\"peak_bytes\":1,\"peak_sites\":[],\"range_peaks\":[{\"range\":\"s\",\"peak_bytes\":1,\"times\":2,"
		"\"grew_bytes\":1,\"kept_sites\":[{\"site\":\"a\",\"bytes\":-1}]}]}],\"findings\":[]}",
		/* a range's times: only in version 5, 2 or more, with its growth */
		"{\"gmprof_baseline\":4,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"a\",\"device\":0,"
		"\"peak_bytes\":1,\"peak_sites\":[],\"range_peaks\":[{\"range\":\"s\",\"peak_bytes\":1,\"times\":2,"
		"\"grew_bytes\":0}]}],\"findings\":[]}",
		"{\"gmprof_baseline\":5,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"a\",\"device\":0,"
		"\"peak_bytes\":1,\"peak_sites\":[],\"range_peaks\":[{\"range\":\"s\",\"peak_bytes\":1,\"times\":1,"
		"\"grew_bytes\":0}]}],\"findings\":[]}",
		"{\"gmprof_baseline\":5,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"a\",\"device\":0,"
		"\"peak_bytes\":1,\"peak_sites\":[],\"range_peaks\":[{\"range\":\"s\",\"peak_bytes\":1,\"times\":3}]}],"
		"\"findings\":[]}",
		"{\"gmprof_baseline\":5,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"a\",\"device\":0,"
		"\"peak_bytes\":1,\"peak_sites\":[],\"range_peaks\":[{\"range\":\"s\",\"peak_bytes\":1,\"grew_bytes\":3}]}],"
		"\"findings\":[]}",
		"{\"gmprof_baseline\":5,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"a\",\"device\":0,"
		"\"peak_bytes\":1,\"peak_sites\":[],\"range_peaks\":[{\"range\":\"s\",\"peak_bytes\":1,\"times\":2,"
		"\"grew_bytes\":-1}]}],\"findings\":[]}",
		/* a site's key: 16 lower-case hex digits */
		"{\"gmprof_baseline\":3,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[{\"input\":\"a\",\"device\":0,"
		"\"peak_bytes\":1,\"peak_sites\":[{\"site\":\"a.cu:1\",\"bytes\":1,\"key\":\"XYZ\"}]}],\"findings\":[]}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct gmp_baseline b;
		char err[160];
		if (gmp_baseline__parse(bad[i], strlen(bad[i]), &b, err, sizeof(err)) != -EINVAL)
			fail_msg("case %zu was accepted", i);
		assert_null(b.peaks); /* released */
	}
}

/*
 * The fingerprint scheme: a baseline with findings must say it is of this
 * gmprof's (2); an earlier one's fingerprints keyed sites by path and line
 * and would all read as new, so it is refused with a sentence saying so.
 */
static void fingerprint_scheme(void **state)
{
	(void)state;
	const char *head = "{\"gmprof_baseline\":3,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[],\"findings\":";
	const char *finding = "[{\"fingerprint\":\"0123456789abcdef\",\"pattern\":\"memory_leak\",\"object\":\"C\","
			      "\"saving_bytes\":0}]";
	char doc[512], err[160];
	struct gmp_baseline b;
	snprintf(doc, sizeof(doc), "%s%s,\"fingerprints\":2}", head, finding);
	assert_int_equal(gmp_baseline__parse(doc, strlen(doc), &b, err, sizeof(err)), 0);
	assert_true(gmp_baseline__has(&b, 0x0123456789abcdefull));
	gmp_baseline__release(&b);
	snprintf(doc, sizeof(doc), "%s%s}", head, finding);
	assert_int_equal(gmp_baseline__parse(doc, strlen(doc), &b, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "made by an earlier gmprof"));
	assert_non_null(strstr(err, "write it again with gmprof baseline"));
	snprintf(doc, sizeof(doc), "%s%s,\"fingerprints\":1}", head, finding);
	assert_int_equal(gmp_baseline__parse(doc, strlen(doc), &b, err, sizeof(err)), -EINVAL);
	snprintf(doc, sizeof(doc), "%s[]}", head); /* no findings: nothing to match, any scheme */
	assert_int_equal(gmp_baseline__parse(doc, strlen(doc), &b, err, sizeof(err)), 0);
	gmp_baseline__release(&b);
}

/* Peak sites with keys are matched by key (the line may have moved), without by name. */
static void site_keys(void **state)
{
	(void)state;
	const char *doc = "{\"gmprof_baseline\":3,\"peak_bytes\":9,\"leaked_bytes\":0,\"peaks\":["
			  "{\"input\":\"a\",\"device\":0,\"peak_bytes\":9,\"peak_sites\":["
			  "{\"site\":\"a.cu:10\",\"bytes\":4,\"key\":\"00000000000000aa\"},"
			  "{\"site\":\"a.cu:20\",\"bytes\":5,\"key\":\"00000000000000bb\"}]},"
			  "{\"input\":\"b\",\"device\":0,\"peak_bytes\":3,\"peak_sites\":["
			  "{\"site\":\"a.cu:10\",\"bytes\":3}]}],\"findings\":[]}";
	struct gmp_baseline b;
	char err[160];
	assert_int_equal(gmp_baseline__parse(doc, strlen(doc), &b, err, sizeof(err)), 0);
	assert_int_equal(b.npeaks, 2);
	const struct gmp_baseline_peak *a = &b.peaks[0], *o = &b.peaks[1];
	if (strcmp(a->input, "a")) { /* in whichever order the reader keeps them */
		a = &b.peaks[1];
		o = &b.peaks[0];
	}
	assert_string_equal(a->input, "a");
	assert_string_equal(o->input, "b");
	assert_int_equal(gmp_baseline__site_bytes(a, "a.cu:13", 0xaa), 4); /* moved: its key */
	assert_int_equal(gmp_baseline__site_bytes(a, "a.cu:10", 0xbb), 5); /* a.cu:10 is now the other site */
	assert_int_equal(gmp_baseline__site_bytes(a, "a.cu:10", 0xcc), 0);
	assert_int_equal(gmp_baseline__site_bytes(o, "a.cu:10", 0xcc), 3); /* no keys: by name */
	gmp_baseline__release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(version3_by_name),
		cmocka_unit_test(version3_one_input),
		cmocka_unit_test(version2_largest_peak),
		cmocka_unit_test(in_use),
		cmocka_unit_test(pools),
		cmocka_unit_test(version4_ranges),
		cmocka_unit_test(version5_times),
		cmocka_unit_test(version6_kept),
		cmocka_unit_test(version7_marks),
		cmocka_unit_test(rejected),
		cmocka_unit_test(fingerprint_scheme),
		cmocka_unit_test(site_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
