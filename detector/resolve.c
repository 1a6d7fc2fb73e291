// SPDX-License-Identifier: MIT
/*
 * The resolve pass: walks the trace in issue order with a map of live
 * objects, creates an object per allocation, checks every address, and
 * records what each event does to which object.  Accesses to a pool
 * region also count for the pool that contains it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "objmap.h"
#include "util.h"

#define CACHE_SLOTS 4096 /* 2^12: the hash keeps 12 bits */

/* A remembered lookup: [start, end) belonged to obj when cached. */
struct hit {
	uint64_t start, end;
	uint32_t obj;
};

struct rs {
	struct det *d;
	struct gmp_objmap *base;     /* device, managed, async, heap objects */
	struct gmp_objmap *regions;  /* pool regions */
	struct hit cache[CACHE_SLOTS]; /* kernels touch the same objects again and again */
	struct det_graphs graphs;    /* graph launches whose kernel nodes' accesses mixed */
	uint32_t *stamp;             /* per object: last event that added a dep + 1 */
	uint32_t *slot;              /* per object: index of that dep entry */
	size_t stamp_cap, slot_cap;
};

static uint32_t lookup_slow(const struct rs *s, uint64_t addr)
{
	uint32_t o = gmp_objmap__find(s->regions, addr);
	return o != UINT32_MAX ? o : gmp_objmap__find(s->base, addr);
}

/*
 * The object containing addr, or UINT32_MAX.  A cached hit is valid while
 * its object is live: a freed object has free_ev set, and the cache is
 * cleared whenever a pool region comes or goes (a region may cover part
 * of a cached pool).
 */
static uint32_t lookup(struct rs *s, uint64_t addr)
{
	/* Allocations are aligned: hash the address rather than take its low bits. */
	struct hit *h = &s->cache[((addr >> 8) * 0x9e3779b97f4a7c15ull) >> 52];
	if (h->obj != UINT32_MAX && addr >= h->start && addr < h->end &&
	    s->d->r->objects[h->obj].free_ev == GMP_NO_EVENT)
		return h->obj;
	uint32_t o = lookup_slow(s, addr);
	if (o != UINT32_MAX) {
		const struct gmp_object *ob = &s->d->r->objects[o];
		*h = (struct hit){ .start = ob->addr, .end = ob->addr + ob->size, .obj = o };
	}
	return o;
}

static void forget(struct rs *s)
{
	for (size_t i = 0; i < CACHE_SLOTS; i++)
		s->cache[i].obj = UINT32_MAX;
}

static int push_dep(struct rs *s, uint32_t v, uint32_t obj, unsigned kind)
{
	struct det *d = s->d;
	if (kind <= DEP_RW && s->stamp[obj] == v + 1) {
		/* The same event touches the object again: merge the read/write bits. */
		uint32_t *e = &d->deps[s->slot[obj]];
		if (DEP_KIND(*e) <= DEP_RW)
			*e = (*e & ~7u) | (DEP_KIND(*e) | kind);
		return 0;
	}
	if (GMP_GROW(d->deps, d->deps_cap, d->ndeps + 1))
		return -ENOMEM;
	s->stamp[obj] = v + 1;
	s->slot[obj] = (uint32_t)d->ndeps;
	d->deps[d->ndeps++] = obj << 3 | kind;
	return 0;
}

/* A read or write of obj, and of the pool it lives in. */
static int push_access(struct rs *s, uint32_t v, uint32_t obj, unsigned kind)
{
	int err = push_dep(s, v, obj, kind);
	uint32_t parent = s->d->r->objects[obj].parent;
	if (!err && parent != GMP_NO_OBJECT)
		err = push_dep(s, v, parent, kind);
	return err;
}

