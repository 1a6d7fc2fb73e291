// SPDX-License-Identifier: MIT
/*
 * Memory at NVTX marks (marks.h) as the reports show it: a table per
 * device in the text, Markdown and HTML reports, every name in JSON, and
 * the names that grew in gmprof run's summary.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "findings_json.h"
#include "markdown.h"
#include "marks.h"
#include "nvtx_domains.h"
#include "nvtx_fold.h"
#include "oneline.h"
#include "rangemem.h"

#define GREW_MAX 8 /* lines of marks that grew, a device */

const char *gmp_mmem__grew_text(const struct gmp_mmem *m, size_t g, size_t d, char *buf, size_t n)
{
	const struct gmp_mmem_dev *v = gmp_mmem__at(m, g, d);
	uint64_t times = m->group[g].times;
	char a[32], b[32], c[32];
	snprintf(buf, n, "live bytes grew from %s (the first of its %llu marks) to %s (the last), %s more each time",
		 gmp_human_bytes(v->first, a, sizeof(a)), (unsigned long long)times, gmp_human_bytes(v->last, b, sizeof(b)),
		 gmp_human_bytes(gmp_mmem__growth(v) / (times > 1 ? times - 1 : 1), c, sizeof(c)));
	return buf;
}

/* Group g's name, on one line (buf: room for it, where it needs escapes). */
static const char *name_of(const struct gmp_mmem *m, const struct gmp_result *r, size_t g, char *buf, size_t n)
{
	return gmp_oneline(gmp_trace__str(r->trace, m->group[g].name, NULL), buf, n);
}

int gmp_mmem__kept_sites(struct gmp_sites *sites, const struct gmp_result *r, const struct gmp_mmem *m, size_t g,
			 size_t d, struct gmp_rmem_kept *kp)
{
	uint32_t *objs;
	size_t n;
	memset(kp, 0, sizeof(*kp));
	int err = gmp_mmem__kept(m, r, g, d, &objs, &n);
	if (!err)
		err = gmp_kept__sites(sites, r, objs, n, kp);
	free(objs);
	return err;
}

int gmp_mmem__kept_text(struct gmp_sites *sites, const struct gmp_result *r, const struct gmp_mmem *m, size_t g,
			size_t d, size_t max, char *buf, size_t n)
{
	struct gmp_rmem_kept kp;
	int err = gmp_mmem__kept_sites(sites, r, m, g, d, &kp);
	if (!err && kp.objects)
		gmp_kept__text("live at its last mark, allocated since its first", &kp, max, buf, n);
	else if (!err)
		snprintf(buf, n, "nothing allocated since its first mark was live at its last");
	gmp_rmem_kept__release(&kp);
	return err;
}

/* A table format: its head for a device, a row per name shown, the names left out, a line per name that grew. */
struct table {
	void (*head)(FILE *fp, const struct gmp_result *r, size_t d);
	void (*row)(FILE *fp, const char *name, uint64_t times, const struct gmp_mmem_dev *v);
	void (*more)(FILE *fp, size_t n, const char *what); /* "4 more marks", "2 more marks grew" */
	void (*grew)(FILE *fp, const char *name, const char *what);
	void (*kept)(FILE *fp, const char *what);
	void (*note)(FILE *fp, const char *note); /* under the first table: what --nvtx-numbers would fold, the domains */
	void (*tail)(FILE *fp);
};

/*
 * Device index d's table: at most max names (the first and the last half),
 * then the names that grew there (of gv, every name that grew, the most first),
 * and the notes (NULL for none; each where not empty); 1 when it had a table.
 */
