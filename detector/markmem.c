// SPDX-License-Identifier: MIT
/*
 * Memory at NVTX marks (markmem.h): one sweep over the objects' allocations
 * and frees in issue order, the marks taking the live bytes of each device
 * as they come; then the marks grouped by name.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "markmem.h"
#include "u64map.h"

void gmp_mmem__release(struct gmp_mmem *m)
{
	free(m->live);
	free(m->group);
	free(m->dev);
	free(m->of);
	memset(m, 0, sizeof(*m));
}

/* An allocation (+size) or a free (-size) at event ev on device index d. */
struct change {
	uint32_t ev;
	uint32_t d;
	int64_t delta;
};

static int by_ev(const void *a, const void *b)
{
	const struct change *x = a, *y = b;
	return (x->ev > y->ev) - (x->ev < y->ev);
}

/* Objects as the peaks count them, with their device index (SIZE_MAX: not counted). */
static size_t counted_on(const struct gmp_result *r, const struct gmp_object *o)
{
	return !gmp_mem_kind__device_bytes(o->kind) ? SIZE_MAX : gmp_result__device_index(r, o->device);
}

/* live[]: each mark's live bytes per device. */
static int sweep(const struct gmp_result *r, struct gmp_mmem *m)
{
	const struct gmp_trace *t = r->trace;
	struct change *ch = malloc((r->nobjects ? 2 * r->nobjects : 1) * sizeof(*ch));
	uint64_t *cur = calloc(m->ndev ? m->ndev : 1, sizeof(*cur));
	if (!ch || !cur) {
		free(ch);
		free(cur);
		return -ENOMEM;
	}
	size_t n = 0;
	for (size_t i = 0; i < r->nobjects; i++) {
		const struct gmp_object *o = &r->objects[i];
		size_t d = counted_on(r, o);
		if (d == SIZE_MAX)
			continue;
		ch[n++] = (struct change){ o->alloc_ev, (uint32_t)d, (int64_t)o->size };
		if (o->free_ev != GMP_NO_EVENT)
			ch[n++] = (struct change){ o->free_ev, (uint32_t)d, -(int64_t)o->size };
	}
	qsort(ch, n, sizeof(*ch), by_ev);
	size_t c = 0;
	for (size_t k = 0; k < m->nmarks; k++) {
		for (; c < n && ch[c].ev < t->marks[k].before; c++)
			cur[ch[c].d] += (uint64_t)ch[c].delta; /* a free follows its allocation: never below 0 */
		memcpy(&m->live[k * m->ndev], cur, m->ndev * sizeof(*cur));
	}
	free(ch);
	free(cur);
	return 0;
}

/* The marks by name, each group's numbers per device. */
static int group(const struct gmp_result *r, struct gmp_mmem *m)
{
	const struct gmp_trace *t = r->trace;
	struct gmp_u64map ids;
	gmp_u64map__init(&ids);
	int err = 0;
	if (!(m->group = malloc(m->nmarks * sizeof(*m->group))) || !(m->of = malloc(m->nmarks * sizeof(*m->of))) ||
	    !(m->dev = malloc(m->nmarks * m->ndev * sizeof(*m->dev) + 1)))
		err = -ENOMEM;
	for (size_t k = 0; k < m->nmarks && !err; k++) {
		int is_new;
		uint32_t *g = gmp_u64map__slot(&ids, t->marks[k].name, (uint32_t)m->ngroups, &is_new);
		if (!g) {
			err = -ENOMEM;
			break;
		}
		struct gmp_mmem_group *x = &m->group[*g];
		m->of[k] = *g;
		const uint64_t *live = &m->live[k * m->ndev];
		if (is_new)
			*x = (struct gmp_mmem_group){ .name = t->marks[k].name, .first_mark = (uint32_t)k };
		x->last_mark = (uint32_t)k;
		x->times++;
		for (size_t d = 0; d < m->ndev; d++) {
			struct gmp_mmem_dev *v = &m->dev[(size_t)*g * m->ndev + d];
			if (is_new)
				*v = (struct gmp_mmem_dev){ .first = live[d], .min = live[d], .max = live[d],
							    .max_mark = (uint32_t)k };
			v->last = live[d];
			v->min = live[d] < v->min ? live[d] : v->min;
			if (live[d] > v->max) {
				v->max = live[d];
				v->max_mark = (uint32_t)k;
			}
		}
		m->ngroups += is_new;
	}
	gmp_u64map__release(&ids);
	return err;
}

