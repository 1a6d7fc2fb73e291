// SPDX-License-Identifier: MIT
/*
 * `gmprof report`: what a person reads, in the spirit of heaptrack_print
 * and ms_print -- the run, the peaks and what was live at each, an ASCII
 * plot of live bytes over the topological order, and the findings ranked
 * by what fixing them saves, each with its object, call path, source
 * lines and suggestion.  --format json gives the machine form, with a
 * stable fingerprint per finding.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "baseline.h"
#include "bysite.h"
#include "across.h"
#include "kernels_from.h"
#include "memtime.h"
#include "marks.h"
#include "rangemem.h"
#include "session.h"
#include "source.h"

static const char usage[] =
	"Usage: gmprof report [options] INPUT...\n"
	"\n"
	"Print a report of a profile or an event script: the run, its memory peaks,\n"
	"a plot of live bytes, memory over time (the bytes live on average and the\n"
	"share that waited, by the host's clock), and the findings ranked by what\n"
	"fixing them saves.\n"
	"Several inputs (an MPI job's ranks) are reported one after the other, then\n"
	"a line each (peak, findings, top saving, leaked, and the NVTX range and mark\n"
	"name that grew most from their first time to their last) and their findings grouped\n"
	"by fingerprint (as baselines match them: on how many inputs, and the\n"
	"largest saving); in JSON, as an array of their documents.\n"
	"\n"
	"Options:\n"
	"  -f, --format text|json|markdown\n"
	"                           output format (text); markdown (GitHub's) to paste\n"
	"                           into an issue or a pull request\n"
	"      --pretty             indent the JSON\n"
	"      --summary            only the inputs' lines and their findings by fingerprint\n"
	"  -n, --top N              findings shown (all)\n"
	"      --fit BYTES          the findings (few, chosen greedily) whose fixes bring each\n"
	"                           device's peak to BYTES (K, M, G, KiB, MiB, GiB), or to P%\n"
	"                           of its memory\n"
	"      --symbols DIR        look for the profile's binaries in DIR (by file name)\n"
	GMP_SOURCE_HELP
	"  -o, --output FILE        write to FILE instead of standard output\n"
	"      --force              replace FILE if it exists\n"
	"  -h, --help               show this help\n"
	"\n"
	GMP_DETECT_HELP
	"\n"
	"EXAMPLES\n"
	"  gmprof report app.gmprof\n"
	"  gmprof report --top 5 --symbols ./build app.gmprof\n"
	"  gmprof report --symbols ./build --source-dir ~/src/app app.gmprof   # built elsewhere\n"
	"  gmprof report --format json app.gmprof > findings.json\n"
	"  gmprof report --top 3 prof.*.gmprof\n"
	"  gmprof report --summary prof.*.gmprof   # 64 ranks: what to fix on how many of them\n"
	"  gmprof report --fit 40GiB app.gmprof\n"
	"  gmprof report --fit 90% app.gmprof   # what to fix to leave a tenth of each GPU free\n";

struct report {
	struct gmp_session *s;    /* the input being written */
	const char *format;
	int pretty;
	uint32_t top;
	struct gmp_fit fit;       /* --fit: the peak to plan for (none: 0) */
	struct gmp_inputs in;
	struct gmp_source *src;   /* source lines (text and Markdown), or NULL */
	int summary;              /* --summary: the inputs' table and their findings by fingerprint alone */
};

/* " at file:line in outer > inner": where the host issued ev, and inside which NVTX ranges. */
/* " at SITE in RANGES" of call ev, whose site (NULL: none) the caller looked up. */
static const char *at_text(struct gmp_session *s, uint32_t ev, const char *site, char *buf, size_t n)
{
	char rg[256];
	gmp_trace__event_range_text(s->in.trace, ev, rg, sizeof(rg));
	snprintf(buf, n, "%s%s%s%s", site ? " at " : "", site ? site : "", *rg ? " in " : "", rg);
	return buf;
}

