// SPDX-License-Identifier: MIT
/* Writes a detector result as the findings JSON object. */
#include "findings_json.h"

#include <inttypes.h>
#include <stdio.h>

const char *gmp_human_bytes(uint64_t v, char *buf, size_t n)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	if (v < 1024) {
		snprintf(buf, n, "%" PRIu64 " B", v);
		return buf;
	}
	double x = (double)v;
	int u = 0;
	while (x >= 1024.0 && u < 5) {
		x /= 1024.0;
		u++;
	}
	snprintf(buf, n, "%.1f %s", x, unit[u]);
	return buf;
}

const char *gmp_human_ns(uint64_t ns, char *buf, size_t n)
{
	if (ns < 1000)
		snprintf(buf, n, "%" PRIu64 " ns", ns);
	else if (ns < 999950) /* below what %.1f rounds up to the next unit */
		snprintf(buf, n, "%.1f us", (double)ns / 1e3);
	else if (ns < 999950000)
		snprintf(buf, n, "%.1f ms", (double)ns / 1e6);
	else if (ns < 599995000000ull)
		snprintf(buf, n, "%.2f s", (double)ns / 1e9);
	else if (ns < 35997000000000ull)
		snprintf(buf, n, "%.1f min", (double)ns / 6e10);
	else
		snprintf(buf, n, "%.1f h", (double)ns / 3.6e12);
	return buf;
}

const char *gmp_human_change(uint64_t before, uint64_t after, int pct, char *buf, size_t n)
{
	char h[32];
	uint64_t d = after > before ? after - before : before - after;
	const char *sign = after < before ? "-" : "+";
	int k = snprintf(buf, n, "%s%s", sign, gmp_human_bytes(d, h, sizeof(h)));
	if (pct && before && k > 0 && (size_t)k < n)
		snprintf(buf + k, n - (size_t)k, ", %s%.1f%%", sign, 100.0 * (double)d / (double)before);
	return buf;
}

/* A call's `at`, or its symbolized stack, or "". */
static const char *where(const struct gmp_result *r, uint32_t at, uint32_t stack,
			 const struct gmp_findings_opts *o)
{
	if (at)
		return gmp_trace__str(r->trace, at, NULL);
	const char *s = stack && o && o->at_fn ? o->at_fn(o->at_ctx, stack) : NULL;
	return s ? s : "";
}

const char *gmp_findings__where(const struct gmp_result *r, uint32_t ev,
				const struct gmp_findings_opts *o)
{
	if (ev >= r->trace->nev)
		return "";
	return where(r, r->trace->ev[ev].at, r->trace->ev[ev].stack, o);
}

/* "ranges": the NVTX range path's names, outermost first (nothing for none). */
static void nvtx_ranges(struct gmp_jw *jw, const struct gmp_trace *t, uint32_t path)
{
	const uint32_t *names;
	size_t n = gmp_trace__range_path(t, path, &names);
	if (!n)
		return;
	gmp_jw__key(jw, "ranges");
	gmp_jw__arr(jw);
	for (size_t i = 0; i < n; i++)
		gmp_jw__str(jw, gmp_trace__str(t, names[i], NULL));
	gmp_jw__arr_end(jw);
}

void gmp_findings__api_ref(struct gmp_jw *jw, const struct gmp_result *r, uint32_t ev,
			   const struct gmp_findings_opts *o)
{
	if (ev >= r->trace->nev) {
		gmp_jw__null(jw);
		return;
	}
	const struct gmp_event *e = &r->trace->ev[ev];
	gmp_jw__obj(jw);
	gmp_jw__kstr(jw, "api", gmp_api__kind(e->op));
	if (e->op == GMP_OP_KERNEL)
		gmp_jw__kstr(jw, "name", gmp_trace__str(r->trace, e->name, NULL));
	if (gmp_event__in_kernel(e) && e->value < ev) {
		/* malloc() or free() inside this launch */
		gmp_jw__ku64(jw, "in_kernel_event", e->value);
		gmp_jw__kstr(jw, "name", gmp_trace__str(r->trace, r->trace->ev[e->value].name, NULL));
	}
	if (e->device)
		gmp_jw__ku64(jw, "device", e->device);
	gmp_jw__ku64(jw, "stream", e->stream);
	const char *sname = gmp_trace__stream_name(r->trace, e->stream);
	if (sname)
		gmp_jw__kstr(jw, "stream_name", sname);
	gmp_jw__ku64(jw, "ordinal", r->ordinal[ev]);
	gmp_jw__ku64(jw, "level", r->level[ev]);
	gmp_jw__ku64(jw, "event", ev);
	nvtx_ranges(jw, r->trace, gmp_trace__event_range(r->trace, ev));
	const char *at = gmp_findings__where(r, ev, o);
	if (*at)
		gmp_jw__kstr(jw, "at", at);
	gmp_jw__obj_end(jw);
}

