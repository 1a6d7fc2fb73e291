// SPDX-License-Identifier: MIT
/*
 * Sub-allocations announced with the NVTX memory API.  A caching
 * allocator (a deep-learning framework's, RMM's, a program's own) gets a
 * few large blocks with cudaMalloc and hands out pieces of them; the
 * Sanitizer sees only the blocks.  An allocator that registers its blocks
 * as NVTX heaps and each piece as a region shows gmprof the pieces: each
 * region becomes an object of its own (kind pool_region) inside its block,
 * with its own lifetime and accesses, and the patches' object tables split
 * the block into its regions and the gaps between them.
 *
 * The program's NVTX library loads the collector as its tool
 * (NVTX_INJECTION64_PATH; gmprof run sets it) and calls the entry points
 * below from the program's threads.  They take the collector's lock.
 * Regions that lie outside every live device allocation are ignored (one
 * line says so); a region registered over a live one ends it first, and
 * freeing a block ends the regions still in it, so the profile stays
 * consistent whatever order the program's calls come in.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "collector.h"
#include "jw.h"
#include "nvtx_abi.h"
#include "objmap.h"
#include "util.h"

#define API __attribute__((visibility("default")))

/* Heaps by number (handle = number; 0 is NVTX's process-wide heap). */
static uint8_t *heap_live;
static size_t nheaps, heaps_cap;

/* Live regions' ALLOC events by start, for naming them (stale entries are overwritten). */
static struct gmp_u64map region_ev;

static int warned_outside, warned_overlap, warned_type, warned_name;

/* When this thread's NVTX call entered: its time counts among the collector's callbacks. */
static __thread uint64_t entered_at;

static int enter(void)
{
	entered_at = st_now();
	st_lock(entered_at);
	if (gmp_col.active && !gmp_col.closed && !gmp_col.write_failed) /* a stopped profile records nothing */
		return 1;
	pthread_mutex_unlock(&gmp_col.lock);
	return 0;
}

static void leave(void)
{
	st_since(GMP_ST_CALLBACKS, entered_at);
	pthread_mutex_unlock(&gmp_col.lock);
}

static int64_t region_event(uint8_t op, uint64_t addr, uint64_t size, const char *api)
{
	uint32_t dev = rec_live_device(addr);
	struct gmp_event e = { .op = op, .kind = op == GMP_OP_ALLOC ? GMP_MEM_POOL_REGION : 0,
			       .addr = addr, .size = size, .device = dev == UINT32_MAX ? 0 : dev,
			       .stream = rec_stream(0) };
	return rec_event(&e, api, 1);
}

static void end_region(uint64_t start, const char *api)
{
	region_event(GMP_OP_FREE, start, 0, api);
	gmp_objmap__remove(gmp_col.regions, start);
	gmp_col.live_version++;
}

/* Ends every live region overlapping [start, end), from the top; returns how many. */
static size_t end_overlapping(uint64_t start, uint64_t end, const char *api)
{
	uint64_t s;
	size_t n = 0;
	for (; gmp_col.regions && gmp_objmap__overlap(gmp_col.regions, start, end) != UINT32_MAX &&
	       gmp_objmap__floor(gmp_col.regions, end - 1, &s, NULL, NULL); n++)
		end_region(s, api);
	return n;
}

void nvtx_end_regions(uint64_t start, uint64_t end)
{
	end_overlapping(start, end, "gmprof: its pool was freed");
}

void nvtx_release(void)
{
	gmp_objmap__free(gmp_col.regions);
	gmp_col.regions = NULL;
	free(heap_live);
	heap_live = NULL;
	gmp_u64map__release(&region_ev);
	nheaps = heaps_cap = 0;
}

size_t nvtx_region_count(void)
{
	return gmp_col.regions ? gmp_objmap__count(gmp_col.regions) : 0;
}

struct pieces {
	const uint64_t *ls, *le; /* the live objects */
	size_t ln;
	uint64_t *start, *end;
	size_t n, base;        /* entries written; the live object being split */
	uint64_t cur;          /* where its next piece starts */
};

static void piece(struct pieces *p, uint64_t s, uint64_t e)
{
	if (s < e) {
		p->start[p->n] = s;
		p->end[p->n++] = e;
	}
}

/* The rest of the current live object is one piece; the next object begins. */
static void close_base(struct pieces *p)
{
	piece(p, p->cur, p->le[p->base]);
	if (++p->base < p->ln)
		p->cur = p->ls[p->base];
}

