// SPDX-License-Identifier: MIT
/* A device's live bytes by allocation site, in columns of the topological order (stack.h). */
#include "stack.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"

void gmp_stack__release(struct gmp_stack *st)
{
	free(st->site);
	free(st->at_peak);
	free(st->v);
	free(st->layer);
	free(st->now);
	gmp_bysite__release(&st->by);
	memset(st, 0, sizeof(*st));
}

/* Which layer each of the device's objects is in (UINT32_MAX: another device's, or a pool region). */
static int layers_of(struct gmp_sites *sites, const struct gmp_result *r, uint32_t device,
		     struct gmp_stack *st, uint32_t *layer)
{
	char buf[32];
	uint64_t *seen = st->now; /* zeroed: which layers get an object (then zeroed again) */
	for (size_t o = 0; o < r->nobjects; o++) {
		const struct gmp_object *ob = &r->objects[o];
		layer[o] = UINT32_MAX;
		if (ob->device != device || ob->kind == GMP_MEM_POOL_REGION)
			continue; /* the device's live bytes count a pool whole, not its regions */
		const char *s = gmp_site__of_object(sites, r, ob, buf, sizeof(buf));
		if (!s)
			return -ENOMEM;
		uint32_t k = 0;
		while (k < st->nsites && strcmp(st->site[k], s))
			k++;
		layer[o] = k; /* nsites: the rest */
		st->filled += !seen[k];
		seen[k] = 1;
	}
	memset(seen, 0, (st->nsites + 1) * sizeof(*seen));
	return 0;
}

int gmp_stack__build(struct gmp_sites *sites, const struct gmp_result *r, uint32_t device, size_t max,
		     uint32_t ncols, struct gmp_stack *st)
{
	memset(st, 0, sizeof(*st));
	const struct gmp_peak *pk = gmp_result__top_peak(r, device);
	if (!pk)
		return -ENOENT;
	if (gmp_bysite__peak(sites, r, pk, &st->by))
		return -ENOMEM;
	/* A layer for the rest that would hold one site gets its name instead. */
	st->nsites = st->by.n <= max + 1 ? st->by.n : max;
	const size_t w = st->nsites + 1;
	st->ncols = ncols;
	st->last_level = r->max_level;
	const uint64_t nlev = (uint64_t)r->max_level + 1;
	st->peak_col = (uint32_t)((((uint64_t)r->level[pk->ev] + 1) * ncols + nlev - 1) / nlev - 1);
	st->site = calloc(w, sizeof(*st->site));
	st->at_peak = calloc(w, sizeof(*st->at_peak));
	st->v = calloc((size_t)ncols * w, sizeof(*st->v));
	uint32_t *layer = st->layer = malloc((r->nobjects ? r->nobjects : 1) * sizeof(*layer));
	st->now = calloc(w, sizeof(*st->now));
	uint32_t *obj_of = malloc((r->trace->nev ? r->trace->nev : 1) * sizeof(*obj_of));
	uint64_t *cur = calloc(w, sizeof(*cur)), *best = calloc(w, sizeof(*best));
	int err = st->site && st->at_peak && st->v && layer && st->now && obj_of && cur && best ? 0 : -ENOMEM;
	for (size_t k = 0; !err && k < st->by.n; k++) {
		size_t l = k < st->nsites ? k : st->nsites;
		if (k < st->nsites)
			st->site[k] = st->by.g[k].site;
		st->at_peak[l] += st->by.g[k].bytes;
	}
	if (!err)
		err = layers_of(sites, r, device, st, layer);
	if (!err) {
		memset(obj_of, 0xff, r->trace->nev * sizeof(*obj_of));
		for (size_t o = 0; o < r->nobjects; o++) {
			if (layer[o] == UINT32_MAX)
				continue;
			obj_of[r->objects[o].alloc_ev] = (uint32_t)o;
			if (r->objects[o].free_ev != GMP_NO_EVENT)
				obj_of[r->objects[o].free_ev] = (uint32_t)o;
		}
		/* The curve's walk (gmp_text__columns), each column keeping the layers where its live bytes are largest. */
		const uint64_t levels = (uint64_t)r->max_level + 1;
		uint64_t live = 0;
		size_t p = 0;
		for (uint32_t c = 0; !err && c < ncols; c++) {
			const uint64_t end = levels * (c + 1) / ncols;
			uint64_t mx = live;
			memcpy(best, cur, w * sizeof(*cur));
			for (; !err && p < r->ncurve && r->level[r->curve[p].ev] < end; p++) {
				const struct gmp_curve_point *pt = &r->curve[p];
				if (pt->device != device)
					continue;
				uint32_t o = obj_of[pt->ev];
				if (o == UINT32_MAX) {
					err = -EINVAL; /* a change of live bytes of no object of the device */
					break;
				}
				const struct gmp_object *ob = &r->objects[o];
				uint64_t *l = &cur[layer[o]];
				if (pt->ev == ob->alloc_ev)
					*l += ob->size;
				else if (*l >= ob->size)
					*l -= ob->size;
				else
					err = -EINVAL;
				live = pt->live;
				uint64_t sum = 0;
				for (size_t k = 0; k < w; k++)
					sum += cur[k];
				if (sum != live)
					err = -EINVAL; /* the layers must add up to the device's live bytes */
				if (live > mx) {
					mx = live;
					memcpy(best, cur, w * sizeof(*cur));
				}
			}
			memcpy(&st->v[(size_t)c * w], best, w * sizeof(*best));
		}
	}
	free(obj_of);
	free(cur);
	free(best);
	return err;
}

