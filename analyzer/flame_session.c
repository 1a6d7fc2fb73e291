// SPDX-License-Identifier: MIT
/*
 * A run's objects into a flame tree (flame.h): which objects (the peak's,
 * the leaked, all), and the frames above each one's bytes.  A call path is
 * symbolized once per prefix (the frames above it) and stack: the objects
 * of a loop share both.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "bysite.h"
#include "flame.h"
#include "markmem.h"
#include "rangemem.h"
#include "session.h"
#include "u64map.h"

#define FRAMES 128

struct walk {
	struct gmp_flame *f;
	struct gmp_session *s;
	const struct gmp_flame_opts *o;
	int device_frames;
	struct gmp_u64map paths;   /* prefix node << 33 | (stack, or `at` | 1 << 32) -> node */
	int64_t added;
};

static int64_t child(struct walk *w, uint32_t parent, const char *label)
{
	return gmp_flame__child(w->f, parent, label, strlen(label));
}

/* A frame's text: as reports write it, but a function without a line is its name alone. */
static const char *frame_text(const struct gmp_frame *fr, char *buf, size_t n)
{
	if (fr->function && !fr->file)
		return fr->function;
	return gmp_frame__format(fr, buf, n);
}

/* The node of the call path that allocated o, below node at; -ENOMEM. */
static int64_t call_path(struct walk *w, uint32_t at, const struct gmp_object *o)
{
	const struct gmp_event *e = &w->s->in.trace->ev[o->alloc_ev];
	uint64_t id = e->stack ? e->stack : e->at | 1ull << 32;
	uint64_t key = (uint64_t)at << 33 | id;
	uint32_t *hit = gmp_u64map__get(&w->paths, key);
	if (hit)
		return *hit;
	struct gmp_frame fr[FRAMES];
	size_t n = e->stack && w->s->sym ? gmp_symbolizer__stack(w->s->sym, e->stack, fr, FRAMES) : 0;
	size_t inner = 0; /* frames [inner, n) are the call path: past the outermost wrapper */
	for (size_t i = n; i-- > 0;)
		if (gmp_symbolizer__is_alloc_fn(w->s->sym, fr[i].function)) {
			inner = i + 1;
			break;
		}
	if (inner == n)
		inner = 0; /* a wrapper called from nothing symbolized: keep it all */
	int64_t v = at;
	char buf[1024];
	for (size_t i = n; i-- > inner && v >= 0;)
		v = child(w, (uint32_t)v, frame_text(&fr[i], buf, sizeof(buf)));
	if (!n)
		v = child(w, at, gmp_site__of_object(&w->s->sites, w->s->r, o, buf, sizeof(buf)));
	if (v >= 0 && !gmp_u64map__slot(&w->paths, key, (uint32_t)v, NULL))
		v = -ENOMEM;
	return v;
}

static int add_object(struct walk *w, uint32_t obj)
{
	const struct gmp_result *r = w->s->r;
	const struct gmp_trace *t = r->trace;
	const struct gmp_object *o = &r->objects[obj];
	char buf[512];
	if (w->o->device != GMP_ANY_DEVICE && o->device != w->o->device)
		return 0;
	if (w->o->ranges && fnmatch(w->o->ranges, gmp_trace__event_range_text(t, o->alloc_ev, buf, sizeof(buf)), 0))
		return 0;
	int64_t v = GMP_FLAME_ROOT;
	if (w->o->root)
		v = child(w, (uint32_t)v, w->o->root);
	if (v >= 0 && w->device_frames) {
		snprintf(buf, sizeof(buf), "device %u", o->device);
		v = child(w, (uint32_t)v, buf);
	}
	if (w->o->nvtx) {
		const uint32_t *names;
		size_t n = gmp_trace__range_path(t, gmp_trace__event_range(t, o->alloc_ev), &names);
		for (size_t i = 0; i < n && v >= 0; i++)
			v = child(w, (uint32_t)v, gmp_trace__str(t, names[i], NULL));
	}
	if (v >= 0)
		v = call_path(w, (uint32_t)v, o);
	if (v >= 0 && w->o->objects)
		v = child(w, (uint32_t)v, gmp_result__object_name(r, obj, buf, sizeof(buf)));
	if (v < 0)
		return (int)v;
	gmp_flame__add(w->f, (uint32_t)v, o->size);
	w->added++;
	return 0;
}

