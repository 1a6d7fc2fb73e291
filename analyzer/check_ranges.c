// SPDX-License-Identifier: MIT
/*
 * gmprof check --max-range-peak GLOB=BUDGET: a budget for the memory a
 * phase of the program needs.  Each NVTX range whose path ("outer >
 * inner") matches GLOB has its peak on each device (rangemem.h: the most
 * live bytes right after a call made inside it) held to BUDGET, in bytes
 * or as a share of the device's memory.  --max-range-growth GLOB=BUDGET
 * holds instead what its times left behind: how many more bytes were live
 * as its latest time began than as its first did (a training step that
 * keeps memory each iteration).  A rule that matches no range fails: the
 * gate would otherwise pass a program that stopped pushing the range, or
 * a run whose collector was not NVTX's tool.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "check.h"
#include "cli.h"
#include "cmds.h"
#include "findings_json.h"
#include "nvtx_domains.h"
#include "nvtx_fold.h"
#include "rangemem.h"
#include "session.h"

int gmp_range_budget__parse(const char *arg, int growth, struct gmp_range_budget *b)
{
	const char *eq = strrchr(arg, '=');
	memset(b, 0, sizeof(*b));
	b->growth = growth;
	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(b->glob) || gmp_cli__budget(eq + 1, &b->bytes, &b->pct))
		return -EINVAL;
	memcpy(b->glob, arg, (size_t)(eq - arg));
	return 0;
}

static int by_excess(const void *x, const void *y)
{
	const struct gmp_range_over *a = x, *b = y;
	uint64_t ea = a->peak - a->budget, eb = b->peak - b->budget;
	if (ea != eb)
		return ea > eb ? -1 : 1;
	int c = strcmp(a->path, b->path);
	return c ? c : (a->device > b->device) - (a->device < b->device);
}

uint64_t gmp_range_budget__bytes(const struct gmp_range_budget *b, const struct gmp_trace *t, uint32_t device)
{
	return b->pct > 0 ? gmp_trace__device_share_bytes(t, device, b->pct) : b->bytes;
}

int gmp_range_budget__eval(const struct gmp_result *r, const struct gmp_range_budget *rules, size_t n,
			   struct gmp_range_eval *ev)
{
	memset(ev, 0, sizeof(*ev));
	if (!(ev->matched = calloc(n ? n : 1, sizeof(*ev->matched))) ||
	    !(ev->largest = calloc(n ? n : 1, sizeof(*ev->largest))))
		return -ENOMEM;
	struct gmp_rmem m;
	int err = gmp_rmem__build(r, &m);
	size_t cap = 0;
	for (size_t i = 0; !err && i < m.ntree; i++) {
		char path[sizeof(ev->over->path)];
		gmp_rmem__path(&m, r, m.tree[i], path, sizeof(path));
		for (size_t k = 0; k < n && !err; k++) {
			if (fnmatch(rules[k].glob, path, 0))
				continue;
			for (size_t d = 0; d < m.ndev && !err; d++) {
				const struct gmp_rmem_dev *x = gmp_rmem__at(&m, m.tree[i], d);
				uint32_t dev = r->devices[d].device;
				uint64_t budget = gmp_range_budget__bytes(&rules[k], r->trace, dev);
				if (!x->calls)
					continue;
				uint64_t val = rules[k].growth ? gmp_rmem__growth(x) : x->peak;
				ev->matched[k]++;
				ev->largest[k] = val > ev->largest[k] ? val : ev->largest[k];
				if (val <= budget)
					continue;
				if (ev->nover == cap) {
					struct gmp_range_over *v = realloc(ev->over, (cap = cap ? 2 * cap : 8) * sizeof(*v));
					if (!v) {
						err = -ENOMEM;
						break;
					}
					ev->over = v;
				}
				struct gmp_range_over *o = &ev->over[ev->nover++];
				*o = (struct gmp_range_over){ .device = dev, .peak_ev = x->peak_ev, .peak = val,
							      .budget = budget, .times = x->times, .rule = k,
							      .node = m.tree[i], .d = (uint32_t)d };
				snprintf(o->path, sizeof(o->path), "%s", path);
			}
		}
	}
	gmp_rmem__release(&m);
	if (!err && ev->nover)
		qsort(ev->over, ev->nover, sizeof(*ev->over), by_excess);
	return err;
}

void gmp_range_eval__release(struct gmp_range_eval *ev)
{
	free(ev->over);
	free(ev->matched);
	free(ev->largest);
	memset(ev, 0, sizeof(*ev));
}

const char *gmp_range_budget__text(const struct gmp_range_budget *b, char *buf, size_t n)
{
	char a[32];
	if (b->pct > 0)
		snprintf(buf, n, "'%s' <= %g%% of each device's memory", b->glob, b->pct);
	else
		snprintf(buf, n, "'%s' <= %s", b->glob, gmp_human_bytes(b->bytes, a, sizeof(a)));
	return buf;
}

/* Under a range that grew: where what its times kept was allocated (m NULL: out of memory, said). */
static void kept_line(struct gmp_check *c, struct gmp_sites *sites, const struct gmp_result *r,
		      const struct gmp_rmem *m, uint32_t node, uint32_t d)
{
	struct gmp_rmem_kept kp = { 0 };
	char text[1024], line[1100];
	int err = m ? gmp_rmem__kept_sites(sites, r, m, node, d, &kp) : -ENOMEM;
	if (err)
		gmp_check__more(c, "    (out of memory finding what its times kept)");
	else if (kp.objects) {
		snprintf(line, sizeof(line), "    %s", gmp_rmem_kept__text(&kp, 3, text, sizeof(text)));
		gmp_check__more(c, line);
	}
	gmp_rmem_kept__release(&kp);
}

