// SPDX-License-Identifier: MIT
/*
 * The event-script writer (`gmprof dump`): one JSON line per event, with
 * exactly the fields the reader needs to rebuild the same trace.
 */
#include <errno.h>
#include <string.h>

#include "gmprof/script.h"
#include "jw.h"
#include "u64map.h"

static void event_value(struct gmp_jw *jw, const struct gmp_trace *t, uint64_t v)
{
	if (v & GMP_EVENT_NAMED)
		gmp_jw__kstr(jw, "event", gmp_trace__str(t, (uint32_t)(v & 0xffffffffu), NULL));
	else
		gmp_jw__ku64(jw, "event", v);
}

static void addr_list(struct gmp_jw *jw, const struct gmp_trace *t,
		      const struct gmp_event *e, const char *key, uint32_t bit)
{
	size_t n = 0;
	for (uint32_t i = 0; i < e->acc_n; i++)
		n += (t->acc[e->acc_off + i].rw & bit) != 0;
	if (!n)
		return;
	gmp_jw__key(jw, key);
	gmp_jw__arr(jw);
	for (uint32_t i = 0; i < e->acc_n; i++)
		if (t->acc[e->acc_off + i].rw & bit)
			gmp_jw__hex(jw, t->acc[e->acc_off + i].addr);
	gmp_jw__arr_end(jw);
}

static void touches(struct gmp_jw *jw, const struct gmp_trace *t, const struct gmp_event *e)
{
	static const char *const rw_names[] = { "", "r", "w", "rw" };
	gmp_jw__key(jw, "touch");
	gmp_jw__arr(jw);
	for (uint32_t i = 0; i < e->touch_n; i++) {
		const struct gmp_touch *tc = &t->touch[e->touch_off + i];
		gmp_jw__obj(jw);
		gmp_jw__khex(jw, "addr", tc->addr);
		gmp_jw__ku64(jw, "size", tc->size);
		if (tc->count != 1)
			gmp_jw__ku64(jw, "count", tc->count);
		gmp_jw__kstr(jw, "rw", rw_names[tc->rw & 3]);
		gmp_jw__obj_end(jw);
	}
	gmp_jw__arr_end(jw);
}

static void op_fields(struct gmp_jw *jw, const struct gmp_trace *t, const struct gmp_event *e)
{
	switch (e->op) {
	case GMP_OP_ALLOC:
		gmp_jw__khex(jw, "addr", e->addr);
		gmp_jw__ku64(jw, "size", e->size);
		if (e->kind != GMP_MEM_DEVICE)
			gmp_jw__kstr(jw, "kind", gmp_mem_kind__name(e->kind));
		if (e->flags & GMP_EF_HAS_LABEL)
			gmp_jw__kstr(jw, "label", gmp_trace__str(t, e->name, NULL));
		if (e->flags & GMP_EF_EXPORTED)
			gmp_jw__kbool(jw, "exported", 1);
		break;
	case GMP_OP_FREE:
		gmp_jw__khex(jw, "addr", e->addr);
		break;
	case GMP_OP_MEMCPY:
		if (e->flags & GMP_EF_HAS_DST)
			gmp_jw__khex(jw, "dst", e->addr);
		if (e->flags & GMP_EF_HAS_SRC)
			gmp_jw__khex(jw, "src", e->src);
		gmp_jw__ku64(jw, "size", e->size);
		if (e->flags & GMP_EF_ASYNC)
			gmp_jw__kbool(jw, "async", 1);
		break;
	case GMP_OP_MEMSET:
		gmp_jw__khex(jw, "addr", e->addr);
		gmp_jw__ku64(jw, "size", e->size);
		if (e->flags & GMP_EF_HAS_VALUE)
			gmp_jw__ku64(jw, "value", e->value);
		if (e->flags & GMP_EF_ASYNC)
			gmp_jw__kbool(jw, "async", 1);
		break;
	case GMP_OP_KERNEL:
		gmp_jw__kstr(jw, "name", gmp_trace__str(t, e->name, NULL));
		if (e->graph)
			gmp_jw__ku64(jw, "graph", e->graph);
		if (!(e->flags & GMP_EF_ACCESS_KNOWN)) {
			gmp_jw__kbool(jw, "monitored", 0); /* its accesses are unknown */
			break;
		}
		addr_list(jw, t, e, "read", GMP_RW_READ);
		addr_list(jw, t, e, "write", GMP_RW_WRITE);
		if (e->flags & GMP_EF_TOUCH_KNOWN)
			touches(jw, t, e);
		break;
	case GMP_OP_SYNC:
		if (e->flags & GMP_EF_SYNC_EVENT)
			event_value(jw, t, e->value);
		break;
	case GMP_OP_EVENT_RECORD:
	case GMP_OP_EVENT_WAIT:
		event_value(jw, t, e->value);
		break;
	}
}

