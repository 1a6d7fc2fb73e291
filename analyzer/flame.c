// SPDX-License-Identifier: MIT
/*
 * Bytes by call path (flame.h): the tree, its folded stacks and its SVG
 * flame graph.  A node is made after its parent, so its index is larger:
 * one backward pass adds every node's total into its parent's.
 */
#define _GNU_SOURCE
#include "flame.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "findings_json.h"
#include "strtab.h"
#include "u64map.h"
#include "util.h"

#define ROW_H 17        /* pixels per frame row */
#define TOP 24          /* the title above the root's row */
#define CHAR_W 6.6      /* an 11px character, about: labels are cut to what fits */
#define MAX_CHARS 240   /* the most a frame's text shows */

struct node {
	uint32_t label;     /* in labels; 0 for the root */
	uint32_t parent;
	uint32_t depth;     /* the root's is 0 */
	uint32_t nkids;
	uint64_t self[2], total[2]; /* per side */
};

struct gmp_flame {
	struct node *n;
	size_t nn, cap;
	struct gmp_strtab *labels;
	struct gmp_u64map kids;   /* parent << 32 | label -> node */
	uint64_t total[2];
	int side;                 /* where bytes are added */
	int sides;                /* 2 once side 1 was chosen */
	/* Built for output: node v's children are kid[kid_off[v] .. kid_off[v] + n[v].nkids). */
	uint32_t *kid, *kid_off;
};

int gmp_flame__new(struct gmp_flame **out)
{
	struct gmp_flame *f = calloc(1, sizeof(*f));
	*out = NULL;
	if (!f || !(f->labels = gmp_strtab__new()) || GMP_GROW(f->n, f->cap, 1)) {
		gmp_flame__free(f);
		return -ENOMEM;
	}
	gmp_u64map__init(&f->kids);
	f->n[0] = (struct node){ 0 };
	f->nn = 1;
	f->sides = 1;
	*out = f;
	return 0;
}

void gmp_flame__free(struct gmp_flame *f)
{
	if (!f)
		return;
	free(f->n);
	gmp_strtab__free(f->labels);
	gmp_u64map__release(&f->kids);
	free(f->kid);
	free(f->kid_off);
	free(f);
}

int64_t gmp_flame__child(struct gmp_flame *f, uint32_t parent, const char *label, size_t len)
{
	uint32_t id = gmp_strtab__intern(f->labels, label, len);
	int fresh = 0;
	uint32_t *slot = id ? gmp_u64map__slot(&f->kids, (uint64_t)parent << 32 | id, (uint32_t)f->nn, &fresh)
			    : NULL;
	if (!slot)
		return -ENOMEM;
	if (fresh) {
		if (f->nn >= UINT32_MAX || GMP_GROW(f->n, f->cap, f->nn + 1)) {
			*slot = UINT32_MAX; /* never a node: a later call fails the same way */
			return -ENOMEM;
		}
		f->n[f->nn] = (struct node){ .label = id, .parent = parent, .depth = f->n[parent].depth + 1 };
		f->n[parent].nkids++;
		f->nn++;
	}
	return *slot == UINT32_MAX ? -ENOMEM : (int64_t)*slot;
}

void gmp_flame__side(struct gmp_flame *f, int side)
{
	f->side = side ? 1 : 0;
	if (side)
		f->sides = 2;
}

void gmp_flame__add(struct gmp_flame *f, uint32_t node, uint64_t bytes)
{
	f->n[node].self[f->side] += bytes;
	f->total[f->side] += bytes;
}

uint64_t gmp_flame__total(const struct gmp_flame *f, int side)
{
	return f->total[side ? 1 : 0];
}

/* The side a drawing's widths and order follow: the later one. */
static int shown(const struct gmp_flame *f)
{
	return f->sides - 1;
}

static const char *label_of(const struct gmp_flame *f, uint32_t v)
{
	const char *s = gmp_strtab__get(f->labels, f->n[v].label, NULL);
	return s ? s : "";
}

static int by_label(const void *a, const void *b, void *ctx)
{
	return strcmp(label_of(ctx, *(const uint32_t *)a), label_of(ctx, *(const uint32_t *)b));
}

