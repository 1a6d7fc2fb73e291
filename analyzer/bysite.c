// SPDX-License-Identifier: MIT
/* Findings, or a peak's objects, grouped by allocation site (bysite.h). */
#define _GNU_SOURCE
#include "bysite.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strtab.h"
#include "u64map.h"
#include "util.h"

int gmp_bysite__order(const struct gmp_site_group *x, const struct gmp_site_group *y)
{
	if (x->max_saving != y->max_saving)
		return x->max_saving > y->max_saving ? -1 : 1;
	if (x->findings != y->findings)
		return x->findings > y->findings ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	int c = strcmp(x->site, y->site);
	return c ? c : (x->pattern > y->pattern) - (x->pattern < y->pattern);
}

static int cmp_group(const void *a, const void *b)
{
	return gmp_bysite__order(a, b);
}

/* The group of (site, pattern): sites interned, so (id, pattern) is the key. */
static struct gmp_site_group *group_of(struct gmp_bysite *b, struct gmp_u64map *m, size_t *cap,
				       const char *site, unsigned pattern, int *fresh_out)
{
	uint32_t id = gmp_strtab__intern(b->sites, site, strlen(site));
	int fresh = 0;
	uint32_t *slot = id ? gmp_u64map__slot(m, (uint64_t)id << 8 | pattern, (uint32_t)b->n, &fresh) : NULL;
	if (!slot)
		return NULL;
	if (fresh) {
		if (GMP_GROW(b->g, *cap, b->n + 1))
			return NULL;
		b->g[b->n++] = (struct gmp_site_group){ .site = gmp_strtab__get(b->sites, id, NULL),
							.pattern = pattern };
	}
	*fresh_out = fresh;
	return &b->g[*slot];
}

const char *gmp_site__of_object(struct gmp_sites *sites, const struct gmp_result *r, const struct gmp_object *o,
				char *buf, size_t n)
{
	const char *at = gmp_sites__event(sites, o->alloc_ev, NULL);
	if (at)
		return at;
	uint32_t stack = r->trace->ev[o->alloc_ev].stack;
	if (stack)
		snprintf(buf, n, "call path #%u", stack);
	else
		snprintf(buf, n, "no site");
	return buf;
}

int gmp_site__is_local(const char *site)
{
	return !strncmp(site, "call path #", 11) || !strcmp(site, "no site");
}

/*
 * Groups r's findings by site and pattern (pk NULL), or the objects live
 * at peak pk by site (pattern 0, their bytes as the sort key).
 */
static int group_all(struct gmp_sites *sites, const struct gmp_result *r, const struct gmp_peak *pk,
		     struct gmp_bysite *out)
{
	memset(out, 0, sizeof(*out));
	if (!(out->sites = gmp_strtab__new()))
		return -ENOMEM;
	struct gmp_u64map m;
	gmp_u64map__init(&m);
	size_t cap = 0, n = pk ? pk->obj_n : r->nfindings;
	for (size_t i = 0; i < n; i++) {
		const struct gmp_finding *f = pk ? NULL : &r->findings[i];
		const struct gmp_object *o = &r->objects[pk ? r->peak_objs[pk->obj_off + i] : f->object];
		char buf[64];
		int fresh;
		struct gmp_site_group *g = group_of(out, &m, &cap, gmp_site__of_object(sites, r, o, buf, sizeof(buf)),
						    f ? f->pattern : 0, &fresh);
		if (!g) {
			gmp_u64map__release(&m);
			gmp_bysite__release(out);
			return -ENOMEM;
		}
		if (fresh)
			g->alloc_ev = o->alloc_ev;
		g->findings++;
		g->bytes += o->size;
		uint64_t key = f ? f->saving : g->bytes;
		if (key > g->max_saving)
			g->max_saving = key;
		if (g->findings > out->largest)
			out->largest = g->findings;
	}
	gmp_u64map__release(&m);
	if (out->n > 1)
		qsort(out->g, out->n, sizeof(*out->g), cmp_group);
	return 0;
}

int gmp_bysite__peak(struct gmp_sites *sites, const struct gmp_result *r, const struct gmp_peak *pk,
		     struct gmp_bysite *out)
{
	return group_all(sites, r, pk, out);
}

int gmp_bysite__build(struct gmp_sites *sites, const struct gmp_result *r, struct gmp_bysite *out)
{
	return group_all(sites, r, NULL, out);
}

static int by_growth(const void *a, const void *b)
{
	const struct gmp_site_growth *x = a, *y = b;
	uint64_t gx = x->now - x->before, gy = y->now - y->before;
	if (gx != gy)
		return gx > gy ? -1 : 1;
	return strcmp(x->site, y->site);
}

int gmp_bysite__grown(struct gmp_sites *sites, const struct gmp_result *r, uint32_t device,
		      const struct gmp_baseline_peak *base, struct gmp_bysite *by, struct gmp_site_growth **v,
		      size_t *n)
{
	const struct gmp_peak *pk = gmp_result__top_peak(r, device);
	*v = NULL;
	*n = 0;
	memset(by, 0, sizeof(*by));
	if (!pk)
		return 0;
	if (gmp_bysite__peak(sites, r, pk, by) || !(*v = malloc((by->n ? by->n : 1) * sizeof(**v))))
		return -ENOMEM;
	for (size_t i = 0; i < by->n; i++) {
		if (gmp_site__is_local(by->g[i].site))
			continue;
		uint64_t key = gmp_sites__event_key(sites, by->g[i].alloc_ev);
		uint64_t was = gmp_baseline__site_bytes(base, by->g[i].site, key);
		if (by->g[i].bytes > was)
			(*v)[(*n)++] = (struct gmp_site_growth){ by->g[i].site, key, by->g[i].bytes, was };
	}
	if (*n > 1)
		qsort(*v, *n, sizeof(**v), by_growth);
	return 0;
}

void gmp_bysite__release(struct gmp_bysite *b)
{
	gmp_strtab__free(b->sites);
	free(b->g);
	memset(b, 0, sizeof(*b));
}
