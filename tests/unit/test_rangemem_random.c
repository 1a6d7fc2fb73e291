// SPDX-License-Identifier: MIT
/*
 * Memory by NVTX range (detector/rangemem.c) on random multi-stream traces
 * over two devices and three host threads whose ranges change at random:
 * each range's calls, peak, allocated and outlived bytes, times, and what
 * its times kept, against sums made from the objects' lifetimes one event
 * at a time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "rangemem.h"

/* Whether event ev's ranges begin with node k's path (k's names, outermost first, in nk). */
static int inside(const struct gmp_trace *t, uint32_t ev, const uint32_t *k, size_t nk)
{
	const uint32_t *names;
	size_t n = gmp_trace__range_path(t, gmp_trace__event_range(t, ev), &names);
	if (n < nk)
		return 0;
	for (size_t i = 0; i < nk; i++)
		if (names[i] != k[i])
			return 0;
	return 1;
}

/* Checks every node of m on every device against sums over the events and objects. */
/*
 * Node k's kept objects on device index d (gmp_rmem__kept) against those
 * found from every object's positions, and its growth against them: the
 * live bytes as its latest time began less those as its earliest did are
 * the kept objects' bytes less those live then and freed between.  1 when
 * the node has two times there to check.
 */
static int check_kept(const struct gmp_rmem *m, const struct gmp_result *r, uint32_t k, size_t d, const uint32_t *pos,
		      int round)
{
	const struct gmp_rmem_dev *x = gmp_rmem__at(m, k, d);
	uint32_t *got;
	size_t n;
	assert_int_equal(gmp_rmem__kept(m, r, k, d, &got, &n), 0);
	if (x->times < 2) {
		assert_int_equal(n, 0);
		return 0;
	}
	uint32_t first = x->first_pos, last = x->last_pos;
	size_t want = 0;
	uint64_t kept = 0, freed = 0;
	for (size_t o = 0; o < r->nobjects; o++) {
		const struct gmp_object *ob = &r->objects[o];
		if (ob->device != r->devices[d].device || ob->kind == GMP_MEM_POOL_REGION)
			continue;
		uint32_t a = pos[ob->alloc_ev], f = ob->free_ev == GMP_NO_EVENT ? UINT32_MAX : pos[ob->free_ev];
		if (a >= first && a < last && f >= last) {
			size_t j = 0; /* in got, once */
			while (j < n && got[j] != o)
				j++;
			if (j == n)
				fail_msg("round %d, node %u, device %zu: object %zu kept, not listed", round, k, d, o);
			want++;
			kept += ob->size;
		}
		freed += a < first && f >= first && f < last ? ob->size : 0;
	}
	if (n != want)
		fail_msg("round %d, node %u, device %zu: %zu kept listed, %zu kept", round, k, d, n, want);
	for (size_t j = 1; j < n; j++) /* in the order of their allocations */
		assert_true(pos[r->objects[got[j - 1]].alloc_ev] < pos[r->objects[got[j]].alloc_ev]);
	if (x->entry_last + freed != x->entry_first + kept)
		fail_msg("round %d, node %u, device %zu: began with %llu, then %llu; kept %llu, freed %llu", round, k, d,
			 (unsigned long long)x->entry_first, (unsigned long long)x->entry_last, (unsigned long long)kept,
			 (unsigned long long)freed);
	free(got);
	return 1;
}

