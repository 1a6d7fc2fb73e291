// SPDX-License-Identifier: MIT
/*
 * The detector's entry point: runs the passes in order, ranks the findings
 * and owns the result.  Also the shared helpers of the passes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "oneline.h"
#include "util.h"

static const char *const pattern_names[GMP_PAT_COUNT] = {
	"early_allocation", "late_deallocation", "redundant_allocation",
	"unused_allocation", "memory_leak", "temporary_idleness", "dead_write",
	"overallocation", "non_uniform_access_frequency", "structured_access",
};

const char *gmp_pattern__name(unsigned p)
{
	return p < GMP_PAT_COUNT ? pattern_names[p] : "?";
}

int gmp_pattern__parse(const char *s)
{
	for (unsigned p = 0; p < GMP_PAT_COUNT; p++)
		if (strcmp(s, pattern_names[p]) == 0)
			return (int)p;
	return -1;
}

int gmp_pattern__parse_list(const char *s, uint32_t *mask)
{
	if (strcmp(s, "all") == 0) {
		*mask = GMP_PAT_ALL;
		return 0;
	}
	uint32_t m = 0;
	const char *p = s;
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		char name[64];
		if (n == 0 || n >= sizeof(name))
			return -EINVAL;
		memcpy(name, p, n);
		name[n] = '\0';
		int pat = gmp_pattern__parse(name);
		if (pat < 0)
			return -EINVAL;
		m |= 1u << pat;
		p += n + (comma ? 1 : 0);
		if (comma && !*p)
			return -EINVAL;
	}
	if (!m)
		return -EINVAL;
	*mask = m;
	return 0;
}

void gmp_detect_opts__defaults(struct gmp_detect_opts *o)
{
	*o = (struct gmp_detect_opts){
		.early_apis = 1, .late_apis = 1, .idle_apis = 2, .redundant_pct = 10.0,
		.overalloc_pct = 80.0, .frag_pct = 80.0, .cv_pct = 20.0, .peaks = 2,
		.patterns = GMP_PAT_ALL,
	};
}

int det_fail(struct det *d, uint32_t ev, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->err->msg, sizeof(d->err->msg), fmt, ap);
	va_end(ap);
	d->err->ev = ev;
	d->err->line = ev < d->t->nev ? d->t->ev[ev].line : 0;
	return -EINVAL;
}

int det_add_finding(struct det *d, const struct gmp_finding *f)
{
	struct gmp_result *r = d->r;
	if (!(d->o->patterns & (1u << f->pattern)) ||
	    (d->o->accesses_unknown && !(GMP_PAT_WITHOUT_ACCESSES & (1u << f->pattern))))
		return 0; /* not asked for, or not to be told without the kernels' accesses */
	if (!d->o->managed_gpu_only && !(GMP_PAT_MANAGED_SEEN & (1u << f->pattern)) &&
	    (r->objects[f->object].kind == GMP_MEM_MANAGED ||
	     (f->other != GMP_NO_OBJECT && r->objects[f->other].kind == GMP_MEM_MANAGED))) {
		r->nmanaged++; /* the host may have used it where the GPU did not */
		return 0;
	}
	int sh = gmp_object__shared(r, f->object) | (f->other != GMP_NO_OBJECT ? gmp_object__shared(r, f->other) : 0);
	if ((sh & GMP_SHARED_IMPORTED) || ((sh & GMP_SHARED_EXPORTED) && !(GMP_PAT_MANAGED_SEEN & (1u << f->pattern)))) {
		r->nshared++; /* another process may have used it where this one did not */
		return 0;
	}
	if (r->objects[f->object].size < d->o->min_bytes) {
		r->nsmall++; /* too small to be worth telling (--min-size) */
		r->min_bytes = d->o->min_bytes;
		return 0;
	}
	if (GMP_GROW(r->findings, d->findings_cap, r->nfindings + 1))
		return -ENOMEM;
	r->findings[r->nfindings++] = *f;
	return 0;
}

int64_t det_add_hist(struct det *d, const struct gmp_hist *h)
{
	struct gmp_result *r = d->r;
	if (r->nhists >= UINT32_MAX || GMP_GROW(r->hists, d->hists_cap, r->nhists + 1))
		return -ENOMEM;
	r->hists[r->nhists] = *h;
	return (int64_t)r->nhists++;
}

