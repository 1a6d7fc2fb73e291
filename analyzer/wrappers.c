// SPDX-License-Identifier: MIT
/*
 * Allocation wrappers: a program that allocates through a helper of its
 * own (bench_malloc<T>, a framework's allocate()) has the helper's
 * cudaMalloc line as the site of every object, so the report's sites, the
 * source lines under them and a baseline's fingerprints cannot tell the
 * helper's callers' objects apart.  --alloc-fn makes the callers the
 * sites; this finds the helpers among the findings' objects' sites (a
 * site whose objects came from two or more calling lines) so that the
 * notes can say which option to pass.
 */
#include "wrappers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "u64map.h"
#include "util.h"

/* A map key (UINT64_MAX is reserved). */
static uint64_t map_key(uint64_t k)
{
	return k == UINT64_MAX ? 0 : k;
}

/* A site seen in this input: its frame, its objects with findings and their calling lines. */
struct seen {
	struct gmp_frame site;
	uint32_t objects, callers;
};

static void merge(struct gmp_symnotes *notes, const struct seen *w)
{
	char site[512];
	snprintf(site, sizeof(site), "%s:%u", w->site.file, w->site.line);
	size_t k = 0;
	while (k < notes->nw && strcmp(notes->w[k].site, site))
		k++;
	if (k == notes->nw) {
		if (notes->nw == GMP_WRAPNOTES_MAX)
			return;
		notes->nw++;
		snprintf(notes->w[k].site, sizeof(notes->w[k].site), "%s", site);
		snprintf(notes->w[k].function, sizeof(notes->w[k].function), "%s", w->site.function);
	}
	notes->w[k].objects += w->objects;
	if (w->callers > notes->w[k].callers)
		notes->w[k].callers = w->callers; /* inputs of one program: the same lines */
}

int gmp_wrapnotes__add(struct gmp_symnotes *notes, struct gmp_sites *s)
{
	const struct gmp_result *r = s->r;
	const struct gmp_trace *t = r->trace;
	if (!notes->wrappers || !s->sym)
		return 0;
	struct gmp_u64map objs, sites, pairs; /* objects counted; site -> index in v; (site, caller) seen */
	gmp_u64map__init(&objs);
	gmp_u64map__init(&sites);
	gmp_u64map__init(&pairs);
	struct seen *v = NULL;
	size_t n = 0, cap = 0;
	int err = 0;
	for (size_t i = 0; i < r->nfindings && !err; i++) {
		uint32_t obj = r->findings[i].object;
		const struct gmp_event *e = &t->ev[r->objects[obj].alloc_ev];
		struct gmp_frame site, caller;
		int is_new;
		if (!gmp_u64map__slot(&objs, obj, 0, &is_new)) {
			err = -ENOMEM;
			break;
		}
		if (!is_new || e->at || !e->stack || !gmp_symbolizer__caller(s->sym, e->stack, &site, &caller) ||
		    !site.file || !site.line)
			continue;
		/* The site as fingerprints know it; a calling line by its file:line, with the site. */
		uint64_t key = map_key(gmp_sites__event_key(s, r->objects[obj].alloc_ev));
		char from[600];
		snprintf(from, sizeof(from), "%s:%u", caller.file, caller.line);
		uint32_t *slot = gmp_u64map__slot(&sites, key, (uint32_t)n, &is_new);
		if (!slot || (is_new && GMP_GROW(v, cap, n + 1))) {
			err = -ENOMEM;
			break;
		}
		if (is_new)
			v[n++] = (struct seen){ .site = site };
		struct seen *w = &v[*slot];
		w->objects++;
		if (!gmp_u64map__slot(&pairs, map_key(gmp_sites__site_fingerprint(from, key)), 0, &is_new))
			err = -ENOMEM;
		else
			w->callers += (uint32_t)is_new;
	}
	for (size_t k = 0; k < n && !err; k++)
		if (v[k].callers >= 2)
			merge(notes, &v[k]);
	if (err)
		notes->wrappers_lost = 1;
	free(v);
	gmp_u64map__release(&objs);
	gmp_u64map__release(&sites);
	gmp_u64map__release(&pairs);
	return err;
}

/* glob escaped for fnmatch: the function's own '*', '?', '[' and '\' match only themselves. */
static void escape_glob(const char *s, char *out, size_t n)
{
	size_t k = 0;
	for (; *s && k + 2 < n; s++) {
		if (strchr("*?[\\", *s))
			out[k++] = '\\';
		out[k++] = *s;
	}
	out[k] = 0;
}

void gmp_wrapnotes__print(const struct gmp_symnotes *notes, FILE *fp, const char *prefix)
{
	char glob[520];
	for (size_t k = 0; k < notes->nw; k++) {
		const struct gmp_wrapnote *w = &notes->w[k];
		escape_glob(w->function, glob, sizeof(glob));
		fprintf(fp, "%snote: %u objects with findings were allocated at %s in %s, called from %u lines: "
			"--alloc-fn '%s' makes those lines their sites\n", prefix, w->objects, w->site, w->function,
			w->callers, glob);
	}
	if (notes->wrappers_lost)
		fprintf(fp, "%snote: allocation wrappers were not looked for in some input (out of memory)\n", prefix);
}
