// SPDX-License-Identifier: MIT
/*
 * The in-memory trace: append-only arrays of events, kernel accesses and
 * touches, plus interned strings, stacks, modules, streams and metadata.
 */
#include "gmprof/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings_json.h"
#include "ranges.h"
#include "strtab.h"
#include "u64map.h"
#include "util.h"

struct gmp_trace *gmp_trace__new(void)
{
	struct gmp_trace *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->strings = gmp_strtab__new();
	t->stack_off = calloc(1, sizeof(*t->stack_off));
	if (!t->strings || !t->stack_off) {
		gmp_trace__free(t);
		return NULL;
	}
	t->stacks_cap = 1;
	return t;
}

void gmp_trace__free(struct gmp_trace *t)
{
	if (!t)
		return;
	free(t->ev);
	free(t->acc);
	free(t->touch);
	gmp_strtab__free(t->strings);
	free(t->pcs);
	free(t->stack_off);
	free(t->mods);
	free(t->streams);
	for (size_t i = 0; i < t->nmeta; i++) {
		free(t->meta[i].key);
		free(t->meta[i].value);
	}
	free(t->meta);
	free(t->fails);
	free(t->pools);
	free(t->rets);
	free(t->marks);
	gmp_trace__free_ranges(t);
	free(t->findings_json);
	free(t);
}

static int append_acc(struct gmp_trace *t, const struct gmp_access *acc, size_t n,
		      uint32_t *off)
{
	if (t->nacc + n > UINT32_MAX)
		return -EOVERFLOW;
	if (GMP_GROW(t->acc, t->acc_cap, t->nacc + n))
		return -ENOMEM;
	if (n)
		memcpy(t->acc + t->nacc, acc, n * sizeof(*acc));
	*off = (uint32_t)t->nacc;
	t->nacc += n;
	return 0;
}

static int append_touch(struct gmp_trace *t, const struct gmp_touch *tc, size_t n,
			uint32_t *off)
{
	if (t->ntouch + n > UINT32_MAX)
		return -EOVERFLOW;
	if (GMP_GROW(t->touch, t->touch_cap, t->ntouch + n))
		return -ENOMEM;
	if (n)
		memcpy(t->touch + t->ntouch, tc, n * sizeof(*tc));
	*off = (uint32_t)t->ntouch;
	t->ntouch += n;
	return 0;
}

int64_t gmp_trace__add_event(struct gmp_trace *t, const struct gmp_event *ev,
			     const struct gmp_access *acc, size_t nacc,
			     const struct gmp_touch *touch, size_t ntouch)
{
	if (t->nev >= UINT32_MAX - 1)
		return -EOVERFLOW;
	if (GMP_GROW(t->ev, t->ev_cap, t->nev + 1))
		return -ENOMEM;
	struct gmp_event e = *ev;
	if (e.op == GMP_OP_KERNEL)
		e.acc_off = e.acc_n = e.touch_off = e.touch_n = 0;
	else if (nacc || ntouch)
		return -EINVAL; /* only kernels have accesses */
	if (nacc) {
		int err = append_acc(t, acc, nacc, &e.acc_off);
		if (err)
			return err;
		e.acc_n = (uint32_t)nacc;
	}
	if (ntouch) {
		int err = append_touch(t, touch, ntouch, &e.touch_off);
		if (err)
			return err;
		e.touch_n = (uint32_t)ntouch;
	}
	t->ev[t->nev] = e;
	return (int64_t)t->nev++;
}

int gmp_trace__add_failure(struct gmp_trace *t, const struct gmp_alloc_failure *f)
{
	if (f->before > t->nev || (t->nfails && f->before < t->fails[t->nfails - 1].before) ||
	    f->stack > t->nstacks || f->at > gmp_trace__nstrings(t) ||
	    f->api > gmp_trace__nstrings(t) || f->kind > GMP_MEM_KIND_MAX)
		return -EINVAL;
	if (GMP_GROW(t->fails, t->fails_cap, t->nfails + 1))
		return -ENOMEM;
	t->fails[t->nfails++] = *f;
	return 0;
}