static int new_object(struct rs *s, uint32_t v, const struct gmp_event *e, uint32_t *out)
{
	struct det *d = s->d;
	struct gmp_result *r = d->r;
	if (r->nobjects >= DEP_MAX_OBJ)
		return det_fail(d, v, "too many objects");
	if (GMP_GROW(r->objects, d->objects_cap, r->nobjects + 1) ||
	    GMP_GROW(s->stamp, s->stamp_cap, r->nobjects + 1) ||
	    GMP_GROW(s->slot, s->slot_cap, r->nobjects + 1))
		return -ENOMEM;
	uint32_t id = (uint32_t)r->nobjects++;
	r->objects[id] = (struct gmp_object){
		.addr = e->addr, .size = e->size, .alloc_ev = v, .free_ev = GMP_NO_EVENT,
		.first_ev = GMP_NO_EVENT, .last_ev = GMP_NO_EVENT, .device = e->device,
		.kind = e->kind, .parent = GMP_NO_OBJECT, .flags = e->flags & GMP_EF_EXPORTED ? GMP_OBJ_EXPORTED : 0,
	};
	s->stamp[id] = 0;
	*out = id;
	return 0;
}

/*
 * A device_heap object lives and dies inside kernels: its alloc and free
 * carry GMP_EF_IN_KERNEL and the index of an earlier launch; nothing else does.
 */
static int heap_op_ok(struct rs *s, uint32_t v, const struct gmp_event *e, int heap)
{
	struct det *d = s->d;
	int in = (e->flags & GMP_EF_IN_KERNEL) != 0;
	if (heap && !in)
		return det_fail(d, v, "a device_heap object is %s by a host call; only kernels malloc() and free() it",
				e->op == GMP_OP_ALLOC ? "allocated" : "freed");
	if (!heap && in)
		return det_fail(d, v, "a kernel %s an object that is not on the device heap",
				e->op == GMP_OP_ALLOC ? "allocates" : "frees");
	if (in && (e->value >= v || d->t->ev[e->value].op != GMP_OP_KERNEL))
		return det_fail(d, v, "an in-kernel %s names event #%" PRIu64 ", which is not an earlier kernel launch",
				e->op == GMP_OP_ALLOC ? "alloc" : "free", e->value);
	return 0;
}

static int do_alloc(struct rs *s, uint32_t v, const struct gmp_event *e)
{
	struct det *d = s->d;
	char nb[160];
	uint64_t end = e->addr + e->size;
	int err = heap_op_ok(s, v, e, e->kind == GMP_MEM_DEVICE_HEAP);
	if (err)
		return err;
	int region = e->kind == GMP_MEM_POOL_REGION;
	struct gmp_objmap *map = region ? s->regions : s->base;
	uint32_t clash = gmp_objmap__overlap(map, e->addr, end);
	if (clash != UINT32_MAX) {
		const struct gmp_object *c = &d->r->objects[clash];
		return det_fail(d, v, "alloc of [0x%" PRIx64 ", 0x%" PRIx64 ") overlaps live object %s [0x%" PRIx64 ", 0x%" PRIx64 ")",
				e->addr, end, det_obj(d, clash, nb, sizeof(nb)), c->addr,
				c->addr + c->size);
	}
	uint32_t parent = GMP_NO_OBJECT;
	if (region) {
		forget(s);
		parent = gmp_objmap__find(s->base, e->addr);
		if (parent == UINT32_MAX ||
		    end > d->r->objects[parent].addr + d->r->objects[parent].size)
			return det_fail(d, v, "pool_region [0x%" PRIx64 ", 0x%" PRIx64 ") is not inside a live allocation",
					e->addr, end);
	} else if (gmp_objmap__overlap(s->regions, e->addr, end) != UINT32_MAX) {
		return det_fail(d, v, "alloc of [0x%" PRIx64 ", 0x%" PRIx64 ") overlaps a live pool region",
				e->addr, end);
	}
	uint32_t id = 0;
	err = new_object(s, v, e, &id);
	if (err)
		return err;
	d->r->objects[id].parent = parent;
	if (gmp_objmap__insert(map, e->addr, end, id))
		return -ENOMEM;
	return push_dep(s, v, id, DEP_ALLOC);
}

