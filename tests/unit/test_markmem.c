// SPDX-License-Identifier: MIT
/*
 * Memory at NVTX marks (detector/markmem.c): a loop's marks by hand, and
 * random multi-stream traces over two devices with marks of three names
 * from three threads, each mark's live bytes, each name's numbers and what
 * its series kept checked against sums made from the objects' lifetimes
 * one mark at a time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "markmem.h"

/* Device dev's bytes live after the first `before` events, as markmem.h counts them. */
static uint64_t live_at(const struct gmp_result *r, uint32_t dev, uint64_t before)
{
	uint64_t live = 0;
	for (size_t o = 0; o < r->nobjects; o++) {
		const struct gmp_object *ob = &r->objects[o];
		if (ob->device == dev && ob->kind != GMP_MEM_POOL_REGION && ob->alloc_ev < before &&
		    (ob->free_ev == GMP_NO_EVENT || ob->free_ev >= before))
			live += ob->size;
	}
	return live;
}

static size_t group_named(const struct gmp_mmem *m, const struct gmp_result *r, const char *name)
{
	size_t g = gmp_mmem__group_named(m, r, name);
	if (g == SIZE_MAX)
		fail_msg("no mark group '%s'", name);
	return g;
}

/* A loop marking "epoch" three times keeps a 1 KiB buffer each time; "start" before anything, "done" after a free. */
static void epoch_loop(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script("{\"op\":\"mark\",\"name\":\"start\"}\n"
					"{\"op\":\"alloc\",\"addr\":4096,\"size\":4096,\"label\":\"weights\"}\n"
					"{\"op\":\"alloc\",\"addr\":65536,\"size\":1024,\"label\":\"kept1\"}\n"
					"{\"op\":\"mark\",\"name\":\"epoch\"}\n"
					"{\"op\":\"alloc\",\"addr\":131072,\"size\":1024,\"label\":\"kept2\"}\n"
					"{\"op\":\"alloc\",\"addr\":8192,\"size\":512,\"label\":\"tmp\"}\n"
					"{\"op\":\"kernel\",\"name\":\"k\",\"write\":[4096,65536,131072,8192]}\n"
					"{\"op\":\"free\",\"addr\":8192}\n"
					"{\"op\":\"mark\",\"name\":\"epoch\"}\n"
					"{\"op\":\"alloc\",\"addr\":196608,\"size\":1024,\"label\":\"kept3\"}\n"
					"{\"op\":\"kernel\",\"name\":\"k\",\"write\":[4096,196608]}\n"
					"{\"op\":\"mark\",\"name\":\"epoch\"}\n"
					"{\"op\":\"free\",\"addr\":4096}\n"
					"{\"op\":\"mark\",\"name\":\"done\"}\n");
	struct gmp_result *r = ts_detect(t, NULL);
	struct gmp_mmem m;
	assert_int_equal(gmp_mmem__build(r, &m), 0);
	assert_int_equal(m.nmarks, 5);
	assert_int_equal(m.ngroups, 3);
	static const uint64_t want[] = { 0, 5120, 6144, 7168, 3072 }; /* tmp freed before the second epoch */
	for (size_t k = 0; k < 5; k++)
		assert_int_equal(m.live[k], want[k]);
	size_t e = group_named(&m, r, "epoch");
	assert_int_equal(e, 1); /* by their first marks */
	assert_int_equal(m.of[2], e);
	const struct gmp_mmem_dev *v = gmp_mmem__at(&m, e, 0);
	assert_int_equal(m.group[e].times, 3);
	assert_int_equal(v->first, 5120);
	assert_int_equal(v->last, 7168);
	assert_int_equal(v->min, 5120);
	assert_int_equal(v->max, 7168);
	assert_int_equal(v->max_mark, 3);
	assert_int_equal(gmp_mmem__growth(v), 2048);
	uint32_t *kept;
	size_t n;
	assert_int_equal(gmp_mmem__kept(&m, r, e, 0, &kept, &n), 0);
	assert_int_equal(n, 2); /* kept2 and kept3; not kept1 (before the first mark), nor tmp (freed) */
	assert_int_equal(kept[0], ts_obj(r, "kept2"));
	assert_int_equal(kept[1], ts_obj(r, "kept3"));
	free(kept);
	size_t d = group_named(&m, r, "done");
	assert_int_equal(gmp_mmem__growth(gmp_mmem__at(&m, d, 0)), 0);
	assert_int_equal(gmp_mmem__kept(&m, r, d, 0, &kept, &n), 0); /* one mark: nothing kept */
	assert_int_equal(n, 0);
	assert_null(kept);
	assert_true(gmp_mmem__shown(&m, group_named(&m, r, "start"), 0)); /* one device: every name, 0 B too */
	assert_int_equal(gmp_mmem__group_named(&m, r, "nothing"), SIZE_MAX);
	gmp_mmem__release(&m);
	gmp_result__free(r);
	gmp_trace__free(t);
}

