// SPDX-License-Identifier: MIT
/*
 * A whole trace (an event script's, or one the analyzer changed) written as
 * a profile through the writer (profile_write.c): its strings and stacks
 * mapped to the writer's ids, failures, range changes, pool states, returns
 * and marks at their places among the events.
 */
#include "gmprof/profile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gmprof/script.h"

/* Maps a string id of t to the writer's id (0 stays 0). */
static int64_t map_str(struct gmp_writer *w, const struct gmp_trace *t, uint32_t id)
{
	if (!id)
		return 0;
	size_t len;
	const char *s = gmp_trace__str(t, id, &len);
	return gmp_writer__string(w, s, len);
}

/* Maps a stack of t to the writer's id; its Python frames name strings, mapped too. */
static int64_t map_stack(struct gmp_writer *w, const struct gmp_trace *t, uint32_t id)
{
	if (!id)
		return 0;
	const uint64_t *pcs;
	size_t n = gmp_trace__stack(t, id, &pcs), py = 0;
	for (size_t i = 0; i < n; i++)
		py += pcs[i] >> 63;
	if (!py)
		return gmp_writer__stack(w, pcs, n);
	uint64_t *m = malloc(n * sizeof(*m));
	if (!m)
		return gmp_writer__fail(w, -ENOMEM);
	int64_t rc = 0;
	for (size_t i = 0; i < n && rc >= 0; i++) {
		rc = pcs[i] >> 63 ? map_str(w, t, (uint32_t)pcs[i]) : 0;
		m[i] = pcs[i] >> 63 ? (pcs[i] & ~(uint64_t)UINT32_MAX) | (uint64_t)rc : pcs[i];
	}
	if (rc >= 0)
		rc = gmp_writer__stack(w, m, n);
	free(m);
	return rc;
}

static int write_tables(struct gmp_writer *w, const struct gmp_trace *t)
{
	for (size_t i = 0; i < t->nmeta; i++) {
		int err = gmp_writer__meta(w, t->meta[i].key, t->meta[i].value);
		if (err)
			return err;
	}
	for (size_t i = 0; i < t->nmods; i++) {
		struct gmp_module m = t->mods[i];
		int64_t p = map_str(w, t, m.path), b = map_str(w, t, m.build_id);
		if (p < 0 || b < 0)
			return gmp_writer__error(w);
		m.path = (uint32_t)p;
		m.build_id = (uint32_t)b;
		if (gmp_writer__module(w, &m))
			return gmp_writer__error(w);
	}
	for (size_t i = 0; i < t->nstreams; i++)
		if (gmp_writer__stream(w, &t->streams[i]))
			return gmp_writer__error(w);
	return 0;
}

/* Writes the range changes that came before event i (with ids remapped). */
static int write_ranges(struct gmp_writer *w, const struct gmp_trace *t, size_t *next, size_t i)
{
	for (; *next < t->nrchg && t->rchg[*next].before <= i; ++*next) {
		const uint32_t *names;
		size_t n = gmp_trace__range_path(t, t->rchg[*next].path, &names);
		uint32_t ids[GMP_RANGE_DEPTH_MAX];
		size_t k = 0;
		for (; k < n && k < GMP_RANGE_DEPTH_MAX; k++) {
			int64_t id = map_str(w, t, names[k]);
			if (id < 0)
				return gmp_writer__error(w);
			ids[k] = (uint32_t)id;
		}
		if (gmp_writer__ranges(w, t->rchg[*next].thread, ids, k))
			return gmp_writer__error(w);
	}
	return 0;
}

/* Writes the range changes, marks, failed allocations, pool states and returns that came before event i (ids remapped). */
static int write_failures(struct gmp_writer *w, const struct gmp_trace *t, size_t *next,
			  size_t i)
{
	if (write_ranges(w, t, &next[1], i))
		return gmp_writer__error(w);
	for (; next[4] < t->nmarks && t->marks[next[4]].before <= i; next[4]++) {
		int64_t name = map_str(w, t, t->marks[next[4]].name);
		if (name < 0 || gmp_writer__mark(w, t->marks[next[4]].thread, t->marks[next[4]].host_ns, (uint32_t)name))
			return gmp_writer__error(w);
	}
	for (; *next < t->nfails && t->fails[*next].before <= i; ++*next) {
		struct gmp_alloc_failure f = t->fails[*next];
		int64_t at = map_str(w, t, f.at), api = map_str(w, t, f.api);
		int64_t stack = map_stack(w, t, f.stack);
		if (at < 0 || api < 0 || stack < 0)
			return gmp_writer__error(w);
		f.at = (uint32_t)at;
		f.api = (uint32_t)api;
		f.stack = (uint32_t)stack;
		if (gmp_writer__failure(w, &f))
			return gmp_writer__error(w);
	}
	for (; next[2] < t->npools && t->pools[next[2]].before <= i; next[2]++)
		if (gmp_writer__pools(w, &t->pools[next[2]]))
			return gmp_writer__error(w);
	for (; next[3] < t->nrets && t->rets[next[3]].before <= i; next[3]++)
		if (gmp_writer__returned(w, t->rets[next[3]].ev, t->rets[next[3]].host_ns))
			return gmp_writer__error(w);
	return 0;
}

int gmp_writer__write_trace(struct gmp_writer *w, const struct gmp_trace *t)
{
	size_t nextf[5] = { 0 }; /* the next failure, range change, pool state, return and mark */
	if (write_tables(w, t))
		return gmp_writer__error(w);
	for (size_t i = 0; i < t->nev; i++) {
		if (write_failures(w, t, nextf, i))
			return gmp_writer__error(w);
		struct gmp_event e = t->ev[i];
		int64_t at = map_str(w, t, e.at), name = map_str(w, t, e.name);
		int64_t stack = map_stack(w, t, e.stack);
		if (at < 0 || name < 0 || stack < 0)
			return gmp_writer__error(w);
		e.at = (uint32_t)at;
		e.name = (uint32_t)name;
		e.stack = (uint32_t)stack;
		e.flags &= (uint16_t) ~(GMP_EF_ACCESS_KNOWN | GMP_EF_TOUCH_KNOWN);
		if (gmp_event__named_id(&e)) {
			/* Event ids named by a string carry a string id: remap it too. */
			int64_t id = map_str(w, t, (uint32_t)e.value);
			if (id < 0)
				return gmp_writer__error(w);
			e.value = GMP_EVENT_NAMED | (uint64_t)id;
		}
		int64_t idx = gmp_writer__event(w, &e);
		if (idx < 0)
			return (int)idx;
		const struct gmp_event *o = &t->ev[i];
		if (o->op == GMP_OP_KERNEL && (o->flags & GMP_EF_ACCESS_KNOWN) &&
		    gmp_writer__accesses(w, (uint64_t)idx, t->acc + o->acc_off, o->acc_n))
			return gmp_writer__error(w);
		if (o->op == GMP_OP_KERNEL && (o->flags & GMP_EF_TOUCH_KNOWN) &&
		    gmp_writer__touches(w, (uint64_t)idx, t->touch + o->touch_off, o->touch_n))
			return gmp_writer__error(w);
	}
	if (write_failures(w, t, nextf, t->nev))
		return gmp_writer__error(w);
	if (t->findings_json &&
	    gmp_writer__findings(w, t->findings_json, strlen(t->findings_json)))
		return gmp_writer__error(w);
	return 0;
}
