// SPDX-License-Identifier: MIT
/*
 * Detector edge cases: independent streams, synchronization that orders
 * but never counts, address reuse, range-exact dead writes, redundant
 * allocation sizes, peaks, savings and thresholds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define A(addr, size, label) \
	"{\"op\":\"alloc\",\"addr\":\"" addr "\",\"size\":" #size ",\"label\":\"" label "\"}\n"
#define AS(addr, size, label, s) \
	"{\"op\":\"alloc\",\"addr\":\"" addr "\",\"size\":" #size ",\"label\":\"" label "\",\"stream\":" #s "}\n"
#define K(name, rw, addr) "{\"op\":\"kernel\",\"name\":\"" name "\",\"" rw "\":[\"" addr "\"]}\n"
#define KS(name, rw, addr, s) \
	"{\"op\":\"kernel\",\"name\":\"" name "\",\"" rw "\":[\"" addr "\"],\"stream\":" #s "}\n"
#define F(addr) "{\"op\":\"free\",\"addr\":\"" addr "\"}\n"
#define FS(addr, s) "{\"op\":\"free\",\"addr\":\"" addr "\",\"stream\":" #s "}\n"

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

/* Work on an unrelated stream, issued in between, is no reason for "early". */
static void independent_streams_no_false_early(void **state)
{
	(void)state;
	static const char body[] =
		AS("0x1000", 4096, "A", 1) AS("0x9000", 4096, "B", 2)
		KS("kb1", "write", "0x9000", 2) KS("kb2", "read", "0x9000", 2)
		KS("kb3", "read", "0x9000", 2) KS("ka", "write", "0x1000", 1)
		FS("0x1000", 1) FS("0x9000", 2);
	struct gmp_trace *t;
	struct gmp_result *r = run(body, &t);
	assert_int_equal(ts_count(r, GMP_PAT_EARLY_ALLOCATION, "A"), 0);
	assert_int_equal(r->level[5], 1); /* ka right after its allocation */
	done(r, t);
	/* The control: the same calls on one stream are early. */
	static const char one_stream[] =
		A("0x1000", 4096, "A") A("0x9000", 4096, "B") K("kb1", "write", "0x9000")
		K("kb2", "read", "0x9000") K("kb3", "read", "0x9000") K("ka", "write", "0x1000")
		F("0x1000") F("0x9000");
	r = run(one_stream, &t);
	assert_int_equal(ts_one(r, GMP_PAT_EARLY_ALLOCATION, "A")->apis_between, 4);
	done(r, t);
}

/* Sync and event ops order work but are never among the APIs between. */
static void sync_ops_not_counted(void **state)
{
	(void)state;
	static const char body[] =
		A("0x1000", 4096, "A")
		"{\"op\":\"sync\"}\n{\"op\":\"sync\",\"stream\":0}\n"
		"{\"op\":\"event_record\",\"event\":1}\n{\"op\":\"event_wait\",\"event\":1,\"stream\":4}\n"
		"{\"op\":\"sync\",\"event\":1}\n"
		K("k1", "write", "0x1000")
		"{\"op\":\"sync\"}\n{\"op\":\"sync\"}\n{\"op\":\"sync\",\"stream\":0}\n"
		K("k2", "read", "0x1000")
		"{\"op\":\"sync\"}\n"
		F("0x1000");
	struct gmp_trace *t;
	struct gmp_result *r = run(body, &t);
	assert_int_equal(r->nfindings, 0);
	assert_int_equal(r->napis, 4);
	/* Levels: alloc 0, k1 1, k2 2, free 3 -- syncs take no step of their own. */
	assert_int_equal(r->level[6], 1);
	assert_int_equal(r->level[10], 2);
	assert_int_equal(r->level[12], 3);
	done(r, t);
}

