// SPDX-License-Identifier: MIT
/*
 * SARIF 2.1.0 for GitHub code scanning: one rule per pattern, one result
 * per finding located at its allocation site (a source line from DWARF, or
 * the `at` of an event script; failing both, the script line of the
 * allocation, or the input itself), with region.startLine and a stable
 * partialFingerprints entry so re-uploads update alerts instead of
 * duplicating them.  Paths under the source root are written relative to
 * %SRCROOT%.
 */
#include "sarif.h"

#include <errno.h>
#include <inttypes.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bysite.h"
#include "check.h"
#include "cmds.h"
#include "findings_json.h"
#include "gmprof/version.h"
#include "jw.h"

/* A rule's SARIF texts; a pattern's id is its name (gmp_pattern__name). */
struct rule {
	const char *id, *name, *shortd, *fulld;
};

static const struct rule rules[GMP_PAT_COUNT] = {
	[GMP_PAT_EARLY_ALLOCATION] = { NULL, "EarlyAllocation", "GPU memory allocated long before its first use",
		"The object is allocated several GPU APIs before any API uses it, so it occupies memory it does not need yet. Allocate it just before its first use." },
	[GMP_PAT_LATE_DEALLOCATION] = { NULL, "LateDeallocation", "GPU memory freed long after its last use",
		"The object stays allocated for several GPU APIs after its last use. Free it right after that use." },
	[GMP_PAT_REDUNDANT_ALLOCATION] = { NULL, "RedundantAllocation", "GPU allocation that could reuse a dead object's memory",
		"Another object of about the same size is no longer used when this one is first used. Reuse its memory instead of allocating." },
	[GMP_PAT_UNUSED_ALLOCATION] = { NULL, "UnusedAllocation", "GPU memory allocated and never used",
		"No GPU API ever reads or writes the object. Remove the allocation." },
	[GMP_PAT_MEMORY_LEAK] = { NULL, "MemoryLeak", "GPU memory never freed",
		"The object is still allocated when the program ends. Free it after its last use." },
	[GMP_PAT_TEMPORARY_IDLENESS] = { NULL, "TemporaryIdleness", "GPU memory idle between two uses",
		"The object is not used for a long stretch between two uses. Free it (or move it to host memory) during the gap." },
	[GMP_PAT_DEAD_WRITE] = { NULL, "DeadWrite", "GPU memory written and overwritten before any read",
		"Bytes of the object are written and then written again with no read in between; the first write is wasted." },
	[GMP_PAT_OVERALLOCATION] = { NULL, "Overallocation", "GPU object mostly never accessed",
		"Kernels access only a small part of the object. Allocate only what is used." },
	[GMP_PAT_NON_UNIFORM_ACCESS_FREQUENCY] = { NULL, "NonUniformAccessFrequency", "GPU object accessed with very uneven frequency",
		"Some parts of the object are accessed far more than others in a kernel. Keep the hot part in device memory and the cold part elsewhere (host or managed memory)." },
	[GMP_PAT_STRUCTURED_ACCESS] = { NULL, "StructuredAccess", "GPU object used one disjoint slice at a time",
		"Each launch of a kernel uses a different slice of the object. Allocate one slice and reuse it." },
};

int gmp_sarif__split_site(const char *site, struct gmp_sarif_loc *l)
{
	const char *c = strrchr(site, ':');
	char *end;
	unsigned long line = c ? strtoul(c + 1, &end, 10) : 0;
	if (!c || c == site || !line || *end || line > UINT32_MAX)
		return -1;
	size_t n = (size_t)(c - site);
	if (n >= sizeof(l->file))
		return -1;
	memcpy(l->file, site, n);
	l->file[n] = 0;
	l->line = (uint32_t)line;
	return 0;
}