static void histogram(struct gmp_jw *jw, const struct gmp_result *r, const struct gmp_finding *f)
{
	const struct gmp_hist *h = &r->hists[f->hist];
	gmp_jw__key(jw, "histogram");
	gmp_jw__obj(jw);
	gmp_jw__ku64(jw, "max_count", h->max_count);
	gmp_jw__key(jw, "bytes");
	gmp_jw__arr(jw);
	for (int b = 0; b < GMP_HIST_BUCKETS; b++)
		gmp_jw__u64(jw, h->bytes[b]);
	gmp_jw__arr_end(jw);
	gmp_jw__obj_end(jw);
}

/* Ranges written for f: all, or the first max_ranges. */
static uint32_t shown(const struct gmp_finding *f, const struct gmp_findings_opts *o)
{
	return o && o->max_ranges && o->max_ranges < f->range_n ? o->max_ranges : f->range_n;
}

static void spans(struct gmp_jw *jw, const struct gmp_result *r, const struct gmp_finding *f,
		  const struct gmp_findings_opts *o)
{
	gmp_jw__ku64(jw, "idle_ranges", f->count);
	uint32_t n = shown(f, o);
	gmp_jw__key(jw, "ranges");
	gmp_jw__arr(jw);
	for (uint32_t i = 0; i < n; i++) {
		const struct gmp_span *sp = &r->spans[f->range_off + i];
		gmp_jw__obj(jw);
		gmp_jw__key(jw, "idle_after");
		gmp_findings__api_ref(jw, r, sp->ev_a, o);
		gmp_jw__key(jw, "idle_until");
		gmp_findings__api_ref(jw, r, sp->ev_b, o);
		gmp_jw__ki64(jw, "distance", (int64_t)r->level[sp->ev_b] - (int64_t)r->level[sp->ev_a]);
		gmp_jw__ku64(jw, "apis_between", sp->apis_between);
		gmp_jw__obj_end(jw);
	}
	gmp_jw__arr_end(jw);
	if (n < f->range_n)
		gmp_jw__ku64(jw, "ranges_omitted", f->range_n - n);
}

static void ranges(struct gmp_jw *jw, const struct gmp_result *r, const struct gmp_finding *f,
		   const struct gmp_findings_opts *o)
{
	if (f->pattern == GMP_PAT_TEMPORARY_IDLENESS) {
		spans(jw, r, f, o);
		return;
	}
	if (!f->range_n)
		return;
	gmp_jw__key(jw, f->pattern == GMP_PAT_STRUCTURED_ACCESS ? "slices" :
			f->pattern == GMP_PAT_OVERALLOCATION ? "largest_unaccessed" : "ranges");
	uint32_t n = shown(f, o);
	gmp_jw__arr(jw);
	for (uint32_t i = 0; i < n; i++) {
		const struct gmp_range *rg = &r->ranges[f->range_off + i];
		gmp_jw__obj(jw);
		gmp_jw__ku64(jw, "offset", rg->off);
		gmp_jw__ku64(jw, "size", rg->len);
		if (rg->ev != GMP_NO_EVENT) {
			gmp_jw__key(jw, "api");
			gmp_findings__api_ref(jw, r, rg->ev, o);
		}
		gmp_jw__obj_end(jw);
	}
	gmp_jw__arr_end(jw);
	if (n < f->range_n)
		gmp_jw__ku64(jw, "ranges_omitted", f->range_n - n);
}

