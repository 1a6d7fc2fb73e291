// SPDX-License-Identifier: MIT
/*
 * The patterns against their definitions, computed the slow way, on random
 * multi-stream traces (tests/unit/support_random.c); in every other round
 * about 30% of the kernels have unknown accesses, each a use of every
 * object live when it was issued (detector/unmonitored.c).
 */
#include <stdlib.h>
#include <string.h>

#include "support.h"

static int is_api(const struct gmp_event *e)
{
	return e->op != GMP_OP_SYNC && e->op != GMP_OP_EVENT_RECORD && e->op != GMP_OP_EVENT_WAIT;
}

/* GPU APIs whose level lies strictly between those of events a and b. */
static uint32_t apis_between(const struct gmp_trace *t, const struct gmp_result *r, uint32_t a,
			     uint32_t b)
{
	uint32_t n = 0;
	for (size_t e = 0; e < t->nev; e++)
		n += is_api(&t->ev[e]) && r->level[e] > r->level[a] && r->level[e] < r->level[b];
	return n;
}

/* The one finding of a pattern on an object, or NULL; fails on two. */
static const struct gmp_finding *finding_of(const struct gmp_result *r, unsigned pattern,
					    uint32_t obj)
{
	const struct gmp_finding *f = NULL;
	for (size_t i = 0; i < r->nfindings; i++)
		if (r->findings[i].pattern == pattern && r->findings[i].object == obj) {
			assert_null(f);
			f = &r->findings[i];
		}
	return f;
}

/* A kernel launch whose accesses are unknown: a use of every object live when it was issued. */
static int unknown(const struct gmp_trace *t, uint32_t v)
{
	return t->ev[v].op == GMP_OP_KERNEL && !(t->ev[v].flags & GMP_EF_ACCESS_KNOWN);
}

/* Whether unknown launch u was issued while obj was live (after its allocation, before its free). */
static int issued_in_life(const struct gmp_object *ob, uint32_t u)
{
	return u > ob->alloc_ev && (ob->free_ev == GMP_NO_EVENT || u < ob->free_ev);
}

/*
 * obj's accessing events in topological order (r->order: by level, then
 * event); with_unknown: its uses, the launches with unknown accesses
 * issued while it was live too.
 */
static uint32_t in_order(const struct gmp_trace *t, const struct gmp_result *r, uint32_t obj,
			 int with_unknown, uint32_t *use, uint32_t cap)
{
	uint32_t n = 0;
	for (size_t p = 0; p < t->nev; p++) {
		uint32_t v = r->order[p];
		int uses = with_unknown && unknown(t, v) && issued_in_life(&r->objects[obj], v);
		for (uint32_t k = r->dep_off[v]; k < r->dep_off[v + 1]; k++)
			uses |= GMP_DEP_OBJ(r->deps[k]) == obj && GMP_DEP_KIND(r->deps[k]) <= GMP_DEP_RW;
		if (uses) {
			assert_true(n < cap);
			use[n++] = v;
		}
	}
	return n;
}

/* Whether a launch with unknown accesses lies strictly between events a and b in the topological order. */
static int unknown_between(const struct gmp_trace *t, const struct gmp_result *r, uint32_t a, uint32_t b)
{
	int in = 0;
	for (size_t p = 0; p < t->nev; p++) {
		uint32_t v = r->order[p];
		if (v == b)
			return 0;
		if (in && unknown(t, v))
			return 1;
		in |= v == a;
	}
	return 0;
}

/*
 * Temporary idleness, found during the topological walk, against the
 * definition computed the slow way on random traces: for each object, its
 * accesses in (level, event) order; each consecutive pair with at least
 * --idle-apis GPU APIs strictly between their levels is one range, listed
 * in that order; the finding is bounded by the first longest range.
 */