int gmp_trace__add_pool_state(struct gmp_trace *t, const struct gmp_pool_state *s)
{
	if (s->before > t->nev || (t->npools && s->before < t->pools[t->npools - 1].before) ||
	    !s->pools || s->used > s->reserved || s->reserved > s->reserved_high || s->used > s->used_high ||
	    s->used_high > s->reserved_high)
		return -EINVAL;
	if (GMP_GROW(t->pools, t->pools_cap, t->npools + 1))
		return -ENOMEM;
	t->pools[t->npools++] = *s;
	return 0;
}

int gmp_trace__add_mark(struct gmp_trace *t, uint32_t thread, uint64_t host_ns, uint32_t name)
{
	if (!name || name > gmp_trace__nstrings(t))
		return -EINVAL;
	if (GMP_GROW(t->marks, t->marks_cap, t->nmarks + 1))
		return -ENOMEM;
	t->marks[t->nmarks++] = (struct gmp_mark){ .before = t->nev, .host_ns = host_ns, .thread = thread, .name = name };
	return 0;
}

int gmp_trace__add_return(struct gmp_trace *t, uint32_t ev, uint64_t host_ns)
{
	if (ev >= t->nev || !host_ns || host_ns < t->ev[ev].host_ns)
		return -EINVAL;
	if (GMP_GROW(t->rets, t->rets_cap, t->nrets + 1))
		return -ENOMEM;
	t->rets[t->nrets++] = (struct gmp_return){ .before = t->nev, .host_ns = host_ns, .ev = ev };
	return 0;
}

int gmp_trace__return_index(const struct gmp_trace *t, struct gmp_u64map *m)
{
	for (size_t i = 0; i < t->nrets; i++) {
		int is_new;
		uint32_t *slot = gmp_u64map__slot(m, t->rets[i].ev, (uint32_t)i, &is_new);
		if (!slot)
			return -ENOMEM;
		if (t->rets[i].host_ns < t->rets[*slot].host_ns)
			*slot = (uint32_t)i;
	}
	return 0;
}

const struct gmp_pool_state *gmp_trace__pool_state_at(const struct gmp_trace *t, uint64_t before,
						      uint32_t device)
{
	const struct gmp_pool_state *found = NULL;
	for (size_t i = 0; i < t->npools && t->pools[i].before <= before; i++)
		if (t->pools[i].before == before && t->pools[i].device == device)
			found = &t->pools[i];
	return found;
}

const struct gmp_pool_state *gmp_trace__pool_state_last(const struct gmp_trace *t, uint32_t device)
{
	for (size_t i = t->npools; i-- > 0;)
		if (t->pools[i].device == device)
			return &t->pools[i];
	return NULL;
}

uint64_t gmp_trace__pool_high(const struct gmp_trace *t, uint32_t device)
{
	const struct gmp_pool_state *ps = gmp_trace__pool_state_last(t, device);
	return ps ? ps->reserved_high : 0;
}

uint64_t gmp_trace__held_beside(const struct gmp_alloc_failure *f, uint64_t live)
{
	uint64_t in_use = f->dev_total > f->dev_free ? f->dev_total - f->dev_free : 0;
	return in_use > live ? in_use - live : 0;
}

uint64_t gmp_trace__pool_cached(const struct gmp_trace *t, const struct gmp_alloc_failure *f, uint64_t live,
				uint64_t *stale)
{
	const struct gmp_pool_state *ps = gmp_trace__pool_state_at(t, f->before, f->device);
	uint64_t cached = ps ? ps->reserved - ps->used : 0; /* used <= reserved (gmp_trace__add_pool_state) */
	/* An H200 (2026-11-30): the counters read 1 GiB cached in the failed call's exit; free memory had it back. */
	int gone = f->dev_total && cached > gmp_trace__held_beside(f, live);
	if (stale)
		*stale = gone ? cached : 0;
	return gone ? 0 : cached;
}