/* Under a call's line: the source line its site names, where --source-dir's rules let it be read. */
static void source_line(FILE *fp, struct gmp_session *s, const char *site, int indent)
{
	char buf[512];
	const char *code = gmp_source__line(s->src, site, buf, sizeof(buf));
	if (code)
		fprintf(fp, "%*s| %s\n", indent, "", code);
}

/* A finding's call: "LEAD API at SITE in RANGES", then its source line (the site looked up once). */
static void call_line(FILE *fp, struct gmp_session *s, const char *lead, uint32_t ev)
{
	char api[160], at[512], e1[200], e2[600];
	const char *site = gmp_sites__event(&s->sites, ev, NULL);
	fprintf(fp, "     %s %s%s\n", lead,
		gmp_oneline(gmp_result__api_label(s->r, ev, api, sizeof(api)), e1, sizeof(e1)),
		gmp_oneline(at_text(s, ev, site, at, sizeof(at)), e2, sizeof(e2)));
	source_line(fp, s, site, 7);
}

/* At a peak, its live bytes by the NVTX ranges their objects were allocated in (the largest first). */
static void peak_by_range(FILE *fp, const struct gmp_result *r, const struct gmp_peak *pk)
{
	const struct gmp_trace *t = r->trace;
	struct { uint32_t path; uint64_t bytes; } g[8];
	size_t ng = 0;
	uint64_t other = 0;
	for (uint32_t k = 0; k < pk->obj_n; k++) {
		const struct gmp_object *o = &r->objects[r->peak_objs[pk->obj_off + k]];
		uint32_t path = t->ev_range[o->alloc_ev];
		size_t i = 0;
		while (i < ng && g[i].path != path)
			i++;
		if (i == ng && ng < 8) {
			g[i].path = path;
			g[i].bytes = 0;
			ng++;
		}
		if (i < ng)
			g[i].bytes += o->size;
		else
			other += o->size;
	}
	for (size_t i = 1; i < ng; i++) /* a handful: insertion sort by bytes */
		for (size_t j = i; j > 0 && g[j].bytes > g[j - 1].bytes; j--) {
			__typeof__(g[0]) x = g[j];
			g[j] = g[j - 1];
			g[j - 1] = x;
		}
	char rg[256], b[32];
	fprintf(fp, "    allocated in NVTX ranges:");
	for (size_t i = 0; i < ng; i++)
		fprintf(fp, "%s %s %s", i ? "," : "", g[i].path ? gmp_trace__range_text(t, g[i].path, rg, sizeof(rg)) : "(none)",
			gmp_human_bytes(g[i].bytes, b, sizeof(b)));
	if (other)
		fprintf(fp, ", others %s", gmp_human_bytes(other, b, sizeof(b)));
	fputc('\n', fp);
}

/* A peak of many objects: its live bytes by allocation site, the most first. */
static void peak_by_site(FILE *fp, struct gmp_session *s, const struct gmp_peak *pk)
{
	struct gmp_bysite b;
	char a[32];
	if (gmp_bysite__peak(&s->sites, s->r, pk, &b)) {
		fprintf(fp, "    (out of memory grouping them by allocation site)\n");
		return;
	}
	fprintf(fp, "    by allocation site:\n");
	for (size_t i = 0; i < b.n && i < 8; i++)
		fprintf(fp, "      %10s %3.0f%%  %zu object%s at %s\n", gmp_human_bytes(b.g[i].bytes, a, sizeof(a)),
			pk->bytes ? 100.0 * (double)b.g[i].bytes / (double)pk->bytes : 0.0, b.g[i].findings,
			b.g[i].findings == 1 ? "" : "s", b.g[i].site);
	if (b.n > 8)
		fprintf(fp, "      ... and %zu more sites\n", b.n - 8);
	gmp_bysite__release(&b);
}