static int table(FILE *fp, const struct gmp_result *r, struct gmp_sites *sites, const struct gmp_mmem *m, size_t d,
		 size_t max, const struct gmp_mmem_grown *gv, size_t ngv, const struct table *tb, char (*notes)[1024])
{
	size_t n = 0, ng = 0;
	for (size_t g = 0; g < m->ngroups; g++)
		n += gmp_mmem__shown(m, g, d);
	if (!n)
		return 0;
	tb->head(fp, r, d);
	char what[1024], one[256];
	size_t head = n > max ? max / 2 : n, tail = n > max ? max - head : 0, k = 0;
	for (size_t g = 0; g < m->ngroups; g++) {
		if (!gmp_mmem__shown(m, g, d))
			continue;
		if (k < head || k >= n - tail)
			tb->row(fp, name_of(m, r, g, one, sizeof(one)), m->group[g].times, gmp_mmem__at(m, g, d));
		else if (k == head)
			tb->more(fp, n - head - tail, "");
		k++;
	}
	for (size_t i = 0; i < ngv; i++) {
		if (gv[i].d != d || ng++ >= GREW_MAX)
			continue;
		tb->grew(fp, name_of(m, r, gv[i].g, one, sizeof(one)), gmp_mmem__grew_text(m, gv[i].g, d, what, sizeof(what)));
		int err = gmp_mmem__kept_text(sites, r, m, gv[i].g, d, 3, what, sizeof(what));
		if (err)
			return err;
		tb->kept(fp, what);
	}
	if (ng > GREW_MAX)
		tb->more(fp, ng - GREW_MAX, " grew");
	for (int i = 0; notes && i < 2; i++)
		if (*notes[i])
			tb->note(fp, notes[i]);
	tb->tail(fp);
	return 1;
}

static int tables(FILE *fp, const struct gmp_result *r, struct gmp_sites *sites, size_t max, const struct table *tb)
{
	struct gmp_mmem m;
	struct gmp_mmem_grown *gv = NULL;
	size_t ngv = 0;
	char note[2][1024];
	int err = gmp_mmem__build(r, &m), shown = 0;
	if (!err)
		err = gmp_mmem__grown(&m, &gv, &ngv);
	if (!err)
		err = gmp_nvtx_fold__note(r->trace, 0, note[0], sizeof(note[0])); /* names with counters: each marked once */
	gmp_nvtx_domains__note(r->trace, note[1], sizeof(note[1])); /* which libraries' marks they are */
	for (size_t d = 0; !err && m.ngroups && d < m.ndev; d++)
		if ((err = table(fp, r, sites, &m, d, max, gv, ngv, tb, shown ? NULL : note)) > 0)
			shown = 1, err = 0;
	free(gv);
	gmp_mmem__release(&m);
	return err;
}

static void text_head(FILE *fp, const struct gmp_result *r, size_t d)
{
	fprintf(fp, "\nMemory at NVTX marks on device %u\n"
		"  live: the bytes that the calls issued before the mark had allocated and not freed\n"
		"  %-34s %6s %10s %10s %10s %10s\n", r->devices[d].device, "mark", "times", "first", "last", "least", "most");
}

static void text_row(FILE *fp, const char *name, uint64_t times, const struct gmp_mmem_dev *v)
{
	char cell[34 * 4 + 1], a[32], b[32], c[32], e[32];
	fprintf(fp, "  %s %6llu %10s", gmp_text__cell(name, 34, cell, sizeof(cell)), (unsigned long long)times,
		gmp_human_bytes(v->first, a, sizeof(a)));
	if (times > 1)
		fprintf(fp, " %10s %10s %10s", gmp_human_bytes(v->last, b, sizeof(b)), gmp_human_bytes(v->min, c, sizeof(c)),
			gmp_human_bytes(v->max, e, sizeof(e)));
	fputc('\n', fp);
}

static void text_more(FILE *fp, size_t n, const char *what)
{
	fprintf(fp, "  ... %s%zu more marks%s (--format json lists every one)\n", *what ? "and " : "", n, what);
}

static void text_grew(FILE *fp, const char *name, const char *what)
{
	fprintf(fp, "  %s: %s\n", name, what);
}

static void text_kept(FILE *fp, const char *what)
{
	fprintf(fp, "    %s\n", what);
}

static void text_note(FILE *fp, const char *note)
{
	fprintf(fp, "  %s\n", note);
}

static void text_tail(FILE *fp)
{
	(void)fp;
}