/* The rules after the patterns': allocations that ran out of memory, a peak grown past the baseline or over budget. */
#define RULE_OOM GMP_PAT_COUNT
#define RULE_PEAK (GMP_PAT_COUNT + 1)
#define RULE_BUDGET (GMP_PAT_COUNT + 2)
#define RULE_RANGE GMP_SARIF_RULE_RANGE
#define RULE_GROWTH GMP_SARIF_RULE_GROWTH
#define RULE_MARK GMP_SARIF_RULE_MARK

static const struct rule extra_rules[6] = {
	{ "out_of_memory", "OutOfMemory", "GPU allocation that ran out of memory",
	  "The allocation call returned out of memory. gmprof report lists what was live on the device then and which findings' fixes free memory at that moment." },
	{ "peak_growth", "PeakGrowth", "Allocation site that grew the GPU memory peak past the baseline",
	  "The program's GPU memory peak grew past the baseline's by more than the tolerance, and the objects allocated here hold more of it than in the baseline. gmprof diff BEFORE AFTER shows what changed at the peak." },
	{ "peak_over_budget", "PeakOverBudget", "Allocation site holding much of a GPU memory peak over its budget",
	  "The program's GPU memory peak on a device is over the budget gmprof check was given (--max-peak, in bytes or as a share of the device's memory), and the objects allocated here hold much of it. gmprof report shows what was live at the peak and which findings' fixes lower it (--fit)." },
	{ "range_peak_over_budget", "RangePeakOverBudget", "Call where an NVTX range's GPU memory peak over its budget is reached",
	  "The most live GPU memory on a device right after a call made inside an NVTX range is over the budget gmprof check was given for the range (--max-range-peak), and this call is the first inside the range to reach it. gmprof report shows each range's peak, what it allocated and what outlived it (Memory by NVTX range)." },
	{ "range_growth", "RangeGrowth", "Allocation site of GPU memory a loop's NVTX range kept from one time to the next",
	  "An NVTX range entered more than once (a loop's step) began its last time with more GPU memory live than its first, by more than its budget (--max-range-growth) or than the baseline's growth and the tolerance (baseline:range_growth), and objects allocated here since its first time began were still live as its last began. gmprof report shows each range's growth and what its times kept; gmprof flamegraph --at kept:PATH shows them by call path." },
	{ "mark_growth", "MarkGrowth", "Allocation site of GPU memory kept from the first NVTX mark of a name to its last",
	  "More GPU memory was live at the last NVTX mark of a name (a loop that marks each epoch) than at its first, by more than its budget (--max-mark-growth) or than the baseline's growth and the tolerance (baseline:mark_growth), and objects allocated here since its first mark were still live at its last. gmprof report shows the live bytes at each mark name and what it kept (Memory at NVTX marks)." },
};

/* site ("file:line"), or without one the input at its script line (0: none). */
static void location_at(struct gmp_sarif *sf, const char *site, uint32_t line, struct gmp_sarif_loc *l)
{
	if (site && !gmp_sarif__split_site(site, l))
		return;
	/* No source line: point at the input (an event script's own line). */
	snprintf(l->file, sizeof(l->file), "%s", sf->s->in.path);
	l->line = line ? line : 1;
}

static void location_of(struct gmp_sarif *sf, uint32_t ev, struct gmp_sarif_loc *l)
{
	if (ev == GMP_NO_EVENT)
		location_at(sf, NULL, 0, l);
	else
		location_at(sf, gmp_sites__event(&sf->s->sites, ev, NULL), sf->s->in.trace->ev[ev].line, l);
}

/* Percent-encodes what a URI path may not hold. */
static void uri_path(char *out, size_t n, const char *p)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t k = 0;
	for (; *p && k + 4 < n; p++) {
		unsigned char c = (unsigned char)*p;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("/-._~+", c)) {
			out[k++] = (char)c;
		} else {
			out[k++] = '%';
			out[k++] = hex[c >> 4];
			out[k++] = hex[c & 15];
		}
	}
	out[k] = 0;
}