static void peaks(FILE *fp, struct gmp_session *s)
{
	const struct gmp_result *r = s->r;
	char a[32], b[32], api[160], at[512], name[160], share[80];
	fprintf(fp, "\nPeaks\n");
	if (!r->ndevices)
		fprintf(fp, "  no device memory was allocated\n");
	for (size_t p = 0; p < r->npeaks; p++) {
		const struct gmp_peak *pk = &r->peaks[p];
		gmp_trace__device_share(s->in.trace, pk->device, pk->bytes, share, sizeof(share));
		fprintf(fp, "  device %u: %s%s%s%s at %s%s\n", pk->device,
			gmp_human_bytes(pk->bytes, a, sizeof(a)), *share ? " (" : "", share, *share ? ")" : "",
			gmp_result__api_label(r, pk->ev, api, sizeof(api)), at_text(s, pk->ev, gmp_sites__event(&s->sites, pk->ev, NULL), at, sizeof(at)));
		for (uint32_t k = 0; k < pk->obj_n && k < 8; k++) {
			uint32_t obj = r->peak_objs[pk->obj_off + k];
			const char *site = gmp_sites__event(&s->sites, r->objects[obj].alloc_ev, NULL);
			gmp_result__object_name(r, obj, name, sizeof(name));
			if (r->objects[obj].kind == GMP_MEM_ARRAY) /* no address of it reaches a report otherwise */
				strncat(name, " (CUDA array)", sizeof(name) - strlen(name) - 1);
			fprintf(fp, "    %-24s %10s%s\n", name,
				gmp_human_bytes(r->objects[obj].size, b, sizeof(b)),
				at_text(s, r->objects[obj].alloc_ev, site, at, sizeof(at)));
			source_line(fp, s, site, 6);
		}
		if (pk->obj_n > 8) {
			fprintf(fp, "    ... and %u more\n", pk->obj_n - 8);
			peak_by_site(fp, s, pk);
		}
		if (r->trace->ev_range)
			peak_by_range(fp, r, pk);
	}
	for (size_t i = 0; i < r->ndevices; i++)
		if (r->devices[i].inuse_peak_bytes)
			fprintf(fp, "  device %u: at most %s in use (pools counted by their regions)\n",
				r->devices[i].device, gmp_human_bytes(r->devices[i].inuse_peak_bytes, a, sizeof(a)));
	for (size_t i = 0; i < r->ndevices; i++)
		gmp_text__pools(fp, r->trace, r->devices[i].device, "  ");
}

/* Each allocation that ran out of memory: what was live, what the fixes free then, where. */
static void failures(FILE *fp, struct gmp_session *s)
{
	const struct gmp_result *r = s->r;
	const struct gmp_trace *t = r->trace;
	if (!r->nfails_total)
		return;
	fprintf(fp, "\nAllocations that ran out of memory: %zu", r->nfails_total);
	char note[64];
	if (r->nfails_total > r->nfailures)
		fprintf(fp, " (the first %zu shown%s)", r->nfailures, gmp_text__unrecorded(r, note, sizeof(note)));
	if (s->sup.suppressed_failures)
		fprintf(fp, " (%zu more suppressed by %s)", s->sup.suppressed_failures, s->sup.path);
	fprintf(fp, "\n");
	for (size_t i = 0; i < r->nfailures; i++) {
		gmp_text__failure(fp, r, i, &s->sites, "  ");
		const struct gmp_alloc_failure *f = &t->fails[r->failures[i].fail];
		if (!f->stack || !s->sym)
			continue;
		struct gmp_frame frames[16];
		char buf[768];
		size_t n = gmp_symbolizer__stack(s->sym, f->stack, frames, 16);
		if (n)
			fprintf(fp, "    call path:\n");
		for (size_t k = 0; k < n; k++)
			fprintf(fp, "      %s\n", gmp_frame__format(&frames[k], buf, sizeof(buf)));
	}
}