int gmp_trace__place_heap_ops(struct gmp_trace *t)
{
	size_t n = t->nev, moved = 0;
	for (size_t i = 0; i < n; i++) {
		const struct gmp_event *e = &t->ev[i];
		if (!gmp_event__in_kernel(e))
			continue;
		if (e->value >= i || t->ev[e->value].op != GMP_OP_KERNEL)
			return -EINVAL;
		/* In place: right after its launch or after another op of the same launch. */
		const struct gmp_event *p = &t->ev[i - 1];
		if (!(i - 1 == e->value || (gmp_event__in_kernel(p) && p->value == e->value)))
			moved++;
	}
	if (!moved)
		return 0;
	/* Each launch's heap ops as a list, in file order. */
	uint32_t *head = malloc(n * sizeof(*head)), *tail = malloc(n * sizeof(*tail));
	uint32_t *next = malloc(n * sizeof(*next)), *pos = malloc(n * sizeof(*pos));
	struct gmp_event *ev = malloc(n * sizeof(*ev));
	int err = -ENOMEM;
	if (!head || !tail || !next || !pos || !ev)
		goto out;
	memset(head, 0xff, n * sizeof(*head));
	for (size_t i = 0; i < n; i++) {
		next[i] = UINT32_MAX;
		if (!gmp_event__in_kernel(&t->ev[i]))
			continue;
		size_t k = t->ev[i].value;
		if (head[k] == UINT32_MAX)
			head[k] = (uint32_t)i;
		else
			next[tail[k]] = (uint32_t)i;
		tail[k] = (uint32_t)i;
	}
	size_t at = 0;
	for (size_t i = 0; i < n; i++) {
		if (gmp_event__in_kernel(&t->ev[i]))
			continue;
		pos[i] = (uint32_t)at;
		ev[at++] = t->ev[i];
		for (uint32_t c = head[i]; c != UINT32_MAX; c = next[c]) {
			pos[c] = (uint32_t)at;
			ev[at++] = t->ev[c];
		}
	}
	for (size_t i = 0; i < n; i++)
		if (gmp_event__in_kernel(&ev[i]))
			ev[i].value = pos[ev[i].value];
	/* Failures, range changes, marks and returns after file event b-1 come after every event placed before it. */
	size_t f = 0, c = 0, p = 0, rt = 0, mk = 0, upto = 0;
	for (size_t i = 0; i <= n && (f < t->nfails || c < t->nrchg || p < t->npools || rt < t->nrets || mk < t->nmarks);
	     i++) {
		while (mk < t->nmarks && t->marks[mk].before == i)
			t->marks[mk++].before = i ? upto : 0;
		while (f < t->nfails && t->fails[f].before == i)
			t->fails[f++].before = i ? upto : 0;
		while (p < t->npools && t->pools[p].before == i)
			t->pools[p++].before = i ? upto : 0;
		for (; rt < t->nrets && t->rets[rt].before == i; rt++) {
			t->rets[rt].before = upto; /* i > ev: at least pos[ev] + 1 */
			t->rets[rt].ev = pos[t->rets[rt].ev];
		}
		while (c < t->nrchg && t->rchg[c].before == i)
			t->rchg[c++].before = i ? upto : 0;
		if (i < n && pos[i] + 1 > upto)
			upto = pos[i] + 1;
	}
	free(t->ev);
	t->ev = ev;
	t->ev_cap = n;
	ev = NULL;
	err = 0;
out:
	free(head);
	free(tail);
	free(next);
	free(pos);
	free(ev);
	return err;
}

int gmp_trace__set_accesses(struct gmp_trace *t, size_t event,
			    const struct gmp_access *acc, size_t nacc)
{
	if (event >= t->nev || t->ev[event].op != GMP_OP_KERNEL)
		return -EINVAL;
	struct gmp_event *e = &t->ev[event];
	if (e->flags & GMP_EF_ACCESS_KNOWN)
		return -EEXIST;
	int err = append_acc(t, acc, nacc, &e->acc_off);
	if (err)
		return err;
	e->acc_n = (uint32_t)nacc;
	e->flags |= GMP_EF_ACCESS_KNOWN;
	return 0;
}

int gmp_trace__set_touches(struct gmp_trace *t, size_t event,
			   const struct gmp_touch *touch, size_t ntouch)
{
	if (event >= t->nev || t->ev[event].op != GMP_OP_KERNEL)
		return -EINVAL;
	struct gmp_event *e = &t->ev[event];
	if (e->flags & GMP_EF_TOUCH_KNOWN)
		return -EEXIST;
	int err = append_touch(t, touch, ntouch, &e->touch_off);
	if (err)
		return err;
	e->touch_n = (uint32_t)ntouch;
	e->flags |= GMP_EF_TOUCH_KNOWN;
	return 0;
}

