// SPDX-License-Identifier: MIT
/*
 * gmprof check --max-mark GLOB=BUDGET: a budget for the memory live at a
 * moment the program names with an NVTX mark ("model loaded", "epoch"):
 * on each device, every mark whose name matches GLOB (fnmatch) held to
 * BUDGET, in bytes or as a share of the device's memory.
 * --max-mark-growth GLOB=BUDGET holds instead how many more bytes were
 * live at the last mark of a name than at its first (a loop that marks
 * each time round and keeps memory).  Live bytes: markmem.h.  A rule that
 * matches no mark fails, as a range budget does.  Against a baseline that
 * has the marks (version 7): baseline:mark_peak and baseline:mark_growth.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "check.h"
#include "cmds.h"
#include "findings_json.h"
#include "marks.h"
#include "oneline.h"
#include "rangemem.h"
#include "sarif.h"
#include "session.h"
#include "sites.h"

#define SHOWN_MAX 20 /* lines of marks over their budgets, a check */

/* A name's marks over a budget on a device. */
struct over {
	size_t g, d, rule;
	uint64_t val, budget;
};

static int by_excess(const void *x, const void *y)
{
	const struct over *a = x, *b = y;
	uint64_t ea = a->val - a->budget, eb = b->val - b->budget;
	if (ea != eb)
		return ea > eb ? -1 : 1;
	if (a->g != b->g)
		return a->g > b->g ? 1 : -1;
	return (a->d > b->d) - (a->d < b->d);
}

/* Which of group x's marks mark k is (1: its first). */
static uint64_t ordinal(const struct gmp_trace *t, const struct gmp_mmem_group *x, uint32_t k)
{
	uint64_t n = 0;
	for (uint32_t i = x->first_mark; i <= k; i++)
		n += t->marks[i].name == x->name;
	return n;
}

struct eval {
	struct over *over;   /* the largest excess first */
	size_t nover;
	size_t *matched;     /* per rule of the kind: names (per device) it matched */
	uint64_t *largest;   /* and the most (or growth) among them */
};

static int evaluate(const struct gmp_result *r, const struct gmp_mmem *m, const struct gmp_range_budget *rules,
		    size_t n, int growth, struct eval *ev)
{
	size_t cap = 0;
	if (!(ev->matched = calloc(n ? n : 1, sizeof(*ev->matched))) ||
	    !(ev->largest = calloc(n ? n : 1, sizeof(*ev->largest))))
		return -ENOMEM;
	for (size_t g = 0; g < m->ngroups; g++) {
		const char *name = gmp_trace__str(r->trace, m->group[g].name, NULL);
		for (size_t k = 0; k < n; k++) {
			if (rules[k].growth != growth || fnmatch(rules[k].glob, name, 0))
				continue;
			for (size_t d = 0; d < m->ndev; d++) {
				if (!gmp_mmem__shown(m, g, d))
					continue;
				const struct gmp_mmem_dev *v = gmp_mmem__at(m, g, d);
				uint64_t budget = gmp_range_budget__bytes(&rules[k], r->trace, r->devices[d].device);
				uint64_t val = growth ? gmp_mmem__growth(v) : v->max;
				ev->matched[k]++;
				ev->largest[k] = val > ev->largest[k] ? val : ev->largest[k];
				if (val <= budget)
					continue;
				if (ev->nover == cap) {
					struct over *o = realloc(ev->over, (cap = cap ? 2 * cap : 8) * sizeof(*o));
					if (!o)
						return -ENOMEM;
					ev->over = o;
				}
				ev->over[ev->nover++] = (struct over){ g, d, k, val, budget };
			}
		}
	}
	if (ev->nover)
		qsort(ev->over, ev->nover, sizeof(*ev->over), by_excess);
	return 0;
}