/* Without marks: nothing, and nothing to release. */
static void no_marks(void **state)
{
	(void)state;
	struct gmp_trace *t = ts_script_file("figure2.jsonl");
	struct gmp_result *r = ts_detect(t, NULL);
	struct gmp_mmem m;
	assert_int_equal(gmp_mmem__build(r, &m), 0);
	assert_int_equal(m.ngroups, 0);
	assert_null(m.live);
	gmp_mmem__release(&m);
	gmp_result__free(r);
	gmp_trace__free(t);
}

/* Group g on device index d against sums over its marks; its kept objects against every object's lifetime. */
static void check_group(const struct gmp_mmem *m, const struct gmp_result *r, size_t g, size_t d, int round,
			size_t *kept_checked)
{
	const struct gmp_trace *t = r->trace;
	const struct gmp_mmem_group *x = &m->group[g];
	const struct gmp_mmem_dev *v = gmp_mmem__at(m, g, d);
	uint32_t dev = r->devices[d].device;
	uint64_t times = 0, first = 0, last = 0, min = UINT64_MAX, max = 0;
	uint32_t max_mark = UINT32_MAX, first_mark = UINT32_MAX, last_mark = 0;
	for (uint32_t k = 0; k < t->nmarks; k++) {
		if (t->marks[k].name != x->name)
			continue;
		uint64_t live = live_at(r, dev, t->marks[k].before), listed = 0;
		if (m->live[k * m->ndev + d] != live)
			fail_msg("round %d, mark %u, device %u: %llu live, %llu counted", round, k, dev,
				 (unsigned long long)m->live[k * m->ndev + d], (unsigned long long)live);
		uint32_t *objs;
		size_t nobjs;
		assert_int_equal(gmp_mmem__live_at(r, k, d, &objs, &nobjs), 0);
		for (size_t i = 0; i < nobjs; i++) {
			assert_int_equal(r->objects[objs[i]].device, dev);
			assert_true(i == 0 || r->objects[objs[i - 1]].alloc_ev < r->objects[objs[i]].alloc_ev);
			listed += r->objects[objs[i]].size;
		}
		free(objs);
		if (listed != live)
			fail_msg("round %d, mark %u, device %u: %llu live, %llu listed", round, k, dev,
				 (unsigned long long)live, (unsigned long long)listed);
		assert_int_equal(m->of[k], g);
		if (!times++) {
			first = live;
			first_mark = k;
		}
		last = live;
		last_mark = k;
		min = live < min ? live : min;
		if (max_mark == UINT32_MAX || live > max) {
			max = live;
			max_mark = k;
		}
	}
	if (x->times != times || x->first_mark != first_mark || x->last_mark != last_mark || v->first != first ||
	    v->last != last || v->min != min || v->max != max || v->max_mark != max_mark)
		fail_msg("round %d, group %zu, device %u: %llu/%llu times, %llu/%llu first, %llu/%llu last, "
			 "%llu/%llu least, %llu/%llu most at %u/%u", round, g, dev, (unsigned long long)x->times,
			 (unsigned long long)times, (unsigned long long)v->first, (unsigned long long)first,
			 (unsigned long long)v->last, (unsigned long long)last, (unsigned long long)v->min,
			 (unsigned long long)min, (unsigned long long)v->max, (unsigned long long)max, v->max_mark, max_mark);
	assert_int_equal(gmp_mmem__shown(m, g, d), m->ndev == 1 || max > 0);
	/* Kept: allocated after the first mark, live at the last; the growth is their bytes less those freed between. */
	uint64_t from = t->marks[first_mark].before, to = t->marks[last_mark].before, kept = 0, freed = 0;
	uint32_t *got;
	size_t n, want = 0;
	assert_int_equal(gmp_mmem__kept(m, r, g, d, &got, &n), 0);
	for (size_t o = 0; o < r->nobjects; o++) {
		const struct gmp_object *ob = &r->objects[o];
		if (ob->device != dev || ob->kind == GMP_MEM_POOL_REGION)
			continue;
		uint64_t a = ob->alloc_ev, f = ob->free_ev == GMP_NO_EVENT ? UINT64_MAX : ob->free_ev;
		if (a >= from && a < to && f >= to) {
			size_t j = 0;
			while (j < n && got[j] != o)
				j++;
			if (j == n)
				fail_msg("round %d, group %zu, device %u: object %zu kept, not listed", round, g, dev, o);
			want++;
			kept += ob->size;
		}
		freed += a < from && f >= from && f < to ? ob->size : 0;
	}
	if (n != want)
		fail_msg("round %d, group %zu, device %u: %zu kept listed, %zu kept", round, g, dev, n, want);
	for (size_t j = 1; j < n; j++)
		assert_true(r->objects[got[j - 1]].alloc_ev < r->objects[got[j]].alloc_ev);
	if (last + freed != first + kept)
		fail_msg("round %d, group %zu, device %u: %llu at the first, %llu at the last; kept %llu, freed %llu", round,
			 g, dev, (unsigned long long)first, (unsigned long long)last, (unsigned long long)kept,
			 (unsigned long long)freed);
	*kept_checked += n != 0;
	free(got);
}