/* Regions come in address order; each lies inside one live object. */
static int add_region(void *ctx, uint64_t s, uint64_t e, uint32_t heap)
{
	(void)heap;
	struct pieces *p = ctx;
	while (p->base < p->ln && p->le[p->base] <= s)
		close_base(p);
	if (p->base == p->ln || s < p->cur)
		return 0; /* not inside a live object: cannot happen, nothing to split */
	piece(p, p->cur, s);
	piece(p, s, e);
	p->cur = e;
	return 0;
}

size_t nvtx_table_pieces(const uint64_t *ls, const uint64_t *le, size_t n, uint64_t *start, uint64_t *end)
{
	struct pieces p = { .ls = ls, .le = le, .ln = n, .start = start, .end = end };
	if (!n)
		return 0;
	p.cur = ls[0];
	if (gmp_col.regions)
		gmp_objmap__each(gmp_col.regions, add_region, &p);
	while (p.base < n)
		close_base(&p);
	return p.n;
}

/* Registers one region of heap h: lock held. */
static void add(uint32_t h, uint64_t addr, uint64_t size, const char *api)
{
	if (!size)
		return;
	if (!rec_is_device(addr, size)) {
		if (!warned_outside++)
			rec_say("an NVTX region [0x%llx, +%llu) lies outside every live device allocation; "
				"gmprof ignores such regions", (unsigned long long)addr, (unsigned long long)size);
		return;
	}
	if (!gmp_col.regions && !(gmp_col.regions = gmp_objmap__new())) {
		rec_say("out of host memory while recording an NVTX region; regions are ignored from here");
		return;
	}
	if (end_overlapping(addr, addr + size, "gmprof: a region registered over it") && !warned_overlap++)
		rec_say("an NVTX region at 0x%llx was registered over a live one; "
			"gmprof ends the old one there", (unsigned long long)addr);
	if (gmp_objmap__insert(gmp_col.regions, addr, addr + size, h)) {
		rec_say("out of host memory while recording an NVTX region; it is ignored");
		return;
	}
	gmp_col.live_version++;
	int64_t ev = region_event(GMP_OP_ALLOC, addr, size, api);
	if (ev < 0 || ev >= UINT32_MAX)
		return;
	uint32_t *slot = gmp_u64map__slot(&region_ev, addr, 0, NULL);
	if (slot)
		*slot = (uint32_t)ev;
	else
		rec_say("out of host memory while recording an NVTX region; a name given to it later "
			"is ignored");
}

static int virtual_ranges(uint32_t type, size_t elem_size)
{
	if (type == GMP_NVTX_MEM_TYPE_VIRTUAL_ADDRESS && elem_size >= sizeof(struct gmp_nvtx_range))
		return 1;
	if (!warned_type++)
		rec_say("NVTX regions of a type other than virtual addresses are ignored");
	return 0;
}

static struct gmp_nvtx_range range_at(const void *descs, size_t elem_size, size_t i)
{
	struct gmp_nvtx_range r;
	memcpy(&r, (const char *)descs + i * elem_size, sizeof(r));
	return r;
}

/* The length of the valid UTF-8 character at p (not a control character), or 0. */
static size_t utf8_char(const unsigned char *p)
{
	if (p[0] >= 0x20 && p[0] < 0x7f)
		return 1;
	return p[0] >= 0x80 ? gmp_utf8__len(p, strnlen((const char *)p, 4)) : 0;
}

/*
 * A name as the reports may show it: valid UTF-8 with no control
 * characters (each bad byte becomes U+FFFD), cut at a character boundary
 * to fit n bytes with its NUL.
 */
static void clean_name(const char *in, char *out, size_t n)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t len = 0;
	while (*p) {
		if (*p >= 0x20 && *p < 0x7f) { /* printable ASCII, nearly every name's every byte: no copy call */
			if (len + 1 >= n)
				break;
			out[len++] = (char)*p++;
			continue;
		}
		size_t k = utf8_char(p);
		const char *c = k ? (const char *)p : "\xef\xbf\xbd";
		size_t w = k ? k : 3;
		if (len + w >= n)
			break;
		memcpy(out + len, c, w);
		len += w;
		p += k ? k : 1;
	}
	out[len] = 0;
}

