// SPDX-License-Identifier: MIT
/*
 * The collector's device side: for each monitored launch the object
 * table (tables.c), one pooled buffer (lbuf.c; harvest.c reads them back) and in
 * intra mode its maps block; patching.c patches the modules.
 * No per-launch serialization unless GMPROF_HARVEST=launch (or
 * GMPROF_MAPS_MB of intra maps are in flight).  Only Sanitizer memory and
 * stream functions are called here, never the CUDA runtime, and never
 * with gmp_col.lock held (device.h says why).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "findings_json.h"
#include "patch_abi.h"
#include "util.h"

_Thread_local struct dev_span dev_span;

static int warned_alloc;

struct gmp_ctx_state *dev_find_state(CUcontext ctx)
{
	for (size_t i = 0; i < gmp_col.nctxs; i++)
		if (gmp_col.ctxs[i]->ctx == ctx)
			return gmp_col.ctxs[i];
	return NULL;
}

static struct gmp_ctx_state *state_of(CUcontext ctx)
{
	struct gmp_ctx_state *found = dev_find_state(ctx);
	if (found)
		return found;
	if (GMP_GROW(gmp_col.ctxs, gmp_col.ctxs_cap, gmp_col.nctxs + 1))
		return NULL;
	struct gmp_ctx_state *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	if (pthread_mutex_init(&s->stage_lock, NULL)) {
		free(s);
		return NULL;
	}
	s->ctx = ctx;
	s->device = rec_device(ctx);
	gmp_col.ctxs[gmp_col.nctxs++] = s;
	return s;
}

int dev_check(SanitizerResult r, const char *what)
{
	if (r == SANITIZER_SUCCESS)
		return 0;
	if (!__atomic_exchange_n(&warned_alloc, 1, __ATOMIC_RELAXED)) /* once, from any thread */
		rec_say("%s failed (%s); some kernel launches stay unmonitored", what,
			gmp_san__strerror(&gmp_col.san, r));
	return -EIO;
}

/* Host memory ran out: say so once, as for device failures. */
void dev_out_of_memory(const char *what)
{
	if (!__atomic_exchange_n(&warned_alloc, 1, __ATOMIC_RELAXED))
		rec_say("out of host memory while %s; some kernel launches stay unmonitored", what);
}

void dev_allocated(size_t bytes)
{
	gmp_col.dev_bytes += bytes;
	if (gmp_col.dev_bytes > gmp_col.dev_peak)
		gmp_col.dev_peak = gmp_col.dev_bytes;
}

void dev_context_created(CUcontext ctx, uint32_t device)
{
	rec_context(ctx, device);
	struct gmp_ctx_state *s = state_of(ctx);
	if (s)
		s->device = device;
}

void dev_module_loaded(CUcontext ctx, CUmodule module)
{
	dev_patch_loaded(state_of(ctx), module);
}

/* Intra maps of every entry (or those mapped): [intra_obj * n][bitmap, counters per entry mapped]. */
static size_t maps_bytes(const struct snapshot *sn, const uint8_t *mapped, unsigned gs, unsigned cs)
{
	size_t bytes = sn->n * sizeof(struct gmp_patch_intra_obj);
	for (size_t i = 0; i < sn->n; i++) {
		if (mapped && !mapped[i])
			continue; /* no maps (khist.c) */
		uint64_t start, end;
		snap_entry(sn, i, &start, &end);
		bytes += maps_len(end - start, gs, cs);
	}
	return bytes;
}

/*
 * Intra maps blocks are big (a bitmap and counters for every live byte).
 * Launches keep theirs until a sync collects them, as object-mode launches
 * do, up to maps_limit() in all (past that the oldest launches are
 * collected first); blocks come back as spares for later launches instead
 * of a device allocation and a free per launch, up to as many bytes again.
 * The limit is GMPROF_MAPS_MB, or less: room for 8 launches' maps of this
 * size, and at least 64 MiB.  Eight launches keep the GPU busy while the
 * oldest are collected; more only cost memory, which the programs that
 * need gmprof are short of (a program of 5000 small buffers held 544 MB
 * of maps for its 20 MB through the test double, with room for 512 MiB).
 */
#define MAPS_MIN ((size_t)64 << 20)

