// SPDX-License-Identifier: MIT
/* Findings grouped by allocation site and pattern (bysite.h). */
#define _GNU_SOURCE
#include "bysite.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "u64map.h"
#include "util.h"

static uint64_t key_of(const char *site, unsigned pattern, uint64_t salt)
{
	uint64_t h = 1469598103934665603ull ^ salt;
	for (const char *p = site; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	h = (h ^ pattern) * 1099511628211ull;
	return h == UINT64_MAX ? 0 : h;
}

static int cmp_group(const void *a, const void *b)
{
	const struct gmp_site_group *x = a, *y = b;
	if (x->max_saving != y->max_saving)
		return x->max_saving > y->max_saving ? -1 : 1;
	if (x->findings != y->findings)
		return x->findings > y->findings ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	int c = strcmp(x->site, y->site);
	return c ? c : (x->pattern > y->pattern) - (x->pattern < y->pattern);
}

int gmp_bysite__build(struct gmp_sites *sites, const struct gmp_result *r, struct gmp_bysite *out)
{
	memset(out, 0, sizeof(*out));
	struct gmp_u64map m;
	gmp_u64map__init(&m);
	size_t cap = 0;
	int err = 0;
	for (size_t i = 0; i < r->nfindings && !err; i++) {
		const struct gmp_finding *f = &r->findings[i];
		const struct gmp_object *o = &r->objects[f->object];
		const char *at = gmp_sites__event(sites, o->alloc_ev, NULL);
		char buf[64];
		if (!at) {
			uint32_t stack = r->trace->ev[o->alloc_ev].stack;
			if (stack)
				snprintf(buf, sizeof(buf), "call path #%u", stack);
			else
				snprintf(buf, sizeof(buf), "no site");
			at = buf;
		}
		/* A key per (site, pattern); a collision of two keys moves on to the next salt. */
		for (uint64_t salt = 0;; salt++) {
			int fresh = 0;
			uint32_t *slot = gmp_u64map__slot(&m, key_of(at, f->pattern, salt), (uint32_t)out->n, &fresh);
			if (!slot) {
				err = -ENOMEM;
				break;
			}
			if (fresh) {
				if (GMP_GROW(out->g, cap, out->n + 1)) {
					err = -ENOMEM;
					break;
				}
				out->g[out->n] = (struct gmp_site_group){ .site = strdup(at), .pattern = f->pattern };
				if (!out->g[out->n].site) {
					err = -ENOMEM;
					break;
				}
				out->n++;
			}
			struct gmp_site_group *g = &out->g[*slot];
			if (g->pattern != f->pattern || strcmp(g->site, at) != 0)
				continue;
			g->findings++;
			g->bytes += o->size;
			if (f->saving > g->max_saving)
				g->max_saving = f->saving;
			if (g->findings > out->largest)
				out->largest = g->findings;
			break;
		}
	}
	gmp_u64map__release(&m);
	if (err) {
		gmp_bysite__release(out);
		return err;
	}
	if (out->n > 1)
		qsort(out->g, out->n, sizeof(*out->g), cmp_group);
	return 0;
}

void gmp_bysite__release(struct gmp_bysite *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->g[i].site);
	free(b->g);
	memset(b, 0, sizeof(*b));
}
