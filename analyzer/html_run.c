// SPDX-License-Identifier: MIT
/*
 * `gmprof html`, what the page says of the run as a whole: its summary
 * (the command, devices, stream-ordered pools, what was monitored, the
 * collector's own cost, the findings' count) and the allocations that ran
 * out of memory.  The plots, lifetimes, findings and peaks are html.c's.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmds.h"
#include "frameworks.h"
#include "html.h"
#include "kernels_from.h"
#include "session.h"

/* " in outer &gt; inner": the NVTX ranges of a call, if any. */
void gmp_html__in_ranges(FILE *fp, const struct gmp_trace *t, uint32_t path)
{
	char rg[256];
	if (!*gmp_trace__range_text(t, path, rg, sizeof(rg)))
		return;
	fprintf(fp, " in ");
	gmp_text__markup(fp, rg);
}

void gmp_html__summary(FILE *fp, struct gmp_session *s)
{
	const struct gmp_trace *t = s->in.trace;
	const struct gmp_result *r = s->r;
	char a[32];
	fprintf(fp, "<dl>");
	static const char *const keys[] = { "command", "host", "device", "cuda", "mode" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *v = gmp_trace__meta(t, keys[i]);
		if (v && *v) {
			fprintf(fp, "<dt>%s</dt><dd>", keys[i]);
			gmp_text__markup(fp, v);
			fprintf(fp, "</dd>");
		}
	}
	fprintf(fp, "<dt>input</dt><dd>");
	gmp_text__markup(fp, s->name);
	fprintf(fp, "</dd><dt>events</dt><dd>%zu (%" PRIu64 " GPU APIs), %zu objects</dd>", t->nev,
		r->napis, r->nobjects);
	fprintf(fp, "<dt>peak</dt><dd>%s</dd>", gmp_human_bytes(r->peak_bytes, a, sizeof(a)));
	for (size_t i = 0; i < r->ndevices; i++) {
		char d[160];
		if (gmp_text__device(t, r->devices[i].device, d, sizeof(d))) {
			fprintf(fp, "<dt>device %u</dt><dd>", r->devices[i].device);
			gmp_text__markup(fp, d);
			fprintf(fp, "</dd>");
		}
	}
	for (size_t i = 0; i < r->ndevices; i++)
		if (r->devices[i].inuse_peak_bytes) /* pools with regions */
			fprintf(fp, "<dt>in use</dt><dd>device %u: at most %s (pools counted by their regions)</dd>",
				r->devices[i].device, gmp_human_bytes(r->devices[i].inuse_peak_bytes, a, sizeof(a)));
	for (size_t i = 0; i < r->ndevices; i++) {
		char w[256];
		if (gmp_text__pool_words(t, r->devices[i].device, w, sizeof(w))) {
			fprintf(fp, "<dt>pools</dt><dd>");
			gmp_text__markup(fp, w);
			fprintf(fp, "</dd>");
		}
	}
	const char *own = gmp_trace__meta(t, "collector_device_peak");
	if (own && *own)
		fprintf(fp, "<dt>gmprof</dt><dd>held at most %s of device memory itself (not in the peaks)</dd>",
			gmp_human_bytes(strtoull(own, NULL, 10), a, sizeof(a)));
	char head[256], parts[512];
	int st = gmp_report__self_time_words(t, head, sizeof(head), parts, sizeof(parts));
	if (st) {
		fprintf(fp, "<dt>time</dt><dd>");
		gmp_text__markup(fp, st < 0 ? gmp_report__self_time_malformed : head);
		if (st > 0 && *parts) {
			fprintf(fp, "; of which ");
			gmp_text__markup(fp, parts);
		}
		fprintf(fp, "</dd>");
	}
	char cap[1024];
	static const char *const what[] = { "capture", "graphs", "tensor maps", "shared" };
	for (int k = 0; k < 4; k++) /* what was monitored, how far graphs' kernel nodes can be told apart, TMA reads, IPC */
		if (k == 3   ? gmp_report__shared_words(r, cap, sizeof(cap))
		    : k == 2 ? gmp_tmaps__words(t, cap, sizeof(cap))
		    : k    ? gmp_report__graph_words(r, cap, sizeof(cap))
			   : gmp_report__capture_words(t, cap, sizeof(cap))) {
			fprintf(fp, "<dt>%s</dt><dd>", what[k]);
			gmp_text__markup(fp, cap);
			fprintf(fp, "</dd>");
		}
	fprintf(fp, "<dt>findings</dt><dd>%zu", r->nfindings);
	if (r->nsmall)
		fprintf(fp, " (%zu more on objects under %s: <code>--min-size</code>)", r->nsmall,
			gmp_human_bytes(r->min_bytes, a, sizeof(a)));
	if (r->nmanaged)
		fprintf(fp, " (%zu more on managed objects, whose use by the host is not seen: "
			"<code>--managed-gpu-only</code>)", r->nmanaged);
	if (r->nshared)
		fprintf(fp, " (%zu more on memory shared between processes, whose use by the other process is not seen)",
			r->nshared);
	fprintf(fp, "</dd>");
	if (gmp_kernels_from__suggested(t)) {
		const char *cmd = gmp_trace__meta(t, "command");
		fprintf(fp, "<dt>next</dt><dd>intra mode also finds overallocation and access patterns; on the "
			"kernels at this profile's peaks: <code>gmprof run --kernels-from ");
		gmp_text__markup(fp, s->name);
		fprintf(fp, " -- ");
		gmp_text__markup(fp, cmd && *cmd ? cmd : "PROGRAM");
		fprintf(fp, "</code></dd>");
	}
	fprintf(fp, "</dl>\n");
	if (t->truncated || t->damaged || (s->in.is_profile && !t->ended))
		fprintf(fp, "<p class=\"incomplete\">This profile is incomplete (%s); what it holds is reported.</p>\n",
			t->truncated || t->damaged ? "cut off or damaged" : "the program did not reach its end");
}