int gmp_mmem__build(const struct gmp_result *r, struct gmp_mmem *m)
{
	memset(m, 0, sizeof(*m));
	const struct gmp_trace *t = r->trace;
	if (!t->nmarks)
		return 0;
	m->nmarks = t->nmarks;
	m->ndev = r->ndevices;
	if (!(m->live = malloc(m->nmarks * m->ndev * sizeof(*m->live) + 1)))
		return -ENOMEM;
	int err = sweep(r, m);
	return err ? err : group(r, m);
}

int gmp_mmem__shown(const struct gmp_mmem *m, size_t g, size_t d)
{
	return m->ndev == 1 || gmp_mmem__at(m, g, d)->max > 0;
}

static int by_alloc(const void *a, const void *b, void *ctx)
{
	const struct gmp_result *r = ctx;
	uint32_t x = r->objects[*(const uint32_t *)a].alloc_ev, y = r->objects[*(const uint32_t *)b].alloc_ev;
	return (x > y) - (x < y);
}

static int by_growth(const void *a, const void *b)
{
	const struct gmp_mmem_grown *x = a, *y = b;
	if (x->growth != y->growth)
		return x->growth > y->growth ? -1 : 1;
	if (x->g != y->g)
		return x->g > y->g ? 1 : -1;
	return (x->d > y->d) - (x->d < y->d);
}

int gmp_mmem__grown(const struct gmp_mmem *m, struct gmp_mmem_grown **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	size_t k = 0;
	for (size_t i = 0; i < m->ngroups * m->ndev; i++)
		k += gmp_mmem__growth(&m->dev[i]) != 0;
	if (!k)
		return 0;
	if (!(*out = malloc(k * sizeof(**out))))
		return -ENOMEM;
	for (size_t g = 0; g < m->ngroups; g++)
		for (size_t d = 0; d < m->ndev; d++)
			if (gmp_mmem__growth(gmp_mmem__at(m, g, d)))
				(*out)[(*n)++] = (struct gmp_mmem_grown){ g, d, gmp_mmem__growth(gmp_mmem__at(m, g, d)) };
	qsort(*out, *n, sizeof(**out), by_growth);
	return 0;
}

size_t gmp_mmem__group_named(const struct gmp_mmem *m, const struct gmp_result *r, const char *name)
{
	for (size_t g = 0; g < m->ngroups; g++)
		if (!strcmp(gmp_trace__str(r->trace, m->group[g].name, NULL), name))
			return g;
	return SIZE_MAX;
}

/* The objects counted on device index d allocated in [from, to) and live after the first `to` events. */
static int allocated_live(const struct gmp_result *r, size_t d, uint64_t from, uint64_t to, uint32_t **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	size_t cap = 0;
	for (size_t i = 0; i < r->nobjects && from < to; i++) {
		const struct gmp_object *o = &r->objects[i];
		if (counted_on(r, o) != d || o->alloc_ev < from || o->alloc_ev >= to ||
		    (o->free_ev != GMP_NO_EVENT && o->free_ev < to))
			continue;
		if (*n == cap) {
			uint32_t *v = realloc(*out, (cap = cap ? 2 * cap : 16) * sizeof(*v));
			if (!v) {
				free(*out);
				*out = NULL;
				*n = 0;
				return -ENOMEM;
			}
			*out = v;
		}
		(*out)[(*n)++] = (uint32_t)i;
	}
	if (*n)
		qsort_r(*out, *n, sizeof(**out), by_alloc, (void *)r);
	return 0;
}

int gmp_mmem__live_at(const struct gmp_result *r, size_t k, size_t d, uint32_t **out, size_t *n)
{
	return allocated_live(r, d, 0, r->trace->marks[k].before, out, n);
}

int gmp_mmem__kept(const struct gmp_mmem *m, const struct gmp_result *r, size_t g, size_t d, uint32_t **out,
		   size_t *n)
{
	const struct gmp_mmem_group *x = &m->group[g];
	return allocated_live(r, d, r->trace->marks[x->first_mark].before, r->trace->marks[x->last_mark].before, out, n);
}
