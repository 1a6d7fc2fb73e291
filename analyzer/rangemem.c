// SPDX-License-Identifier: MIT
/*
 * Memory by NVTX range (rangemem.h): one walk over the events in the
 * topological order, following the live-bytes curve, charges each call's
 * device's live bytes to the range it was made in and to every range
 * around it; each object's allocation and free say which ranges it was
 * allocated in and which of those it outlived.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rangemem.h"
#include "cmds.h"
#include "findings_json.h"
#include "markdown.h"
#include "u64map.h"

void gmp_rmem__release(struct gmp_rmem *m)
{
	free(m->node);
	free(m->dev);
	free(m->tree);
	memset(m, 0, sizeof(*m));
}

/* Nodes for every prefix of every range path; path_node[p] the deepest of path p. */
static int make_nodes(struct gmp_rmem *m, const struct gmp_trace *t, uint32_t *path_node)
{
	struct gmp_u64map ids; /* (parent + 1) << 32 | name -> node */
	gmp_u64map__init(&ids);
	size_t cap = t->nrnames ? t->nrnames : 1; /* at most one node per name in a path */
	m->node = malloc(cap * sizeof(*m->node));
	if (!m->node)
		return -ENOMEM;
	path_node[0] = GMP_RMEM_ROOT;
	for (uint32_t p = 1; p <= t->npaths; p++) {
		const uint32_t *names;
		size_t k = gmp_trace__range_path(t, p, &names);
		uint32_t at = GMP_RMEM_ROOT;
		for (size_t i = 0; i < k; i++) {
			int is_new = 0;
			uint64_t key = ((uint64_t)(at + 1u) << 32) | names[i];
			uint32_t *slot = gmp_u64map__slot(&ids, key, (uint32_t)m->n, &is_new);
			if (!slot) {
				gmp_u64map__release(&ids);
				return -ENOMEM;
			}
			if (is_new)
				m->node[m->n++] = (struct gmp_rmem_node){
					.parent = at, .name = names[i], .depth = (uint32_t)i, .first = UINT32_MAX };
			at = *slot;
		}
		path_node[p] = at;
	}
	gmp_u64map__release(&ids);
	return 0;
}

/* The chain of nodes from the top down to node k (at most GMP_RANGE_DEPTH_MAX); their count. */
static size_t chain(const struct gmp_rmem *m, uint32_t k, uint32_t *out)
{
	size_t n = k == GMP_RMEM_ROOT ? 0 : m->node[k].depth + 1;
	for (size_t i = n; i > 0; i--, k = m->node[k].parent)
		out[i - 1] = k;
	return n;
}

/* Charges every object to the ranges of its allocation, and as outliving those its free is not in. */
static void charge_objects(struct gmp_rmem *m, const struct gmp_result *r, const uint32_t *path_node,
			   const uint8_t *counted)
{
	const struct gmp_trace *t = r->trace;
	uint32_t a[GMP_RANGE_DEPTH_MAX], f[GMP_RANGE_DEPTH_MAX];
	for (size_t o = 0; o < r->nobjects; o++) {
		const struct gmp_object *ob = &r->objects[o];
		size_t d = gmp_result__device_index(r, ob->device);
		if (!counted[ob->alloc_ev] || d == SIZE_MAX)
			continue;
		size_t na = chain(m, path_node[t->ev_range[ob->alloc_ev]], a), nf = 0;
		if (ob->free_ev != GMP_NO_EVENT)
			nf = chain(m, path_node[t->ev_range[ob->free_ev]], f);
		size_t common = 0;
		while (common < na && common < nf && a[common] == f[common])
			common++;
		for (size_t i = 0; i < na; i++) {
			struct gmp_rmem_dev *x = &m->dev[(size_t)a[i] * m->ndev + d];
			x->alloc_bytes += ob->size;
			x->alloc_objects++;
			if (i >= common) {
				x->outlive_bytes += ob->size;
				x->outlive_objects++;
			}
		}
	}
}

/* The walk: each call's device's live bytes (and bytes in use) to its ranges. */
static int charge_calls(struct gmp_rmem *m, const struct gmp_result *r, const uint32_t *path_node)
{
	const struct gmp_trace *t = r->trace;
	uint64_t *live = calloc(2 * m->ndev, sizeof(*live)), *inuse = live + m->ndev;
	size_t c = 0, u = 0;
	if (!live)
		return -ENOMEM;
	for (size_t p = 0; p < t->nev; p++) {
		uint32_t ev = r->order[p];
		for (; c < r->ncurve && r->curve[c].ev == ev; c++) {
			size_t d = gmp_result__device_index(r, r->curve[c].device);
			if (d < m->ndev)
				live[d] = r->curve[c].live;
		}
		for (; u < r->ninuse_curve && r->inuse_curve[u].ev == ev; u++) {
			size_t d = gmp_result__device_index(r, r->inuse_curve[u].device);
			if (d < m->ndev)
				inuse[d] = r->inuse_curve[u].live;
		}
		uint32_t k = path_node[t->ev_range[ev]];
		size_t d = gmp_result__device_index(r, t->ev[ev].device);
		if (k == GMP_RMEM_ROOT || d >= m->ndev)
			continue;
		for (; k != GMP_RMEM_ROOT; k = m->node[k].parent) {
			struct gmp_rmem_dev *x = &m->dev[(size_t)k * m->ndev + d];
			if (m->node[k].first == UINT32_MAX)
				m->node[k].first = (uint32_t)p;
			x->calls++;
			if (x->peak_ev == GMP_NO_EVENT || live[d] > x->peak) {
				x->peak = live[d];
				x->peak_ev = ev;
			}
			if (inuse[d] > x->inuse_peak)
				x->inuse_peak = inuse[d];
		}
	}
	free(live);
	return 0;
}