static void bound_keys(uint32_t pattern, const char **a, const char **b)
{
	*a = "from";
	*b = "to";
	switch (pattern) {
	case GMP_PAT_EARLY_ALLOCATION: *a = "alloc"; *b = "first_use"; break;
	case GMP_PAT_LATE_DEALLOCATION: *a = "last_use"; *b = "free"; break;
	case GMP_PAT_TEMPORARY_IDLENESS: *a = "idle_after"; *b = "idle_until"; break;
	case GMP_PAT_DEAD_WRITE: *a = "dead_write"; *b = "overwritten_by"; break;
	case GMP_PAT_REDUNDANT_ALLOCATION: *a = "other_last_use"; *b = "first_use"; break;
	case GMP_PAT_MEMORY_LEAK: *a = "last_use"; *b = NULL; break;
	case GMP_PAT_UNUSED_ALLOCATION: *a = "alloc"; *b = "free"; break;
	case GMP_PAT_NON_UNIFORM_ACCESS_FREQUENCY: *a = "launch"; *b = NULL; break;
	case GMP_PAT_STRUCTURED_ACCESS: *a = "first_launch"; *b = "last_launch"; break;
	case GMP_PAT_OVERALLOCATION: *a = "alloc"; *b = "free"; break;
	}
}

void gmp_findings__one(struct gmp_jw *jw, const struct gmp_result *r, const struct gmp_finding *f,
		       const struct gmp_findings_opts *o)
{
	char nb[160];
	const struct gmp_object *ob = &r->objects[f->object];
	gmp_jw__obj(jw);
	gmp_jw__kstr(jw, "pattern", gmp_pattern__name(f->pattern));
	gmp_jw__kstr(jw, "object", gmp_result__object_name(r, f->object, nb, sizeof(nb)));
	gmp_jw__ku64(jw, "object_id", f->object + 1);
	gmp_jw__ku64(jw, "size", ob->size);
	gmp_jw__khex(jw, "addr", ob->addr);
	if (ob->device)
		gmp_jw__ku64(jw, "device", ob->device);
	if (ob->kind != GMP_MEM_DEVICE)
		gmp_jw__kstr(jw, "kind", gmp_mem_kind__name(ob->kind));
	const char *at = gmp_findings__where(r, ob->alloc_ev, o);
	if (*at)
		gmp_jw__kstr(jw, "at", at);
	const char *ka, *kb;
	bound_keys(f->pattern, &ka, &kb);
	if (f->ev_a != GMP_NO_EVENT && ka) {
		gmp_jw__key(jw, ka);
		gmp_findings__api_ref(jw, r, f->ev_a, o);
	}
	if (f->ev_b != GMP_NO_EVENT && kb) {
		gmp_jw__key(jw, kb);
		gmp_findings__api_ref(jw, r, f->ev_b, o);
	}
	switch (f->pattern) {
	case GMP_PAT_EARLY_ALLOCATION:
	case GMP_PAT_LATE_DEALLOCATION:
	case GMP_PAT_TEMPORARY_IDLENESS:
	case GMP_PAT_REDUNDANT_ALLOCATION:
		gmp_jw__ki64(jw, "distance", f->distance);
		gmp_jw__ku64(jw, "apis_between", f->apis_between);
		break;
	default:
		break;
	}
	struct gmp_held h; /* by the host's clock (detector/held.c) */
	if (o && o->clock && !gmp_clock__held(o->clock, f, &h)) {
		gmp_jw__ku64(jw, "waited_min_ns", h.lo_ns);
		gmp_jw__ku64(jw, "waited_max_ns", h.hi_ns);
		if (f->pattern == GMP_PAT_TEMPORARY_IDLENESS) {
			gmp_jw__ku64(jw, "longest_idle_min_ns", h.longest_lo_ns);
			gmp_jw__ku64(jw, "longest_idle_max_ns", h.longest_hi_ns);
		}
	}
	if (f->other != GMP_NO_OBJECT)
		gmp_jw__kstr(jw, "reuses", gmp_result__object_name(r, f->other, nb, sizeof(nb)));
	if (f->pattern == GMP_PAT_DEAD_WRITE)
		gmp_jw__ku64(jw, "dead_bytes", f->bytes);
	if (f->pattern == GMP_PAT_OVERALLOCATION) {
		gmp_jw__ku64(jw, "unaccessed_bytes", f->bytes);
		gmp_jw__kdbl(jw, "accessed_pct", (double)f->accessed_pct, 2);
		gmp_jw__kdbl(jw, "fragmentation_pct", (double)f->frag_pct, 2);
	}
	if (f->pattern == GMP_PAT_NON_UNIFORM_ACCESS_FREQUENCY ||
	    f->pattern == GMP_PAT_STRUCTURED_ACCESS) {
		gmp_jw__kstr(jw, "kernel", gmp_trace__str(r->trace, f->kernel, NULL));
		gmp_jw__ku64(jw, "launches", f->total);
	}
	if (f->pattern == GMP_PAT_NON_UNIFORM_ACCESS_FREQUENCY) {
		gmp_jw__kdbl(jw, "cv_pct", (double)f->cv_pct, 2);
		gmp_jw__ku64(jw, "launches_over_threshold", f->count);
		histogram(jw, r, f);
	}
	ranges(jw, r, f, o);
	gmp_jw__ku64(jw, "peak_bytes", gmp_finding__peak_before(r, f));
	gmp_jw__ku64(jw, "peak_after_fix", gmp_finding__peak_after(r, f));
	gmp_jw__ku64(jw, "saving_bytes", f->saving);
	char sugg[768];
	gmp_jw__kstr(jw, "suggestion", gmp_result__suggestion(r, f, sugg, sizeof(sugg)));
	if (o && o->extra)
		o->extra(o->extra_ctx, jw, r, f);
	gmp_jw__obj_end(jw);
}