const char *gmp_stack__change(struct gmp_stack *st, const struct gmp_result *r, uint32_t obj, int alloc,
			      uint64_t *bytes)
{
	uint32_t k = st->layer ? st->layer[obj] : UINT32_MAX;
	if (k == UINT32_MAX || st->filled < 2)
		return NULL;
	uint64_t size = r->objects[obj].size;
	st->now[k] = alloc ? st->now[k] + size : st->now[k] > size ? st->now[k] - size : 0;
	*bytes = st->now[k];
	return k < st->nsites ? st->site[k] : "other sites";
}

/* A y coordinate in tenths of a pixel: the plot's top (y 10) is top bytes, its bottom (y h) none. */
static long y_of(uint64_t v, uint64_t top, int h)
{
	return top ? lround((h - (double)v * (h - 10) / (double)top) * 10) : (long)h * 10;
}

/* One layer, between the sums of the layers below it (lo) and with it (hi), as a step area. */
static void layer_path(FILE *fp, const uint64_t *lo, const uint64_t *hi, uint32_t n, uint64_t top, int x0, int h)
{
	long y = y_of(hi[0], top, h);
	fprintf(fp, "M%d %.1f", x0, y / 10.0);
	for (uint32_t c = 1; c < n; c++) {
		long ny = y_of(hi[c], top, h);
		if (ny != y)
			fprintf(fp, "H%u V%.1f", x0 + c, (double)(y = ny) / 10.0);
	}
	y = y_of(lo[n - 1], top, h);
	fprintf(fp, "H%u V%.1f", x0 + n, y / 10.0);
	for (uint32_t c = n - 1; c > 0; c--) {
		long ny = y_of(lo[c - 1], top, h);
		if (ny != y)
			fprintf(fp, "H%u V%.1f", x0 + c, (double)(y = ny) / 10.0);
	}
	fprintf(fp, "H%d Z", x0);
}

int gmp_stack__layers(const struct gmp_stack *st)
{
	const size_t w = st->nsites + 1;
	int n = 0;
	for (size_t k = 0; k < w; k++)
		for (uint32_t c = 0; c < st->ncols; c++)
			if (st->v[(size_t)c * w + k]) {
				n++;
				break;
			}
	return n;
}

int gmp_stack__html(FILE *fp, const struct gmp_stack *st, uint32_t device, uint64_t top, int x0, int h)
{
	const size_t w = st->nsites + 1;
	const uint32_t n = st->ncols;
	uint64_t *lo = calloc(n ? n : 1, sizeof(*lo)), *hi = calloc(n ? n : 1, sizeof(*hi));
	if (!lo || !hi) {
		free(lo);
		free(hi);
		return -ENOMEM;
	}
	char a[32];
	fprintf(fp, "<svg width=\"%u\" height=\"%d\" viewBox=\"0 0 %u %d\" role=\"img\" "
		"aria-label=\"live bytes by allocation site on device %u\">\n", x0 + n + 10, h + 30, x0 + n + 10,
		h + 30, device);
	fprintf(fp, "<text x=\"0\" y=\"12\">%s</text><text x=\"0\" y=\"%d\">0</text>\n",
		gmp_human_bytes(top, a, sizeof(a)), h);
	for (size_t k = 0; k < w; k++) {
		int any = 0;
		for (uint32_t c = 0; c < n; c++) {
			lo[c] = hi[c];
			hi[c] += st->v[(size_t)c * w + k];
			any |= st->v[(size_t)c * w + k] != 0;
		}
		if (!any)
			continue;
		fprintf(fp, "<path class=\"l%zu\" d=\"", k < st->nsites ? k % 9 : 9);
		layer_path(fp, lo, hi, n, top, x0, h);
		fprintf(fp, "\"><title>");
		gmp_text__markup(fp, k < st->nsites ? st->site[k] : "other sites");
		fprintf(fp, ": %s at the peak</title></path>\n", gmp_human_bytes(st->at_peak[k], a, sizeof(a)));
	}
	fprintf(fp, "<line class=\"peak\" x1=\"%u\" x2=\"%u\" y1=\"0\" y2=\"%d\"><title>the peak: %s</title></line>\n",
		x0 + st->peak_col, x0 + st->peak_col, h, gmp_human_bytes(top, a, sizeof(a)));
	fprintf(fp, "<text x=\"%d\" y=\"%d\">0</text><text x=\"%u\" y=\"%d\" text-anchor=\"end\">level %u "
		"(topological order)</text>\n", x0, h + 20, x0 + n, h + 20, st->last_level);
	fprintf(fp, "</svg>\n<ul class=\"legend\">");
	for (size_t k = 0; k < w; k++) {
		if (k == st->nsites && !st->at_peak[k]) {
			int any = 0;
			for (uint32_t c = 0; c < n; c++)
				any |= st->v[(size_t)c * w + k] != 0;
			if (!any)
				continue;
		}
		fprintf(fp, "<li><svg width=\"10\" height=\"10\"><rect class=\"l%zu\" width=\"10\" height=\"10\"/></svg>",
			k < st->nsites ? k % 9 : 9);
		if (k < st->nsites) {
			fprintf(fp, "<code>");
			gmp_text__markup(fp, st->site[k]);
			fprintf(fp, "</code>");
		} else {
			fprintf(fp, "other sites");
		}
		fprintf(fp, ": %s at the peak</li>", gmp_human_bytes(st->at_peak[k], a, sizeof(a)));
	}
	fprintf(fp, "</ul>\n");
	free(lo);
	free(hi);
	return ferror(fp) ? -EIO : 0;
}