int64_t det_add_range(struct det *d, const struct gmp_range *rg)
{
	struct gmp_result *r = d->r;
	if (r->nranges >= UINT32_MAX || GMP_GROW(r->ranges, d->ranges_cap, r->nranges + 1))
		return -ENOMEM;
	r->ranges[r->nranges] = *rg;
	return (int64_t)r->nranges++;
}

uint64_t det_apis_between(const struct det *d, uint32_t la, uint32_t lb)
{
	if (lb <= la + 1)
		return 0;
	return d->api_before[lb] - d->api_before[la + 1];
}

const char *gmp_api__kind(unsigned op)
{
	static const char *const k[] = { "?", "ALLOC", "FREE", "MEMCPY", "MEMSET", "KERNEL",
					 "SYNC", "EVENT_RECORD", "EVENT_WAIT" };
	return op <= GMP_OP_MAX ? k[op] : "?";
}

/* A few recent readable kernel names: labels repeat the same kernels. */
#define NAMES 64
struct gmp_names {
	uint32_t id[NAMES];
	char *name[NAMES];        /* NULL: the recorded name is the readable one */
	uint8_t used[NAMES];
};

const struct gmp_peak *gmp_result__top_peak(const struct gmp_result *r, uint32_t device)
{
	const struct gmp_peak *top = NULL;
	for (size_t i = 0; i < r->npeaks; i++)
		if ((device == GMP_ANY_DEVICE || r->peaks[i].device == device) &&
		    (!top || r->peaks[i].bytes > top->bytes))
			top = &r->peaks[i];
	return top;
}

size_t gmp_result__device_index(const struct gmp_result *r, uint32_t device)
{
	for (size_t i = 0; i < r->ndevices; i++)
		if (r->devices[i].device == device)
			return i;
	return SIZE_MAX;
}

const char *gmp_result__kernel_name(const struct gmp_result *r, uint32_t id)
{
	const char *raw = gmp_trace__str(r->trace, id, NULL);
	struct gmp_names *c = r->names;
	if (!c || !raw)
		return raw;
	size_t k = id % NAMES;
	if (!c->used[k] || c->id[k] != id) {
		free(c->name[k]);
		c->name[k] = r->opts.demangle(raw);
		c->id[k] = id;
		c->used[k] = 1;
	}
	return c->name[k] ? c->name[k] : raw;
}

int gmp_result__unknown_launch(const struct gmp_result *r, uint32_t ev)
{
	return ev < r->trace->nev && (det_unknown_launch_of(&r->opts, &r->trace->ev[ev]) || det_graph_lost(r, ev));
}

/* "stream 3", or "stream 3 'h2d copies'" where the program named it through NVTX. */
static const char *stream_text(const struct gmp_trace *t, uint32_t stream, char *buf, size_t n)
{
	char one[100];
	const char *name = gmp_trace__stream_name(t, stream);
	if (name)
		snprintf(buf, n, "stream %" PRIu32 " '%s'", stream, gmp_oneline(name, one, sizeof(one)));
	else
		snprintf(buf, n, "stream %" PRIu32, stream);
	return buf;
}

const char *gmp_result__api_label(const struct gmp_result *r, uint32_t ev, char *buf,
				  size_t n)
{
	const struct gmp_trace *t = r->trace;
	if (ev >= t->nev) {
		snprintf(buf, n, "program end");
		return buf;
	}
	const struct gmp_event *e = &t->ev[ev];
	char dev[32] = "", st[140];
	if (e->device)
		snprintf(dev, sizeof(dev), "device %" PRIu32 ", ", e->device);
	if (gmp_event__in_kernel(e) && e->value < ev) {
		const struct gmp_event *k = &t->ev[e->value];
		snprintf(buf, n, "%s in KERNEL %s (%s%s, #%" PRIu32 ")",
			 e->op == GMP_OP_ALLOC ? "malloc()" : "free()",
			 gmp_result__kernel_name(r, k->name), dev, stream_text(t, k->stream, st, sizeof(st)),
			 r->ordinal[e->value]);
	} else if (e->op == GMP_OP_KERNEL)
		snprintf(buf, n, "KERNEL %s (%s%s, #%" PRIu32 "%s)",
			 gmp_result__kernel_name(r, e->name), dev, stream_text(t, e->stream, st, sizeof(st)),
			 r->ordinal[ev], gmp_result__unknown_launch(r, ev) ? ", not monitored" : "");
	else
		snprintf(buf, n, "%s (%s%s, #%" PRIu32 ")", gmp_api__kind(e->op),
			 dev, stream_text(t, e->stream, st, sizeof(st)), r->ordinal[ev]);
	return buf;
}

