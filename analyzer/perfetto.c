// SPDX-License-Identifier: MIT
/*
 * The Perfetto trace: Chrome Trace Event JSON as Perfetto's importer reads
 * it, streamed event by event (never a tree in memory).
 *
 *   process per device (pid = device + 1), named "GPU d"
 *   thread per stream (tid = stream + 2) and one for device-wide syncs
 *     (tid 1): every API an X slice; under each kernel, copy and set, a
 *     child slice per object it reads or writes
 *   async b/e per object, named by allocation site, so one site's objects
 *     share a track group
 *   a counter "live bytes" per device, one C event per change; where pools
 *     have regions, a counter "bytes in use" too (the detector's curve of it);
 *     and "live bytes by site", a track per site holding most of the
 *     device's peak and one for the rest (stack.c), where there are two
 *     or more; "pools reserved" where stream-ordered pools were recorded
 *   v2 flows: one chain per object, bind_id = object + 1, from its
 *     allocation through every slice that touches it to its free
 *   (--lean: no child slices and no flows; each API's objects are in its
 *   args: a third of the trace events, under half the bytes)
 *   an instant (process scope) per finding, the finding object as args
 *   on the host axis, NVTX ranges (perfetto_ranges.c)
 *
 * Times are ns internally and written as µs with three decimals.  On the
 * topological axis one level is 1 µs; on the host axis ts is the host
 * clock at issue.  A slice lasts 1 µs (on the host axis, a sync until it
 * returned, where the profile says), cut short where the next slice on its
 * track begins, so slices on a track never overlap.
 */
#define _GNU_SOURCE
#include "perfetto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "findings_json.h"
#include "jw.h"
#include "oneline.h"
#include "stack.h"
#include "u64map.h"
#include "util.h"

#define SLICE_NS GMP_PERFETTO_SLICE_NS
#define TID_HOST 1u

struct track {
	uint32_t device, tid;
	uint32_t last;           /* backward pass: the next event seen on it */
};

struct pf {
	struct gmp_session *s;
	const struct gmp_result *r;
	const struct gmp_trace *t;
	struct gmp_perfetto_doc *doc; /* the document: its writer, comma state, count, bases */
	struct gmp_jw *jw;            /* doc's */
	const char *label;            /* names this input's processes (several inputs), or NULL */
	int host;
	uint32_t *order;         /* emission order (borrowed from r in topo mode) */
	uint32_t *owned_order;
	uint32_t *next;          /* per event: next event on its track, or UINT32_MAX */
	uint32_t *track_of;      /* per event */
	struct track *tracks;
	size_t ntracks, tracks_cap;
	struct gmp_u64map track_ids;
	uint32_t *last_use;      /* per object: its last event in emission order */
	uint8_t *seen;           /* per object: flow chain started */
	uint64_t *live;          /* per track device: live bytes (indexed by device slot) */
	struct gmp_stack *stacks; /* per track device: its live bytes by site */
	struct gmp_u64map inuse_at; /* event -> its point of r->inuse_curve (pools with regions) */
	struct gmp_u64map ret_at; /* host axis: event -> its earliest return in t->rets */
	struct gmp_u64map dev_ids;
	uint32_t *devs;
	size_t ndevs, devs_cap;
};

/* Starts a trace event on a line of its own: diffable and greppable. */
static void begin(struct pf *p)
{
	if (p->doc->any)
		gmp_jw__raw(p->jw, ",\n", 2);
	p->doc->any = 1;
	p->jw->first[1] = 1;
	gmp_jw__obj(p->jw);
}

static uint64_t ts_of(const struct pf *p, uint32_t ev)
{
	return p->host ? p->t->ev[ev].host_ns : (uint64_t)p->r->level[ev] * SLICE_NS;
}