/*
 * Adds device's objects live at position `at` of r->order (pos: each
 * event's position), but those skip marks (NULL: none).
 */
static int live_at(struct walk *w, const uint32_t *pos, uint32_t device, uint32_t at, const uint8_t *skip)
{
	const struct gmp_result *r = w->s->r;
	int err = 0;
	for (size_t i = 0; i < r->nobjects && !err; i++) {
		const struct gmp_object *ob = &r->objects[i];
		uint32_t a = pos[ob->alloc_ev], e = ob->free_ev == GMP_NO_EVENT ? UINT32_MAX : pos[ob->free_ev];
		if (ob->device == device && !(skip && skip[i]) && ob->kind != GMP_MEM_IMPORTED && a <= at && at < e)
			err = add_object(w, (uint32_t)i);
	}
	return err;
}

/* Each event's position in r->order, or NULL (out of memory). */
static uint32_t *positions(const struct gmp_result *r)
{
	size_t nev = r->trace->nev;
	uint32_t *pos = malloc((nev ? nev : 1) * sizeof(*pos));
	for (size_t p = 0; pos && p < nev; p++)
		pos[r->order[p]] = (uint32_t)p;
	return pos;
}

/*
 * The objects in use at each device's peak of bytes in use: where the
 * detector's curve of bytes in use first reaches its largest value, every
 * object live there but the pools with regions (counted by their regions).
 * A device without regions has no such curve: its peak's objects.
 */
static int in_use(struct walk *w)
{
	const struct gmp_result *r = w->s->r;
	uint32_t *pos = positions(r);
	uint8_t *pool = calloc(r->nobjects ? r->nobjects : 1, 1);
	int err = pos && pool ? 0 : -ENOMEM;
	for (size_t i = 0; !err && i < r->nobjects; i++)
		if (r->objects[i].kind == GMP_MEM_POOL_REGION && r->objects[i].parent != GMP_NO_OBJECT)
			pool[r->objects[i].parent] = 1;
	for (size_t d = 0; !err && d < r->ndevices; d++) {
		const struct gmp_device_summary *ds = &r->devices[d];
		if (!ds->inuse_peak_bytes) {
			const struct gmp_peak *pk = gmp_result__top_peak(r, ds->device);
			for (uint32_t i = 0; pk && i < pk->obj_n && !err; i++)
				err = add_object(w, r->peak_objs[pk->obj_off + i]);
			continue;
		}
		uint32_t at = UINT32_MAX;
		for (size_t k = 0; k < r->ninuse_curve && at == UINT32_MAX; k++)
			if (r->inuse_curve[k].device == ds->device && r->inuse_curve[k].live == ds->inuse_peak_bytes)
				at = pos[r->inuse_curve[k].ev];
		if (at != UINT32_MAX)
			err = live_at(w, pos, ds->device, at, pool);
	}
	free(pos);
	free(pool);
	return err;
}

/* Range path's node in m (built of r), or UINT32_MAX. */
static uint32_t range_node(const struct gmp_rmem *m, const struct gmp_result *r, const char *path)
{
	char buf[4096];
	for (size_t i = 0; i < m->ntree; i++)
		if (!strcmp(gmp_rmem__path(m, r, m->tree[i], buf, sizeof(buf)), path))
			return m->tree[i];
	return UINT32_MAX;
}

/* The objects range w->o->range's times kept on each device; -ENOENT: no such range. */
static int range_kept(struct walk *w)
{
	const struct gmp_result *r = w->s->r;
	struct gmp_rmem m;
	int err = gmp_rmem__build(r, &m);
	uint32_t k = err ? UINT32_MAX : range_node(&m, r, w->o->range);
	if (!err && k == UINT32_MAX)
		err = -ENOENT;
	for (size_t d = 0; !err && d < m.ndev; d++) {
		uint32_t *v;
		size_t n;
		err = gmp_rmem__kept(&m, r, k, d, &v, &n);
		for (size_t i = 0; i < n && !err; i++)
			err = add_object(w, v[i]);
		free(v);
	}
	gmp_rmem__release(&m);
	return err;
}