/* Syncs order streams: device, stream and event syncs, and event waits. */
static void sync_orders_streams(void **state)
{
	(void)state;
	static const char *const cases[] = {
		"{\"op\":\"sync\"}\n",
		"{\"op\":\"sync\",\"stream\":1}\n",
		"{\"op\":\"event_record\",\"event\":9,\"stream\":1}\n{\"op\":\"sync\",\"event\":9}\n",
		"{\"op\":\"event_record\",\"event\":9,\"stream\":1}\n{\"op\":\"event_wait\",\"event\":9,\"stream\":2}\n",
	};
	for (size_t i = 0; i < 5; i++) {
		char body[1024];
		snprintf(body, sizeof(body),
			 AS("0x1000", 16, "A", 1) AS("0x2000", 16, "B", 2)
			 KS("k1", "write", "0x1000", 1) KS("k1b", "write", "0x1000", 1)
			 "%s" KS("k2", "write", "0x2000", 2),
			 i < 4 ? cases[i] : "");
		struct gmp_trace *t;
		struct gmp_result *r = run(body, &t);
		uint32_t k2 = (uint32_t)t->nev - 1;
		if (i < 4)
			assert_true(r->level[k2] > r->level[3]); /* after k1b */
		else
			assert_int_equal(r->level[k2], 1);      /* unordered without a sync */
		done(r, t);
	}
}

/*
 * A host barrier orders only its own thread's later calls: eight threads
 * each sync their stream (as tests/gpu/multithread.cu does on a GPU), and
 * another thread's next allocation and kernel stay where their own
 * stream puts them.  The same calls from one thread are ordered.
 */
static void barrier_per_thread(void **state)
{
	(void)state;
#define TH(op, th) "{\"op\":\"" op "\",\"stream\":" #th ",\"thread\":" #th "}\n"
#define ATH(addr, th) "{\"op\":\"alloc\",\"addr\":\"" addr "\",\"size\":64,\"stream\":" #th ",\"thread\":" #th "}\n"
#define KTH(addr, th) "{\"op\":\"kernel\",\"name\":\"k\",\"write\":[\"" addr "\"],\"stream\":" #th ",\"thread\":" #th "}\n"
	static const char threads[] =
		ATH("0x1000", 1) KTH("0x1000", 1) KTH("0x1000", 1) KTH("0x1000", 1) TH("sync", 1)
		ATH("0x2000", 2) KTH("0x2000", 2);
	struct gmp_trace *t;
	struct gmp_result *r = run(threads, &t);
	assert_int_equal(r->level[5], 0); /* thread 2's allocation: not after thread 1's sync */
	assert_int_equal(r->level[6], 1);
	assert_int_equal(ts_count(r, GMP_PAT_EARLY_ALLOCATION, NULL), 0);
	done(r, t);
	/* The control: thread 1 issues all of it, so its sync orders what follows. */
	static const char one[] =
		ATH("0x1000", 1) KTH("0x1000", 1) KTH("0x1000", 1) KTH("0x1000", 1) TH("sync", 1)
		"{\"op\":\"alloc\",\"addr\":\"0x2000\",\"size\":64,\"stream\":2,\"thread\":1}\n"
		"{\"op\":\"kernel\",\"name\":\"k\",\"write\":[\"0x2000\"],\"stream\":2,\"thread\":1}\n";
	r = run(one, &t);
	assert_true(r->level[5] > r->level[3]);
	done(r, t);
#undef TH
#undef ATH
#undef KTH
}

/* A stand-in demangler: "kN" reads as "kernel_N()", anything else is kept. */
static int demangled;
static char *fake_demangle(const char *name)
{
	if (name[0] != 'k')
		return NULL;
	demangled++;
	char *out = malloc(strlen(name) + 16);
	if (out)
		sprintf(out, "kernel_%s()", name + 1);
	return out;
}

