// SPDX-License-Identifier: MIT
/*
 * A device's live bytes by allocation site (analyzer/stack.c): the layers
 * of every column add up to the live bytes the plot draws there
 * (gmp_text__columns), and the column of the largest peak holds the
 * peak's bytes by site; on a directed script, and on random multi-stream
 * traces whose allocations get one of five sites.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "stack.h"
#include "cmds.h"

/* The column a level falls in (as the plots mark peaks). */
static uint32_t column_of(const struct gmp_result *r, uint32_t ev, uint32_t ncols)
{
	uint64_t levels = (uint64_t)r->max_level + 1;
	return (uint32_t)((((uint64_t)r->level[ev] + 1) * ncols + levels - 1) / levels - 1);
}

/* Checks st against the live bytes (inuse: bytes in use) of each column and the peak's bytes by site. */
static void check_curve(const struct gmp_result *r, uint32_t device, int inuse, const struct gmp_stack *st,
			const char *what)
{
	const size_t w = st->nsites + 1;
	uint64_t *col = calloc(st->ncols, sizeof(*col));
	assert_non_null(col);
	uint64_t top = gmp_text__columns(r, device, inuse ? r->inuse_curve : r->curve, inuse ? r->ninuse_curve : r->ncurve,
					 col, st->ncols);
	for (uint32_t c = 0; c < st->ncols; c++) {
		uint64_t sum = 0;
		for (size_t k = 0; k < w; k++)
			sum += st->v[(size_t)c * w + k];
		if (sum != col[c])
			fail_msg("%s: column %u holds %llu bytes in its layers, the plot %llu", what, c,
				 (unsigned long long)sum, (unsigned long long)col[c]);
	}
	uint32_t pc = st->peak_col;
	assert_int_equal(col[pc], top);
	for (uint32_t c = 0; c < pc; c++)
		assert_true(col[c] < top); /* the first column at the peak */
	if (!inuse)
		assert_int_equal(pc, column_of(r, gmp_result__top_peak(r, device)->ev, st->ncols));
	uint64_t total = 0;
	for (size_t k = 0; k < w; k++) {
		total += st->at_peak[k];
		if (st->v[(size_t)pc * w + k] != st->at_peak[k])
			fail_msg("%s: layer %zu holds %llu bytes in the peak's column, %llu at the peak", what, k,
				 (unsigned long long)st->v[(size_t)pc * w + k], (unsigned long long)st->at_peak[k]);
	}
	assert_int_equal(total, top);
	free(col);
}

static void check_stack(const struct gmp_result *r, uint32_t device, const struct gmp_stack *st, const char *what)
{
	check_curve(r, device, 0, st, what);
}

#define A(addr, size, name, at) \
	"{\"op\":\"alloc\",\"addr\":\"" addr "\",\"size\":" #size ",\"label\":\"" name "\",\"at\":\"" at "\"}\n"
#define K(name, rw, addr) "{\"op\":\"kernel\",\"name\":\"" name "\",\"" rw "\":[\"" addr "\"]}\n"
#define F(addr) "{\"op\":\"free\",\"addr\":\"" addr "\"}\n"

static void directed(void **state)
{
	(void)state;
	/* At the peak: a.cu:1 3 KiB (two objects), b.cu:2 4 KiB, c.cu:3 1 KiB; d.cu:4 freed before it. */
	static const char body[] =
		A("0x10000", 4096, "D", "d.cu:4") K("k", "write", "0x10000") F("0x10000")
		A("0x20000", 1024, "A1", "a.cu:1") A("0x30000", 2048, "A2", "a.cu:1")
		A("0x40000", 4096, "B", "b.cu:2") A("0x50000", 1024, "C", "c.cu:3")
		K("k", "write", "0x20000") K("k", "write", "0x30000") K("k", "write", "0x40000") K("k", "write", "0x50000")
		F("0x20000") F("0x30000") F("0x40000") F("0x50000");
	struct gmp_trace *t = ts_script(body);
	struct gmp_result *r = ts_detect(t, NULL);
	struct gmp_sites sites = { r, NULL };
	struct gmp_stack st;
	uint32_t levels = r->max_level + 1;
	assert_int_equal(gmp_stack__build(&sites, r, 0, 0, 1, levels, &st), 0);
	/* Three sites at the peak, one drawn: b.cu:2, then the rest (a.cu:1, c.cu:3, and d.cu:4 before the peak). */
	assert_int_equal(st.nsites, 1);
	assert_string_equal(st.site[0], "b.cu:2");
	assert_int_equal(st.at_peak[0], 4096);
	assert_int_equal(st.at_peak[1], 4096);
	check_stack(r, 0, &st, "directed, one site");
	/* One column per level: D's 4 KiB alone, in the rest, before the others come. */
	uint32_t dc = column_of(r, r->objects[ts_obj(r, "D")].alloc_ev, levels);
	assert_int_equal(st.v[(size_t)dc * 2 + 1], 4096);
	assert_int_equal(st.v[(size_t)dc * 2 + 0], 0);
	gmp_stack__release(&st);
	/* Two: the one site left would be the rest alone, so it gets a layer of its own. */
	assert_int_equal(gmp_stack__build(&sites, r, 0, 0, 2, levels, &st), 0);
	assert_int_equal(st.nsites, 3);
	assert_string_equal(st.site[0], "b.cu:2");
	assert_string_equal(st.site[1], "a.cu:1");
	assert_string_equal(st.site[2], "c.cu:3");
	assert_int_equal(st.at_peak[1], 3072);
	assert_int_equal(st.at_peak[2], 1024);
	assert_int_equal(st.at_peak[3], 0);
	check_stack(r, 0, &st, "directed, every site");
	assert_int_equal(st.v[(size_t)dc * 4 + 3], 4096); /* D: no site at the peak */
	gmp_stack__release(&st);
	/* A single column: the whole run's largest live bytes, the peak's. */
	assert_int_equal(gmp_stack__build(&sites, r, 0, 0, 3, 1, &st), 0);
	check_stack(r, 0, &st, "directed, one column");
	assert_int_equal(st.v[0] + st.v[1] + st.v[2] + st.v[3], 8192);
	gmp_stack__release(&st);
	assert_int_equal(gmp_stack__build(&sites, r, 7, 0, 3, levels, &st), -ENOENT); /* no such device */
	gmp_stack__release(&st);
	gmp_result__free(r);
	gmp_trace__free(t);
}

