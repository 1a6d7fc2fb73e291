// SPDX-License-Identifier: MIT
/*
 * Where things happened, and what stays the same across runs: the source
 * site of an event (its symbolized call path, else its script `at`), and
 * the fingerprint of a finding -- its pattern, the allocation site and
 * the sites of the APIs involved; never addresses, ordinals or times.
 *
 * A site enters a fingerprint as what survives an edit elsewhere in the
 * file and a checkout in another directory: its function, the file's name
 * without its directories, and the rank of its line among the lines of
 * that function and file where the trace made calls of the same kind (and
 * kernel): the third cudaMalloc line of main in app.cu stays the third
 * when lines are added above main, or above it in main, and the checkout
 * moves; only a new allocation line above it in main moves it (as a line
 * number would move with any line).  The ranks are indexed once, when a
 * session opens, over every call of the trace.
 */
#include "sites.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings_json.h"
#include "u64map.h"
#include "util.h"

/* A call's site: its `at`, or its symbolized stack, or NULL. */
static const char *site_of(struct gmp_sites *s, uint32_t at, uint32_t stack, struct gmp_frame *frame)
{
	if (at)
		return gmp_trace__str(s->r->trace, at, NULL);
	if (stack && s->sym)
		return gmp_symbolizer__site(s->sym, stack, frame);
	return NULL;
}

const char *gmp_sites__event(struct gmp_sites *s, uint32_t ev, struct gmp_frame *frame)
{
	const struct gmp_trace *t = s->r->trace;
	if (frame)
		memset(frame, 0, sizeof(*frame));
	return ev < t->nev ? site_of(s, t->ev[ev].at, t->ev[ev].stack, frame) : NULL;
}

const char *gmp_sites__failure(struct gmp_sites *s, uint32_t fail, struct gmp_frame *frame)
{
	const struct gmp_trace *t = s->r->trace;
	if (frame)
		memset(frame, 0, sizeof(*frame));
	return fail < t->nfails ? site_of(s, t->fails[fail].at, t->fails[fail].stack, frame) : NULL;
}