static int by_bytes(const void *a, const void *b, void *ctx)
{
	const struct gmp_flame *f = ctx;
	uint64_t x = f->n[*(const uint32_t *)a].total[shown(f)], y = f->n[*(const uint32_t *)b].total[shown(f)];
	return x != y ? (x > y ? -1 : 1) : by_label(a, b, ctx);
}

/* Totals, and each node's children in order (cmp). */
static int prepare(struct gmp_flame *f, int (*cmp)(const void *, const void *, void *))
{
	free(f->kid);
	free(f->kid_off);
	f->kid = malloc(f->nn * sizeof(*f->kid));
	f->kid_off = malloc(f->nn * sizeof(*f->kid_off));
	uint32_t *fill = calloc(f->nn, sizeof(*fill));
	if (!f->kid || !f->kid_off || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (size_t v = 0; v < f->nn; v++)
		for (int k = 0; k < 2; k++)
			f->n[v].total[k] = f->n[v].self[k];
	for (size_t v = f->nn - 1; v > 0; v--)
		for (int k = 0; k < 2; k++)
			f->n[f->n[v].parent].total[k] += f->n[v].total[k];
	uint32_t at = 0;
	for (size_t v = 0; v < f->nn; v++) {
		f->kid_off[v] = at;
		at += f->n[v].nkids;
	}
	for (size_t v = 1; v < f->nn; v++) {
		uint32_t p = f->n[v].parent;
		f->kid[f->kid_off[p] + fill[p]++] = (uint32_t)v;
	}
	free(fill);
	for (size_t v = 0; v < f->nn; v++)
		if (f->n[v].nkids > 1)
			qsort_r(f->kid + f->kid_off[v], f->n[v].nkids, sizeof(uint32_t), cmp, f);
	return 0;
}

static void folded_label(FILE *fp, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' ? ':' : *s == '\n' || *s == '\r' ? ' ' : *s, fp);
}

static void folded_from(struct gmp_flame *f, FILE *fp, uint32_t v, uint32_t *path)
{
	uint32_t d = f->n[v].depth;
	if (v != GMP_FLAME_ROOT) {
		path[d - 1] = v;
		if (f->n[v].self[0] || f->n[v].self[1]) {
			for (uint32_t k = 0; k < d; k++) {
				if (k)
					fputc(';', fp);
				folded_label(fp, label_of(f, path[k]));
			}
			if (f->sides == 2)
				fprintf(fp, " %llu", (unsigned long long)f->n[v].self[0]);
			fprintf(fp, " %llu\n", (unsigned long long)f->n[v].self[f->sides - 1]);
		}
	}
	for (uint32_t k = 0; k < f->n[v].nkids; k++)
		folded_from(f, fp, f->kid[f->kid_off[v] + k], path);
}

int gmp_flame__folded(struct gmp_flame *f, FILE *fp)
{
	uint32_t depth = 0;
	for (size_t v = 0; v < f->nn; v++)
		depth = f->n[v].depth > depth ? f->n[v].depth : depth;
	uint32_t *path = malloc((depth + 1) * sizeof(*path));
	int err = path ? prepare(f, by_label) : -ENOMEM;
	if (!err)
		folded_from(f, fp, GMP_FLAME_ROOT, path);
	free(path);
	return err ? err : ferror(fp) ? -EIO : 0;
}

struct text {
	struct gmp_flame *f;
	FILE *fp;
	int k;             /* the side whose bytes give the shares */
	uint64_t least;    /* a frame with fewer bytes (on either side) is counted, not shown */
};

/* What hides a frame: its bytes, on the side with more. */
static uint64_t weight(const uint64_t *total)
{
	return total[0] > total[1] ? total[0] : total[1];
}

/* One line: share, bytes, indentation by depth, label. */
static void text_line(const struct text *t, const uint64_t *total, uint32_t depth, const char *label, size_t hidden)
{
	const struct gmp_flame *f = t->f;
	char x[32], y[32], z[48];
	uint64_t all = f->total[t->k];
	fprintf(t->fp, "%6.1f%%  %10s", all ? 100.0 * (double)total[t->k] / (double)all : 0.0,
		gmp_human_bytes(total[0], x, sizeof(x)));
	if (f->sides == 2)
		fprintf(t->fp, " %10s  %-10s", gmp_human_bytes(total[1], y, sizeof(y)),
			gmp_human_change(total[0], total[1], 0, z, sizeof(z)));
	fprintf(t->fp, "  %*s", (int)(2 * depth), "");
	if (hidden)
		fprintf(t->fp, "(%zu more, each under the threshold)\n", hidden);
	else
		fprintf(t->fp, "%s\n", label);
}

static void text_from(struct text *t, uint32_t v)
{
	struct gmp_flame *f = t->f;
	uint64_t rest[2] = { 0, 0 };
	size_t hidden = 0;
	for (uint32_t k = 0; k < f->n[v].nkids; k++) {
		uint32_t c = f->kid[f->kid_off[v] + k];
		if (weight(f->n[c].total) < t->least || !weight(f->n[c].total)) {
			hidden++;
			rest[0] += f->n[c].total[0];
			rest[1] += f->n[c].total[1];
			continue;
		}
		text_line(t, f->n[c].total, f->n[c].depth, label_of(f, c), 0);
		text_from(t, c);
	}
	if (hidden)
		text_line(t, rest, f->n[v].depth + 1, NULL, hidden);
}

int gmp_flame__text(struct gmp_flame *f, FILE *fp, double min_pct)
{
	int err = prepare(f, by_bytes);
	if (err)
		return err;
	struct text t = { f, fp, shown(f), 0 };
	t.least = (uint64_t)((double)weight(f->total) * min_pct / 100.0);
	text_line(&t, f->total, 0, "all", 0);
	text_from(&t, GMP_FLAME_ROOT);
	return ferror(fp) ? -EIO : 0;
}

/* The first chars characters of s (UTF-8), ".." marking a cut, into buf (MAX_CHARS * 4 + 3 bytes). */
static const char *cut(const char *s, size_t chars, char *buf)
{
	size_t total = 0, i = 0, keep = 0;
	for (const char *p = s; *p; p++)
		total += ((unsigned char)*p & 0xc0) != 0x80;
	if (total <= chars && total <= MAX_CHARS)
		return s;
	size_t want = (chars < MAX_CHARS ? chars : MAX_CHARS) - 2;
	for (size_t c = 0; s[i]; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && c++ == want)
			break;
		keep = i + 1;
	}
	memcpy(buf, s, keep);
	memcpy(buf + keep, "..", 3);
	return buf;
}