static size_t maps_limit(size_t block)
{
	size_t cap = (size_t)gmp_col.opts.maps_mb << 20, want = block > MAPS_MIN / 8 ? 8 * block : MAPS_MIN;
	return want < cap ? want : cap;
}

void dev_put_maps(struct gmp_ctx_state *s, struct pending *p)
{
	free(p->mapped);
	p->mapped = NULL;
	if (!p->maps)
		return;
	if ((p->mode & GMP_MODE_INTRA_GPU) && s->spare_bytes + p->maps_cap <= maps_limit(p->maps_cap) &&
	    !GMP_GROW(s->spares, s->spares_cap, s->nspares + 1)) {
		s->spares[s->nspares++] = (struct spare){ p->maps, p->maps_cap, p->io_snap };
		s->spare_bytes += p->maps_cap;
	} else {
		dev_free_later(s, p->maps, p->maps_cap);
	}
	p->maps = NULL;
}

/*
 * The smallest spare block of at least bytes, taken out of the spares, one
 * holding snapshot io_snap's table of maps first (nothing to upload); or NULL.
 */
static struct spare take_spare(struct gmp_ctx_state *s, size_t bytes, uint64_t io_snap)
{
	size_t best = SIZE_MAX;
	for (size_t i = 0; i < s->nspares; i++) {
		const struct spare *c = &s->spares[i], *b = best == SIZE_MAX ? NULL : &s->spares[best];
		if (c->cap >= bytes && (!b || (c->io_snap == io_snap) > (b->io_snap == io_snap) ||
					((c->io_snap == io_snap) == (b->io_snap == io_snap) && c->cap < b->cap)))
			best = i;
	}
	if (best == SIZE_MAX)
		return (struct spare){ NULL, 0, 0 };
	struct spare sp = s->spares[best];
	s->spares[best] = s->spares[--s->nspares];
	s->spare_bytes -= sp.cap;
	return sp;
}

/* Bytes in the maps (or record) blocks of the pending launches. */
static size_t maps_inflight(const struct gmp_ctx_state *s)
{
	size_t sum = 0;
	for (size_t i = 0; i < s->npend; i++)
		sum += s->pend[i].maps ? s->pend[i].maps_cap : 0;
	return sum;
}

/*
 * Launch buffers of pending launches, at most: a buffer has a hit word per
 * live object (400 KiB with 100k objects), and GMPROF_POOL (256) of them
 * would hold 100 MiB of the program's device memory.  Past the limit the
 * oldest launches are collected first (a stream wait).
 */
#define LBUF_LIMIT ((size_t)32 << 20)

/* Whether the pending launches hold as many launch buffers as they may: at the pool's size, or bytes. */
static int buffers_full(const struct gmp_ctx_state *s)
{
	return s->npend >= gmp_col.opts.pool || s->lbuf_out > LBUF_LIMIT;
}

/*
 * Lock released: p and its snapshot are this thread's, and so is the spare
 * maps block (spare.dev, large enough for the bytes the maps take; or NULL).
 */