static int host_cmp(const void *a, const void *b, void *ctx)
{
	const struct gmp_event *ev = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (ev[x].host_ns != ev[y].host_ns)
		return ev[x].host_ns < ev[y].host_ns ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Each input's processes from its own base (several inputs: a thousand apart). */
static uint32_t pid_of(const struct pf *p, uint32_t device) { return p->doc->pid_base + device + 1; }

/* Object ids (async slices and flows), each input's from its own base. */
static uint64_t obj_id(const struct pf *p, uint32_t obj) { return p->doc->id_base + obj + 1; }

static int device_slot(struct pf *p, uint32_t device, uint32_t *slot)
{
	int is_new = 0;
	uint32_t *v = gmp_u64map__slot(&p->dev_ids, device, (uint32_t)p->ndevs, &is_new);
	if (!v)
		return -ENOMEM;
	if (is_new) {
		if (GMP_GROW(p->devs, p->devs_cap, p->ndevs + 1))
			return -ENOMEM;
		p->devs[p->ndevs++] = device;
	}
	*slot = *v;
	return 0;
}

static int track_of(struct pf *p, const struct gmp_event *e, uint32_t *id)
{
	int wide = e->op == GMP_OP_SYNC && !(e->flags & GMP_EF_SYNC_STREAM);
	uint32_t tid = wide ? TID_HOST : e->stream + 2;
	uint64_t key = (uint64_t)e->device << 32 | tid;
	int is_new = 0;
	uint32_t *v = gmp_u64map__slot(&p->track_ids, key, (uint32_t)p->ntracks, &is_new);
	if (!v)
		return -ENOMEM;
	if (is_new) {
		if (GMP_GROW(p->tracks, p->tracks_cap, p->ntracks + 1))
			return -ENOMEM;
		p->tracks[p->ntracks++] = (struct track){ e->device, tid, UINT32_MAX };
	}
	*id = *v;
	return 0;
}

/* Orders the events, assigns tracks and finds each event's successor on its track. */
static int prepare(struct pf *p)
{
	const struct gmp_trace *t = p->t;
	size_t n = t->nev;
	if (p->host) {
		int any = 0;
		for (size_t i = 0; i < n && !any; i++)
			any = t->ev[i].host_ns != 0;
		if (n && !any)
			return -ENODATA;
		if (!(p->owned_order = malloc((n ? n : 1) * sizeof(uint32_t))))
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			p->owned_order[i] = (uint32_t)i;
		qsort_r(p->owned_order, n, sizeof(uint32_t), host_cmp, t->ev);
		p->order = p->owned_order;
		if (gmp_trace__return_index(t, &p->ret_at))
			return -ENOMEM;
	} else {
		p->order = p->r->order;
	}
	p->next = malloc((n ? n : 1) * sizeof(uint32_t));
	p->track_of = malloc((n ? n : 1) * sizeof(uint32_t));
	p->last_use = malloc((p->r->nobjects ? p->r->nobjects : 1) * sizeof(uint32_t));
	p->seen = calloc(p->r->nobjects ? p->r->nobjects : 1, 1);
	if (!p->next || !p->track_of || !p->last_use || !p->seen)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint32_t v = p->order[i], slot;
		int rc = track_of(p, &t->ev[v], &p->track_of[v]);
		if (!rc)
			rc = device_slot(p, t->ev[v].device, &slot);
		if (rc)
			return rc;
		for (uint32_t k = p->r->dep_off[v]; k < p->r->dep_off[v + 1]; k++)
			p->last_use[GMP_DEP_OBJ(p->r->deps[k])] = v;
	}
	for (size_t i = n; i-- > 0;) {
		uint32_t v = p->order[i];
		struct track *tr = &p->tracks[p->track_of[v]];
		p->next[v] = tr->last;
		tr->last = v;
	}
	if (!(p->live = calloc(p->ndevs ? p->ndevs : 1, sizeof(uint64_t))) ||
	    !(p->stacks = calloc(p->ndevs ? p->ndevs : 1, sizeof(*p->stacks))))
		return -ENOMEM;
	for (size_t i = 0; i < p->ndevs; i++) {
		int rc = gmp_stack__build(&p->s->sites, p->r, p->devs[i], 0, 8, 1, &p->stacks[i]);
		if (rc && rc != -ENOENT) /* none: a device without memory */
			return rc;
	}
	for (size_t k = 0; k < p->r->ninuse_curve; k++)
		if (!gmp_u64map__slot(&p->inuse_at, p->r->inuse_curve[k].ev, (uint32_t)k, NULL))
			return -ENOMEM;
	return 0;
}

