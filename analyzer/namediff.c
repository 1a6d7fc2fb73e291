// SPDX-License-Identifier: MIT
/*
 * gmprof diff by name: rows of two runs matched by name, the largest change
 * first, as text, Markdown and JSON (namediff.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "findings_json.h"
#include "markdown.h"
#include "namediff.h"
#include "oneline.h"
#include "rangemem.h"

static uint64_t dist(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* What ranks a row: the largest change of its ranked numbers; *first: the first number that changed that much. */
static uint64_t weight(const struct gmp_ndiff_row *e, const struct gmp_ndiff_kind *kind, size_t *first)
{
	uint64_t most = 0;
	size_t at = 0;
	for (size_t i = 0; i < kind->nranked; i++)
		if (dist(e->v[0][i], e->v[1][i]) > most)
			most = dist(e->v[0][i], e->v[1][i]), at = i;
	if (first)
		*first = at;
	return most;
}

static int by_name(const void *x, const void *y)
{
	return strcmp(((const struct gmp_ndiff_row *)x)->name, ((const struct gmp_ndiff_row *)y)->name);
}

static int by_change(const void *x, const void *y)
{
	const struct gmp_ndiff_row *a = x, *b = y;
	return a->weight != b->weight ? (a->weight > b->weight ? -1 : 1) : by_name(a, b);
}

int gmp_ndiff__add(struct gmp_ndiff *d, int k, const char *name, const uint64_t *v, size_t nv, size_t ref)
{
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 16;
		struct gmp_ndiff_row *nr = realloc(d->v, cap * sizeof(*nr));
		if (!nr)
			return -ENOMEM;
		d->v = nr;
		d->cap = cap;
	}
	struct gmp_ndiff_row *e = &d->v[d->n];
	*e = (struct gmp_ndiff_row){ .name = strdup(name), .ref = ref };
	if (!e->name)
		return -ENOMEM;
	e->has[k] = 1;
	for (size_t i = 0; i < nv && i < GMP_NDIFF_VALUES; i++)
		e->v[k][i] = v[i];
	d->n++;
	return 0;
}

void gmp_ndiff__settle(struct gmp_ndiff *d, const struct gmp_ndiff_kind *kind, int changed_only)
{
	struct gmp_ndiff_row *v = d->v;
	size_t m = 0, n = 0;
	if (d->n)
		qsort(v, d->n, sizeof(*v), by_name); /* a name of both runs: its two rows side by side */
	for (size_t i = 0; i < d->n; i++) {
		int k = v[i].has[1]; /* the run it comes from */
		struct gmp_ndiff_row *p = m ? &v[m - 1] : NULL;
		if (p && !p->has[k] && !strcmp(p->name, v[i].name)) {
			p->has[k] = 1;
			memcpy(p->v[k], v[i].v[k], sizeof(p->v[k]));
			p->ref = k ? v[i].ref : p->ref;
			free(v[i].name);
		} else {
			v[m++] = v[i];
		}
	}
	for (size_t i = 0; i < m; i++) {
		v[i].weight = weight(&v[i], kind, NULL);
		if (changed_only && v[i].has[0] == v[i].has[1] && !v[i].weight)
			free(v[i].name);
		else
			v[n++] = v[i];
	}
	d->n = n;
	if (n)
		qsort(v, n, sizeof(*v), by_change);
}

void gmp_ndiff__release(struct gmp_ndiff *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i].name);
	free(d->v);
	*d = (struct gmp_ndiff){ 0 };
}

/* "most 7.0 KiB -> 9.0 KiB, its last mark 2.0 KiB -> 4.0 KiB above its first" (what changed), or a row of one run. */
static const char *words(const struct gmp_ndiff_row *e, const struct gmp_ndiff_kind *kind, char *buf, size_t n)
{
	if (!e->has[0] || !e->has[1]) {
		int w = snprintf(buf, n, "%s: ", e->has[0] ? "only before" : "new");
		if (w >= 0 && (size_t)w < n)
			kind->one_run(e, e->has[1], buf + w, n - (size_t)w);
		return buf;
	}
	size_t len = 0;
	buf[0] = 0;
	for (size_t i = 0; i < kind->nranked && len < n; i++) {
		char a[32], b[32];
		if (e->v[0][i] == e->v[1][i])
			continue;
		int w = snprintf(buf + len, n - len, "%s%s%s -> %s%s", len ? ", " : "", kind->pre[i],
				 gmp_human_bytes(e->v[0][i], a, sizeof(a)), gmp_human_bytes(e->v[1][i], b, sizeof(b)),
				 kind->post[i]);
		len += w > 0 ? (size_t)w : 0;
	}
	return buf;
}

/* "+2.0 KiB" or "-4.0 KiB": the change that ranks it (the first number's of those that tie). */
static const char *signed_change(const struct gmp_ndiff_row *e, const struct gmp_ndiff_kind *kind, char *buf, size_t n)
{
	char a[32];
	size_t i;
	uint64_t most = weight(e, kind, &i);
	snprintf(buf, n, "%s%s", e->v[1][i] < e->v[0][i] ? "-" : "+", gmp_human_bytes(most, a, sizeof(a)));
	return buf;
}

/* What run b kept of e, where its growth grew, into kp (release it in every case). */
static int kept_of(const struct gmp_ndiff_row *e, const struct gmp_ndiff_kind *kind, void *ctx,
		   struct gmp_rmem_kept *kp)
{
	size_t g = kind->grew;
	memset(kp, 0, sizeof(*kp));
	if (!e->has[1] || e->v[1][g] <= (e->has[0] ? e->v[0][g] : 0))
		return 0;
	return kind->kept(ctx, e, kp);
}

