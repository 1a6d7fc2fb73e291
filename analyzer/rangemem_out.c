// SPDX-License-Identifier: MIT
/*
 * Memory by NVTX range (rangemem.h), as the reports show it: a table per
 * device in the text, Markdown and HTML reports, and every range in JSON.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rangemem.h"
#include "cmds.h"
#include "findings_json.h"
#include "markdown.h"
#include "nvtx_domains.h"
#include "nvtx_fold.h"

static int cmp_peak(const void *a, const void *b, void *ctx)
{
	const struct gmp_rmem_dev *x = ((const struct gmp_rmem_dev *const *)ctx)[*(const uint32_t *)a];
	const struct gmp_rmem_dev *y = ((const struct gmp_rmem_dev *const *)ctx)[*(const uint32_t *)b];
	if (x->peak != y->peak)
		return x->peak > y->peak ? -1 : 1;
	if (x->alloc_bytes != y->alloc_bytes)
		return x->alloc_bytes > y->alloc_bytes ? -1 : 1;
	return (*(const uint32_t *)a > *(const uint32_t *)b) - (*(const uint32_t *)a < *(const uint32_t *)b);
}

/*
 * The rows device d shows (show[k] set), at most max ranked by peak with
 * the ranges around them; returns how many nodes have calls on d.
 */
static size_t pick(const struct gmp_rmem *m, size_t d, size_t max, uint8_t *show, uint32_t *tmp,
		   const struct gmp_rmem_dev **by_node)
{
	size_t n = 0;
	memset(show, 0, m->n);
	for (size_t i = 0; i < m->ntree; i++) {
		by_node[m->tree[i]] = gmp_rmem__at(m, m->tree[i], d);
		if (by_node[m->tree[i]]->calls)
			tmp[n++] = m->tree[i];
	}
	qsort_r(tmp, n, sizeof(*tmp), cmp_peak, by_node);
	for (size_t i = 0; i < n && i < max; i++)
		for (uint32_t k = tmp[i]; k != GMP_RMEM_ROOT && !show[k]; k = m->node[k].parent)
			show[k] = 1;
	return n;
}

/* "768.0 MiB in 3" (or "-"). */
static const char *bytes_in(uint64_t bytes, uint64_t objects, char *buf, size_t n)
{
	char b[32];
	if (!objects)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%s in %llu", gmp_human_bytes(bytes, b, sizeof(b)), (unsigned long long)objects);
	return buf;
}

#define GREW_MAX 8 /* lines of ranges that grew, a device */

/* The most growth first, then tree order (the nodes' first calls). */
static int cmp_growth(const void *a, const void *b, void *ctx)
{
	const struct gmp_rmem_dev *const *by_node = ctx;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	uint64_t x = gmp_rmem__growth(by_node[i]), y = gmp_rmem__growth(by_node[j]);
	if (x != y)
		return x > y ? -1 : 1;
	return (by_node[i]->first_pos > by_node[j]->first_pos) - (by_node[i]->first_pos < by_node[j]->first_pos);
}

/* A table format: its head for a device, a row per range shown, a line per range that grew, and what closes it. */
struct table {
	void (*head)(FILE *fp, const struct gmp_result *r, size_t d, int inuse);
	void (*row)(FILE *fp, const struct gmp_rmem *m, const struct gmp_result *r, uint32_t k,
		    const struct gmp_rmem_dev *x, int at_peak, int inuse);
	void (*grew)(FILE *fp, const struct gmp_rmem *m, const struct gmp_result *r, uint32_t k, const char *what);
	void (*kept)(FILE *fp, const char *what); /* under a range's grew: where what it kept came from */
	void (*note)(FILE *fp, const char *note); /* under the first table: what --nvtx-numbers would fold, the domains */
	void (*tail)(FILE *fp, size_t more);
};

