// SPDX-License-Identifier: MIT
/*
 * Allocations that failed for lack of memory.  For each, the objects live
 * on its device when the program asked (in issue order: what the driver's
 * allocator had handed out and not taken back), and the findings whose
 * fixes would have freed bytes at that moment.  A fix frees an object at
 * the failure when the failure falls inside the range its fix removes:
 * before the first use of an early allocation, after the last use of a late
 * deallocation or a leak, inside an idle range, anywhere for an unused
 * allocation; an overallocation or structured access frees its unused
 * bytes; two redundant objects live together free the smaller.  In the
 * total an object counts once, by its largest fix, and a redundant pair
 * only when no other fix frees either of them.  Fixes inside pools
 * (regions) free nothing on the device and are not counted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "util.h"

/*
 * A failure is retried when the same thread then gets a device allocation
 * of at least its size within GMP_FAILURE_RETRY events: a caching
 * allocator that gave its cache back and asked again.
 */

/* Live at the moment after the first b events, on the device's own memory. */
static int live_at(const struct gmp_object *o, uint64_t b)
{
	return o->alloc_ev < b && (o->free_ev == GMP_NO_EVENT || o->free_ev >= b) &&
	       gmp_mem_kind__device_bytes(o->kind) && o->kind != GMP_MEM_DEVICE_HEAP;
}

/* Bytes fixing fd frees after the first b events (its object is live then). */
static uint64_t frees_at(const struct gmp_result *r, const struct gmp_finding *fd, uint64_t b)
{
	const struct gmp_object *o = &r->objects[fd->object];
	switch (fd->pattern) {
	case GMP_PAT_EARLY_ALLOCATION:
		return b <= fd->ev_b ? o->size : 0;
	case GMP_PAT_LATE_DEALLOCATION:
		return fd->ev_a < b ? o->size : 0;
	case GMP_PAT_UNUSED_ALLOCATION:
		return o->size;
	case GMP_PAT_MEMORY_LEAK:
		if (fd->ev_a == GMP_NO_EVENT)
			return 0; /* its last use unknown */
		return !o->naccess || o->last_ev < b ? o->size : 0;
	case GMP_PAT_TEMPORARY_IDLENESS:
		for (uint32_t i = 0; i < fd->range_n; i++) {
			const struct gmp_span *sp = &r->spans[fd->range_off + i];
			if (sp->ev_a < b && b <= sp->ev_b)
				return o->size;
		}
		return 0;
	case GMP_PAT_REDUNDANT_ALLOCATION: {
		const struct gmp_object *p = &r->objects[fd->other];
		if (!live_at(p, b))
			return 0;
		return o->size < p->size ? o->size : p->size;
	}
	case GMP_PAT_OVERALLOCATION:
	case GMP_PAT_STRUCTURED_ACCESS:
		return fd->bytes < o->size ? fd->bytes : o->size;
	default:
		return 0;
	}
}

static int cmp_obj(const void *a, const void *b, void *ctx)
{
	const struct gmp_result *r = ctx;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	if (r->objects[i].size != r->objects[j].size)
		return r->objects[i].size > r->objects[j].size ? -1 : 1;
	return (i > j) - (i < j);
}

static int cmp_fix(const void *a, const void *b)
{
	const struct gmp_failure_fix *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return (x->finding > y->finding) - (x->finding < y->finding);
}

/* Scratch shared by the failures: per object, its largest fix at the moment. */
struct scratch {
	uint32_t *objs;
	size_t nobjs;
	struct gmp_failure_fix *fixes;
	size_t nfixes;
	uint64_t *best;          /* per object: bytes its largest fix frees */
};