/* The same as a sentence, into text ("" for none). */
static int kept_after(const struct gmp_ndiff_row *e, const struct gmp_ndiff_kind *kind, void *ctx, char *text,
		      size_t n)
{
	struct gmp_rmem_kept kp;
	int err = kept_of(e, kind, ctx, &kp);
	text[0] = 0;
	if (!err && kp.objects)
		gmp_kept__text(kind->kept_lead, &kp, 3, text, n);
	gmp_rmem_kept__release(&kp);
	return err;
}

static int gmp_ndiff__text(FILE *fp, const struct gmp_ndiff *d, const struct gmp_ndiff_kind *kind, void *ctx,
			   size_t max)
{
	int err = 0;
	if (d->n)
		fprintf(fp, "    by %s (the largest changes first):\n", kind->by);
	for (size_t i = 0; i < d->n && i < max && !err; i++) {
		const struct gmp_ndiff_row *e = &d->v[i];
		char c[40], w[256], one[600], kept[1024];
		fprintf(fp, "      %-11s %s: %s\n", signed_change(e, kind, c, sizeof(c)),
			gmp_oneline(e->name, one, sizeof(one)), words(e, kind, w, sizeof(w)));
		if (!(err = kept_after(e, kind, ctx, kept, sizeof(kept))) && *kept)
			fprintf(fp, "                  %s\n", kept);
	}
	if (d->n > max && !err)
		fprintf(fp, "      ... and %zu more %s\n", d->n - max, kind->things);
	return err;
}

static int gmp_ndiff__md(FILE *fp, const struct gmp_ndiff *d, const struct gmp_ndiff_kind *kind, void *ctx,
			 uint32_t device, size_t max)
{
	int err = 0;
	if (!d->n)
		return 0;
	fprintf(fp, "### Device %u by %s\n\n| change | %s |", device, kind->by, kind->column);
	for (size_t i = 0; i < kind->nranked; i++)
		fprintf(fp, " %s before | %s after |", kind->label[i], kind->label[i]);
	fputs("\n|---|---|", fp);
	for (size_t i = 0; i < kind->nranked; i++)
		fputs("---|---|", fp);
	fputc('\n', fp);
	for (size_t i = 0; i < d->n && i < max; i++) {
		const struct gmp_ndiff_row *e = &d->v[i];
		char c[40], x[32];
		fprintf(fp, "| %s | ", signed_change(e, kind, c, sizeof(c)));
		gmp_md__code(fp, e->name, 1);
		fputs(" |", fp);
		for (size_t j = 0; j < kind->nranked; j++)
			for (int k = 0; k < 2; k++)
				fprintf(fp, " %s |", e->has[k] ? gmp_human_bytes(e->v[k][j], x, sizeof(x)) : "none");
		fputc('\n', fp);
	}
	if (d->n > max)
		fprintf(fp, "\n... and %zu more %s\n", d->n - max, kind->things);
	for (size_t i = 0; i < d->n && i < max && !err; i++) { /* what a row whose growth grew kept, under the table */
		char kept[1024];
		if ((err = kept_after(&d->v[i], kind, ctx, kept, sizeof(kept))) || !*kept)
			continue;
		fputc('\n', fp);
		gmp_md__code(fp, d->v[i].name, 0);
		fputs(" after: ", fp);
		gmp_md__text(fp, kept);
		fputc('\n', fp);
	}
	fputc('\n', fp);
	return err;
}

static int gmp_ndiff__json(struct gmp_jw *jw, const struct gmp_ndiff *d, const struct gmp_ndiff_kind *kind, void *ctx)
{
	static const char *const when[2] = { "before", "after" };
	int err = 0;
	if (!d->n && !kind->json_always)
		return 0;
	gmp_jw__key(jw, kind->things);
	gmp_jw__arr(jw);
	for (size_t i = 0; i < d->n && !err; i++) {
		const struct gmp_ndiff_row *e = &d->v[i];
		gmp_jw__obj(jw);
		gmp_jw__kstr(jw, kind->json_name, e->name);
		for (int k = 0; k < 2; k++)
			for (size_t j = 0; j < kind->nvalues; j++) {
				char key[64];
				snprintf(key, sizeof(key), "%s_%s", kind->json[j], when[k]);
				gmp_jw__key(jw, key);
				e->has[k] ? gmp_jw__u64(jw, e->v[k][j]) : gmp_jw__null(jw);
			}
		struct gmp_rmem_kept kp;
		if (!(err = kept_of(e, kind, ctx, &kp)) && kp.objects)
			gmp_rmem_kept__json(jw, "kept_after", &kp);
		gmp_rmem_kept__release(&kp);
		gmp_jw__obj_end(jw);
	}
	gmp_jw__arr_end(jw);
	return err;
}

int gmp_ndiff__write(enum gmp_ndiff_format f, void *out, struct gmp_ndiff *d, const struct gmp_ndiff_kind *kind,
		     void *ctx, uint32_t device, size_t max)
{
	gmp_ndiff__settle(d, kind, f != GMP_NDIFF_JSON); /* JSON has every row, the others what changed */
	switch (f) {
	case GMP_NDIFF_TEXT:
		return gmp_ndiff__text(out, d, kind, ctx, max);
	case GMP_NDIFF_MARKDOWN:
		return gmp_ndiff__md(out, d, kind, ctx, device, max);
	case GMP_NDIFF_JSON:
		return gmp_ndiff__json(out, d, kind, ctx);
	}
	return -EINVAL;
}