static void artifact(struct gmp_sarif *sf, struct gmp_jw *jw, const struct gmp_sarif_loc *l)
{
	char uri[PATH_MAX * 3 + 16], path[PATH_MAX * 3];
	const char *f = l->file;
	size_t rn = strlen(sf->root);
	int rel = f[0] != '/';
	if (!rel && rn && strncmp(f, sf->root, rn) == 0 && f[rn] == '/') {
		f += rn + 1;
		rel = 1;
	}
	while (rel && f[0] == '.' && f[1] == '/')
		f += 2;
	uri_path(path, sizeof(path), f);
	gmp_jw__key(jw, "artifactLocation");
	gmp_jw__obj(jw);
	if (rel) {
		gmp_jw__kstr(jw, "uri", path);
		gmp_jw__kstr(jw, "uriBaseId", "%SRCROOT%");
	} else {
		snprintf(uri, sizeof(uri), "file://%s", path);
		gmp_jw__kstr(jw, "uri", uri);
	}
	gmp_jw__obj_end(jw);
	gmp_jw__key(jw, "region");
	gmp_jw__obj(jw);
	gmp_jw__ku64(jw, "startLine", l->line ? l->line : 1);
	gmp_jw__obj_end(jw);
}

static void physical_at(struct gmp_sarif *sf, struct gmp_jw *jw, const struct gmp_sarif_loc *l)
{
	gmp_jw__key(jw, "physicalLocation");
	gmp_jw__obj(jw);
	artifact(sf, jw, l);
	gmp_jw__obj_end(jw);
}

static void physical(struct gmp_sarif *sf, struct gmp_jw *jw, uint32_t ev)
{
	struct gmp_sarif_loc l;
	location_of(sf, ev, &l);
	physical_at(sf, jw, &l);
}

void gmp_sarif__result_head(struct gmp_sarif *sf, struct gmp_jw *jw, const char *rule, unsigned index,
			const char *msg, const struct gmp_sarif_loc *l)
{
	gmp_jw__obj(jw);
	gmp_jw__kstr(jw, "ruleId", rule);
	gmp_jw__ku64(jw, "ruleIndex", index);
	gmp_jw__kstr(jw, "level", sf->error_mask & (1u << index) ? "error" : "warning");
	gmp_jw__key(jw, "message");
	gmp_jw__obj(jw);
	gmp_jw__kstr(jw, "text", msg);
	gmp_jw__obj_end(jw);
	gmp_jw__key(jw, "locations");
	gmp_jw__arr(jw);
	gmp_jw__obj(jw);
	physical_at(sf, jw, l);
	gmp_jw__obj_end(jw);
	gmp_jw__arr_end(jw);
}

static void rule_list(struct gmp_jw *jw)
{
	gmp_jw__key(jw, "rules");
	gmp_jw__arr(jw);
	for (unsigned p = 0; p <= RULE_MARK; p++) {
		int extra = p >= RULE_OOM;
		const struct rule *ru = extra ? &extra_rules[p - RULE_OOM] : &rules[p];
		const char *fulld = ru->fulld;
		gmp_jw__obj(jw);
		gmp_jw__kstr(jw, "id", extra ? ru->id : gmp_pattern__name(p));
		gmp_jw__kstr(jw, "name", ru->name);
		gmp_jw__key(jw, "shortDescription");
		gmp_jw__obj(jw);
		gmp_jw__kstr(jw, "text", ru->shortd);
		gmp_jw__obj_end(jw);
		gmp_jw__key(jw, "fullDescription");
		gmp_jw__obj(jw);
		gmp_jw__kstr(jw, "text", fulld);
		gmp_jw__obj_end(jw);
		gmp_jw__key(jw, "help");
		gmp_jw__obj(jw);
		gmp_jw__kstr(jw, "text", fulld);
		gmp_jw__obj_end(jw);
		gmp_jw__key(jw, "defaultConfiguration");
		gmp_jw__obj(jw);
		gmp_jw__kstr(jw, "level", extra ? "error" : "warning");
		gmp_jw__obj_end(jw);
		gmp_jw__key(jw, "properties");
		gmp_jw__obj(jw);
		gmp_jw__key(jw, "tags");
		gmp_jw__arr(jw);
		gmp_jw__str(jw, "gpu");
		gmp_jw__str(jw, "memory");
		gmp_jw__str(jw, "performance");
		gmp_jw__arr_end(jw);
		gmp_jw__kstr(jw, "precision", "high");
		gmp_jw__kstr(jw, "problem.severity", extra ? "error" : p == GMP_PAT_MEMORY_LEAK ? "warning" : "recommendation");
		gmp_jw__obj_end(jw);
		gmp_jw__obj_end(jw);
	}
	gmp_jw__arr_end(jw);
}