static int cmp_first(const void *a, const void *b, void *ctx)
{
	const struct gmp_rmem *m = ctx;
	uint32_t x = m->node[*(const uint32_t *)a].first, y = m->node[*(const uint32_t *)b].first;
	return (x > y) - (x < y);
}

/* The nodes with calls, each after its parent, siblings by their first call: a depth-first walk. */
static int tree_order(struct gmp_rmem *m)
{
	uint32_t *kids = malloc((m->n ? m->n : 1) * sizeof(*kids));
	uint32_t *off = calloc(m->n + 2, sizeof(*off));
	uint32_t *stack = malloc((m->n ? m->n : 1) * sizeof(*stack));
	m->tree = malloc((m->n ? m->n : 1) * sizeof(*m->tree));
	if (!kids || !off || !stack || !m->tree) {
		free(kids);
		free(off);
		free(stack);
		return -ENOMEM;
	}
	/* Children lists by parent (the top as parent index m->n), sorted by first call. */
	for (size_t k = 0; k < m->n; k++)
		if (m->node[k].first != UINT32_MAX)
			off[(m->node[k].parent == GMP_RMEM_ROOT ? m->n : m->node[k].parent) + 1]++;
	for (size_t i = 1; i <= m->n + 1; i++)
		off[i] += off[i - 1];
	uint32_t *fill = stack; /* borrowed as a cursor per parent for the moment */
	for (size_t k = 0; k < m->n; k++)
		fill[k] = off[k];
	uint32_t top_fill = off[m->n];
	for (size_t k = 0; k < m->n; k++) {
		if (m->node[k].first == UINT32_MAX)
			continue;
		uint32_t p = m->node[k].parent;
		kids[p == GMP_RMEM_ROOT ? top_fill++ : fill[p]++] = (uint32_t)k;
	}
	for (size_t i = 0; i <= m->n; i++)
		qsort_r(kids + off[i], off[i + 1] - off[i], sizeof(*kids), cmp_first, m);
	size_t sp = 0;
	for (uint32_t i = off[m->n + 1]; i > off[m->n]; i--)
		stack[sp++] = kids[i - 1];
	while (sp) {
		uint32_t k = stack[--sp];
		m->tree[m->ntree++] = k;
		for (uint32_t i = off[k + 1]; i > off[k]; i--)
			stack[sp++] = kids[i - 1];
	}
	free(kids);
	free(off);
	free(stack);
	return 0;
}

int gmp_rmem__build(const struct gmp_result *r, struct gmp_rmem *m)
{
	const struct gmp_trace *t = r->trace;
	memset(m, 0, sizeof(*m));
	if (!t->ev_range || !t->npaths || !r->ndevices)
		return 0;
	uint32_t *path_node = malloc((t->npaths + 1) * sizeof(*path_node));
	uint8_t *counted = calloc(t->nev ? t->nev : 1, 1);
	int err = path_node && counted ? make_nodes(m, t, path_node) : -ENOMEM;
	m->ndev = r->ndevices;
	if (!err && !(m->dev = calloc(m->n ? m->n * m->ndev : 1, sizeof(*m->dev))))
		err = -ENOMEM;
	if (!err) {
		for (size_t i = 0; i < m->n * m->ndev; i++)
			m->dev[i].peak_ev = GMP_NO_EVENT;
		for (size_t c = 0; c < r->ncurve; c++) /* the objects the peaks count: those on the curve */
			counted[r->curve[c].ev] = 1;
		charge_objects(m, r, path_node, counted);
		err = charge_calls(m, r, path_node);
		if (!err)
			err = tree_order(m);
	}
	free(path_node);
	free(counted);
	return err;
}

const char *gmp_rmem__path(const struct gmp_rmem *m, const struct gmp_result *r, uint32_t k, char *buf, size_t n)
{
	uint32_t c[GMP_RANGE_DEPTH_MAX];
	size_t nc = chain(m, k, c), len = 0;
	buf[0] = 0;
	for (size_t i = 0; i < nc && len < n; i++) {
		int w = snprintf(buf + len, n - len, "%s%s", i ? " > " : "", gmp_trace__str(r->trace, m->node[c[i]].name, NULL));
		if (w < 0)
			break;
		len += (size_t)w;
	}
	return buf;
}

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