static int do_free(struct rs *s, uint32_t v, const struct gmp_event *e)
{
	struct det *d = s->d;
	char nb[160];
	uint64_t start;
	uint32_t obj;
	struct gmp_objmap *map = s->regions;
	if (!gmp_objmap__floor(map, e->addr, &start, NULL, &obj) || start != e->addr) {
		map = s->base;
		if (!gmp_objmap__floor(map, e->addr, &start, NULL, &obj) || start != e->addr) {
			uint32_t in = lookup(s, e->addr);
			if (in != UINT32_MAX)
				return det_fail(d, v, "free of 0x%" PRIx64 ", which is inside %s but not its start (0x%" PRIx64 ")",
						e->addr, det_obj(d, in, nb, sizeof(nb)),
						d->r->objects[in].addr);
			return det_fail(d, v, "free of 0x%" PRIx64 ", which belongs to no live object",
					e->addr);
		}
	}
	const struct gmp_object *o = &d->r->objects[obj];
	int err = heap_op_ok(s, v, e, o->kind == GMP_MEM_DEVICE_HEAP);
	if (err)
		return err;
	uint32_t child = gmp_objmap__overlap(s->regions, o->addr, o->addr + o->size);
	if (map == s->base && child != UINT32_MAX)
		return det_fail(d, v, "free of %s while its pool region %s is still live",
				det_obj(d, obj, nb, sizeof(nb)),
				det_obj(d, child, (char[160]){ 0 }, 160));
	gmp_objmap__remove(map, start);
	if (map == s->regions)
		forget(s);
	d->r->objects[obj].free_ev = v;
	return push_dep(s, v, obj, DEP_FREE);
}

/* Resolves [addr, addr+size) to the one object holding all of it. */
static int range_obj(struct rs *s, uint32_t v, const char *what, uint64_t addr,
		     uint64_t size, uint32_t *out)
{
	struct det *d = s->d;
	char nb[160];
	uint32_t obj = lookup(s, addr);
	if (obj == UINT32_MAX)
		return det_fail(d, v, "%s [0x%" PRIx64 ", +%" PRIu64 ") belongs to no live object",
				what, addr, size);
	const struct gmp_object *o = &d->r->objects[obj];
	if (addr + size > o->addr + o->size)
		return det_fail(d, v, "%s [0x%" PRIx64 ", +%" PRIu64 ") runs past the end of %s (%" PRIu64 " bytes at 0x%" PRIx64 ")",
				what, addr, size, det_obj(d, obj, nb, sizeof(nb)), o->size,
				o->addr);
	*out = obj;
	return 0;
}

/*
 * Accesses to device-heap objects are not analyzed: the launch that
 * malloc()s one cannot report its own accesses (the object is not yet in
 * the table its patches search), so what is known of them is partial.
 * Nor are a CUDA array's: kernels read and write it through textures and
 * surfaces, which the patches do not see, so only its copies would be
 * known.  Such objects count towards peaks and leaks only.
 */
static int unanalyzed(const struct det *d, uint32_t obj)
{
	return gmp_mem_kind__unanalyzed(d->r->objects[obj].kind);
}

/*
 * A copy or set: a write of its destination and a read of its source,
 * unless the object's accesses are not analyzed (a copy into a CUDA array:
 * its kernels' texture reads are not seen, so a second upload would look
 * like a dead write).
 */
static int do_copy_set(struct rs *s, uint32_t v, const struct gmp_event *e)
{
	uint32_t obj;
	int err;
	if (e->size == 0)
		return 0; /* moves no bytes: an API that touches nothing */
	if (e->op == GMP_OP_MEMSET) {
		if ((err = range_obj(s, v, "memset of", e->addr, e->size, &obj)))
			return err;
		return unanalyzed(s->d, obj) ? 0 : push_access(s, v, obj, DEP_WRITE);
	}
	if (e->flags & GMP_EF_HAS_SRC) {
		if ((err = range_obj(s, v, "memcpy source", e->src, e->size, &obj)) ||
		    (!unanalyzed(s->d, obj) && (err = push_access(s, v, obj, DEP_READ))))
			return err;
	}
	if (e->flags & GMP_EF_HAS_DST) {
		if ((err = range_obj(s, v, "memcpy destination", e->addr, e->size, &obj)) ||
		    (!unanalyzed(s->d, obj) && (err = push_access(s, v, obj, DEP_WRITE))))
			return err;
	}
	return 0;
}