/* The common head of a trace event. */
static void head(struct pf *p, const char *ph, const char *name, uint32_t pid, uint64_t ts)
{
	struct gmp_jw *jw = p->jw;
	begin(p);
	GMP_JW_KEY(jw, "ph");
	gmp_jw__str(jw, ph);
	GMP_JW_KEY(jw, "name");
	gmp_jw__str(jw, name);
	GMP_JW_KEY(jw, "pid");
	gmp_jw__u64(jw, pid);
	GMP_JW_KEY(jw, "ts");
	gmp_jw__milli(jw, ts);
	p->doc->written++;
}

/* One metadata event: args holds one key, a string or a number. */
static void meta1(struct pf *p, const char *what, uint32_t pid, uint32_t tid, const char *key,
		  const char *str, uint64_t num)
{
	struct gmp_jw *jw = p->jw; /* a few per track: keys by name, not GMP_JW_KEY */
	begin(p);
	gmp_jw__kstr(jw, "ph", "M");
	gmp_jw__kstr(jw, "name", what);
	gmp_jw__ku64(jw, "pid", pid);
	if (tid)
		gmp_jw__ku64(jw, "tid", tid);
	GMP_JW_KEY(jw, "args");
	gmp_jw__obj(jw);
	gmp_jw__key(jw, key);
	if (str)
		gmp_jw__str(jw, str);
	else
		gmp_jw__u64(jw, num);
	gmp_jw__obj_end(jw);
	gmp_jw__obj_end(jw);
	p->doc->written++;
}

static void meta(struct pf *p, const char *what, uint32_t pid, uint32_t tid, const char *name,
		 uint32_t sort)
{
	meta1(p, what, pid, tid, "name", name, 0);
	meta1(p, tid ? "thread_sort_index" : "process_sort_index", pid, tid, "sort_index", NULL, sort);
}

static void names(struct pf *p)
{
	char buf[256], dev[160];
	for (size_t d = 0; d < p->ndevs; d++) {
		/* "GPU 0 (NVIDIA H100 80GB HBM3, 79.6 GiB)" where the profile records it */
		const char *what = gmp_text__device(p->t, p->devs[d], dev, sizeof(dev));
		snprintf(buf, sizeof(buf), "%.60s%sGPU %u%s%s%s", p->label ? p->label : "", p->label ? ": " : "",
			 p->devs[d], what ? " (" : "", what ? what : "", what ? ")" : "");
		meta(p, "process_name", pid_of(p, p->devs[d]), 0, buf, p->devs[d]);
	}
	for (size_t i = 0; i < p->ntracks; i++) {
		const struct track *tr = &p->tracks[i];
		char one[100];
		unsigned stream = tr->tid - 2;
		const char *named = tr->tid == TID_HOST ? NULL : gmp_trace__stream_name(p->t, stream); /* through NVTX */
		if (tr->tid == TID_HOST)
			snprintf(buf, sizeof(buf), "host: device synchronization");
		else if (named) /* "h2d copies (stream 3)" */
			snprintf(buf, sizeof(buf), "%s (stream %u%s)", gmp_oneline(named, one, sizeof(one)), stream,
				 stream ? "" : ", legacy default");
		else
			snprintf(buf, sizeof(buf), "stream %u%s", stream, stream ? "" : " (legacy default)");
		meta(p, "thread_name", pid_of(p, tr->device), tr->tid, buf, tr->tid);
	}
}

