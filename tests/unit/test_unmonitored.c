// SPDX-License-Identifier: MIT
/*
 * Launches whose accesses are unknown ("monitored": false: outside a
 * capture range, or never read back) count as a use of every object live
 * when they were issued.  Each test runs a trace with such a launch and
 * its control, the same trace with the launch monitored and touching
 * nothing, where the finding the launch rules out is there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define A(addr, label) "{\"op\":\"alloc\",\"addr\":\"" addr "\",\"size\":4096,\"label\":\"" label "\"}\n"
#define AS(addr, label, s) \
	"{\"op\":\"alloc\",\"addr\":\"" addr "\",\"size\":4096,\"label\":\"" label "\",\"stream\":" #s "}\n"
#define K(name, rw, addr) "{\"op\":\"kernel\",\"name\":\"" name "\",\"" rw "\":[\"" addr "\"]}\n"
#define KS(name, rw, addr, s) \
	"{\"op\":\"kernel\",\"name\":\"" name "\",\"" rw "\":[\"" addr "\"],\"stream\":" #s "}\n"
#define F(addr) "{\"op\":\"free\",\"addr\":\"" addr "\"}\n"
#define FS(addr, s) "{\"op\":\"free\",\"addr\":\"" addr "\",\"stream\":" #s "}\n"
#define SET(addr) "{\"op\":\"memset\",\"addr\":\"" addr "\",\"size\":4096}\n"
/* The launch under test: U unmonitored, its control monitored and touching nothing. */
#define U "{\"op\":\"kernel\",\"name\":\"u\",\"monitored\":false}\n"
#define US(s) "{\"op\":\"kernel\",\"name\":\"u\",\"monitored\":false,\"stream\":" #s "}\n"

/* Runs text, and text with every unmonitored launch made a monitored one that touches nothing. */
struct pair {
	struct gmp_trace *t, *ct;
	struct gmp_result *r, *control;
};

