// SPDX-License-Identifier: MIT
/* A device's live bytes by allocation site, in columns of the topological order (stack.h). */
#include "stack.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bysite.h"
#include "cmds.h"
#include "strtab.h"

void gmp_stack__release(struct gmp_stack *st)
{
	free(st->site);
	free(st->at_peak);
	free(st->v);
	free(st->layer);
	free(st->now);
	gmp_strtab__free(st->labels);
	memset(st, 0, sizeof(*st));
}

/* A site as the peak holds it, as a peak's group (bysite.h), so that it sorts as the peaks table does. */
struct rank {
	struct gmp_site_group g;
	uint32_t id;
};

static int by_rank(const void *a, const void *b)
{
	return gmp_bysite__order(&((const struct rank *)a)->g, &((const struct rank *)b)->g);
}

/*
 * Each object's site id (0: not counted here).  Live bytes count a pool
 * whole and not its regions; bytes in use count its regions instead.
 */
static int site_ids(struct gmp_sites *sites, const struct gmp_result *r, uint32_t device, int inuse,
		    struct gmp_strtab *labels, uint32_t *sid)
{
	char buf[32];
	for (size_t o = 0; o < r->nobjects; o++)
		sid[o] = 1; /* a mark: counted unless a pool with regions (below) */
	for (size_t o = 0; inuse && o < r->nobjects; o++)
		if (r->objects[o].kind == GMP_MEM_POOL_REGION && r->objects[o].parent != GMP_NO_OBJECT)
			sid[r->objects[o].parent] = 0;
	for (size_t o = 0; o < r->nobjects; o++) {
		const struct gmp_object *ob = &r->objects[o];
		if (ob->device != device || !sid[o] || ob->kind == GMP_MEM_IMPORTED ||
		    (!inuse && ob->kind == GMP_MEM_POOL_REGION)) {
			sid[o] = 0;
			continue;
		}
		const char *s = gmp_site__of_object(sites, r, ob, buf, sizeof(buf));
		if (!s || !(sid[o] = gmp_strtab__intern(labels, s, strlen(s))))
			return -ENOMEM;
	}
	return 0;
}

/* The object each change of the curve belongs to: obj_of[ev]. */
static void changes(const struct gmp_result *r, const uint32_t *sid, uint32_t *obj_of)
{
	memset(obj_of, 0xff, r->trace->nev * sizeof(*obj_of));
	for (size_t o = 0; o < r->nobjects; o++) {
		if (!sid[o])
			continue;
		obj_of[r->objects[o].alloc_ev] = (uint32_t)o;
		if (r->objects[o].free_ev != GMP_NO_EVENT)
			obj_of[r->objects[o].free_ev] = (uint32_t)o;
	}
}

/* The largest live bytes' first point (SIZE_MAX: none above 0), then every site's bytes and objects there. */
static size_t peak_point(const struct gmp_result *r, const struct gmp_curve_point *pts, size_t npts, uint32_t device,
			 const uint32_t *obj_of, const uint32_t *sid, uint64_t *bytes, uint32_t *objects)
{
	size_t at = SIZE_MAX;
	uint64_t mx = 0;
	for (size_t p = 0; p < npts; p++)
		if (pts[p].device == device && pts[p].live > mx) {
			mx = pts[p].live;
			at = p;
		}
	for (size_t p = 0; at != SIZE_MAX && p <= at; p++) {
		uint32_t o = pts[p].device == device ? obj_of[pts[p].ev] : UINT32_MAX;
		if (o == UINT32_MAX)
			continue; /* another device's, or (a bug) no object's: the second walk says */
		int alloc = r->objects[o].alloc_ev == pts[p].ev;
		bytes[sid[o]] += alloc ? r->objects[o].size : -r->objects[o].size;
		objects[sid[o]] += alloc ? 1 : (uint32_t)-1;
	}
	return at;
}

/* The curve's walk (gmp_text__columns), each column keeping the layers where its live bytes are largest. */
static int columns(struct gmp_stack *st, const struct gmp_result *r, const struct gmp_curve_point *pts,
		   size_t npts, uint32_t device, const uint32_t *obj_of, uint64_t *cur, uint64_t *best)
{
	const size_t w = st->nsites + 1;
	const uint64_t levels = (uint64_t)r->max_level + 1;
	uint64_t live = 0;
	size_t p = 0;
	for (uint32_t c = 0; c < st->ncols; c++) {
		const uint64_t end = levels * (c + 1) / st->ncols;
		uint64_t mx = live;
		memcpy(best, cur, w * sizeof(*cur));
		for (; p < npts && r->level[pts[p].ev] < end; p++) {
			const struct gmp_curve_point *pt = &pts[p];
			if (pt->device != device)
				continue;
			uint32_t o = obj_of[pt->ev];
			if (o == UINT32_MAX)
				return -EINVAL; /* a change of live bytes of no object of the device */
			const struct gmp_object *ob = &r->objects[o];
			uint64_t *l = &cur[st->layer[o]];
			if (pt->ev == ob->alloc_ev)
				*l += ob->size;
			else if (*l >= ob->size)
				*l -= ob->size;
			else
				return -EINVAL;
			live = pt->live;
			uint64_t sum = 0;
			for (size_t k = 0; k < w; k++)
				sum += cur[k];
			if (sum != live)
				return -EINVAL; /* the layers must add up to the device's live bytes */
			if (live > mx) {
				mx = live;
				memcpy(best, cur, w * sizeof(*cur));
			}
		}
		memcpy(&st->v[(size_t)c * w], best, w * sizeof(*best));
	}
	return 0;
}

