// SPDX-License-Identifier: MIT
/*
 * SARIF results of gmprof check's NVTX range checks: a range over its
 * --max-range-peak at the call that first reaches its peak; a range whose
 * growth (what a loop's times kept) is over its --max-range-growth, or past
 * the baseline's growth and the tolerance, at the allocation sites of what
 * its times kept (the three that hold most, where they have a file and
 * line), so code scanning marks the line that allocates a loop's leak.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "findings_json.h"
#include "oneline.h"
#include "rangemem.h"
#include "sarif.h"
#include "sites.h"

/* What the range results are made with: the ranges' memory, and which range on which device has its results. */
struct rr {
	struct gmp_rmem m;
	uint8_t *done; /* node k on device index d: done[k * m.ndev + d] */
};

/*
 * Range node k on device index d grew past allowed (why says by what): a
 * range_growth result at each of the (up to three) allocation sites, with
 * a file and line, of what its times kept; once a range and device, for
 * whichever check failed it first.  base: the baseline's range, where it
 * knows what its times kept by site (version 6), else NULL.
 */
static void kept_results(struct gmp_sarif *sf, struct gmp_jw *jw, struct rr *rr, uint32_t k, size_t d,
			 uint64_t allowed, const char *why, const struct gmp_baseline_range *base)
{
	const struct gmp_result *r = sf->s->r;
	const struct gmp_rmem *m = &rr->m;
	if (rr->done[(size_t)k * m->ndev + d]++)
		return;
	const struct gmp_rmem_dev *x = gmp_rmem__at(m, k, d);
	struct gmp_rmem_kept kp;
	char path[1024], one[1024], a[32], c[32], msg[1400], was[80] = "";
	if (gmp_rmem__kept_sites(&sf->s->sites, r, m, k, d, &kp)) {
		gmp_rmem_kept__release(&kp);
		jw->err = -ENOMEM;
		return;
	}
	const char *name = gmp_oneline(gmp_rmem__path(m, r, k, path, sizeof(path)), one, sizeof(one));
	for (size_t i = 0, shown = 0; i < kp.nsites && shown < 3; i++) {
		struct gmp_sarif_loc l;
		if (kp.sites[i].named || gmp_sarif__split_site(kp.sites[i].site, &l))
			continue; /* no file and line to point at: the check's line names it */
		uint64_t key = gmp_sites__event_key(&sf->s->sites, kp.sites[i].alloc_ev);
		uint64_t before = base ? gmp_baseline__kept_bytes(base, kp.sites[i].site, key) : 0;
		if (base) /* a leak new since the baseline, told from one it had */
			snprintf(was, sizeof(was), " The baseline's times kept %s from here.",
				 before ? gmp_human_bytes(before, c, sizeof(c)) : "none");
		snprintf(msg, sizeof(msg), "NVTX range '%s' on device %u began the last of its %llu times with %s more GPU "
			 "memory live than the first, %s; objects allocated here since its first time began hold %s of "
			 "what was live as its last began.%s", name, r->devices[d].device, (unsigned long long)x->times,
			 gmp_human_bytes(gmp_rmem__growth(x), a, sizeof(a)), why,
			 gmp_human_bytes(kp.sites[i].bytes, c, sizeof(c)), was);
		gmp_sarif__result_head(sf, jw, "range_growth", GMP_SARIF_RULE_GROWTH, msg, &l);
		struct gmp_sarif_growth gr = { "range_growth", "gmprofRangeGrowth/v1", "range", path, r->devices[d].device,
					       x->times, gmp_rmem__growth(x), allowed, &kp.sites[i], key, base != NULL,
					       before };
		gmp_sarif__growth_tail(sf, jw, &gr);
		shown++;
	}
	gmp_rmem_kept__release(&kp);
}

void gmp_sarif__growth_tail(struct gmp_sarif *sf, struct gmp_jw *jw, const struct gmp_sarif_growth *g)
{
	char hex[32];
	snprintf(hex, sizeof(hex), "%016" PRIx64,
		 gmp_sites__site_fingerprint(g->rule, g->key ^ gmp_sites__label_fingerprint(g->name)));
	gmp_jw__key(jw, "partialFingerprints");
	gmp_jw__obj(jw);
	gmp_jw__kstr(jw, g->fingerprint, hex);
	gmp_jw__obj_end(jw);
	gmp_jw__key(jw, "properties");
	gmp_jw__obj(jw);
	gmp_jw__kstr(jw, g->what, g->name);
	gmp_jw__ku64(jw, "device", g->device);
	gmp_jw__ku64(jw, "times", g->times);
	gmp_jw__ku64(jw, "grew_bytes", g->grew);
	gmp_jw__ku64(jw, "allowed_bytes", g->allowed);
	gmp_jw__ku64(jw, "kept_bytes", g->site->bytes);
	gmp_jw__ku64(jw, "kept_objects", g->site->objects);
	if (g->has_before)
		gmp_jw__ku64(jw, "baseline_kept_bytes", g->before);
	if (sf->name_inputs)
		gmp_jw__kstr(jw, "input", sf->s->name);
	gmp_jw__obj_end(jw);
	gmp_jw__obj_end(jw);
}