int gmp_mmem__text(FILE *fp, const struct gmp_result *r, struct gmp_sites *sites, size_t max)
{
	static const struct table tb = { text_head, text_row, text_more, text_grew, text_kept, text_note, text_tail };
	return tables(fp, r, sites, max, &tb);
}

static void md_head(FILE *fp, const struct gmp_result *r, size_t d)
{
	fprintf(fp, "### Memory at NVTX marks, device %u\n\n"
		"Live: the bytes that the calls issued before the mark had allocated and not freed.\n\n"
		"| mark | times | first | last | least | most |\n|---|---|---|---|---|---|\n", r->devices[d].device);
}

static void md_row(FILE *fp, const char *name, uint64_t times, const struct gmp_mmem_dev *v)
{
	char a[32], b[32], c[32], e[32];
	fputs("| ", fp);
	gmp_md__code(fp, name, 1);
	fprintf(fp, " | %llu | %s |", (unsigned long long)times, gmp_human_bytes(v->first, a, sizeof(a)));
	if (times > 1)
		fprintf(fp, " %s | %s | %s |\n", gmp_human_bytes(v->last, b, sizeof(b)), gmp_human_bytes(v->min, c, sizeof(c)),
			gmp_human_bytes(v->max, e, sizeof(e)));
	else
		fputs(" | | |\n", fp);
}

static void md_more(FILE *fp, size_t n, const char *what)
{
	if (*what)
		fprintf(fp, "\n... and %zu more marks%s (`gmprof report --format json` lists every one)\n", n, what);
	else
		fprintf(fp, "| ... %zu more marks (`gmprof report --format json` lists every one) | | | | | |\n", n);
}

static void md_grew(FILE *fp, const char *name, const char *what)
{
	fputs("\n", fp);
	gmp_md__code(fp, name, 1);
	fprintf(fp, ": %s\n", what);
}

static void md_kept(FILE *fp, const char *what)
{
	fputs("\n", fp);
	gmp_md__text(fp, what);
	fputs("\n", fp);
}

static void md_tail(FILE *fp)
{
	fputc('\n', fp);
}

int gmp_mmem__markdown(FILE *fp, const struct gmp_result *r, struct gmp_sites *sites, size_t max)
{
	static const struct table tb = { md_head, md_row, md_more, md_grew, md_kept, md_kept, md_tail };
	return tables(fp, r, sites, max, &tb);
}

static void html_head(FILE *fp, const struct gmp_result *r, size_t d)
{
	fprintf(fp, "<h2>Memory at NVTX marks, device %u</h2>\n<p>The live bytes at the marks of each name: those "
		"that the calls issued before the mark had allocated and not freed.</p>\n<table><thead><tr><th>mark</th>"
		"<th>times</th><th>first</th><th>last</th><th>least</th><th>most</th></tr></thead><tbody>\n",
		r->devices[d].device);
}

static void html_row(FILE *fp, const char *name, uint64_t times, const struct gmp_mmem_dev *v)
{
	char a[32], b[32], c[32], e[32];
	fprintf(fp, "<tr><td>");
	gmp_text__markup(fp, name);
	fprintf(fp, "</td><td class=\"n\">%llu</td><td class=\"n\">%s</td>", (unsigned long long)times,
		gmp_human_bytes(v->first, a, sizeof(a)));
	if (times > 1)
		fprintf(fp, "<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td></tr>\n",
			gmp_human_bytes(v->last, b, sizeof(b)), gmp_human_bytes(v->min, c, sizeof(c)),
			gmp_human_bytes(v->max, e, sizeof(e)));
	else
		fprintf(fp, "<td></td><td></td><td></td></tr>\n");
}

static void html_more(FILE *fp, size_t n, const char *what)
{
	fprintf(fp, "<tr><td colspan=\"6\">... %s%zu more marks%s (<code>gmprof report --format json</code> lists "
		"every one)</td></tr>\n", *what ? "and " : "", n, what);
}

static void html_grew(FILE *fp, const char *name, const char *what)
{
	fprintf(fp, "<tr><td colspan=\"6\">");
	gmp_text__markup(fp, name);
	fprintf(fp, ": ");
	gmp_text__markup(fp, what);
	fprintf(fp, "</td></tr>\n");
}