/* One of the two checks: the budgets of rules of its kind (growth) on g's run. */
static void range_gate(struct gmp_gate *g, const struct gmp_range_budget *rules, size_t n, int growth)
{
	const struct gmp_result *r = g->s->r;
	const char *name = growth ? "max_range_growth" : "max_range_peak", *what = growth ? " growth" : "";
	struct gmp_range_eval ev;
	if (gmp_range_budget__eval(r, rules, n, &ev)) {
		gmp_gate__add(g, name, 1, "out of memory evaluating the NVTX ranges");
		gmp_range_eval__release(&ev);
		return;
	}
	size_t unmatched = 0, nover = 0;
	for (size_t k = 0; k < n; k++)
		unmatched += rules[k].growth == growth && !ev.matched[k];
	for (size_t i = 0; i < ev.nover; i++)
		nover += rules[ev.over[i].rule].growth == growth;
	char line[1024], rt[300], a[64], b[64], api[160];
	struct gmp_check *c;
	if (nover || unmatched) {
		char over[64] = "", un[64] = "";
		if (nover)
			snprintf(over, sizeof(over), "%zu NVTX range%s over %s", nover, nover == 1 ? "" : "s",
				 !growth ? "budget" : nover == 1 ? "its growth budget" : "their growth budgets");
		if (unmatched)
			snprintf(un, sizeof(un), "%s%zu budget%s matched no range", nover ? "; " : "", unmatched,
				 unmatched == 1 ? "" : "s");
		c = gmp_gate__add(g, name, 1, "%s%s", over, un);
	} else {
		size_t len = 0;
		line[0] = 0;
		for (size_t k = 0; k < n && len < sizeof(line); k++) {
			if (rules[k].growth != growth)
				continue;
			int w = snprintf(line + len, sizeof(line) - len, "%s%s: %zu matched (the largest %s)", len ? "; " : "",
					 gmp_range_budget__text(&rules[k], rt, sizeof(rt)), ev.matched[k],
					 gmp_human_bytes(ev.largest[k], a, sizeof(a)));
			len += w > 0 ? (size_t)w : 0;
		}
		c = gmp_gate__add(g, name, 0, "every NVTX range within its%s budget: %s", what, line);
	}
	struct gmp_rmem m = { 0 }; /* where growth budgets failed: for what each range kept */
	int merr = growth && nover ? gmp_rmem__build(r, &m) : 0;
	for (size_t i = 0, shown = 0; i < ev.nover && shown < 20; i++) {
		const struct gmp_range_over *o = &ev.over[i];
		if (rules[o->rule].growth != growth)
			continue;
		gmp_gate__two_sizes(o->peak, o->budget, a, b, sizeof(a));
		if (growth) {
			snprintf(line, sizeof(line), "  %s on device %u: began the last of its %llu times with %s more live "
				 "than the first > %s (%s)", o->path, o->device, (unsigned long long)o->times, a, b,
				 gmp_range_budget__text(&rules[o->rule], rt, sizeof(rt)));
		} else {
			const char *site = gmp_sites__event(&g->s->sites, o->peak_ev, NULL);
			snprintf(line, sizeof(line), "  %s on device %u: %s > %s (%s), reached at %s%s%s", o->path, o->device,
				 a, b, gmp_range_budget__text(&rules[o->rule], rt, sizeof(rt)),
				 gmp_result__api_label(r, o->peak_ev, api, sizeof(api)), site ? " at " : "", site ? site : "");
		}
		gmp_check__more(c, line);
		if (growth)
			kept_line(c, &g->s->sites, r, merr ? NULL : &m, o->node, o->d);
		shown++;
	}
	gmp_rmem__release(&m);
	if (nover > 20) {
		snprintf(line, sizeof(line), "  ... and %zu more", nover - 20);
		gmp_check__more(c, line);
	}
	gmp_check__unmatched(c, r->trace, 1, rules, n, growth, ev.matched);
	gmp_range_eval__release(&ev);
}

