// SPDX-License-Identifier: MIT
/*
 * A gate's checks (check.h): adding one and the lines under it, and the
 * checks against a baseline -- new findings, and each device's peak (and
 * peak of bytes in use) against its own in the baseline, with where a
 * grown peak was reached and the allocation sites that grew there.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bysite.h"
#include "check.h"
#include "cmds.h"
#include "findings_json.h"
#include "session.h"
#include "source.h"

struct gmp_check *gmp_gate__add(struct gmp_gate *g, const char *name, int failed, const char *fmt, ...)
{
	if (g->n == GMP_MAX_CHECKS) { /* a programming error: never memory past the array */
		fprintf(stderr, "gmprof: internal error: check '%s' is one more than GMP_MAX_CHECKS (analyzer/check.h)\n",
			name);
		abort();
	}
	struct gmp_check *c = &g->checks[g->n++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->failed = failed;
	va_list ap;
	va_start(ap, fmt);
	char *d = NULL;
	if (vasprintf(&d, fmt, ap) < 0)
		d = NULL;
	va_end(ap);
	/* One line: a name from the program with a line break in it must not start one of its own. */
	c->detail = d ? gmp_oneline_dup(d) : NULL;
	free(d);
	return c;
}

/* Appends a line to a check's detail. */
void gmp_check__more(struct gmp_check *c, const char *line)
{
	char *d, *one = gmp_oneline_dup(line);
	int err = !one || asprintf(&d, "%s\n%s", c->detail ? c->detail : "", one) < 0;
	free(one);
	if (err)
		return;
	free(c->detail);
	c->detail = d;
}

void gmp_gate__finding(struct gmp_gate *g, struct gmp_check *c, const struct gmp_finding *f)
{
	char name[160], size[32], at[512] = "", line[900], code[256];
	const struct gmp_result *r = g->s->r;
	const char *site = gmp_sites__event(&g->s->sites, r->objects[f->object].alloc_ev, NULL);
	if (site)
		snprintf(at, sizeof(at), "%s", site); /* the symbolizer's buffer: the fingerprint reuses it */
	char hex[32];
	snprintf(line, sizeof(line), "  %s: %s (%s)%s%s [%s]", gmp_pattern__name(f->pattern),
		 gmp_result__object_name(r, f->object, name, sizeof(name)),
		 gmp_human_bytes(r->objects[f->object].size, size, sizeof(size)), *at ? " allocated at " : "", at,
		 gmp_sites__fingerprint_hex(&g->s->sites, f, hex, sizeof(hex)));
	gmp_check__more(c, line);
	const char *src = *at ? gmp_source__line(g->s->src, at, code, sizeof(code)) : NULL;
	if (src) {
		snprintf(line, sizeof(line), "      | %s", src);
		gmp_check__more(c, line);
	}
}

void gmp_gate__two_sizes(uint64_t x, uint64_t y, char *a, char *b, size_t n)
{
	gmp_human_bytes(x, a, n);
	gmp_human_bytes(y, b, n);
	if (x != y && strcmp(a, b) == 0) { /* "1.0 MiB > 1.0 MiB" says nothing: the bytes do */
		snprintf(a + strlen(a), n - strlen(a), " (%" PRIu64 " bytes)", x);
		snprintf(b + strlen(b), n - strlen(b), " (%" PRIu64 " bytes)", y);
	}
}

/* Over budget: where the largest peak on device (GMP_ANY_DEVICE: of them all) was reached. */
void gmp_gate__peak_where(struct gmp_gate *g, struct gmp_check *c, uint32_t device)
{
	const struct gmp_result *r = g->s->r;
	const struct gmp_peak *pk = gmp_result__top_peak(r, device);
	if (!c->failed || !pk)
		return;
	char api[160], rg[256], line[1024];
	const char *site = gmp_sites__event(&g->s->sites, pk->ev, NULL);
	const struct gmp_trace *t = r->trace;
	gmp_trace__event_range_text(t, pk->ev, rg, sizeof(rg));
	snprintf(line, sizeof(line), "  reached on device %u at %s%s%s%s%s", pk->device,
		 gmp_result__api_label(r, pk->ev, api, sizeof(api)), site ? " at " : "", site ? site : "",
		 *rg ? " in " : "", rg);
	gmp_check__more(c, line);
}

