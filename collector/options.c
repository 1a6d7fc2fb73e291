// SPDX-License-Identifier: MIT
/* Parsing and validation of the GMPROF_* variables (no side effects). */
#include "options.h"
#include "nvtx_fold.h"
#include "patch_abi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad(char *err, size_t n, const char *name, const char *value, const char *why)
{
	snprintf(err, n, "%s='%s' is not valid: %s", name, value, why);
	return -EINVAL;
}

static int u32_opt(gmp_getenv_fn get, const char *name, uint32_t lo, uint32_t hi, uint32_t *out,
		   char *err, size_t n)
{
	const char *v = get(name);
	if (!v)
		return 0;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 10);
	char why[96];
	snprintf(why, sizeof(why), "expected a whole number from %u to %u", lo, hi);
	if (!*v || *v == '-' || *v == '+' || *end || errno || x < lo || x > hi)
		return bad(err, n, name, v, why);
	*out = (uint32_t)x;
	return 0;
}

static int bool_opt(gmp_getenv_fn get, const char *name, int *out, char *err, size_t n)
{
	const char *v = get(name);
	if (!v)
		return 0;
	if (!strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "true"))
		*out = 1;
	else if (!strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "false"))
		*out = 0;
	else
		return bad(err, n, name, v, "expected 1 or 0");
	return 0;
}

/* A value among choices (NULL-terminated; CHOICES below): *out is its index. */
static int choice_opt(gmp_getenv_fn get, const char *name, const char *const *choices, int *out,
		      char *err, size_t n)
{
	const char *v = get(name);
	if (!v)
		return 0;
	size_t k = 0;
	for (; choices[k]; k++)
		if (!strcmp(v, choices[k])) {
			*out = (int)k;
			return 0;
		}
	char why[96] = "expected ";
	for (size_t i = 0; i < k; i++)
		snprintf(why + strlen(why), sizeof(why) - strlen(why), "%s%s", choices[i],
			 i + 2 < k ? ", " : i + 2 == k ? " or " : "");
	return bad(err, n, name, v, why);
}

#define CHOICES(...) ((const char *const[]){ __VA_ARGS__, NULL })

const char *gmp_mode__name(int mode)
{
	return mode == GMP_COLLECT_INTRA ? "intra" : mode == GMP_COLLECT_ALLOC ? "alloc" : "object";
}

static int mode_opt(gmp_getenv_fn get, int *out, char *err, size_t n)
{
	const char *v = get("GMPROF_MODE");
	if (!v)
		return 0;
	for (int m = GMP_COLLECT_OBJECT; m <= GMP_COLLECT_ALLOC; m++)
		if (!strcmp(v, gmp_mode__name(m))) {
			*out = m;
			return 0;
		}
	return bad(err, n, "GMPROF_MODE", v, "expected object, intra or alloc");
}

static int str_opt(gmp_getenv_fn get, const char *name, char *out, size_t cap, char *err,
		   size_t n)
{
	const char *v = get(name);
	if (!v)
		return 0;
	if (strlen(v) >= cap)
		return bad(err, n, name, v, "too long");
	strcpy(out, v);
	return 0;
}

static const struct {
	const char *name;
	uint32_t bit;
} fallbacks[] = {
	{ "hit-list", GMP_FALLBACK_HIT_LIST }, { "two-tables", GMP_FALLBACK_TWO_TABLES },
	{ "table-reuse", GMP_FALLBACK_TABLE_REUSE }, { "hit-epochs", GMP_FALLBACK_HIT_EPOCHS },
	{ "object-callback", GMP_FALLBACK_OBJECT_CALLBACK }, { "device-lists", GMP_FALLBACK_DEVICE_LISTS },
	{ "launch-headers", GMP_FALLBACK_LAUNCH_HEADERS }, { "pinned-reads", GMP_FALLBACK_PINNED_READS },
	{ "all", GMP_FALLBACK_ALL },
};
#define NFALLBACKS (sizeof(fallbacks) / sizeof(fallbacks[0]))

const char *gmp_opts__fallback_names(uint32_t bits, char *buf, size_t n)
{
	size_t at = 0;
	buf[0] = 0;
	for (size_t k = 0; k + 1 < NFALLBACKS && at < n; k++) /* "all" is its parts */
		if (bits & fallbacks[k].bit)
			at += (size_t)snprintf(buf + at, n - at, "%s%s", at ? "," : "", fallbacks[k].name);
	return buf;
}

/* GMPROF_FALLBACK: a comma list of the mechanisms' names, "all", or "" for none. */
static int fallback_opt(gmp_getenv_fn get, uint32_t *out, char *err, size_t n)
{
	const char *v = get("GMPROF_FALLBACK");
	if (!v || !*v)
		return 0;
	for (const char *p = v;; p++) { /* an item, then a comma or the end */
		size_t len = strcspn(p, ","), k = 0;
		while (k < NFALLBACKS && (strlen(fallbacks[k].name) != len || strncmp(p, fallbacks[k].name, len)))
			k++;
		if (k == NFALLBACKS)
			return bad(err, n, "GMPROF_FALLBACK", v,
				   "expected a comma list of hit-list, two-tables, table-reuse, hit-epochs, "
				   "object-callback, device-lists, launch-headers and pinned-reads, or all");
		*out |= fallbacks[k].bit;
		p += len;
		if (!*p)
			return 0;
	}
}

