// SPDX-License-Identifier: MIT
/*
 * gmprof diff, by NVTX range: for each range path a device has calls in,
 * in either run, its peak, the bytes that outlived it and how much more
 * was live as its last time began than as its first, before and after
 * (rangemem.h says what they count).  Ranges are matched by their
 * path ("step > backward"), the names a program gives them, which are the
 * same in two runs of it; the largest change comes first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rangemem.h"
#include "findings_json.h"
#include "markdown.h"
#include "oneline.h"

static int by_path(const void *x, const void *y)
{
	return strcmp(((const struct gmp_rmem_delta *)x)->path, ((const struct gmp_rmem_delta *)y)->path);
}

static uint64_t dist(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* What ranks a range: the largest change of its peak, what outlived it, and its growth. */
static uint64_t weight(const struct gmp_rmem_delta *e)
{
	uint64_t p = dist(e->peak[0], e->peak[1]), o = dist(e->outlived[0], e->outlived[1]);
	uint64_t g = dist(e->grew[0], e->grew[1]);
	return p > o ? (p > g ? p : g) : (o > g ? o : g);
}

static int by_change(const void *x, const void *y)
{
	uint64_t a = weight(x), b = weight(y);
	return a != b ? (a > b ? -1 : 1) : by_path(x, y);
}

void gmp_rmem__deltas_free(struct gmp_rmem_delta *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

int gmp_rmem__deltas(const struct gmp_result *a, const struct gmp_result *b, uint32_t device, int changed_only,
		     struct gmp_rmem_delta **out, size_t *nout)
{
	const struct gmp_result *rs[2] = { a, b };
	struct gmp_rmem_delta *v = NULL;
	size_t n = 0, cap = 0;
	int err = 0;
	*out = NULL;
	*nout = 0;
	for (int k = 0; k < 2 && !err; k++) {
		struct gmp_rmem m;
		size_t d = gmp_result__device_index(rs[k], device);
		err = gmp_rmem__build(rs[k], &m);
		for (size_t i = 0; !err && d < m.ndev && i < m.ntree; i++) {
			const struct gmp_rmem_dev *x = gmp_rmem__at(&m, m.tree[i], d);
			char path[4096];
			if (!x->calls)
				continue;
			if (n == cap) {
				struct gmp_rmem_delta *nv = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof(*v));
				if (!nv) {
					err = -ENOMEM;
					break;
				}
				v = nv;
			}
			memset(&v[n], 0, sizeof(v[n]));
			if (!(v[n].path = strdup(gmp_rmem__path(&m, rs[k], m.tree[i], path, sizeof(path))))) {
				err = -ENOMEM;
				break;
			}
			v[n].has[k] = 1;
			v[n].peak[k] = x->peak;
			v[n].grew[k] = gmp_rmem__growth(x);
			v[n++].outlived[k] = x->outlive_bytes;
		}
		gmp_rmem__release(&m);
	}
	if (err) {
		gmp_rmem__deltas_free(v, n);
		return err;
	}
	if (n)
		qsort(v, n, sizeof(*v), by_path);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) { /* a path in both runs: two entries, now adjacent */
		int k = v[i].has[1]; /* the run it comes from */
		if (m && !strcmp(v[m - 1].path, v[i].path) && !v[m - 1].has[k]) {
			v[m - 1].has[k] = 1;
			v[m - 1].peak[k] = v[i].peak[k];
			v[m - 1].outlived[k] = v[i].outlived[k];
			v[m - 1].grew[k] = v[i].grew[k];
			free(v[i].path);
		} else {
			v[m++] = v[i];
		}
	}
	n = 0;
	for (size_t i = 0; i < m; i++) {
		int same = v[i].has[0] == v[i].has[1] && v[i].peak[0] == v[i].peak[1] &&
			   v[i].outlived[0] == v[i].outlived[1] && v[i].grew[0] == v[i].grew[1];
		if (changed_only && same)
			free(v[i].path);
		else
			v[n++] = v[i];
	}
	if (n)
		qsort(v, n, sizeof(*v), by_change);
	*out = v;
	*nout = n;
	if (!n)
		free(v), *out = NULL;
	return 0;
}

/*
 * "peak 1.0 GiB -> 1.2 GiB, outlived it 0 B -> 4.0 KiB, its last time began
 * 8.0 KiB -> 0 B above its first" (the parts that changed), or a range of
 * one run.
 */