/* Per device with calls in ranges: a table of at most max of them (pick), in tree order. */
static int tables(FILE *fp, const struct gmp_result *r, struct gmp_sites *sites, size_t max, const struct table *tb)
{
	struct gmp_rmem m;
	int err = gmp_rmem__build(r, &m);
	size_t cap = m.n ? m.n : 1;
	uint8_t *show = malloc(cap);
	uint32_t *tmp = malloc(cap * sizeof(*tmp));
	const struct gmp_rmem_dev **by_node = malloc(cap * sizeof(*by_node));
	char note[1024], domains[1024];
	if (!err && (!show || !tmp || !by_node))
		err = -ENOMEM;
	if (!err)
		err = gmp_nvtx_fold__note(r->trace, 1, note, sizeof(note)); /* names with counters: each entered once */
	gmp_nvtx_domains__note(r->trace, domains, sizeof(domains)); /* which libraries' ranges they are */
	for (size_t d = 0; !err && d < m.ndev && m.ntree; d++) {
		size_t n = pick(&m, d, max, show, tmp, by_node), shown = 0;
		if (!n)
			continue;
		int inuse = r->devices[d].inuse_peak_bytes != 0;
		tb->head(fp, r, d, inuse);
		for (size_t i = 0; i < m.ntree; i++) {
			uint32_t k = m.tree[i];
			if (!show[k])
				continue;
			tb->row(fp, &m, r, k, by_node[k], by_node[k]->peak == r->devices[d].peak_bytes, inuse);
			shown++;
		}
		/* The ranges that grew, shown in the table or not: the most first, at most GREW_MAX. */
		size_t ng = 0;
		char what[256];
		for (size_t i = 0; i < m.ntree; i++)
			if (gmp_rmem__growth(by_node[m.tree[i]]))
				tmp[ng++] = m.tree[i];
		qsort_r(tmp, ng, sizeof(*tmp), cmp_growth, by_node);
		for (size_t i = 0; i < ng && i < GREW_MAX && !err; i++) {
			gmp_rmem__grew_text(by_node[tmp[i]], what, sizeof(what));
			tb->grew(fp, &m, r, tmp[i], what);
			struct gmp_rmem_kept kp;
			char kt[1024];
			if (!(err = gmp_rmem__kept_sites(sites, r, &m, tmp[i], d, &kp)) && kp.objects)
				tb->kept(fp, gmp_rmem_kept__text(&kp, 3, kt, sizeof(kt)));
			gmp_rmem_kept__release(&kp);
		}
		if (ng > GREW_MAX) {
			snprintf(what, sizeof(what), "... and %zu more range%s grew (--format json lists every one)", ng - GREW_MAX,
				 ng - GREW_MAX == 1 ? "" : "s");
			tb->grew(fp, &m, r, GMP_RMEM_ROOT, what);
		}
		if (*note)
			tb->note(fp, note);
		if (*domains)
			tb->note(fp, domains);
		note[0] = domains[0] = 0;
		tb->tail(fp, n - shown);
	}
	free(show);
	free(tmp);
	free(by_node);
	gmp_rmem__release(&m);
	return err;
}

static void text_head(FILE *fp, const struct gmp_result *r, size_t d, int inuse)
{
	fprintf(fp, "\nMemory by NVTX range on device %u\n"
		"  peak: the most live bytes right after a call made inside ('#': the device's peak);\n"
		"  outlived it: allocated inside, freed outside the range or never\n", r->devices[d].device);
	fprintf(fp, "  %-34s %10s ", "range", "peak");
	if (inuse)
		fprintf(fp, " %10s", "in use");
	fprintf(fp, " %8s %6s  %-18s %s\n", "calls", "times", "allocated", "outlived it");
}