/* Binds a slice into its object's flow chain. */
static void flow(struct pf *p, uint32_t obj, uint32_t ev)
{
	if (p->doc->lean)
		return; /* no child slices to bind: no flows */
	int in = p->seen[obj], out = p->last_use[obj] != ev;
	p->seen[obj] = 1;
	if (!in && !out)
		return;
	GMP_JW_KEY(p->jw, "bind_id");
	gmp_jw__u64(p->jw, obj_id(p, obj));
	if (in) {
		GMP_JW_KEY(p->jw, "flow_in");
		gmp_jw__bool(p->jw, 1);
	}
	if (out) {
		GMP_JW_KEY(p->jw, "flow_out");
		gmp_jw__bool(p->jw, 1);
	}
}

static const char *object_site(struct pf *p, uint32_t obj, char *buf, size_t n)
{
	const char *site = gmp_sites__event(&p->s->sites, p->r->objects[obj].alloc_ev, NULL);
	snprintf(buf, n, "alloc at %s", site ? site : "an unknown site");
	return buf;
}

static void lifetime(struct pf *p, uint32_t obj, const char *ph, uint64_t ts, int leaked)
{
	struct gmp_jw *jw = p->jw;
	const struct gmp_object *o = &p->r->objects[obj];
	char site[560], name[160];
	head(p, ph, object_site(p, obj, site, sizeof(site)), pid_of(p, o->device), ts);
	GMP_JW_KEY(jw, "cat");
	gmp_jw__str(jw, "object");
	GMP_JW_KEY(jw, "id");
	gmp_jw__hex(jw, obj_id(p, obj));
	gmp_jw__key(jw, "args");
	gmp_jw__obj(jw);
	GMP_JW_KEY(jw, "object");
	gmp_jw__str(jw, gmp_result__object_name(p->r, obj, name, sizeof(name)));
	GMP_JW_KEY(jw, "size");
	gmp_jw__u64(jw, o->size);
	GMP_JW_KEY(jw, "addr");
	gmp_jw__hex(jw, o->addr);
	int sh = gmp_object__shared(p->r, obj);
	if (sh) { /* memory shared between processes: whose it is */
		GMP_JW_KEY(jw, "shared");
		gmp_jw__str(jw, sh == GMP_SHARED_IMPORTED ? "another process's" : "with other processes");
	}
	if (leaked) {
		GMP_JW_KEY(jw, "leaked");
		gmp_jw__bool(jw, 1);
	}
	gmp_jw__obj_end(jw);
	gmp_jw__obj_end(jw);
}

/* A counter's value: the track "NAME KEY" (Perfetto names a counter's tracks so). */
static void counter(struct pf *p, const char *name, const char *key, uint32_t device, uint64_t bytes, uint64_t ts)
{
	head(p, "C", name, pid_of(p, device), ts);
	gmp_jw__key(p->jw, "args");
	gmp_jw__obj(p->jw);
	gmp_jw__key(p->jw, key);
	gmp_jw__u64(p->jw, bytes);
	gmp_jw__obj_end(p->jw);
	gmp_jw__obj_end(p->jw);
}

/* An ALLOC or FREE: its object's lifetime begins or ends, and live bytes change. */
static void own_object(struct pf *p, const struct gmp_event *e, uint32_t obj, uint64_t ts,
		       uint64_t dur)
{
	if (e->op == GMP_OP_ALLOC)
		lifetime(p, obj, "b", ts, 0);
	else
		lifetime(p, obj, "e", ts + dur, 0);
	const struct gmp_object *o = &p->r->objects[obj];
	uint32_t *slot = gmp_u64map__get(&p->dev_ids, o->device);
	if (!slot)
		return;
	uint32_t *at = gmp_u64map__get(&p->inuse_at, (uint64_t)(e - p->t->ev));
	if (at)
		counter(p, "bytes in use", "bytes", o->device, p->r->inuse_curve[*at].live, ts);
	if (!gmp_mem_kind__device_bytes(o->kind))
		return; /* inside its pool, which counts already, or another process's */
	if (e->op == GMP_OP_ALLOC)
		p->live[*slot] += o->size;
	else
		p->live[*slot] -= o->size;
	counter(p, "live bytes", "bytes", o->device, p->live[*slot], ts);
	uint64_t b;
	const char *site = gmp_stack__change(&p->stacks[*slot], p->r, obj, e->op == GMP_OP_ALLOC, &b);
	if (site)
		counter(p, "live bytes by site", site, o->device, b, ts);
}

