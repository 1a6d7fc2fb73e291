// SPDX-License-Identifier: MIT
/*
 * What fixing each finding saves, against its definition computed the slow
 * way: on random multi-stream traces (tests/unit/support_random.c), and on
 * random caching-allocator traces whose pools have regions (the saving of a
 * region's finding is measured at the peak of the bytes in use).
 */
#include <stdlib.h>
#include <string.h>

#include "support.h"

/*
 * What fixing each finding saves, against the definition computed the slow
 * way on random traces: on the curve of live bytes along the topological
 * order (an object lives from its allocation's position up to, not
 * including, its free's), apply the fix and take the new peak of the
 * object's device; the saving is how far the peak drops.  The fixes: early
 * allocation allocates just before the first access; late deallocation
 * frees just after the last; unused is gone; a leak is freed after its last
 * access; idleness is absent inside every idle range; a redundant pair
 * becomes one buffer of the larger size over both lives; an overallocated
 * or structured object allocates only the bytes it uses.
 */
/*
 * The saving of f by its definition: counted[o] says which objects the
 * curve sums (those of f's object's device); pos maps events to positions.
 */
static uint64_t defined_saving(const struct gmp_result *r, const struct gmp_finding *f,
			       const uint32_t *pos, uint32_t n, const uint8_t *counted)
{
	const struct gmp_object *ob = &r->objects[f->object];
	int64_t curve[256] = { 0 }, fixed[256];
	for (uint32_t o = 0; o < r->nobjects; o++) {
		const struct gmp_object *x = &r->objects[o];
		if (x->device != ob->device || !counted[o])
			continue;
		uint32_t end = x->free_ev == GMP_NO_EVENT ? n : pos[x->free_ev];
		for (uint32_t p = pos[x->alloc_ev]; p < end; p++)
			curve[p] += (int64_t)x->size;
	}
	memcpy(fixed, curve, sizeof(curve));
	uint32_t a = pos[ob->alloc_ev], e = ob->free_ev == GMP_NO_EVENT ? n : pos[ob->free_ev];
	int64_t sz = (int64_t)ob->size;
#define ADD(x0, y0, delta) for (uint32_t p = (x0); p < (y0); p++) fixed[p] += (delta)
	switch (f->pattern) {
	case GMP_PAT_EARLY_ALLOCATION: ADD(a, pos[ob->first_ev], -sz); break;
	case GMP_PAT_LATE_DEALLOCATION: ADD(pos[ob->last_ev] + 1, e, -sz); break;
	case GMP_PAT_UNUSED_ALLOCATION: ADD(a, e, -sz); break;
	case GMP_PAT_MEMORY_LEAK:
		ADD(ob->naccess ? pos[ob->last_ev] + 1 : a, n, -sz);
		break;
	case GMP_PAT_TEMPORARY_IDLENESS:
		for (uint32_t k = 0; k < f->range_n; k++) {
			const struct gmp_span *sp = &r->spans[f->range_off + k];
			ADD(pos[sp->ev_a] + 1, pos[sp->ev_b], -sz);
		}
		break;
	case GMP_PAT_REDUNDANT_ALLOCATION: {
		const struct gmp_object *q = &r->objects[f->other];
		uint32_t qa = pos[q->alloc_ev];
		uint32_t qe = q->free_ev == GMP_NO_EVENT ? n : pos[q->free_ev];
		ADD(a, e, -sz);
		ADD(qa, qe, -(int64_t)q->size);
		ADD(a < qa ? a : qa, e > qe ? e : qe, (int64_t)(ob->size > q->size ? ob->size : q->size));
		break;
	}
	case GMP_PAT_OVERALLOCATION:
	case GMP_PAT_STRUCTURED_ACCESS: /* allocated only what is used */
		ADD(a, e, -(int64_t)f->bytes);
		break;
	default:
		break; /* dead writes, access frequency: the fix moves no bytes */
	}
#undef ADD
	int64_t before = 0, after = 0;
	for (uint32_t p = 0; p < n; p++) {
		before = curve[p] > before ? curve[p] : before;
		after = fixed[p] > after ? fixed[p] : after;
	}
	return after < before ? (uint64_t)(before - after) : 0;
}

static void savings_match_definition(void **state)
{
	(void)state;
	uint64_t seed = 0xbb67ae8584caa73bu;
	size_t nonzero = 0, patterns = 0;
	uint8_t all[256];
	memset(all, 1, sizeof(all));
	for (int round = 0; round < 200; round++) {
		struct gmp_trace *t = ts_random_trace(&seed);
		struct gmp_result *r = ts_detect(t, NULL);
		uint32_t n = (uint32_t)t->nev, pos[256];
		assert_true(n <= 256 && r->nobjects <= 256);
		for (uint32_t p = 0; p < n; p++)
			pos[r->order[p]] = p;
		for (size_t i = 0; i < r->nfindings; i++) {
			const struct gmp_finding *f = &r->findings[i];
			uint64_t want = defined_saving(r, f, pos, n, all);
			if (f->saving != want)
				fail_msg("round %d, finding %zu (pattern %u, object %u): saving %llu, "
					 "defined %llu", round, i, f->pattern, f->object,
					 (unsigned long long)f->saving, (unsigned long long)want);
			nonzero += want > 0;
			patterns |= (size_t)(want > 0) << f->pattern;
		}
		gmp_result__free(r);
		gmp_trace__free(t);
	}
	assert_true(nonzero > 100);
	/* Savings of every kind occur: early, late, unused, leak, idleness, redundant. */
	for (unsigned p = 0; p <= GMP_PAT_TEMPORARY_IDLENESS; p++)
		if (!(patterns >> p & 1))
			fail_msg("no saving from pattern %u", p);
}