const char *gmp_findings__where_failure(const struct gmp_result *r, uint32_t fail,
					const struct gmp_findings_opts *o)
{
	if (fail >= r->trace->nfails)
		return "";
	return where(r, r->trace->fails[fail].at, r->trace->fails[fail].stack, o);
}

void gmp_findings__failure_memory(struct gmp_jw *jw, const struct gmp_result *r,
				  const struct gmp_failure *g)
{
	const struct gmp_alloc_failure *f = &r->trace->fails[g->fail];
	if (f->dev_total) {
		gmp_jw__ku64(jw, "device_free_bytes", f->dev_free);
		gmp_jw__ku64(jw, "device_total_bytes", f->dev_total);
	}
	const struct gmp_pool_state *ps = gmp_trace__pool_state_at(r->trace, f->before, f->device);
	if (ps) {
		gmp_jw__ku64(jw, "pool_reserved_bytes", ps->reserved);
		gmp_jw__ku64(jw, "pool_used_bytes", ps->used);
	}
	gmp_jw__ku64(jw, "live_bytes", g->live_bytes);
	gmp_jw__ku64(jw, "live_objects", g->live_objects);
	gmp_jw__ku64(jw, "freeable_bytes", g->freeable);
}

/* "failed_allocations": each allocation that ran out of memory, and what fixes free then. */
static void failures(struct gmp_jw *jw, const struct gmp_result *r,
		     const struct gmp_findings_opts *o)
{
	const struct gmp_trace *t = r->trace;
	char nb[160];
	gmp_jw__key(jw, "failed_allocations");
	gmp_jw__arr(jw);
	for (size_t i = 0; i < r->nfailures; i++) {
		const struct gmp_failure *g = &r->failures[i];
		const struct gmp_alloc_failure *f = &t->fails[g->fail];
		gmp_jw__obj(jw);
		gmp_jw__ku64(jw, "size", f->size);
		gmp_jw__kstr(jw, "kind", gmp_mem_kind__name(f->kind));
		if (f->api)
			gmp_jw__kstr(jw, "api", gmp_trace__str(t, f->api, NULL));
		gmp_jw__ku64(jw, "device", f->device);
		gmp_jw__ku64(jw, "stream", f->stream);
		gmp_jw__ku64(jw, "after_events", f->before);
		if (g->retry_ev != GMP_NO_EVENT) {
			gmp_jw__key(jw, "retried_by");
			gmp_findings__api_ref(jw, r, g->retry_ev, o);
		}
		nvtx_ranges(jw, t, f->range);
		gmp_jw__kstr(jw, "at", gmp_findings__where_failure(r, g->fail, o));
		gmp_findings__failure_memory(jw, r, g);
		gmp_jw__key(jw, "largest_live");
		gmp_jw__arr(jw);
		for (uint32_t k = 0; k < g->obj_n && k < 8; k++) {
			uint32_t obj = r->fail_objs[g->obj_off + k];
			gmp_jw__obj(jw);
			gmp_jw__kstr(jw, "object", gmp_result__object_name(r, obj, nb, sizeof(nb)));
			gmp_jw__ku64(jw, "size", r->objects[obj].size);
			gmp_jw__obj_end(jw);
		}
		gmp_jw__arr_end(jw);
		gmp_jw__key(jw, "fixes");
		gmp_jw__arr(jw);
		for (uint32_t k = 0; k < g->fix_n; k++) {
			/* The finding by its index in "findings" (names there only: scrapers key on them). */
			const struct gmp_failure_fix *x = &r->fail_fixes[g->fix_off + k];
			gmp_jw__obj(jw);
			gmp_jw__ku64(jw, "finding", x->finding);
			gmp_jw__ku64(jw, "bytes", x->bytes);
			gmp_jw__obj_end(jw);
		}
		gmp_jw__arr_end(jw);
		gmp_jw__obj_end(jw);
	}
	gmp_jw__arr_end(jw);
	if (r->nfails_total > r->nfailures)
		gmp_jw__ku64(jw, "failed_allocations_total", r->nfails_total);
	if (r->nfails_unrecorded)
		gmp_jw__ku64(jw, "failed_allocations_unrecorded", r->nfails_unrecorded);
}