/* A peak over the baseline's: the allocation sites that grew the most there, up to five. */
static void peak_growth(struct gmp_gate *g, struct gmp_check *c, const struct gmp_peak_cmp *pc)
{
	struct gmp_bysite by;
	struct gmp_site_growth *v;
	size_t n;
	if (!pc->base->nsites)
		return; /* a baseline of version 1: no sites */
	if (!gmp_bysite__grown(&g->s->sites, g->s->r, pc->device, pc->base, &by, &v, &n))
		for (size_t k = 0; k < n && k < 5; k++) {
			char line[600], a[32], x[32], y[32];
			snprintf(line, sizeof(line), "  grew at %s: +%s (%s in the baseline, %s now)", v[k].site,
				 gmp_human_bytes(v[k].now - v[k].before, a, sizeof(a)),
				 gmp_human_bytes(v[k].before, x, sizeof(x)), gmp_human_bytes(v[k].now, y, sizeof(y)));
			gmp_check__more(c, line);
		}
	free(v);
	gmp_bysite__release(&by);
}

/* "3.0 MiB against 2.0 MiB in the baseline (allowed up to 2.1 MiB)", or why there is nothing to compare. */
static void cmp_text(const struct gmp_peak_cmp *pc, const char *input, char *buf, size_t n)
{
	char a[64], b[32], c[64];
	if (pc->base) {
		gmp_gate__two_sizes(pc->now, pc->allowed, a, c, sizeof(a));
		snprintf(buf, n, "%s against %s in the baseline (allowed up to %s)", a,
			 gmp_human_bytes(pc->base->peak_bytes, b, sizeof(b)), c);
	} else if (pc->by_device)
		snprintf(buf, n, "%s, and the baseline has no peak on device %u to compare", gmp_human_bytes(pc->now, a, sizeof(a)),
			 pc->device);
	else
		snprintf(buf, n, "%s, and the baseline has no peak of %s on device %u to compare", gmp_human_bytes(pc->now, a, sizeof(a)),
			 input, pc->device);
}

/* A comparison's second measure: its peak in use (pools by their NVTX regions), or its pools' most reserved. */
struct measure {
	int on;
	uint64_t now, allowed, base;
};

static struct measure measure_of(const struct gmp_peak_cmp *c, int pools)
{
	if (pools)
		return (struct measure){ c->pools, c->pools_now, c->pools_allowed, c->pools ? c->base->pool_reserved_high : 0 };
	return (struct measure){ c->inuse, c->inuse_now, c->inuse_allowed, c->inuse ? c->base->inuse_peak_bytes : 0 };
}

/*
 * Where the baseline has peaks of bytes in use (pools with NVTX regions),
 * or the most its stream-ordered pools reserved (pools): each device's
 * against its own, a line each when there are several.
 */
