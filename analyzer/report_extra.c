// SPDX-License-Identifier: MIT
/*
 * What gmprof report adds beside the findings: the run's header, fixes combined per device
 * (the peak with all of them fixed, and with --fit the findings that reach
 * a budget), and the findings grouped by the NVTX ranges their objects
 * were allocated in.  Text and JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "findings_json.h"
#include "jw.h"
#include "kernels_from.h"
#include "session.h"
#include "source.h"
#include "symbolize.h"

const char *const gmp_report__run_keys[] = { "command", "host", "pid", "device", "cuda", "mode", "fallback", NULL };

void gmp_report__header(FILE *fp, struct gmp_session *s)
{
	const struct gmp_trace *t = s->in.trace;
	const struct gmp_result *r = s->r;
	fprintf(fp, "gmprof report: %s\n", s->name);
	for (const char *const *k = gmp_report__run_keys; *k; k++) {
		const char *v = gmp_trace__meta(t, *k);
		if (v && *v)
			fprintf(fp, "  %-8s %s\n", *k, v);
	}
	for (size_t i = 0; i < r->ndevices; i++) {
		char d[160], k[16];
		if (gmp_text__device(t, r->devices[i].device, d, sizeof(d))) {
			snprintf(k, sizeof(k), "device %u", r->devices[i].device);
			fprintf(fp, "  %-8s %s\n", k, d);
		}
	}
	fprintf(fp, "  events   %zu (%" PRIu64 " GPU APIs), %zu objects, %u levels\n", t->nev,
		r->napis, r->nobjects, t->nev ? r->max_level + 1 : 0);
	const char *own = gmp_trace__meta(t, "collector_device_peak");
	char ob[32];
	if (own && *own)
		fprintf(fp, "  gmprof   held at most %s of device memory itself (not in the peaks below)\n",
			gmp_human_bytes(strtoull(own, NULL, 10), ob, sizeof(ob)));
	gmp_report__self_time(fp, t);
	if (t->damaged)
		fprintf(fp, "  status   INCOMPLETE: damaged at byte %" PRIu64 " (%s); what came before is reported\n",
			t->bytes_read, t->damage);
	else if (t->truncated)
		fprintf(fp, "  status   INCOMPLETE: cut off after %" PRIu64 " of %" PRIu64 " bytes; what came before is reported\n",
			t->bytes_read, t->bytes_total);
	else if (s->in.is_profile && !t->ended)
		fprintf(fp, "  status   INCOMPLETE: the program did not reach its end (crashed or killed); objects still live were not necessarily leaked\n");
	if (gmp_input__alloc_mode(t))
		fprintf(fp, "  note     alloc mode records no kernel accesses: peaks, what was live there and leaks "
			"are reported, not the patterns that need the accesses (gmprof run --mode object)\n");
	else if (gmp_trace__meta(t, "capture"))
		gmp_report__capture(fp, t);
	else if (t->unharvested)
		fprintf(fp, "  note     %" PRIu64 " kernel launches have no recorded access sets; each counts "
			"as a use of every object live when it was issued\n", t->unharvested);
	gmp_report__graphs(fp, r);
	if (t->untouched)
		fprintf(fp, "  note     %" PRIu64 " intra-mode kernel launches have no recorded touches (their "
			"maps did not fit, their access records overflowed, or they touched an object their "
			"kernel had no maps for); the intra-object patterns rest on the other launches\n",
			t->untouched);
	const char *cmd = gmp_trace__meta(t, "command");
	if (gmp_kernels_from__suggested(t))
		fprintf(fp, "  next     intra mode also finds overallocation and access patterns; on the kernels "
			"at this profile's peaks: gmprof run --kernels-from %s -- %s\n", s->name,
			cmd && *cmd ? cmd : "PROGRAM");
}

int gmp_report__shares_known(const char *cmd, const char *name, const struct gmp_result *r, const char *option,
			     double pct)
{
	for (size_t i = 0; pct > 0 && i < r->ndevices; i++) {
		uint32_t dev = r->devices[i].device;
		if (gmp_trace__device_memory(r->trace, dev))
			continue;
		fprintf(stderr, "gmprof %s: '%s' does not record device %u's memory (a profile of an earlier gmprof or "
			"of GMPROF_DEVICE_INFO=0, or an event script without META device.%u.memory): give %s in bytes\n",
			cmd, name, dev, dev, option);
		return 0;
	}
	return 1;
}

/* What --fit asks of each device: r->ndevices targets (0: none), NULL for none at all, or -ENOMEM. */
static int targets_of(const struct gmp_result *r, const struct gmp_fit *fit, uint64_t **out)
{
	*out = NULL;
	if (!fit->bytes && fit->pct <= 0)
		return 0;
	uint64_t *t = calloc(r->ndevices ? r->ndevices : 1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t d = 0; d < r->ndevices; d++)
		t[d] = fit->bytes ? fit->bytes : gmp_trace__device_share_bytes(r->trace, r->devices[d].device, fit->pct);
	*out = t;
	return 0;
}