static void text_row(FILE *fp, const struct gmp_rmem *m, const struct gmp_result *r, uint32_t k,
		     const struct gmp_rmem_dev *x, int at_peak, int inuse)
{
	char one[256], name[300], cell[34 * 4 + 1], a[32], b[32], c[48], o[48];
	snprintf(name, sizeof(name), "%*s%s", (int)(2 * (m->node[k].depth < 8 ? m->node[k].depth : 8)), "",
		 gmp_oneline(gmp_trace__str(r->trace, m->node[k].name, NULL), one, sizeof(one)));
	fprintf(fp, "  %s %10s%c", gmp_text__cell(name, 34, cell, sizeof(cell)), gmp_human_bytes(x->peak, a, sizeof(a)),
		at_peak ? '#' : ' ');
	if (inuse)
		fprintf(fp, " %10s", gmp_human_bytes(x->inuse_peak, b, sizeof(b)));
	fprintf(fp, " %8llu %6llu  %-18s %s\n", (unsigned long long)x->calls, (unsigned long long)x->times,
		bytes_in(x->alloc_bytes, x->alloc_objects, c, sizeof(c)),
		bytes_in(x->outlive_bytes, x->outlive_objects, o, sizeof(o)));
}

static void text_grew(FILE *fp, const struct gmp_rmem *m, const struct gmp_result *r, uint32_t k, const char *what)
{
	char path[1024], one[1024];
	if (k == GMP_RMEM_ROOT)
		fprintf(fp, "  %s\n", what);
	else
		fprintf(fp, "  %s: %s\n", gmp_oneline(gmp_rmem__path(m, r, k, path, sizeof(path)), one, sizeof(one)), what);
}

static void text_kept(FILE *fp, const char *what)
{
	fprintf(fp, "    %s\n", what);
}

static void text_note(FILE *fp, const char *note)
{
	fprintf(fp, "  %s\n", note);
}

static void text_tail(FILE *fp, size_t more)
{
	if (more)
		fprintf(fp, "  ... and %zu more ranges (--format json lists every one)\n", more);
}

int gmp_rmem__text(FILE *fp, const struct gmp_result *r, struct gmp_sites *sites, size_t max)
{
	static const struct table tb = { text_head, text_row, text_grew, text_kept, text_note, text_tail };
	return tables(fp, r, sites, max, &tb);
}

static void md_head(FILE *fp, const struct gmp_result *r, size_t d, int inuse)
{
	fprintf(fp, "### Memory by NVTX range, device %u\n\n"
		"Peak: the most live bytes right after a call made inside (**bold**: the device's peak); "
		"outlived it: allocated inside, freed outside the range or never.\n\n"
		"| range | peak |%s calls | times | allocated | outlived it |\n|---|---|%s---|---|---|---|\n",
		r->devices[d].device, inuse ? " in use |" : "", inuse ? "---|" : "");
}

static void md_row(FILE *fp, const struct gmp_rmem *m, const struct gmp_result *r, uint32_t k,
		   const struct gmp_rmem_dev *x, int at_peak, int inuse)
{
	char path[1024], a[32], b[32], c[48], o[48];
	fputs("| ", fp);
	gmp_md__code(fp, gmp_rmem__path(m, r, k, path, sizeof(path)), 1);
	fprintf(fp, " | %s%s%s |", at_peak ? "**" : "", gmp_human_bytes(x->peak, a, sizeof(a)), at_peak ? "**" : "");
	if (inuse)
		fprintf(fp, " %s |", gmp_human_bytes(x->inuse_peak, b, sizeof(b)));
	fprintf(fp, " %llu | %llu | %s | %s |\n", (unsigned long long)x->calls, (unsigned long long)x->times,
		bytes_in(x->alloc_bytes, x->alloc_objects, c, sizeof(c)),
		bytes_in(x->outlive_bytes, x->outlive_objects, o, sizeof(o)));
}

static void md_grew(FILE *fp, const struct gmp_rmem *m, const struct gmp_result *r, uint32_t k, const char *what)
{
	char path[1024];
	fputs("\n", fp);
	if (k != GMP_RMEM_ROOT) {
		gmp_md__code(fp, gmp_rmem__path(m, r, k, path, sizeof(path)), 1);
		fputs(": ", fp);
	}
	fprintf(fp, "%s\n", what);
}

static void md_kept(FILE *fp, const char *what)
{
	fputs("\n", fp);
	gmp_md__text(fp, what);
	fputs("\n", fp);
}