static void check_baseline_measure(struct gmp_gate *g, const struct gmp_peak_cmp *cmps, size_t ncmps, int pools)
{
	const char *name = pools ? "baseline:pools" : "baseline:in_use";
	const char *what = pools ? "reserved by stream-ordered pools" : "in use";
	size_t n = 0, failed = 0, last = 0;
	for (size_t i = 0; i < ncmps; i++) {
		struct measure m = measure_of(&cmps[i], pools);
		if (m.on) {
			n++;
			failed += m.now > m.allowed;
			last = i;
		}
	}
	if (!n)
		return;
	char a[64], b[32], c[64], line[300];
	struct gmp_check *ck;
	if (n == 1) {
		struct measure m = measure_of(&cmps[last], pools);
		gmp_gate__two_sizes(m.now, m.allowed, a, c, sizeof(a));
		ck = gmp_gate__add(g, name, failed > 0, "%s %s against %s in the baseline (allowed up to %s)", a, what,
				   gmp_human_bytes(m.base, b, sizeof(b)), c);
	} else {
		const char *whose = pools ? "pools" : "peaks in use";
		ck = failed ? gmp_gate__add(g, name, 1, "%zu of %zu devices' %s past the baseline", failed, n, whose)
			    : gmp_gate__add(g, name, 0, "%zu devices' %s, none past the baseline", n, whose);
	}
	for (size_t i = 0; i < ncmps && n > 1; i++) {
		struct measure m = measure_of(&cmps[i], pools);
		if (!m.on)
			continue;
		gmp_gate__two_sizes(m.now, m.allowed, a, c, sizeof(a));
		snprintf(line, sizeof(line), "  %s device %u: %s %s against %s in the baseline (allowed up to %s)",
			 m.now > m.allowed ? "FAIL" : "ok", cmps[i].device, a, what, gmp_human_bytes(m.base, b, sizeof(b)), c);
		gmp_check__more(ck, line);
	}
}

/*
 * New findings, and the peaks: the run's largest against a baseline of
 * version 1 or 2; each device's against its own in the baseline of
 * version 3 (a line each, then where each that grew was reached and the
 * sites that grew there).
 */
void gmp_gate__baseline(struct gmp_gate *g, const struct gmp_baseline *b, const struct gmp_peak_cmp *cmps,
			   size_t ncmps)
{
	const struct gmp_result *r = g->s->r;
	char line[900];
	size_t fresh = 0;
	for (size_t i = 0; i < r->nfindings; i++)
		fresh += !gmp_baseline__has(b, gmp_sites__fingerprint(&g->s->sites, &r->findings[i]));
	struct gmp_check *c = gmp_gate__add(g, "baseline:new_findings", fresh > 0, "%zu finding%s not in the baseline",
				  fresh, fresh == 1 ? "" : "s");
	for (size_t i = 0, shown = 0; i < r->nfindings && shown < 20; i++) {
		if (gmp_baseline__has(b, gmp_sites__fingerprint(&g->s->sites, &r->findings[i])))
			continue;
		gmp_gate__finding(g, c, &r->findings[i]);
		shown++;
	}
	const char *input = gmp_baseline__input_name(g->name);
	size_t failed = 0;
	for (size_t i = 0; i < ncmps; i++)
		failed += gmp_peak_cmp__failed(&cmps[i]) != 0;
	if (ncmps == 1) {
		cmp_text(&cmps[0], input, line, sizeof(line));
		c = gmp_gate__add(g, "baseline:peak", failed > 0, "%s", line);
	} else if (failed) {
		c = gmp_gate__add(g, "baseline:peak", 1, "%zu of %zu devices past the baseline", failed, ncmps);
	} else {
		c = gmp_gate__add(g, "baseline:peak", 0, "%zu device%s, none past the baseline", ncmps, ncmps == 1 ? "" : "s");
	}
	for (size_t i = 0; i < ncmps; i++) {
		const struct gmp_peak_cmp *pc = &cmps[i];
		if (ncmps > 1) {
			char t[600];
			cmp_text(pc, input, t, sizeof(t));
			snprintf(line, sizeof(line), "  %s device %u: %s", gmp_peak_cmp__failed(pc) ? "FAIL" : "ok", pc->device, t);
			gmp_check__more(c, line);
		}
		if (pc->base && pc->now > pc->allowed) {
			gmp_gate__peak_where(g, c, pc->device);
			peak_growth(g, c, pc);
		}
	}
	check_baseline_measure(g, cmps, ncmps, 0);
	check_baseline_measure(g, cmps, ncmps, 1);
	/* Ranges and marks of a domain one run left out match none of the other's: a check that never fails says so. */
	if (*gmp_baseline__domains_differ(b, r->trace, line, sizeof(line)))
		gmp_gate__add(g, "baseline:nvtx_domains", 0, "NVTX domains left out when recorded differ: %s; their ranges "
			      "and marks are not compared", line);
}