/* The plans of r's devices for fit: p (r->ndevices of them) and *fix, as gmp_result__plan makes them. */
static int plan(const struct gmp_result *r, const struct gmp_fit *fit, struct gmp_plan **p, uint32_t **fix)
{
	uint64_t *targets;
	*p = NULL;
	*fix = NULL;
	if (targets_of(r, fit, &targets))
		return -ENOMEM;
	*p = calloc(r->ndevices ? r->ndevices : 1, sizeof(**p));
	int err = *p ? gmp_result__plan(r, targets, *p, fix) : -ENOMEM;
	free(targets);
	if (err) {
		free(*p);
		*p = NULL;
	}
	return err;
}

/* Findings fixed together: what all of them leave of each peak, and the fewest that reach --fit. */
int gmp_report__plans(FILE *fp, const struct gmp_result *r, const struct gmp_fit *fit)
{
	if (!r->ndevices || !r->nfindings)
		return 0;
	struct gmp_plan *p;
	uint32_t *fix;
	if (plan(r, fit, &p, &fix))
		return -ENOMEM;
	char a[32], b[32], c[96], m[32];
	fprintf(fp, "\nFixing findings together\n");
	for (size_t d = 0; d < r->ndevices; d++) {
		if (p[d].findings)
			fprintf(fp, "  device %u: with all %u of its findings that free memory fixed, the peak is %s (now %s)\n",
				p[d].device, p[d].findings, gmp_human_bytes(p[d].peak_all_fixed, a, sizeof(a)),
				gmp_human_bytes(p[d].peak, b, sizeof(b)));
		else
			fprintf(fp, "  device %u: none of its findings has a fix known to free memory\n", p[d].device);
		if (p[d].pairs_left_out)
			fprintf(fp, "  device %u: not counting its %u redundant allocation%s (sharing a buffer changes "
				"what the other fixes of both objects do)\n", p[d].device, p[d].pairs_left_out,
				p[d].pairs_left_out == 1 ? "" : "s");
		if (!p[d].target)
			continue;
		gmp_human_bytes(p[d].target, a, sizeof(a));
		if (fit->pct > 0) /* "71.7 GiB (90% of its 79.6 GiB)" */
			snprintf(c, sizeof(c), "%s (%g%% of its %s)", a, fit->pct,
				 gmp_human_bytes(gmp_trace__device_memory(r->trace, p[d].device), m, sizeof(m)));
		else
			snprintf(c, sizeof(c), "%s", a);
		if (p[d].fit_n == UINT32_MAX && p[d].fit_capped)
			fprintf(fp, "  device %u: fitting in %s takes more than 64 of them\n", p[d].device, c);
		else if (p[d].fit_n == UINT32_MAX)
			fprintf(fp, "  device %u: even fixing all of them leaves the peak above %s\n", p[d].device, c);
		else if (!p[d].fit_n)
			fprintf(fp, "  device %u: the peak is within %s already\n", p[d].device, c);
		else {
			fprintf(fp, "  device %u: to fit in %s, fix finding%s", p[d].device, c,
				p[d].fit_n == 1 ? "" : "s");
			for (uint32_t k = 0; k < p[d].fit_n && k < 12; k++)
				fprintf(fp, "%s %u", k ? "," : "", fix[p[d].fit_off + k] + 1);
			if (p[d].fit_n > 12)
				fprintf(fp, " and %u more", p[d].fit_n - 12);
			fprintf(fp, ": the peak is then %s%s\n", gmp_human_bytes(p[d].peak_fit, a, sizeof(a)),
				p[d].fit_fewest ? "" : " (the search for fewer fixes stopped at its bound: fewer may do)");
		}
	}
	free(fix);
	free(p);
	return 0;
}