static void finding(FILE *fp, struct gmp_session *s, const struct gmp_finding *f, size_t i)
{
	const struct gmp_result *r = s->r;
	const struct gmp_object *o = &r->objects[f->object];
	char a[32], b[32], c[32], name[160], one[200], buf[768];
	fprintf(fp, "\n%3zu. %s: %s (%s)\n", i + 1, gmp_pattern__name(f->pattern),
		gmp_oneline(gmp_result__object_name(r, f->object, name, sizeof(name)), one, sizeof(one)),
		gmp_human_bytes(o->size, a, sizeof(a)));
	char m[160], w[160];
	fprintf(fp, "     %s", gmp_text__metric(f, m, sizeof(m)));
	if (*gmp_findings__waited(r, s->clock, f, w, sizeof(w)))
		fprintf(fp, ", %s", w);
	if (f->saving)
		fprintf(fp, "; saves %s at the peak%s (%s -> %s)", gmp_human_bytes(f->saving, a, sizeof(a)),
			gmp_finding__in_use(r, f) ? " in use" : "",
			gmp_human_bytes(gmp_finding__peak_before(r, f), b, sizeof(b)),
			gmp_human_bytes(gmp_finding__peak_after(r, f), c, sizeof(c)));
	else if (gmp_finding__frees_memory(f))
		/* Its fix frees memory, only not at the peak, or not while the other objects there stay. */
		fprintf(fp, "; alone, saves nothing at the peak%s", gmp_finding__in_use(r, f) ? " in use" : "");
	else if (f->pattern == GMP_PAT_MEMORY_LEAK)
		fprintf(fp, "; what freeing it saves at the peak is not known (nor is its last use)");
	fputc('\n', fp);
	call_line(fp, s, "allocated by", o->alloc_ev);
	if (f->ev_a != GMP_NO_EVENT && f->ev_a != o->alloc_ev)
		call_line(fp, s, "from", f->ev_a);
	if (f->ev_b != GMP_NO_EVENT)
		call_line(fp, s, "to  ", f->ev_b);
	char fix[900];
	fprintf(fp, "     fix: %s\n", gmp_oneline(gmp_result__suggestion(r, f, buf, sizeof(buf)), fix, sizeof(fix)));
	const struct gmp_event *e = &r->trace->ev[o->alloc_ev];
	if (e->stack && s->sym) {
		struct gmp_frame frames[16];
		size_t n = gmp_symbolizer__stack(s->sym, e->stack, frames, 16);
		if (n)
			fprintf(fp, "     allocation call path:\n");
		for (size_t k = 0; k < n; k++)
			fprintf(fp, "       %s\n", gmp_frame__format(&frames[k], buf, sizeof(buf)));
	}
}

/* Where one fix covers many findings: sites that hold two or more (the largest groups). */
static int by_site(FILE *fp, struct gmp_session *s)
{
	struct gmp_bysite b;
	if (gmp_bysite__build(&s->sites, s->r, &b))
		return -12; /* ENOMEM */
	if (b.largest >= 2) {
		size_t n = b.n < 10 ? b.n : 10;
		fprintf(fp, "\nFindings by allocation site");
		if (n < b.n)
			fprintf(fp, " (the first %zu of %zu)", n, b.n);
		fprintf(fp, "\n");
		for (size_t i = 0; i < n; i++) {
			const struct gmp_site_group *g = &b.g[i];
			char bytes[32], save[32], cnt[32];
			snprintf(cnt, sizeof(cnt), "%zu finding%s", g->findings, g->findings == 1 ? "" : "s");
			fprintf(fp, "  %-28s %14s %10s", gmp_pattern__name(g->pattern), cnt,
				gmp_human_bytes(g->bytes, bytes, sizeof(bytes)));
			if (g->max_saving)
				fprintf(fp, "  saves up to %s", gmp_human_bytes(g->max_saving, save, sizeof(save)));
			fprintf(fp, "  at %s\n", g->site);
		}
	}
	gmp_bysite__release(&b);
	return 0;
}