static void idle_ranges_match_definition(void **state)
{
	(void)state;
	uint64_t seed = 0x2545f4914f6cdd1du;
	size_t checked = 0, broken = 0;
	for (int round = 0; round < 200; round++) {
		struct gmp_trace *t = ts_random_trace_with(&seed, round % 2 ? 30 : 0);
		struct gmp_detect_opts o;
		gmp_detect_opts__defaults(&o);
		o.keep_deps = 1;
		o.idle_apis = 1 + (uint32_t)(round % 3);
		struct gmp_result *r = ts_detect(t, &o);
		for (uint32_t obj = 0; obj < r->nobjects; obj++) {
			uint32_t acc[256], n = in_order(t, r, obj, 0, acc, 256);
			struct gmp_span want[256];
			uint32_t nwant = 0, best = 0;
			for (uint32_t i = 0; i + 1 < n; i++) {
				uint32_t between = apis_between(t, r, acc[i], acc[i + 1]);
				if (between < o.idle_apis)
					continue;
				if (unknown_between(t, r, acc[i], acc[i + 1])) {
					broken++; /* a launch that may have used it came between */
					continue;
				}
				want[nwant] = (struct gmp_span){ acc[i], acc[i + 1], between };
				if (want[nwant].apis_between > want[best].apis_between)
					best = nwant;
				nwant++;
			}
			const struct gmp_finding *f = finding_of(r, GMP_PAT_TEMPORARY_IDLENESS, obj);
			if (!nwant) {
				assert_null(f);
				continue;
			}
			assert_non_null(f);
			assert_int_equal(f->count, nwant);
			assert_int_equal(f->range_n, nwant);
			for (uint32_t i = 0; i < nwant; i++) {
				const struct gmp_span *got = &r->spans[f->range_off + i];
				assert_int_equal(got->ev_a, want[i].ev_a);
				assert_int_equal(got->ev_b, want[i].ev_b);
				assert_int_equal(got->apis_between, want[i].apis_between);
			}
			assert_int_equal(f->ev_a, want[best].ev_a);
			assert_int_equal(f->ev_b, want[best].ev_b);
			assert_int_equal(f->apis_between, want[best].apis_between);
			checked += nwant;
		}
		gmp_result__free(r);
		gmp_trace__free(t);
	}
	assert_true(checked > 500); /* the traces do have idle ranges */
	assert_true(broken > 50);   /* and ranges that unknown launches break */
}

/*
 * Early and late allocation, unused allocation, memory leak and the peak,
 * against their definitions computed the slow way on random traces, with
 * thresholds that vary by round: an object's first and last access are the
 * lowest and highest in (level, event) order; early when at least
 * --early-apis GPU APIs lie strictly between its allocation's level and
 * its first access's, late likewise from its last access to its free; the
 * peak is the largest sum of live bytes along the topological order.
 */
static void lifetime_and_peak_match_definition(void **state)
{
	(void)state;
	uint64_t seed = 0x853c49e6748fea9bu;
	size_t early = 0, late = 0, unused = 0, leak = 0, unknown_ends = 0;
	for (int round = 0; round < 200; round++) {
		struct gmp_trace *t = ts_random_trace_with(&seed, round % 2 ? 30 : 0);
		struct gmp_detect_opts o;
		gmp_detect_opts__defaults(&o);
		o.keep_deps = 1;
		o.early_apis = 1 + (uint32_t)(round % 3);
		o.late_apis = 1 + (uint32_t)(round / 3 % 3);
		struct gmp_result *r = ts_detect(t, &o);
		for (uint32_t obj = 0; obj < r->nobjects; obj++) {
			const struct gmp_object *ob = &r->objects[obj];
			uint32_t acc[256], n = in_order(t, r, obj, 1, acc, 256);
			uint32_t first = n ? acc[0] : GMP_NO_EVENT, last = n ? acc[n - 1] : GMP_NO_EVENT;
			assert_int_equal(ob->naccess, n);
			if (n) {
				assert_int_equal(ob->first_ev, first);
				assert_int_equal(ob->last_ev, last);
				unknown_ends += unknown(t, first) + unknown(t, last);
			}
			const struct gmp_finding *f = finding_of(r, GMP_PAT_UNUSED_ALLOCATION, obj);
			assert_int_equal(f != NULL, n == 0);
			unused += f != NULL;
			f = finding_of(r, GMP_PAT_MEMORY_LEAK, obj);
			assert_int_equal(f != NULL, ob->free_ev == GMP_NO_EVENT);
			leak += f != NULL;
			f = finding_of(r, GMP_PAT_EARLY_ALLOCATION, obj);
			uint32_t want = n ? apis_between(t, r, ob->alloc_ev, first) : 0;
			assert_int_equal(f != NULL, n && want >= o.early_apis);
			if (f) {
				assert_int_equal(f->ev_a, ob->alloc_ev);
				assert_int_equal(f->ev_b, first);
				assert_int_equal(f->apis_between, want);
				assert_int_equal(f->distance, (int32_t)(r->level[first] - r->level[ob->alloc_ev]));
				early++;
			}
			f = finding_of(r, GMP_PAT_LATE_DEALLOCATION, obj);
			want = n && ob->free_ev != GMP_NO_EVENT ? apis_between(t, r, last, ob->free_ev) : 0;
			assert_int_equal(f != NULL, n && ob->free_ev != GMP_NO_EVENT && want >= o.late_apis);
			if (f) {
				assert_int_equal(f->ev_a, last);
				assert_int_equal(f->ev_b, ob->free_ev);
				assert_int_equal(f->apis_between, want);
				late++;
			}
		}
		/* The peak: live bytes per device along the topological order. */
		uint64_t live[2] = { 0, 0 }, peak = 0;
		for (size_t p = 0; p < t->nev; p++) {
			uint32_t v = r->order[p];
			for (uint32_t obj = 0; obj < r->nobjects; obj++) {
				const struct gmp_object *ob = &r->objects[obj];
				assert_true(ob->device < 2);
				if (ob->alloc_ev == v)
					live[ob->device] += ob->size;
				if (ob->free_ev == v)
					live[ob->device] -= ob->size;
				if (live[ob->device] > peak)
					peak = live[ob->device];
			}
		}
		assert_int_equal(r->peak_bytes, peak);
		gmp_result__free(r);
		gmp_trace__free(t);
	}
	/* The traces do hold every pattern checked. */
	assert_true(early > 50 && late > 50 && unused > 20 && leak > 50);
	assert_true(unknown_ends > 50); /* first or last uses that are unknown launches */
}