static void md_tail(FILE *fp, size_t more)
{
	if (more)
		fprintf(fp, "\n... and %zu more ranges (`gmprof report --format json` lists every one)\n", more);
	fputc('\n', fp);
}

int gmp_rmem__markdown(FILE *fp, const struct gmp_result *r, struct gmp_sites *sites, size_t max)
{
	static const struct table tb = { md_head, md_row, md_grew, md_kept, md_kept, md_tail };
	return tables(fp, r, sites, max, &tb);
}

static void html_head(FILE *fp, const struct gmp_result *r, size_t d, int inuse)
{
	fprintf(fp, "<h2>Memory by NVTX range, device %u</h2>\n<p>The most live bytes right after a call made "
		"inside each range (<b>bold</b>: the device's peak), the bytes allocated inside it, and those "
		"that outlived it (freed outside it, or never).</p>\n<table><thead><tr><th>range</th><th>peak</th>%s"
		"<th>calls</th><th>times</th><th>allocated</th><th>objects</th><th>outlived it</th><th>objects</th></tr></thead>"
		"<tbody>\n", r->devices[d].device, inuse ? "<th>in use</th>" : "");
}

static void html_row(FILE *fp, const struct gmp_rmem *m, const struct gmp_result *r, uint32_t k,
		     const struct gmp_rmem_dev *x, int at_peak, int inuse)
{
	char path[1024], a[32], b[32], c[32];
	fprintf(fp, "<tr><td>");
	gmp_text__markup(fp, gmp_rmem__path(m, r, k, path, sizeof(path)));
	fprintf(fp, "</td><td class=\"n\">%s%s%s</td>", at_peak ? "<b>" : "", gmp_human_bytes(x->peak, a, sizeof(a)),
		at_peak ? "</b>" : "");
	if (inuse)
		fprintf(fp, "<td class=\"n\">%s</td>", gmp_human_bytes(x->inuse_peak, b, sizeof(b)));
	fprintf(fp, "<td class=\"n\">%llu</td><td class=\"n\">%llu</td><td class=\"n\">%s</td><td class=\"n\">%llu</td>"
		"<td class=\"n\">%s</td><td class=\"n\">%llu</td></tr>\n", (unsigned long long)x->calls,
		(unsigned long long)x->times,
		gmp_human_bytes(x->alloc_bytes, b, sizeof(b)), (unsigned long long)x->alloc_objects,
		gmp_human_bytes(x->outlive_bytes, c, sizeof(c)), (unsigned long long)x->outlive_objects);
}

/* A row across the table under the ranges: what one left behind each time. */
static void html_grew(FILE *fp, const struct gmp_rmem *m, const struct gmp_result *r, uint32_t k, const char *what)
{
	char path[1024];
	fprintf(fp, "<tr><td colspan=\"9\">");
	if (k != GMP_RMEM_ROOT) {
		gmp_text__markup(fp, gmp_rmem__path(m, r, k, path, sizeof(path)));
		fprintf(fp, ": ");
	}
	gmp_text__markup(fp, what);
	fprintf(fp, "</td></tr>\n");
}

static void html_kept(FILE *fp, const char *what)
{
	fprintf(fp, "<tr><td colspan=\"9\">&nbsp;&nbsp;");
	gmp_text__markup(fp, what);
	fprintf(fp, "</td></tr>\n");
}

static void html_tail(FILE *fp, size_t more)
{
	fprintf(fp, "</tbody></table>\n");
	if (more)
		fprintf(fp, "<p>... and %zu more ranges (<code>gmprof report --format json</code> lists every "
			"one).</p>\n", more);
}

int gmp_rmem__html(FILE *fp, const struct gmp_result *r, struct gmp_sites *sites, size_t max)
{
	static const struct table tb = { html_head, html_row, html_grew, html_kept, html_kept, html_tail };
	return tables(fp, r, sites, max, &tb);
}