static int one(struct gmp_result *r, struct scratch *s, uint32_t fi, size_t *objs_cap,
	       size_t *fixes_cap)
{
	const struct gmp_alloc_failure *f = &r->trace->fails[fi];
	struct gmp_failure g = { .fail = fi, .device = f->device, .retry_ev = GMP_NO_EVENT };
	const struct gmp_trace *t = r->trace;
	for (uint64_t e = f->before; e < t->nev && e < f->before + GMP_FAILURE_RETRY; e++) {
		const struct gmp_event *x = &t->ev[e];
		if (x->op == GMP_OP_ALLOC && (x->kind == GMP_MEM_DEVICE || x->kind == GMP_MEM_MANAGED ||
					      x->kind == GMP_MEM_ASYNC || x->kind == GMP_MEM_ARRAY) && x->thread == f->thread &&
		    x->device == f->device && x->size >= f->size) {
			g.retry_ev = (uint32_t)e;
			break;
		}
	}
	s->nobjs = s->nfixes = 0;
	for (size_t o = 0; o < r->nobjects; o++) {
		const struct gmp_object *ob = &r->objects[o];
		if (ob->device != f->device || !live_at(ob, f->before))
			continue;
		s->objs[s->nobjs++] = (uint32_t)o;
		g.live_bytes += ob->size;
	}
	g.live_objects = s->nobjs;
	for (size_t i = 0; i < r->nfindings; i++) {
		const struct gmp_finding *fd = &r->findings[i];
		const struct gmp_object *ob = &r->objects[fd->object];
		if (ob->device != f->device || !live_at(ob, f->before))
			continue;
		uint64_t bytes = frees_at(r, fd, f->before);
		if (!bytes)
			continue;
		s->fixes[s->nfixes++] = (struct gmp_failure_fix){ .finding = (uint32_t)i,
								  .bytes = bytes };
		if (fd->pattern != GMP_PAT_REDUNDANT_ALLOCATION && bytes > s->best[fd->object]) {
			g.freeable += bytes - s->best[fd->object];
			s->best[fd->object] = bytes;
		}
	}
	/* Sharing a buffer frees the smaller of two objects, unless another fix frees either. */
	for (size_t i = 0; i < s->nfixes; i++) {
		const struct gmp_finding *fd = &r->findings[s->fixes[i].finding];
		if (fd->pattern != GMP_PAT_REDUNDANT_ALLOCATION || s->best[fd->object] ||
		    s->best[fd->other])
			continue;
		g.freeable += s->fixes[i].bytes;
		s->best[fd->object] = s->fixes[i].bytes;
	}
	for (size_t i = 0; i < s->nfixes; i++)
		s->best[r->findings[s->fixes[i].finding].object] = 0;
	if (s->nobjs > 1)
		qsort_r(s->objs, s->nobjs, sizeof(*s->objs), cmp_obj, r);
	if (s->nfixes > 1)
		qsort(s->fixes, s->nfixes, sizeof(*s->fixes), cmp_fix);
	size_t no = s->nobjs < GMP_FAILURE_LIST ? s->nobjs : GMP_FAILURE_LIST;
	size_t nf = s->nfixes < GMP_FAILURE_LIST ? s->nfixes : GMP_FAILURE_LIST;
	if (GMP_GROW(r->fail_objs, *objs_cap, r->nfail_objs + no) ||
	    GMP_GROW(r->fail_fixes, *fixes_cap, r->nfail_fixes + nf))
		return -ENOMEM;
	g.obj_off = (uint32_t)r->nfail_objs;
	g.obj_n = (uint32_t)no;
	if (no) /* (the arrays stay NULL until something is in them) */
		memcpy(r->fail_objs + r->nfail_objs, s->objs, no * sizeof(*s->objs));
	r->nfail_objs += no;
	g.fix_off = (uint32_t)r->nfail_fixes;
	g.fix_n = (uint32_t)nf;
	if (nf)
		memcpy(r->fail_fixes + r->nfail_fixes, s->fixes, nf * sizeof(*s->fixes));
	r->nfail_fixes += nf;
	r->failures[r->nfailures++] = g;
	return 0;
}

static void clear(struct gmp_result *r)
{
	free(r->failures);
	free(r->fail_objs);
	free(r->fail_fixes);
	r->failures = NULL;
	r->fail_objs = NULL;
	r->fail_fixes = NULL;
	r->nfailures = r->nfail_objs = r->nfail_fixes = 0;
}

/* A count the run's metadata gives (a decimal number), or 0. */
static size_t meta_count(const struct gmp_trace *t, const char *key)
{
	const char *v = gmp_trace__meta(t, key);
	if (!v || *v < '0' || *v > '9')
		return 0;
	char *end;
	errno = 0;
	unsigned long long u = strtoull(v, &end, 10);
	return *end || errno || u > SIZE_MAX / 2 ? 0 : (size_t)u;
}

int gmp_result__failures(struct gmp_result *r, const uint8_t *skip)
{
	const struct gmp_trace *t = r->trace;
	clear(r);
	r->nfails_total = 0;
	for (size_t i = 0; i < t->nfails; i++)
		r->nfails_total += !(skip && skip[i]);
	size_t n = r->nfails_total < GMP_FAILURES_ANALYZED ? r->nfails_total : GMP_FAILURES_ANALYZED;
	/* The collector records the first 4096 and counts the rest: they ran out of memory too. */
	r->nfails_unrecorded = meta_count(t, "failed_allocations_unrecorded");
	r->nfails_total += r->nfails_unrecorded;
	if (!n)
		return 0;
	struct scratch s = { 0 };
	size_t objs_cap = 0, fixes_cap = 0;
	int err = -ENOMEM;
	r->failures = calloc(n, sizeof(*r->failures));
	s.objs = malloc((r->nobjects ? r->nobjects : 1) * sizeof(*s.objs));
	s.fixes = malloc((r->nfindings ? r->nfindings : 1) * sizeof(*s.fixes));
	s.best = calloc(r->nobjects ? r->nobjects : 1, sizeof(*s.best));
	if (r->failures && s.objs && s.fixes && s.best) {
		err = 0;
		for (size_t i = 0; i < t->nfails && r->nfailures < n && !err; i++)
			if (!(skip && skip[i]))
				err = one(r, &s, (uint32_t)i, &objs_cap, &fixes_cap);
	}
	free(s.objs);
	free(s.fixes);
	free(s.best);
	if (err)
		clear(r);
	return err;
}

int det_failures(struct det *d)
{
	return gmp_result__failures(d->r, NULL);
}