int gmp_check__fresh_names(struct gmp_check *c, const struct gmp_trace *t, int ranges, size_t fresh)
{
	char note[1024], line[1200];
	int err = fresh ? gmp_nvtx_fold__note(t, ranges, note, sizeof(note)) : 0;
	if (!err && fresh && *note) {
		snprintf(line, sizeof(line), "  names new in this run are not compared, and these carry numbers: %s, "
			 "given to gmprof baseline and check alike", note);
		gmp_check__more(c, line);
	}
	return err;
}

void gmp_check__unmatched(struct gmp_check *c, const struct gmp_trace *t, int ranges,
			  const struct gmp_range_budget *rules, size_t n, int growth, const size_t *matched)
{
	const char *what = ranges ? "range" : "mark", *does = ranges ? "push" : "mark";
	for (size_t k = 0; k < n; k++) {
		char hint[600], line[1024];
		if (rules[k].growth != growth || matched[k])
			continue;
		if (*gmp_nvtx_fold__hint(t, ranges, rules[k].glob, hint, sizeof(hint)))
			snprintf(line, sizeof(line), "  no NVTX %s matches '%s': its names carry numbers, which --nvtx-numbers "
				 "folds (%s)", what, rules[k].glob, hint);
		else if (*gmp_nvtx_domains__left_out_names(t, hint, sizeof(hint)))
			snprintf(line, sizeof(line), "  no NVTX %s matches '%s' (the run left out NVTX domains when it was "
				 "recorded: %s; is it theirs?)", what, rules[k].glob, hint);
		else
			snprintf(line, sizeof(line), "  no NVTX %s matches '%s' (does the program %s it, and was the "
				 "collector NVTX's tool? gmprof run makes it so)", what, rules[k].glob, does);
		gmp_check__more(c, line);
	}
}

void gmp_gate__range_peaks(struct gmp_gate *g, const struct gmp_range_budget *rules, size_t n)
{
	int kinds[2] = { 0, 0 };
	for (size_t k = 0; k < n; k++)
		kinds[rules[k].growth != 0] = 1;
	for (int growth = 0; growth < 2; growth++)
		if (kinds[growth])
			range_gate(g, rules, n, growth);
}

/*
 * Against the baseline: what the devices' ranges did, and a line for each
 * whose peak grew (into lines); of the ranges entered more than once, in
 * the run or in a baseline that has their times (version 5), what they
 * kept from their first time to their last, and a line for each that kept
 * more (into glines).
 */
struct grown {
	size_t compared, failed, fresh, gone, devices_without;
	FILE *lines;
	size_t loops, kept_more; /* ranges whose times were compared; those that kept more */
	FILE *glines;
	struct gmp_sites *sites; /* to name where what they kept was allocated */
};

int gmp_range__growth_compared(const struct gmp_rmem_dev *x, const struct gmp_baseline_range *br, double pct,
			       uint64_t abs, uint64_t *allowed)
{
	*allowed = gmp_baseline__allowed(br->grew_bytes, pct, abs);
	return x->times > 1 || br->times > 1; /* entered once in both: nothing kept from one time to the next */
}