static void related(struct gmp_sarif *sf, struct gmp_jw *jw, const struct gmp_finding *f)
{
	const uint32_t evs[2] = { f->ev_a, f->ev_b };
	char label[160], text[200];
	int open = 0;
	for (int i = 0; i < 2; i++) {
		if (evs[i] == GMP_NO_EVENT || evs[i] == sf->s->r->objects[f->object].alloc_ev)
			continue;
		if (!open) {
			gmp_jw__key(jw, "relatedLocations");
			gmp_jw__arr(jw);
			open = 1;
		}
		gmp_jw__obj(jw);
		gmp_jw__ku64(jw, "id", (uint64_t)i + 1);
		physical(sf, jw, evs[i]);
		gmp_jw__key(jw, "message");
		gmp_jw__obj(jw);
		snprintf(text, sizeof(text), "%s", gmp_result__api_label(sf->s->r, evs[i], label, sizeof(label)));
		gmp_jw__kstr(jw, "text", text);
		gmp_jw__obj_end(jw);
		gmp_jw__obj_end(jw);
	}
	if (open)
		gmp_jw__arr_end(jw);
}

static void result(struct gmp_sarif *sf, struct gmp_jw *jw, const struct gmp_finding *f)
{
	const struct gmp_result *r = sf->s->r;
	const struct gmp_object *o = &r->objects[f->object];
	char name[160], size[32], metric[160], sugg[768], msg[1400], hex[32], save[32];
	gmp_result__object_name(r, f->object, name, sizeof(name));
	gmp_human_bytes(o->size, size, sizeof(size));
	gmp_text__metric(f, metric, sizeof(metric));
	gmp_result__suggestion(r, f, sugg, sizeof(sugg));
	if (f->saving)
		snprintf(msg, sizeof(msg), "%s: %s (%s), %s; fixing it saves %s at the peak%s. Fix: %s.",
			 gmp_pattern__name(f->pattern), name, size, metric,
			 gmp_human_bytes(f->saving, save, sizeof(save)),
			 gmp_finding__in_use(r, f) ? " in use" : "", sugg);
	else
		snprintf(msg, sizeof(msg), "%s: %s (%s), %s. Fix: %s.", gmp_pattern__name(f->pattern),
			 name, size, metric, sugg);
	struct gmp_sarif_loc l;
	location_of(sf, o->alloc_ev, &l);
	gmp_sarif__result_head(sf, jw, gmp_pattern__name(f->pattern), f->pattern, msg, &l);
	related(sf, jw, f);
	gmp_jw__key(jw, "partialFingerprints");
	gmp_jw__obj(jw);
	gmp_jw__kstr(jw, "gmprofFinding/v2", gmp_sites__fingerprint_hex(&sf->s->sites, f, hex, sizeof(hex)));
	gmp_jw__obj_end(jw);
	if (sf->baseline) {
		uint64_t fp = gmp_sites__fingerprint(&sf->s->sites, f);
		gmp_jw__kstr(jw, "baselineState", gmp_baseline__has(sf->baseline, fp) ? "unchanged" : "new");
	}
	gmp_jw__key(jw, "properties");
	gmp_jw__obj(jw);
	gmp_jw__ku64(jw, "object_size", o->size);
	gmp_jw__ku64(jw, "saving_bytes", f->saving);
	gmp_jw__ku64(jw, "peak_bytes", gmp_finding__peak_before(r, f));
	if (sf->name_inputs)
		gmp_jw__kstr(jw, "input", sf->s->name);
	gmp_jw__obj_end(jw);
	gmp_jw__obj_end(jw);
}