/* The check's first line: what failed, or what every rule of the kind matched. */
static struct gmp_check *headline(struct gmp_gate *g, const char *name, const struct gmp_range_budget *rules,
				  size_t n, int growth, const struct eval *ev)
{
	size_t unmatched = 0;
	char line[1024], rt[300], a[64];
	for (size_t k = 0; k < n; k++)
		unmatched += rules[k].growth == growth && !ev->matched[k];
	if (ev->nover || unmatched) {
		char over[64] = "", un[64] = "";
		if (ev->nover)
			snprintf(over, sizeof(over), "%zu NVTX mark%s over %s", ev->nover, ev->nover == 1 ? "" : "s",
				 !growth ? "budget" : ev->nover == 1 ? "its growth budget" : "their growth budgets");
		if (unmatched)
			snprintf(un, sizeof(un), "%s%zu budget%s matched no mark", ev->nover ? "; " : "", unmatched,
				 unmatched == 1 ? "" : "s");
		return gmp_gate__add(g, name, 1, "%s%s", over, un);
	}
	size_t len = 0;
	line[0] = 0;
	for (size_t k = 0; k < n && len < sizeof(line); k++) {
		if (rules[k].growth != growth)
			continue;
		int w = snprintf(line + len, sizeof(line) - len, "%s%s: %zu matched (the %s %s)", len ? "; " : "",
				 gmp_range_budget__text(&rules[k], rt, sizeof(rt)), ev->matched[k],
				 growth ? "largest growth" : "most", gmp_human_bytes(ev->largest[k], a, sizeof(a)));
		len += w > 0 ? (size_t)w : 0;
	}
	return gmp_gate__add(g, name, 0, "every NVTX mark within its%s budget: %s", growth ? " growth" : "", line);
}

/* Under the headline: each name over its budget (with what it kept, for growth), each rule that matched none. */
static void details(struct gmp_gate *g, struct gmp_check *c, const struct gmp_mmem *m,
		    const struct gmp_range_budget *rules, size_t n, int growth, const struct eval *ev)
{
	const struct gmp_result *r = g->s->r;
	char line[1400], rt[300], a[64], b[64], buf[256], kept[1024];
	for (size_t i = 0; i < ev->nover && i < SHOWN_MAX; i++) {
		const struct over *o = &ev->over[i];
		const struct gmp_mmem_group *x = &m->group[o->g];
		gmp_gate__two_sizes(o->val, o->budget, a, b, sizeof(a));
		const char *one = gmp_oneline(gmp_trace__str(r->trace, x->name, NULL), buf, sizeof(buf));
		gmp_range_budget__text(&rules[o->rule], rt, sizeof(rt));
		if (growth)
			snprintf(line, sizeof(line), "  %s on device %u: %s more live at the last of its %llu marks than at "
				 "the first > %s (%s)", one, r->devices[o->d].device, a, (unsigned long long)x->times, b, rt);
		else if (x->times == 1)
			snprintf(line, sizeof(line), "  %s on device %u: %s live > %s (%s)", one, r->devices[o->d].device, a,
				 b, rt);
		else
			snprintf(line, sizeof(line), "  %s on device %u: %s live > %s (%s), at mark %llu of its %llu", one,
				 r->devices[o->d].device, a, b, rt,
				 (unsigned long long)ordinal(r->trace, x, gmp_mmem__at(m, o->g, o->d)->max_mark),
				 (unsigned long long)x->times);
		gmp_check__more(c, line);
		if (!growth)
			continue;
		if (gmp_mmem__kept_text(&g->s->sites, r, m, o->g, o->d, 3, kept, sizeof(kept)))
			snprintf(kept, sizeof(kept), "(out of memory finding what its marks kept)");
		snprintf(line, sizeof(line), "    %s", kept);
		gmp_check__more(c, line);
	}
	if (ev->nover > SHOWN_MAX) {
		snprintf(line, sizeof(line), "  ... and %zu more", ev->nover - SHOWN_MAX);
		gmp_check__more(c, line);
	}
	gmp_check__unmatched(c, r->trace, 0, rules, n, growth, ev->matched);
}

/* One of the two checks: the budgets of rules of its kind (growth) on g's run. */
static void mark_gate(struct gmp_gate *g, const struct gmp_mmem *m, const struct gmp_range_budget *rules, size_t n,
		      int growth)
{
	const char *name = growth ? "max_mark_growth" : "max_mark";
	struct eval ev = { 0 };
	if (evaluate(g->s->r, m, rules, n, growth, &ev))
		gmp_gate__add(g, name, 1, "out of memory evaluating the NVTX marks");
	else
		details(g, headline(g, name, rules, n, growth, &ev), m, rules, n, growth, &ev);
	free(ev.over);
	free(ev.matched);
	free(ev.largest);
}

