// SPDX-License-Identifier: MIT
/*
 * The build pass: the multi-stream dependency graph of the paper's
 * Definition 5.1 plus synchronization, levels from Kahn's algorithm, the
 * topological order, and each object's accesses in that order.
 *
 * Edges into an event:
 *  - intra-stream: from the previous op on its stream;
 *  - data: RAW from the object's last writer (its allocation at first),
 *    WAW from the last writer when nobody read since, WAR from every reader
 *    since the last write; a free counts as a write;
 *  - an alloc or free made inside a kernel (device heap): from that launch
 *    only, not from its stream or a barrier;
 *  - a host barrier (device sync, stream sync, event sync) orders
 *    everything its host thread issues after it (another thread's later
 *    calls are not ordered by it: gmprof sees no host locks or joins);
 *    a device sync waits for every stream of
 *    its device, a stream sync for its stream, an event sync for the
 *    event's record; an event wait follows the event's record;
 *  - the legacy default stream (stream 0) and the blocking streams of its
 *    device (gmp_stream__blocking: streams the trace says were made
 *    without cudaStreamNonBlocking, per-thread default streams) wait for
 *    each other: an op on stream 0 follows every blocking stream's latest
 *    op, and a blocking stream's op follows stream 0's latest.  That
 *    holds for stream work (launches, copies, sets, event records and
 *    waits, stream-ordered allocations and frees) and, on stream 0 only,
 *    a stream sync (cudaStreamSynchronize(0) waits for the blocking
 *    streams too); not for cudaMalloc and cudaFree, which are made on no
 *    stream, nor for device-heap ops.  A trace that declares no stream
 *    blocking (a script without `stream` lines, a profile from an earlier
 *    collector) has none of these edges.
 * Sync and event ops have weight 0: they order work but take no time step
 * of their own, so they are never among the APIs "between" two others; nor
 * are in-kernel heap ops, which are part of their launch.
 *
 * Levels (the paper's section 5.3) come from Kahn's algorithm.  Every edge
 * points forward in issue order, so issue order is an order in which Kahn's
 * algorithm may take the vertices: when v is added, its in-edges are all
 * known and all come from vertices already taken.  The level of v is then
 * final as soon as its in-edges are, and the pass keeps no graph: O(V + E)
 * time and O(V) memory.  An edge that did not point forward would break
 * that; it is reported as an error.  With gmp_detect_opts.verify_order the
 * whole in-edge graph is also built and levelled by the general Kahn's
 * algorithm of graph.c, with its cycle report, and the two must agree (the
 * tests run every trace that way).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "legacy.h"
#include "u64map.h"
#include "util.h"

#define NONE UINT32_MAX

struct stream_state {
	uint32_t device;
	uint32_t last;          /* last op on the stream */
	uint32_t barrier_seen;  /* the last barrier this stream was ordered after */
	uint32_t synced;        /* `last` when a device barrier last covered it */
	uint32_t ord[GMP_OP_MAX + 1]; /* ops of each kind issued on it so far */
	struct det_lstream lg;  /* its part in the legacy stream's order (legacy.h) */
};

struct bs {
	struct det *d;
	uint32_t v;                 /* the vertex being added */
	uint32_t lvl;               /* its level so far */
	uint32_t recent[3];         /* its last sources (duplicates are not counted) */
	uint32_t nrecent;
	uint64_t nedges;
	int verify;                 /* also build `in` for the general Kahn's algorithm */
	struct gmp_csr in;
	struct gmp_u64map stream_idx;
	struct stream_state *streams;
	size_t nstreams, streams_cap;
	struct gmp_u64map events;   /* event id -> record vertex */
	uint64_t last_key;          /* the stream looked up last */
	uint32_t last_idx;
	struct gmp_u64map barriers; /* host thread -> its latest barrier vertex */
	uint32_t last_thread;       /* the thread looked up last ... */
	uint32_t *barrier;          /* ... and its slot (valid until a thread is added) */
	uint32_t *owner;            /* per object: last writer */
	uint32_t *readers;          /* per object: head of its reader list */
	uint32_t (*rnode)[2];       /* reader list nodes: vertex, next */
	size_t nrnode, rnode_cap;
	struct det_legacy legacy;
};

