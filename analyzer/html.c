// SPDX-License-Identifier: MIT
/*
 * `gmprof html`: one self-contained page that opens offline -- no script,
 * no font, no image, no request of any kind: inline CSS and SVG only.
 * It holds the run's summary (html_run.c, with the allocations that ran
 * out of memory), a plot of live bytes per device with the peaks marked,
 * each peak by allocation site and the largest as a flame graph by call
 * path, lifetime bars of the largest objects, the findings table with
 * source lines, and a histogram for each non-uniform-access finding.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bysite.h"
#include "cli.h"
#include "cmds.h"
#include "findings_json.h"
#include "flame.h"
#include "html.h"
#include "marks.h"
#include "memtime.h"
#include "rangemem.h"
#include "session.h"
#include "source.h"
#include "stack.h"

#define PLOT_W 960
#define PLOT_H 220
#define BAR_ROWS 60
#define ROW_H 14

static const char usage[] =
	"Usage: gmprof html [options] INPUT...\n"
	"\n"
	"Write a self-contained HTML report (no scripts, no network): live bytes per\n"
	"device with the peaks, what was live at each peak by allocation site (and\n"
	"at the largest by call path, a flame graph), memory by NVTX range (and what\n"
	"the range that grew most from one time to the next kept, a flame graph),\n"
	"object lifetimes, the findings with source lines, and a histogram for each\n"
	"non-uniform access finding.\n"
	"Several inputs (an MPI job's ranks) make one page: a table of them, then\n"
	"each one's report.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE        write to FILE (standard output by default)\n"
	"      --objects N          lifetime bars for the N largest objects (60)\n"
	"      --symbols DIR        look for the profile's binaries in DIR (by file name)\n"
	GMP_SOURCE_HELP
	"      --force              replace FILE if it exists\n"
	"  -h, --help               show this help\n"
	"\n"
	GMP_DETECT_HELP
	"\n"
	"EXAMPLE\n"
	"  gmprof html -o report.html app.gmprof\n";

struct page {
	struct gmp_session *s;    /* the input being written */
	uint32_t objects;
	struct gmp_inputs in;
	struct gmp_source *src;   /* source lines, or NULL */
};

static const char style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1d2330;background:#fff}"
	"h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd}"
	"table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #e4e4e4;"
	"padding:4px 8px;text-align:left;vertical-align:top}th{background:#f4f5f7}"
	"td.n{text-align:right;white-space:nowrap}code{font-size:12px}"
	".incomplete{background:#fff3cd;border:1px solid #e0c060;padding:8px}"
	"svg text{font:11px system-ui,sans-serif;fill:#333}"
	".curve{fill:#8ab4f8;stroke:#1a73e8}.peak{stroke:#d93025;stroke-width:2}.ceiling{stroke:#5f6368;stroke-dasharray:4 3}"
	".life{fill:#9aa0a6}.life.f{fill:#f29900}.hist{fill:#1a73e8}"
	".l0{fill:#4e79a7}.l1{fill:#f28e2b}.l2{fill:#e15759}.l3{fill:#76b7b2}.l4{fill:#59a14f}"
	".l5{fill:#edc948}.l6{fill:#b07aa1}.l7{fill:#ff9da7}.l8{fill:#9c755f}.l9{fill:#bab0ac}"
	"ul.legend{list-style:none;padding:0;columns:2}ul.legend svg{margin-right:6px}"
	"dl{display:grid;grid-template-columns:max-content auto;gap:2px 16px}dt{font-weight:600}";

/*
 * Live bytes of one device (pts: r->curve), or its bytes in use (pts:
 * r->inuse_curve): the largest value in each pixel column, as a step area.
 */