void gmp_gate__marks(struct gmp_gate *g, const struct gmp_range_budget *rules, size_t n)
{
	int kinds[2] = { 0, 0 };
	for (size_t k = 0; k < n; k++)
		kinds[rules[k].growth != 0] = 1;
	struct gmp_mmem m;
	int err = gmp_mmem__build(g->s->r, &m);
	for (int growth = 0; growth < 2; growth++)
		if (kinds[growth] && err)
			gmp_gate__add(g, growth ? "max_mark_growth" : "max_mark", 1, "out of memory evaluating the NVTX marks");
		else if (kinds[growth])
			mark_gate(g, &m, rules, n, growth);
	gmp_mmem__release(&m);
}

/*
 * Name o->g grew o->val on device index o->d, past o->budget (why says by
 * what): a mark_growth result at each of the (up to three) sites, with a
 * file and line, of what it kept; once a name and device (done), for
 * whichever check failed it first.
 */
static void growth_results(struct gmp_sarif *sf, struct gmp_jw *jw, const struct gmp_mmem *m, const struct over *o,
			   const char *why, uint8_t *done)
{
	const struct gmp_result *r = sf->s->r;
	const struct gmp_mmem_group *x = &m->group[o->g];
	const char *name = gmp_trace__str(r->trace, x->name, NULL);
	struct gmp_rmem_kept kp;
	char one[256], a[32], c[32], msg[1400];
	if (done[o->g * m->ndev + o->d]++)
		return;
	if (gmp_mmem__kept_sites(&sf->s->sites, r, m, o->g, o->d, &kp)) {
		gmp_rmem_kept__release(&kp);
		jw->err = -ENOMEM;
		return;
	}
	for (size_t i = 0, shown = 0; i < kp.nsites && shown < 3; i++) {
		struct gmp_sarif_loc l;
		if (kp.sites[i].named || gmp_sarif__split_site(kp.sites[i].site, &l))
			continue; /* no file and line to point at: the check's line names it */
		snprintf(msg, sizeof(msg), "%s more GPU memory was live on device %u at the last of the %llu NVTX marks "
			 "'%s' than at the first, %s; objects allocated here since the first mark hold %s of what was "
			 "live at the last.", gmp_human_bytes(o->val, a, sizeof(a)), r->devices[o->d].device,
			 (unsigned long long)x->times, gmp_oneline(name, one, sizeof(one)), why,
			 gmp_human_bytes(kp.sites[i].bytes, c, sizeof(c)));
		gmp_sarif__result_head(sf, jw, "mark_growth", GMP_SARIF_RULE_MARK, msg, &l);
		struct gmp_sarif_growth gr = { "mark_growth", "gmprofMarkGrowth/v1", "mark", name, r->devices[o->d].device,
					       x->times, o->val, o->budget, &kp.sites[i],
					       gmp_sites__event_key(&sf->s->sites, kp.sites[i].alloc_ev), 0, 0 };
		gmp_sarif__growth_tail(sf, jw, &gr);
		shown++;
	}
	gmp_rmem_kept__release(&kp);
}

/* Each mark name of a compared device whose growth is past what the baseline (version 7) allows. */
static void baseline_growth(struct gmp_sarif *sf, struct gmp_jw *jw, const struct gmp_mmem *m, uint8_t *done)
{
	const struct gmp_result *r = sf->s->r;
	char why[200], b[32];
	for (size_t i = 0; i < sf->ncmps && !jw->err; i++) {
		const struct gmp_baseline_peak *bp = sf->cmps[i].base;
		size_t d = gmp_result__device_index(r, sf->cmps[i].device);
		if (!bp || !bp->nmarks || d >= m->ndev)
			continue;
		for (size_t g = 0; g < m->ngroups && !jw->err; g++) {
			const struct gmp_baseline_mark *bm = gmp_mmem__shown(m, g, d)
				? gmp_baseline__mark(bp, gmp_trace__str(r->trace, m->group[g].name, NULL)) : NULL;
			if (!bm || (m->group[g].times < 2 && bm->times < 2))
				continue;
			struct over o = { g, d, 0, gmp_mmem__growth(gmp_mmem__at(m, g, d)),
					  gmp_baseline__allowed(bm->grew_bytes, sf->tol_pct, sf->tol_abs) };
			if (o.val <= o.budget)
				continue;
			snprintf(why, sizeof(why), "past the baseline's %s and the tolerance (baseline:mark_growth)",
				 gmp_human_bytes(bm->grew_bytes, b, sizeof(b)));
			growth_results(sf, jw, m, &o, why, done);
		}
	}
}