/* A warm colour from the label, the same for the same frame wherever it is. */
static void colour(const char *s, unsigned *r, unsigned *g, unsigned *b)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	*r = 205 + h % 50;
	*g = 60 + (h >> 8) % 170;
	*b = 30 + (h >> 16) % 50;
}

/* A differential frame's colour: red as far as it grew, blue as far as it shrank. */
static void delta_colour(uint64_t before, uint64_t after, unsigned *r, unsigned *g, unsigned *b)
{
	uint64_t big = before > after ? before : after, d = before > after ? before - after : after - before;
	unsigned fade = 225 - (unsigned)(185.0 * (double)d / (double)(big ? big : 1));
	*r = after >= before ? 255 : fade;
	*g = d ? fade : 225;
	*b = after <= before ? 255 : fade;
	if (!d)
		*r = *b = 225;
}

struct draw {
	struct gmp_flame *f;
	FILE *fp;
	int k;             /* the side drawn */
	double scale;      /* pixels per byte */
};

/* A frame's tooltip after its label: its bytes and share, or before and after. */
static void tip(const struct draw *d, const uint64_t *total)
{
	const struct gmp_flame *f = d->f;
	char x[32], y[32], z[48];
	if (f->sides == 1)
		fprintf(d->fp, ": %s (%llu bytes), %.1f%%", gmp_human_bytes(total[0], x, sizeof(x)),
			(unsigned long long)total[0], f->total[0] ? 100.0 * (double)total[0] / (double)f->total[0] : 0.0);
	else
		fprintf(d->fp, ": %s before, %s after (%s)", gmp_human_bytes(total[0], x, sizeof(x)),
			gmp_human_bytes(total[1], y, sizeof(y)), gmp_human_change(total[0], total[1], 1, z, sizeof(z)));
}