static void html_kept(FILE *fp, const char *what)
{
	fprintf(fp, "<tr><td colspan=\"6\">&nbsp;&nbsp;");
	gmp_text__markup(fp, what);
	fprintf(fp, "</td></tr>\n");
}

static void html_tail(FILE *fp)
{
	fprintf(fp, "</tbody></table>\n");
}

int gmp_mmem__html(FILE *fp, const struct gmp_result *r, struct gmp_sites *sites, size_t max)
{
	static const struct table tb = { html_head, html_row, html_more, html_grew, html_kept, html_kept, html_tail };
	return tables(fp, r, sites, max, &tb);
}

int gmp_mmem__summary(FILE *fp, const struct gmp_result *r, struct gmp_sites *sites, size_t max)
{
	struct gmp_mmem m;
	struct gmp_mmem_grown *gv = NULL;
	size_t n = 0;
	int err = gmp_mmem__build(r, &m);
	if (!err)
		err = gmp_mmem__grown(&m, &gv, &n);
	for (size_t i = 0; i < n && i < max && !err; i++) {
		char what[1024], one[256];
		fprintf(fp, "  %-8s %s on device %u: %s\n", i ? "" : "marks", name_of(&m, r, gv[i].g, one, sizeof(one)),
			r->devices[gv[i].d].device, gmp_mmem__grew_text(&m, gv[i].g, gv[i].d, what, sizeof(what)));
		if (!(err = gmp_mmem__kept_text(sites, r, &m, gv[i].g, gv[i].d, 3, what, sizeof(what))))
			fprintf(fp, "             %s\n", what);
	}
	if (n > max && !err)
		fprintf(fp, "           ... and %zu more mark%s grew (gmprof report shows them)\n", n - max,
			n - max == 1 ? "" : "s");
	free(gv);
	gmp_mmem__release(&m);
	return err;
}

int gmp_mmem__json(struct gmp_jw *jw, const struct gmp_result *r, struct gmp_sites *sites)
{
	struct gmp_mmem m;
	int err = gmp_mmem__build(r, &m);
	if (err || !m.ngroups) {
		gmp_mmem__release(&m);
		return err;
	}
	gmp_jw__key(jw, "memory_at_marks");
	gmp_jw__arr(jw);
	for (size_t g = 0; g < m.ngroups && !err; g++)
		for (size_t d = 0; d < m.ndev && !err; d++) {
			const struct gmp_mmem_group *x = &m.group[g];
			const struct gmp_mmem_dev *v = gmp_mmem__at(&m, g, d);
			if (!gmp_mmem__shown(&m, g, d))
				continue;
			gmp_jw__obj(jw);
			gmp_jw__kstr(jw, "mark", gmp_trace__str(r->trace, x->name, NULL));
			gmp_jw__ku64(jw, "device", r->devices[d].device);
			gmp_jw__ku64(jw, "times", x->times);
			gmp_jw__ku64(jw, "first_bytes", v->first);
			gmp_jw__ku64(jw, "last_bytes", v->last);
			gmp_jw__ku64(jw, "min_bytes", v->min);
			gmp_jw__ku64(jw, "max_bytes", v->max);
			gmp_jw__ku64(jw, "growth_bytes", gmp_mmem__growth(v));
			gmp_jw__ku64(jw, "first_host_ns", r->trace->marks[x->first_mark].host_ns);
			gmp_jw__ku64(jw, "last_host_ns", r->trace->marks[x->last_mark].host_ns);
			gmp_jw__ku64(jw, "max_host_ns", r->trace->marks[v->max_mark].host_ns);
			struct gmp_rmem_kept kp = { 0 };
			if (gmp_mmem__growth(v) && !(err = gmp_mmem__kept_sites(sites, r, &m, g, d, &kp)))
				gmp_rmem_kept__json(jw, "kept", &kp);
			gmp_rmem_kept__release(&kp);
			gmp_jw__obj_end(jw);
		}
	gmp_jw__arr_end(jw);
	gmp_mmem__release(&m);
	return err;
}