/* A launch number from 1, digits only: its end, or NULL. */
static const char *launch_number(const char *p, uint64_t *n)
{
	if (*p < '0' || *p > '9')
		return NULL;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(p, &end, 10);
	if (errno || !v)
		return NULL;
	*n = v;
	return end;
}

int gmp_capture__parse(const char *v, uint64_t *first, uint64_t *last)
{
	if (!strcmp(v, "all"))
		return GMP_CAPTURE_ALL;
	if (!strcmp(v, "profiler-api"))
		return GMP_CAPTURE_PROFILER;
	if (!strncmp(v, "nvtx:", 5) && v[5] && strlen(v + 5) < GMP_CAPTURE_NAME_MAX)
		return GMP_CAPTURE_NVTX;
	uint64_t a, z = UINT64_MAX;
	const char *p = strncmp(v, "launches:", 9) ? NULL : launch_number(v + 9, &a);
	if (!p || *p++ != '-' || (*p && (!(p = launch_number(p, &z)) || *p || z < a)))
		return -1;
	if (first)
		*first = a;
	if (last)
		*last = z;
	return GMP_CAPTURE_LAUNCHES;
}

static int capture_opt(gmp_getenv_fn get, struct gmp_opts *o, char *err, size_t n)
{
	const char *v = get("GMPROF_CAPTURE");
	if (!v || !*v || !strcmp(v, "all"))
		return 0;
	if (strlen(v) >= sizeof(o->capture_value) ||
	    (o->capture = gmp_capture__parse(v, &o->capture_first, &o->capture_last)) < 0)
		return bad(err, n, "GMPROF_CAPTURE", v, GMP_CAPTURE_EXPECTED);
	if (o->mode == GMP_COLLECT_ALLOC)
		return bad(err, n, "GMPROF_CAPTURE", v, "alloc mode monitors no launch (use object or intra mode)");
	strcpy(o->capture_value, v);
	o->capture_range = o->capture == GMP_CAPTURE_NVTX ? o->capture_value + 5 : NULL;
	return 0;
}

static int pow2(uint32_t x)
{
	return x && !(x & (x - 1));
}