const char *gmp_result__object_name(const struct gmp_result *r, uint32_t obj, char *buf,
				    size_t n)
{
	const struct gmp_object *o = &r->objects[obj];
	const struct gmp_event *e = &r->trace->ev[o->alloc_ev];
	if (e->flags & GMP_EF_HAS_LABEL)
		snprintf(buf, n, "%s", gmp_trace__str(r->trace, e->name, NULL));
	else
		snprintf(buf, n, "obj#%" PRIu32, obj + 1);
	return buf;
}

const char *det_obj(const struct det *d, uint32_t obj, char *buf, size_t n)
{
	return gmp_result__object_name(d->r, obj, buf, n);
}

int gmp_object__shared(const struct gmp_result *r, uint32_t obj)
{
	const struct gmp_object *o = &r->objects[obj];
	if (o->kind == GMP_MEM_IMPORTED)
		return GMP_SHARED_IMPORTED;
	return o->flags & GMP_OBJ_EXPORTED ? GMP_SHARED_EXPORTED : 0;
}

int gmp_finding__in_use(const struct gmp_result *r, const struct gmp_finding *f)
{
	return r->objects[f->object].kind == GMP_MEM_POOL_REGION;
}

uint64_t gmp_device__in_use_peak(const struct gmp_device_summary *ds)
{
	return ds->inuse_peak_bytes ? ds->inuse_peak_bytes : ds->peak_bytes;
}

uint64_t gmp_finding__peak_before(const struct gmp_result *r, const struct gmp_finding *f)
{
	const struct gmp_object *o = det_root(r, f->object);
	for (size_t i = 0; i < r->ndevices; i++)
		if (r->devices[i].device == o->device)
			return gmp_finding__in_use(r, f) ? r->devices[i].inuse_peak_bytes
							 : r->devices[i].peak_bytes;
	return 0;
}

uint64_t gmp_finding__peak_after(const struct gmp_result *r, const struct gmp_finding *f)
{
	return gmp_finding__peak_before(r, f) - f->saving;
}

static int cmp_findings(const void *a, const void *b, void *ctx)
{
	const struct gmp_finding *all = ctx;
	const struct gmp_finding *x = &all[*(const uint32_t *)a], *y = &all[*(const uint32_t *)b];
	if (x->saving != y->saving)
		return x->saving > y->saving ? -1 : 1;
	if (x->pattern != y->pattern)
		return x->pattern < y->pattern ? -1 : 1;
	if (x->object != y->object)
		return x->object < y->object ? -1 : 1;
	if (x->ev_a != y->ev_a)
		return x->ev_a < y->ev_a ? -1 : 1;
	return (x->ev_b > y->ev_b) - (x->ev_b < y->ev_b);
}