/* A table format: its head for a device, a row per range shown, and what closes it. */
struct table {
	void (*head)(FILE *fp, const struct gmp_result *r, size_t d, int inuse);
	void (*row)(FILE *fp, const struct gmp_rmem *m, const struct gmp_result *r, uint32_t k,
		    const struct gmp_rmem_dev *x, int at_peak, int inuse);
	void (*tail)(FILE *fp, size_t more);
};

/* Per device with calls in ranges: a table of at most max of them (pick), in tree order. */
static int tables(FILE *fp, const struct gmp_result *r, size_t max, const struct table *tb)
{
	struct gmp_rmem m;
	int err = gmp_rmem__build(r, &m);
	size_t cap = m.n ? m.n : 1;
	uint8_t *show = malloc(cap);
	uint32_t *tmp = malloc(cap * sizeof(*tmp));
	const struct gmp_rmem_dev **by_node = malloc(cap * sizeof(*by_node));
	if (!err && (!show || !tmp || !by_node))
		err = -ENOMEM;
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
	fprintf(fp, " %8s  %-18s %s\n", "calls", "allocated", "outlived it");
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
	fprintf(fp, " %8llu  %-18s %s\n", (unsigned long long)x->calls,
		bytes_in(x->alloc_bytes, x->alloc_objects, c, sizeof(c)),
		bytes_in(x->outlive_bytes, x->outlive_objects, o, sizeof(o)));
}

static void text_tail(FILE *fp, size_t more)
{
	if (more)
		fprintf(fp, "  ... and %zu more ranges (--format json lists every one)\n", more);
}

int gmp_rmem__text(FILE *fp, const struct gmp_result *r, size_t max)
{
	static const struct table tb = { text_head, text_row, text_tail };
	return tables(fp, r, max, &tb);
}

static void md_head(FILE *fp, const struct gmp_result *r, size_t d, int inuse)
{
	fprintf(fp, "### Memory by NVTX range, device %u\n\n"
		"Peak: the most live bytes right after a call made inside (**bold**: the device's peak); "
		"outlived it: allocated inside, freed outside the range or never.\n\n"
		"| range | peak |%s calls | allocated | outlived it |\n|---|---|%s---|---|---|\n",
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
	fprintf(fp, " %llu | %s | %s |\n", (unsigned long long)x->calls,
		bytes_in(x->alloc_bytes, x->alloc_objects, c, sizeof(c)),
		bytes_in(x->outlive_bytes, x->outlive_objects, o, sizeof(o)));
}

static void md_tail(FILE *fp, size_t more)
{
	if (more)
		fprintf(fp, "\n... and %zu more ranges (`gmprof report --format json` lists every one)\n", more);
	fputc('\n', fp);
}

int gmp_rmem__markdown(FILE *fp, const struct gmp_result *r, size_t max)
{
	static const struct table tb = { md_head, md_row, md_tail };
	return tables(fp, r, max, &tb);
}

static void html_head(FILE *fp, const struct gmp_result *r, size_t d, int inuse)
{
	fprintf(fp, "<h2>Memory by NVTX range, device %u</h2>\n<p>The most live bytes right after a call made "
		"inside each range (<b>bold</b>: the device's peak), the bytes allocated inside it, and those "
		"that outlived it (freed outside it, or never).</p>\n<table><thead><tr><th>range</th><th>peak</th>%s"
		"<th>calls</th><th>allocated</th><th>objects</th><th>outlived it</th><th>objects</th></tr></thead>"
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
	fprintf(fp, "<td class=\"n\">%llu</td><td class=\"n\">%s</td><td class=\"n\">%llu</td>"
		"<td class=\"n\">%s</td><td class=\"n\">%llu</td></tr>\n", (unsigned long long)x->calls,
		gmp_human_bytes(x->alloc_bytes, b, sizeof(b)), (unsigned long long)x->alloc_objects,
		gmp_human_bytes(x->outlive_bytes, c, sizeof(c)), (unsigned long long)x->outlive_objects);
}

static void html_tail(FILE *fp, size_t more)
{
	fprintf(fp, "</tbody></table>\n");
	if (more)
		fprintf(fp, "<p>... and %zu more ranges (<code>gmprof report --format json</code> lists every "
			"one).</p>\n", more);
}

int gmp_rmem__html(FILE *fp, const struct gmp_result *r, size_t max)
{
	static const struct table tb = { html_head, html_row, html_tail };
	return tables(fp, r, max, &tb);
}

int gmp_rmem__json(struct gmp_jw *jw, const struct gmp_result *r)
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
			for (size_t j = 0, nc = chain(&m, k, c); j < nc; j++)
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
			gmp_jw__obj_end(jw);
		}
	gmp_jw__arr_end(jw);
	gmp_rmem__release(&m);
	return 0;
}