static const char *words(const struct gmp_rmem_delta *e, char *buf, size_t n)
{
	char a[32], b[32], c[32], d[32];
	if (!e->has[0] || !e->has[1]) {
		snprintf(buf, n, "%s: peak %s, outlived it %s", e->has[0] ? "only before" : "new",
			 gmp_human_bytes(e->peak[!e->has[0]], a, sizeof(a)),
			 gmp_human_bytes(e->outlived[!e->has[0]], b, sizeof(b)));
		return buf;
	}
	int p = e->peak[0] != e->peak[1], o = e->outlived[0] != e->outlived[1], g = e->grew[0] != e->grew[1], w = 0;
	buf[0] = 0;
	if (p)
		w = snprintf(buf, n, "peak %s -> %s", gmp_human_bytes(e->peak[0], a, sizeof(a)),
			     gmp_human_bytes(e->peak[1], b, sizeof(b)));
	if (o && w >= 0 && (size_t)w < n)
		w += snprintf(buf + w, n - (size_t)w, "%soutlived it %s -> %s", p ? ", " : "",
			      gmp_human_bytes(e->outlived[0], c, sizeof(c)), gmp_human_bytes(e->outlived[1], d, sizeof(d)));
	if (g && w >= 0 && (size_t)w < n)
		snprintf(buf + w, n - (size_t)w, "%sits last time began %s -> %s above its first", p || o ? ", " : "",
			 gmp_human_bytes(e->grew[0], a, sizeof(a)), gmp_human_bytes(e->grew[1], b, sizeof(b)));
	return buf;
}

/* "+256.0 MiB" or "-4.0 KiB": the change that ranks it (the peak's, then what outlived it, where they tie). */
static const char *signed_change(const struct gmp_rmem_delta *e, char *buf, size_t n)
{
	char a[32];
	uint64_t p = dist(e->peak[0], e->peak[1]), o = dist(e->outlived[0], e->outlived[1]), most = weight(e);
	int down = most == p ? e->peak[1] < e->peak[0] : most == o ? e->outlived[1] < e->outlived[0] : e->grew[1] < e->grew[0];
	snprintf(buf, n, "%s%s", down ? "-" : "+", gmp_human_bytes(most, a, sizeof(a)));
	return buf;
}

/*
 * For a range whose last time began further above its first than before
 * (e, of device's): what run b's times kept, by site, into kp (no objects
 * for other ranges; release it in every case); m is b's ranges' memory,
 * built at the first such range.  0 or -ENOMEM.
 */
static int kept_of(const struct gmp_rmem_delta *e, const struct gmp_result *b, struct gmp_sites *sites,
		   struct gmp_rmem *m, int *built, uint32_t device, struct gmp_rmem_kept *kp)
{
	memset(kp, 0, sizeof(*kp));
	if (!e->has[1] || e->grew[1] <= (e->has[0] ? e->grew[0] : 0))
		return 0;
	int err = (*built)++ ? 0 : gmp_rmem__build(b, m);
	char buf[4096];
	size_t d = gmp_result__device_index(b, device);
	for (size_t i = 0; !err && d < m->ndev && i < m->ntree; i++)
		if (!strcmp(gmp_rmem__path(m, b, m->tree[i], buf, sizeof(buf)), e->path))
			return gmp_rmem__kept_sites(sites, b, m, m->tree[i], d, kp);
	return err;
}

/* The same as a sentence, into text ("" for none). */
static int kept_after(const struct gmp_rmem_delta *e, const struct gmp_result *b, struct gmp_sites *sites,
		      struct gmp_rmem *m, int *built, uint32_t device, char *text, size_t n)
{
	struct gmp_rmem_kept kp;
	int err = kept_of(e, b, sites, m, built, device, &kp);
	text[0] = 0;
	if (!err && kp.objects)
		gmp_rmem_kept__text(&kp, 3, text, n);
	gmp_rmem_kept__release(&kp);
	return err;
}

int gmp_rmem__diff_text(FILE *fp, const struct gmp_result *a, const struct gmp_result *b, struct gmp_sites *sites_b,
			uint32_t device, size_t max)
{
	struct gmp_rmem_delta *v;
	size_t n;
	int err = gmp_rmem__deltas(a, b, device, 1, &v, &n);
	if (err)
		return err;
	struct gmp_rmem m = { 0 }; /* run b's, where a range's growth grew */
	int built = 0;
	if (n)
		fprintf(fp, "    by NVTX range (the largest changes first):\n");
	for (size_t i = 0; i < n && i < max && !err; i++) {
		char c[40], w[256], one[600], kept[1024];
		fprintf(fp, "      %-11s %s: %s\n", signed_change(&v[i], c, sizeof(c)), gmp_oneline(v[i].path, one, sizeof(one)),
			words(&v[i], w, sizeof(w)));
		if (!(err = kept_after(&v[i], b, sites_b, &m, &built, device, kept, sizeof(kept))) && *kept)
			fprintf(fp, "                  %s\n", kept);
	}
	if (n > max && !err)
		fprintf(fp, "      ... and %zu more ranges\n", n - max);
	gmp_rmem__release(&m);
	gmp_rmem__deltas_free(v, n);
	return err;
}