void gmp_sarif__marks(struct gmp_sarif *sf, struct gmp_jw *jw)
{
	struct gmp_mmem m;
	struct eval ev = { 0 };
	uint8_t *done = NULL;
	char why[400], b[32];
	if (!sf->s->r->trace->nmarks)
		return; /* no marks: no results */
	if (gmp_mmem__build(sf->s->r, &m) || !(done = calloc(m.ngroups * m.ndev + 1, 1)) ||
	    evaluate(sf->s->r, &m, sf->mark, sf->nmark, 1, &ev))
		jw->err = -ENOMEM;
	for (size_t i = 0; i < ev.nover && i < SHOWN_MAX && !jw->err; i++) {
		snprintf(why, sizeof(why), "over its growth budget of %s (--max-mark-growth '%s')",
			 gmp_human_bytes(ev.over[i].budget, b, sizeof(b)), sf->mark[ev.over[i].rule].glob);
		growth_results(sf, jw, &m, &ev.over[i], why, done);
	}
	if (!jw->err)
		baseline_growth(sf, jw, &m, done);
	free(done);
	free(ev.over);
	free(ev.matched);
	free(ev.largest);
	gmp_mmem__release(&m);
}

/* What device index d's mark names did against the baseline's peak bp. */
struct mark_cmp {
	size_t compared, failed, fresh, gone, devices_without; /* by the most live at a name's marks */
	size_t loops, kept_more;  /* names made more than once in either run; those that grew past the baseline's */
};

/*
 * Device index d's marks in m against the baseline's bp: counted into mc,
 * and each that failed told as a line of peak (the most) or growth (the
 * growth, with what it kept), where they are not NULL.
 */
static void mark_compare(struct gmp_gate *g, const struct gmp_mmem *m, size_t d, const struct gmp_baseline_peak *bp,
			 double pct, uint64_t abs, struct mark_cmp *mc, struct gmp_check *peak, struct gmp_check *growth)
{
	const struct gmp_result *r = g->s->r;
	uint32_t device = r->devices[d].device;
	char line[1400], buf[256], a[64], b[32], e[64], kept[1024];
	size_t seen = 0;
	for (size_t k = 0; k < m->ngroups; k++) {
		if (!gmp_mmem__shown(m, k, d))
			continue;
		const char *name = gmp_trace__str(r->trace, m->group[k].name, NULL);
		const struct gmp_baseline_mark *bm = gmp_baseline__mark(bp, name);
		if (!bm) {
			mc->fresh++;
			continue;
		}
		const struct gmp_mmem_dev *v = gmp_mmem__at(m, k, d);
		const char *one = gmp_oneline(name, buf, sizeof(buf));
		uint64_t allowed = gmp_baseline__allowed(bm->max_bytes, pct, abs);
		seen++;
		mc->compared++;
		if (v->max > allowed) {
			mc->failed++;
			gmp_gate__two_sizes(v->max, allowed, a, e, sizeof(a));
			snprintf(line, sizeof(line), "  %s on device %u: %s live at the most, the baseline's %s (allowed up to %s)",
				 one, device, a, gmp_human_bytes(bm->max_bytes, b, sizeof(b)), e);
			if (peak)
				gmp_check__more(peak, line);
		}
		if (m->group[k].times < 2 && bm->times < 2)
			continue; /* one mark in both: nothing kept from one to the next */
		mc->loops++;
		allowed = gmp_baseline__allowed(bm->grew_bytes, pct, abs);
		if (gmp_mmem__growth(v) <= allowed)
			continue;
		mc->kept_more++;
		if (!growth)
			continue;
		gmp_gate__two_sizes(gmp_mmem__growth(v), allowed, a, e, sizeof(a));
		snprintf(line, sizeof(line), "  %s on device %u: %s more live at the last of its %llu marks than at the first; "
			 "the baseline's, %s over %llu mark%s (allowed up to %s)", one, device, a,
			 (unsigned long long)m->group[k].times, gmp_human_bytes(bm->grew_bytes, b, sizeof(b)),
			 (unsigned long long)bm->times, bm->times == 1 ? "" : "s", e);
		gmp_check__more(growth, line);
		if (gmp_mmem__kept_text(&g->s->sites, r, m, k, d, 3, kept, sizeof(kept)))
			snprintf(kept, sizeof(kept), "(out of memory finding what its marks kept)");
		snprintf(line, sizeof(line), "    %s", kept);
		gmp_check__more(growth, line);
	}
	mc->gone += bp->nmarks - seen;
	mc->devices_without += !seen;
	if (!seen && peak) {
		snprintf(line, sizeof(line), "  device %u: none of the baseline's %zu NVTX mark names is in this run (does "
			 "the program still mark them, and was the collector NVTX's tool?)", device, bp->nmarks);
		gmp_check__more(peak, line);
	}
}

