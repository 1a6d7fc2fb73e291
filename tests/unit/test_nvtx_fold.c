// SPDX-License-Identifier: MIT
/*
 * NVTX names with counters folded into one (analyzer/nvtx_fold.c) and a
 * trace's NVTX names renamed (gmp_trace__rename_nvtx): the folding rules
 * name by name, and a training loop whose ranges and marks carry the epoch
 * read as one range and one mark series.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "markmem.h"
#include "nvtx_fold.h"
#include "rangemem.h"

static int strcmp_p(const char *const *a, const char *const *b)
{
	return strcmp(*a, *b);
}

/* t's NVTX names with their numbers folded (--nvtx-numbers). */
static void fold_numbers(struct gmp_trace *t)
{
	struct gmp_nvtx_fold f;
	char why[64];
	assert_int_equal(gmp_nvtx_fold__init(&f, NULL, 1, why, sizeof(why)), 0);
	assert_int_equal(gmp_nvtx_fold__trace(&f, t), 0);
	gmp_nvtx_fold__release(&f);
}

static void folds(const char *strip, int numbers, const char *name, const char *want)
{
	struct gmp_nvtx_fold f;
	char why[128];
	assert_int_equal(gmp_nvtx_fold__init(&f, strip, numbers, why, sizeof(why)), 0);
	char *got = gmp_nvtx_fold__dup(&f, name);
	assert_non_null(got);
	if (strcmp(got, want))
		fail_msg("'%s' (strip %s, numbers %d): '%s', want '%s'", name, strip ? strip : "none", numbers, got, want);
	free(got);
	gmp_nvtx_fold__release(&f);
}

static void numbers(void **state)
{
	(void)state;
	folds(NULL, 1, "epoch 3", "epoch N");
	folds(NULL, 1, "aten::mm, seq = 812, op_id = 9", "aten::mm, seq = N, op_id = N");
	folds(NULL, 1, "lr 0.001 step 12/300", "lr N step N/N");
	folds(NULL, 1, "3", "N");
	folds(NULL, 1, "a-12-b", "a-N-b");
	folds(NULL, 1, "1.2.3 and 12.", "N and N.");
	/* Digits in a word of letters, underscores or dots are part of it. */
	folds(NULL, 1, "layer.3.attn", "layer.3.attn");
	folds(NULL, 1, "conv2d", "conv2d");
	folds(NULL, 1, "layer1", "layer1");
	folds(NULL, 1, "step_3", "step_3");
	folds(NULL, 1, "0x7f", "0x7f");
	folds(NULL, 1, "v1.2", "v1.2");
	folds(NULL, 1, "3d", "3d");
	folds(NULL, 1, "x.5", "x.5");
	folds(NULL, 1, ".5", ".5");
	folds(NULL, 0, "epoch 3", "epoch 3");
}

static void strip(void **state)
{
	(void)state;
	folds(", seq = [0-9]+.*", 0, "aten::mm, seq = 12, sizes = [[64, 128]]", "aten::mm");
	folds(" [0-9]+", 0, "epoch 3 of 10", "epoch of");
	folds("^a", 0, "aaa", "aa"); /* only the name's start is its start */
	folds("x*", 0, "abc", "abc"); /* empty matches remove nothing, and end */
	folds("x*$", 0, "abx", "ab");
	folds(".*", 0, "all of it", "(unnamed)");
	folds("seq", 1, "seq3 seq 4", "N  N"); /* stripped first, then numbers: "3" stands alone then */
	struct gmp_nvtx_fold f;
	char why[128];
	assert_int_equal(gmp_nvtx_fold__init(&f, "(", 0, why, sizeof(why)), -1);
	assert_true(strlen(why) > 0);
}