static int setup_intra(struct gmp_ctx_state *s, struct pending *p, struct gmp_patch_launch *l,
		       size_t bytes, struct spare spare)
{
	unsigned gs = (unsigned)__builtin_ctz(gmp_col.opts.gran);
	unsigned cs = (unsigned)__builtin_ctz(gmp_col.opts.cgran);
	l->gran_shift = gs;
	l->cgran_shift = cs;
	void *maps = spare.dev;
	int on_gpu = maps || gmp_col.san.Alloc(s->ctx, &maps, bytes) == SANITIZER_SUCCESS;
	size_t cap = spare.dev ? spare.cap : bytes;
	if (!on_gpu) {
		/* No room: stream access records to the host instead. */
		static int said;
		char h[32];
		if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
			rec_say("a launch's intra maps (%s) do not fit on the device: such launches stream "
				"their accesses to the host instead, up to GMPROF_RECORDS=%u each (slower)",
				gmp_human_bytes(bytes, h, sizeof(h)), gmp_col.opts.records);
		bytes = cap = (size_t)gmp_col.opts.records * sizeof(struct gmp_patch_record);
		if (gmp_col.san.Alloc(s->ctx, &maps, bytes) != SANITIZER_SUCCESS)
			return -ENOMEM;
		free(p->mapped); /* records of every access: every touched object's maps are made from them */
		p->mapped = NULL;
	}
	/* The launch's block from here: the caller counts a new one, and gives it back on failure. */
	p->maps = maps;
	p->maps_bytes = bytes;
	p->maps_cap = cap;
	if (!on_gpu) {
		l->records = (uint64_t)(uintptr_t)maps;
		l->record_cap = gmp_col.opts.records;
		l->mode |= GMP_MODE_INTRA_STREAM;
		return 0;
	}
	/*
	 * The maps fit beside the application's memory: keep them on the GPU,
	 * cleared, after the table of them (intra_obj per entry).  The table
	 * is made and uploaded unless the block holds this snapshot's already
	 * (a spare of a launch with maps for every entry: the patches write
	 * the maps only).
	 */
	const size_t io_bytes = p->snap->n * sizeof(struct gmp_patch_intra_obj);
	const uint64_t id = p->mapped ? 0 : p->snap->id;
	if (dev_check(gmp_col.san.Memset((char *)maps + io_bytes, 0, bytes - io_bytes, p->hs), "clearing intra maps"))
		return -EIO;
	if (!id || spare.io_snap != id) {
		struct gmp_patch_intra_obj *io = calloc(p->snap->n ? p->snap->n : 1, sizeof(*io));
		if (!io)
			return -ENOMEM;
		uint64_t at = (uint64_t)(uintptr_t)maps + io_bytes;
		for (size_t i = 0; i < p->snap->n; i++) {
			uint64_t end;
			snap_entry(p->snap, i, &io[i].base, &end);
			io[i].size = end - io[i].base;
			if (!has_maps(p, i))
				continue; /* no maps: the patches set its hit bits only */
			io[i].bitmap = at;
			at += 4 * gmp_maps__bitmap_words(io[i].size, gs);
			io[i].counters = at;
			at += 4 * gmp_maps__counters(io[i].size, cs);
		}
		int err = dev_check(gmp_col.san.MemcpyHostToDeviceAsync(maps, io, io_bytes, p->hs), "uploading intra maps");
		free(io);
		if (err)
			return -EIO;
	}
	p->io_snap = id;
	l->intra = (uint64_t)(uintptr_t)maps;
	l->mode |= GMP_MODE_INTRA_GPU;
	return 0;
}

/* Records the kernel event: its kind says how the launch is monitored. */
static void record_as(struct gmp_launch_info *li, struct gmp_event *e, uint32_t mode, int stack)
{
	e->kind = (uint8_t)(mode & GMP_MODE_INTRA_GPU ? GMP_KERNEL_INTRA_GPU
				: mode & GMP_MODE_INTRA_STREAM ? GMP_KERNEL_INTRA_STREAM
							       : GMP_KERNEL_OBJECT);
	int64_t ev = rec_event(e, li->name, stack);
	li->ev = ev < 0 ? UINT64_MAX : (uint64_t)ev;
	dev_graph_recorded(li, mode != 0);
}

static void record(struct gmp_launch_info *li, struct gmp_event *e, uint32_t mode)
{
	/* Alloc mode keeps launches cheap: no call path (its findings never name a launch's). */
	record_as(li, e, mode, gmp_col.opts.mode != GMP_COLLECT_ALLOC);
}

/* Whether a launch, the n-th (counted for a launches: range only), is inside the capture range. */
static int capturing(uint64_t n)
{
	switch (gmp_col.opts.capture) {
	case GMP_CAPTURE_PROFILER: return __atomic_load_n(&gmp_col.profiling, __ATOMIC_RELAXED);
	case GMP_CAPTURE_NVTX: return nvtx_in_range(gmp_col.opts.capture_range);
	case GMP_CAPTURE_LAUNCHES: return n >= gmp_col.opts.capture_first && n <= gmp_col.opts.capture_last;
	default: return 1;
	}
}

/* Counts a launch (the lock is held: launches are counted in one order); whether it is captured. */
static int captured(void)
{
	return capturing(gmp_col.opts.capture == GMP_CAPTURE_LAUNCHES ? ++gmp_col.launches : 0);
}