static struct stream_state *stream_of(struct bs *b, const struct gmp_event *e)
{
	uint64_t key = (uint64_t)e->device << 32 | e->stream;
	if (b->last_key == key && b->nstreams)
		return &b->streams[b->last_idx]; /* runs of ops on one stream are common */
	int is_new;
	uint32_t *idx = gmp_u64map__slot(&b->stream_idx, key, (uint32_t)b->nstreams, &is_new);
	if (!idx)
		return NULL;
	if (is_new) {
		if (GMP_GROW(b->streams, b->streams_cap, b->nstreams + 1))
			return NULL;
		b->streams[b->nstreams++] = (struct stream_state){
			.device = e->device, .last = NONE, .barrier_seen = NONE, .synced = NONE,
			.lg = DET_LSTREAM_INIT };
		b->streams[b->nstreams - 1].lg.blocking = det_legacy_blocking(&b->legacy, e->stream);
	}
	b->last_key = key;
	b->last_idx = *idx;
	return &b->streams[*idx];
}

/* An edge u -> v (v the vertex being added). */
static int src(struct bs *b, uint32_t u)
{
	if (u == NONE)
		return 0;
	/* Stream and data edges often coincide: a repeat of the last three is one edge. */
	for (uint32_t i = 0; i < b->nrecent; i++)
		if (b->recent[i] == u)
			return 0;
	b->recent[2] = b->recent[1];
	b->recent[1] = b->recent[0];
	b->recent[0] = u;
	if (b->nrecent < 3)
		b->nrecent++;
	b->nedges++;
	if (u >= b->v)
		return det_fail(b->d, b->v, "dependency edge from event #%u to the earlier event #%u",
				u, b->v);
	uint32_t l = b->d->r->level[u] + b->d->weight[u];
	if (l > b->lvl)
		b->lvl = l;
	return b->verify ? gmp_csr__add_src(&b->in, u) : 0;
}

static int data_edges(struct bs *b, uint32_t v)
{
	struct det *d = b->d;
	int err;
	for (uint32_t k = d->dep_off[v]; k < d->dep_off[v + 1]; k++) {
		uint32_t obj = DEP_OBJ(d->deps[k]);
		unsigned kind = DEP_KIND(d->deps[k]);
		if (kind == DEP_ALLOC) {
			b->owner[obj] = v;
			b->readers[obj] = NONE;
			continue;
		}
		if (kind & DEP_READ && kind != DEP_FREE && (err = src(b, b->owner[obj])))
			return err;
		if (kind == DEP_READ) {
			if (GMP_GROW(b->rnode, b->rnode_cap, b->nrnode + 1) || b->nrnode >= NONE)
				return -ENOMEM;
			b->rnode[b->nrnode][0] = v;
			b->rnode[b->nrnode][1] = b->readers[obj];
			b->readers[obj] = (uint32_t)b->nrnode++;
			continue;
		}
		/* A write or a free: after the readers since the last write, or the writer. */
		if (b->readers[obj] == NONE && (err = src(b, b->owner[obj])))
			return err;
		for (uint32_t n = b->readers[obj]; n != NONE; n = b->rnode[n][1])
			if ((err = src(b, b->rnode[n][0])))
				return err;
		b->readers[obj] = NONE;
		b->owner[obj] = v;
	}
	return 0;
}

/* The slot of the latest barrier of e's host thread. */
static uint32_t *barrier_of(struct bs *b, const struct gmp_event *e)
{
	if (b->barrier && b->last_thread == e->thread)
		return b->barrier; /* runs of one thread's calls are common */
	int is_new;
	uint32_t *slot = gmp_u64map__slot(&b->barriers, e->thread, NONE, &is_new);
	b->last_thread = e->thread;
	b->barrier = slot;
	return slot;
}

/* Orders v after its thread's latest barrier, once per stream. */
static int after_barrier(struct bs *b, struct stream_state *s, uint32_t barrier)
{
	if (barrier == NONE || (s && s->barrier_seen == barrier))
		return 0;
	if (s)
		s->barrier_seen = barrier;
	return src(b, barrier);
}

static int sync_edges(struct bs *b, const struct gmp_event *e)
{
	if (e->flags & GMP_EF_SYNC_STREAM)
		return 0; /* the stream edge already orders it after the stream's work */
	if (e->flags & GMP_EF_SYNC_EVENT) {
		uint32_t *rec = gmp_u64map__get(&b->events, e->value);
		return rec ? src(b, *rec) : 0;
	}
	/* Device-wide: after the latest op of every stream of this device. */
	for (size_t i = 0; i < b->nstreams; i++) {
		struct stream_state *x = &b->streams[i];
		if (x->device != e->device || x->last == NONE || x->synced == x->last)
			continue;
		x->synced = x->last;
		int err = src(b, x->last);
		if (err)
			return err;
	}
	return 0;
}

