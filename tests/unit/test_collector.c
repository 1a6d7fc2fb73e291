// SPDX-License-Identifier: MIT
/*
 * The collector's pure parts: GMPROF_* options, profile path patterns,
 * intra-object maps turned into touches, and the calls whose API callbacks
 * GMPROF_API_CALLBACKS=needed turns off.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api_quiet.h"
#include "options.h"
#include "patch_abi.h"
#include "pathpat.h"
#include "support.h"
#include "touches.h"
#include "util.h"

static const char *const *env;

static const char *fake_getenv(const char *name)
{
	size_t n = strlen(name);
	for (const char *const *e = env; e && *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

static int parse(const char *const *vars, struct gmp_opts *o, char *err)
{
	env = vars;
	return gmp_opts__parse(o, fake_getenv, err, 256);
}

static void options(void **state)
{
	(void)state;
	struct gmp_opts o;
	char err[256];
	assert_int_equal(parse(NULL, &o, err), 0);
	assert_string_equal(o.output, "gmprof.%p.gmprof");
	assert_int_equal(o.mode, GMP_COLLECT_OBJECT);
	assert_int_equal(o.depth, 32);
	assert_int_equal(o.gran, 4);
	assert_int_equal(o.online, 1);
	assert_int_equal(o.patch_l1, 0);
	assert_int_equal(o.patch_at, GMP_PATCH_AT_LOAD);
	assert_int_equal(o.graph_fn_data, 1); /* per function */
	assert_int_equal(o.log_callbacks, 0);
	assert_int_equal(o.hit_epochs, GMP_HIT_EPOCHS);
	assert_int_equal(o.device_info, 1);
	assert_int_equal(o.api_needed, 0);
	static const char *const good[] = { "GMPROF_MODE=intra", "GMPROF_KERNEL_SAMPLE=100",
					    "GMPROF_DEPTH=8", "GMPROF_FORCE=yes",
					    "GMPROF_HARVEST=launch", "GMPROF_GRANULARITY=8",
					    "GMPROF_COUNTER_GRANULARITY=128", "GMPROF_PATCH_EMPTY=1",
					    "GMPROF_PATCH_LOADS=l1", "GMPROF_LOG_CALLBACKS=1",
					    "GMPROF_HIT_EPOCHS=3", "GMPROF_PATCH_AT=range", "GMPROF_DEVICE_INFO=0",
					    "GMPROF_GRAPH_NODE_DATA=launch", "GMPROF_API_CALLBACKS=needed", NULL };
	assert_int_equal(parse(good, &o, err), 0);
	assert_int_equal(o.mode, GMP_COLLECT_INTRA);
	assert_int_equal(o.kernel_sample, 100);
	assert_int_equal(o.force, 1);
	assert_int_equal(o.harvest, GMP_HARVEST_LAUNCH);
	assert_int_equal(o.patch_empty, 1);
	assert_int_equal(o.patch_l1, 1);
	assert_int_equal(o.log_callbacks, 1);
	assert_int_equal(o.hit_epochs, 3);
	assert_int_equal(o.patch_at, GMP_PATCH_AT_RANGE);
	assert_int_equal(o.graph_fn_data, 0);
	assert_int_equal(o.device_info, 0);
	assert_int_equal(o.api_needed, 1);
	assert_int_equal(o.fallback, 0);
	/* GMPROF_PATCH_AT unset: launch under a capture range, load without one; set, as given. */
	static const char *const ranged[] = { "GMPROF_CAPTURE=profiler-api", NULL };
	assert_int_equal(parse(ranged, &o, err), 0);
	assert_int_equal(o.patch_at, GMP_PATCH_AT_LAUNCH);
	assert_int_equal(o.patch_at_default, 1);
	static const char *const ranged_load[] = { "GMPROF_CAPTURE=launches:5-9", "GMPROF_PATCH_AT=load", NULL };
	assert_int_equal(parse(ranged_load, &o, err), 0);
	assert_int_equal(o.patch_at, GMP_PATCH_AT_LOAD);
	assert_int_equal(o.patch_at_default, 0);
	static const char *const whole[] = { "GMPROF_CAPTURE=all", NULL };
	assert_int_equal(parse(whole, &o, err), 0);
	assert_int_equal(o.patch_at, GMP_PATCH_AT_LOAD);
	static const char *const alloc[] = { "GMPROF_MODE=alloc", NULL };
	assert_int_equal(parse(alloc, &o, err), 0);
	assert_int_equal(o.mode, GMP_COLLECT_ALLOC);
	assert_string_equal(gmp_mode__name(o.mode), "alloc");
	assert_string_equal(gmp_mode__name(GMP_COLLECT_INTRA), "intra");
	assert_string_equal(gmp_mode__name(GMP_COLLECT_OBJECT), "object");
	/* GMPROF_FALLBACK: names in any order, "all", nothing; named back as the collector records them. */
	char names[128];
	static const struct { const char *var; uint32_t bits; const char *names; } fb[] = {
		{ "GMPROF_FALLBACK=two-tables,hit-list", GMP_FALLBACK_TWO_TABLES | GMP_FALLBACK_HIT_LIST,
		  "hit-list,two-tables" },
		{ "GMPROF_FALLBACK=table-reuse", GMP_FALLBACK_TABLE_REUSE, "table-reuse" },
		{ "GMPROF_FALLBACK=hit-epochs", GMP_FALLBACK_HIT_EPOCHS, "hit-epochs" },
		{ "GMPROF_FALLBACK=object-callback", GMP_FALLBACK_OBJECT_CALLBACK, "object-callback" },
		{ "GMPROF_FALLBACK=all", GMP_FALLBACK_ALL, "hit-list,two-tables,table-reuse,hit-epochs,object-callback,device-lists,launch-headers,pinned-reads" },
		{ "GMPROF_FALLBACK=pinned-reads", GMP_FALLBACK_PINNED_READS, "pinned-reads" },
		{ "GMPROF_FALLBACK=", 0, "" },
	};
	for (size_t i = 0; i < sizeof(fb) / sizeof(fb[0]); i++) {
		const char *vars[] = { fb[i].var, NULL };
		assert_int_equal(parse(vars, &o, err), 0);
		assert_int_equal(o.fallback, fb[i].bits);
		assert_string_equal(gmp_opts__fallback_names(o.fallback, names, sizeof(names)), fb[i].names);
	}
	static const char *const bad[][2] = {
		{ "GMPROF_MODE=fast", "GMPROF_MODE='fast' is not valid: expected object, intra or alloc" },
		{ "GMPROF_DEPTH=0", "GMPROF_DEPTH='0'" },
		{ "GMPROF_DEPTH=9x", "GMPROF_DEPTH='9x'" },
		{ "GMPROF_FLUSH_MS=-5", "GMPROF_FLUSH_MS='-5'" },
		{ "GMPROF_FORCE=maybe", "GMPROF_FORCE='maybe'" },
		{ "GMPROF_GRANULARITY=6", "power of 2" },
		{ "GMPROF_COUNTER_GRANULARITY=2", "no finer than" },
		{ "GMPROF_OUTPUT=", "needs a name" },
		{ "GMPROF_ON_ERROR=ignore", "GMPROF_ON_ERROR='ignore'" },
		{ "GMPROF_PATCH_EMPTY=2", "GMPROF_PATCH_EMPTY='2'" },
		{ "GMPROF_PATCH_LOADS=L1", "expected l2 or l1" },
		{ "GMPROF_PATCH_AT=later", "GMPROF_PATCH_AT='later' is not valid: expected load, launch or range" },
		{ "GMPROF_GRAPH_NODE_DATA=node", "GMPROF_GRAPH_NODE_DATA='node' is not valid: expected launch or function" },
		{ "GMPROF_HIT_EPOCHS=0", "GMPROF_HIT_EPOCHS='0'" },
		{ "GMPROF_HIT_EPOCHS=1073741823", "GMPROF_HIT_EPOCHS='1073741823'" }, /* past GMP_HIT_EPOCHS */
		{ "GMPROF_FALLBACK=hitlist", "expected a comma list of hit-list, two-tables, table-reuse, hit-epochs, object-callback, device-lists, launch-headers and pinned-reads, or all" },
		{ "GMPROF_FALLBACK=hit-list,", "GMPROF_FALLBACK='hit-list,'" },
		{ "GMPROF_FALLBACK=,two-tables", "GMPROF_FALLBACK=',two-tables'" },
		{ "GMPROF_FALLBACK=hit-list,,two-tables", "GMPROF_FALLBACK='hit-list,,two-tables'" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *vars[] = { bad[i][0], NULL };
		assert_int_equal(parse(vars, &o, err), -EINVAL);
		if (!strstr(err, bad[i][1]))
			fail_msg("'%s' does not say '%s'", err, bad[i][1]);
	}
}