/* "plans": per device, its peak with every finding fixed, and with --fit the findings that reach it. */
int gmp_report__json_plans(struct gmp_jw *jw, const struct gmp_result *r, const struct gmp_fit *fit)
{
	struct gmp_plan *p;
	uint32_t *fix;
	if (plan(r, fit, &p, &fix))
		return -ENOMEM;
	gmp_jw__key(jw, "plans");
	gmp_jw__arr(jw);
	for (size_t d = 0; d < r->ndevices; d++) {
		gmp_jw__obj(jw);
		gmp_jw__ku64(jw, "device", p[d].device);
		gmp_jw__ku64(jw, "findings", p[d].findings);
		gmp_jw__ku64(jw, "redundant_left_out", p[d].pairs_left_out);
		gmp_jw__ku64(jw, "peak_bytes", p[d].peak);
		gmp_jw__ku64(jw, "peak_all_fixed_bytes", p[d].peak_all_fixed);
		if (p[d].target) {
			gmp_jw__ku64(jw, "fit_bytes", p[d].target);
			gmp_jw__key(jw, "fit_findings");
			if (p[d].fit_n == UINT32_MAX) {
				gmp_jw__null(jw);
				if (p[d].fit_capped)
					gmp_jw__kbool(jw, "fit_takes_more_than_64", 1);
			} else {
				gmp_jw__arr(jw);
				for (uint32_t k = 0; k < p[d].fit_n; k++)
					gmp_jw__u64(jw, fix[p[d].fit_off + k]);
				gmp_jw__arr_end(jw);
				gmp_jw__ku64(jw, "peak_fit_bytes", p[d].peak_fit);
				gmp_jw__kbool(jw, "fit_fewest", p[d].fit_fewest != 0);
			}
		}
		gmp_jw__obj_end(jw);
	}
	gmp_jw__arr_end(jw);
	free(fix);
	free(p);
	return 0;
}

/* The findings of one NVTX range path (that of their objects' allocation). */
struct range_group {
	uint32_t path;
	size_t findings, objects;
	uint64_t bytes, max_saving;  /* its objects' bytes (each once) */
};

static int cmp_group(const void *a, const void *b)
{
	const struct range_group *x = a, *y = b;
	if (x->max_saving != y->max_saving)
		return x->max_saving > y->max_saving ? -1 : 1;
	if (x->findings != y->findings)
		return x->findings > y->findings ? -1 : 1;
	return (x->path > y->path) - (x->path < y->path);
}

/* Groups by allocation ranges, ranked by their largest saving; NULL with *n 0 when no ranges. */
static struct range_group *by_range(const struct gmp_result *r, size_t *n, int *err)
{
	const struct gmp_trace *t = r->trace;
	*n = 0;
	*err = 0;
	if (!t->ev_range || !r->nfindings)
		return NULL;
	struct range_group *g = calloc(t->npaths + 1, sizeof(*g));
	uint8_t *seen = calloc(r->nobjects ? r->nobjects : 1, 1);
	if (!g || !seen) {
		free(g);
		free(seen);
		*err = -ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < r->nfindings; i++) {
		const struct gmp_finding *f = &r->findings[i];
		const struct gmp_object *o = &r->objects[f->object];
		struct range_group *x = &g[t->ev_range[o->alloc_ev]];
		x->path = t->ev_range[o->alloc_ev];
		x->findings++;
		if (!seen[f->object]) { /* an object is in one group: its allocation's */
			seen[f->object] = 1;
			x->objects++;
			x->bytes += o->size;
		}
		x->max_saving = f->saving > x->max_saving ? f->saving : x->max_saving;
	}
	free(seen);
	size_t k = 0;
	for (size_t p = 0; p <= t->npaths; p++)
		if (g[p].findings)
			g[k++] = g[p];
	qsort(g, k, sizeof(*g), cmp_group);
	*n = k;
	return g;
}

int gmp_report__by_range(FILE *fp, const struct gmp_result *r)
{
	size_t n;
	int err;
	struct range_group *g = by_range(r, &n, &err);
	if (!g)
		return err;
	char rg[256], a[32], b[32], cnt[64];
	size_t shown = n < 10 ? n : 10;
	fprintf(fp, "\nFindings by the NVTX ranges that allocated their objects");
	if (shown < n)
		fprintf(fp, " (the first %zu of %zu)", shown, n);
	fprintf(fp, "\n");
	for (size_t i = 0; i < shown; i++) {
		snprintf(cnt, sizeof(cnt), "%zu finding%s on %zu object%s", g[i].findings,
			 g[i].findings == 1 ? "" : "s", g[i].objects, g[i].objects == 1 ? "" : "s");
		fprintf(fp, "  %-26s %10s", cnt, gmp_human_bytes(g[i].bytes, a, sizeof(a)));
		if (g[i].max_saving)
			fprintf(fp, "  saves up to %s", gmp_human_bytes(g[i].max_saving, b, sizeof(b)));
		fprintf(fp, "  in %s\n", g[i].path ? gmp_trace__range_text(r->trace, g[i].path, rg, sizeof(rg))
						    : "(no range)");
	}
	free(g);
	return 0;
}

