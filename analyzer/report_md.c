// SPDX-License-Identifier: MIT
/*
 * gmprof report --format markdown: the report as GitHub Markdown, to paste
 * into an issue or a pull request, or to write to a CI job's summary page:
 * the run, each device's peak with what was live there, allocations that
 * ran out of memory, and the findings ranked by what fixing them saves, a
 * table row each with its fix.  Names from the program are code spans
 * (markdown.c), read back as themselves.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "cmds.h"
#include "findings_json.h"
#include "frameworks.h"
#include "markdown.h"
#include "marks.h"
#include "memtime.h"
#include "rangemem.h"
#include "session.h"
#include "source.h"

/* Without --top, the findings listed stop here (a pull request comment holds 64 KiB). */
#define MD_TOP 50

static void meta_row(FILE *fp, const char *key, const char *value, int code)
{
	fprintf(fp, "| %s | ", key);
	if (code)
		gmp_md__code(fp, value, 1);
	else
		gmp_md__text(fp, value);
	fputs(" |\n", fp);
}

static void run_table(FILE *fp, struct gmp_session *s)
{
	const struct gmp_trace *t = s->in.trace;
	const struct gmp_result *r = s->r;
	char buf[160];
	fputs("| run | |\n|---|---|\n", fp);
	for (const char *const *k = gmp_report__run_keys; *k; k++) {
		const char *v = gmp_trace__meta(t, *k);
		if (v && *v)
			meta_row(fp, *k, v, !strcmp(*k, "command"));
	}
	for (size_t i = 0; i < r->ndevices; i++) {
		char key[16];
		snprintf(key, sizeof(key), "device %u", r->devices[i].device);
		if (gmp_text__device(t, r->devices[i].device, buf, sizeof(buf)))
			meta_row(fp, key, buf, 0);
	}
	for (size_t i = 0; i < r->ndevices; i++) {
		char w[256];
		if (gmp_text__pool_words(t, r->devices[i].device, w, sizeof(w)))
			meta_row(fp, "pools", w, 0);
	}
	snprintf(buf, sizeof(buf), "%zu (%" PRIu64 " GPU APIs), %zu objects", t->nev, r->napis, r->nobjects);
	meta_row(fp, "events", buf, 0);
	const char *own = gmp_trace__meta(t, "collector_device_peak");
	char ob[32];
	if (own && *own) {
		snprintf(buf, sizeof(buf), "held at most %s of device memory (not in the peaks)",
			 gmp_human_bytes(strtoull(own, NULL, 10), ob, sizeof(ob)));
		meta_row(fp, "gmprof", buf, 0);
	}
	char head[256], parts[512], both[1024];
	int st = gmp_report__self_time_words(t, head, sizeof(head), parts, sizeof(parts));
	if (st) {
		snprintf(both, sizeof(both), "%s%s%s", st < 0 ? gmp_report__self_time_malformed : head,
			 st > 0 && *parts ? "; of which " : "", st > 0 ? parts : "");
		meta_row(fp, "time", both, 0);
	}
	if (gmp_report__capture_words(t, both, sizeof(both)))
		meta_row(fp, "capture", both, 0);
	if (gmp_report__graph_words(r, both, sizeof(both)))
		meta_row(fp, "graphs", both, 0);
	if (gmp_tmaps__words(t, both, sizeof(both)))
		meta_row(fp, "tensor maps", both, 0);
	if (gmp_report__shared_words(r, both, sizeof(both)))
		meta_row(fp, "shared", both, 0);
	const char *status = t->damaged || t->truncated ? "**INCOMPLETE**: the profile is cut off or damaged; what came before is reported"
			     : s->in.is_profile && !t->ended ? "**INCOMPLETE**: the program did not reach its end (crashed or killed)"
			     : "complete";
	fprintf(fp, "| status | %s |\n", status);
	if (gmp_input__alloc_mode(t))
		fputs("| note | alloc mode: peaks and leaks only, no kernel accesses |\n", fp);
	fputc('\n', fp);
}