/* Each range of a compared device whose growth is past what the baseline (version 5 or 6) allows. */
static void baseline_growth(struct gmp_sarif *sf, struct gmp_jw *jw, struct rr *rr)
{
	const struct gmp_rmem *m = &rr->m;
	const struct gmp_result *r = sf->s->r;
	char path[4096], a[32], why[200];
	for (size_t i = 0; i < sf->ncmps && !jw->err; i++) {
		const struct gmp_baseline_peak *bp = sf->cmps[i].base;
		size_t d = gmp_result__device_index(r, sf->cmps[i].device);
		if (!bp || !bp->growth || d >= m->ndev)
			continue;
		for (size_t j = 0; j < m->ntree && !jw->err; j++) {
			const struct gmp_rmem_dev *x = gmp_rmem__at(m, m->tree[j], d);
			const struct gmp_baseline_range *br =
				x->calls ? gmp_baseline__range(bp, gmp_rmem__path(m, r, m->tree[j], path, sizeof(path))) : NULL;
			uint64_t allowed;
			if (!br || !gmp_range__growth_compared(x, br, sf->tol_pct, sf->tol_abs, &allowed) ||
			    gmp_rmem__growth(x) <= allowed)
				continue;
			snprintf(why, sizeof(why), "past the baseline's %s and the tolerance (baseline:range_growth)",
				 gmp_human_bytes(br->grew_bytes, a, sizeof(a)));
			kept_results(sf, jw, rr, m->tree[j], d, allowed, why, bp->kept ? br : NULL);
		}
	}
}

/* Each NVTX range over its --max-range-peak budget: a result at the call that first reaches its peak. */
static void range_over_budget(struct gmp_sarif *sf, struct gmp_jw *jw, struct rr *rr)
{
	const struct gmp_result *r = sf->s->r;
	struct gmp_range_eval ev;
	if (gmp_range_budget__eval(r, sf->range, sf->nrange, &ev))
		jw->err = -ENOMEM;
	char a[32], b[32], msg[800], hex[32], why[400];
	for (size_t i = 0, shown = 0; !jw->err && i < ev.nover && shown < 20; i++) {
		const struct gmp_range_over *o = &ev.over[i];
		if (sf->range[o->rule].growth) { /* at the sites of what its times kept */
			snprintf(why, sizeof(why), "over its growth budget of %s (--max-range-growth '%s')",
				 gmp_human_bytes(o->budget, b, sizeof(b)), sf->range[o->rule].glob);
			kept_results(sf, jw, rr, o->node, o->d, o->budget, why, NULL);
			continue;
		}
		const char *site = gmp_sites__event(&sf->s->sites, o->peak_ev, NULL);
		struct gmp_sarif_loc l;
		if (!site || gmp_sarif__split_site(site, &l))
			continue; /* no file and line to point at: the check's line says it */
		snprintf(msg, sizeof(msg), "The GPU memory peak inside NVTX range '%s' on device %u is %s, over its budget "
			 "of %s (--max-range-peak '%s'); it is first reached here.", o->path, o->device,
			 gmp_human_bytes(o->peak, a, sizeof(a)), gmp_human_bytes(o->budget, b, sizeof(b)),
			 sf->range[o->rule].glob);
		gmp_sarif__result_head(sf, jw, "range_peak_over_budget", GMP_SARIF_RULE_RANGE, msg, &l);
		snprintf(hex, sizeof(hex), "%016" PRIx64, gmp_sites__label_fingerprint(o->path));
		gmp_jw__key(jw, "partialFingerprints");
		gmp_jw__obj(jw);
		gmp_jw__kstr(jw, "gmprofRangePeakOverBudget/v1", hex);
		gmp_jw__obj_end(jw);
		gmp_jw__key(jw, "properties");
		gmp_jw__obj(jw);
		gmp_jw__kstr(jw, "range", o->path);
		gmp_jw__ku64(jw, "peak_bytes", o->peak);
		gmp_jw__ku64(jw, "budget_bytes", o->budget);
		gmp_jw__ku64(jw, "device", o->device);
		if (sf->name_inputs)
			gmp_jw__kstr(jw, "input", sf->s->name);
		gmp_jw__obj_end(jw);
		gmp_jw__obj_end(jw);
		shown++;
	}
	gmp_range_eval__release(&ev);
}

void gmp_sarif__ranges(struct gmp_sarif *sf, struct gmp_jw *jw)
{
	int growth = 0; /* a growth budget, or a baseline with ranges' times: what they kept is needed */
	for (size_t i = 0; i < sf->nrange; i++)
		growth |= sf->range[i].growth;
	for (size_t i = 0; i < sf->ncmps; i++)
		growth |= sf->cmps[i].base && sf->cmps[i].base->growth;
	struct rr rr = { 0 };
	if (growth && (gmp_rmem__build(sf->s->r, &rr.m) || !(rr.done = calloc(rr.m.n * rr.m.ndev + 1, 1))))
		jw->err = -ENOMEM;
	if (!jw->err && sf->nrange)
		range_over_budget(sf, jw, &rr);
	if (!jw->err && growth)
		baseline_growth(sf, jw, &rr);
	free(rr.done);
	gmp_rmem__release(&rr.m);
}