void dev_launch_call(CUcontext ctx, CUmodule module)
{
	uint64_t t0 = st_now();
	st_lock(t0);
	if (ctx && !gmp_col.closed && capturing(gmp_col.launches + 1)) /* the launch to come */
		dev_patch_early(state_of(ctx), module);
	st_since(GMP_ST_CALLBACKS, t0);
	pthread_mutex_unlock(&gmp_col.lock);
}

void dev_graph_call(CUcontext ctx)
{
	uint64_t t0 = st_now();
	st_lock(t0);
	if (ctx && !gmp_col.closed && capturing(gmp_col.launches + 1)) /* its first node */
		dev_patch_all(state_of(ctx));
	st_since(GMP_ST_CALLBACKS, t0);
	pthread_mutex_unlock(&gmp_col.lock);
}

/* A launch that stays unmonitored: its resources back, its event recorded. */
static void unmonitored(struct gmp_ctx_state *s, struct pending *p, struct gmp_launch_info *li,
			struct gmp_event *e)
{
	dev_put_maps(s, p);
	if (p->buf.dev)
		dev_put_buffer(s, p->buf);
	dev_snap_put(s, p->snap);
	if (e)
		record(li, e, 0);
	dev_collect_garbage(s);
}

/*
 * The launch struct its patches read (l) for a launch with buffer p and
 * tables table and recent; returns how many bytes of records and hit words
 * to clear before the launch (0: none).  Hit words are cleared when the
 * buffer is new, then each launch of it stamps its own (patch_abi.h);
 * again when the stamps would repeat (all of them: words past this
 * launch's entries hold earlier launches' stamps, which later launches
 * with more entries must not take for theirs), or before every launch
 * under GMPROF_FALLBACK=hit-epochs (this launch's entries: every launch
 * clears its own).  The per-instruction records, before the words, are
 * cleared with them: stamps start again, so no record may hold this
 * launch's.
 */
static size_t launch_struct(struct pending *p, void *table, void *recent, struct gmp_patch_launch *l)
{
	*l = (struct gmp_patch_launch){ .table = (uint64_t)(uintptr_t)table,
					.base_n = (uint32_t)p->snap->base->n, /* < 2^31: tables.c */
					.recent = (uint64_t)(uintptr_t)recent,
					.hits = (uint64_t)(uintptr_t)p->buf.dev + lbuf_hits_off(&p->buf),
					.mode = GMP_MODE_OBJECT | (gmp_col.opts.patch_l1 ? GMP_MODE_L1_TESTS : 0),
					.abi = GMP_PATCH_ABI_VERSION,
					.list_cap = lbuf_list_cap(&p->buf) };
	if (p->buf.heap_cap) {
		l->heap = (uint64_t)(uintptr_t)p->buf.dev + lbuf_heap_off(&p->buf);
		l->heap_cap = (uint32_t)p->buf.heap_cap;
	}
	if (p->buf.hints)
		l->hints = (uint64_t)(uintptr_t)p->buf.dev + lbuf_hints_off(&p->buf);
	if (p->buf.host_list) { /* the buffer's last launch was collected: nothing of the GPU's writes it now */
		l->list_host = (uint64_t)(uintptr_t)p->buf.host_list;
		__atomic_store_n(&p->buf.host_list->count, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&p->buf.host_list->heap_count, 0, __ATOMIC_RELEASE);
	}
	const int every = (gmp_col.opts.fallback & GMP_FALLBACK_HIT_EPOCHS) != 0;
	size_t clear = 0;
	if (!p->buf.cleared || p->buf.epoch >= gmp_col.opts.hit_epochs || every) {
		clear = lbuf_hits_off(&p->buf) - lbuf_hints_off(&p->buf) + (every ? p->snap->n : p->buf.cap) * 4;
		p->buf.cleared = 1;
		p->buf.epoch = 0;
	} else {
		p->buf.epoch++;
	}
	l->epoch = p->buf.epoch;
	return clear;
}

/*
 * The slot of launch l's header in its buffer b, and what to upload first:
 * *n headers from hdrs into slots 0, 1, ... (0: none).  A buffer with ring
 * slots (its hit list in host memory: the patches never write its headers,
 * patch_abi.h) gets the headers of its next launches in one upload, l's
 * with the epochs that follow, and a launch whose header one of them is
 * uploads nothing: between two changes of the live set, one upload per
 * LBUF_RING launches of a buffer, not one per launch.  alone: l's header
 * only, in slot 0, where the host reads it back (intra maps; stream mode's
 * patches count records in it).
 */