static void frame(struct draw *d, uint32_t v, double x, const char *text)
{
	const struct gmp_flame *f = d->f;
	double w = (double)f->n[v].total[d->k] * d->scale;
	double y = TOP + (double)f->n[v].depth * ROW_H;
	char buf[MAX_CHARS * 4 + 3];
	unsigned r, g, b;
	if (f->sides == 2)
		delta_colour(f->n[v].total[0], f->n[v].total[1], &r, &g, &b);
	else
		colour(text, &r, &g, &b);
	fprintf(d->fp, "<g><title>");
	gmp_text__markup(d->fp, text);
	tip(d, f->n[v].total);
	fprintf(d->fp, "</title><rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%d\" rx=\"2\" "
		"fill=\"rgb(%u,%u,%u)\"/>", x, y, w > 1 ? w - 0.5 : w / 2, ROW_H - 1, r, g, b);
		/* a gap after each; a child stays inside */
	size_t chars = w > 8 ? (size_t)((w - 6) / CHAR_W) : 0;
	if (chars >= 3) {
		fprintf(d->fp, "<text x=\"%.1f\" y=\"%.0f\">", x + 3, y + 12);
		gmp_text__markup(d->fp, cut(text, chars, buf));
		fprintf(d->fp, "</text>");
	}
	fprintf(d->fp, "</g>\n");
}

static void draw_from(struct draw *d, uint32_t v, double x)
{
	struct gmp_flame *f = d->f;
	for (uint32_t k = 0; k < f->n[v].nkids; k++) {
		uint32_t c = f->kid[f->kid_off[v] + k];
		double w = (double)f->n[c].total[d->k] * d->scale;
		if (w < 0.5)
			break; /* the widest first: the rest are narrower */
		frame(d, c, x, label_of(f, c));
		draw_from(d, c, x);
		x += w;
	}
}

/* The deepest row with a frame wide enough to draw. */
static uint32_t rows_of(const struct draw *d)
{
	const struct gmp_flame *f = d->f;
	uint32_t rows = 1;
	for (size_t v = 1; v < f->nn; v++)
		if ((double)f->n[v].total[d->k] * d->scale >= 0.5 && f->n[v].depth + 1 > rows)
			rows = f->n[v].depth + 1;
	return rows;
}

int gmp_flame__svg(struct gmp_flame *f, FILE *fp, const struct gmp_flame_svg *o)
{
	int err = prepare(f, by_bytes);
	if (err)
		return err;
	unsigned width = o->width < 200 ? 200 : o->width;
	int k = shown(f);
	struct draw d = { f, fp, k, f->total[k] ? (double)(width - 2) / (double)f->total[k] : 0 };
	unsigned height = TOP + rows_of(&d) * ROW_H + 4;
	if (o->standalone)
		fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(fp, "<svg %swidth=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" font-family=\"system-ui,sans-serif\" "
		"font-size=\"11\" role=\"img\">\n<title>", o->standalone ? "xmlns=\"http://www.w3.org/2000/svg\" " : "",
		width, height, width, height);
	gmp_text__markup(fp, o->title);
	fprintf(fp, "</title>\n<text x=\"1\" y=\"15\" font-size=\"13\">");
	gmp_text__markup(fp, o->title);
	fprintf(fp, "</text>\n");
	/* The root spans the whole width: "all" of the title's bytes. */
	if (f->total[k]) {
		char hb[32];
		fprintf(fp, "<g><title>all");
		tip(&d, f->total);
		fprintf(fp, "</title><rect x=\"1\" y=\"%d\" width=\"%u\" height=\"%d\" rx=\"2\" "
			"fill=\"rgb(224,224,224)\"/><text x=\"4\" y=\"%d\">all: %s</text></g>\n", TOP, width - 2,
			ROW_H - 1, TOP + 12, gmp_human_bytes(f->total[k], hb, sizeof(hb)));
		draw_from(&d, GMP_FLAME_ROOT, 1);
	}
	fprintf(fp, "</svg>\n");
	return ferror(fp) ? -EIO : 0;
}