static void api(struct pf *p, uint32_t v)
{
	struct gmp_jw *jw = p->jw;
	const struct gmp_trace *t = p->t;
	const struct gmp_event *e = &t->ev[v];
	const struct track *tr = &p->tracks[p->track_of[v]];
	uint64_t ts = ts_of(p, v), dur = SLICE_NS;
	/* On the host axis a sync lasts until it returned: how long the host waited. */
	const uint32_t *ret = p->host && e->op == GMP_OP_SYNC && e->host_ns && t->nrets ? gmp_u64map__get(&p->ret_at, v)
											     : NULL;
	uint64_t waited = ret ? t->rets[*ret].host_ns - ts : 0;
	dur = waited > dur ? waited : dur;
	if (p->next[v] != UINT32_MAX) {
		uint64_t nts = ts_of(p, p->next[v]);
		dur = nts - ts < dur ? nts - ts : dur;
	}
	const char *name = e->op == GMP_OP_KERNEL && e->name ? gmp_result__kernel_name(p->r, e->name)
							      : gmp_api__kind(e->op);
	uint32_t d0 = p->r->dep_off[v], d1 = p->r->dep_off[v + 1];
	head(p, "X", name, pid_of(p, e->device), ts);
	GMP_JW_KEY(jw, "tid");
	gmp_jw__u64(jw, tr->tid);
	GMP_JW_KEY(jw, "dur");
	gmp_jw__milli(jw, dur);
	GMP_JW_KEY(jw, "cat");
	gmp_jw__str(jw, gmp_api__kind(e->op));
	int own = e->op == GMP_OP_ALLOC || e->op == GMP_OP_FREE;
	if (own && d1 > d0)
		flow(p, GMP_DEP_OBJ(p->r->deps[d0]), v);
	gmp_jw__key(jw, "args");
	gmp_jw__obj(jw);
	GMP_JW_KEY(jw, "ordinal");
	gmp_jw__u64(jw, p->r->ordinal[v]);
	GMP_JW_KEY(jw, "level");
	gmp_jw__u64(jw, p->r->level[v]);
	if (ret)
		gmp_jw__ku64(jw, "returned_after_ns", waited);
	if (e->op != GMP_OP_KERNEL && e->size)
		gmp_jw__ku64(jw, "size", e->size);
	if (e->op != GMP_OP_KERNEL && e->addr)
		gmp_jw__khex(jw, "addr", e->addr);
	if (e->op == GMP_OP_KERNEL && e->graph) /* a kernel node of that CUDA graph launch */
		gmp_jw__ku64(jw, "graph", e->graph);
	if (gmp_result__unknown_launch(p->r, v)) /* its accesses are unknown: it may have used any live object */
		gmp_jw__kbool(jw, "monitored", 0);
	const char *site = gmp_sites__event(&p->s->sites, v, NULL);
	if (site) {
		GMP_JW_KEY(jw, "at");
		gmp_jw__str(jw, site);
	}
	char rg[256];
	if (*gmp_trace__event_range_text(t, v, rg, sizeof(rg))) {
		GMP_JW_KEY(jw, "ranges");
		gmp_jw__str(jw, rg);
	}
	if (p->doc->lean && !own && d1 > d0) {
		/* The objects it used, in its args instead of child slices. */
		GMP_JW_KEY(jw, "objects");
		gmp_jw__arr(jw);
		for (uint32_t k = d0; k < d1; k++) {
			char cname[200];
			size_t cn = gmp_perfetto__child_name(p->r, GMP_DEP_OBJ(p->r->deps[k]), GMP_DEP_KIND(p->r->deps[k]),
					       cname, sizeof(cname));
			gmp_jw__strn(jw, cname, cn);
		}
		gmp_jw__arr_end(jw);
	}
	gmp_jw__obj_end(jw);
	gmp_jw__obj_end(jw);
	if (p->doc->lean && !own)
		return;
	if (own) {
		if (d1 > d0)
			own_object(p, e, GMP_DEP_OBJ(p->r->deps[d0]), ts, dur);
		return;
	}
	/* A child slice per object used, nested in the API's slice. */
	uint64_t cdur = dur * 9 / 10;
	for (uint32_t k = d0; k < d1; k++) {
		uint32_t obj = GMP_DEP_OBJ(p->r->deps[k]), kind = GMP_DEP_KIND(p->r->deps[k]);
		char cname[200];
		size_t cn = gmp_perfetto__child_name(p->r, obj, kind, cname, sizeof(cname));
		begin(p);
		GMP_JW_KEY(jw, "ph");
		gmp_jw__strn(jw, "X", 1);
		GMP_JW_KEY(jw, "name");
		gmp_jw__strn(jw, cname, cn);
		GMP_JW_KEY(jw, "pid");
		gmp_jw__u64(jw, pid_of(p, e->device));
		GMP_JW_KEY(jw, "ts");
		gmp_jw__milli(jw, ts);
		GMP_JW_KEY(jw, "tid");
		gmp_jw__u64(jw, tr->tid);
		GMP_JW_KEY(jw, "dur");
		gmp_jw__milli(jw, cdur);
		flow(p, obj, v);
		gmp_jw__obj_end(jw);
		p->doc->written++;
	}
}