void gmp_gate__baseline_marks(struct gmp_gate *g, const struct gmp_peak_cmp *cmps, size_t ncmps, double pct,
			      uint64_t abs)
{
	const struct gmp_result *r = g->s->r;
	size_t with = 0;
	for (size_t i = 0; i < ncmps; i++)
		with += cmps[i].base && cmps[i].base->nmarks && gmp_result__device_index(r, cmps[i].device) != SIZE_MAX;
	if (!with)
		return; /* the baseline has no marks (or none of these devices'): nothing to compare */
	struct gmp_mmem m;
	struct mark_cmp mc = { 0 };
	if (gmp_mmem__build(r, &m)) {
		gmp_gate__add(g, "baseline:mark_peak", 1, "out of memory comparing the NVTX marks");
		gmp_mmem__release(&m);
		return;
	}
	for (size_t i = 0; i < ncmps; i++) /* count first: the checks' first lines say how many */
		if (cmps[i].base && cmps[i].base->nmarks && gmp_result__device_index(r, cmps[i].device) != SIZE_MAX)
			mark_compare(g, &m, gmp_result__device_index(r, cmps[i].device), cmps[i].base, pct, abs, &mc, NULL,
				     NULL);
	char tail[128] = "";
	if (mc.fresh || mc.gone)
		snprintf(tail, sizeof(tail), " (%zu new in this run, %zu of the baseline's not in it)", mc.fresh, mc.gone);
	struct gmp_check *peak =
		mc.failed ? gmp_gate__add(g, "baseline:mark_peak", 1, "%zu of %zu NVTX mark names found more live than in "
					  "the baseline%s", mc.failed, mc.compared, tail)
		: mc.devices_without ? gmp_gate__add(g, "baseline:mark_peak", 1, "%zu device%s without the baseline's NVTX "
						     "marks%s", mc.devices_without, mc.devices_without == 1 ? "" : "s", tail)
		: gmp_gate__add(g, "baseline:mark_peak", 0, "%zu NVTX mark name%s within the baseline's most live%s",
				mc.compared, mc.compared == 1 ? "" : "s", tail);
	if (gmp_check__fresh_names(peak, r->trace, 0, mc.fresh))
		gmp_check__more(peak, "  (out of memory reading the NVTX names)");
	struct gmp_check *growth = NULL;
	if (mc.loops)
		growth = mc.kept_more ? gmp_gate__add(g, "baseline:mark_growth", 1, "%zu of %zu NVTX mark names made more than "
						      "once grew more from their first mark to their last than the "
						      "baseline's", mc.kept_more, mc.loops)
		: gmp_gate__add(g, "baseline:mark_growth", 0, "%zu NVTX mark name%s made more than once, none growing more "
				"from its first mark to its last than the baseline's", mc.loops, mc.loops == 1 ? "" : "s");
	mc = (struct mark_cmp){ 0 };
	for (size_t i = 0; i < ncmps; i++)
		if (cmps[i].base && cmps[i].base->nmarks && gmp_result__device_index(r, cmps[i].device) != SIZE_MAX)
			mark_compare(g, &m, gmp_result__device_index(r, cmps[i].device), cmps[i].base, pct, abs, &mc, peak,
				     growth);
	gmp_mmem__release(&m);
}
