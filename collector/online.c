// SPDX-License-Identifier: MIT
/*
 * The online detector: the collector keeps each event it records in a trace
 * of its own as well (rec_online_add, up to GMPROF_ONLINE_EVENTS), and at a
 * clean exit runs the detector on it (rec_online), writes its findings
 * into the profile and prints the summary on standard error.  Lock held.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "collector.h"
#include "demangle.h"
#include "findings_json.h"
#include "gmprof/detect.h"
#include "markmem.h"
#include "nvtx_fold.h"
#include "oneline.h"
#include "rangemem_core.h"

void rec_online_lost(void)
{
	gmp_trace__free(gmp_col.trace);
	gmp_col.trace = NULL;
	rec_say("out of memory for the online analysis; the profile is still written");
}

void rec_online_capped(const char *what)
{
	gmp_trace__free(gmp_col.trace);
	gmp_col.trace = NULL;
	rec_say("more than %u %s: the online analysis stops here (GMPROF_ONLINE_EVENTS); "
		"run 'gmprof report %s' after the program ends", gmp_col.opts.online_events, what, gmp_col.path);
}

void rec_online_mark(uint32_t tid, uint64_t host_ns, const char *name)
{
	if (!gmp_col.trace)
		return;
	if (gmp_col.trace->nmarks >= gmp_col.opts.online_events) {
		rec_online_capped("NVTX marks");
		return;
	}
	uint32_t id = gmp_trace__intern_cstr(gmp_col.trace, name);
	if (!id || gmp_trace__add_mark(gmp_col.trace, tid, host_ns, id))
		rec_online_lost(); /* keep recording */
}

/* The online trace gets the same event at the same index. */
void rec_online_add(const struct gmp_event *e, const char *name, int64_t idx)
{
	if (!gmp_col.trace)
		return;
	struct gmp_event te = *e;
	te.stack = 0;
	te.name = name ? gmp_trace__intern_cstr(gmp_col.trace, name) : 0;
	if ((name && !te.name) || gmp_trace__add_event(gmp_col.trace, &te, NULL, 0, NULL, 0) != idx) {
		rec_online_lost(); /* keep recording */
	}
}

/*
 * The NVTX ranges that began their last time with more live than their
 * first (a training step that keeps memory each iteration), the most
 * first, 3 at most: a line each on stderr.
 */
static void ranges_grown(const struct gmp_result *r)
{
	struct gmp_rmem m;
	struct gmp_rmem_grown *v = NULL;
	size_t n = 0;
	if (gmp_rmem__build(r, &m) || gmp_rmem__grown(&m, &v, &n)) {
		fprintf(stderr, "==gmprof== out of memory finding the NVTX ranges that grew\n");
		gmp_rmem__release(&m);
		return;
	}
	for (size_t i = 0; i < n && i < 3; i++) {
		char line[2400];
		fprintf(stderr, "==gmprof== NVTX range %s\n", gmp_rmem__grown_line(&m, r, &v[i], line, sizeof(line)));
	}
	if (n > 3)
		fprintf(stderr, "==gmprof== ... and %zu more NVTX ranges grew\n", n - 3);
	free(v);
	gmp_rmem__release(&m);
}

/* The NVTX mark names whose last mark found more live than their first, the most first, 3 at most. */
static void marks_grown(const struct gmp_result *r)
{
	struct gmp_mmem m;
	struct gmp_mmem_grown *v = NULL;
	size_t n = 0;
	if (gmp_mmem__build(r, &m) || gmp_mmem__grown(&m, &v, &n)) {
		fprintf(stderr, "==gmprof== out of memory finding the NVTX marks that grew\n");
		gmp_mmem__release(&m);
		return;
	}
	for (size_t i = 0; i < n && i < 3; i++) {
		const struct gmp_mmem_dev *x = gmp_mmem__at(&m, v[i].g, v[i].d);
		char one[200], a[32], b[32];
		fprintf(stderr, "==gmprof== NVTX mark %s on device %u: live bytes grew from %s (the first of its %" PRIu64
			" marks) to %s (the last)\n", gmp_oneline(gmp_trace__str(r->trace, m.group[v[i].g].name, NULL), one,
			sizeof(one)), r->devices[v[i].d].device, gmp_human_bytes(x->first, a, sizeof(a)),
			m.group[v[i].g].times, gmp_human_bytes(x->last, b, sizeof(b)));
	}
	if (n > 3)
		fprintf(stderr, "==gmprof== ... and %zu more NVTX marks grew\n", n - 3);
	free(v);
	gmp_mmem__release(&m);
}