static void check_random(const struct gmp_rmem *m, const struct gmp_result *r, int round, size_t *kept_checked)
{
	const struct gmp_trace *t = r->trace;
	uint32_t *pos = malloc(t->nev * sizeof(*pos));
	assert_non_null(pos);
	for (uint32_t p = 0; p < t->nev; p++)
		pos[r->order[p]] = p;
	size_t in_tree = 0;
	for (uint32_t k = 0; k < m->n; k++) {
		uint32_t names[GMP_RANGE_DEPTH_MAX];
		size_t nk = m->node[k].depth + 1;
		for (uint32_t j = k, i = (uint32_t)nk; i > 0; j = m->node[j].parent)
			names[--i] = m->node[j].name;
		uint64_t any_calls = 0;
		for (size_t d = 0; d < r->ndevices; d++) {
			uint32_t dev = r->devices[d].device;
			uint64_t calls = 0, peak = 0, alloc = 0, nalloc = 0, outl = 0, noutl = 0;
			uint32_t peak_ev = GMP_NO_EVENT;
			for (uint32_t p = 0; p < t->nev; p++) {
				uint32_t ev = r->order[p];
				if (t->ev[ev].device != dev || !inside(t, ev, names, nk))
					continue;
				uint64_t live = 0; /* the device's objects allocated at or before p, freed after it */
				for (size_t o = 0; o < r->nobjects; o++) {
					const struct gmp_object *ob = &r->objects[o];
					if (ob->device == dev && pos[ob->alloc_ev] <= p &&
					    (ob->free_ev == GMP_NO_EVENT || pos[ob->free_ev] > p))
						live += ob->size;
				}
				if (!calls++ || live > peak) {
					peak = live;
					peak_ev = ev;
				}
			}
			for (size_t o = 0; o < r->nobjects; o++) {
				const struct gmp_object *ob = &r->objects[o];
				if (ob->device != dev || !inside(t, ob->alloc_ev, names, nk))
					continue;
				alloc += ob->size;
				nalloc++;
				if (ob->free_ev == GMP_NO_EVENT || !inside(t, ob->free_ev, names, nk)) {
					outl += ob->size;
					noutl++;
				}
			}
			const struct gmp_rmem_dev *x = gmp_rmem__at(m, k, d);
			/* Its times: at least one where it has calls, at most one a call; none where it has none. */
			if (calls ? x->times < 1 || x->times > calls || x->time_peak_min > x->peak ||
					    x->entry_first > r->devices[d].peak_bytes || x->entry_last > r->devices[d].peak_bytes
				  : x->times != 0)
				fail_msg("round %d, node %u, device %u: %llu times for %llu calls, the least peak %llu of %llu",
					 round, k, dev, (unsigned long long)x->times, (unsigned long long)calls,
					 (unsigned long long)x->time_peak_min, (unsigned long long)x->peak);
			if (x->calls != calls || x->peak != peak || x->peak_ev != peak_ev || x->alloc_bytes != alloc ||
			    x->alloc_objects != nalloc || x->outlive_bytes != outl || x->outlive_objects != noutl)
				fail_msg("round %d, node %u, device %u: %llu/%llu calls, peak %llu/%llu at %u/%u, "
					 "allocated %llu/%llu in %llu/%llu, outlived %llu/%llu in %llu/%llu",
					 round, k, dev, (unsigned long long)x->calls, (unsigned long long)calls,
					 (unsigned long long)x->peak, (unsigned long long)peak, x->peak_ev, peak_ev,
					 (unsigned long long)x->alloc_bytes, (unsigned long long)alloc,
					 (unsigned long long)x->alloc_objects, (unsigned long long)nalloc,
					 (unsigned long long)x->outlive_bytes, (unsigned long long)outl,
					 (unsigned long long)x->outlive_objects, (unsigned long long)noutl);
			any_calls += calls;
			*kept_checked += check_kept(m, r, k, d, pos, round);
		}
		in_tree += any_calls != 0;
	}
	/* The tree: the nodes with calls, each after its parent, siblings by their first call. */
	assert_int_equal(m->ntree, in_tree);
	uint8_t *seen = calloc(m->n ? m->n : 1, 1);
	assert_non_null(seen);
	for (size_t i = 0; i < m->ntree; i++) {
		uint32_t k = m->tree[i], parent = m->node[k].parent;
		assert_false(seen[k]);
		assert_true(parent == GMP_RMEM_ROOT || seen[parent]);
		seen[k] = 1;
		for (size_t j = 0; j < i; j++) /* an earlier sibling began earlier */
			if (m->node[m->tree[j]].parent == parent)
				assert_true(m->node[m->tree[j]].first < m->node[k].first);
		if (i + 1 < m->ntree && m->node[m->tree[i + 1]].depth > m->node[k].depth)
			assert_int_equal(m->node[m->tree[i + 1]].parent, k); /* a node's subtree follows it */
	}
	free(seen);
	free(pos);
}

static void random_traces(void **state)
{
	(void)state;
	static const char *const names[] = { "step", "fwd", "bwd" };
	uint64_t seed = 0x4a9e;
	size_t nodes = 0, outlived = 0, kept_checked = 0;
	for (int round = 0; round < 300; round++) {
		struct gmp_trace *t = ts_random_trace(&seed);
		for (size_t i = 0; i < t->nev; i++)
			t->ev[i].thread = 1 + (uint32_t)(ts_rnd(&seed) % 3);
		uint32_t ids[3];
		for (int i = 0; i < 3; i++)
			ids[i] = gmp_trace__intern_cstr(t, names[i]);
		/* Every few events a thread's ranges change to a random path, up to three deep (0: none). */
		for (uint64_t before = ts_rnd(&seed) % 4; before < t->nev; before += 1 + ts_rnd(&seed) % 6) {
			uint32_t path[3];
			size_t n = ts_rnd(&seed) % 4;
			for (size_t i = 0; i < n; i++)
				path[i] = ids[ts_rnd(&seed) % 3];
			int64_t id = gmp_trace__add_range_path(t, path, n);
			assert_true(id >= 0);
			assert_int_equal(gmp_trace__add_range_change(t, before, t->ev[before].thread, (uint32_t)id), 0);
		}
		assert_int_equal(gmp_trace__settle_ranges(t), 0);
		struct gmp_result *r = ts_detect(t, NULL);
		struct gmp_rmem m;
		assert_int_equal(gmp_rmem__build(r, &m), 0);
		check_random(&m, r, round, &kept_checked);
		nodes += m.ntree;
		for (size_t i = 0; i < m.n * m.ndev; i++)
			outlived += m.dev[i].outlive_objects != 0;
		gmp_rmem__release(&m);
		gmp_result__free(r);
		gmp_trace__free(t);
	}
	assert_true(nodes > 1000);
	assert_true(outlived > 300);
	assert_true(kept_checked > 300);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_traces),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