static void findings(struct pf *p, uint64_t end)
{
	struct gmp_jw *jw = p->jw;
	struct gmp_findings_opts fo;
	gmp_sites__findings_opts(&p->s->sites, &fo);
	fo.max_ranges = 8; /* an instant is a summary: the report has them all */
	for (size_t i = 0; i < p->r->nfindings; i++) {
		const struct gmp_finding *f = &p->r->findings[i];
		const struct gmp_object *o = &p->r->objects[f->object];
		uint32_t at = f->ev_b != GMP_NO_EVENT ? f->ev_b
			      : f->ev_a != GMP_NO_EVENT ? f->ev_a : o->alloc_ev;
		uint64_t ts = f->pattern == GMP_PAT_MEMORY_LEAK ? end : ts_of(p, at);
		char name[200], oname[160];
		snprintf(name, sizeof(name), "%s: %s", gmp_pattern__name(f->pattern),
			 gmp_result__object_name(p->r, f->object, oname, sizeof(oname)));
		head(p, "i", name, pid_of(p, o->device), ts);
		GMP_JW_KEY(jw, "s");
	gmp_jw__str(jw, "p");
		GMP_JW_KEY(jw, "cat");
	gmp_jw__str(jw, "finding");
		gmp_jw__key(jw, "args");
		gmp_findings__one(jw, p->r, f, &fo);
		gmp_jw__obj_end(jw);
	}
}

/*
 * Allocations that ran out of memory: instants on their device, at their
 * host time, or just after the last API issued before them.
 */