/* Labels name kernels through opts.demangle, cached, also past the cache's size. */
static void kernel_names_demangled(void **state)
{
	(void)state;
	enum { N = 150 }; /* more distinct kernels than the label cache holds */
	size_t cap = 64 + N * 96;
	char *body = malloc(cap), *at = body;
	assert_non_null(body);
	at += sprintf(at, "{\"op\":\"alloc\",\"addr\":\"0x1000\",\"size\":64}\n");
	for (int i = 0; i < N; i++)
		at += sprintf(at, "{\"op\":\"kernel\",\"name\":\"k%d\",\"read\":[\"0x1000\"]}\n", i);
	struct gmp_trace *t = ts_script(body);
	free(body);
	struct gmp_detect_opts o;
	gmp_detect_opts__defaults(&o);
	o.demangle = fake_demangle;
	struct gmp_result *r = ts_detect(t, &o);
	char buf[128], want[128];
	demangled = 0;
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < N; i++) {
			snprintf(want, sizeof(want), "KERNEL kernel_%d() (stream 0, #%d)", i, i + 1);
			assert_string_equal(gmp_result__api_label(r, (uint32_t)i + 1, buf, sizeof(buf)), want);
			assert_string_equal(gmp_result__api_label(r, (uint32_t)i + 1, buf, sizeof(buf)), want);
		}
	assert_true(demangled <= 2 * N); /* a repeated label is served from the cache */
	gmp_result__free(r);
	/* Without the hook: the recorded names. */
	r = ts_detect(t, NULL);
	assert_string_equal(gmp_result__api_label(r, 1, buf, sizeof(buf)), "KERNEL k0 (stream 0, #1)");
	gmp_result__free(r);
	gmp_trace__free(t);
}

/* A freed object's address reused by a new object: two objects. */
static void address_reuse(void **state)
{
	(void)state;
	static const char body[] =
		A("0x1000", 4096, "X") K("kx", "write", "0x1000") F("0x1000")
		A("0x1000", 8192, "Y") K("ky", "read", "0x1800") F("0x1000");
	struct gmp_trace *t;
	struct gmp_result *r = run(body, &t);
	assert_int_equal(r->nobjects, 2);
	assert_int_equal(r->objects[0].naccess, 1);
	assert_int_equal(r->objects[1].naccess, 1);
	assert_int_equal(r->objects[1].first_ev, 4);
	assert_int_equal(r->nfindings, 0);
	assert_int_equal(r->peak_bytes, 8192);
	done(r, t);
}

/* A copy overwriting part of a set: only the overlap is dead. */
static void partial_overlap_dead_write(void **state)
{
	(void)state;
	static const char body[] =
		A("0x10000", 8192, "D")
		"{\"op\":\"memset\",\"addr\":\"0x10000\",\"size\":4096}\n"
		"{\"op\":\"memcpy\",\"dst\":\"0x10800\",\"size\":4096}\n"
		K("use", "read", "0x10000") F("0x10000");
	struct gmp_trace *t;
	struct gmp_result *r = run(body, &t);
	const struct gmp_finding *f = ts_one(r, GMP_PAT_DEAD_WRITE, "D");
	assert_int_equal(f->bytes, 2048);
	assert_int_equal(f->ev_a, 1);
	assert_int_equal(f->ev_b, 2);
	assert_int_equal(f->range_n, 1);
	assert_int_equal(r->ranges[f->range_off].off, 2048);
	assert_int_equal(r->ranges[f->range_off].len, 2048);
	done(r, t);
}

/* Writes to disjoint halves are both live. */
static void disjoint_writes_not_dead(void **state)
{
	(void)state;
	static const char body[] =
		A("0x10000", 8192, "D")
		"{\"op\":\"memset\",\"addr\":\"0x10000\",\"size\":4096}\n"
		"{\"op\":\"memcpy\",\"dst\":\"0x11000\",\"size\":4096}\n"
		K("use", "read", "0x10000") F("0x10000");
	struct gmp_trace *t;
	struct gmp_result *r = run(body, &t);
	assert_int_equal(ts_count(r, GMP_PAT_DEAD_WRITE, NULL), 0);
	done(r, t);
}