/*
 * Every redundant allocation found is sound on random traces: the object
 * is first used strictly after the level of the other's last use, both on
 * one device, of sizes within --redundant-pct, and no object is reused twice
 * or reuses twice.
 */
static void redundant_findings_are_sound(void **state)
{
	(void)state;
	uint64_t seed = 0xda942042e4dd58b5u;
	size_t found = 0;
	for (int round = 0; round < 200; round++) {
		struct gmp_trace *t = ts_random_trace_with(&seed, round % 2 ? 30 : 0);
		struct gmp_result *r = ts_detect(t, NULL);
		uint8_t reused[64] = { 0 }, reuses[64] = { 0 };
		for (size_t i = 0; i < r->nfindings; i++) {
			const struct gmp_finding *f = &r->findings[i];
			if (f->pattern != GMP_PAT_REDUNDANT_ALLOCATION)
				continue;
			assert_true(f->object < 64 && f->other < 64 && f->object != f->other);
			const struct gmp_object *j = &r->objects[f->object], *o = &r->objects[f->other];
			assert_true(j->naccess > 0 && o->naccess > 0);
			assert_int_equal(f->ev_a, o->last_ev);
			assert_int_equal(f->ev_b, j->first_ev);
			assert_true(r->level[o->last_ev] < r->level[j->first_ev]);
			assert_int_equal(j->device, o->device);
			uint64_t big = j->size > o->size ? j->size : o->size;
			uint64_t diff = j->size > o->size ? j->size - o->size : o->size - j->size;
			assert_true(diff * 100 <= big * 10);
			assert_int_equal(reused[f->other]++, 0);
			assert_int_equal(reuses[f->object]++, 0);
			found++;
		}
		gmp_result__free(r);
		gmp_trace__free(t);
	}
	assert_true(found > 50);
}

struct dead_byte {
	uint32_t obj, writer, byte, killer;
};

static int cmp_dead_byte(const void *a, const void *b)
{
	const struct dead_byte *x = a, *y = b;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	if (x->writer != y->writer)
		return x->writer < y->writer ? -1 : 1;
	return (x->byte > y->byte) - (x->byte < y->byte);
}

/*
 * Dead writes against a byte-by-byte model on random traces (the detector
 * keeps byte ranges): each object byte remembers the memcpy or memset that
 * wrote it and that nothing has accessed since; a later write of the byte
 * makes it dead (writer, byte, killer); a copy reading it, a kernel using
 * the object (touches unknown: the whole object) and the free clear it.
 * Each writer with dead bytes is one finding whose ranges cover exactly
 * its dead bytes, each range with the write that killed it, and whose ev_b
 * is the earliest killer.
 */
