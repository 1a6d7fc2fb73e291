// SPDX-License-Identifier: MIT
/*
 * gmprof diff, by allocation site: what changed at each device's largest
 * peak, site by site (where a regression came from).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bysite.h"
#include "diff.h"
#include "findings_json.h"
#include "oneline.h"
#include "markdown.h"
#include "util.h"

/* A site's bytes at the device's largest peak, before and after. */
struct sdelta {
	const char *site;         /* as the run after names it, where it has the site */
	uint64_t key;             /* the site as both runs know it (gmp_sites__event_key) */
	uint64_t bytes[2];
	size_t objects[2];
};

struct sdeltas {
	struct gmp_bysite by[2];  /* own the site strings */
	struct sdelta *v;         /* the sites whose bytes changed, the largest change first */
	size_t n;
};

static int by_site(const void *x, const void *y)
{
	return strcmp(((const struct sdelta *)x)->site, ((const struct sdelta *)y)->site);
}

static int by_key(const void *x, const void *y)
{
	const struct sdelta *a = x, *b = y;
	return a->key != b->key ? (a->key < b->key ? -1 : 1) : by_site(x, y);
}

static uint64_t change(const struct sdelta *e)
{
	return e->bytes[1] > e->bytes[0] ? e->bytes[1] - e->bytes[0] : e->bytes[0] - e->bytes[1];
}

static int by_change(const void *x, const void *y)
{
	uint64_t a = change(x), b = change(y);
	return a != b ? (a > b ? -1 : 1) : by_site(x, y);
}

static void sdeltas_release(struct sdeltas *sd)
{
	gmp_bysite__release(&sd->by[0]);
	gmp_bysite__release(&sd->by[1]);
	free(sd->v);
	memset(sd, 0, sizeof(*sd));
}

/*
 * What changed at the device's largest peak, by allocation site.  Sites
 * named by a call path number (or none) are left out: those numbers are
 * the profile's own, not the same place in two runs.  The runs' sites are
 * matched as fingerprints match them, so a site whose line moved (lines
 * added above it) is the same site, named by its line in the run after.
 * 0, or -ENOMEM.
 */
static int site_deltas(struct gmp_session *a, struct gmp_session *b, uint32_t device, struct sdeltas *sd)
{
	memset(sd, 0, sizeof(*sd));
	struct gmp_session *ss[2] = { a, b };
	size_t cap = 0, n = 0;
	for (int k = 0; k < 2; k++) {
		const struct gmp_peak *pk = gmp_result__top_peak(ss[k]->r, device);
		if (!pk)
			continue;
		if (gmp_bysite__peak(&ss[k]->sites, ss[k]->r, pk, &sd->by[k]))
			goto oom;
		for (size_t i = 0; i < sd->by[k].n; i++) {
			const struct gmp_site_group *g = &sd->by[k].g[i];
			if (gmp_site__is_local(g->site))
				continue;
			if (GMP_GROW(sd->v, cap, n + 1))
				goto oom;
			sd->v[n] = (struct sdelta){ .site = g->site, .key = gmp_sites__event_key(&ss[k]->sites, g->alloc_ev) };
			sd->v[n].bytes[k] = g->bytes;
			sd->v[n++].objects[k] = g->findings;
		}
	}
	if (n)
		qsort(sd->v, n, sizeof(*sd->v), by_key);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) { /* a site in both runs: entries of one key, now adjacent */
		if (m && sd->v[m - 1].key == sd->v[i].key) {
			for (int k = 0; k < 2; k++) {
				sd->v[m - 1].bytes[k] += sd->v[i].bytes[k];
				sd->v[m - 1].objects[k] += sd->v[i].objects[k];
			}
			if (sd->v[i].objects[1])
				sd->v[m - 1].site = sd->v[i].site; /* the after run's name for it */
		} else {
			sd->v[m++] = sd->v[i];
		}
	}
	n = 0;
	for (size_t i = 0; i < m; i++)
		if (sd->v[i].bytes[0] != sd->v[i].bytes[1] || sd->v[i].objects[0] != sd->v[i].objects[1])
			sd->v[n++] = sd->v[i];
	if (n)
		qsort(sd->v, n, sizeof(*sd->v), by_change);
	sd->n = n;
	return 0;