int gmp_rmem__summary(FILE *fp, const struct gmp_result *r, struct gmp_sites *sites, size_t max)
{
	struct gmp_rmem m;
	struct gmp_rmem_grown *v = NULL;
	size_t n = 0;
	int err = gmp_rmem__build(r, &m);
	if (!err)
		err = gmp_rmem__grown(&m, &v, &n);
	for (size_t i = 0; i < n && i < max && !err; i++) {
		char line[2400];
		fprintf(fp, "  %-8s %s\n", i ? "" : "ranges", gmp_rmem__grown_line(&m, r, &v[i], line, sizeof(line)));
		struct gmp_rmem_kept kp;
		char kt[1024];
		if (!(err = gmp_rmem__kept_sites(sites, r, &m, v[i].node, v[i].d, &kp)) && kp.objects)
			fprintf(fp, "             %s\n", gmp_rmem_kept__text(&kp, 3, kt, sizeof(kt)));
		gmp_rmem_kept__release(&kp);
	}
	if (n > max)
		fprintf(fp, "           ... and %zu more range%s grew (gmprof report shows them)\n", n - max,
			n - max == 1 ? "" : "s");
	free(v);
	gmp_rmem__release(&m);
	return err;
}

int gmp_rmem__json(struct gmp_jw *jw, const struct gmp_result *r, struct gmp_sites *sites)
{
	struct gmp_rmem m;
	int err = gmp_rmem__build(r, &m);
	if (err || !m.ntree) {
		gmp_rmem__release(&m);
		return err;
	}
	char path[4096];
	gmp_jw__key(jw, "memory_by_range");
	gmp_jw__arr(jw);
	for (size_t i = 0; i < m.ntree; i++)
		for (size_t d = 0; d < m.ndev; d++) {
			uint32_t k = m.tree[i], c[GMP_RANGE_DEPTH_MAX];
			const struct gmp_rmem_dev *x = gmp_rmem__at(&m, k, d);
			if (!x->calls)
				continue;
			gmp_jw__obj(jw);
			gmp_jw__key(jw, "ranges");
			gmp_jw__arr(jw);
			for (size_t j = 0, nc = gmp_rmem__chain(&m, k, c); j < nc; j++)
				gmp_jw__str(jw, gmp_trace__str(r->trace, m.node[c[j]].name, NULL));
			gmp_jw__arr_end(jw);
			gmp_jw__kstr(jw, "path", gmp_rmem__path(&m, r, k, path, sizeof(path)));
			gmp_jw__ku64(jw, "device", r->devices[d].device);
			gmp_jw__ku64(jw, "calls", x->calls);
			gmp_jw__ku64(jw, "peak_bytes", x->peak);
			gmp_jw__key(jw, "peak_at");
			gmp_findings__api_ref(jw, r, x->peak_ev, NULL);
			if (r->devices[d].inuse_peak_bytes)
				gmp_jw__ku64(jw, "inuse_peak_bytes", x->inuse_peak);
			gmp_jw__ku64(jw, "allocated_bytes", x->alloc_bytes);
			gmp_jw__ku64(jw, "allocated_objects", x->alloc_objects);
			gmp_jw__ku64(jw, "outlived_bytes", x->outlive_bytes);
			gmp_jw__ku64(jw, "outlived_objects", x->outlive_objects);
			gmp_jw__ku64(jw, "times", x->times);
			gmp_jw__ku64(jw, "time_peak_min_bytes", x->time_peak_min);
			gmp_jw__ku64(jw, "entry_first_bytes", x->entry_first);
			gmp_jw__ku64(jw, "entry_last_bytes", x->entry_last);
			struct gmp_rmem_kept kp = { 0 };
			if (gmp_rmem__growth(x) && !(err = gmp_rmem__kept_sites(sites, r, &m, k, d, &kp)))
				gmp_rmem_kept__json(jw, "kept", &kp);
			gmp_rmem_kept__release(&kp);
			gmp_jw__obj_end(jw);
		}
	gmp_jw__arr_end(jw);
	gmp_rmem__release(&m);
	return err;
}