/*
 * Where the baseline knows what its times kept (version 6): what they kept
 * from each of the run's (up to three) sites, "none from train.cu:42".
 */
static void kept_in_baseline(FILE *fp, struct gmp_sites *sites, const struct gmp_rmem_kept *kp,
			     const struct gmp_baseline_range *br)
{
	fprintf(fp, "\n    the baseline's times kept:");
	for (size_t i = 0; i < kp->nsites && i < 3; i++) {
		const struct gmp_rmem_kept_site *k = &kp->sites[i];
		uint64_t was = gmp_baseline__kept_bytes(br, k->site, k->named ? 0 : gmp_sites__event_key(sites, k->alloc_ev));
		char b[32], one[1024];
		fprintf(fp, "%s %s from %s", i ? "," : "", was ? gmp_human_bytes(was, b, sizeof(b)) : "none",
			gmp_oneline(k->site, one, sizeof(one)));
	}
}

/* Node k (path) of the run on device index d against its baseline br: did its times keep more than br allows? */
static void range_kept(const struct gmp_result *r, const struct gmp_rmem *m, uint32_t k, size_t d,
		       const struct gmp_baseline_range *br, int base_kept, const char *path, double pct, uint64_t abs,
		       struct grown *gr)
{
	const struct gmp_rmem_dev *x = gmp_rmem__at(m, k, d);
	uint32_t device = r->devices[d].device;
	uint64_t now = gmp_rmem__growth(x), allowed;
	if (!gmp_range__growth_compared(x, br, pct, abs, &allowed))
		return;
	gr->loops++;
	if (now <= allowed)
		return;
	gr->kept_more++;
	char a[64], b[32], e[64], one[4096];
	gmp_gate__two_sizes(now, allowed, a, e, sizeof(a));
	fprintf(gr->glines, "\n  %s on device %u: began the last of its %llu times with %s more live than the first; "
		"the baseline's, %s over %llu time%s (allowed up to %s)", gmp_oneline(path, one, sizeof(one)), device,
		(unsigned long long)x->times, a, gmp_human_bytes(br->grew_bytes, b, sizeof(b)),
		(unsigned long long)br->times, br->times == 1 ? "" : "s", e);
	struct gmp_rmem_kept kp;
	char text[1024];
	if (gmp_rmem__kept_sites(gr->sites, r, m, k, d, &kp))
		fprintf(gr->glines, "\n    (out of memory finding what its times kept)");
	else if (kp.objects) {
		fprintf(gr->glines, "\n    %s", gmp_rmem_kept__text(&kp, 3, text, sizeof(text)));
		if (base_kept)
			kept_in_baseline(gr->glines, gr->sites, &kp, br);
	}
	gmp_rmem_kept__release(&kp);
}

/* Device index d's ranges in m against the baseline's peak pc->base. */
static void range_growth(const struct gmp_result *r, const struct gmp_rmem *m, size_t d, const struct gmp_peak_cmp *pc,
			 double pct, uint64_t abs, struct grown *gr)
{
	const struct gmp_baseline_peak *bp = pc->base;
	char path[4096], a[64], b[32], e[64];
	size_t seen = 0;
	for (size_t i = 0; d < m->ndev && i < m->ntree; i++) {
		const struct gmp_rmem_dev *x = gmp_rmem__at(m, m->tree[i], d);
		if (!x->calls)
			continue;
		const struct gmp_baseline_range *br = gmp_baseline__range(bp, gmp_rmem__path(m, r, m->tree[i], path, sizeof(path)));
		if (!br) {
			gr->fresh++;
			continue;
		}
		seen++;
		gr->compared++;
		if (bp->growth)
			range_kept(r, m, m->tree[i], d, br, bp->kept, path, pct, abs, gr);
		uint64_t allowed = gmp_baseline__allowed(br->peak_bytes, pct, abs);
		if (x->peak <= allowed)
			continue;
		gr->failed++;
		gmp_gate__two_sizes(x->peak, allowed, a, e, sizeof(a));
		char one[4096]; /* a line each: a name's line break escaped */
		fprintf(gr->lines, "\n  %s on device %u: %s, the baseline's %s (allowed up to %s)",
			gmp_oneline(path, one, sizeof(one)), pc->device, a, gmp_human_bytes(br->peak_bytes, b, sizeof(b)), e);
	}
	gr->gone += bp->nranges - seen;
	if (!seen)
		fprintf(gr->lines, "\n  device %u: none of the baseline's %zu NVTX ranges is in this run (does the "
			"program still push them, and was the collector NVTX's tool?)", pc->device, bp->nranges);
	gr->devices_without += !seen;
}