int gmp_opts__parse(struct gmp_opts *o, gmp_getenv_fn get, char *err, size_t n)
{
	memset(o, 0, sizeof(*o));
	strcpy(o->output, "gmprof.%p.gmprof");
	o->kernel_sample = 1;
	o->depth = 32;
	o->flush_ms = 200;
	o->online = 1;
	o->online_events = 2000000;
	o->summary = 1;
	o->oom_meminfo = 1;
	o->device_info = 1;
	o->python = 1;
	o->pool = 256;
	o->gran = 4;
	o->cgran = 64;
	o->records = 1u << 20;
	o->maps_mb = 512;
	o->heap_records = 1024;
	o->hit_epochs = GMP_HIT_EPOCHS;
	o->graph_fn_data = 1; /* per function: on an H200 (2026-11-30) per launch mixed kernel nodes' accesses */
	if (str_opt(get, "GMPROF_OUTPUT", o->output, sizeof(o->output), err, n) ||
	    bool_opt(get, "GMPROF_FORCE", &o->force, err, n) ||
	    mode_opt(get, &o->mode, err, n) ||
	    u32_opt(get, "GMPROF_KERNEL_SAMPLE", 1, 1u << 30, &o->kernel_sample, err, n) ||
	    str_opt(get, "GMPROF_KERNELS", o->kernels, sizeof(o->kernels), err, n) ||
	    u32_opt(get, "GMPROF_DEPTH", 1, 256, &o->depth, err, n) ||
	    u32_opt(get, "GMPROF_FLUSH_MS", 1, 3600000, &o->flush_ms, err, n) ||
	    choice_opt(get, "GMPROF_ON_ERROR", CHOICES("continue", "fail"), &o->fail, err, n) ||
	    str_opt(get, "GMPROF_SANITIZER_LIB", o->sanitizer_lib, sizeof(o->sanitizer_lib), err, n) ||
	    str_opt(get, "GMPROF_PATCH", o->patch, sizeof(o->patch), err, n) ||
	    bool_opt(get, "GMPROF_ONLINE", &o->online, err, n) ||
	    u32_opt(get, "GMPROF_ONLINE_EVENTS", 1, 1u << 30, &o->online_events, err, n) ||
	    bool_opt(get, "GMPROF_SUMMARY", &o->summary, err, n) ||
	    bool_opt(get, "GMPROF_NVTX_NUMBERS", &o->nvtx_numbers, err, n) ||
	    str_opt(get, "GMPROF_NVTX_STRIP", o->nvtx_strip, sizeof(o->nvtx_strip), err, n) ||
	    str_opt(get, "GMPROF_NVTX_DOMAIN_INCLUDE", o->nvtx_domain_include, sizeof(o->nvtx_domain_include), err, n) ||
	    str_opt(get, "GMPROF_NVTX_DOMAIN_EXCLUDE", o->nvtx_domain_exclude, sizeof(o->nvtx_domain_exclude), err, n) ||
	    bool_opt(get, "GMPROF_NVTX_DOMAIN_NAMES", &o->nvtx_domain_names, err, n) ||
	    choice_opt(get, "GMPROF_HARVEST", CHOICES("deferred", "launch"), &o->harvest, err, n) ||
	    u32_opt(get, "GMPROF_POOL", 1, 1u << 20, &o->pool, err, n) ||
	    u32_opt(get, "GMPROF_GRANULARITY", 1, 1u << 20, &o->gran, err, n) ||
	    u32_opt(get, "GMPROF_COUNTER_GRANULARITY", 1, 1u << 24, &o->cgran, err, n) ||
	    u32_opt(get, "GMPROF_RECORDS", 1, 1u << 30, &o->records, err, n) ||
	    u32_opt(get, "GMPROF_MAPS_MB", 0, 1u << 20, &o->maps_mb, err, n) ||
	    u32_opt(get, "GMPROF_HEAP_RECORDS", 0, 1u << 24, &o->heap_records, err, n) ||
	    choice_opt(get, "GMPROF_PATCH_LOADS", CHOICES("l2", "l1"), &o->patch_l1, err, n) ||
	    choice_opt(get, "GMPROF_PATCH_AT", CHOICES("load", "launch", "range"), &o->patch_at, err, n) ||
	    choice_opt(get, "GMPROF_GRAPH_NODE_DATA", CHOICES("launch", "function"), &o->graph_fn_data, err, n) ||
	    bool_opt(get, "GMPROF_PATCH_HINTS", &o->patch_hints, err, n) ||
	    bool_opt(get, "GMPROF_PYTHON", &o->python, err, n) ||
	    str_opt(get, "GMPROF_RUN_MANIFEST", o->run_manifest, sizeof(o->run_manifest), err, n) ||
	    choice_opt(get, "GMPROF_API_CALLBACKS", CHOICES("all", "needed"), &o->api_needed, err, n) ||
	    bool_opt(get, "GMPROF_LOG_CALLBACKS", &o->log_callbacks, err, n) ||
	    bool_opt(get, "GMPROF_OOM_MEMINFO", &o->oom_meminfo, err, n) ||
	    bool_opt(get, "GMPROF_DEVICE_INFO", &o->device_info, err, n) ||
	    bool_opt(get, "GMPROF_PATCH_EMPTY", &o->patch_empty, err, n) ||
	    u32_opt(get, "GMPROF_HIT_EPOCHS", 1, GMP_HIT_EPOCHS, &o->hit_epochs, err, n) ||
	    fallback_opt(get, &o->fallback, err, n) || capture_opt(get, o, err, n))
		return -EINVAL;
	/*
	 * Under a capture range a module is patched at its first monitored
	 * launch unless told otherwise, so kernels outside the range run as they
	 * are: on the H200 (2026-11-30) 1.01x native at the median where the
	 * patches called with no launch data took 1.08x (three_mm 1.14x, 7.5x).
	 */
	o->patch_at_default = !get("GMPROF_PATCH_AT");
	if (o->patch_at_default && o->capture != GMP_CAPTURE_ALL)
		o->patch_at = GMP_PATCH_AT_LAUNCH;
	char v[32];
	if (!pow2(o->gran)) {
		snprintf(v, sizeof(v), "%u", o->gran);
		return bad(err, n, "GMPROF_GRANULARITY", v, "expected a power of 2");
	}
	if (!pow2(o->cgran) || o->cgran < o->gran) {
		snprintf(v, sizeof(v), "%u", o->cgran);
		return bad(err, n, "GMPROF_COUNTER_GRANULARITY", v,
			   "expected a power of 2 no finer than GMPROF_GRANULARITY");
	}
	if (o->nvtx_domain_include[0] && o->nvtx_domain_exclude[0])
		return bad(err, n, "GMPROF_NVTX_DOMAIN_EXCLUDE", o->nvtx_domain_exclude,
			   "GMPROF_NVTX_DOMAIN_INCLUDE is set too: give one of them");
	if (!o->output[0])
		return bad(err, n, "GMPROF_OUTPUT", "", "the profile needs a name");
	struct gmp_nvtx_fold f;
	char why[160];
	if (o->nvtx_strip[0] && gmp_nvtx_fold__init(&f, o->nvtx_strip, 0, why, sizeof(why)))
		return bad(err, n, "GMPROF_NVTX_STRIP", o->nvtx_strip, why);
	if (o->nvtx_strip[0])
		gmp_nvtx_fold__release(&f);
	return 0;
}
