// SPDX-License-Identifier: MIT
/*
 * gmprof diff, by NVTX mark: for each mark name shown on a device in either
 * run, the most live at its marks and how much more was live at its last
 * than at its first, before and after (markmem.h says what they count).
 * Names are matched as the program gives them, the largest change first;
 * where a name's growth grew, what run b's marks of it kept, by site.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "findings_json.h"
#include "markdown.h"
#include "marks.h"
#include "oneline.h"
#include "rangemem.h"

/* A mark name of a device, in run a (index 0) or b (1) or both. */
struct delta {
	char *name;   /* owned */
	int has[2];
	uint64_t max[2], grew[2], times[2];
	size_t g_b;   /* its group in run b's marks, where has[1] */
};

static uint64_t dist(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* What ranks a name: the larger change of its most and of its growth. */
static uint64_t weight(const struct delta *e)
{
	uint64_t m = dist(e->max[0], e->max[1]), g = dist(e->grew[0], e->grew[1]);
	return m > g ? m : g;
}

static int by_name(const void *x, const void *y)
{
	return strcmp(((const struct delta *)x)->name, ((const struct delta *)y)->name);
}

static int by_change(const void *x, const void *y)
{
	uint64_t a = weight(x), b = weight(y);
	return a != b ? (a > b ? -1 : 1) : by_name(x, y);
}

static void deltas_free(struct delta *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

/* Run k's names shown on device into v (grown as needed). */
static int collect(const struct gmp_result *r, const struct gmp_mmem *m, int k, uint32_t device, struct delta **v,
		   size_t *n, size_t *cap)
{
	size_t d = gmp_result__device_index(r, device);
	for (size_t g = 0; d < m->ndev && g < m->ngroups; g++) {
		if (!gmp_mmem__shown(m, g, d))
			continue;
		if (*n == *cap) {
			struct delta *nv = realloc(*v, (*cap = *cap ? 2 * *cap : 16) * sizeof(*nv));
			if (!nv)
				return -ENOMEM;
			*v = nv;
		}
		const struct gmp_mmem_dev *x = gmp_mmem__at(m, g, d);
		struct delta *e = &(*v)[*n];
		*e = (struct delta){ .name = strdup(gmp_trace__str(r->trace, m->group[g].name, NULL)), .g_b = g };
		if (!e->name)
			return -ENOMEM;
		e->has[k] = 1;
		e->max[k] = x->max;
		e->grew[k] = gmp_mmem__growth(x);
		e->times[k] = m->group[g].times;
		++*n;
	}
	return 0;
}

/*
 * Device's names in either run (mb: run b's marks), matched by name, the
 * largest change first; with changed_only, those alike in both left out.
 */
static int deltas(const struct gmp_result *a, const struct gmp_result *b, const struct gmp_mmem *mb, uint32_t device,
		  int changed_only, struct delta **out, size_t *nout)
{
	struct gmp_mmem ma;
	struct delta *v = NULL;
	size_t n = 0, cap = 0;
	int err = gmp_mmem__build(a, &ma);
	if (!err)
		err = collect(a, &ma, 0, device, &v, &n, &cap);
	gmp_mmem__release(&ma);
	if (!err)
		err = collect(b, mb, 1, device, &v, &n, &cap);
	if (err) {
		deltas_free(v, n);
		return err;
	}
	if (n)
		qsort(v, n, sizeof(*v), by_name); /* a name of both runs: its two entries side by side */
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		struct delta *p = m ? &v[m - 1] : NULL;
		if (p && !strcmp(p->name, v[i].name) && p->has[0] != v[i].has[0]) {
			int k = v[i].has[1];
			p->has[k] = 1;
			p->max[k] = v[i].max[k];
			p->grew[k] = v[i].grew[k];
			p->times[k] = v[i].times[k];
			p->g_b = k ? v[i].g_b : p->g_b;
			free(v[i].name);
		} else {
			v[m++] = v[i];
		}
	}
	n = 0;
	for (size_t i = 0; i < m; i++) {
		int same = v[i].has[0] == v[i].has[1] && v[i].max[0] == v[i].max[1] && v[i].grew[0] == v[i].grew[1];
		if (changed_only && same)
			free(v[i].name);
		else
			v[n++] = v[i];
	}
	if (n)
		qsort(v, n, sizeof(*v), by_change);
	*out = n ? v : NULL;
	*nout = n;
	if (!n)
		free(v);
	return 0;
}

/* "most 7.0 KiB -> 9.0 KiB, its last mark 2.0 KiB -> 4.0 KiB above its first" (what changed), or a name of one run. */
static const char *words(const struct delta *e, char *buf, size_t n)
{
	char a[32], b[32], c[32], d[32];
	if (!e->has[0] || !e->has[1]) {
		snprintf(buf, n, "%s: most %s over %llu mark%s", e->has[0] ? "only before" : "new",
			 gmp_human_bytes(e->max[!e->has[0]], a, sizeof(a)), (unsigned long long)e->times[!e->has[0]],
			 e->times[!e->has[0]] == 1 ? "" : "s");
		return buf;
	}
	int mx = e->max[0] != e->max[1];
	int w = mx ? snprintf(buf, n, "most %s -> %s", gmp_human_bytes(e->max[0], a, sizeof(a)),
			      gmp_human_bytes(e->max[1], b, sizeof(b)))
		   : snprintf(buf, n, "%s", "");
	if (e->grew[0] != e->grew[1] && w >= 0 && (size_t)w < n)
		snprintf(buf + w, n - (size_t)w, "%sits last mark %s -> %s above its first", mx ? ", " : "",
			 gmp_human_bytes(e->grew[0], c, sizeof(c)), gmp_human_bytes(e->grew[1], d, sizeof(d)));
	return buf;
}

/* "+2.0 KiB" or "-4.0 KiB": the change that ranks it (the most's where they tie). */
static const char *signed_change(const struct delta *e, char *buf, size_t n)
{
	char a[32];
	uint64_t most = weight(e);
	int down = most == dist(e->max[0], e->max[1]) ? e->max[1] < e->max[0] : e->grew[1] < e->grew[0];
	snprintf(buf, n, "%s%s", down ? "-" : "+", gmp_human_bytes(most, a, sizeof(a)));
	return buf;
}

/* Where e's growth grew: what run b's marks of it kept, by site, into kp (release it in every case). */
static int kept_of(const struct delta *e, const struct gmp_result *b, const struct gmp_mmem *mb, struct gmp_sites *sites,
		   uint32_t device, struct gmp_rmem_kept *kp)
{
	memset(kp, 0, sizeof(*kp));
	if (!e->has[1] || e->grew[1] <= (e->has[0] ? e->grew[0] : 0))
		return 0;
	return gmp_mmem__kept_sites(sites, b, mb, e->g_b, gmp_result__device_index(b, device), kp);
}

/* The same as a sentence, into text ("" for none). */
static int kept_after(const struct delta *e, const struct gmp_result *b, const struct gmp_mmem *mb,
		      struct gmp_sites *sites, uint32_t device, char *text, size_t n)
{
	struct gmp_rmem_kept kp;
	int err = kept_of(e, b, mb, sites, device, &kp);
	text[0] = 0;
	if (!err && kp.objects)
		gmp_kept__text("live at its last mark, allocated since its first", &kp, 3, text, n);
	gmp_rmem_kept__release(&kp);
	return err;
}

/* One of the three outputs of device's marks: its deltas (changed_only) and run b's marks, for each writer. */
typedef int (*diff_writer)(void *out, const struct gmp_result *b, const struct gmp_mmem *mb, struct gmp_sites *sites_b,
			   uint32_t device, const struct delta *v, size_t n, size_t max);

static int with_deltas(void *out, const struct gmp_result *a, const struct gmp_result *b, struct gmp_sites *sites_b,
		       uint32_t device, int changed_only, size_t max, diff_writer write)
{
	struct gmp_mmem mb;
	struct delta *v = NULL;
	size_t n = 0;
	int err = gmp_mmem__build(b, &mb);
	if (!err)
		err = deltas(a, b, &mb, device, changed_only, &v, &n);
	if (!err)
		err = write(out, b, &mb, sites_b, device, v, n, max);
	deltas_free(v, n);
	gmp_mmem__release(&mb);
	return err;
}

static int write_text(void *out, const struct gmp_result *b, const struct gmp_mmem *mb, struct gmp_sites *sites_b,
		      uint32_t device, const struct delta *v, size_t n, size_t max)
{
	FILE *fp = out;
	int err = 0;
	if (n)
		fprintf(fp, "    by NVTX mark (the largest changes first):\n");
	for (size_t i = 0; i < n && i < max && !err; i++) {
		char c[40], w[256], one[600], kept[1024];
		fprintf(fp, "      %-11s %s: %s\n", signed_change(&v[i], c, sizeof(c)), gmp_oneline(v[i].name, one, sizeof(one)),
			words(&v[i], w, sizeof(w)));
		if (!(err = kept_after(&v[i], b, mb, sites_b, device, kept, sizeof(kept))) && *kept)
			fprintf(fp, "                  %s\n", kept);
	}
	if (n > max && !err)
		fprintf(fp, "      ... and %zu more marks\n", n - max);
	return err;
}

int gmp_mmem__diff_text(FILE *fp, const struct gmp_result *a, const struct gmp_result *b, struct gmp_sites *sites_b,
			uint32_t device, size_t max)
{
	return with_deltas(fp, a, b, sites_b, device, 1, max, write_text);
}

static int write_md(void *out, const struct gmp_result *b, const struct gmp_mmem *mb, struct gmp_sites *sites_b,
		    uint32_t device, const struct delta *v, size_t n, size_t max)
{
	FILE *fp = out;
	int err = 0;
	if (!n)
		return 0;
	fprintf(fp, "### Device %u by NVTX mark\n\n| change | mark | most before | most after | grew before | grew after |\n"
		"|---|---|---|---|---|---|\n", device);
	for (size_t i = 0; i < n && i < max; i++) {
		char c[40], x[4][32];
		fprintf(fp, "| %s | ", signed_change(&v[i], c, sizeof(c)));
		gmp_md__code(fp, v[i].name, 1);
		fprintf(fp, " | %s | %s | %s | %s |\n", v[i].has[0] ? gmp_human_bytes(v[i].max[0], x[0], 32) : "none",
			v[i].has[1] ? gmp_human_bytes(v[i].max[1], x[1], 32) : "none",
			v[i].has[0] ? gmp_human_bytes(v[i].grew[0], x[2], 32) : "none",
			v[i].has[1] ? gmp_human_bytes(v[i].grew[1], x[3], 32) : "none");
	}
	if (n > max)
		fprintf(fp, "\n... and %zu more marks\n", n - max);
	for (size_t i = 0; i < n && i < max && !err; i++) { /* what a name whose growth grew kept, under the table */
		char kept[1024];
		if ((err = kept_after(&v[i], b, mb, sites_b, device, kept, sizeof(kept))) || !*kept)
			continue;
		fputc('\n', fp);
		gmp_md__code(fp, v[i].name, 0);
		fputs(" after: ", fp);
		gmp_md__text(fp, kept);
		fputc('\n', fp);
	}
	fputc('\n', fp);
	return err;
}

int gmp_mmem__diff_md(FILE *fp, const struct gmp_result *a, const struct gmp_result *b, struct gmp_sites *sites_b,
		      uint32_t device, size_t max)
{
	return with_deltas(fp, a, b, sites_b, device, 1, max, write_md);
}

static int write_json(void *out, const struct gmp_result *b, const struct gmp_mmem *mb, struct gmp_sites *sites_b,
		      uint32_t device, const struct delta *v, size_t n, size_t max)
{
	struct gmp_jw *jw = out;
	static const char *const key[2][3] = { { "max_before", "grew_before", "times_before" },
						 { "max_after", "grew_after", "times_after" } };
	int err = 0;
	(void)max;
	if (!n)
		return 0;
	gmp_jw__key(jw, "marks");
	gmp_jw__arr(jw);
	for (size_t i = 0; i < n && !err; i++) {
		gmp_jw__obj(jw);
		gmp_jw__kstr(jw, "mark", v[i].name);
		for (int k = 0; k < 2; k++) {
			gmp_jw__key(jw, key[k][0]);
			v[i].has[k] ? gmp_jw__u64(jw, v[i].max[k]) : gmp_jw__null(jw);
			gmp_jw__key(jw, key[k][1]);
			v[i].has[k] ? gmp_jw__u64(jw, v[i].grew[k]) : gmp_jw__null(jw);
			gmp_jw__key(jw, key[k][2]);
			v[i].has[k] ? gmp_jw__u64(jw, v[i].times[k]) : gmp_jw__null(jw);
		}
		struct gmp_rmem_kept kp;
		if (!(err = kept_of(&v[i], b, mb, sites_b, device, &kp)) && kp.objects)
			gmp_rmem_kept__json(jw, "kept_after", &kp);
		gmp_rmem_kept__release(&kp);
		gmp_jw__obj_end(jw);
	}
	gmp_jw__arr_end(jw);
	return err;
}

int gmp_mmem__diff_json(struct gmp_jw *jw, const struct gmp_result *a, const struct gmp_result *b,
			struct gmp_sites *sites_b, uint32_t device)
{
	return with_deltas(jw, a, b, sites_b, device, 0, SIZE_MAX, write_json);
}