static void peaks_md(FILE *fp, struct gmp_session *s)
{
	const struct gmp_result *r = s->r;
	char a[32], b[32], api[160], name[160], share[80];
	fputs("### Peaks\n\n", fp);
	if (!r->npeaks) {
		fputs("No device memory was allocated.\n\n", fp);
		return;
	}
	fputs("| device | peak | reached at | site | live objects |\n|---|---|---|---|---|\n", fp);
	for (size_t p = 0; p < r->npeaks; p++) {
		const struct gmp_peak *pk = &r->peaks[p];
		gmp_trace__device_share(s->in.trace, pk->device, pk->bytes, share, sizeof(share));
		fprintf(fp, "| %u | %s%s%s%s | ", pk->device, gmp_human_bytes(pk->bytes, a, sizeof(a)), *share ? " (" : "",
			share, *share ? ")" : "");
		gmp_md__text(fp, gmp_result__api_label(r, pk->ev, api, sizeof(api)));
		fputs(" | ", fp);
		gmp_md__code(fp, gmp_sites__event(&s->sites, pk->ev, NULL), 1);
		fprintf(fp, " | %u |\n", pk->obj_n);
	}
	for (size_t i = 0; i < r->ndevices; i++)
		if (r->devices[i].inuse_peak_bytes)
			fprintf(fp, "| %u | %s in use | (pools counted by their NVTX regions) | | |\n", r->devices[i].device,
				gmp_human_bytes(r->devices[i].inuse_peak_bytes, a, sizeof(a)));
	fputc('\n', fp);
	/* What was live at each device's largest peak: the largest objects. */
	for (size_t i = 0; i < r->ndevices; i++) {
		const struct gmp_peak *pk = gmp_result__top_peak(r, r->devices[i].device);
		if (!pk || !pk->obj_n)
			continue;
		fprintf(fp, "Live at device %u's peak:\n\n| object | size | allocated at |\n|---|---|---|\n", pk->device);
		for (uint32_t k = 0; k < pk->obj_n && k < 8; k++) {
			uint32_t obj = r->peak_objs[pk->obj_off + k];
			fputs("| ", fp);
			gmp_md__code(fp, gmp_result__object_name(r, obj, name, sizeof(name)), 1);
			fprintf(fp, " | %s%s | ", gmp_human_bytes(r->objects[obj].size, b, sizeof(b)),
				r->objects[obj].kind == GMP_MEM_ARRAY ? " (CUDA array)" : "");
			const char *site = gmp_sites__event(&s->sites, r->objects[obj].alloc_ev, NULL), *code;
			char line[512];
			gmp_md__code(fp, site, 1);
			if ((code = gmp_source__line(s->src, site, line, sizeof(line)))) { /* the line that allocated it */
				fputs("<br>", fp);
				gmp_md__code(fp, code, 1);
			}
			fputs(" |\n", fp);
		}
		if (pk->obj_n > 8)
			fprintf(fp, "\n... and %u more (`gmprof report` lists them by allocation site)\n", pk->obj_n - 8);
		fputc('\n', fp);
	}
}

/* Allocations that ran out of memory: the text report's lines, in a code block. */
static int failures_md(FILE *fp, struct gmp_session *s)
{
	const struct gmp_result *r = s->r;
	if (!r->nfails_total)
		return 0;
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (!mem)
		return -ENOMEM;
	for (size_t i = 0; i < r->nfailures; i++)
		gmp_text__failure(mem, r, i, &s->sites, "");
	if (fclose(mem)) {
		free(text);
		return -ENOMEM;
	}
	fprintf(fp, "### Allocations that ran out of memory: %zu", r->nfails_total);
	char note[64];
	if (r->nfails_total > r->nfailures)
		fprintf(fp, " (the first %zu shown%s)", r->nfailures, gmp_text__unrecorded(r, note, sizeof(note)));
	fputs("\n\n", fp);
	gmp_md__block(fp, text);
	free(text);
	return 0;
}