int gmp_report__json_by_range(struct gmp_jw *jw, const struct gmp_result *r)
{
	size_t n;
	int err;
	struct range_group *g = by_range(r, &n, &err);
	if (!g)
		return err;
	gmp_jw__key(jw, "by_range");
	gmp_jw__arr(jw);
	for (size_t i = 0; i < n; i++) {
		const uint32_t *names;
		size_t k = gmp_trace__range_path(r->trace, g[i].path, &names);
		gmp_jw__obj(jw);
		gmp_jw__key(jw, "ranges");
		gmp_jw__arr(jw);
		for (size_t j = 0; j < k; j++)
			gmp_jw__str(jw, gmp_trace__str(r->trace, names[j], NULL));
		gmp_jw__arr_end(jw);
		gmp_jw__ku64(jw, "findings", g[i].findings);
		gmp_jw__ku64(jw, "objects", g[i].objects);
		gmp_jw__ku64(jw, "bytes", g[i].bytes);
		gmp_jw__ku64(jw, "max_saving_bytes", g[i].max_saving);
		gmp_jw__obj_end(jw);
	}
	gmp_jw__arr_end(jw);
	free(g);
	return 0;
}

/* The same two sections as HTML: a paragraph per device, and a table of the ranges. */
int gmp_report__html(FILE *fp, const struct gmp_result *r)
{
	if (!r->ndevices || !r->nfindings)
		return 0;
	struct gmp_plan *p = calloc(r->ndevices, sizeof(*p));
	if (!p || gmp_result__plan(r, NULL, p, NULL)) {
		free(p);
		return -ENOMEM;
	}
	char a[32], b[32], rg[256];
	fprintf(fp, "<h2>Fixing findings together</h2>\n<ul>");
	for (size_t d = 0; d < r->ndevices; d++) {
		if (p[d].findings)
			fprintf(fp, "<li>device %u: with all %u of its findings that free memory fixed, the peak is "
				"%s (now %s)", p[d].device, p[d].findings,
				gmp_human_bytes(p[d].peak_all_fixed, a, sizeof(a)), gmp_human_bytes(p[d].peak, b, sizeof(b)));
		else
			fprintf(fp, "<li>device %u: none of its findings has a fix known to free memory", p[d].device);
		if (p[d].pairs_left_out)
			fprintf(fp, "; not counting its %u redundant allocation%s", p[d].pairs_left_out,
				p[d].pairs_left_out == 1 ? "" : "s");
		fprintf(fp, "</li>\n");
	}
	fprintf(fp, "</ul>\n");
	free(p);
	size_t n;
	int err;
	struct range_group *g = by_range(r, &n, &err);
	if (!g)
		return err;
	fprintf(fp, "<h2>Findings by NVTX range</h2>\n<table><thead><tr><th>ranges (of the allocation)</th>"
		"<th>findings</th><th>objects</th><th>bytes</th><th>saves up to</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < n; i++) {
		fprintf(fp, "<tr><td>");
		gmp_text__markup(fp, g[i].path ? gmp_trace__range_text(r->trace, g[i].path, rg, sizeof(rg))
					       : "(no range)");
		fprintf(fp, "</td><td class=\"n\">%zu</td><td class=\"n\">%zu</td><td class=\"n\">%s</td>"
			"<td class=\"n\">%s</td></tr>\n", g[i].findings, g[i].objects,
			gmp_human_bytes(g[i].bytes, a, sizeof(a)),
			g[i].max_saving ? gmp_human_bytes(g[i].max_saving, b, sizeof(b)) : "-");
	}
	fprintf(fp, "</tbody></table>\n");
	free(g);
	return 0;
}

void gmp_report__notes(FILE *fp, int json, const struct gmp_symnotes *sn, const struct gmp_source *src)
{
	if (gmp_symnotes__any(sn)) {
		if (!json)
			fputc('\n', fp);
		gmp_symnotes__print(sn, json ? stderr : fp, json ? "gmprof report: " : "");
	}
	if (!json)
		gmp_source__note(src, fp, "\n");
}

int gmp_report__notes_html(FILE *fp, const struct gmp_symnotes *sn, const struct gmp_source *src)
{
	char *text = NULL; /* the text report's lines, each made an item */
	size_t len = 0;
	FILE *ms = open_memstream(&text, &len);
	if (!ms)
		return -ENOMEM;
	if (gmp_symnotes__any(sn))
		gmp_symnotes__print(sn, ms, "");
	gmp_source__note(src, ms, "");
	if (fclose(ms)) {
		free(text);
		return -ENOMEM;
	}
	if (len)
		fprintf(fp, "<h2>Notes</h2>\n<ul>\n");
	for (char *line = len ? text : NULL; line && *line;) {
		char *nl = strchr(line, '\n'); /* every line the notes print ends with one; a last without is a line too */
		if (nl)
			*nl = 0;
		fprintf(fp, "<li>");
		gmp_text__markup(fp, strncmp(line, "note: ", 6) ? line : line + 6);
		fprintf(fp, "</li>\n");
		line = nl ? nl + 1 : NULL;
	}
	if (len)
		fprintf(fp, "</ul>\n");
	free(text);
	return 0;
}