oom:
	sdeltas_release(sd);
	return -ENOMEM;
}

void gmp_diff__sites_text(FILE *fp, struct gmp_session *a, struct gmp_session *b, uint32_t device)
{
	struct sdeltas sd;
	if (site_deltas(a, b, device, &sd)) {
		fprintf(fp, "    (out of memory comparing the peaks by allocation site)\n");
		return;
	}
	if (sd.n)
		fprintf(fp, "    at the peak, by allocation site (the largest changes first):\n");
	for (size_t i = 0; i < sd.n && i < 10; i++) {
		const struct sdelta *e = &sd.v[i];
		char x[32], y[32], z[32], one[600];
		fprintf(fp, "      %s%-10s %s: %s in %zu object%s -> %s in %zu\n", e->bytes[1] < e->bytes[0] ? "-" : "+",
			gmp_human_bytes(change(e), z, sizeof(z)), gmp_oneline(e->site, one, sizeof(one)), gmp_human_bytes(e->bytes[0], x, sizeof(x)),
			e->objects[0], e->objects[0] == 1 ? "" : "s", gmp_human_bytes(e->bytes[1], y, sizeof(y)),
			e->objects[1]);
	}
	if (sd.n > 10)
		fprintf(fp, "      ... and %zu more sites\n", sd.n - 10);
	sdeltas_release(&sd);
}

int gmp_diff__sites_json(struct gmp_jw *jw, struct gmp_session *a, struct gmp_session *b, uint32_t device)
{
	struct sdeltas sd;
	if (site_deltas(a, b, device, &sd))
		return -ENOMEM;
	gmp_jw__key(jw, "peak_sites");
	gmp_jw__arr(jw);
	for (size_t i = 0; i < sd.n; i++) {
		gmp_jw__obj(jw);
		gmp_jw__kstr(jw, "site", sd.v[i].site);
		gmp_jw__ku64(jw, "bytes_before", sd.v[i].bytes[0]);
		gmp_jw__ku64(jw, "bytes_after", sd.v[i].bytes[1]);
		gmp_jw__ku64(jw, "objects_before", sd.v[i].objects[0]);
		gmp_jw__ku64(jw, "objects_after", sd.v[i].objects[1]);
		gmp_jw__obj_end(jw);
	}
	gmp_jw__arr_end(jw);
	sdeltas_release(&sd);
	return 0;
}

int gmp_diff__sites_md(FILE *fp, struct gmp_session *a, struct gmp_session *b, uint32_t device)
{
	struct sdeltas sd;
	if (site_deltas(a, b, device, &sd))
		return -ENOMEM;
	if (sd.n)
		fprintf(fp, "### Device %u at the peak, by allocation site\n\n| change | site | before | after |\n"
			"|---|---|---|---|\n", device);
	for (size_t i = 0; i < sd.n && i < 10; i++) {
		const struct sdelta *e = &sd.v[i];
		char x[32], y[32], z[32];
		fprintf(fp, "| %s%s | ", e->bytes[1] < e->bytes[0] ? "-" : "+", gmp_human_bytes(change(e), z, sizeof(z)));
		gmp_md__code(fp, e->site, 1);
		fprintf(fp, " | %s in %zu object%s | %s in %zu object%s |\n", gmp_human_bytes(e->bytes[0], x, sizeof(x)),
			e->objects[0], e->objects[0] == 1 ? "" : "s", gmp_human_bytes(e->bytes[1], y, sizeof(y)),
			e->objects[1], e->objects[1] == 1 ? "" : "s");
	}
	if (sd.n > 10)
		fprintf(fp, "\n... and %zu more sites\n", sd.n - 10);
	if (sd.n)
		fputc('\n', fp);
	sdeltas_release(&sd);
	return 0;
}