/* A name (NVTX message of a type) as UTF-8 in buf (at most n - 1 bytes, whole characters), or NULL. */
const char *nvtx_name(uint32_t type, const void *name, char *buf, size_t n)
{
	if (!name)
		return NULL;
	if (type == GMP_NVTX_MESSAGE_ASCII) {
		clean_name(name, buf, n);
		return buf;
	}
	if (type == GMP_NVTX_MESSAGE_REGISTERED) {
		const char *reg = nvtx_registered(name);
		if (reg) {
			clean_name(reg, buf, n);
			return buf;
		}
		if (!__atomic_fetch_add(&warned_name, 1, __ATOMIC_RELAXED))
			rec_say("an NVTX name was given as a string handle gmprof did not register: it reads \"(unnamed)\"");
		return NULL;
	}
	if (type != GMP_NVTX_MESSAGE_UNICODE)
		return NULL;
	size_t len = 0;
	for (const wchar_t *w = name; *w; w++) {
		uint32_t c = (uint32_t)*w;
		char u[4];
		size_t k = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
		if (c > 0x10ffff || (c >= 0xd800 && c < 0xe000) || c < 0x20 || c == 0x7f)
			c = 0xfffd, k = 3; /* not a character, or a control one: the replacement character */
		static const uint8_t lead[] = { 0, 0, 0xc0, 0xe0, 0xf0 };
		for (size_t i = k - 1; i > 0; i--, c >>= 6)
			u[i] = (char)(0x80 | (c & 0x3f));
		u[0] = (char)(lead[k] | c);
		if (len + k >= n)
			break;
		memcpy(buf + len, u, k);
		len += k;
	}
	buf[len] = 0;
	return buf;
}

/* A heap's name names its block (the live allocation starting where the heap does). */
static void name_block(const struct gmp_nvtx_heap_desc *d)
{
	char name[256];
	if (!d || d->struct_size < sizeof(*d) || !d->message || d->type != GMP_NVTX_MEM_TYPE_VIRTUAL_ADDRESS ||
	    !d->type_desc || d->type_desc_size < sizeof(struct gmp_nvtx_range))
		return; /* (rec_label checks that the profile is still recording) */
	struct gmp_nvtx_range r;
	memcpy(&r, d->type_desc, sizeof(r));
	uint32_t ev = rec_live_event((uint64_t)(uintptr_t)r.ptr, NULL);
	const char *n = nvtx_name(d->message_type, d->message, name, sizeof(name));
	if (ev != UINT32_MAX && n && *n)
		rec_label(ev, n);
}

static void *heap_register(void *domain, const struct gmp_nvtx_heap_desc *desc)
{
	(void)domain; /* the heap's range is its cudaMalloc'd block, known already */
	pthread_mutex_lock(&gmp_col.lock);
	name_block(desc);
	void *handle = (void *)UINTPTR_MAX; /* after the end: a handle that names nothing */
	if (!gmp_col.closed && !GMP_GROW(heap_live, heaps_cap, nheaps + 2)) {
		if (!nheaps)
			nheaps = 1; /* number 0 is the process-wide heap */
		heap_live[nheaps] = 1;
		handle = (void *)(uintptr_t)nheaps++;
	} else if (!gmp_col.closed) {
		rec_say("out of host memory while registering an NVTX heap; its regions count as the process's");
	}
	pthread_mutex_unlock(&gmp_col.lock);
	return handle;
}

/* The live regions of heap h, collected before any is ended. */
struct of_heap {
	uint32_t h;
	uint64_t *starts;
	size_t n, cap;
	int err;
};

static int collect(void *ctx, uint64_t s, uint64_t e, uint32_t heap)
{
	(void)e;
	struct of_heap *o = ctx;
	if (heap != o->h)
		return 0;
	if (GMP_GROW(o->starts, o->cap, o->n + 1)) {
		o->err = -ENOMEM;
		return 1;
	}
	o->starts[o->n++] = s;
	return 0;
}

static void end_heap(uint32_t h, const char *api)
{
	struct of_heap o = { .h = h };
	if (!gmp_col.regions)
		return;
	gmp_objmap__each(gmp_col.regions, collect, &o);
	for (size_t i = 0; i < o.n; i++)
		end_region(o.starts[i], api);
	if (o.err)
		rec_say("out of host memory while ending an NVTX heap's regions; some stay live");
	free(o.starts);
}

static uint32_t heap_number(const void *heap)
{
	uintptr_t h = (uintptr_t)heap;
	return h < nheaps && heap_live[h] ? (uint32_t)h : UINT32_MAX;
}

static void heap_unregister(void *domain, void *heap)
{
	(void)domain;
	if (!enter())
		return;
	uint32_t h = heap_number(heap);
	if (h != UINT32_MAX && h != 0) {
		end_heap(h, "nvtxMemHeapUnregister");
		heap_live[h] = 0;
	}
	leave();
}

static void heap_reset(void *domain, void *heap)
{
	(void)domain;
	if (!enter())
		return;
	uint32_t h = heap ? heap_number(heap) : 0;
	if (h != UINT32_MAX)
		end_heap(h, "nvtxMemHeapReset");
	leave();
}