uint32_t gmp_trace__intern(struct gmp_trace *t, const char *s, size_t len)
{
	return gmp_strtab__intern(t->strings, s, len);
}

uint32_t gmp_trace__intern_cstr(struct gmp_trace *t, const char *s)
{
	return gmp_strtab__intern(t->strings, s, strlen(s));
}

uint32_t gmp_trace__find_string(const struct gmp_trace *t, const char *s, size_t len)
{
	return gmp_strtab__find(t->strings, s, len);
}

const char *gmp_trace__str(const struct gmp_trace *t, uint32_t id, size_t *len)
{
	const char *s = gmp_strtab__get(t->strings, id, len);
	if (!s) {
		if (len)
			*len = 0;
		return "";
	}
	return s;
}

size_t gmp_trace__nstrings(const struct gmp_trace *t)
{
	return gmp_strtab__count(t->strings);
}

uint32_t gmp_trace__add_stack(struct gmp_trace *t, const uint64_t *pcs, size_t n)
{
	if (t->npcs + n > UINT32_MAX || t->nstacks >= UINT32_MAX - 1)
		return 0;
	if (GMP_GROW(t->pcs, t->pcs_cap, t->npcs + n) ||
	    GMP_GROW(t->stack_off, t->stacks_cap, t->nstacks + 2))
		return 0;
	if (n)
		memcpy(t->pcs + t->npcs, pcs, n * sizeof(*pcs));
	t->npcs += n;
	t->nstacks++;
	t->stack_off[t->nstacks] = (uint32_t)t->npcs;
	return (uint32_t)t->nstacks;
}

size_t gmp_trace__stack(const struct gmp_trace *t, uint32_t id, const uint64_t **pcs)
{
	if (id == 0 || id > t->nstacks) {
		*pcs = NULL;
		return 0;
	}
	*pcs = t->pcs + t->stack_off[id - 1];
	return t->stack_off[id] - t->stack_off[id - 1];
}

int gmp_trace__add_module(struct gmp_trace *t, const struct gmp_module *m)
{
	if (GMP_GROW(t->mods, t->mods_cap, t->nmods + 1))
		return -ENOMEM;
	t->mods[t->nmods++] = *m;
	return 0;
}

int gmp_trace__add_stream(struct gmp_trace *t, const struct gmp_stream_info *s)
{
	/* A later record of a stream replaces its first (the collector numbers streams upwards). */
	for (size_t i = t->nstreams; i-- && t->streams[t->nstreams - 1].number >= s->number;)
		if (t->streams[i].number == s->number) {
			t->streams[i] = *s;
			return 0;
		}
	if (GMP_GROW(t->streams, t->streams_cap, t->nstreams + 1))
		return -ENOMEM;
	t->streams[t->nstreams++] = *s;
	return 0;
}

int gmp_trace__set_meta(struct gmp_trace *t, const char *key, const char *value)
{
	char *v = strdup(value);
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < t->nmeta; i++) {
		if (strcmp(t->meta[i].key, key) == 0) {
			free(t->meta[i].value);
			t->meta[i].value = v;
			return 0;
		}
	}
	char *k = strdup(key);
	if (!k || GMP_GROW(t->meta, t->meta_cap, t->nmeta + 1)) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	t->meta[t->nmeta++] = (struct gmp_kv){ .key = k, .value = v };
	t->stream_names |= strncmp(key, "stream.", 7) == 0;
	return 0;
}

const char *gmp_trace__meta(const struct gmp_trace *t, const char *key)
{
	for (size_t i = 0; i < t->nmeta; i++)
		if (strcmp(t->meta[i].key, key) == 0)
			return t->meta[i].value;
	return NULL;
}

const char *gmp_trace__stream_name(const struct gmp_trace *t, uint32_t stream)
{
	if (!t->stream_names) /* none named (the common case): no search for each call a report names */
		return NULL;
	char key[40];
	snprintf(key, sizeof(key), "stream.%" PRIu32 ".name", stream);
	const char *name = gmp_trace__meta(t, key);
	return name && *name ? name : NULL;
}