/* A device-to-host copy reads its source: the first write was used. */
static void d2h_copy_between_writes(void **state)
{
	(void)state;
	static const char body[] =
		A("0x10000", 8192, "D")
		"{\"op\":\"memcpy\",\"dst\":\"0x10000\",\"size\":8192}\n"
		"{\"op\":\"memcpy\",\"src\":\"0x10000\",\"size\":8192}\n"
		"{\"op\":\"memcpy\",\"dst\":\"0x10000\",\"size\":8192}\n"
		K("use", "read", "0x10000") F("0x10000");
	struct gmp_trace *t;
	struct gmp_result *r = run(body, &t);
	assert_int_equal(ts_count(r, GMP_PAT_DEAD_WRITE, NULL), 0);
	done(r, t);
	/* Reading back only the first half leaves the second half dead. */
	static const char half[] =
		A("0x10000", 8192, "D")
		"{\"op\":\"memcpy\",\"dst\":\"0x10000\",\"size\":8192}\n"
		"{\"op\":\"memcpy\",\"src\":\"0x10000\",\"size\":4096}\n"
		"{\"op\":\"memcpy\",\"dst\":\"0x10000\",\"size\":8192}\n"
		K("use", "read", "0x10000") F("0x10000");
	r = run(half, &t);
	const struct gmp_finding *f = ts_one(r, GMP_PAT_DEAD_WRITE, "D");
	assert_int_equal(f->bytes, 4096);
	assert_int_equal(r->ranges[f->range_off].off, 4096);
	done(r, t);
}

/* A kernel with recorded touches uses only what it touched. */
static void kernel_touches_clear_ranges(void **state)
{
	(void)state;
	static const char body[] =
		A("0x10000", 8192, "D")
		"{\"op\":\"memset\",\"addr\":\"0x10000\",\"size\":8192}\n"
		"{\"op\":\"kernel\",\"name\":\"half\",\"touch\":[{\"addr\":\"0x10000\",\"size\":4096,\"rw\":\"r\"}]}\n"
		"{\"op\":\"memset\",\"addr\":\"0x10000\",\"size\":8192}\n"
		K("use", "read", "0x10000") F("0x10000");
	struct gmp_trace *t;
	struct gmp_result *r = run(body, &t);
	assert_int_equal(ts_one(r, GMP_PAT_DEAD_WRITE, "D")->bytes, 4096);
	done(r, t);
}

/* Redundant allocation needs sizes within X%. */
static void redundant_size_threshold(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++) {
		char body[1024];
		snprintf(body, sizeof(body),
			 A("0x1000", 1000, "P") "{\"op\":\"alloc\",\"addr\":\"0x9000\",\"size\":%d,\"label\":\"Q\"}\n"
			 K("kp", "write", "0x1000") K("kq", "write", "0x9000") F("0x1000") F("0x9000"),
			 i == 0 ? 1090 : 1120);
		struct gmp_trace *t;
		struct gmp_result *r = run(body, &t);
		assert_int_equal(ts_count(r, GMP_PAT_REDUNDANT_ALLOCATION, "Q"), i == 0 ? 1 : 0);
		done(r, t);
	}
}

/*
 * Sizes so large that (size, index) keys do not fit 64 bits: the same
 * answer from the comparison-sort path, and the 10% window exact at the top.
 */