const char *gmp_pass__name(unsigned i)
{
	static const char *const names[GMP_PASSES] = {
		"resolve", "graph", "lifetime", "dead_write", "redundant", "intra", "peaks",
		"savings", "rank", "failures",
	};
	return i < GMP_PASSES ? names[i] : "?";
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int timed(struct det *d, unsigned pass, int (*fn)(struct det *))
{
	uint64_t t0 = now_ns();
	int rc = fn(d);
	d->r->pass_ns[pass] = now_ns() - t0;
	return rc;
}

void gmp_result__free(struct gmp_result *r)
{
	if (!r)
		return;
	free(r->objects);
	free(r->spans);
	free(r->hists);
	free(r->findings);
	free(r->ranges);
	free(r->peaks);
	free(r->peak_objs);
	free(r->curve);
	free(r->inuse_curve);
	free(r->devices);
	free(r->failures);
	free(r->fail_objs);
	free(r->fail_fixes);
	free(r->level);
	free(r->ordinal);
	free(r->order);
	free(r->dep_off);
	free(r->deps);
	free(r->graph_lost);
	if (r->names)
		for (size_t i = 0; i < NAMES; i++)
			free(r->names->name[i]);
	free(r->names);
	free(r);
}

/* Frees what only the pattern passes need, before the peak passes run. */
static void det_release_patterns(struct det *d)
{
	if (d->o->keep_deps && d->dep_off) { /* deps is NULL when no event uses an object */
		d->r->dep_off = d->dep_off;
		d->r->deps = d->deps;
		d->dep_off = d->deps = NULL;
	}
	free(d->dep_off);
	free(d->deps);
	free(d->touch_obj);
	free(d->weight);
	free(d->api_before);
	free(d->oacc_off);
	free(d->oacc);
	free(d->level_end);
	free(d->gap_off);
	free(d->unk);
	d->level_end = NULL;
	d->gap_off = NULL;
	d->unk = NULL;
	d->dep_off = d->deps = d->touch_obj = d->oacc_off = d->oacc = NULL;
	d->weight = NULL;
	d->api_before = NULL;
}

static void det_release(struct det *d)
{
	det_free_curves(d);
	det_release_patterns(d);
	free(d->pos);
	d->pos = NULL;
}

/* Ranks the findings by saving, sorting indices and permuting once. */
static int det_rank(struct det *d)
{
	struct gmp_result *r = d->r;
	size_t n = r->nfindings;
	if (n < 2)
		return 0;
	uint32_t *idx = malloc(n * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	qsort_r(idx, n, sizeof(*idx), cmp_findings, r->findings);
	/* Apply the permutation in place: slot i takes finding idx[i]. */
	for (size_t i = 0; i < n; i++) {
		if (idx[i] == i || idx[i] == UINT32_MAX)
			continue;
		struct gmp_finding tmp = r->findings[i];
		size_t j = i;
		for (;;) {
			size_t k = idx[j];
			idx[j] = UINT32_MAX;
			if (k == i) {
				r->findings[j] = tmp;
				break;
			}
			r->findings[j] = r->findings[k];
			j = k;
		}
	}
	free(idx);
	return 0;
}

/* Gives back the slack that doubling growth left at the end of an array. */
static void *fit(void *p, size_t n, size_t elem)
{
	if (!p || !n)
		return p;
	void *q = realloc(p, n * elem);
	return q ? q : p;
}

static void shrink(struct gmp_result *r)
{
	r->objects = fit(r->objects, r->nobjects, sizeof(*r->objects));
	r->findings = fit(r->findings, r->nfindings, sizeof(*r->findings));
	r->ranges = fit(r->ranges, r->nranges, sizeof(*r->ranges));
	r->spans = fit(r->spans, r->nspans, sizeof(*r->spans));
	r->hists = fit(r->hists, r->nhists, sizeof(*r->hists));
	r->peak_objs = fit(r->peak_objs, r->npeak_objs, sizeof(*r->peak_objs));
}

int gmp_detect(const struct gmp_trace *t, const struct gmp_detect_opts *o,
	       struct gmp_result **out, struct gmp_detect_error *err)
{
	struct gmp_detect_opts defaults;
	if (!o) {
		gmp_detect_opts__defaults(&defaults);
		o = &defaults;
	}
	struct gmp_detect_error scratch;
	if (!err)
		err = &scratch;
	memset(err, 0, sizeof(*err));
	err->ev = GMP_NO_EVENT;
	struct gmp_result *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->trace = t;
	r->opts = *o;
	if (o->demangle && !(r->names = calloc(1, sizeof(*r->names)))) {
		free(r);
		return -ENOMEM;
	}
	struct det d = { .t = t, .o = o, .r = r, .err = err };
	int rc;
	static int (*const pattern_passes[])(struct det *) = {
		det_resolve, det_build, det_object_patterns, det_dead_writes, det_redundant,
		det_intra,
	};
	unsigned p = 0;
	rc = 0;
	for (; p < 6 && !rc; p++)
		rc = timed(&d, p, pattern_passes[p]);
	if (!rc) {
		det_release_patterns(&d);
		shrink(r);
		if (!(rc = timed(&d, 6, det_peaks)) && !(rc = timed(&d, 7, det_savings)) &&
		    !(rc = timed(&d, 8, det_rank)))
			rc = timed(&d, 9, det_failures);
	}
	if (rc) {
		if (rc == -ENOMEM && !err->msg[0])
			snprintf(err->msg, sizeof(err->msg), "out of memory");
		det_release(&d);
		gmp_result__free(r);
		return rc;
	}
	det_release(&d);
	*out = r;
	return 0;
}