static void dead_writes_match_byte_model(void **state)
{
	(void)state;
	uint64_t seed = 0x6a09e667f3bcc909u;
	size_t dead_total = 0;
	enum { MAXOBJ = 64, MAXSZ = 4608, MAXDEAD = 1 << 16 };
	static uint32_t pend[MAXOBJ][MAXSZ];
	static struct dead_byte dead[MAXDEAD];
	for (int round = 0; round < 200; round++) {
		struct gmp_trace *t = ts_random_trace_with(&seed, round % 2 ? 30 : 0);
		struct gmp_detect_opts o;
		gmp_detect_opts__defaults(&o);
		o.keep_deps = 1;
		struct gmp_result *r = ts_detect(t, &o);
		assert_true(r->nobjects <= MAXOBJ);
		for (uint32_t obj = 0; obj < r->nobjects; obj++) {
			assert_true(r->objects[obj].size <= MAXSZ);
			for (uint32_t b = 0; b < MAXSZ; b++)
				pend[obj][b] = GMP_NO_EVENT;
		}
		size_t ndead = 0;
		for (uint32_t v = 0; v < t->nev; v++) {
			const struct gmp_event *e = &t->ev[v];
			if (unknown(t, v)) /* it may have read every byte */
				for (uint32_t obj = 0; obj < r->nobjects; obj++)
					for (uint32_t b = 0; b < MAXSZ; b++)
						pend[obj][b] = GMP_NO_EVENT;
			for (uint32_t k = r->dep_off[v]; k < r->dep_off[v + 1]; k++) {
				uint32_t obj = GMP_DEP_OBJ(r->deps[k]);
				const struct gmp_object *ob = &r->objects[obj];
				unsigned kind = GMP_DEP_KIND(r->deps[k]);
				if (kind == GMP_DEP_ALLOC)
					continue;
				if (kind == GMP_DEP_FREE || e->op == GMP_OP_KERNEL) {
					for (uint32_t b = 0; b < ob->size; b++)
						pend[obj][b] = GMP_NO_EVENT;
					continue;
				}
				uint64_t lo = ob->addr, hi = ob->addr + ob->size;
				if (e->op == GMP_OP_MEMCPY && e->src >= lo && e->src + e->size <= hi)
					for (uint64_t b = e->src - lo; b < e->src - lo + e->size; b++)
						pend[obj][b] = GMP_NO_EVENT;
				if (e->addr < lo || e->addr + e->size > hi)
					continue;
				for (uint64_t b = e->addr - lo; b < e->addr - lo + e->size; b++) {
					if (pend[obj][b] != GMP_NO_EVENT) {
						assert_true(ndead < MAXDEAD);
						dead[ndead++] = (struct dead_byte){ obj, pend[obj][b],
										    (uint32_t)b, v };
					}
					pend[obj][b] = v;
				}
			}
		}
		qsort(dead, ndead, sizeof(*dead), cmp_dead_byte);
		/* Every finding's ranges, byte by byte, against the model. */
		size_t got = 0;
		for (size_t i = 0; i < r->nfindings; i++) {
			const struct gmp_finding *f = &r->findings[i];
			if (f->pattern != GMP_PAT_DEAD_WRITE)
				continue;
			uint64_t bytes = 0;
			uint32_t first_killer = GMP_NO_EVENT;
			for (uint32_t j = 0; j < f->range_n; j++) {
				const struct gmp_range *rg = &r->ranges[f->range_off + j];
				for (uint64_t b = rg->off; b < rg->off + rg->len; b++) {
					struct dead_byte key = { f->object, f->ev_a, (uint32_t)b, 0 };
					struct dead_byte *hit = bsearch(&key, dead, ndead, sizeof(*dead),
									cmp_dead_byte);
					assert_non_null(hit);
					assert_int_equal(hit->killer, rg->ev);
					hit->killer = GMP_NO_EVENT - 1; /* each byte once */
				}
				bytes += rg->len;
				if (rg->ev < first_killer)
					first_killer = rg->ev;
			}
			assert_int_equal(f->bytes, bytes);
			assert_int_equal(f->ev_b, first_killer);
			got += bytes;
		}
		assert_int_equal(got, ndead);
		dead_total += got;
		gmp_result__free(r);
		gmp_trace__free(t);
	}
	assert_true(dead_total > 1000);
}