static uint32_t header_slot(struct lbuf *b, const struct gmp_patch_launch *l, int alone,
			    struct gmp_patch_launch hdrs[LBUF_RING], size_t *n)
{
	struct gmp_patch_launch same = *l;
	same.epoch = b->ring_hdr.epoch;
	const uint32_t k = l->epoch - b->ring_hdr.epoch;
	if (!alone && k < b->ring_held && !memcmp(&same, &b->ring_hdr, sizeof(same))) {
		*n = 0;
		return k;
	}
	*n = alone ? 1 : lbuf_ring(b);
	for (size_t i = 0; i < *n; i++) {
		hdrs[i] = *l;
		hdrs[i].epoch = l->epoch + (uint32_t)i; /* past the last epoch before a clear: never used */
	}
	b->ring_hdr = *l;
	b->ring_held = *n > 1 ? (uint32_t)*n : 0; /* one slot: the device may count in it (device lists) */
	return 0;
}

/*
 * Intra mode's plan for launch li (lock held): 1 when its maps are to be
 * set up, need bytes of them (spare: a block of earlier maps to reuse, the
 * launch's now), else 0: monitored at object level, or (*unmapped) recorded
 * in intra mode without maps (khist.c: its touches unknown).
 */
static int plan_intra(struct gmp_ctx_state *s, struct pending *p, const struct gmp_launch_info *li,
		      size_t *need, struct spare *spare, int *unmapped)
{
	if (gmp_col.opts.mode != GMP_COLLECT_INTRA || !gmp_kfilter__take(gmp_col.kf, li->name))
		return 0;
	unsigned gs = (unsigned)__builtin_ctz(gmp_col.opts.gran), cs = (unsigned)__builtin_ctz(gmp_col.opts.cgran);
	*need = maps_bytes(p->snap, NULL, gs, cs);
	int plan = khist_plan(s, p->snap, li->function, *need, &p->mapped);
	if (plan == KH_MASK)
		*need = maps_bytes(p->snap, p->mapped, gs, cs);
	if ((*unmapped = plan == KH_NONE))
		return 0;
	/* Bounded device memory: collect the oldest launches (a stream wait) past the limit. */
	while (s->npend && maps_inflight(s) + *need > maps_limit(*need) && dev_collect_oldest(s) > 0) {
	}
	*spare = take_spare(s, *need, p->mapped ? 0 : p->snap->id);
	return 1;
}