static void redundant_huge_sizes(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++) {
		char body[1024];
		/*
		 * 2^61 bytes, then the largest size within 10% of it, or one byte
		 * more; an object on device 1 makes (group, size, index) need 65 bits.
		 */
		snprintf(body, sizeof(body),
			 "{\"op\":\"alloc\",\"addr\":\"0x7000000000000000\",\"size\":64,\"device\":1}\n"
			 "{\"op\":\"kernel\",\"name\":\"k1\",\"device\":1,\"write\":[\"0x7000000000000000\"]}\n"
			 "{\"op\":\"alloc\",\"addr\":\"0x1000\",\"size\":\"0x2000000000000000\",\"label\":\"P\"}\n"
			 "{\"op\":\"alloc\",\"addr\":\"0x4000000000000000\",\"size\":\"%s\",\"label\":\"Q\"}\n"
			 K("kp", "write", "0x1000") K("kq", "write", "0x4000000000000000")
			 F("0x1000") F("0x4000000000000000"),
			 i == 0 ? "0x238e38e38e38e38e" : "0x238e38e38e38e38f");
		struct gmp_trace *t;
		struct gmp_result *r = run(body, &t);
		assert_int_equal(ts_count(r, GMP_PAT_REDUNDANT_ALLOCATION, "Q"), i == 0 ? 1 : 0);
		done(r, t);
	}
}

/* Unused and never freed: both findings; savings remove the object. */
static void unused_and_leaked(void **state)
{
	(void)state;
	static const char body[] =
		A("0x1000", 4096, "U") A("0x9000", 1024, "W") K("kw", "write", "0x9000") F("0x9000");
	struct gmp_trace *t;
	struct gmp_result *r = run(body, &t);
	const struct gmp_finding *u = ts_one(r, GMP_PAT_UNUSED_ALLOCATION, "U");
	ts_one(r, GMP_PAT_MEMORY_LEAK, "U");
	assert_int_equal(gmp_finding__peak_before(r, u), 5120);
	assert_int_equal(u->saving, 4096);
	/* Ranked by saving: U's findings come first. */
	assert_int_equal(r->findings[0].object, ts_obj(r, "U"));
	done(r, t);
}

/* The two highest peaks, with the objects live at each. */
static void two_peaks(void **state)
{
	(void)state;
	static const char body[] =
		A("0x1000", 100, "a") A("0x2000", 300, "b") K("k", "write", "0x2000") F("0x2000")
		A("0x3000", 50, "c") A("0x4000", 200, "d") K("k2", "write", "0x4000")
		F("0x4000") F("0x3000") F("0x1000");
	struct gmp_trace *t;
	struct gmp_result *r = run(body, &t);
	assert_int_equal(r->npeaks, 2);
	assert_int_equal(r->peaks[0].bytes, 400);
	assert_int_equal(r->peaks[1].bytes, 350);
	assert_int_equal(r->peaks[0].obj_n, 2);
	assert_int_equal(r->peak_objs[r->peaks[0].obj_off], ts_obj(r, "b"));
	assert_int_equal(r->peaks[1].obj_n, 3);
	done(r, t);
}

/* Thresholds and the pattern filter change the result. */
static void thresholds(void **state)
{
	(void)state;
	static const char body[] =
		A("0x1000", 64, "I") K("k1", "write", "0x1000") A("0x2000", 64, "J")
		K("k2", "write", "0x2000") K("k3", "read", "0x2000") K("k4", "read", "0x1000")
		F("0x1000") F("0x2000");
	struct gmp_trace *t = ts_script(body);
	struct gmp_detect_opts o;
	gmp_detect_opts__defaults(&o);
	struct gmp_result *r = ts_detect(t, &o);
	assert_int_equal(ts_count(r, GMP_PAT_TEMPORARY_IDLENESS, "I"), 1);
	gmp_result__free(r);
	o.idle_apis = 4;
	r = ts_detect(t, &o);
	assert_int_equal(ts_count(r, GMP_PAT_TEMPORARY_IDLENESS, "I"), 0);
	gmp_result__free(r);
	gmp_detect_opts__defaults(&o);
	assert_int_equal(gmp_pattern__parse_list("late_deallocation", &o.patterns), 0);
	r = ts_detect(t, &o);
	for (size_t i = 0; i < r->nfindings; i++)
		assert_int_equal(r->findings[i].pattern, GMP_PAT_LATE_DEALLOCATION);
	assert_true(r->nfindings > 0);
	gmp_result__free(r);
	assert_int_equal(gmp_pattern__parse_list("early_allocation,bogus", &o.patterns), -EINVAL);
	assert_int_equal(gmp_pattern__parse_list("early_allocation,", &o.patterns), -EINVAL);
	gmp_trace__free(t);
}