static int text_one(FILE *fp, struct report *rp)
{
	struct gmp_session *s = rp->s;
	const struct gmp_result *r = s->r;
	gmp_report__header(fp, s);
	peaks(fp, s);
	failures(fp, s);
	for (size_t d = 0; d < r->ndevices; d++) {
		gmp_text__plot(fp, r, r->devices[d].device, r->curve, r->ncurve, 0);
		if (r->devices[d].inuse_peak_bytes)
			gmp_text__plot(fp, r, r->devices[d].device, r->inuse_curve, r->ninuse_curve, 1);
	}
	const struct gmp_clock *clock;
	int err = gmp_session__clock(s, &clock);
	if (!err)
		err = gmp_memtime__text(fp, r, clock);
	if (!err)
		err = gmp_rmem__text(fp, r, &s->sites, 16);
	if (!err)
		err = gmp_mmem__text(fp, r, &s->sites, 16);
	if (!err)
		err = gmp_report__plans(fp, rp->s->r, &rp->fit);
	if (!err)
		err = gmp_report__by_range(fp, rp->s->r);
	if (!err)
		err = by_site(fp, s);
	if (err)
		return err;
	size_t n = rp->top && rp->top < r->nfindings ? rp->top : r->nfindings;
	fprintf(fp, "\nFindings: %zu", r->nfindings);
	if (n < r->nfindings)
		fprintf(fp, " (the top %zu shown)", n);
	if (s->sup.suppressed)
		fprintf(fp, " (%zu more suppressed by %s)", s->sup.suppressed, s->sup.path);
	if (r->nsmall) {
		char b[32];
		fprintf(fp, " (%zu more on objects under %s: --min-size)", r->nsmall,
			gmp_human_bytes(r->min_bytes, b, sizeof(b)));
	}
	if (r->nmanaged)
		fprintf(fp, " (%zu more on managed objects, whose use by the host is not seen: --managed-gpu-only)",
			r->nmanaged);
	if (r->nshared)
		fprintf(fp, " (%zu more on memory shared between processes, whose use by the other process is not seen)",
			r->nshared);
	if (rp->in.so.ranges)
		fprintf(fp, " (of the objects allocated in NVTX ranges matching '%s')", rp->in.so.ranges);
	fprintf(fp, ", ranked by what fixing them saves at the peak\n");
	for (size_t i = 0; i < n; i++)
		finding(fp, s, &r->findings[i], i);
	return ferror(fp) ? -5 /* EIO */ : 0;
}

/*
 * What the report adds to the findings document: the run's gaps, gmprof's
 * own memory, how the NVTX names were folded (--nvtx-numbers, --nvtx-strip), plans, findings and memory by NVTX range, memory at NVTX
 * marks, "by_site" (every group of findings by allocation site and pattern,
 * ranked) and "peak_sites".
 */