static void devices(struct gmp_jw *jw, const struct gmp_result *r,
		    const struct gmp_findings_opts *o)
{
	char nb[160];
	gmp_jw__key(jw, "devices");
	gmp_jw__arr(jw);
	for (size_t i = 0; i < r->ndevices; i++) {
		const struct gmp_device_summary *ds = &r->devices[i];
		gmp_jw__obj(jw);
		gmp_jw__ku64(jw, "device", ds->device);
		/* what the collector recorded of it (META device.N.*) */
		const char *name = gmp_trace__device_name(r->trace, ds->device);
		uint64_t mem = gmp_trace__device_memory(r->trace, ds->device);
		if (name)
			gmp_jw__kstr(jw, "name", name);
		if (mem)
			gmp_jw__ku64(jw, "memory_bytes", mem);
		gmp_jw__ku64(jw, "peak_bytes", ds->peak_bytes);
		if (ds->inuse_peak_bytes) /* pools with regions */
			gmp_jw__ku64(jw, "inuse_peak_bytes", ds->inuse_peak_bytes);
		const struct gmp_pool_state *ps = gmp_trace__pool_state_last(r->trace, ds->device);
		if (ps) { /* stream-ordered pools, as the driver last said */
			gmp_jw__key(jw, "memory_pools");
			gmp_jw__obj(jw);
			gmp_jw__ku64(jw, "pools", ps->pools);
			gmp_jw__ku64(jw, "reserved_high_bytes", ps->reserved_high);
			gmp_jw__ku64(jw, "used_high_bytes", ps->used_high);
			gmp_jw__ku64(jw, "release_threshold_bytes", ps->threshold);
			gmp_jw__obj_end(jw);
		}
		gmp_jw__ku64(jw, "objects", ds->objects);
		gmp_jw__key(jw, "peaks");
		gmp_jw__arr(jw);
		for (size_t p = 0; p < r->npeaks; p++) {
			const struct gmp_peak *pk = &r->peaks[p];
			if (pk->device != ds->device)
				continue;
			gmp_jw__obj(jw);
			gmp_jw__ku64(jw, "bytes", pk->bytes);
			gmp_jw__key(jw, "at");
			gmp_findings__api_ref(jw, r, pk->ev, o);
			gmp_jw__key(jw, "live_objects");
			gmp_jw__arr(jw);
			for (uint32_t k = 0; k < pk->obj_n; k++) {
				uint32_t obj = r->peak_objs[pk->obj_off + k];
				gmp_jw__obj(jw);
				gmp_jw__kstr(jw, "object", gmp_result__object_name(r, obj, nb, sizeof(nb)));
				gmp_jw__ku64(jw, "size", r->objects[obj].size);
				/* the ranges it was allocated in */
				nvtx_ranges(jw, r->trace, gmp_trace__event_range(r->trace, r->objects[obj].alloc_ev));
				gmp_jw__obj_end(jw);
			}
			gmp_jw__arr_end(jw);
			gmp_jw__obj_end(jw);
		}
		gmp_jw__arr_end(jw);
		gmp_jw__obj_end(jw);
	}
	gmp_jw__arr_end(jw);
}