static void regions_register(void *domain, const struct gmp_nvtx_regions_register *b)
{
	(void)domain;
	if (!b || !b->descs || !enter())
		return;
	uint32_t h = b->heap ? heap_number(b->heap) : 0;
	if (h == UINT32_MAX)
		h = 0; /* a heap that could not be registered: its regions still count */
	if (virtual_ranges(b->region_type, b->elem_size)) {
		for (size_t i = 0; i < b->count; i++) {
			struct gmp_nvtx_range r = range_at(b->descs, b->elem_size, i);
			add(h, (uint64_t)(uintptr_t)r.ptr, r.size, "nvtxMemRegionsRegister");
			if (b->handles_out)
				b->handles_out[i] = (void *)(uintptr_t)r.ptr; /* a region's handle is its start */
		}
	}
	leave();
}

static void regions_resize(void *domain, const struct gmp_nvtx_regions_resize *b)
{
	(void)domain;
	if (!b || !b->descs || !enter())
		return;
	if (virtual_ranges(b->region_type, b->elem_size)) {
		for (size_t i = 0; i < b->count; i++) {
			struct gmp_nvtx_range r = range_at(b->descs, b->elem_size, i);
			uint64_t s, addr = (uint64_t)(uintptr_t)r.ptr;
			uint32_t h;
			/* A resized region is a new object: the old one ends here. */
			if (!gmp_col.regions || !gmp_objmap__floor(gmp_col.regions, addr, &s, NULL, &h) || s != addr)
				continue;
			end_region(s, "nvtxMemRegionsResize");
			add(h, addr, r.size, "nvtxMemRegionsResize");
		}
	}
	leave();
}

static void regions_unregister(void *domain, const struct gmp_nvtx_regions_unregister *b)
{
	(void)domain;
	if (!b || !b->refs || b->elem_size < sizeof(void *) || !enter())
		return;
	for (size_t i = 0; i < b->count && gmp_col.regions; i++) {
		const void *ref; /* a pointer, or a handle, which is the region's start */
		memcpy(&ref, (const char *)b->refs + i * b->elem_size, sizeof(ref));
		uint64_t s, addr = (uint64_t)(uintptr_t)ref;
		if (gmp_objmap__floor(gmp_col.regions, addr, &s, NULL, NULL) && s == addr)
			end_region(s, "nvtxMemRegionsUnregister");
	}
	leave();
}

/* nvtxMemRegionsName: a live region's object takes the name (a LABEL record). */
static void regions_name(void *domain, const struct gmp_nvtx_regions_name *b)
{
	(void)domain;
	if (!b || !b->elems || b->elem_size < sizeof(struct gmp_nvtx_region_name) || !enter())
		return;
	for (size_t i = 0; i < b->count && gmp_col.regions; i++) {
		struct gmp_nvtx_region_name d;
		memcpy(&d, (const char *)b->elems + i * b->elem_size, sizeof(d));
		uint64_t s, addr = (uint64_t)(uintptr_t)d.ref; /* a pointer, or a handle: its start */
		char name[256];
		const uint32_t *ev = gmp_u64map__get(&region_ev, addr);
		const char *n = nvtx_name(d.name_type, d.name, name, sizeof(name));
		if (ev && n && *n && gmp_objmap__floor(gmp_col.regions, addr, &s, NULL, NULL) && s == addr)
			rec_label(*ev, n);
	}
	leave();
}

API int InitializeInjectionNvtxExtension(struct gmp_nvtx_module *m);
API int InitializeInjectionNvtxExtension(struct gmp_nvtx_module *m)
{
	if (!m || m->module_id != GMP_NVTX_MODULE_MEM || m->compat_id != GMP_NVTX_COMPAT_MEM)
		return 1; /* not ours: its functions stay no-ops */
	for (size_t i = 0; i < m->nsegments; i++) {
		struct gmp_nvtx_segment *seg = &m->segments[i];
		if (seg->id != 1 || seg->nslots < GMP_NVTX_CB_MEM_COUNT)
			continue;
		seg->slots[GMP_NVTX_CB_HEAP_REGISTER] = (intptr_t)heap_register;
		seg->slots[GMP_NVTX_CB_HEAP_UNREGISTER] = (intptr_t)heap_unregister;
		seg->slots[GMP_NVTX_CB_HEAP_RESET] = (intptr_t)heap_reset;
		seg->slots[GMP_NVTX_CB_REGIONS_REGISTER] = (intptr_t)regions_register;
		seg->slots[GMP_NVTX_CB_REGIONS_RESIZE] = (intptr_t)regions_resize;
		seg->slots[GMP_NVTX_CB_REGIONS_UNREGISTER] = (intptr_t)regions_unregister;
		seg->slots[GMP_NVTX_CB_REGIONS_NAME] = (intptr_t)regions_name;
	}
	return 1;
}