static void header(struct gmp_jw *jw, const struct gmp_trace *t)
{
	gmp_jw__rawf(jw, "# gmprof event script, version 1: %zu events\n", t->nev);
	for (size_t i = 0; i < t->nmeta; i++) { /* read back as the run's metadata */
		gmp_jw__obj(jw);
		gmp_jw__kstr(jw, "op", "meta");
		gmp_jw__kstr(jw, "key", t->meta[i].key);
		gmp_jw__kstr(jw, "value", t->meta[i].value);
		gmp_jw__obj_end(jw);
		gmp_jw__raw(jw, "\n", 1);
	}
	for (size_t i = 0; i < t->nstreams; i++) { /* streams whose creation flags are known */
		if (!(t->streams[i].flags & GMP_STREAM_KNOWN) || !t->streams[i].number)
			continue;
		gmp_jw__obj(jw);
		gmp_jw__kstr(jw, "op", "stream");
		gmp_jw__ku64(jw, "stream", t->streams[i].number);
		gmp_jw__kbool(jw, "blocking", gmp_stream__blocking(t->streams[i].flags));
		gmp_jw__obj_end(jw);
		gmp_jw__raw(jw, "\n", 1);
	}
	if (t->truncated || t->damaged)
		gmp_jw__rawf(jw, "# the profile is incomplete: %s\n",
			     t->damaged ? t->damage : "it ends inside a record");
	if (t->unharvested)
		gmp_jw__rawf(jw, "# %llu kernel launches have no recorded access sets\n",
			     (unsigned long long)t->unharvested);
}

/* The fields every line may carry, in the order events write them. */
static void common(struct gmp_jw *jw, const struct gmp_trace *t, uint32_t stream,
		   uint32_t device, uint32_t thread, uint64_t host_ns, uint32_t at_id,
		   uint32_t stack, gmp_at_fn at_fn, void *ctx)
{
	if (stream)
		gmp_jw__ku64(jw, "stream", stream);
	if (device)
		gmp_jw__ku64(jw, "device", device);
	if (thread)
		gmp_jw__ku64(jw, "thread", thread);
	if (host_ns)
		gmp_jw__ku64(jw, "time_ns", host_ns);
	const char *at = at_id ? gmp_trace__str(t, at_id, NULL) : NULL;
	if (!at && stack && at_fn)
		at = at_fn(ctx, stack);
	if (at && *at)
		gmp_jw__kstr(jw, "at", at);
}

/* A thread's NVTX range change as the pops and pushes from its path cur (updated) to the new one. */
static int range_ops(struct gmp_jw *jw, const struct gmp_trace *t, struct gmp_u64map *cur,
		     const struct gmp_range_change *c)
{
	uint32_t *slot = gmp_u64map__slot(cur, c->thread, 0, NULL);
	if (!slot)
		return -ENOMEM;
	const uint32_t *a, *b;
	size_t na = gmp_trace__range_path(t, *slot, &a), nb = gmp_trace__range_path(t, c->path, &b), k = 0;
	while (k < na && k < nb && a[k] == b[k])
		k++;
	for (size_t i = na; i > k; i--) {
		gmp_jw__obj(jw);
		gmp_jw__kstr(jw, "op", "range_pop");
		if (c->thread)
			gmp_jw__ku64(jw, "thread", c->thread);
		gmp_jw__obj_end(jw);
		gmp_jw__raw(jw, "\n", 1);
	}
	for (size_t i = k; i < nb; i++) {
		gmp_jw__obj(jw);
		gmp_jw__kstr(jw, "op", "range_push");
		gmp_jw__kstr(jw, "name", gmp_trace__str(t, b[i], NULL));
		if (c->thread)
			gmp_jw__ku64(jw, "thread", c->thread);
		gmp_jw__obj_end(jw);
		gmp_jw__raw(jw, "\n", 1);
	}
	*slot = c->path;
	return 0;
}

/* Where the lines between events stand: the next failure, range change, pool state and mark, each thread's path. */
struct between {
	size_t fail, chg, pool, mark;
	struct gmp_u64map path;
	struct gmp_u64map rets; /* event -> its earliest return in t->rets */
};