static void random_traces(void **state)
{
	(void)state;
	static const char *const at[] = { "a.cu:1", "b.cu:2", "c.cu:3", "d.cu:4", "e.cu:5" };
	uint64_t seed = 0x57ac;
	for (int round = 0; round < 300; round++) {
		struct gmp_trace *t = ts_random_trace(&seed);
		for (size_t i = 0; i < t->nev; i++)
			if (t->ev[i].op == GMP_OP_ALLOC)
				t->ev[i].at = gmp_trace__intern_cstr(t, at[ts_rnd(&seed) % 5]);
		struct gmp_result *r = ts_detect(t, NULL);
		struct gmp_sites sites = { r, NULL };
		for (size_t d = 0; d < r->ndevices; d++) {
			uint32_t dev = r->devices[d].device;
			size_t max = 1 + ts_rnd(&seed) % 4;
			uint32_t ncols = ts_rnd(&seed) & 1 ? r->max_level + 1 : 1 + (uint32_t)(ts_rnd(&seed) % 40);
			struct gmp_stack st;
			int err = gmp_stack__build(&sites, r, dev, 0, max, ncols, &st);
			if (!r->devices[d].peak_bytes) {
				gmp_stack__release(&st);
				continue;
			}
			if (err)
				fail_msg("round %d, device %u: %d", round, dev, err);
			assert_true(st.nsites <= max + 1 && st.nsites <= gmp_strtab__count(st.labels));
			char what[64];
			snprintf(what, sizeof(what), "round %d, device %u, %zu sites, %u columns", round, dev, max, ncols);
			check_stack(r, dev, &st, what);
			/* A walk over the changes, as a trace makes it: the layers' bytes add up to the live bytes. */
			uint64_t total = 0;
			for (size_t p = 0; p < r->ncurve; p++) {
				const struct gmp_curve_point *pt = &r->curve[p];
				if (pt->device != dev)
					continue;
				uint32_t o = 0;
				while (o < r->nobjects && r->objects[o].alloc_ev != pt->ev && r->objects[o].free_ev != pt->ev)
					o++;
				assert_true(o < r->nobjects);
				int alloc = r->objects[o].alloc_ev == pt->ev;
				size_t k = st.layer[o];
				uint64_t before = st.now[k], bytes;
				const char *label = gmp_stack__change(&st, r, o, alloc, &bytes);
				if (st.filled < 2) {
					assert_null(label);
					continue;
				}
				assert_non_null(label);
				assert_string_equal(label, k < st.nsites ? st.site[k] : "other sites");
				assert_int_equal(bytes, st.now[k]);
				total = total + st.now[k] - before;
				if (total != pt->live)
					fail_msg("%s: the walk's layers hold %llu bytes at a change, the device %llu", what,
						 (unsigned long long)total, (unsigned long long)pt->live);
			}
			gmp_stack__release(&st);
		}
		gmp_result__free(r);
		gmp_trace__free(t);
	}
}

/*
 * Bytes in use, where a pool has NVTX regions: the regions by the sites
 * that registered them, the pool itself in no layer; against the live
 * bytes, where the pool is one object of one site.
 */
static void pool_regions(void **state)
{
	(void)state;
	static const char *const scripts[] = { "pool_regions.jsonl", "pool_regions_intra.jsonl", "nvtx_ranges.jsonl" };
	size_t drawn = 0;
	for (size_t i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++) {
		struct gmp_trace *t = ts_script_file(scripts[i]);
		struct gmp_result *r = ts_detect(t, NULL);
		struct gmp_sites sites = { r, NULL };
		for (size_t d = 0; d < r->ndevices; d++) {
			if (!r->devices[d].inuse_peak_bytes)
				continue;
			uint32_t dev = r->devices[d].device;
			struct gmp_stack st;
			assert_int_equal(gmp_stack__build(&sites, r, dev, 1, 8, r->max_level + 1, &st), 0);
			check_curve(r, dev, 1, &st, scripts[i]);
			for (size_t o = 0; o < r->nobjects; o++) {
				int parent = 0;
				for (size_t k = 0; k < r->nobjects; k++)
					parent |= r->objects[k].kind == GMP_MEM_POOL_REGION && r->objects[k].parent == o;
				if (r->objects[o].device == dev && parent)
					assert_int_equal(st.layer[o], UINT32_MAX);
				else if (r->objects[o].device == dev)
					assert_true(st.layer[o] <= st.nsites);
			}
			drawn++;
			gmp_stack__release(&st);
		}
		gmp_result__free(r);
		gmp_trace__free(t);
	}
	assert_true(drawn >= 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(directed),
		cmocka_unit_test(random_traces),
		cmocka_unit_test(pool_regions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