static void curve(FILE *fp, const struct gmp_result *r, uint32_t device,
		  const struct gmp_curve_point *pts, size_t npts, int inuse)
{
	uint64_t levels = (uint64_t)r->max_level + 1;
	uint64_t *col = calloc(PLOT_W, sizeof(uint64_t));
	if (!col)
		return;
	uint64_t peak = gmp_text__columns(r, device, pts, npts, col, PLOT_W);
	/* The device's memory, where the profile records it and the peak comes within half of it: a line. */
	uint64_t mem = inuse ? 0 : gmp_text__ceiling(r->trace, device, peak);
	uint64_t top = mem > peak ? mem : peak;
	char a[32];
	fprintf(fp, "<h3>Device %u: %s %s</h3>\n", device,
		inuse ? "bytes in use (pools counted by their regions), at most" : "peak",
		gmp_human_bytes(peak, a, sizeof(a)));
	fprintf(fp, "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
		"aria-label=\"%s on device %u\">\n", PLOT_W + 80, PLOT_H + 30, PLOT_W + 80,
		PLOT_H + 30, inuse ? "bytes in use" : "live bytes", device);
	fprintf(fp, "<text x=\"0\" y=\"12\">%s</text><text x=\"0\" y=\"%d\">0</text>\n",
		gmp_human_bytes(top, a, sizeof(a)), PLOT_H);
	fprintf(fp, "<path class=\"curve\" d=\"M70 %d", PLOT_H);
	for (uint32_t c = 0; c < PLOT_W; c++) {
		double y = top ? PLOT_H - (double)col[c] * (PLOT_H - 10) / (double)top : PLOT_H;
		fprintf(fp, " L%u %.1f L%u %.1f", 70 + c, y, 71 + c, y);
	}
	fprintf(fp, " L%d %d Z\"/>\n", 70 + PLOT_W, PLOT_H);
	if (mem) {
		double y = PLOT_H - (double)mem * (PLOT_H - 10) / (double)top;
		fprintf(fp, "<line class=\"ceiling\" x1=\"70\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"><title>the device's "
			"memory: %s</title></line>\n", 70 + PLOT_W, y, y, gmp_human_bytes(mem, a, sizeof(a)));
	}
	for (size_t p = 0; p < r->npeaks && !inuse; p++) {
		if (r->peaks[p].device != device)
			continue;
		/* The column gmp_text__columns puts that level in. */
		uint64_t x = 70 + (((uint64_t)r->level[r->peaks[p].ev] + 1) * PLOT_W + levels - 1) / levels - 1;
		fprintf(fp, "<line class=\"peak\" x1=\"%" PRIu64 "\" x2=\"%" PRIu64 "\" y1=\"0\" y2=\"%d\">"
			"<title>peak %zu: %s</title></line>\n", x, x, PLOT_H, p + 1,
			gmp_human_bytes(r->peaks[p].bytes, a, sizeof(a)));
	}
	fprintf(fp, "<text x=\"70\" y=\"%d\">0</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">"
		"level %" PRIu64 " (topological order)</text>\n</svg>\n", PLOT_H + 20, 70 + PLOT_W,
		PLOT_H + 20, levels - 1);
	free(col);
}

/* The device's live bytes (inuse: bytes in use) by allocation site (stack.c), where more than one layer holds them. */
static void by_site_plot(FILE *fp, struct page *pg, uint32_t device, uint64_t top, int inuse)
{
	const char *what = inuse ? "bytes in use" : "live bytes";
	struct gmp_stack st;
	int err = gmp_stack__build(&pg->s->sites, pg->s->r, device, inuse, 8, PLOT_W, &st);
	if (!err && gmp_stack__layers(&st) > 1) {
		fprintf(fp, "<h3>Device %u: %s by allocation site</h3>\n<p>The sites holding most of the peak%s, "
			"each a layer, the others together; each column as at its largest %s.</p>\n", device, what,
			inuse ? " of bytes in use (pool regions by where they were registered)" : "", what);
		err = gmp_stack__html(fp, &st, device, what, top, 70, PLOT_H);
	}
	if (err == -ENOMEM)
		fprintf(fp, "<p class=\"incomplete\">Out of memory drawing the %s by allocation site.</p>\n", what);
	else if (err == -EINVAL)
		fprintf(fp, "<p class=\"incomplete\">The %s by allocation site are left out: the sites' "
			"bytes do not add up to the device's (a bug in gmprof: please report it).</p>\n", what);
	gmp_stack__release(&st);
}

