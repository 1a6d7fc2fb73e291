// SPDX-License-Identifier: MIT
/*
 * Where things happened, and what stays the same across runs: the source
 * site of an event (its symbolized call path, else its script `at`), and
 * the fingerprint of a finding -- its pattern, the allocation site and
 * the sites of the APIs involved; never addresses, ordinals or times.
 */
#include "sites.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "findings_json.h"

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

/* A site that survives rebuilds: function, file and line, or the script's `at`. */
static uint64_t site_hash(struct gmp_sites *s, uint64_t h, uint32_t ev)
{
	const struct gmp_trace *t = s->r->trace;
	if (ev >= t->nev)
		return fnv(h, "-");
	const struct gmp_event *e = &t->ev[ev];
	h = fnv(h, gmp_api__kind(e->op));
	if (e->op == GMP_OP_KERNEL)
		h = fnv(h, gmp_trace__str(t, e->name, NULL));
	struct gmp_frame f;
	const char *site = gmp_sites__event(s, ev, &f);
	if (f.function)
		h = fnv(h, f.function);
	return fnv(h, site ? site : "");
}

uint64_t gmp_sites__failure_fingerprint(struct gmp_sites *s, uint32_t fail)
{
	const struct gmp_trace *t = s->r->trace;
	const struct gmp_alloc_failure *f = &t->fails[fail];
	struct gmp_frame fr;
	const char *site = gmp_sites__failure(s, fail, &fr);
	uint64_t h = fnv(1469598103934665603ull, "out_of_memory");
	h = fnv(h, gmp_trace__str(t, f->api, NULL));
	if (fr.function)
		h = fnv(h, fr.function);
	return fnv(h, site ? site : "");
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