/*
 * A caching allocator's trace: a 1 MiB pool whose 32 KiB slots are handed
 * out as regions (a random size each) and given back at random, kernels on
 * two streams touching live regions and a plain buffer.
 */
static char *random_pool_script(uint64_t *seed)
{
	size_t cap = 1 << 16, len = 0;
	char *s = malloc(cap);
	assert_non_null(s);
#define EMIT(...) (len += (size_t)snprintf(s + len, cap - len, __VA_ARGS__), assert_true(len < cap))
	EMIT("{\"op\":\"alloc\",\"addr\":\"0x100000\",\"size\":1048576}\n");
	EMIT("{\"op\":\"alloc\",\"addr\":\"0x900000\",\"size\":%u}\n", 4096u * (1 + (unsigned)(ts_rnd(seed) % 16)));
	int live[8] = { 0 };
	for (int step = 0; step < 40; step++) {
		unsigned k = (unsigned)(ts_rnd(seed) % 8), what = (unsigned)(ts_rnd(seed) % 3);
		unsigned long addr = 0x100000ul + k * 32768ul;
		if (what == 0 && !live[k]) {
			EMIT("{\"op\":\"alloc\",\"addr\":\"0x%lx\",\"size\":%u,\"kind\":\"pool_region\"}\n", addr,
			     1024u * (1 + (unsigned)(ts_rnd(seed) % 32)));
			live[k] = 1;
		} else if (what == 1 && live[k]) {
			EMIT("{\"op\":\"free\",\"addr\":\"0x%lx\"}\n", addr);
			live[k] = 0;
		} else {
			unsigned j = (unsigned)(ts_rnd(seed) % 8);
			char list[96] = "";
			size_t ll = 0;
			if (live[k])
				ll += (size_t)snprintf(list + ll, sizeof(list) - ll, "\"0x%lx\"", addr + 16);
			if (live[j] && j != k)
				ll += (size_t)snprintf(list + ll, sizeof(list) - ll, "%s\"0x%lx\"", ll ? "," : "",
						       0x100000ul + j * 32768ul + 16);
			if (!ll || ts_rnd(seed) % 3 == 0)
				snprintf(list + ll, sizeof(list) - ll, "%s\"0x900000\"", ll ? "," : "");
			EMIT("{\"op\":\"kernel\",\"name\":\"k\",\"stream\":%u,\"%s\":[%s]}\n",
			     1 + (unsigned)(ts_rnd(seed) % 2), ts_rnd(seed) % 2 ? "read" : "write", list);
		}
	}
	for (int k = 0; k < 8; k++)
		if (live[k])
			EMIT("{\"op\":\"free\",\"addr\":\"0x%lx\"}\n", 0x100000ul + (unsigned long)k * 32768ul);
	if (ts_rnd(seed) % 2)
		EMIT("{\"op\":\"free\",\"addr\":\"0x900000\"}\n");
	EMIT("{\"op\":\"free\",\"addr\":\"0x100000\"}\n");
#undef EMIT
	return s;
}

/*
 * Pools with regions: a finding on a region saves bytes at the peak in use
 * (the pool counted by its regions), one on anything else at the device's
 * peak (the pool counted whole, its regions not).
 */
static void region_savings_match_definition(void **state)
{
	(void)state;
	uint64_t seed = 0x3c6ef372fe94f82bu;
	size_t region_savings = 0;
	for (int round = 0; round < 200; round++) {
		char *text = random_pool_script(&seed);
		struct gmp_trace *t = ts_script(text);
		struct gmp_result *r = ts_detect(t, NULL);
		uint32_t n = (uint32_t)t->nev, pos[256];
		assert_true(n <= 256 && r->nobjects <= 256);
		for (uint32_t p = 0; p < n; p++)
			pos[r->order[p]] = p;
		uint8_t device[256], inuse[256];
		int has_regions = 0;
		for (uint32_t o = 0; o < r->nobjects; o++) {
			int region = r->objects[o].kind == GMP_MEM_POOL_REGION;
			device[o] = !region;
			inuse[o] = 1;
			has_regions |= region;
		}
		for (uint32_t o = 0; o < r->nobjects; o++)
			if (r->objects[o].kind == GMP_MEM_POOL_REGION)
				inuse[r->objects[o].parent] = 0;
		for (size_t i = 0; i < r->nfindings; i++) {
			const struct gmp_finding *f = &r->findings[i];
			int region = r->objects[f->object].kind == GMP_MEM_POOL_REGION;
			uint64_t want = defined_saving(r, f, pos, n, region ? inuse : device);
			if (f->saving != want)
				fail_msg("round %d, finding %zu (pattern %u, object %u%s): saving %llu, defined %llu\n%s",
					 round, i, f->pattern, f->object, region ? ", a region" : "",
					 (unsigned long long)f->saving, (unsigned long long)want, text);
			region_savings += region && want > 0;
			if (region)
				assert_int_equal(gmp_finding__peak_before(r, f), r->devices[0].inuse_peak_bytes);
		}
		if (has_regions) {
			/* The curve of bytes in use reaches exactly that peak, and never goes below zero. */
			uint64_t most = 0;
			assert_non_null(r->inuse_curve);
			for (size_t k = 0; k < r->ninuse_curve; k++) {
				assert_true(r->inuse_curve[k].live < (1ull << 40));
				most = r->inuse_curve[k].live > most ? r->inuse_curve[k].live : most;
			}
			assert_true(most > 0);
			assert_int_equal(most, r->devices[0].inuse_peak_bytes);
		} else {
			assert_null(r->inuse_curve);
		}
		gmp_result__free(r);
		gmp_trace__free(t);
		free(text);
	}
	assert_true(region_savings > 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(savings_match_definition),
		cmocka_unit_test(region_savings_match_definition),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