/* Allocations that ran out of memory: what was live, which fixes free memory then. */
void gmp_html__failures(FILE *fp, struct gmp_session *s)
{
	const struct gmp_result *r = s->r;
	if (!r->nfailures)
		return;
	fprintf(fp, "<h2>Allocations that ran out of memory</h2>\n<table><thead><tr><th>call</th>"
		"<th>asked for</th><th>device</th><th>live then</th><th>largest live</th>"
		"<th>fixes that free memory then (finding #)</th><th>they free</th><th>at</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < r->nfailures; i++) {
		const struct gmp_failure *g = &r->failures[i];
		const struct gmp_alloc_failure *f = &r->trace->fails[g->fail];
		char a[32], b[32], name[160];
		fprintf(fp, "<tr><td>");
		gmp_text__markup(fp, f->api ? gmp_trace__str(r->trace, f->api, NULL) : "allocation");
		fprintf(fp, "</td><td class=\"n\">%s", gmp_human_bytes(f->size, a, sizeof(a)));
		if (f->dev_total)
			fprintf(fp, " (%s free of %s)", gmp_human_bytes(f->dev_free, a, sizeof(a)),
				gmp_human_bytes(f->dev_total, b, sizeof(b)));
		fprintf(fp, "</td><td class=\"n\">%u</td><td class=\"n\">%s in %" PRIu64 " object%s", f->device,
			gmp_human_bytes(g->live_bytes, b, sizeof(b)), g->live_objects, g->live_objects == 1 ? "" : "s");
		uint64_t pc = gmp_trace__pool_cached(r->trace, f, g->live_bytes, NULL); /* in pools, in no object */
		if (pc)
			fprintf(fp, "; %s cached by pools", gmp_human_bytes(pc, b, sizeof(b)));
		fprintf(fp, "</td><td>");
		for (uint32_t k = 0; k < g->obj_n && k < 5; k++) {
			uint32_t o = r->fail_objs[g->obj_off + k];
			fprintf(fp, "%s", k ? ", " : "");
			gmp_text__markup(fp, gmp_result__object_name(r, o, name, sizeof(name)));
			fprintf(fp, " %s", gmp_human_bytes(r->objects[o].size, a, sizeof(a)));
		}
		fprintf(fp, "</td><td>");
		for (uint32_t k = 0; k < g->fix_n && k < 10; k++) {
			const struct gmp_failure_fix *x = &r->fail_fixes[g->fix_off + k];
			const struct gmp_finding *fd = &r->findings[x->finding];
			fprintf(fp, "%s%u %s ", k ? ", " : "", x->finding + 1, gmp_pattern__name(fd->pattern));
			gmp_text__markup(fp, gmp_result__object_name(r, fd->object, name, sizeof(name)));
		}
		const char *site = gmp_sites__failure(&s->sites, g->fail, NULL);
		fprintf(fp, "%s</td><td class=\"n\">%s</td><td><code>", g->fix_n ? "" : "none",
			gmp_human_bytes(g->freeable, a, sizeof(a)));
		gmp_text__markup(fp, site ? site : "");
		fprintf(fp, "</code>");
		gmp_html__in_ranges(fp, r->trace, f->range);
		fprintf(fp, "</td></tr>\n");
	}
	fprintf(fp, "</tbody></table>\n");
}