int gmp_rmem__diff_md(FILE *fp, const struct gmp_result *a, const struct gmp_result *b, struct gmp_sites *sites_b,
		      uint32_t device, size_t max)
{
	struct gmp_rmem_delta *v;
	size_t n;
	int err = gmp_rmem__deltas(a, b, device, 1, &v, &n);
	if (err || !n)
		return err;
	fprintf(fp, "### Device %u by NVTX range\n\n| change | range | peak before | peak after | outlived it before "
		"| outlived it after | grew before | grew after |\n|---|---|---|---|---|---|---|---|\n", device);
	for (size_t i = 0; i < n && i < max; i++) {
		char c[40], x[6][32];
		fprintf(fp, "| %s | ", signed_change(&v[i], c, sizeof(c)));
		gmp_md__code(fp, v[i].path, 1);
		fprintf(fp, " | %s | %s | %s | %s | ", v[i].has[0] ? gmp_human_bytes(v[i].peak[0], x[0], 32) : "none",
			v[i].has[1] ? gmp_human_bytes(v[i].peak[1], x[1], 32) : "none",
			v[i].has[0] ? gmp_human_bytes(v[i].outlived[0], x[2], 32) : "none",
			v[i].has[1] ? gmp_human_bytes(v[i].outlived[1], x[3], 32) : "none");
		fprintf(fp, "%s | %s |\n", v[i].has[0] ? gmp_human_bytes(v[i].grew[0], x[4], 32) : "none",
			v[i].has[1] ? gmp_human_bytes(v[i].grew[1], x[5], 32) : "none");
	}
	if (n > max)
		fprintf(fp, "\n... and %zu more ranges\n", n - max);
	struct gmp_rmem m = { 0 }; /* run b's, where a range's growth grew: what it kept, under the table */
	int built = 0;
	for (size_t i = 0; i < n && i < max && !err; i++) {
		char kept[1024];
		if ((err = kept_after(&v[i], b, sites_b, &m, &built, device, kept, sizeof(kept))) || !*kept)
			continue;
		fputc('\n', fp);
		gmp_md__code(fp, v[i].path, 0);
		fputs(" after: ", fp);
		gmp_md__text(fp, kept);
		fputc('\n', fp);
	}
	fputc('\n', fp);
	gmp_rmem__release(&m);
	gmp_rmem__deltas_free(v, n);
	return err;
}

int gmp_rmem__diff_json(struct gmp_jw *jw, const struct gmp_result *a, const struct gmp_result *b,
			struct gmp_sites *sites_b, uint32_t device)
{
	struct gmp_rmem_delta *v;
	size_t n;
	int err = gmp_rmem__deltas(a, b, device, 0, &v, &n);
	if (err)
		return err;
	struct gmp_rmem m = { 0 }; /* run b's, where a range's growth grew: what it kept */
	int built = 0;
	gmp_jw__key(jw, "ranges");
	gmp_jw__arr(jw);
	static const char *const key[2][3] = { { "peak_before", "outlived_before", "grew_before" },
						 { "peak_after", "outlived_after", "grew_after" } };
	for (size_t i = 0; i < n && !err; i++) {
		gmp_jw__obj(jw);
		gmp_jw__kstr(jw, "path", v[i].path);
		for (int k = 0; k < 2; k++) {
			gmp_jw__key(jw, key[k][0]);
			v[i].has[k] ? gmp_jw__u64(jw, v[i].peak[k]) : gmp_jw__null(jw);
			gmp_jw__key(jw, key[k][1]);
			v[i].has[k] ? gmp_jw__u64(jw, v[i].outlived[k]) : gmp_jw__null(jw);
			gmp_jw__key(jw, key[k][2]);
			v[i].has[k] ? gmp_jw__u64(jw, v[i].grew[k]) : gmp_jw__null(jw);
		}
		struct gmp_rmem_kept kp;
		if (!(err = kept_of(&v[i], b, sites_b, &m, &built, device, &kp)) && kp.objects)
			gmp_rmem_kept__json(jw, "kept_after", &kp);
		gmp_rmem_kept__release(&kp);
		gmp_jw__obj_end(jw);
	}
	gmp_jw__arr_end(jw);
	gmp_rmem__release(&m);
	gmp_rmem__deltas_free(v, n);
	return err;
}