static void report_json_extra(void *ctx, struct gmp_jw *jw, const struct gmp_result *r)
{
	struct report *rp = ctx;
	gmp_report__json_run(jw, r);
	if (rp->in.so.nvtx_numbers || rp->in.so.nvtx_strip) { /* the NVTX names below were folded so */
		gmp_jw__key(jw, "nvtx_names");
		gmp_jw__obj(jw);
		gmp_jw__kbool(jw, "numbers", rp->in.so.nvtx_numbers);
		if (rp->in.so.nvtx_strip)
			gmp_jw__kstr(jw, "strip", rp->in.so.nvtx_strip);
		gmp_jw__obj_end(jw);
	}
	struct gmp_bysite b;
	if (gmp_report__json_plans(jw, r, &rp->fit) || gmp_report__json_by_range(jw, r) || gmp_rmem__json(jw, r, &rp->s->sites) ||
	    gmp_mmem__json(jw, r, &rp->s->sites) ||
	    gmp_memtime__json(jw, rp->s->clock) ||
	    gmp_bysite__build(&rp->s->sites, r, &b)) {
		jw->err = -ENOMEM;
		return;
	}
	gmp_jw__key(jw, "by_site");
	gmp_jw__arr(jw);
	for (size_t i = 0; i < b.n; i++) {
		gmp_jw__obj(jw);
		gmp_jw__kstr(jw, "site", b.g[i].site);
		gmp_jw__kstr(jw, "pattern", gmp_pattern__name(b.g[i].pattern));
		gmp_jw__ku64(jw, "findings", b.g[i].findings);
		gmp_jw__ku64(jw, "bytes", b.g[i].bytes);
		gmp_jw__ku64(jw, "max_saving_bytes", b.g[i].max_saving);
		gmp_jw__obj_end(jw);
	}
	gmp_jw__arr_end(jw);
	gmp_bysite__release(&b);
	/* "peak_sites": each peak's live bytes by allocation site, as the text report and HTML show them. */
	gmp_jw__key(jw, "peak_sites");
	gmp_jw__arr(jw);
	for (size_t p = 0; p < r->npeaks && !jw->err; p++) {
		if (gmp_bysite__peak(&rp->s->sites, r, &r->peaks[p], &b)) {
			jw->err = -ENOMEM;
			return;
		}
		gmp_jw__obj(jw);
		gmp_jw__ku64(jw, "device", r->peaks[p].device);
		gmp_jw__ku64(jw, "bytes", r->peaks[p].bytes);
		gmp_jw__key(jw, "sites");
		gmp_jw__arr(jw);
		for (size_t i = 0; i < b.n; i++) {
			gmp_jw__obj(jw);
			gmp_jw__kstr(jw, "site", b.g[i].site);
			gmp_jw__ku64(jw, "objects", b.g[i].findings);
			gmp_jw__ku64(jw, "bytes", b.g[i].bytes);
			gmp_jw__obj_end(jw);
		}
		gmp_jw__arr_end(jw);
		gmp_jw__obj_end(jw);
		gmp_bysite__release(&b);
	}
	gmp_jw__arr_end(jw);
}

static int json_one(struct gmp_jw *jw, struct report *rp)
{
	struct gmp_findings_opts o;
	gmp_sites__findings_opts(&rp->s->sites, &o);
	o.input = rp->s->name;
	o.top_extra = report_json_extra;
	o.top_ctx = rp;
	o.max_findings = (int)(rp->top > INT32_MAX ? INT32_MAX : rp->top);
	if (gmp_session__clock(rp->s, &o.clock))
		return -ENOMEM;
	gmp_findings__json(jw, rp->s->r, &o);
	return jw->err;
}

/*
 * Every input in turn, one session open at a time: text reports one after
 * the other, or JSON (an array of the documents when there are several).
 * A bad input abandons the output after saying why.
 */

/* What writing several reports carries from one input to the next. */
struct writing {
	struct report *rp;
	FILE *fp;
	struct gmp_jw *jw;        /* JSON, or NULL: text or Markdown */
	struct gmp_across *across;    /* text or Markdown of several inputs (or --summary): the closing summary */
};

static int write_one(struct gmp_session *s, size_t i, void *ctx)
{
	struct writing *w = ctx;
	struct report *rp = w->rp;
	int err;
	if (!gmp_report__shares_known("report", s->name, s->r, "--fit", rp->fit.pct))
		return GMP_OUTPUT_ABANDON;
	rp->s = s;
	s->src = rp->src;
	if (w->jw) {
		err = json_one(w->jw, rp);
	} else if (rp->summary) {
		err = 0;
	} else {
		if (i)
			fputc('\n', w->fp);
		err = strcmp(rp->format, "markdown") ? text_one(w->fp, rp) : gmp_report__markdown(w->fp, s, rp->top);
	}
	if (!err && w->across)
		err = gmp_across__add(w->across, i, s);
	rp->s = NULL;
	return err;
}

/*
 * Every input in turn: text reports one after the other (and a line each at
 * the end), or JSON (an array of the documents when there are several).
 * A bad input abandons the output after saying why.
 */