void gmp_sarif__begin(struct gmp_sarif *sf, struct gmp_jw *jw, FILE *fp)
{
	char root[PATH_MAX * 3 + 16], path[PATH_MAX * 3];
	gmp_jw__init(jw, fp, 1);
	gmp_jw__obj(jw);
	gmp_jw__kstr(jw, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
	gmp_jw__kstr(jw, "version", "2.1.0");
	gmp_jw__key(jw, "runs");
	gmp_jw__arr(jw);
	gmp_jw__obj(jw);
	gmp_jw__key(jw, "tool");
	gmp_jw__obj(jw);
	gmp_jw__key(jw, "driver");
	gmp_jw__obj(jw);
	gmp_jw__kstr(jw, "name", "gmprof");
	gmp_jw__kstr(jw, "version", GMPROF_VERSION);
	gmp_jw__kstr(jw, "semanticVersion", GMPROF_VERSION);
	rule_list(jw);
	gmp_jw__obj_end(jw);
	gmp_jw__obj_end(jw);
	if (sf->root[0]) {
		uri_path(path, sizeof(path), sf->root);
		snprintf(root, sizeof(root), "file://%s/", path);
		gmp_jw__key(jw, "originalUriBaseIds");
		gmp_jw__obj(jw);
		gmp_jw__key(jw, "%SRCROOT%");
		gmp_jw__obj(jw);
		gmp_jw__kstr(jw, "uri", root);
		gmp_jw__obj_end(jw);
		gmp_jw__obj_end(jw);
	}
	gmp_jw__key(jw, "results");
	gmp_jw__arr(jw);
}

/* An allocation that ran out of memory, located where the program asked. */
static void failure(struct gmp_sarif *sf, struct gmp_jw *jw, const struct gmp_failure *g)
{
	const struct gmp_result *r = sf->s->r;
	const struct gmp_alloc_failure *f = &r->trace->fails[g->fail];
	char msg[600], a[32], b[32], c[32], mem[80] = "", hex[32];
	if (f->dev_total)
		snprintf(mem, sizeof(mem), " (%s free of %s)", gmp_human_bytes(f->dev_free, a, sizeof(a)),
			 gmp_human_bytes(f->dev_total, b, sizeof(b)));
	snprintf(msg, sizeof(msg), "%s of %s on device %u ran out of memory%s, with %s live in %" PRIu64
		 " objects; fixing the findings gmprof report lists for it frees %s at that moment.",
		 f->api ? gmp_trace__str(r->trace, f->api, NULL) : "An allocation",
		 gmp_human_bytes(f->size, a, sizeof(a)), f->device, mem,
		 gmp_human_bytes(g->live_bytes, b, sizeof(b)), g->live_objects,
		 gmp_human_bytes(g->freeable, c, sizeof(c)));
	struct gmp_sarif_loc l;
	location_at(sf, gmp_sites__failure(&sf->s->sites, g->fail, NULL), f->line, &l);
	gmp_sarif__result_head(sf, jw, "out_of_memory", RULE_OOM, msg, &l);
	gmp_jw__key(jw, "partialFingerprints");
	gmp_jw__obj(jw);
	snprintf(hex, sizeof(hex), "%016" PRIx64, gmp_sites__failure_fingerprint(&sf->s->sites, g->fail));
	gmp_jw__kstr(jw, "gmprofFailure/v2", hex);
	gmp_jw__obj_end(jw);
	gmp_jw__key(jw, "properties");
	gmp_jw__obj(jw);
	gmp_jw__ku64(jw, "size", f->size);
	gmp_jw__ku64(jw, "live_bytes", g->live_bytes);
	gmp_jw__ku64(jw, "freeable_bytes", g->freeable);
	if (sf->name_inputs)
		gmp_jw__kstr(jw, "input", sf->s->name);
	gmp_jw__obj_end(jw);
	gmp_jw__obj_end(jw);
}

/* A peak grew past the baseline's: a result at each of the (up to five) sites that grew most there. */
static void peak_growth(struct gmp_sarif *sf, struct gmp_jw *jw, const struct gmp_peak_cmp *pc)
{
	struct gmp_bysite by;
	struct gmp_site_growth *v;
	size_t n;
	char dev[32] = "";
	if (pc->device != GMP_ANY_DEVICE)
		snprintf(dev, sizeof(dev), " on device %u", pc->device);
	if (!gmp_bysite__grown(&sf->s->sites, sf->s->r, pc->device, pc->base, &by, &v, &n))
		for (size_t k = 0, shown = 0; k < n && shown < 5; k++) {
			struct gmp_sarif_loc l;
			if (gmp_sarif__split_site(v[k].site, &l))
				continue; /* no file and line to point at */
			char msg[600], a[32], b[32], c[32], d[32], x[32], w[32], hex[32];
			snprintf(msg, sizeof(msg), "The GPU memory peak%s grew to %s, past the baseline's %s (allowed "
				 "up to %s); objects allocated here hold %s of it, %s more than in the baseline (%s).",
				 dev, gmp_human_bytes(pc->now, a, sizeof(a)), gmp_human_bytes(pc->base->peak_bytes, b, sizeof(b)),
				 gmp_human_bytes(pc->allowed, c, sizeof(c)), gmp_human_bytes(v[k].now, d, sizeof(d)),
				 gmp_human_bytes(v[k].now - v[k].before, x, sizeof(x)), gmp_human_bytes(v[k].before, w, sizeof(w)));
			gmp_sarif__result_head(sf, jw, "peak_growth", RULE_PEAK, msg, &l);
			snprintf(hex, sizeof(hex), "%016" PRIx64, gmp_sites__site_fingerprint("peak_growth", v[k].key));
			gmp_jw__key(jw, "partialFingerprints");
			gmp_jw__obj(jw);
			gmp_jw__kstr(jw, "gmprofPeakGrowth/v2", hex);
			gmp_jw__obj_end(jw);
			gmp_jw__key(jw, "properties");
			gmp_jw__obj(jw);
			gmp_jw__ku64(jw, "bytes_at_peak", v[k].now);
			gmp_jw__ku64(jw, "bytes_in_baseline", v[k].before);
			gmp_jw__ku64(jw, "peak_bytes", pc->now);
			if (pc->device != GMP_ANY_DEVICE)
				gmp_jw__ku64(jw, "device", pc->device);
			if (sf->name_inputs)
				gmp_jw__kstr(jw, "input", sf->s->name);
			gmp_jw__obj_end(jw);
			gmp_jw__obj_end(jw);
			shown++;
		}
	free(v);
	gmp_bysite__release(&by);
}

/* A device's peak over --max-peak: a result at each of the (up to five) sites that hold most of it. */
static void over_budget(struct gmp_sarif *sf, struct gmp_jw *jw, uint32_t dev, uint64_t budget)
{
	const struct gmp_result *r = sf->s->r;
	const struct gmp_peak *pk = gmp_result__top_peak(r, dev);
	struct gmp_bysite b;
	if (!pk || gmp_bysite__peak(&sf->s->sites, r, pk, &b))
		return;
	char a[32], c[32], d[32], m[32], of[80] = "", msg[600], hex[32];
	if (sf->max_peak_pct > 0)
		snprintf(of, sizeof(of), " (%g%% of its %s)", sf->max_peak_pct,
			 gmp_human_bytes(gmp_trace__device_memory(r->trace, dev), m, sizeof(m)));
	for (size_t k = 0, shown = 0; k < b.n && shown < 5; k++) {
		struct gmp_sarif_loc l;
		if (gmp_sarif__split_site(b.g[k].site, &l))
			continue; /* no file and line to point at */
		snprintf(msg, sizeof(msg), "The GPU memory peak on device %u is %s, over its budget of %s%s; objects "
			 "allocated here hold %s of it.", dev, gmp_human_bytes(pk->bytes, a, sizeof(a)),
			 gmp_human_bytes(budget, c, sizeof(c)), of, gmp_human_bytes(b.g[k].bytes, d, sizeof(d)));
		gmp_sarif__result_head(sf, jw, "peak_over_budget", RULE_BUDGET, msg, &l);
		snprintf(hex, sizeof(hex), "%016" PRIx64, gmp_sites__site_fingerprint("peak_over_budget",
							  gmp_sites__event_key(&sf->s->sites, b.g[k].alloc_ev)));
		gmp_jw__key(jw, "partialFingerprints");
		gmp_jw__obj(jw);
		gmp_jw__kstr(jw, "gmprofPeakOverBudget/v2", hex);
		gmp_jw__obj_end(jw);
		gmp_jw__key(jw, "properties");
		gmp_jw__obj(jw);
		gmp_jw__ku64(jw, "bytes_at_peak", b.g[k].bytes);
		gmp_jw__ku64(jw, "peak_bytes", pk->bytes);
		gmp_jw__ku64(jw, "budget_bytes", budget);
		gmp_jw__ku64(jw, "device", dev);
		if (sf->name_inputs)
			gmp_jw__kstr(jw, "input", sf->s->name);
		gmp_jw__obj_end(jw);
		gmp_jw__obj_end(jw);
		shown++;
	}
	gmp_bysite__release(&b);
}

void gmp_sarif__results(struct gmp_sarif *sf, struct gmp_jw *jw)
{
	const struct gmp_result *r = sf->s->r;
	for (size_t i = 0; i < r->nfailures; i++)
		failure(sf, jw, &r->failures[i]);
	for (size_t i = 0; i < r->nfindings; i++)
		result(sf, jw, &r->findings[i]);
	for (size_t i = 0; i < sf->ncmps; i++)
		if (sf->cmps[i].base && sf->cmps[i].now > sf->cmps[i].allowed)
			peak_growth(sf, jw, &sf->cmps[i]);
	for (size_t i = 0; i < r->ndevices && sf->has_max_peak; i++) {
		uint32_t dev = r->devices[i].device;
		uint64_t budget = sf->max_peak_pct > 0 ? gmp_trace__device_share_bytes(r->trace, dev, sf->max_peak_pct)
						       : sf->max_peak;
		if (r->devices[i].peak_bytes > budget)
			over_budget(sf, jw, dev, budget);
	}
	gmp_sarif__ranges(sf, jw);
	if (!jw->err)
		gmp_sarif__marks(sf, jw);
}

static void input_props(struct gmp_jw *jw, const struct gmp_sarif_input *in)
{
	gmp_jw__kstr(jw, "input", in->name);
	gmp_jw__ku64(jw, "peak_bytes", in->peak_bytes);
	gmp_jw__kbool(jw, "complete", in->complete);
}

void gmp_sarif__end(struct gmp_jw *jw, const struct gmp_sarif_input *in, size_t n)
{
	gmp_jw__arr_end(jw);
	gmp_jw__key(jw, "properties");
	gmp_jw__obj(jw);
	if (n == 1) {
		input_props(jw, in);
	} else {
		gmp_jw__key(jw, "inputs");
		gmp_jw__arr(jw);
		for (size_t i = 0; i < n; i++) {
			gmp_jw__obj(jw);
			input_props(jw, &in[i]);
			gmp_jw__obj_end(jw);
		}
		gmp_jw__arr_end(jw);
	}
	gmp_jw__obj_end(jw);
	gmp_jw__obj_end(jw);
	gmp_jw__arr_end(jw);
	gmp_jw__obj_end(jw);
	gmp_jw__raw(jw, "\n", 1);
}