static void failures(struct pf *p)
{
	struct gmp_jw *jw = p->jw;
	struct gmp_findings_opts fo;
	gmp_sites__findings_opts(&p->s->sites, &fo);
	for (size_t i = 0; i < p->r->nfailures; i++) {
		const struct gmp_failure *g = &p->r->failures[i];
		const struct gmp_alloc_failure *f = &p->t->fails[g->fail];
		uint64_t ts = p->host ? f->host_ns : f->before ? ts_of(p, (uint32_t)f->before - 1) + SLICE_NS : 0;
		char name[96], sz[32];
		snprintf(name, sizeof(name), "out of memory: %s of %s",
			 f->api ? gmp_trace__str(p->t, f->api, NULL) : "allocation",
			 gmp_human_bytes(f->size, sz, sizeof(sz)));
		head(p, "i", name, pid_of(p, f->device), ts);
		GMP_JW_KEY(jw, "s");
		gmp_jw__str(jw, "p");
		GMP_JW_KEY(jw, "cat");
		gmp_jw__str(jw, "out_of_memory");
		gmp_jw__key(jw, "args");
		gmp_jw__obj(jw);
		gmp_jw__ku64(jw, "size", f->size);
		gmp_findings__failure_memory(jw, p->r, g);
		gmp_jw__kstr(jw, "at", gmp_findings__where_failure(p->r, g->fail, &fo));
		gmp_jw__obj_end(jw);
		gmp_jw__obj_end(jw);
	}
}

/* Stream-ordered pools: a counter of the bytes they held reserved on each device, at each recorded state. */
static void pools(struct pf *p)
{
	for (size_t i = 0; i < p->t->npools; i++) {
		const struct gmp_pool_state *ps = &p->t->pools[i];
		uint64_t ts = ps->before ? ts_of(p, (uint32_t)ps->before - 1) + SLICE_NS : 0;
		counter(p, "pools reserved", "bytes", ps->device, ps->reserved, ts);
	}
}

/* One input's trace events: names, every API in emission order, leaks' ends, findings. */
static void write_events(struct pf *p)
{
	names(p);
	uint64_t end = 0;
	for (size_t i = 0; i < p->t->nev; i++) {
		uint32_t v = p->order[i];
		api(p, v);
		uint64_t e = ts_of(p, v) + SLICE_NS;
		end = e > end ? e : end;
	}
	for (size_t o = 0; o < p->r->nobjects; o++)
		if (p->r->objects[o].free_ev == GMP_NO_EVENT)
			lifetime(p, (uint32_t)o, "e", end, 1);
	findings(p, end);
	failures(p);
	pools(p);
}

int gmp_perfetto__add(struct gmp_perfetto_doc *d, struct gmp_session *s, const char *label)
{
	struct pf p = { .s = s, .r = s->r, .t = s->in.trace, .host = d->host, .doc = d, .jw = &d->jw,
			.label = label };
	gmp_u64map__init(&p.track_ids);
	gmp_u64map__init(&p.dev_ids);
	gmp_u64map__init(&p.inuse_at);
	gmp_u64map__init(&p.ret_at);
	int rc = s->r->dep_off ? prepare(&p) : -EINVAL; /* keep_deps; deps NULL: no uses */
	if (!rc) {
		write_events(&p);
		/* The NVTX ranges' process sits after the input's GPUs (a thousand pids apart). */
		rc = gmp_perfetto__ranges(d, p.r, d->pid_base + 999);
	}
	if (!rc)
		rc = gmp_jw__flush(&d->jw);
	free(p.owned_order);
	free(p.next);
	free(p.track_of);
	free(p.tracks);
	free(p.last_use);
	free(p.seen);
	free(p.live);
	for (size_t i = 0; p.stacks && i < p.ndevs; i++)
		gmp_stack__release(&p.stacks[i]);
	free(p.stacks);
	free(p.devs);
	gmp_u64map__release(&p.track_ids);
	gmp_u64map__release(&p.dev_ids);
	gmp_u64map__release(&p.inuse_at);
	gmp_u64map__release(&p.ret_at);
	/* The next input's processes and objects start past this one's. */
	d->pid_base += 1000;
	d->id_base += s->r->nobjects;
	return rc;
}