static int expand(const char *pattern, const char *const *vars, char *out, char *err)
{
	env = vars;
	return gmp_path__expand(pattern, 4242, "node7", fake_getenv, out, 256, err, 256);
}

static void path_patterns(void **state)
{
	(void)state;
	char out[256], err[256];
	assert_int_equal(expand("p.%p.%h.gmprof", NULL, out, err), 0);
	assert_string_equal(out, "p.4242.node7.gmprof");
	static const char *const vars[] = { "JOB=train", "SLURM_PROCID=3", "RANK=9", NULL };
	assert_int_equal(expand("/out/%q{JOB}/r%r-100%%", vars, out, err), 0);
	assert_string_equal(out, "/out/train/r3-100%");
	static const char *const torch[] = { "RANK=5", NULL };
	assert_int_equal(expand("r%r", torch, out, err), 0);
	assert_string_equal(out, "r5");
	assert_int_equal(expand("r%r", NULL, out, err), 0);
	assert_string_equal(out, "r0");
	assert_int_equal(expand("%q{NOPE}", NULL, out, err), -EINVAL);
	assert_non_null(strstr(err, "unset variable"));
	assert_int_equal(expand("%x", NULL, out, err), -EINVAL);
	assert_non_null(strstr(err, "unknown %x"));
	assert_int_equal(expand("a%", NULL, out, err), -EINVAL);
	assert_int_equal(expand("%q{JOB", vars, out, err), -EINVAL);
	static const char *const evil[] = { "X=../../etc", "Y=..", "Z=a/b", "R=1;rm", "E=", NULL };
	assert_int_equal(expand("d/%q{X}", evil, out, err), -EINVAL);
	assert_non_null(strstr(err, "would change the directory"));
	assert_int_equal(expand("d/%q{Y}", evil, out, err), -EINVAL);
	assert_int_equal(expand("d/%q{Z}", evil, out, err), -EINVAL);
	assert_int_equal(expand("d/%q{E}", evil, out, err), -EINVAL);
	static const char *const badrank[] = { "PMI_RANK=1;rm", NULL };
	assert_int_equal(expand("r%r", badrank, out, err), -EINVAL);
	assert_non_null(strstr(err, "not a number"));
	char longp[300];
	memset(longp, 'a', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = '\0';
	assert_int_equal(expand(longp, NULL, out, err), -EINVAL);
	assert_non_null(strstr(err, "too long"));
}

static void maps_to_touches(void **state)
{
	(void)state;
	/* 256 bytes at 0x1000: granules of 4, cells of 64 bytes. */
	uint32_t bm[2] = { 0 }, ct[4] = { 0 };
	gmp_maps__add(0x1000, 256, bm, ct, 2, 6, 0x1000, 8);   /* bytes 0-7 */
	gmp_maps__add(0x1000, 256, bm, ct, 2, 6, 0x1004, 4);   /* bytes 4-7 again */
	gmp_maps__add(0x1000, 256, bm, ct, 2, 6, 0x1040, 8);   /* bytes 64-71 */
	gmp_maps__add(0x1000, 256, bm, ct, 2, 6, 0x1044, 4);
	gmp_maps__add(0x1000, 256, bm, ct, 2, 6, 0x10fc, 32);  /* runs past the end */
	gmp_maps__add(0x1000, 256, bm, ct, 2, 6, 0x0f00, 16);  /* before the object */
	struct gmp_touch_vec tv = { 0 };
	assert_int_equal(gmp_maps__touches(0x1000, 256, bm, ct, 2, 6, GMP_RW_READ, &tv), 0);
	assert_int_equal(tv.n, 3);
	assert_int_equal(tv.v[0].addr, 0x1000);
	assert_int_equal(tv.v[0].size, 8);
	assert_int_equal(tv.v[0].count, 2);  /* cell 0 had two accesses */
	assert_int_equal(tv.v[1].addr, 0x1040);
	assert_int_equal(tv.v[1].count, 2);
	assert_int_equal(tv.v[2].addr, 0x10fc);
	assert_int_equal(tv.v[2].size, 4);
	assert_int_equal(tv.v[2].count, 1);
	free(tv.v);
	/* An object whose size is no multiple of the granule: the last run is clipped. */
	uint32_t b2[1] = { 0x7 };
	struct gmp_touch_vec t2 = { 0 };
	assert_int_equal(gmp_maps__touches(0x2000, 10, b2, NULL, 2, 6, GMP_RW_WRITE, &t2), 0);
	assert_int_equal(t2.n, 1);
	assert_int_equal(t2.v[0].size, 10);
	free(t2.v);
	/* Two adjacent objects touched alike (cudaMalloc often places them so):
	   each keeps its own run, never one run across both. */
	uint32_t whole[1] = { 0xffffffff };
	struct gmp_touch_vec t3 = { 0 };
	assert_int_equal(gmp_maps__touches(0x3000, 128, whole, NULL, 2, 6, GMP_RW_READ, &t3), 0);
	assert_int_equal(gmp_maps__touches(0x3080, 128, whole, NULL, 2, 6, GMP_RW_READ, &t3), 0);
	assert_int_equal(t3.n, 2);
	assert_int_equal(t3.v[0].addr, 0x3000);
	assert_int_equal(t3.v[0].size, 128);
	assert_int_equal(t3.v[1].addr, 0x3080);
	assert_int_equal(t3.v[1].size, 128);
	free(t3.v);
	assert_int_equal(gmp_maps__bitmap_words(256, 2), 2);
	assert_int_equal(gmp_maps__bitmap_words(257, 2), 3);
	assert_int_equal(gmp_maps__counters(256, 6), 4);
	assert_int_equal(gmp_maps__counters(1, 6), 1);
}

/* The per-granule definition of touches: each set granule, clipped, with its cell's count. */
static void reference_touches(uint64_t base, uint64_t size, const uint32_t *bm, const uint32_t *ct,
			      unsigned gs, unsigned cs, uint32_t rw, struct gmp_touch_vec *out)
{
	uint64_t gran = 1ull << gs, granules = (size + gran - 1) >> gs;
	size_t first = out->n;
	for (uint64_t g = 0; g < granules; g++) {
		if (!(bm[g >> 5] & (1u << (g & 31))))
			continue;
		uint64_t off = g << gs, len = off + gran > size ? size - off : gran;
		uint64_t count = ct ? (ct[off >> cs] ? ct[off >> cs] : 1) : 1;
		struct gmp_touch *last = out->n > first ? &out->v[out->n - 1] : NULL;
		if (last && last->addr + last->size == base + off && last->count == count) {
			last->size += len;
			continue;
		}
		assert_int_equal(GMP_GROW(out->v, out->cap, out->n + 1), 0);
		out->v[out->n++] = (struct gmp_touch){ .addr = base + off, .size = len, .count = count, .rw = rw };
	}
}

/* The word-at-a-time runs equal the per-granule definition on random maps. */
static void maps_to_touches_random(void **state)
{
	(void)state;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	for (int round = 0; round < 500; round++) {
		unsigned gs = (unsigned)(ts_rnd(&seed) % 4);          /* 1 to 8 bytes */
		unsigned cs = gs + (unsigned)(ts_rnd(&seed) % 5);     /* cells of 1 to 16 granules */
		uint64_t size = 1 + ts_rnd(&seed) % 3000;
		size_t words = gmp_maps__bitmap_words(size, gs), cells = gmp_maps__counters(size, cs);
		uint32_t *bm = calloc(words + 1, 4), *ct = calloc(cells + 1, 4);
		assert_non_null(bm);
		assert_non_null(ct);
		unsigned style = (unsigned)(ts_rnd(&seed) % 4);
		for (size_t w = 0; w < words + 1; w++) /* the word past the end: garbage to ignore */
			bm[w] = style == 0 ? (uint32_t)ts_rnd(&seed)
			      : style == 1 ? ~0u
			      : style == 2 ? (ts_rnd(&seed) % 3 ? ~0u : 0)
					   : (uint32_t)(ts_rnd(&seed) & ts_rnd(&seed));
		for (size_t c = 0; c < cells; c++)
			ct[c] = (uint32_t)(ts_rnd(&seed) % (style == 1 ? 2 : 4)); /* 0 counts as 1 */
		const uint32_t *cts = ts_rnd(&seed) % 4 ? ct : NULL;
		struct gmp_touch_vec got = { 0 }, want = { 0 };
		/* A touch of an adjacent object first: runs must not merge into it. */
		struct gmp_touch prev = { .addr = 0x10000 - 16, .size = 16, .count = 1, .rw = GMP_RW_READ };
		assert_int_equal(GMP_GROW(got.v, got.cap, 1), 0);
		assert_int_equal(GMP_GROW(want.v, want.cap, 1), 0);
		got.v[got.n++] = prev;
		want.v[want.n++] = prev;
		assert_int_equal(gmp_maps__touches(0x10000, size, bm, cts, gs, cs, GMP_RW_READ, &got), 0);
		reference_touches(0x10000, size, bm, cts, gs, cs, GMP_RW_READ, &want);
		assert_int_equal(got.n, want.n);
		for (size_t i = 0; i < got.n; i++) {
			assert_int_equal(got.v[i].addr, want.v[i].addr);
			assert_int_equal(got.v[i].size, want.v[i].size);
			assert_int_equal(got.v[i].count, want.v[i].count);
		}
		free(got.v);
		free(want.v);
		free(bm);
		free(ct);
	}
}

/*
 * The calls that make no GPU work: sorted for the binary search (each one
 * found), with their versions and per-thread suffixes; none of the calls
 * the collector needs (allocation, free, copy, set, launch, sync, stream,
 * event, graph, context creation, profiler and module calls).
 */
static void quiet_calls(void **state)
{
	(void)state;
	size_t n;
	const char *const *q = gmp_api__quiet_all(&n);
	assert_true(n > 40);
	for (size_t i = 0; i < n; i++) {
		if (i)
			assert_true(strcmp(q[i - 1], q[i]) < 0);
		assert_true(gmp_api__quiet(q[i]));
	}
	static const char *const yes[] = { "cudaGetDevice", "cudaGetLastError", "cudaPeekAtLastError",
					   "cudaGetDeviceProperties_v2", "cudaStreamGetCaptureInfo_v3",
					   "cudaStreamIsCapturing_ptsz", "cuCtxGetCurrent", "cuDeviceTotalMem_v2",
					   "cuMemGetInfo_v2", "cuPointerGetAttribute", "cuStreamGetCaptureInfo_v2_ptsz",
					   "cuGetProcAddress_v2", "cudaDeviceGetAttribute", "cuCtxPushCurrent_v2" };
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		assert_true(gmp_api__quiet(yes[i]));
	static const char *const no[] = {
		"cudaMalloc", "cudaFree", "cudaMallocAsync", "cudaFreeAsync", "cudaMemcpy", "cudaMemcpyAsync_ptsz",
		"cudaMemset", "cudaLaunchKernel", "cudaLaunchKernel_ptsz", "cudaDeviceSynchronize",
		"cudaStreamSynchronize", "cudaStreamQuery", "cudaEventQuery", "cudaEventRecord",
		"cudaStreamWaitEvent", "cudaStreamCreate", "cudaStreamBeginCapture", "cudaGraphLaunch",
		"cudaSetDevice", "cudaProfilerStart", "cudaProfilerStop", "cudaMallocArray", "cudaFreeArray",
		"cuMemAlloc_v2", "cuMemFree_v2", "cuLaunchKernel", "cuLaunchKernelEx", "cuCtxSynchronize",
		"cuCtxCreate_v2", "cuDevicePrimaryCtxRetain", "cuModuleLoadData", "cuModuleGetFunction",
		"cuLibraryGetKernel", "cuMemPoolTrimTo", "cuArray3DGetDescriptor_v2", "cudaGetDevic",
		"cudaGetDeviceX", "cuCtxGetCurrentt", "", "_v2", "cudaGetDevice_", NULL };
	for (size_t i = 0; no[i]; i++)
		assert_false(gmp_api__quiet(no[i]));
	assert_false(gmp_api__quiet(NULL));
	char longname[200];
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	assert_false(gmp_api__quiet(longname));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(options),
		cmocka_unit_test(path_patterns),
		cmocka_unit_test(maps_to_touches),
		cmocka_unit_test(maps_to_touches_random),
		cmocka_unit_test(quiet_calls),
	};
	return cmocka_run_group_tests_name("collector", tests, NULL, NULL);
}