/* A pools line: the fields that differ from their defaults (the device's too). */
static void pool_line(struct gmp_jw *jw, const struct gmp_pool_state *s)
{
	gmp_jw__obj(jw);
	gmp_jw__kstr(jw, "op", "pools");
	gmp_jw__ku64(jw, "reserved", s->reserved);
	gmp_jw__ku64(jw, "used", s->used);
	if (s->reserved_high != s->reserved)
		gmp_jw__ku64(jw, "reserved_high", s->reserved_high);
	if (s->used_high != s->used)
		gmp_jw__ku64(jw, "used_high", s->used_high);
	if (s->threshold)
		gmp_jw__ku64(jw, "release_threshold", s->threshold);
	if (s->pools != 1)
		gmp_jw__ku64(jw, "pools", s->pools);
	if (s->device)
		gmp_jw__ku64(jw, "device", s->device);
	gmp_jw__obj_end(jw);
	gmp_jw__raw(jw, "\n", 1);
}

/* The range changes, marks, failed allocations and pool states that came before event i. */
static void failures(struct gmp_jw *jw, const struct gmp_trace *t, struct between *bt, size_t i,
		     gmp_at_fn at_fn, void *ctx)
{
	size_t *next = &bt->fail;
	for (; bt->chg < t->nrchg && t->rchg[bt->chg].before <= i && !jw->err; bt->chg++)
		if (range_ops(jw, t, &bt->path, &t->rchg[bt->chg]))
			jw->err = -ENOMEM;
	for (; bt->mark < t->nmarks && t->marks[bt->mark].before <= i && !jw->err; bt->mark++) {
		const struct gmp_mark *m = &t->marks[bt->mark];
		gmp_jw__obj(jw);
		gmp_jw__kstr(jw, "op", "mark");
		gmp_jw__kstr(jw, "name", gmp_trace__str(t, m->name, NULL));
		common(jw, t, 0, 0, m->thread, m->host_ns, 0, 0, NULL, NULL);
		gmp_jw__obj_end(jw);
		gmp_jw__raw(jw, "\n", 1);
	}
	for (; *next < t->nfails && t->fails[*next].before <= i && !jw->err; ++*next) {
		const struct gmp_alloc_failure *f = &t->fails[*next];
		gmp_jw__obj(jw);
		gmp_jw__kstr(jw, "op", "alloc_failed");
		gmp_jw__ku64(jw, "size", f->size);
		if (f->kind != GMP_MEM_DEVICE)
			gmp_jw__kstr(jw, "kind", gmp_mem_kind__name(f->kind));
		if (f->api)
			gmp_jw__kstr(jw, "api", gmp_trace__str(t, f->api, NULL));
		if (f->dev_total) {
			gmp_jw__ku64(jw, "device_free", f->dev_free);
			gmp_jw__ku64(jw, "device_total", f->dev_total);
		}
		common(jw, t, f->stream, f->device, f->thread, f->host_ns, f->at, f->stack, at_fn,
		       ctx);
		gmp_jw__obj_end(jw);
		gmp_jw__raw(jw, "\n", 1);
	}
	for (; bt->pool < t->npools && t->pools[bt->pool].before <= i && !jw->err; bt->pool++)
		pool_line(jw, &t->pools[bt->pool]);
}

int gmp_script__write(FILE *fp, const struct gmp_trace *t, gmp_at_fn at_fn, void *ctx)
{
	struct gmp_jw jw;
	struct between bt = { 0 };
	gmp_u64map__init(&bt.path);
	gmp_u64map__init(&bt.rets);
	gmp_jw__init(&jw, fp, 0);
	if (gmp_trace__return_index(t, &bt.rets))
		jw.err = -ENOMEM;
	header(&jw, t);
	for (size_t i = 0; i < t->nev && !jw.err; i++) {
		failures(&jw, t, &bt, i, at_fn, ctx);
		const struct gmp_event *e = &t->ev[i];
		gmp_jw__obj(&jw);
		gmp_jw__kstr(&jw, "op", gmp_op__name(e->op));
		op_fields(&jw, t, e);
		if (!e->stream && e->op == GMP_OP_SYNC && (e->flags & GMP_EF_SYNC_STREAM))
			gmp_jw__ku64(&jw, "stream", 0);
		common(&jw, t, e->stream, e->device, e->thread, e->host_ns, e->at, e->stack, at_fn,
		       ctx);
		const uint32_t *ret = t->nrets ? gmp_u64map__get(&bt.rets, i) : NULL;
		if (ret)
			gmp_jw__ku64(&jw, "returned_ns", t->rets[*ret].host_ns);
		gmp_jw__obj_end(&jw);
		gmp_jw__raw(&jw, "\n", 1);
	}
	failures(&jw, t, &bt, t->nev, at_fn, ctx);
	gmp_u64map__release(&bt.path);
	gmp_u64map__release(&bt.rets);
	if (t->ended)
		gmp_jw__raw(&jw, "{\"op\":\"end\"}\n", 13);
	return gmp_jw__finish(&jw);
}