void dev_launch_begin(struct gmp_launch_info *li, struct gmp_event *e)
{
	dev_unpatch_wait();
	dev_graph_launch_begins(li);
	if (!captured()) {
		/* Outside the capture range: as cheap as it can be, no call path either. */
		record_as(li, e, 0, 0);
		return;
	}
	struct gmp_ctx_state *s = state_of(li->ctx);
	if (!s || !dev_ready(s, li->module)) {
		record(li, e, 0); /* unmonitored: its access sets stay unknown */
		return;
	}
	struct pending p = { .hs = li->hstream, .hwait = li->hwait, .fn = li->function, .mode = GMP_MODE_OBJECT };
	/* The pool ran low: wait for the oldest launch's stream and collect it. */
	void *table = NULL, *recent = NULL;
	if ((buffers_full(s) && dev_collect_oldest(s) < 0) ||
	    !(p.snap = dev_current_table(s)) || dev_tables_on(s, p.snap, li->hstream, &table, &recent) ||
	    dev_get_buffer(s, p.snap->n, &p.buf)) {
		unmonitored(s, &p, li, e);
		return;
	}
	struct gmp_patch_launch l;
	size_t clear = launch_struct(&p, table, recent, &l), need = 0;
	struct spare spare = { NULL, 0, 0 };
	int unmapped = 0;
	int intra = plan_intra(s, &p, li, &need, &spare, &unmapped);
	dev_graph_choose_data(li);
	dev_unlock();
	int intra_err = intra && setup_intra(s, &p, &l, need, spare);
	struct gmp_patch_launch hdrs[LBUF_RING];
	size_t nhdr;
	const uint32_t slot = header_slot(&p.buf, &l, intra, hdrs, &nhdr);
	int err = (nhdr && dev_check(gmp_col.san.MemcpyHostToDeviceAsync(p.buf.dev, hdrs, nhdr * sizeof(l), li->hstream),
				     "uploading a launch buffer")) ||
		  (clear && dev_check(gmp_col.san.Memset((char *)p.buf.dev + lbuf_hints_off(&p.buf), 0, clear,
							 li->hstream), "clearing hit flags")) ||
		  dev_set_data(li, (char *)p.buf.dev + (size_t)slot * GMP_PATCH_LAUNCH_SIZE);
	dev_lock();
	if (p.maps && p.maps != spare.dev)
		dev_allocated(p.maps_cap);
	if (!intra_err)
		p.mode = l.mode | (unmapped ? GMP_MODE_INTRA_GPU : 0); /* recorded as intra mode, no maps */
	else
		dev_put_maps(s, &p); /* monitored at object level only (mode: no intra bits) */
	if (err) {
		p.buf.cleared = 0; /* maybe not: clear it at its next use */
		p.buf.ring_held = 0; /* and upload its headers again */
	}
	if (err || (GMP_GROW(s->pend, s->pend_cap, s->npend + 1) && (dev_out_of_memory("queuing a launch"), 1))) {
		unmonitored(s, &p, li, e);
		return;
	}
	record(li, e, p.mode);
	if (li->ev == UINT64_MAX) {
		unmonitored(s, &p, li, NULL);
		return;
	}
	p.ev = li->ev;
	p.kev = *e;
	p.tex = tex_live(e->device, &p.ntex);
	if (li->graph_node)
		tmap_graph_node(); /* its parameters are not read */
	if (tmap_take(&p.tex, &p.ntex)) {
		static int said;
		if (!said++)
			rec_say("out of memory for a launch's reads through tensor maps: they are not recorded");
	}
	s->pend[s->npend++] = p;
	dev_collect_garbage(s); /* a table this launch replaced */
}

void dev_launch_end(const struct gmp_launch_info *li)
{
	struct gmp_ctx_state *s = state_of(li->ctx);
	if (!s || !s->npend)
		return;
	/* Other threads may have launched since: find this launch, newest first. */
	size_t k = s->npend;
	while (k > 0 && s->pend[k - 1].ev != li->ev)
		k--;
	if (!k)
		return;
	struct pending *last = &s->pend[k - 1];
	last->seq = __atomic_add_fetch(&gmp_col.enqueue_seq, 1, __ATOMIC_ACQ_REL);
	/* DrGPUM's way (for comparison): collect now. */
	if (gmp_col.opts.harvest == GMP_HARVEST_LAUNCH) {
		struct pending p = *last;
		memmove(last, last + 1, (s->npend - k) * sizeof(*last));
		s->npend--;
		dev_harvest_now(s, &p);
	}
}

static void release(struct gmp_ctx_state *s)
{
	dev_release_tables(s);
	khist_release(s);
	for (size_t i = 0; i < s->nspares; i++)
		dev_free_later(s, s->spares[i].dev, s->spares[i].cap);
	free(s->spares);
	s->spares = NULL;
	s->nspares = s->spares_cap = s->spare_bytes = 0;
	dev_release_buffers(s);
	dev_release_stage(s);
	dev_collect_garbage(s);
}

void dev_context_destroying(CUcontext ctx)
{
	tex_context_gone(ctx);
	tmap_context_gone(ctx);
	struct gmp_ctx_state *s = dev_find_state(ctx);
	if (!s)
		return;
	dev_drain(s);
	release(s);
	/* The lock was released meanwhile: find it again to take it out. */
	for (size_t i = 0; i < gmp_col.nctxs; i++) {
		if (gmp_col.ctxs[i] == s) {
			gmp_col.ctxs[i] = gmp_col.ctxs[--gmp_col.nctxs];
			break;
		}
	}
	free(s->free);
	free(s->pend);
	free(s->patched);
	free(s->wanted);
	free(s->loaded);
	free(s->garbage);
	pthread_mutex_destroy(&s->stage_lock);
	free(s);
}