static const char *device_meta(const struct gmp_trace *t, uint32_t dev, const char *what)
{
	char key[48];
	snprintf(key, sizeof(key), "device.%" PRIu32 ".%s", dev, what);
	return gmp_trace__meta(t, key);
}

const char *gmp_trace__device_name(const struct gmp_trace *t, uint32_t dev)
{
	const char *v = device_meta(t, dev, "name");
	return v && *v ? v : NULL;
}

int gmp_trace__device_cc(const struct gmp_trace *t, uint32_t dev)
{
	const char *v = device_meta(t, dev, "cc");
	unsigned major, minor;
	char end;
	if (!v || sscanf(v, "%u.%u%c", &major, &minor, &end) != 2 || !major || major > 99 || minor > 9)
		return 0;
	return (int)(major * 10 + minor);
}

uint64_t gmp_trace__device_memory(const struct gmp_trace *t, uint32_t dev)
{
	const char *v = device_meta(t, dev, "memory");
	uint64_t n = 0;
	if (!v || !*v)
		return 0;
	for (; *v; v++) {
		if (*v < '0' || *v > '9' || n > (UINT64_MAX - 9) / 10)
			return 0;
		n = n * 10 + (uint64_t)(*v - '0');
	}
	return n;
}

uint64_t gmp_trace__device_share_bytes(const struct gmp_trace *t, uint32_t dev, double pct)
{
	return (uint64_t)((double)gmp_trace__device_memory(t, dev) * pct / 100.0);
}

const char *gmp_trace__device_share(const struct gmp_trace *t, uint32_t dev, uint64_t bytes, char *buf, size_t n)
{
	uint64_t mem = gmp_trace__device_memory(t, dev);
	char m[32];
	double pct = mem ? 100.0 * (double)bytes / (double)mem : 0;
	if (!mem)
		snprintf(buf, n, "%s", "");
	else if (bytes && pct < 0.1)
		snprintf(buf, n, "<0.1%% of its %s", gmp_human_bytes(mem, m, sizeof(m)));
	else
		snprintf(buf, n, "%.1f%% of its %s", pct, gmp_human_bytes(mem, m, sizeof(m)));
	return buf;
}

int gmp_trace__set_findings(struct gmp_trace *t, const char *json, size_t len)
{
	char *s = malloc(len + 1);
	if (!s)
		return -ENOMEM;
	memcpy(s, json, len);
	s[len] = '\0';
	free(t->findings_json);
	t->findings_json = s;
	return 0;
}

static const char *const op_names[] = {
	[GMP_OP_ALLOC] = "alloc",
	[GMP_OP_FREE] = "free",
	[GMP_OP_MEMCPY] = "memcpy",
	[GMP_OP_MEMSET] = "memset",
	[GMP_OP_KERNEL] = "kernel",
	[GMP_OP_SYNC] = "sync",
	[GMP_OP_EVENT_RECORD] = "event_record",
	[GMP_OP_EVENT_WAIT] = "event_wait",
};

const char *gmp_op__name(unsigned op)
{
	if (op == 0 || op > GMP_OP_MAX)
		return "?";
	return op_names[op];
}

static const char *const kind_names[] = {
	[GMP_MEM_DEVICE] = "device",
	[GMP_MEM_MANAGED] = "managed",
	[GMP_MEM_ASYNC] = "async",
	[GMP_MEM_POOL_REGION] = "pool_region",
	[GMP_MEM_DEVICE_HEAP] = "device_heap",
	[GMP_MEM_ARRAY] = "cuda_array",
	[GMP_MEM_IMPORTED] = "imported",
};

const char *gmp_mem_kind__name(unsigned kind)
{
	if (kind > GMP_MEM_KIND_MAX)
		return "?";
	return kind_names[kind];
}

int gmp_mem_kind__parse(const char *s)
{
	for (unsigned k = 0; k <= GMP_MEM_KIND_MAX; k++)
		if (strcmp(s, kind_names[k]) == 0)
			return (int)k;
	return -1;
}