/* Names of any length: folded whole. */
static void long_names(void **state)
{
	(void)state;
	char name[3000];
	memset(name, '7', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	folds("7", 1, name, "(unnamed)");
	folds(NULL, 1, name, "N");
	memcpy(name + 2990, " x 12", 6);
	struct gmp_nvtx_fold f;
	char why[64];
	assert_int_equal(gmp_nvtx_fold__init(&f, NULL, 1, why, sizeof(why)), 0);
	char *got = gmp_nvtx_fold__dup(&f, name);
	assert_non_null(got);
	assert_string_equal(got, "N x N");
	free(got);
	gmp_nvtx_fold__release(&f);
	memset(name, 'a', 2990); /* letters, " 5 " among them, then " x 12" */
	memcpy(name + 2500, " 5 ", 3);
	char want[3000];
	snprintf(want, sizeof(want), "%s", name);
	memcpy(want + 2500, " N ", 3);
	memcpy(want + 2990, " x N", 5);
	folds(NULL, 1, name, want);
}

/* Three epochs, each a range "epoch K" around a "fwd" that keeps a buffer, and a mark "epoch K done". */
static const char loop[] =
	"{\"op\":\"range_push\",\"name\":\"epoch 1\"}\n{\"op\":\"range_push\",\"name\":\"fwd\"}\n"
	"{\"op\":\"alloc\",\"addr\":65536,\"size\":1024}\n{\"op\":\"kernel\",\"name\":\"k\",\"write\":[65536]}\n"
	"{\"op\":\"range_pop\"}\n{\"op\":\"range_pop\"}\n{\"op\":\"mark\",\"name\":\"epoch 1 done\"}\n"
	"{\"op\":\"range_push\",\"name\":\"epoch 2\"}\n{\"op\":\"range_push\",\"name\":\"fwd\"}\n"
	"{\"op\":\"alloc\",\"addr\":131072,\"size\":1024}\n{\"op\":\"kernel\",\"name\":\"k\",\"write\":[131072]}\n"
	"{\"op\":\"alloc_failed\",\"size\":1048576}\n"
	"{\"op\":\"range_pop\"}\n{\"op\":\"range_pop\"}\n{\"op\":\"mark\",\"name\":\"epoch 2 done\"}\n"
	"{\"op\":\"range_push\",\"name\":\"epoch 3\"}\n{\"op\":\"range_push\",\"name\":\"fwd\"}\n"
	"{\"op\":\"alloc\",\"addr\":196608,\"size\":1024}\n{\"op\":\"kernel\",\"name\":\"k\",\"write\":[196608]}\n"
	"{\"op\":\"range_pop\"}\n{\"op\":\"range_pop\"}\n{\"op\":\"mark\",\"name\":\"epoch 3 done\"}\n";

static void trace(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script(loop);
	char was[8][128];
	size_t nev = t->nev, nrchg = t->nrchg;
	for (size_t i = 0; i < nev && i < 8; i++)
		gmp_trace__event_range_text(t, i, was[i], sizeof(was[i]));
	assert_int_equal(t->npaths, 6); /* epoch K, epoch K > fwd */
	char note[256];
	assert_int_equal(gmp_nvtx_fold__note(t, 1, note, sizeof(note)), 0);
	assert_string_equal(note, "--nvtx-numbers reads these 4 range names as 2 ('epoch 1' and 2 more as 'epoch N')");
	assert_int_equal(gmp_nvtx_fold__note(t, 0, note, sizeof(note)), 0);
	assert_string_equal(note, "--nvtx-numbers reads these 3 mark names as 1 ('epoch 1 done' and 2 more as "
				  "'epoch N done')");
	fold_numbers(t);
	/* Two paths now, as many changes; every event in the same ranges but for the epoch's number. */
	assert_int_equal(t->npaths, 2);
	assert_int_equal(t->nrchg, nrchg);
	assert_int_equal(t->nev, nev);
	for (size_t i = 0; i < nev; i++) {
		char now[128], want[128];
		gmp_trace__event_range_text(t, i, now, sizeof(now));
		if (i < 8) {
			snprintf(want, sizeof(want), "%s", was[i]);
			char *d = strpbrk(want, "0123456789");
			if (d)
				*d = 'N';
			assert_string_equal(now, want);
		}
		assert_true(!strcmp(now, "epoch N > fwd") || !strcmp(now, "epoch N") || !*now);
	}
	assert_int_equal(t->nfails, 1);
	char fr[128];
	assert_string_equal(gmp_trace__range_text(t, t->fails[0].range, fr, sizeof(fr)), "epoch N > fwd");
	assert_int_equal(t->nmarks, 3);
	for (size_t i = 0; i < 3; i++)
		assert_string_equal(gmp_trace__str(t, t->marks[i].name, NULL), "epoch N done");
	for (int ranges = 0; ranges < 2; ranges++) { /* folded: nothing more to fold */
		assert_int_equal(gmp_nvtx_fold__note(t, ranges, note, sizeof(note)), 0);
		assert_string_equal(note, "");
	}
	/* The ranges' and marks' memory: one range entered three times, one mark series that grew. */
	struct gmp_result *r = ts_detect(t, NULL);
	struct gmp_rmem m;
	assert_int_equal(gmp_rmem__build(r, &m), 0);
	int seen = 0;
	for (uint32_t k = 0; k < m.n; k++) {
		char p[128];
		const struct gmp_rmem_dev *x = gmp_rmem__at(&m, k, 0);
		if (!strcmp(gmp_rmem__path(&m, r, k, p, sizeof(p)), "epoch N > fwd")) {
			seen = 1;
			assert_int_equal(x->times, 3);
			assert_int_equal(gmp_rmem__growth(x), 2048);
		}
	}
	assert_true(seen);
	gmp_rmem__release(&m);
	struct gmp_mmem mm;
	assert_int_equal(gmp_mmem__build(r, &mm), 0);
	assert_int_equal(mm.ngroups, 1);
	assert_int_equal(mm.group[0].times, 3);
	assert_int_equal(gmp_mmem__growth(gmp_mmem__at(&mm, 0, 0)), 2048);
	gmp_mmem__release(&mm);
	gmp_result__free(r);
	gmp_trace__free(t);
}

/*
 * The same random range changes in t, of the names raw[], and in u, of the
 * names folded[]: each thread's path changes every few events to a random
 * one.  Where a change leaves a raw name for another that folds alike
 * ("step 1" to "step 2"), u first changes to the part the raw paths share,
 * as a pop and a push of the same name are written: the range is entered
 * anew.
 */
static void random_ranges(struct gmp_trace *t, struct gmp_trace *u, uint64_t seed, const char *const *raw,
			  const char *const *folded, size_t nnames)
{
	uint32_t rid[8], fid[8], cur[4][3] = { { 0 } };
	size_t ncur[4] = { 0 };
	for (size_t i = 0; i < nnames; i++) {
		rid[i] = gmp_trace__intern_cstr(t, raw[i]);
		fid[i] = gmp_trace__intern_cstr(u, folded[i]);
	}
	for (size_t i = 0; i < t->nev; i++)
		t->ev[i].thread = u->ev[i].thread = 1 + (uint32_t)(ts_rnd(&seed) % 3);
	for (uint64_t before = ts_rnd(&seed) % 4; before < t->nev; before += 1 + ts_rnd(&seed) % 6) {
		uint32_t th = t->ev[before].thread, p[3], rp[3], fp[3]; /* name indices; raw and folded ids */
		size_t n = ts_rnd(&seed) % 4, kr = 0, kf = 0;
		for (size_t i = 0; i < n; i++) {
			p[i] = (uint32_t)(ts_rnd(&seed) % nnames);
			rp[i] = rid[p[i]];
			fp[i] = fid[p[i]];
		}
		while (kr < n && kr < ncur[th] && cur[th][kr] == p[kr])
			kr++;
		while (kf < n && kf < ncur[th] && !strcmp(folded[cur[th][kf]], folded[p[kf]]))
			kf++;
		int64_t id;
		if (kf > kr) {
			assert_true((id = gmp_trace__add_range_path(u, fp, kr)) >= 0);
			assert_int_equal(gmp_trace__add_range_change(u, before, th, (uint32_t)id), 0);
		}
		assert_true((id = gmp_trace__add_range_path(t, rp, n)) >= 0);
		assert_int_equal(gmp_trace__add_range_change(t, before, th, (uint32_t)id), 0);
		assert_true((id = gmp_trace__add_range_path(u, fp, n)) >= 0);
		assert_int_equal(gmp_trace__add_range_change(u, before, th, (uint32_t)id), 0);
		memcpy(cur[th], p, sizeof(p));
		ncur[th] = n;
	}
	assert_int_equal(gmp_trace__settle_ranges(t), 0);
	assert_int_equal(gmp_trace__settle_ranges(u), 0);
}

/* Each range path's numbers in m, as "path calls peak times growth" lines, sorted, into buf. */
static void rmem_lines(const struct gmp_result *r, char *buf, size_t n)
{
	struct gmp_rmem m;
	assert_int_equal(gmp_rmem__build(r, &m), 0);
	char *lines[4096];
	size_t k = 0, len = 0;
	for (size_t i = 0; i < m.ntree; i++)
		for (size_t d = 0; d < m.ndev && k < 4096; d++) {
			const struct gmp_rmem_dev *x = gmp_rmem__at(&m, m.tree[i], d);
			char p[256];
			assert_true(asprintf(&lines[k++], "%s %zu %llu %llu %llu %llu\n", gmp_rmem__path(&m, r, m.tree[i], p, sizeof(p)),
					     d, (unsigned long long)x->calls, (unsigned long long)x->peak,
					     (unsigned long long)x->times, (unsigned long long)gmp_rmem__growth(x)) > 0);
		}
	qsort(lines, k, sizeof(*lines), (int (*)(const void *, const void *))strcmp_p);
	buf[0] = 0;
	for (size_t i = 0; i < k; i++) {
		len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s", lines[i]);
		free(lines[i]);
	}
	assert_true(len < n);
	gmp_rmem__release(&m);
}

/*
 * Random traces whose ranges carry numbers, folded, against the same traces
 * made with the folded names from the start: the same paths, calls, peaks,
 * times and growth, and no path twice in the table.
 */
static void random_traces(void **state)
{
	(void)state;
	static const char *const raw[] = { "step 1", "step 2", "fwd 3", "fwd", "x2", "bwd 10" };
	static const char *const folded[] = { "step N", "step N", "fwd N", "fwd", "x2", "bwd N" };
	static char a[1 << 18], b[1 << 18];
	uint64_t seed = 0x70f0;
	size_t merged = 0;
	for (int round = 0; round < 200; round++) {
		uint64_t s1 = ts_rnd(&seed), s2 = ts_rnd(&seed), s3 = s1;
		struct gmp_trace *t = ts_random_trace(&s1), *u = ts_random_trace(&s3);
		random_ranges(t, u, s2, raw, folded, 6);
		size_t npaths = t->npaths, nrchg = t->nrchg;
		fold_numbers(t);
		assert_int_equal(t->npaths, u->npaths);
		assert_int_equal(t->nrchg, u->nrchg);
		merged += npaths - t->npaths + (t->nrchg - nrchg);
		for (uint32_t p = 1; p <= t->npaths; p++)
			for (uint32_t q = 1; q < p; q++) {
				const uint32_t *x, *y;
				size_t nx = gmp_trace__range_path(t, p, &x), ny = gmp_trace__range_path(t, q, &y);
				assert_false(nx == ny && !memcmp(x, y, nx * sizeof(*x)));
			}
		for (size_t i = 0; i < t->nev; i++) {
			char x[256], y[256];
			assert_string_equal(gmp_trace__event_range_text(t, i, x, sizeof(x)),
					    gmp_trace__event_range_text(u, i, y, sizeof(y)));
		}
		struct gmp_result *rt = ts_detect(t, NULL), *ru = ts_detect(u, NULL);
		rmem_lines(rt, a, sizeof(a));
		rmem_lines(ru, b, sizeof(b));
		assert_string_equal(a, b);
		gmp_result__free(rt);
		gmp_result__free(ru);
		gmp_trace__free(t);
		gmp_trace__free(u);
	}
	assert_true(merged > 100); /* paths that became one: 169 */
}

/* Range changes to no ranges, in a trace that has no range path at all (a profile's empty RANGES records). */
static void no_paths(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script("{\"op\":\"alloc\",\"addr\":4096,\"size\":64}\n{\"op\":\"free\",\"addr\":4096}\n");
	assert_int_equal(gmp_trace__add_range_change(t, 0, 1, 0), 0);
	assert_int_equal(gmp_trace__add_range_change(t, 1, 1, 0), 0);
	assert_int_equal(gmp_trace__settle_ranges(t), 0);
	fold_numbers(t);
	assert_int_equal(t->npaths, 0);
	assert_int_equal(t->nrchg, 2);
	assert_int_equal(gmp_trace__event_range(t, 1), 0);
	gmp_trace__free(t);
}

/* Names without digits fold to themselves: no note, and nothing allocated for one. */
static void no_digits(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script("{\"op\":\"range_push\",\"name\":\"step\"}\n{\"op\":\"alloc\",\"addr\":4096,"
				       "\"size\":64}\n{\"op\":\"range_pop\"}\n{\"op\":\"mark\",\"name\":\"done\"}\n");
	char note[64] = "x";
	for (int ranges = 0; ranges < 2; ranges++) {
		assert_int_equal(gmp_nvtx_fold__note(t, ranges, note, sizeof(note)), 0);
		assert_string_equal(note, "");
	}
	gmp_trace__free(t);
}

static void bad_map(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script(loop);
	size_t ns = gmp_trace__nstrings(t) + 1, npaths = t->npaths;
	uint32_t *map = calloc(ns, sizeof(*map));
	assert_non_null(map);
	for (size_t k = 0; k < ns; k++)
		map[k] = (uint32_t)k;
	map[1] = (uint32_t)ns + 5; /* no string */
	assert_int_equal(gmp_trace__rename_nvtx(t, map, ns), -EINVAL);
	map[1] = 0;
	assert_int_equal(gmp_trace__rename_nvtx(t, map, ns), -EINVAL);
	assert_int_equal(t->npaths, npaths);
	/* A map shorter than the strings leaves the rest as they are: the identity changes nothing. */
	map[1] = 1;
	assert_int_equal(gmp_trace__rename_nvtx(t, map, 1), 0);
	assert_int_equal(t->npaths, npaths);
	free(map);
	gmp_trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numbers),
		cmocka_unit_test(strip),
		cmocka_unit_test(long_names),
		cmocka_unit_test(trace),
		cmocka_unit_test(random_traces),
		cmocka_unit_test(no_paths),
		cmocka_unit_test(no_digits),
		cmocka_unit_test(bad_map),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