/* The objects live at range w->o->range's peak on each device it has calls on; -ENOENT: no such range. */
static int range_peak(struct walk *w)
{
	const struct gmp_result *r = w->s->r;
	struct gmp_rmem m;
	int err = gmp_rmem__build(r, &m);
	uint32_t *pos = positions(r), k = UINT32_MAX;
	uint8_t *region = calloc(r->nobjects ? r->nobjects : 1, 1); /* pool regions: the peaks count their pools */
	if (!err && (!pos || !region))
		err = -ENOMEM;
	if (!err && (k = range_node(&m, r, w->o->range)) == UINT32_MAX)
		err = -ENOENT;
	for (size_t i = 0; !err && i < r->nobjects; i++)
		region[i] = !gmp_mem_kind__device_bytes(r->objects[i].kind);
	for (size_t d = 0; !err && d < m.ndev; d++) {
		const struct gmp_rmem_dev *x = gmp_rmem__at(&m, k, d);
		if (x->calls)
			err = live_at(w, pos, r->devices[d].device, pos[x->peak_ev], region);
	}
	free(pos);
	free(region);
	gmp_rmem__release(&m);
	return err;
}

/* The objects live at the mark named w->o->range that found the most, or (kept) what its marks kept, on each device. */
static int marks(struct walk *w, int kept)
{
	const struct gmp_result *r = w->s->r;
	struct gmp_mmem m;
	int err = gmp_mmem__build(r, &m);
	size_t g = err ? SIZE_MAX : gmp_mmem__group_named(&m, r, w->o->range);
	if (!err && g == SIZE_MAX)
		err = -ENOENT;
	for (size_t d = 0; !err && d < m.ndev; d++) {
		uint32_t *v;
		size_t n;
		if (!gmp_mmem__shown(&m, g, d))
			continue;
		err = kept ? gmp_mmem__kept(&m, r, g, d, &v, &n)
			   : gmp_mmem__live_at(r, gmp_mmem__at(&m, g, d)->max_mark, d, &v, &n);
		for (size_t i = 0; i < n && !err; i++)
			err = add_object(w, v[i]);
		free(v);
	}
	gmp_mmem__release(&m);
	return err;
}

int64_t gmp_flame__session(struct gmp_flame *f, struct gmp_session *s, const struct gmp_flame_opts *o)
{
	const struct gmp_result *r = s->r;
	struct walk w = { .f = f, .s = s, .o = o,
			  .device_frames = o->device == GMP_ANY_DEVICE && (r->ndevices > 1 || o->device_frames) };
	gmp_u64map__init(&w.paths);
	int err = 0;
	switch (o->what) {
	case GMP_FLAME_PEAK:
		for (size_t d = 0; d < r->ndevices && !err; d++) {
			const struct gmp_peak *pk = gmp_result__top_peak(r, r->devices[d].device);
			for (uint32_t i = 0; pk && i < pk->obj_n && !err; i++)
				err = add_object(&w, r->peak_objs[pk->obj_off + i]);
		}
		break;
	case GMP_FLAME_LEAKED:
		for (size_t i = 0; i < r->nfindings && !err; i++)
			if (gmp_leak__counted(r, &r->findings[i]))
				err = add_object(&w, r->findings[i].object);
		break;
	case GMP_FLAME_IN_USE:
		err = in_use(&w);
		break;
	case GMP_FLAME_RANGE:
		err = range_peak(&w);
		break;
	case GMP_FLAME_KEPT:
		err = range_kept(&w);
		break;
	case GMP_FLAME_MARK:
	case GMP_FLAME_MARK_KEPT:
		err = marks(&w, o->what == GMP_FLAME_MARK_KEPT);
		break;
	case GMP_FLAME_ALLOCATED:
		for (size_t i = 0; i < r->nobjects && !err; i++)
			if (gmp_mem_kind__device_bytes(r->objects[i].kind))
				err = add_object(&w, (uint32_t)i);
		break;
	}
	gmp_u64map__release(&w.paths);
	return err ? err : w.added;
}