/* The layers: the sites ranked as the peak holds them, max of them (or max + 1: no rest of one site). */
static int layers(struct gmp_stack *st, const struct gmp_result *r, const uint32_t *sid, const uint64_t *bytes,
		  const uint32_t *objects, size_t nids, size_t max)
{
	struct rank *rk = malloc((nids ? nids : 1) * sizeof(*rk));
	uint32_t *layer_of = malloc((nids + 1) * sizeof(*layer_of));
	size_t n = 0;
	if (!rk || !layer_of) {
		free(rk);
		free(layer_of);
		return -ENOMEM;
	}
	for (uint32_t id = 1; id <= nids; id++)
		if (bytes[id])
			rk[n++] = (struct rank){ { .site = gmp_strtab__get(st->labels, id, NULL), .findings = objects[id],
						   .bytes = bytes[id], .max_saving = bytes[id] }, id };
	qsort(rk, n, sizeof(*rk), by_rank);
	st->nsites = n <= max + 1 ? n : max;
	const size_t w = st->nsites + 1;
	st->site = calloc(w, sizeof(*st->site));
	st->at_peak = calloc(w, sizeof(*st->at_peak));
	st->now = calloc(w, sizeof(*st->now));
	st->v = calloc((size_t)st->ncols * w, sizeof(*st->v));
	int err = st->site && st->at_peak && st->now && st->v ? 0 : -ENOMEM;
	for (size_t id = 0; id <= nids; id++)
		layer_of[id] = (uint32_t)st->nsites; /* the rest */
	for (size_t k = 0; !err && k < n; k++) {
		if (k < st->nsites) {
			st->site[k] = rk[k].g.site;
			layer_of[rk[k].id] = (uint32_t)k;
		}
		st->at_peak[k < st->nsites ? k : st->nsites] += rk[k].g.bytes;
	}
	for (size_t o = 0; !err && o < r->nobjects; o++)
		st->layer[o] = sid[o] ? layer_of[sid[o]] : UINT32_MAX;
	/* Every site has an object: the ranked ones their layers, the others (if any) the rest. */
	st->filled = st->nsites + (nids > st->nsites);
	free(rk);
	free(layer_of);
	return err;
}

int gmp_stack__build(struct gmp_sites *sites, const struct gmp_result *r, uint32_t device, int inuse, size_t max,
		     uint32_t ncols, struct gmp_stack *st)
{
	memset(st, 0, sizeof(*st));
	const struct gmp_curve_point *pts = inuse ? r->inuse_curve : r->curve;
	const size_t npts = inuse ? r->ninuse_curve : r->ncurve;
	st->ncols = ncols;
	st->last_level = r->max_level;
	st->labels = gmp_strtab__new();
	uint32_t *sid = malloc((r->nobjects ? r->nobjects : 1) * sizeof(*sid));
	uint32_t *obj_of = malloc((r->trace->nev ? r->trace->nev : 1) * sizeof(*obj_of));
	st->layer = malloc((r->nobjects ? r->nobjects : 1) * sizeof(*st->layer));
	int err = st->labels && sid && obj_of && st->layer ? 0 : -ENOMEM;
	if (!err)
		err = site_ids(sites, r, device, inuse, st->labels, sid);
	size_t nids = err ? 0 : gmp_strtab__count(st->labels);
	uint64_t *bytes = NULL, *cur = NULL, *best = NULL;
	uint32_t *objects = NULL;
	if (!err) {
		bytes = calloc(nids + 1, sizeof(*bytes));
		objects = calloc(nids + 1, sizeof(*objects));
		err = bytes && objects ? 0 : -ENOMEM;
	}
	if (!err) {
		changes(r, sid, obj_of);
		size_t at = peak_point(r, pts, npts, device, obj_of, sid, bytes, objects);
		if (at == SIZE_MAX) {
			err = -ENOENT;
		} else {
			const uint64_t nlev = (uint64_t)r->max_level + 1;
			st->peak_col = (uint32_t)((((uint64_t)r->level[pts[at].ev] + 1) * ncols + nlev - 1) / nlev - 1);
			err = layers(st, r, sid, bytes, objects, nids, max);
		}
	}
	if (!err) {
		cur = calloc(st->nsites + 1, sizeof(*cur));
		best = calloc(st->nsites + 1, sizeof(*best));
		err = cur && best ? columns(st, r, pts, npts, device, obj_of, cur, best) : -ENOMEM;
	}
	free(sid);
	free(obj_of);
	free(bytes);
	free(objects);
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

int gmp_stack__html(FILE *fp, const struct gmp_stack *st, uint32_t device, const char *what, uint64_t top, int x0,
		    int h)
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
		"aria-label=\"%s by allocation site on device %u\">\n", x0 + n + 10, h + 30, x0 + n + 10,
		h + 30, what, device);
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