/*
 * --min-size: on random multi-stream traces (objects of three sizes), a
 * cut leaves out exactly the findings on smaller objects, counts them, and
 * changes nothing of the others (their saving included) nor the peaks.
 */
static int same_finding(const struct gmp_finding *a, const struct gmp_finding *b)
{
	return a->pattern == b->pattern && a->object == b->object && a->other == b->other && a->ev_a == b->ev_a &&
	       a->ev_b == b->ev_b && a->saving == b->saving && a->bytes == b->bytes && a->count == b->count;
}

static void min_size(void **state)
{
	(void)state;
	uint64_t seed = 0x5eed;
	size_t cut_some = 0;
	for (int round = 0; round < 300; round++) {
		struct gmp_trace *t = ts_random_trace(&seed);
		struct gmp_detect_opts o;
		gmp_detect_opts__defaults(&o);
		struct gmp_result *all = ts_detect(t, &o);
		assert_int_equal(all->nsmall, 0);
		/* Cuts at each object size and one past it: some objects fall on each side. */
		uint64_t cut = all->nobjects ? all->objects[ts_rnd(&seed) % all->nobjects].size + (ts_rnd(&seed) & 1) : 1;
		o.min_bytes = cut;
		struct gmp_result *r = ts_detect(t, &o);
		size_t want = 0;
		for (size_t i = 0; i < all->nfindings; i++) {
			const struct gmp_finding *f = &all->findings[i];
			if (all->objects[f->object].size < cut)
				continue;
			want++;
			size_t k = 0;
			while (k < r->nfindings && !same_finding(&r->findings[k], f))
				k++;
			if (k == r->nfindings)
				fail_msg("round %d, cut %llu: the finding %zu on a %llu-byte object is gone", round,
					 (unsigned long long)cut, i, (unsigned long long)all->objects[f->object].size);
		}
		for (size_t k = 0; k < r->nfindings; k++)
			assert_true(r->objects[r->findings[k].object].size >= cut);
		assert_int_equal(r->nfindings, want);
		assert_int_equal(r->nsmall, all->nfindings - want);
		assert_int_equal(r->min_bytes, r->nsmall ? cut : 0);
		assert_int_equal(r->npeaks, all->npeaks);
		for (size_t p = 0; p < r->npeaks; p++)
			assert_int_equal(r->peaks[p].bytes, all->peaks[p].bytes);
		cut_some += r->nsmall && r->nfindings;
		gmp_result__free(r);
		gmp_result__free(all);
		gmp_trace__free(t);
	}
	assert_true(cut_some > 30); /* the cuts fell between findings' objects often */
}

/*
 * Without the kernels' accesses (an alloc-mode profile): leaks only, each
 * with its last use unknown, so with no saving, no place in a plan and no
 * bytes freed at a failed allocation; the peaks as they were.
 */