static int write_reports(FILE *fp, void *ctx)
{
	struct report *rp = ctx;
	int json = !strcmp(rp->format, "json"), several = rp->in.n > 1;
	struct gmp_jw jw;
	struct writing w = { .rp = rp, .fp = fp, .jw = json ? &jw : NULL };
	if ((several || rp->summary) && !json && gmp_across__new(rp->in.n, &w.across))
		return -ENOMEM;
	if (json) {
		gmp_jw__init(&jw, fp, rp->pretty);
		if (several)
			gmp_jw__arr(&jw);
	}
	int err = gmp_session__each(&rp->in, write_one, &w);
	const char *const *names = (const char *const *)rp->in.v;
	if (w.across && !err)
		err = strcmp(rp->format, "markdown") ? gmp_across__text(fp, w.across, names, rp->top) :
						       gmp_across__markdown(fp, w.across, names, rp->top);
	gmp_across__free(w.across);
	if (!err)
		err = gmp_source__error(rp->src); /* a source line left out for want of memory */
	if (!err)
		gmp_report__notes(fp, json, rp->in.so.notes, rp->src);
	if (!json)
		return err ? err : ferror(fp) ? -EIO : 0;
	if (several)
		gmp_jw__arr_end(&jw);
	gmp_jw__raw(&jw, "\n", 1);
	int ferr = gmp_jw__finish(&jw);
	return err ? err : ferr;
}

int cmd_report(int argc, char **argv)
{
	enum { O_PRETTY = OPT_CMD_BASE, O_FIT, O_SUMMARY };
	static const struct option longopts[] = {
		{ "format", required_argument, 0, 'f' }, { "pretty", no_argument, 0, O_PRETTY },
		{ "top", required_argument, 0, 'n' }, { "symbols", required_argument, 0, OPT_SYMBOLS },
		{ "fit", required_argument, 0, O_FIT }, { "summary", no_argument, 0, O_SUMMARY },
		{ "output", required_argument, 0, 'o' }, { "force", no_argument, 0, OPT_FORCE },
		{ "help", no_argument, 0, 'h' }, GMP_DETECT_LONGOPTS, GMP_SOURCE_LONGOPTS, { 0, 0, 0, 0 },
	};
	struct gmp_cli_common cm;
	gmp_cli__common_init(&cm);
	struct report rp = { .format = "text" };
	int c, ex;
	gmp_cli__reset_getopt();
	while ((c = getopt_long(argc, argv, ":f:n:o:h", longopts, NULL)) != -1) {
		if (c == 'f') {
			rp.format = optarg;
		} else if (c == O_PRETTY) {
			rp.pretty = 1;
		} else if (c == O_SUMMARY) {
			rp.summary = 1;
		} else if (c == 'n') {
			if (gmp_cli__u32(optarg, &rp.top))
				return gmp_cli__usage_error("report", "bad value '%s' for --top", optarg);
		} else if (c == O_FIT) {
			if (gmp_cli__budget(optarg, &rp.fit.bytes, &rp.fit.pct) || (!rp.fit.bytes && !rp.fit.pct))
				return gmp_cli__usage_error("report", "bad byte count or share '%s' for --fit", optarg);
		} else if (gmp_cli__common("report", usage, c, argv, &cm, &ex) < 0) {
			return ex;
		}
	}
	if (strcmp(rp.format, "text") && strcmp(rp.format, "json") && strcmp(rp.format, "markdown"))
		return gmp_cli__usage_error("report", "unknown format '%s' (text, json or markdown)", rp.format);
	if (rp.summary && !strcmp(rp.format, "json"))
		return gmp_cli__usage_error("report", "--summary is for text and markdown: JSON holds every input's document");
	if ((ex = gmp_cli__inputs("report", argc, argv, &cm, &rp.in)))
		return ex;
	if (strcmp(rp.format, "json") && (ex = gmp_cli__source("report", &cm, &rp.src)))
		return ex;
	int rc = gmp_output__write(cm.output, cm.force, write_reports, &rp);
	gmp_source__free(rp.src);
	return rc ? GMP_EXIT_USAGE : GMP_EXIT_OK;
}