static int do_kernel(struct rs *s, uint32_t v, const struct gmp_event *e)
{
	struct det *d = s->d;
	const struct gmp_trace *t = d->t;
	/* A graph's kernel node whose launch's accesses mixed: the union, on the objects live now. */
	uint32_t nacc = e->acc_n;
	const struct gmp_access *acc = det_graphs_union(&s->graphs, v, &nacc);
	const int merged = acc != NULL;
	if (!merged)
		acc = nacc ? &t->acc[e->acc_off] : NULL;
	for (uint32_t i = 0; i < nacc; i++) {
		const struct gmp_access *a = &acc[i];
		uint32_t obj = lookup(s, a->addr);
		if (obj == UINT32_MAX && merged)
			continue; /* another node's access, to an object not live at this one */
		if (obj == UINT32_MAX)
			return det_fail(d, v, "kernel '%s' %s 0x%" PRIx64 ", which belongs to no live object",
					gmp_trace__str(t, e->name, NULL),
					a->rw & GMP_RW_WRITE ? "writes" : "reads", a->addr);
		unsigned kind = a->rw & (GMP_RW_READ | GMP_RW_WRITE);
		if (kind && unanalyzed(d, obj))
			continue; /* not analyzed: see unanalyzed() */
		if (kind) {
			int err = push_access(s, v, obj, kind);
			if (err)
				return err;
		}
	}
	for (uint32_t i = 0; i < e->touch_n; i++) {
		const struct gmp_touch *tc = &t->touch[e->touch_off + i];
		uint32_t obj;
		int err = range_obj(s, v, "kernel touch of", tc->addr, tc->size, &obj);
		if (err)
			return err;
		d->touch_obj[e->touch_off + i] = obj;
		unsigned kind = tc->rw & (GMP_RW_READ | GMP_RW_WRITE);
		if (kind && !unanalyzed(d, obj) && (err = push_access(s, v, obj, kind)))
			return err;
	}
	return 0;
}

int det_resolve(struct det *d)
{
	const struct gmp_trace *t = d->t;
	int err = -ENOMEM;
	struct rs *s = calloc(1, sizeof(*s)); /* big: the lookup cache */
	if (!s)
		return err;
	s->d = d;
	forget(s);
	s->base = gmp_objmap__new();
	s->regions = gmp_objmap__new();
	if (det_graphs_plan(t, &s->graphs))
		goto out;
	d->r->graph_launches_merged = s->graphs.nmerged;
	d->r->graph_launches_lost = s->graphs.nlost_launches;
	d->r->graph_lost = s->graphs.lost; /* the result's now */
	d->r->ngraph_lost = s->graphs.nlost;
	s->graphs.lost = NULL;
	d->dep_off = malloc((t->nev + 1) * sizeof(*d->dep_off));
	d->touch_obj = malloc((t->ntouch ? t->ntouch : 1) * sizeof(*d->touch_obj));
	if (!s->base || !s->regions || !d->dep_off || !d->touch_obj)
		goto out;
	err = 0;
	for (size_t i = 0; i < t->nev && !err; i++) {
		const struct gmp_event *e = &t->ev[i];
		uint32_t v = (uint32_t)i;
		d->dep_off[v] = (uint32_t)d->ndeps;
		if (d->ndeps > UINT32_MAX - 1024) {
			err = det_fail(d, v, "too many object accesses");
			break;
		}
		switch (e->op) {
		case GMP_OP_ALLOC: err = do_alloc(s, v, e); break;
		case GMP_OP_FREE: err = do_free(s, v, e); break;
		case GMP_OP_MEMCPY:
		case GMP_OP_MEMSET: err = do_copy_set(s, v, e); break;
		case GMP_OP_KERNEL: err = do_kernel(s, v, e); break;
		default: break;
		}
	}
	d->dep_off[t->nev] = (uint32_t)d->ndeps;
	if (!err && d->ndeps) {
		/* Give back the growth slack: deps live through every pattern pass. */
		uint32_t *fit = realloc(d->deps, d->ndeps * sizeof(*d->deps));
		if (fit) {
			d->deps = fit;
			d->deps_cap = d->ndeps;
		}
	}
out:
	gmp_objmap__free(s->base);
	gmp_objmap__free(s->regions);
	det_graphs_release(&s->graphs);
	free(s->stamp);
	free(s->slot);
	free(s);
	return err;
}