void gmp_findings__json(struct gmp_jw *jw, const struct gmp_result *r,
			const struct gmp_findings_opts *o)
{
	const struct gmp_trace *t = r->trace;
	gmp_jw__obj(jw);
	gmp_jw__ku64(jw, "gmprof_findings", GMP_FINDINGS_JSON_VERSION);
	if (o && o->input)
		gmp_jw__kstr(jw, "input", o->input);
	gmp_jw__kbool(jw, "complete", !t->truncated && !t->damaged);
	gmp_jw__ku64(jw, "events", t->nev);
	gmp_jw__ku64(jw, "apis", r->napis);
	gmp_jw__ku64(jw, "objects", r->nobjects);
	gmp_jw__ku64(jw, "dependency_edges", r->nedges);
	gmp_jw__ku64(jw, "levels", t->nev ? (uint64_t)r->max_level + 1 : 0);
	gmp_jw__ku64(jw, "peak_bytes", r->peak_bytes);
	devices(jw, r, o);
	if (r->nfails_total)
		failures(jw, r, o);
	gmp_jw__key(jw, "findings");
	gmp_jw__arr(jw);
	size_t n = r->nfindings;
	if (o && o->max_findings > 0 && (size_t)o->max_findings < n)
		n = (size_t)o->max_findings;
	for (size_t i = 0; i < n; i++)
		gmp_findings__one(jw, r, &r->findings[i], o);
	gmp_jw__arr_end(jw);
	if (r->nsmall || r->nmanaged || r->nshared) {
		gmp_jw__key(jw, "findings_left_out");
		gmp_jw__obj(jw);
		gmp_jw__ku64(jw, "min_size", r->nsmall);
		gmp_jw__ku64(jw, "managed", r->nmanaged);
		if (r->nshared)
			gmp_jw__ku64(jw, "shared", r->nshared);
		gmp_jw__obj_end(jw);
	}
	if (o && o->top_extra)
		o->top_extra(o->top_ctx, jw, r);
	gmp_jw__obj_end(jw);
}

/* "12.3 ms", or "1.2 ms to 143.2 ms" where the two differ (by more than a hundredth). */
static const char *range_ns(uint64_t lo, uint64_t hi, char *buf, size_t n)
{
	char a[32], b[32];
	if (hi - lo <= hi / 100)
		snprintf(buf, n, "%s", gmp_human_ns(hi, b, sizeof(b)));
	else if (!lo)
		snprintf(buf, n, "up to %s", gmp_human_ns(hi, b, sizeof(b)));
	else
		snprintf(buf, n, "%s to %s", gmp_human_ns(lo, a, sizeof(a)), gmp_human_ns(hi, b, sizeof(b)));
	return buf;
}

const char *gmp_findings__waited(const struct gmp_result *r, const struct gmp_clock *c, const struct gmp_finding *f,
				 char *buf, size_t n)
{
	struct gmp_held h;
	char a[48], b[48];
	*buf = 0;
	if (!c || gmp_clock__held(c, f, &h))
		return buf;
	range_ns(h.lo_ns, h.hi_ns, a, sizeof(a));
	switch (f->pattern) {
	case GMP_PAT_EARLY_ALLOCATION:
		snprintf(buf, n, "waited %s for its first use", a);
		break;
	case GMP_PAT_LATE_DEALLOCATION:
		snprintf(buf, n, "held %s after its last use", a);
		break;
	case GMP_PAT_TEMPORARY_IDLENESS:
		if (f->range_n > 1)
			snprintf(buf, n, "idle %s in all, the longest %s", a,
				 range_ns(h.longest_lo_ns, h.longest_hi_ns, b, sizeof(b)));
		else
			snprintf(buf, n, "idle %s", a);
		break;
	case GMP_PAT_MEMORY_LEAK:
		snprintf(buf, n, f->ev_a == r->objects[f->object].alloc_ev ? "held %s unused to the run's end"
							       : "held %s from its last use to the run's end", a);
		break;
	case GMP_PAT_UNUSED_ALLOCATION:
		snprintf(buf, n, "held %s unused", a);
		break;
	default:
		break;
	}
	return buf;
}