static void accesses_unknown(void **state)
{
	(void)state;
	static const char body[] =
		A("0x1000", 4096, "U") A("0x9000", 1024, "L") K("kw", "write", "0x9000")
		"{\"op\":\"alloc_failed\",\"size\":8192}\n" A("0x20000", 8192, "E") K("k2", "read", "0x20000") F("0x20000");
	struct gmp_trace *t = ts_script(body);
	struct gmp_detect_opts o;
	gmp_detect_opts__defaults(&o);
	struct gmp_result *known = ts_detect(t, &o);
	ts_one(known, GMP_PAT_UNUSED_ALLOCATION, "U");
	const struct gmp_finding *lk = ts_one(known, GMP_PAT_MEMORY_LEAK, "L");
	assert_int_equal(lk->ev_a, 2); /* the kernel that wrote it */
	assert_true(gmp_finding__frees_memory(lk));
	o.accesses_unknown = 1;
	struct gmp_result *r = ts_detect(t, &o);
	assert_int_equal(r->nfindings, 2);
	for (size_t i = 0; i < r->nfindings; i++) {
		const struct gmp_finding *f = &r->findings[i];
		assert_int_equal(f->pattern, GMP_PAT_MEMORY_LEAK);
		assert_int_equal(f->ev_a, GMP_NO_EVENT);
		assert_int_equal(f->saving, 0);
		assert_false(gmp_finding__frees_memory(f));
		char buf[256];
		assert_non_null(strstr(gmp_result__suggestion(r, f, buf, sizeof(buf)), "its last use is not known"));
	}
	assert_int_equal(r->peak_bytes, known->peak_bytes);
	assert_int_equal(r->nfailures, 1);
	assert_int_equal(r->failures[0].freeable, 0);
	assert_true(known->failures[0].freeable > 0);
	struct gmp_plan p;
	assert_int_equal(gmp_result__plan(r, NULL, &p, NULL), 0);
	assert_int_equal(p.findings, 0);
	assert_int_equal(p.peak_all_fixed, p.peak);
	gmp_result__free(known);
	done(r, t);
}

/* Pool regions: accesses count for the pool too; frees must come in order. */
static void pool_regions(void **state)
{
	(void)state;
	static const char body[] =
		A("0x100000", 65536, "pool")
		"{\"op\":\"alloc\",\"addr\":\"0x100100\",\"size\":256,\"kind\":\"pool_region\",\"label\":\"t\"}\n"
		K("k", "write", "0x100180") F("0x100100") F("0x100000");
	struct gmp_trace *t;
	struct gmp_result *r = run(body, &t);
	assert_int_equal(r->objects[0].naccess, 1);
	assert_int_equal(r->objects[1].naccess, 1);
	assert_int_equal(r->objects[1].parent, 0);
	assert_int_equal(ts_count(r, GMP_PAT_UNUSED_ALLOCATION, NULL), 0);
	assert_int_equal(r->peak_bytes, 65536); /* regions are inside their pool */
	done(r, t);
	struct gmp_trace *bad = ts_script(
		A("0x100000", 65536, "pool")
		"{\"op\":\"alloc\",\"addr\":\"0x100100\",\"size\":256,\"kind\":\"pool_region\"}\n"
		F("0x100000"));
	struct gmp_detect_error e = ts_detect_error(bad);
	assert_int_equal(e.line, 3);
	assert_non_null(strstr(e.msg, "still live"));
	gmp_trace__free(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(independent_streams_no_false_early),
		cmocka_unit_test(sync_ops_not_counted),
		cmocka_unit_test(sync_orders_streams),
		cmocka_unit_test(barrier_per_thread),
		cmocka_unit_test(kernel_names_demangled),
		cmocka_unit_test(address_reuse),
		cmocka_unit_test(partial_overlap_dead_write),
		cmocka_unit_test(disjoint_writes_not_dead),
		cmocka_unit_test(d2h_copy_between_writes),
		cmocka_unit_test(kernel_touches_clear_ranges),
		cmocka_unit_test(redundant_size_threshold),
		cmocka_unit_test(redundant_huge_sizes),
		cmocka_unit_test(unused_and_leaked),
		cmocka_unit_test(two_peaks),
		cmocka_unit_test(thresholds),
		cmocka_unit_test(pool_regions),
		cmocka_unit_test(accesses_unknown),
		cmocka_unit_test(min_size),
	};
	return cmocka_run_group_tests_name("detect", tests, NULL, NULL);
}