static struct det_lstream *lstate(void *ctx, size_t i)
{
	return &((struct bs *)ctx)->streams[i].lg;
}

static int lfollow(void *ctx, uint32_t v, size_t i, uint32_t u)
{
	(void)v;
	(void)i;
	return src(ctx, u);
}

/* The legacy default stream's edges into v (build.c's header); s is v's stream. */
static int legacy_edges(struct bs *b, uint32_t v, const struct gmp_event *e, struct stream_state *s)
{
	int kind;
	if (!det_legacy_on(&b->legacy) || (e->stream && !s->lg.blocking) || !(kind = det_legacy_kind(&b->legacy, e, v)))
		return 0;
	const struct det_lpass pass = { lstate, lfollow, b };
	return det_legacy_step(&b->legacy, &pass, (size_t)(s - b->streams), v, e, kind);
}

static int add_vertex(struct bs *b, uint32_t v)
{
	struct det *d = b->d;
	const struct gmp_event *e = &d->t->ev[v];
	/* malloc() or free() inside a launch: ordered after that launch alone. */
	int in_kernel = gmp_event__in_kernel(e);
	int on_stream = !(e->op == GMP_OP_SYNC && !(e->flags & GMP_EF_SYNC_STREAM)) && !in_kernel;
	/* A device sync is on no stream, but numbered with the ops of its stream field. */
	struct stream_state *ss = stream_of(b, e), *s = on_stream ? ss : NULL;
	uint32_t *barrier = barrier_of(b, e);
	if (!ss || !barrier || (b->verify && gmp_csr__begin_vertex(&b->in, v)))
		return -ENOMEM;
	if (e->op > GMP_OP_MAX)
		return det_fail(d, v, "event of unknown kind %u", e->op);
	/* An in-kernel op takes its launch's number: it is not an API of its own. */
	d->r->ordinal[v] = in_kernel && e->value < v ? d->r->ordinal[e->value] : ++ss->ord[e->op];
	b->v = v;
	b->lvl = 0;
	b->nrecent = 0;
	d->weight[v] = e->op != GMP_OP_SYNC && e->op != GMP_OP_EVENT_RECORD &&
		       e->op != GMP_OP_EVENT_WAIT && !in_kernel;
	int err;
	if (in_kernel && (err = src(b, (uint32_t)e->value)))
		return err;
	if ((s && (err = src(b, s->last))) || (!in_kernel && (err = after_barrier(b, s, *barrier))) ||
	    (s && (err = legacy_edges(b, v, e, s))) || (err = data_edges(b, v)))
		return err;
	switch (e->op) {
	case GMP_OP_SYNC:
		if ((err = sync_edges(b, e)))
			return err;
		*barrier = v;
		break;
	case GMP_OP_EVENT_RECORD: {
		uint32_t *slot = gmp_u64map__slot(&b->events, e->value, v, NULL);
		if (!slot)
			return -ENOMEM;
		*slot = v;
		break;
	}
	case GMP_OP_EVENT_WAIT: {
		uint32_t *rec = gmp_u64map__get(&b->events, e->value);
		if (rec && (err = src(b, *rec)))
			return err;
		break;
	}
	default:
		break;
	}
	if (s)
		s->last = v;
	d->r->level[v] = b->lvl;
	return 0;
}

/*
 * Sorts events by (level, index): a counting sort, O(V + levels).  Leaves
 * in *end, for each level, the position in r->order after its last event.
 */
static int topo_order(struct det *d, uint32_t **end)
{
	struct gmp_result *r = d->r;
	size_t n = d->t->nev;
	uint32_t maxl = 0;
	for (size_t i = 0; i < n; i++)
		if (r->level[i] > maxl)
			maxl = r->level[i];
	r->max_level = maxl;
	uint32_t *start = calloc((size_t)maxl + 2, sizeof(*start));
	d->api_before = calloc((size_t)maxl + 3, sizeof(*d->api_before));
	if (!start || !d->api_before) {
		free(start);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		start[r->level[i] + 1]++;
		if (d->weight[i]) {
			d->api_before[r->level[i] + 1]++;
			r->napis++;
		}
	}
	free(d->weight); /* levels are done: nothing else needs the weights */
	d->weight = NULL;
	for (uint32_t l = 0; l <= maxl; l++) {
		start[l + 1] += start[l];
		d->api_before[l + 1] += d->api_before[l];
	}
	d->api_before[maxl + 2] = d->api_before[maxl + 1];
	for (size_t i = 0; i < n; i++) {
		uint32_t p = start[r->level[i]]++;
		r->order[p] = (uint32_t)i;
		d->pos[i] = p;
	}
	*end = start;
	return 0;
}

