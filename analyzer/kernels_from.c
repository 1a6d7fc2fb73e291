// SPDX-License-Identifier: MIT
/*
 * `gmprof run --kernels-from PROFILE`: the kernels intra mode is to
 * monitor, chosen from an earlier run's profile (object mode is enough):
 * those that touched what was live at the memory peaks, the ones that
 * touched the most bytes of it first.  Intra mode then costs only where
 * its patterns (overallocation, access frequency and structure) can lower
 * a peak.  The kernels are matched by their names as recorded (mangled),
 * which the collector's filter accepts as well as demangled ones.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "findings_json.h"
#include "kernels_from.h"
#include "options.h"
#include "session.h"
#include "util.h"

struct pick {
	uint32_t name;   /* trace string id */
	uint64_t bytes;  /* bytes of peak objects it touched, each object once */
};

static int by_pair(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static int by_bytes(const void *a, const void *b)
{
	const struct pick *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return (x->name > y->name) - (x->name < y->name);
}

/*
 * The (kernel name, peak object) pairs of r, sorted and each once, as
 * name << 32 | object; *n of them.  -1 when memory ran out.
 */
static int peak_pairs(const struct gmp_result *r, uint64_t **out, size_t *n)
{
	const struct gmp_trace *t = r->trace;
	uint8_t *at_peak = calloc(r->nobjects ? r->nobjects : 1, 1);
	uint64_t *v = NULL;
	size_t cap = 0;
	*n = 0;
	if (!at_peak)
		return -1;
	for (size_t i = 0; i < r->npeak_objs; i++)
		at_peak[r->peak_objs[i]] = 1;
	for (size_t ev = 0; ev < t->nev; ev++) {
		const struct gmp_event *e = &t->ev[ev];
		if (e->op != GMP_OP_KERNEL || !e->name)
			continue;
		for (uint32_t k = r->dep_off[ev]; k < r->dep_off[ev + 1]; k++) {
			uint32_t obj = GMP_DEP_OBJ(r->deps[k]), kind = GMP_DEP_KIND(r->deps[k]);
			if (kind > GMP_DEP_RW || obj >= r->nobjects || !at_peak[obj])
				continue;
			if (GMP_GROW(v, cap, *n + 1)) {
				free(v);
				free(at_peak);
				return -1;
			}
			v[(*n)++] = (uint64_t)e->name << 32 | obj;
		}
	}
	free(at_peak);
	if (*n)
		qsort(v, *n, sizeof(*v), by_pair);
	size_t k = 0;
	for (size_t i = 0; i < *n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	*n = k;
	*out = v;
	return 0;
}

/* Writes s (len bytes) to the regex in fp, its ERE special characters escaped. */
static void put_escaped(FILE *fp, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] && strchr("\\^$.|?*+()[]{}", s[i]))
			fputc('\\', fp);
		fputc(s[i], fp);
	}
}

/* "^(a|b)$" for the first n picks' names as recorded, or NULL when memory ran out. */
static char *regex_of(const struct gmp_trace *t, const struct pick *picks, size_t n)
{
	char *p = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&p, &len);
	if (!fp)
		return NULL;
	fputs("^(", fp);
	for (size_t i = 0; i < n; i++) {
		size_t k;
		const char *raw = gmp_trace__str(t, picks[i].name, &k);
		if (i)
			fputc('|', fp);
		put_escaped(fp, raw, k);
	}
	fputs(")$", fp);
	int bad = ferror(fp);
	if (fclose(fp) || bad) {
		free(p);
		return NULL;
	}
	return p;
}

int gmp_kernels_from(const char *path, uint32_t top, char **regex)
{
	*regex = NULL;
	struct gmp_detect_opts dopts;
	gmp_detect_opts__defaults(&dopts);
	dopts.demangle = gmp_demangle;
	dopts.keep_deps = 1;
	struct gmp_session s;
	struct gmp_session_opts so = { .detect = &dopts };
	if (gmp_session__open(&s, path, &so))
		return -1;
	const struct gmp_result *r = s.r;
	uint64_t *pairs = NULL;
	size_t npairs = 0, npicks = 0;
	struct pick *picks = NULL;
	int rc = -1;
	if (peak_pairs(r, &pairs, &npairs) || !(picks = calloc(npairs ? npairs : 1, sizeof(*picks)))) {
		fprintf(stderr, "gmprof: out of memory choosing kernels from '%s'\n", path);
		goto out;
	}
	for (size_t i = 0; i < npairs; i++) {
		uint32_t name = (uint32_t)(pairs[i] >> 32), obj = (uint32_t)pairs[i];
		if (!npicks || picks[npicks - 1].name != name)
			picks[npicks++] = (struct pick){ .name = name };
		picks[npicks - 1].bytes += r->objects[obj].size;
	}
	if (!npicks) {
		const char *cap = gmp_trace__meta(r->trace, "capture");
		fprintf(stderr, "gmprof: no kernel in '%s' touched what was live at its peaks%s%s%s: "
			"--kernels-from has no kernel to monitor\n", path,
			cap ? " (it monitored only the launches of its capture range, GMPROF_CAPTURE=" : "",
			cap ? cap : "", cap ? ")" : "");
		goto out;
	}
	qsort(picks, npicks, sizeof(*picks), by_bytes);
	if (npicks > top)
		npicks = top;
	/* The collector takes GMPROF_KERNELS up to GMP_KERNELS_MAX: fewer kernels when their names are longer. */
	size_t want = npicks;
	while (npicks && (*regex = regex_of(r->trace, picks, npicks)) && strlen(*regex) >= GMP_KERNELS_MAX) {
		free(*regex);
		*regex = NULL;
		npicks--;
	}
	if (!*regex) {
		if (npicks)
			fprintf(stderr, "gmprof: out of memory choosing kernels from '%s'\n", path);
		else
			fprintf(stderr, "gmprof: the name of the kernel that touched the most of what was live at "
				"'%s''s peaks is longer than the collector takes (%d bytes)\n", path, GMP_KERNELS_MAX - 1);
		goto out;
	}
	if (npicks < want)
		fprintf(stderr, "gmprof: %zu of the %zu kernels chosen are left out: their names do not fit "
			"the collector's %d bytes of GMPROF_KERNELS\n", want - npicks, want, GMP_KERNELS_MAX - 1);
	fprintf(stderr, "gmprof: intra mode monitors the %zu kernel%s of '%s' that touched the most of "
		"what was live at its peaks:\n", npicks, npicks == 1 ? "" : "s", path);
	for (size_t i = 0; i < npicks; i++) {
		char h[32];
		fprintf(stderr, "  %s (%s of it)\n", gmp_result__kernel_name(r, picks[i].name),
			gmp_human_bytes(picks[i].bytes, h, sizeof(h)));
	}
	rc = 0;
out:
	free(picks);
	free(pairs);
	gmp_session__close(&s);
	return rc;
}

int gmp_kernels_from__suggested(const struct gmp_trace *t)
{
	const char *mode = gmp_trace__meta(t, "mode");
	if (!mode || strcmp(mode, "object"))
		return 0;
	for (size_t i = 0; i < t->nev; i++)
		if (t->ev[i].op == GMP_OP_KERNEL)
			return 1;
	return 0;
}