/*
 * Overallocation against a byte model on random traces.  Kernels there
 * record no touches, so only objects that no kernel used are judged: their
 * accessed bytes are the union of the copies and sets inside them; an
 * object is overallocated when it has accessed under --overalloc-pct of its
 * bytes and the unaccessed bytes are fragmented under --frag-pct (1 - the
 * largest unaccessed run / all unaccessed bytes); the finding names the
 * unaccessed bytes and the largest run (the first, on ties).
 */
static void overallocation_matches_byte_model(void **state)
{
	(void)state;
	uint64_t seed = 0x3c6ef372fe94f82bu;
	size_t judged = 0, found = 0;
	static uint8_t used[4608];
	for (int round = 0; round < 200; round++) {
		struct gmp_trace *t = ts_random_trace_with(&seed, round % 2 ? 30 : 0);
		struct gmp_detect_opts o;
		gmp_detect_opts__defaults(&o);
		o.keep_deps = 1;
		o.frag_pct = round % 2 ? 80 : 1; /* copies are small: most of an object is one gap */
		struct gmp_result *r = ts_detect(t, &o);
		for (uint32_t obj = 0; obj < r->nobjects; obj++) {
			const struct gmp_object *ob = &r->objects[obj];
			assert_true(ob->size <= sizeof(used));
			memset(used, 0, sizeof(used));
			int by_kernel = 0, ranges = 0;
			for (uint32_t v = 0; v < t->nev; v++) {
				const struct gmp_event *e = &t->ev[v];
				by_kernel |= unknown(t, v) && issued_in_life(ob, v); /* may have touched anything */
				for (uint32_t k = r->dep_off[v]; k < r->dep_off[v + 1]; k++) {
					if (GMP_DEP_OBJ(r->deps[k]) != obj || GMP_DEP_KIND(r->deps[k]) > GMP_DEP_RW)
						continue;
					by_kernel |= e->op == GMP_OP_KERNEL;
					uint64_t at[2] = { e->addr, e->op == GMP_OP_MEMCPY ? e->src : 0 };
					for (int i = 0; i < 2 && e->op != GMP_OP_KERNEL; i++)
						if (at[i] >= ob->addr && at[i] + e->size <= ob->addr + ob->size) {
							memset(used + (at[i] - ob->addr), 1, e->size);
							ranges = 1;
						}
				}
			}
			const struct gmp_finding *f = finding_of(r, GMP_PAT_OVERALLOCATION, obj);
			if (by_kernel || !ranges) {
				assert_null(f);
				continue;
			}
			judged++;
			uint64_t accessed = 0, largest = 0, largest_off = 0;
			for (uint64_t b = 0; b < ob->size;) {
				if (used[b]) {
					accessed++;
					b++;
					continue;
				}
				uint64_t run = b;
				while (run < ob->size && !used[run])
					run++;
				if (run - b > largest) {
					largest = run - b;
					largest_off = b;
				}
				b = run;
			}
			int over = 0;
			double acc_pct = 0, frag = 0;
			if (accessed < ob->size) {
				acc_pct = (double)accessed * 100.0 / (double)ob->size;
				frag = (1.0 - (double)largest / (double)(ob->size - accessed)) * 100.0;
				over = acc_pct < o.overalloc_pct && frag < o.frag_pct;
			}
			assert_int_equal(f != NULL, over);
			if (!f)
				continue;
			found++;
			assert_int_equal(f->bytes, ob->size - accessed);
			assert_true(f->accessed_pct == (float)acc_pct && f->frag_pct == (float)frag);
			assert_int_equal(f->range_n, 1);
			assert_int_equal(r->ranges[f->range_off].off, largest_off);
			assert_int_equal(r->ranges[f->range_off].len, largest);
		}
		gmp_result__free(r);
		gmp_trace__free(t);
	}
	assert_true(judged > 50 && found > 20 && found < judged);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(idle_ranges_match_definition),
		cmocka_unit_test(lifetime_and_peak_match_definition),
		cmocka_unit_test(redundant_findings_are_sound),
		cmocka_unit_test(dead_writes_match_byte_model),
		cmocka_unit_test(overallocation_matches_byte_model),
	};
	return cmocka_run_group_tests_name("models", tests, NULL, NULL);
}