static uint64_t fnv(uint64_t h, const char *s)
{
	for (; s && *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	h ^= 0xff; /* a separator, so "ab"+"c" differs from "a"+"bc" */
	return h * 1099511628211ull;
}

uint64_t gmp_sites__label_fingerprint(const char *label)
{
	return fnv(fnv(1469598103934665603ull, "peak_growth"), label);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

/* A key the maps can hold (UINT64_MAX is reserved). */
static uint64_t key_of(uint64_t k)
{
	return k == UINT64_MAX ? 0 : k;
}

/*
 * The rank index: every call with a site (its call path or `at`, with
 * what it calls) once, with its site's group and its line's rank there.
 */
struct gmp_site_index {
	struct gmp_u64map calls;  /* call_key -> index into v */
	struct call {
		uint64_t group;
		uint32_t line, rank;
	} *v;
	size_t n, cap;
};

/*
 * A site's group (what is called there: kind and name, by content; the
 * function; the file's name without its directories) and its line; the
 * group of no site when there is none.
 */
static uint64_t group_of(struct gmp_sites *s, uint32_t at, uint32_t stack, const char *kind, const char *name,
			 uint32_t *line)
{
	struct gmp_frame f;
	memset(&f, 0, sizeof(f));
	const char *site = site_of(s, at, stack, &f);
	uint64_t h = fnv(fnv(fnv(1469598103934665603ull, kind), name), f.function);
	*line = 0;
	if (!site)
		return fnv(h, "");
	const char *colon = strrchr(site, ':'), *end = site + strlen(site);
	if (colon && colon[1] && strspn(colon + 1, "0123456789") == (size_t)(end - colon - 1)) {
		*line = (uint32_t)strtoul(colon + 1, NULL, 10);
		end = colon;
	}
	const char *base = site;
	for (const char *c = site; c < end; c++)
		if (*c == '/')
			base = c + 1;
	for (; base < end; base++)
		h = (h ^ (unsigned char)*base) * 1099511628211ull;
	return fnv(h, ""); /* the separator */
}

/* A call, as the index knows it: its site (path or `at`) and what it calls (op and name, or an API's). */
static uint64_t call_key(uint32_t at, uint32_t stack, uint64_t what, uint32_t name)
{
	return key_of(mix(mix(at ? (uint64_t)at << 32 | 1 : (uint64_t)stack << 32, what), name));
}

#define FAILURE_CALL 0xfa11u /* what a failed allocation calls, for call_key (beside the ops) */

/* An event's call's key; 0 when it has no site to index (no `at`, no call path symbolized). */
static uint64_t event_key(const struct gmp_sites *s, uint32_t ev)
{
	const struct gmp_event *e = &s->r->trace->ev[ev];
	return e->at || (e->stack && s->sym) ? call_key(e->at, e->stack, e->op, e->op == GMP_OP_KERNEL ? e->name : 0)
					     : 0;
}

static uint64_t failure_key(const struct gmp_sites *s, uint32_t fail)
{
	const struct gmp_alloc_failure *f = &s->r->trace->fails[fail];
	return f->at || (f->stack && s->sym) ? call_key(f->at, f->stack, FAILURE_CALL, f->api) : 0;
}

static uint64_t event_group(struct gmp_sites *s, uint32_t ev, uint32_t *line)
{
	const struct gmp_trace *t = s->r->trace;
	const struct gmp_event *e = &t->ev[ev];
	int kernel = e->op == GMP_OP_KERNEL;
	return group_of(s, e->at, e->stack, gmp_api__kind(e->op), kernel ? gmp_trace__str(t, e->name, NULL) : "",
			line);
}

static uint64_t failure_group(struct gmp_sites *s, uint32_t fail, uint32_t *line)
{
	const struct gmp_trace *t = s->r->trace;
	const struct gmp_alloc_failure *f = &t->fails[fail];
	return group_of(s, f->at, f->stack, "out_of_memory", gmp_trace__str(t, f->api, NULL), line);
}

/* Adds a call once (its site looked up the first time).  0 or -ENOMEM. */
static int add_call(struct gmp_sites *s, struct gmp_site_index *x, uint32_t i, int failure)
{
	uint64_t key = failure ? failure_key(s, i) : event_key(s, i);
	if (!key)
		return 0;
	int is_new;
	uint32_t *slot = gmp_u64map__slot(&x->calls, key, (uint32_t)x->n, &is_new);
	if (!slot || (is_new && GMP_GROW(x->v, x->cap, x->n + 1)))
		return -ENOMEM;
	if (is_new) {
		struct call *c = &x->v[x->n++];
		c->group = failure ? failure_group(s, i, &c->line) : event_group(s, i, &c->line);
	}
	return 0;
}

static int cmp_call(const void *a, const void *b)
{
	const struct call *x = *(const struct call *const *)a, *y = *(const struct call *const *)b;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

/*
 * Every call of the trace once, then their lines ranked within their
 * groups (the calls of one line share its rank).  A call path is
 * symbolized once per call, and the symbolizer caches frames: a trace of
 * millions of calls has a few thousand paths.
 */
static int build_index(struct gmp_sites *s, struct gmp_site_index *x)
{
	const struct gmp_trace *t = s->r->trace;
	int err = 0;
	for (uint32_t i = 0; i < t->nev && !err; i++)
		err = add_call(s, x, i, 0);
	for (uint32_t i = 0; i < t->nfails && !err; i++)
		err = add_call(s, x, i, 1);
	struct call **by = err || !x->n ? NULL : malloc(x->n * sizeof(*by));
	if (!err && x->n && !by)
		err = -ENOMEM;
	for (size_t i = 0; i < x->n && by; i++)
		by[i] = &x->v[i];
	if (by && x->n > 1)
		qsort(by, x->n, sizeof(*by), cmp_call);
	for (size_t i = 0, rank = 0; by && i < x->n; i++) {
		if (i && by[i]->group == by[i - 1]->group)
			rank += by[i]->line != by[i - 1]->line;
		else
			rank = 0;
		by[i]->rank = (uint32_t)rank;
	}
	free(by);
	return err;
}

static void index_free(struct gmp_site_index *x)
{
	if (!x)
		return;
	gmp_u64map__release(&x->calls);
	free(x->v);
	free(x);
}

int gmp_sites__index(struct gmp_sites *s)
{
	if (s->idx)
		return 0;
	struct gmp_site_index *x = calloc(1, sizeof(*x));
	if (x)
		gmp_u64map__init(&x->calls);
	if (!x || build_index(s, x)) {
		index_free(x);
		return -ENOMEM;
	}
	s->idx = x;
	return 0;
}

/* The call of key (0: none) in the index; NULL when it is not there. */
static const struct call *indexed(struct gmp_sites *s, uint64_t key)
{
	if (!s->idx && !s->idx_failed && gmp_sites__index(s)) {
		s->idx_failed = 1; /* a session makes it first, and fails without it: never here */
		fprintf(stderr, "gmprof: out of memory: fingerprints tell findings at several lines of one "
				"function apart no more\n");
	}
	const uint32_t *c = key && s->idx ? gmp_u64map__get(&s->idx->calls, key) : NULL;
	return c ? &s->idx->v[*c] : NULL;
}

void gmp_sites__release(struct gmp_sites *s)
{
	index_free(s->idx);
	s->idx = NULL;
}

uint64_t gmp_sites__site_fingerprint(const char *what, uint64_t key)
{
	return mix(fnv(1469598103934665603ull, what), key);
}

uint64_t gmp_sites__event_key(struct gmp_sites *s, uint32_t ev)
{
	const struct call *c = indexed(s, event_key(s, ev));
	uint32_t line;
	return c ? mix(c->group, c->rank) : mix(event_group(s, ev, &line), 0);
}

/* A site that survives rebuilds, edits elsewhere and moves: its group and its line's rank there. */
static uint64_t site_hash(struct gmp_sites *s, uint64_t h, uint32_t ev)
{
	return ev >= s->r->trace->nev ? fnv(h, "-") : mix(h, gmp_sites__event_key(s, ev));
}

uint64_t gmp_sites__failure_fingerprint(struct gmp_sites *s, uint32_t fail)
{
	const struct call *c = indexed(s, failure_key(s, fail));
	uint32_t line;
	return mix(fnv(1469598103934665603ull, "out_of_memory"),
		   c ? mix(c->group, c->rank) : mix(failure_group(s, fail, &line), 0));
}

uint64_t gmp_sites__fingerprint(struct gmp_sites *s, const struct gmp_finding *f)
{
	const struct gmp_result *r = s->r;
	const struct gmp_object *o = &r->objects[f->object];
	const struct gmp_event *a = &r->trace->ev[o->alloc_ev];
	uint64_t h = 1469598103934665603ull;
	h = fnv(h, gmp_pattern__name(f->pattern));
	h = site_hash(s, h, o->alloc_ev);
	/* Without any site, a user label still names the object. */
	if (a->flags & GMP_EF_HAS_LABEL)
		h = fnv(h, gmp_trace__str(r->trace, a->name, NULL));
	h = site_hash(s, h, f->ev_a);
	h = site_hash(s, h, f->ev_b);
	if (f->other != GMP_NO_OBJECT)
		h = site_hash(s, h, r->objects[f->other].alloc_ev);
	if (f->kernel)
		h = fnv(h, gmp_trace__str(r->trace, f->kernel, NULL));
	return h;
}

const char *gmp_sites__fingerprint_hex(struct gmp_sites *s, const struct gmp_finding *f,
				       char *buf, size_t n)
{
	snprintf(buf, n, "%016" PRIx64, gmp_sites__fingerprint(s, f));
	return buf;
}

static void frame_json(struct gmp_jw *jw, const struct gmp_frame *f)
{
	gmp_jw__obj(jw);
	gmp_jw__kstr(jw, "function", f->function ? f->function : "??");
	if (f->file) {
		gmp_jw__kstr(jw, "file", f->file);
		gmp_jw__ku64(jw, "line", f->line);
	}
	if (f->inlined)
		gmp_jw__kbool(jw, "inlined", 1);
	gmp_jw__obj_end(jw);
}

void gmp_sites__json_extra(void *ctx, struct gmp_jw *jw, const struct gmp_result *r,
			   const struct gmp_finding *f)
{
	struct gmp_sites *s = ctx;
	char fp[32];
	gmp_jw__kstr(jw, "fingerprint", gmp_sites__fingerprint_hex(s, f, fp, sizeof(fp)));
	const struct gmp_event *a = &r->trace->ev[r->objects[f->object].alloc_ev];
	if (a->stack && s->sym) {
		struct gmp_frame frames[32];
		size_t n = gmp_symbolizer__stack(s->sym, a->stack, frames, 32);
		gmp_jw__key(jw, "call_path");
		gmp_jw__arr(jw);
		for (size_t i = 0; i < n; i++)
			frame_json(jw, &frames[i]);
		gmp_jw__arr_end(jw);
	}
}

void gmp_sites__findings_opts(struct gmp_sites *s, struct gmp_findings_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->at_fn = s->sym ? gmp_symbolizer__at : NULL;
	o->at_ctx = s->sym;
	o->extra = gmp_sites__json_extra;
	o->extra_ctx = s;
}