/*
 * GMPROF_NVTX_NUMBERS, GMPROF_NVTX_STRIP: the trace's NVTX names folded
 * for the summary, after the profile has its findings as the names were.
 */
static void fold_names(void)
{
	struct gmp_nvtx_fold f;
	char why[160];
	const char *strip = gmp_col.opts.nvtx_strip[0] ? gmp_col.opts.nvtx_strip : NULL;
	if (!gmp_col.opts.nvtx_numbers && !strip)
		return;
	if (gmp_nvtx_fold__init(&f, strip, gmp_col.opts.nvtx_numbers, why, sizeof(why))) { /* checked at start */
		rec_say("GMPROF_NVTX_STRIP: %s; the summary has the NVTX names as given", why);
		return;
	}
	if (gmp_nvtx_fold__trace(&f, gmp_col.trace))
		rec_say("out of memory folding the NVTX names; the summary has them as given");
	gmp_nvtx_fold__release(&f);
}

/* The online detector's verdict: into the profile, and a summary on stderr. */
void rec_online(void)
{
	struct gmp_result *r = NULL;
	struct gmp_detect_error de;
	struct gmp_detect_opts o;
	gmp_detect_opts__defaults(&o);
	o.demangle = gmp_demangle; /* the summary names kernels as the program's source does */
	o.accesses_unknown = gmp_col.opts.mode == GMP_COLLECT_ALLOC; /* no patches: leaks only */
	/* In-kernel heap ops were recorded when their launch was read back: put them beside it. */
	int err = gmp_trace__place_heap_ops(gmp_col.trace);
	if (!err)
		err = gmp_trace__settle_ranges(gmp_col.trace); /* 0 or -ENOMEM */
	if (err) {
		rec_say("the online analysis failed (%s); 'gmprof report %s' may say more",
			err == -ENOMEM ? "out of memory" : "an in-kernel heap event names no launch",
			gmp_col.path);
		return;
	}
	if (gmp_detect(gmp_col.trace, &o, &r, &de)) {
		rec_say("the online analysis failed (%s); 'gmprof report %s' may say more",
			de.msg, gmp_col.path);
		return;
	}
	struct gmp_jw jw;
	gmp_jw__init(&jw, NULL, 0);
	/* The profile keeps the top findings as the online verdict; gmprof recomputes them all. */
	struct gmp_findings_opts fo = { .max_findings = 10000, .max_ranges = 8 };
	gmp_findings__json(&jw, r, &fo);
	if (!jw.err && gmp_writer__findings(gmp_col.w, jw.buf, jw.len))
		rec_write_failed(-EIO);
	gmp_jw__release(&jw);
	if (!gmp_col.opts.summary) {
		gmp_result__free(r);
		return;
	}
	fold_names(); /* the summary's NVTX names, as GMPROF_NVTX_NUMBERS and GMPROF_NVTX_STRIP ask */
	char a[32], b[32], name[160], sugg[768], one[200], sone[900];
	fprintf(stderr, "==gmprof== %zu GPU memory events, %zu objects; profile: %s\n",
		gmp_col.trace->nev, r->nobjects, gmp_col.path);
	for (size_t i = 0; i < r->ndevices; i++) {
		fprintf(stderr, "==gmprof== device %u peak: %s", r->devices[i].device,
			gmp_human_bytes(r->devices[i].peak_bytes, a, sizeof(a)));
		char share[80]; /* as reports give it */
		if (*gmp_trace__device_share(gmp_col.trace, r->devices[i].device, r->devices[i].peak_bytes, share,
					     sizeof(share)))
			fprintf(stderr, " (%s)", share);
		const struct gmp_peak *pk = gmp_result__top_peak(r, r->devices[i].device);
		char rg[256], rg1[300];
		if (pk && *gmp_trace__event_range_text(gmp_col.trace, pk->ev, rg, sizeof(rg)))
			fprintf(stderr, " (in %s)", gmp_oneline(rg, rg1, sizeof(rg1))); /* the NVTX ranges at the peak */
		if (r->devices[i].inuse_peak_bytes) /* pools with NVTX regions */
			fprintf(stderr, "; in use at most %s",
				gmp_human_bytes(r->devices[i].inuse_peak_bytes, b, sizeof(b)));
		fputc('\n', stderr);
	}
	if (gmp_col.dev_peak)
		fprintf(stderr, "==gmprof== gmprof held at most %s of device memory itself (not in the peaks)\n",
			gmp_human_bytes(gmp_col.dev_peak, a, sizeof(a)));
	if (gmp_col.opts.capture) { /* how many launches the capture range let it monitor */
		size_t all = 0, off = 0;
		for (size_t i = 0; i < gmp_col.trace->nev; i++) {
			all += gmp_col.trace->ev[i].op == GMP_OP_KERNEL;
			off += gmp_result__unknown_launch(r, (uint32_t)i);
		}
		fprintf(stderr, "==gmprof== capture (GMPROF_CAPTURE=%s): %zu of %zu kernel launches monitored",
			gmp_col.opts.capture_value, all - off, all);
		if (gmp_col.opts.patch_at == GMP_PATCH_AT_RANGE) /* patching.c */
			fprintf(stderr, "; %" PRIu64 " module unpatches after it", gmp_col.unpatches);
		fputc('\n', stderr);
	}
	oom_summary(r);
	size_t per[GMP_PAT_COUNT] = { 0 };
	for (size_t i = 0; i < r->nfindings; i++)
		per[r->findings[i].pattern]++;
	fprintf(stderr, "==gmprof== FINDINGS: %zu", r->nfindings);
	for (unsigned p = 0, first = 1; p < GMP_PAT_COUNT; p++)
		if (per[p]) {
			fprintf(stderr, "%s%s %zu", first ? " (" : ", ", gmp_pattern__name(p), per[p]);
			first = 0;
		}
	fprintf(stderr, "%s\n", r->nfindings ? ")" : "");
	if (r->nmanaged)
		fprintf(stderr, "==gmprof== %zu more on managed objects, whose use by the host is not seen "
			"(gmprof report --managed-gpu-only %s)\n", r->nmanaged, gmp_col.path);
	if (r->nshared)
		fprintf(stderr, "==gmprof== %zu more on memory shared between processes, whose use by the other process is "
			"not seen\n", r->nshared);
	/* How long each one's memory waited, by the host's clock (none: the top findings as they are). */
	struct gmp_clock *clock = NULL;
	if (r->nfindings && gmp_clock__new(r, &clock) == -ENOMEM)
		clock = NULL;
	for (size_t i = 0; i < r->nfindings && i < 5; i++) {
		const struct gmp_finding *f = &r->findings[i];
		char w[160];
		fprintf(stderr, "==gmprof==   %zu. %s: %s (%s)", i + 1, gmp_pattern__name(f->pattern),
			gmp_oneline(gmp_result__object_name(r, f->object, name, sizeof(name)), one, sizeof(one)),
			gmp_human_bytes(r->objects[f->object].size, a, sizeof(a)));
		if (*gmp_findings__waited(r, clock, f, w, sizeof(w)))
			fprintf(stderr, ", %s", w);
		if (f->saving)
			fprintf(stderr, ", saves %s at the peak%s",
				gmp_human_bytes(f->saving, b, sizeof(b)), gmp_finding__in_use(r, f) ? " in use" : "");
		fprintf(stderr, ": %s\n", gmp_oneline(gmp_result__suggestion(r, f, sugg, sizeof(sugg)), sone, sizeof(sone)));
	}
	ranges_grown(r);
	marks_grown(r);
	fprintf(stderr, "==gmprof== full report: gmprof report %s\n", gmp_col.path);
	gmp_clock__free(clock);
	gmp_result__free(r);
}