/*
 * Levels the whole graph with the general Kahn's algorithm (graph.c) and
 * checks them against the levels computed while adding vertices.
 */
static int verify_levels(struct det *d, struct gmp_csr *in, uint32_t n)
{
	int err = gmp_csr__finish(in, n);
	if (err)
		return err;
	if (in->nadj != d->r->nedges)
		return det_fail(d, GMP_NO_EVENT, "internal error: %zu edges in the graph, %" PRIu64
				" counted", in->nadj, d->r->nedges);
	uint32_t *level = malloc((n ? n : 1) * sizeof(*level));
	if (!level)
		return -ENOMEM;
	struct gmp_cycle cyc;
	err = gmp_graph__levels_consume(in, d->weight, level, &cyc);
	if (err == -ELOOP) {
		char list[128] = "";
		for (uint32_t i = 0, k = 0; i < cyc.len && i < GMP_CYCLE_MAX && k + 12 < sizeof(list); i++)
			k += (uint32_t)snprintf(list + k, sizeof(list) - k, "%s#%u", i ? " -> " : "",
						cyc.v[i]);
		err = det_fail(d, cyc.v[0], "dependency cycle through %u events: %s", cyc.len, list);
	}
	for (uint32_t v = 0; !err && v < n; v++)
		if (level[v] != d->r->level[v])
			err = det_fail(d, v, "internal error: level %u here, %u by Kahn's algorithm",
				       d->r->level[v], level[v]);
	free(level);
	return err;
}

int det_build(struct det *d)
{
	const struct gmp_trace *t = d->t;
	struct gmp_result *r = d->r;
	uint32_t n = (uint32_t)t->nev;
	struct bs b = { .d = d, .verify = d->o->verify_order };
	int err = -ENOMEM;
	gmp_u64map__init(&b.barriers);
	gmp_u64map__init(&b.stream_idx);
	gmp_u64map__init(&b.events);
	if (det_legacy_setup(&b.legacy, r))
		goto out;
	size_t nobj = r->nobjects ? r->nobjects : 1;
	b.owner = malloc(nobj * sizeof(*b.owner));
	b.readers = malloc(nobj * sizeof(*b.readers));
	d->weight = malloc(n ? n : 1);
	r->level = malloc((n ? n : 1) * sizeof(*r->level));
	r->ordinal = malloc((n ? n : 1) * sizeof(*r->ordinal));
	if (!b.owner || !b.readers || !d->weight || !r->level || !r->ordinal)
		goto out;
	for (uint32_t v = 0; v < n; v++) {
		DET_PREFETCH(&t->ev[v + 16 < n ? v + 16 : v]);
		if ((err = add_vertex(&b, v)))
			goto out;
	}
	err = 0;
	r->nedges = b.nedges;
	/* Reader lists are done. */
	free(b.rnode);
	b.rnode = NULL;
	free(b.owner);
	free(b.readers);
	b.owner = b.readers = NULL;
	if (b.verify && (err = verify_levels(d, &b.in, n)))
		goto out;
	r->order = malloc((n ? n : 1) * sizeof(*r->order));
	d->pos = malloc((n ? n : 1) * sizeof(*d->pos));
	if (!r->order || !d->pos)
		err = -ENOMEM;
	if (err || (err = topo_order(d, &d->level_end)) || (err = det_unknown_launches(d)) ||
	    (err = det_object_accesses(d)) || (err = det_unknown_uses(d)))
		goto out;
out:
	gmp_csr__release(&b.in);
	gmp_u64map__release(&b.barriers);
	gmp_u64map__release(&b.stream_idx);
	gmp_u64map__release(&b.events);
	det_legacy_release(&b.legacy);
	free(b.streams);
	free(b.owner);
	free(b.readers);
	free(b.rnode);
	return err;
}