static int by_size(const void *a, const void *b, void *ctx)
{
	const struct gmp_object *o = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (o[x].size != o[y].size)
		return o[x].size > o[y].size ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void lifetimes(FILE *fp, struct page *pg)
{
	const struct gmp_result *r = pg->s->r;
	size_t n = r->nobjects < pg->objects ? r->nobjects : pg->objects;
	uint32_t *idx = malloc((r->nobjects ? r->nobjects : 1) * sizeof(uint32_t));
	uint8_t *flagged = calloc(r->nobjects ? r->nobjects : 1, 1);
	if (!idx || !flagged) {
		free(idx);
		free(flagged);
		return;
	}
	for (size_t i = 0; i < r->nobjects; i++)
		idx[i] = (uint32_t)i;
	qsort_r(idx, r->nobjects, sizeof(uint32_t), by_size, r->objects);
	for (size_t i = 0; i < r->nfindings; i++)
		flagged[r->findings[i].object] = 1;
	uint64_t levels = (uint64_t)r->max_level + 1;
	fprintf(fp, "<h2>Object lifetimes</h2>\n<p>The %zu largest of %zu objects, from allocation to free "
		"over the topological order; orange ones have findings.</p>\n", n, r->nobjects);
	fprintf(fp, "<svg width=\"%d\" height=\"%zu\" viewBox=\"0 0 %d %zu\" role=\"img\" aria-label=\"object lifetimes\">\n",
		PLOT_W + 240, n * ROW_H + 4, PLOT_W + 240, n * ROW_H + 4);
	for (size_t i = 0; i < n; i++) {
		const struct gmp_object *o = &r->objects[idx[i]];
		char name[160], a[32];
		uint64_t from = r->level[o->alloc_ev];
		uint64_t to = o->free_ev != GMP_NO_EVENT ? r->level[o->free_ev] + 1 : levels;
		double x = 230 + (double)from * PLOT_W / (double)levels;
		double w = (double)(to - from) * PLOT_W / (double)levels;
		fprintf(fp, "<text x=\"0\" y=\"%zu\">", i * ROW_H + 11);
		gmp_text__markup(fp, gmp_result__object_name(r, idx[i], name, sizeof(name)));
		int sh = gmp_object__shared(r, idx[i]);
		fprintf(fp, " (%s%s)</text>", gmp_human_bytes(o->size, a, sizeof(a)),
			o->kind == GMP_MEM_ARRAY ? ", CUDA array" : sh == GMP_SHARED_IMPORTED ? ", another process's"
			: sh == GMP_SHARED_EXPORTED ? ", shared with other processes" : "");
		fprintf(fp, "<rect class=\"life%s\" x=\"%.1f\" y=\"%zu\" width=\"%.1f\" height=\"%d\">"
			"<title>", flagged[idx[i]] ? " f" : "", x, i * ROW_H + 2, w < 1 ? 1.0 : w, ROW_H - 3);
		gmp_text__markup(fp, name);
		const char *site = gmp_sites__event(&pg->s->sites, o->alloc_ev, NULL);
		if (site) {
			fprintf(fp, " allocated at ");
			gmp_text__markup(fp, site);
		}
		fprintf(fp, ", levels %" PRIu64 "-%" PRIu64 "%s</title></rect>\n", from, to - 1,
			o->free_ev == GMP_NO_EVENT ? " (never freed)" : "");
	}
	fprintf(fp, "</svg>\n");
	free(idx);
	free(flagged);
}

static void histogram(FILE *fp, const struct gmp_result *r, const struct gmp_finding *f)
{
	const struct gmp_hist *h = &r->hists[f->hist];
	uint64_t mx = 0;
	for (int b = 0; b < GMP_HIST_BUCKETS; b++)
		mx = h->bytes[b] > mx ? h->bytes[b] : mx;
	fprintf(fp, "<svg width=\"330\" height=\"120\" viewBox=\"0 0 330 120\" role=\"img\" "
		"aria-label=\"bytes per access count\">");
	for (int b = 0; b < GMP_HIST_BUCKETS; b++) {
		double hh = mx ? (double)h->bytes[b] * 90 / (double)mx : 0;
		uint64_t lo = h->max_count * (uint64_t)b / GMP_HIST_BUCKETS;
		uint64_t hi = h->max_count * (uint64_t)(b + 1) / GMP_HIST_BUCKETS;
		fprintf(fp, "<rect class=\"hist\" x=\"%d\" y=\"%.1f\" width=\"28\" height=\"%.1f\">"
			"<title>%" PRIu64 " bytes accessed %" PRIu64 "-%" PRIu64 " times</title></rect>",
			10 + b * 32, 100 - hh, hh, h->bytes[b], lo + 1, hi);
	}
	fprintf(fp, "<text x=\"10\" y=\"115\">accesses: 1</text><text x=\"320\" y=\"115\" "
		"text-anchor=\"end\">%" PRIu64 "</text></svg>", h->max_count);
}

static void findings(FILE *fp, struct page *pg)
{
	const struct gmp_result *r = pg->s->r;
	fprintf(fp, "<h2>Findings</h2>\n");
	if (!r->nfindings) {
		fprintf(fp, "<p>No findings.</p>\n");
		return;
	}
	fprintf(fp, "<table><thead><tr><th>#</th><th>pattern</th><th>object</th><th>size</th>"
		"<th>measure</th><th>saves at the peak</th><th>allocated at</th><th>fix</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < r->nfindings; i++) {
		const struct gmp_finding *f = &r->findings[i];
		const struct gmp_object *o = &r->objects[f->object];
		char name[160], a[32], b[32], m[160], w[160], sugg[768];
		fprintf(fp, "<tr><td class=\"n\">%zu</td><td>%s</td><td>", i + 1, gmp_pattern__name(f->pattern));
		gmp_text__markup(fp, gmp_result__object_name(r, f->object, name, sizeof(name)));
		fprintf(fp, "</td><td class=\"n\">%s</td><td>", gmp_human_bytes(o->size, a, sizeof(a)));
		gmp_text__markup(fp, gmp_text__metric(f, m, sizeof(m)));
		if (*gmp_findings__waited(r, pg->s->clock, f, w, sizeof(w))) {
			fprintf(fp, "<br>");
			gmp_text__markup(fp, w);
		}
		if (f->pattern == GMP_PAT_NON_UNIFORM_ACCESS_FREQUENCY && f->hist < r->nhists) {
			fprintf(fp, "<br>");
			histogram(fp, r, f);
		}
		fprintf(fp, "</td><td class=\"n\">%s</td><td><code>",
			f->saving ? gmp_human_bytes(f->saving, b, sizeof(b)) : "-");
		const char *site = gmp_sites__event(&pg->s->sites, o->alloc_ev, NULL), *code;
		gmp_text__markup(fp, site ? site : "");
		fprintf(fp, "</code>");
		if ((code = gmp_source__line(pg->s->src, site, sugg, sizeof(sugg)))) {
			fprintf(fp, "<br><code>");
			gmp_text__markup(fp, code);
			fprintf(fp, "</code>");
		}
		gmp_html__in_ranges(fp, r->trace, gmp_trace__event_range(r->trace, o->alloc_ev));
		fprintf(fp, "</td><td>");
		gmp_text__markup(fp, gmp_result__suggestion(r, f, sugg, sizeof(sugg)));
		fprintf(fp, "</td></tr>\n");
	}
	fprintf(fp, "</tbody></table>\n");
}

/*
 * A device's largest peak as a flame graph of its live bytes by allocation
 * call path; where its pools have NVTX regions, also its peak of bytes in
 * use, by region.
 */
static void peak_flame(FILE *fp, struct gmp_session *s, const struct gmp_peak *pk)
{
	uint64_t inuse = 0;
	for (size_t i = 0; i < s->r->ndevices; i++)
		if (s->r->devices[i].device == pk->device)
			inuse = s->r->devices[i].inuse_peak_bytes;
	for (int k = 0; k < 1 + (inuse != 0); k++) {
		struct gmp_flame *f;
		struct gmp_flame_opts o = { .what = k ? GMP_FLAME_IN_USE : GMP_FLAME_PEAK, .device = pk->device };
		char t[160], a[32];
		snprintf(t, sizeof(t), k ? "Device %u: %s in use at its peak of bytes in use, by allocation call path"
					 : "Device %u: %s live at its largest peak, by allocation call path",
			 pk->device, gmp_human_bytes(k ? inuse : pk->bytes, a, sizeof(a)));
		struct gmp_flame_svg so = { .title = t, .width = PLOT_W };
		if (gmp_flame__new(&f) || gmp_flame__session(f, s, &o) < 0 || gmp_flame__svg(f, fp, &so))
			fprintf(fp, "<p class=\"incomplete\">Out of memory drawing the peak by call path.</p>\n");
		gmp_flame__free(f);
	}
}

/*
 * Where an NVTX range grew (a loop that keeps memory from one time to the
 * next): what the range that grew most kept on its device, by allocation
 * call path.
 */
static void kept_flame(FILE *fp, struct gmp_session *s)
{
	struct gmp_rmem m;
	struct gmp_rmem_grown *v = NULL;
	size_t n = 0;
	int err = gmp_rmem__build(s->r, &m);
	if (!err)
		err = gmp_rmem__grown(&m, &v, &n);
	if (!err && n) {
		char path[1024], t[1200], a[32];
		struct gmp_flame *f = NULL;
		uint32_t dev = s->r->devices[v[0].d].device;
		gmp_rmem__path(&m, s->r, v[0].node, path, sizeof(path));
		struct gmp_flame_opts o = { .what = GMP_FLAME_KEPT, .device = dev, .range = path };
		snprintf(t, sizeof(t), "NVTX range '%s' on device %u began its last time with %s more live than its first: "
			 "what its times kept, by allocation call path", path, dev,
			 gmp_human_bytes(v[0].growth, a, sizeof(a)));
		struct gmp_flame_svg so = { .title = t, .width = PLOT_W };
		err = gmp_flame__new(&f) || gmp_flame__session(f, s, &o) < 0 || gmp_flame__svg(f, fp, &so) ? -ENOMEM : 0;
		gmp_flame__free(f);
	}
	if (err)
		fprintf(fp, "<p class=\"incomplete\">Out of memory drawing what the NVTX ranges kept.</p>\n");
	free(v);
	gmp_rmem__release(&m);
}

/* Each peak: where it was reached, and its live bytes by allocation site (the largest also by call path). */
static void peaks(FILE *fp, struct page *pg)
{
	const struct gmp_result *r = pg->s->r;
	if (!r->npeaks)
		return;
	fprintf(fp, "<h2>Peaks</h2>\n");
	for (size_t p = 0; p < r->npeaks; p++) {
		const struct gmp_peak *pk = &r->peaks[p];
		char a[32], api[160], share[80];
		struct gmp_bysite b;
		gmp_trace__device_share(r->trace, pk->device, pk->bytes, share, sizeof(share));
		fprintf(fp, "<p>Device %u: %s", pk->device, gmp_human_bytes(pk->bytes, a, sizeof(a)));
		if (*share) { /* "<0.1% of its ..." */
			fputs(" (", fp);
			gmp_text__markup(fp, share);
			fputc(')', fp);
		}
		fprintf(fp, " at %s", gmp_result__api_label(r, pk->ev, api, sizeof(api)));
		const char *site = gmp_sites__event(&pg->s->sites, pk->ev, NULL);
		if (site) {
			fprintf(fp, " at <code>");
			gmp_text__markup(fp, site);
			fprintf(fp, "</code>");
		}
		fprintf(fp, ", %u live objects.</p>\n", pk->obj_n);
		if (gmp_bysite__peak(&pg->s->sites, r, pk, &b)) {
			fprintf(fp, "<p class=\"incomplete\">Out of memory grouping them by allocation site.</p>\n");
			continue;
		}
		fprintf(fp, "<table><thead><tr><th>allocated at</th><th>objects</th><th>bytes</th><th>of the peak</th>"
			"</tr></thead><tbody>\n");
		for (size_t i = 0; i < b.n && i < 20; i++) {
			fprintf(fp, "<tr><td><code>");
			gmp_text__markup(fp, b.g[i].site);
			fprintf(fp, "</code></td><td class=\"n\">%zu</td><td class=\"n\">%s</td><td class=\"n\">%.0f%%</td></tr>\n",
				b.g[i].findings, gmp_human_bytes(b.g[i].bytes, a, sizeof(a)),
				pk->bytes ? 100.0 * (double)b.g[i].bytes / (double)pk->bytes : 0.0);
		}
		if (b.n > 20)
			fprintf(fp, "<tr><td colspan=\"4\">... and %zu more sites</td></tr>\n", b.n - 20);
		fprintf(fp, "</tbody></table>\n");
		gmp_bysite__release(&b);
		if (pk == gmp_result__top_peak(r, pk->device))
			peak_flame(fp, pg->s, pk);
	}
}

/* One input's report: its heading (an anchor when several), summary, plots, peaks, lifetimes, findings. */
static void input_report(FILE *fp, struct page *pg, size_t k)
{
	const struct gmp_result *r = pg->s->r;
	if (pg->in.n > 1)
		fprintf(fp, "<hr>\n<h1 id=\"input%zu\">gmprof report: ", k + 1);
	else
		fprintf(fp, "<h1>gmprof report: ");
	gmp_text__markup(fp, pg->s->name);
	fprintf(fp, "</h1>\n");
	gmp_html__summary(fp, pg->s);
	fprintf(fp, "<h2>Live bytes</h2>\n");
	if (!r->ndevices)
		fprintf(fp, "<p>No device memory was allocated.</p>\n");
	for (size_t d = 0; d < r->ndevices; d++) {
		curve(fp, r, r->devices[d].device, r->curve, r->ncurve, 0);
		by_site_plot(fp, pg, r->devices[d].device, r->devices[d].peak_bytes, 0);
		if (r->devices[d].inuse_peak_bytes) {
			curve(fp, r, r->devices[d].device, r->inuse_curve, r->ninuse_curve, 1);
			by_site_plot(fp, pg, r->devices[d].device, r->devices[d].inuse_peak_bytes, 1);
		}
	}
	peaks(fp, pg);
	const struct gmp_clock *clock;
	if (gmp_session__clock(pg->s, &clock) || gmp_memtime__html(fp, r, clock) == -ENOMEM)
		fprintf(fp, "<p class=\"incomplete\">Out of memory summing memory over time.</p>\n");
	if (gmp_rmem__html(fp, r, &pg->s->sites, 40))
		fprintf(fp, "<p class=\"incomplete\">Out of memory summing the NVTX ranges.</p>\n");
	if (gmp_mmem__html(fp, r, &pg->s->sites, 40))
		fprintf(fp, "<p class=\"incomplete\">Out of memory summing the NVTX marks.</p>\n");
	kept_flame(fp, pg->s);
	gmp_html__failures(fp, pg->s);
	if (gmp_report__html(fp, r))
		fprintf(fp, "<p class=\"incomplete\">Out of memory combining the fixes.</p>\n");
	lifetimes(fp, pg);
	findings(fp, pg);
}

struct paging {
	struct page *pg;
	FILE *out;   /* the reports */
	FILE *tab;   /* the table of inputs (several), or NULL */
};

static int page_one(struct gmp_session *s, size_t i, void *ctx)
{
	struct paging *p = ctx;
	p->pg->s = s;
	s->src = p->pg->src;
	input_report(p->out, p->pg, i);
	if (p->tab) {
		char a[32];
		fprintf(p->tab, "<tr><td><a href=\"#input%zu\">", i + 1);
		gmp_text__markup(p->tab, s->name);
		fprintf(p->tab, "</a></td><td class=\"n\">%s</td><td class=\"n\">%zu</td></tr>\n",
			gmp_human_bytes(s->r->peak_bytes, a, sizeof(a)), s->r->nfindings);
	}
	p->pg->s = NULL;
	return 0;
}

/* Every input in turn, one session open at a time; a bad one abandons the page after saying why. */
static int write_page(FILE *fp, void *ctx)
{
	struct page *pg = ctx;
	int several = pg->in.n > 1;
	fprintf(fp, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
		"<title>gmprof: ");
	if (several)
		fprintf(fp, "%zu inputs", pg->in.n);
	else
		gmp_text__markup(fp, pg->in.v[0]);
	fprintf(fp, "</title><style>%s</style></head><body>\n", style);
	char *rows = NULL; /* the table of inputs, written once all are known: kept until then */
	size_t rows_len = 0;
	FILE *tab = several ? open_memstream(&rows, &rows_len) : NULL;
	if (several && !tab)
		return -ENOMEM;
	char *body = NULL;
	size_t body_len = 0;
	FILE *out = several ? open_memstream(&body, &body_len) : fp;
	struct paging pgn = { pg, out, tab };
	int err = out ? gmp_session__each(&pg->in, page_one, &pgn) : -ENOMEM;
	if (tab && fclose(tab) && !err)
		err = -ENOMEM;
	if (several && out && fclose(out) && !err)
		err = -ENOMEM;
	if (several && !err) {
		fprintf(fp, "<h1>gmprof report: %zu inputs</h1>\n<table><thead><tr><th>input</th><th>peak</th>"
			"<th>findings</th></tr></thead><tbody>\n", pg->in.n);
		fwrite(rows, 1, rows_len, fp);
		fprintf(fp, "</tbody></table>\n");
		fwrite(body, 1, body_len, fp);
	}
	free(rows);
	free(body);
	if (!err)
		err = gmp_source__error(pg->src); /* a source line left out for want of memory */
	if (err || (err = gmp_report__notes_html(fp, pg->in.so.notes, pg->src))) /* every session closed */
		return err;
	fprintf(fp, "<p><small>Written by gmprof.</small></p>\n</body></html>\n");
	return ferror(fp) ? -EIO : 0;
}

int cmd_html(int argc, char **argv)
{
	enum { O_OBJECTS = OPT_CMD_BASE };
	static const struct option longopts[] = {
		{ "output", required_argument, 0, 'o' }, { "objects", required_argument, 0, O_OBJECTS },
		{ "symbols", required_argument, 0, OPT_SYMBOLS }, { "force", no_argument, 0, OPT_FORCE },
		{ "help", no_argument, 0, 'h' }, GMP_DETECT_LONGOPTS, GMP_SOURCE_LONGOPTS, { 0, 0, 0, 0 },
	};
	struct gmp_cli_common cm;
	gmp_cli__common_init(&cm);
	struct page pg = { .objects = BAR_ROWS };
	int c, ex;
	gmp_cli__reset_getopt();
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		if (c == O_OBJECTS) {
			if (gmp_cli__u32(optarg, &pg.objects))
				return gmp_cli__usage_error("html", "bad value '%s' for --objects", optarg);
		} else if (gmp_cli__common("html", usage, c, argv, &cm, &ex) < 0) {
			return ex;
		}
	}
	if ((ex = gmp_cli__inputs("html", argc, argv, &cm, &pg.in)) || (ex = gmp_cli__source("html", &cm, &pg.src)))
		return ex;
	int rc = gmp_output__write(cm.output, cm.force, write_page, &pg);
	gmp_source__free(pg.src);
	return gmp_cli__finish(&cm, rc, "html");
}