static void findings_md(FILE *fp, struct gmp_session *s, uint32_t top)
{
	const struct gmp_result *r = s->r;
	size_t max = top ? top : MD_TOP, n = r->nfindings < max ? r->nfindings : max;
	fprintf(fp, "### Findings: %zu, ranked by what fixing them saves at the peak\n\n", r->nfindings);
	if (s->sup.suppressed) {
		fprintf(fp, "(%zu more suppressed by ", s->sup.suppressed);
		gmp_md__code(fp, s->sup.path, 0);
		fputs(")\n\n", fp);
	}
	if (r->nsmall) {
		char b[32];
		fprintf(fp, "(%zu more on objects under %s: `--min-size`)\n\n", r->nsmall,
			gmp_human_bytes(r->min_bytes, b, sizeof(b)));
	}
	if (r->nmanaged)
		fprintf(fp, "(%zu more on managed objects, whose use by the host is not seen: `--managed-gpu-only`)\n\n",
			r->nmanaged);
	if (r->nshared)
		fprintf(fp, "(%zu more on memory shared between processes, whose use by the other process is not seen)\n\n",
			r->nshared);
	if (!n)
		return;
	fputs("| # | pattern | object | size | saves at the peak | allocated at | fix |\n"
	      "|---|---|---|---|---|---|---|\n", fp);
	for (size_t i = 0; i < n; i++) {
		const struct gmp_finding *f = &r->findings[i];
		const struct gmp_object *o = &r->objects[f->object];
		char name[160], a[32], b[32], fix[768];
		fprintf(fp, "| %zu | %s | ", i + 1, gmp_pattern__name(f->pattern));
		gmp_md__code(fp, gmp_result__object_name(r, f->object, name, sizeof(name)), 1);
		fprintf(fp, " | %s | %s%s | ", gmp_human_bytes(o->size, a, sizeof(a)),
			f->saving ? gmp_human_bytes(f->saving, b, sizeof(b)) : "-",
			f->saving && gmp_finding__in_use(r, f) ? " in use" : "");
		const char *site = gmp_sites__event(&s->sites, o->alloc_ev, NULL), *code;
		gmp_md__code(fp, site, 1);
		if ((code = gmp_source__line(s->src, site, fix, sizeof(fix)))) { /* the line that allocated it */
			fputs("<br>", fp);
			gmp_md__code(fp, code, 1);
		}
		fputs(" | ", fp);
		gmp_md__text(fp, gmp_result__suggestion(r, f, fix, sizeof(fix)));
		if (*gmp_findings__waited(r, s->clock, f, fix, sizeof(fix))) {
			fputs(" (", fp);
			gmp_md__text(fp, fix);
			fputc(')', fp);
		}
		fputs(" |\n", fp);
	}
	if (n < r->nfindings)
		fprintf(fp, "\n... and %zu more (`--top N` shows N; the text and JSON formats list all)\n",
			r->nfindings - n);
	fputc('\n', fp);
}

int gmp_report__markdown(FILE *fp, struct gmp_session *s, uint32_t top)
{
	fputs("## gmprof report: ", fp);
	gmp_md__code(fp, s->name, 0);
	fputs("\n\n", fp);
	run_table(fp, s);
	peaks_md(fp, s);
	const struct gmp_clock *clock;
	int err = gmp_session__clock(s, &clock);
	if (!err)
		err = gmp_memtime__markdown(fp, s->r, clock);
	if (!err)
		err = gmp_rmem__markdown(fp, s->r, &s->sites, 16);
	if (!err)
		err = gmp_mmem__markdown(fp, s->r, &s->sites, 16);
	if (!err)
		err = failures_md(fp, s);
	if (err)
		return err;
	findings_md(fp, s, top);
	return ferror(fp) ? -EIO : 0;
}