/* Each line of text (len bytes, each line after a line break) as a line of c. */
static void more_lines(struct gmp_check *c, char *text, size_t len)
{
	for (char *l = text && len ? text + 1 : NULL, *nl; l; l = nl ? nl + 1 : NULL) {
		if ((nl = strchr(l, '\n')))
			*nl = 0;
		gmp_check__more(c, l);
	}
}

void gmp_gate__baseline_ranges(struct gmp_gate *g, const struct gmp_peak_cmp *cmps, size_t ncmps, double pct,
			       uint64_t abs)
{
	const struct gmp_result *r = g->s->r;
	size_t with = 0, loops = 0;
	for (size_t i = 0; i < ncmps; i++) {
		const struct gmp_baseline_peak *bp = cmps[i].base;
		with += bp && bp->nranges;
		for (size_t k = 0; bp && bp->growth && k < bp->nranges; k++)
			loops += bp->ranges[k].times > 1;
	}
	if (!with)
		return; /* the baseline has no ranges (or none of these devices'): nothing to compare */
	struct gmp_rmem m;
	char *text = NULL, *gtext = NULL;
	size_t len = 0, glen = 0;
	struct grown gr = { .lines = open_memstream(&text, &len), .glines = open_memstream(&gtext, &glen),
			    .sites = &g->s->sites };
	int err = gr.lines && gr.glines ? gmp_rmem__build(r, &m) : (memset(&m, 0, sizeof(m)), -ENOMEM);
	for (size_t i = 0; !err && i < ncmps; i++)
		if (cmps[i].base && cmps[i].base->nranges)
			range_growth(r, &m, gmp_result__device_index(r, cmps[i].device), &cmps[i], pct, abs, &gr);
	gmp_rmem__release(&m);
	if (gr.lines && fclose(gr.lines))
		err = -ENOMEM;
	if (gr.glines && fclose(gr.glines))
		err = -ENOMEM;
	char tail[128] = "";
	if (gr.fresh || gr.gone)
		snprintf(tail, sizeof(tail), " (%zu new in this run, %zu of the baseline's not in it)", gr.fresh, gr.gone);
	struct gmp_check *c =
		err ? gmp_gate__add(g, "baseline:range_peak", 1, "out of memory comparing the NVTX ranges")
		: gr.failed ? gmp_gate__add(g, "baseline:range_peak", 1, "%zu of %zu NVTX ranges grew past the baseline%s",
					    gr.failed, gr.compared, tail)
		: gr.devices_without ? gmp_gate__add(g, "baseline:range_peak", 1, "%zu device%s without the baseline's "
						     "NVTX ranges%s", gr.devices_without, gr.devices_without == 1 ? "" : "s", tail)
		: gmp_gate__add(g, "baseline:range_peak", 0, "%zu NVTX range%s within the baseline's peaks%s", gr.compared,
				gr.compared == 1 ? "" : "s", tail);
	more_lines(c, err ? NULL : text, len);
	free(text);
	if (!err && gmp_check__fresh_names(c, r->trace, 1, gr.fresh))
		gmp_check__more(c, "  (out of memory reading the NVTX names)");
	if (loops || gr.loops) { /* the baseline has loops' growth, or the run loops where the baseline did not */
		c = err ? gmp_gate__add(g, "baseline:range_growth", 1, "out of memory comparing the NVTX ranges")
		: gr.kept_more ? gmp_gate__add(g, "baseline:range_growth", 1, "%zu of %zu NVTX ranges entered more than once "
					       "kept more from their first time to their last than the baseline's",
					       gr.kept_more, gr.loops)
		: gmp_gate__add(g, "baseline:range_growth", 0, "%zu NVTX range%s entered more than once, none keeping more "
				"from its first time to its last than the baseline's", gr.loops, gr.loops == 1 ? "" : "s");
		more_lines(c, err ? NULL : gtext, glen);
	}
	free(gtext);
}