static char *monitored(const char *text)
{
	static const char from[] = "\"monitored\":false", to[] = "\"read\":[]";
	char *out = malloc(strlen(text) + 1), *o = out;
	assert_non_null(out);
	for (const char *p = text; *p;) {
		if (!strncmp(p, from, sizeof(from) - 1)) {
			memcpy(o, to, sizeof(to) - 1);
			o += sizeof(to) - 1;
			p += sizeof(from) - 1;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

static struct pair run(const char *text)
{
	struct pair p;
	char *c = monitored(text);
	assert_int_not_equal(strcmp(c, text), 0); /* the test has an unmonitored launch */
	p.t = ts_script(text);
	p.ct = ts_script(c);
	free(c);
	p.r = ts_detect(p.t, NULL);
	p.control = ts_detect(p.ct, NULL);
	return p;
}

/* The unmonitored launch rules out the finding that its control has, once. */
static void ruled_out(const struct pair *p, unsigned pattern, const char *name)
{
	assert_int_equal(ts_count(p->r, pattern, name), 0);
	assert_int_equal(ts_count(p->control, pattern, name), 1);
}

static void done(struct pair *p)
{
	gmp_result__free(p->r);
	gmp_result__free(p->control);
	gmp_trace__free(p->t);
	gmp_trace__free(p->ct);
}

static void not_unused(void **state)
{
	(void)state;
	struct pair p = run(A("0x1000", "a") U F("0x1000"));
	ruled_out(&p, GMP_PAT_UNUSED_ALLOCATION, "a");
	assert_int_equal(p.r->objects[0].unmonitored, 1);
	assert_int_equal(p.r->objects[0].naccess, 1);
	assert_int_equal(p.t->unharvested, 1); /* counted as a profile counts them */
	assert_int_equal(p.control->objects[0].unmonitored, 0);
	done(&p);
}

/* Its first use is the launch at the latest: "early" counts the APIs before it only. */
static void early_up_to_it(void **state)
{
	(void)state;
	struct pair p = run(A("0x9000", "b") A("0x1000", "a") K("b1", "write", "0x9000")
			    K("b2", "read", "0x9000") U K("b3", "read", "0x9000")
			    K("b4", "read", "0x9000") K("ka", "read", "0x1000") F("0x1000") F("0x9000"));
	const struct gmp_finding *f = ts_one(p.r, GMP_PAT_EARLY_ALLOCATION, "a");
	assert_int_equal(f->apis_between, 2);
	assert_int_equal(f->ev_b, 4); /* the unmonitored launch */
	assert_int_equal(ts_one(p.control, GMP_PAT_EARLY_ALLOCATION, "a")->apis_between, 5);
	char label[256];
	assert_non_null(strstr(gmp_result__api_label(p.r, f->ev_b, label, sizeof(label)), "not monitored"));
	assert_null(strstr(gmp_result__api_label(p.r, 6, label, sizeof(label)), "not monitored"));
	done(&p);
}

/* Its last use is the launch at the earliest: "late" counts the APIs after it only. */
static void late_from_it(void **state)
{
	(void)state;
	struct pair p = run(A("0x9000", "b") A("0x1000", "a") K("ka", "write", "0x1000")
			    K("b1", "write", "0x9000") U K("b2", "read", "0x9000")
			    K("b3", "read", "0x9000") F("0x1000") F("0x9000"));
	const struct gmp_finding *f = ts_one(p.r, GMP_PAT_LATE_DEALLOCATION, "a");
	assert_int_equal(f->apis_between, 2);
	assert_int_equal(f->ev_a, 4);
	assert_int_equal(ts_one(p.control, GMP_PAT_LATE_DEALLOCATION, "a")->apis_between, 4);
	done(&p);
}

/* Not idle where the launch came between two accesses; idle between others. */
static void idleness_broken(void **state)
{
	(void)state;
	struct pair p = run(A("0x9000", "b") A("0x1000", "a") K("ka1", "write", "0x1000")
			    K("b1", "write", "0x9000") K("b2", "read", "0x9000") U
			    K("b3", "read", "0x9000") K("ka2", "read", "0x1000")
			    K("b4", "read", "0x9000") K("b5", "read", "0x9000") K("b6", "read", "0x9000")
			    K("ka3", "read", "0x1000") F("0x1000") F("0x9000"));
	const struct gmp_finding *f = ts_one(p.r, GMP_PAT_TEMPORARY_IDLENESS, "a");
	assert_int_equal(f->range_n, 1); /* ka2 to ka3 only */
	assert_int_equal(f->ev_a, 7);
	assert_int_equal(ts_one(p.control, GMP_PAT_TEMPORARY_IDLENESS, "a")->range_n, 2);
	done(&p);
}

/* A write before the launch may have been read by it. */
static void write_not_dead(void **state)
{
	(void)state;
	struct pair p = run(A("0x1000", "a") SET("0x1000") U SET("0x1000") K("ka", "read", "0x1000")
			    F("0x1000"));
	ruled_out(&p, GMP_PAT_DEAD_WRITE, "a");
	done(&p);
	/* Writes after it are judged as ever. */
	p = run(A("0x1000", "a") U SET("0x1000") SET("0x1000") K("ka", "read", "0x1000") F("0x1000"));
	assert_int_equal(ts_count(p.r, GMP_PAT_DEAD_WRITE, "a"), 1);
	done(&p);
}

/*
 * Live when it was issued, by issue order: a launch on another stream that
 * the graph may level before the allocation still counts; one issued
 * before the allocation or after the free does not.
 */
static void lifetime_by_issue_order(void **state)
{
	(void)state;
	struct pair p = run(AS("0x9000", "b", 1) KS("b1", "write", "0x9000", 1)
			    KS("b2", "read", "0x9000", 1) AS("0x1000", "a", 1) US(2)
			    FS("0x1000", 1) FS("0x9000", 1));
	assert_true(p.r->level[4] < p.r->level[3]); /* the launch is levelled before the allocation */
	ruled_out(&p, GMP_PAT_UNUSED_ALLOCATION, "a");
	done(&p);
	p = run(U A("0x1000", "a") F("0x1000") U);
	assert_int_equal(ts_count(p.r, GMP_PAT_UNUSED_ALLOCATION, "a"), 1);
	assert_int_equal(p.r->objects[0].unmonitored, 0);
	done(&p);
}

/* Redundant allocation: the uses the launch may have made overlap the other object's. */
static void redundant_overlap(void **state)
{
	(void)state;
	struct pair p = run(A("0x1000", "a") A("0x3000", "b") K("ka", "write", "0x1000")
			    K("ka2", "read", "0x1000") U K("kb", "write", "0x3000")
			    K("kb2", "read", "0x3000") F("0x1000") F("0x3000"));
	ruled_out(&p, GMP_PAT_REDUNDANT_ALLOCATION, NULL);
	done(&p);
}

/* Overallocation needs every launch's touches: not judged where the launch may have touched more. */
static void overallocation_not_judged(void **state)
{
	(void)state;
	struct pair p = run(
		"{\"op\":\"alloc\",\"addr\":\"0x100000\",\"size\":1048576,\"label\":\"t\"}\n"
		"{\"op\":\"kernel\",\"name\":\"k\",\"touch\":[{\"addr\":\"0x100000\",\"size\":4096,\"rw\":\"r\"}]}\n"
		U "{\"op\":\"free\",\"addr\":\"0x100000\"}\n");
	ruled_out(&p, GMP_PAT_OVERALLOCATION, "t");
	done(&p);
}

/* Alloc mode knows no launch's accesses: there launches do not count as uses (only leaks are told). */
static void not_in_alloc_mode(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script(A("0x1000", "a") U);
	struct gmp_detect_opts o;
	gmp_detect_opts__defaults(&o);
	o.accesses_unknown = 1;
	struct gmp_result *r = ts_detect(t, &o);
	assert_int_equal(r->objects[0].unmonitored, 0);
	assert_int_equal(ts_one(r, GMP_PAT_MEMORY_LEAK, "a")->ev_a, GMP_NO_EVENT);
	gmp_result__free(r);
	gmp_trace__free(t);
}

static void script_field(void **state)
{
	(void)state;
	struct gmp_script_error e = ts_script_error(A("0x1000", "a")
		"{\"op\":\"kernel\",\"name\":\"u\",\"monitored\":false,\"read\":[\"0x1000\"]}\n");
	assert_int_equal(e.line, 2);
	assert_non_null(strstr(e.msg, "takes no 'read'"));
	e = ts_script_error("{\"op\":\"kernel\",\"name\":\"u\",\"monitored\":0}\n");
	assert_int_equal(e.line, 1);
	assert_non_null(strstr(e.msg, "true or false"));
	/* "monitored": true is a monitored launch, as without the field. */
	struct gmp_trace *t = ts_script(A("0x1000", "a")
		"{\"op\":\"kernel\",\"name\":\"k\",\"monitored\":true,\"read\":[\"0x1000\"]}\n" F("0x1000"));
	assert_true(t->ev[1].flags & GMP_EF_ACCESS_KNOWN);
	assert_int_equal(t->unharvested, 0);
	gmp_trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(not_unused),
		cmocka_unit_test(early_up_to_it),
		cmocka_unit_test(late_from_it),
		cmocka_unit_test(idleness_broken),
		cmocka_unit_test(write_not_dead),
		cmocka_unit_test(lifetime_by_issue_order),
		cmocka_unit_test(redundant_overlap),
		cmocka_unit_test(overallocation_not_judged),
		cmocka_unit_test(not_in_alloc_mode),
		cmocka_unit_test(script_field),
	};
	return cmocka_run_group_tests_name("unmonitored", tests, NULL, NULL);
}