static void random_traces(void **state)
{
	(void)state;
	static const char *const names[] = { "epoch", "step", "loaded" };
	uint64_t seed = 0x3a1c;
	size_t groups = 0, grew = 0, kept_checked = 0;
	for (int round = 0; round < 300; round++) {
		struct gmp_trace *t = ts_random_trace(&seed);
		uint32_t ids[3];
		for (int i = 0; i < 3; i++)
			ids[i] = gmp_trace__intern_cstr(t, names[i]);
		/* Marks every few events (some with none between), up to the end. */
		for (uint64_t before = 0; before <= t->nev; before += ts_rnd(&seed) % 5) {
			struct gmp_mark mk = { .before = before, .thread = 1 + (uint32_t)(ts_rnd(&seed) % 3),
					       .name = ids[ts_rnd(&seed) % 3] };
			if (t->nmarks == t->marks_cap) {
				size_t cap = t->marks_cap ? 2 * t->marks_cap : 16;
				struct gmp_mark *v = realloc(t->marks, cap * sizeof(*v));
				assert_non_null(v);
				t->marks = v;
				t->marks_cap = cap;
			}
			t->marks[t->nmarks++] = mk;
			if (t->nmarks > 64)
				break;
		}
		struct gmp_result *r = ts_detect(t, NULL);
		struct gmp_mmem m;
		assert_int_equal(gmp_mmem__build(r, &m), 0);
		assert_int_equal(m.nmarks, t->nmarks);
		assert_int_equal(m.ndev, r->ndevices);
		for (size_t g = 0; g < m.ngroups; g++) {
			if (g)
				assert_true(m.group[g - 1].first_mark < m.group[g].first_mark);
			for (size_t d = 0; d < m.ndev; d++) {
				check_group(&m, r, g, d, round, &kept_checked);
				grew += gmp_mmem__growth(gmp_mmem__at(&m, g, d)) != 0;
			}
		}
		struct gmp_mmem_grown *gv;
		size_t ng, want_ng = 0;
		assert_int_equal(gmp_mmem__grown(&m, &gv, &ng), 0);
		for (size_t i = 0; i < m.ngroups * m.ndev; i++)
			want_ng += gmp_mmem__growth(&m.dev[i]) != 0;
		assert_int_equal(ng, want_ng);
		for (size_t i = 0; i < ng; i++) {
			assert_int_equal(gv[i].growth, gmp_mmem__growth(gmp_mmem__at(&m, gv[i].g, gv[i].d)));
			assert_true(gv[i].growth > 0);
			assert_true(i == 0 || gv[i - 1].growth > gv[i].growth ||
				    (gv[i - 1].growth == gv[i].growth &&
				     (gv[i - 1].g < gv[i].g || (gv[i - 1].g == gv[i].g && gv[i - 1].d < gv[i].d))));
		}
		free(gv);
		groups += m.ngroups;
		gmp_mmem__release(&m);
		gmp_result__free(r);
		gmp_trace__free(t);
	}
	assert_true(groups > 600);
	assert_true(grew > 100);
	assert_true(kept_checked > 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(epoch_loop),
		cmocka_unit_test(no_marks),
		cmocka_unit_test(random_traces),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
