// SPDX-License-Identifier: MIT
/*
 * The collector's device side: loading the patches into each context,
 * the object table the patches search, one pooled buffer per monitored
 * launch, and harvesting those buffers when the program synchronizes (or
 * the pool runs low, or at the end).  No per-launch serialization unless
 * GMPROF_HARVEST=launch or the launch is monitored in intra mode.
 * Only Sanitizer memory and stream functions are called here, never the
 * CUDA runtime.  Callers hold gmp_col.lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "patch_abi.h"
#include "touches.h"
#include "util.h"

/* The object table of one version of the live set, shared by its launches. */
struct snapshot {
	uint32_t refs;            /* pending launches using it, + 1 while current */
	size_t bytes;             /* host and device memory it holds */
	uint64_t version;
	size_t n;
	uint64_t *start, *size;   /* host: entry -> object */
	void *dev;                /* device: struct gmp_patch_table + start[] + end[] */
};

struct lbuf {
	void *dev;                /* struct gmp_patch_launch + uint32_t hits[cap] */
	size_t cap;
};

struct pending {
	uint64_t ev;
	uint64_t seq;             /* order in which launches were enqueued; 0: not yet */
	Sanitizer_StreamHandle hs;
	struct lbuf buf;
	struct snapshot *snap;
	uint32_t mode;
	void *maps;               /* intra: device block of maps, or stream records */
	size_t maps_bytes;
};

struct gmp_ctx_state {
	CUcontext ctx;
	uint32_t device;
	int patches;              /* 0 not yet, 1 loaded, -1 failed */
	struct snapshot *cur;
	struct lbuf *free;
	size_t nfree, free_cap;
	struct pending *pend;
	size_t npend, pend_cap;
	size_t snap_bytes;        /* held by live snapshots: bounded by SNAP_LIMIT */
	CUmodule *patched;
	size_t npatched, patched_cap;
};

static int warned_alloc;

/* Host and device memory that object tables of pending launches may hold. */
#define SNAP_LIMIT (64u << 20)

/* Which pending launches a harvest may take (see harvest_stream). */
#define HV_ANY UINT64_MAX       /* also launches not yet enqueued (teardown) */
#define HV_ENQUEUED (UINT64_MAX - 1)
static size_t harvest_stream(struct gmp_ctx_state *s, Sanitizer_StreamHandle hs, int all,
			     uint64_t horizon);

static struct gmp_ctx_state *state_of(CUcontext ctx)
{
	for (size_t i = 0; i < gmp_col.nctxs; i++)
		if (gmp_col.ctxs[i]->ctx == ctx)
			return gmp_col.ctxs[i];
	if (GMP_GROW(gmp_col.ctxs, gmp_col.ctxs_cap, gmp_col.nctxs + 1))
		return NULL;
	struct gmp_ctx_state *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->ctx = ctx;
	s->device = rec_device(ctx);
	gmp_col.ctxs[gmp_col.nctxs++] = s;
	return s;
}

static int check(SanitizerResult r, const char *what)
{
	if (r == SANITIZER_SUCCESS)
		return 0;
	if (!__atomic_exchange_n(&warned_alloc, 1, __ATOMIC_RELAXED)) /* once, from any thread */
		rec_say("%s failed (%s); some kernel launches stay unmonitored", what,
			gmp_san__strerror(&gmp_col.san, r));
	return -EIO;
}

/* Host memory ran out: say so once, as for device failures. */
static void out_of_memory(const char *what)
{
	if (!__atomic_exchange_n(&warned_alloc, 1, __ATOMIC_RELAXED))
		rec_say("out of host memory while %s; some kernel launches stay unmonitored", what);
}

/* Waits for the oldest launch's stream, collects what it completed: 1 some, 0 none
   (another thread is still issuing the oldest), -1 the wait failed. */
static int collect_oldest(struct gmp_ctx_state *s)
{
	Sanitizer_StreamHandle oldest = s->pend[0].hs;
	if (check(gmp_col.san.StreamSynchronize(oldest), "sanitizerStreamSynchronize"))
		return -1;
	return harvest_stream(s, oldest, 0, HV_ENQUEUED) > 0;
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
	struct gmp_ctx_state *s = state_of(ctx);
	if (!s || s->patches < 0)
		return;
	if (s->patches == 0) {
		SanitizerResult r = gmp_col.san.AddPatchesFromFile(gmp_col.patch_path, ctx);
		if (r != SANITIZER_SUCCESS) {
			s->patches = -1;
			rec_say("cannot load the device patches '%s' (%s); kernels are not monitored",
				gmp_col.patch_path, gmp_san__strerror(&gmp_col.san, r));
			return;
		}
		s->patches = 1;
	}
	static const struct {
		Sanitizer_InstructionId id;
		const char *cb;
	} points[] = {
		{ SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, "gmp_patch_global_access" },
		{ SANITIZER_INSTRUCTION_MEMCPY_ASYNC, "gmp_patch_memcpy_async" },
		{ SANITIZER_INSTRUCTION_DEVICE_SIDE_MALLOC, "gmp_patch_device_malloc" },
		{ SANITIZER_INSTRUCTION_DEVICE_SIDE_FREE, "gmp_patch_device_free" },
	};
	for (size_t i = 0; i < sizeof(points) / sizeof(points[0]); i++) {
		const char *cb = gmp_col.opts.patch_empty && i == 0 ? "gmp_patch_global_access_empty"
								   : points[i].cb; /* [0]: global */
		SanitizerResult r = gmp_col.san.PatchInstructions(points[i].id, module, cb);
		if (r != SANITIZER_SUCCESS && points[i].id == SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS) {
			check(r, "patching global memory accesses");
			return;
		}
	}
	if (check(gmp_col.san.PatchModule(module), "sanitizerPatchModule"))
		return;
	for (size_t i = 0; i < s->npatched; i++)
		if (s->patched[i] == module)
			return;
	if (!GMP_GROW(s->patched, s->patched_cap, s->npatched + 1))
		s->patched[s->npatched++] = module;
	else
		out_of_memory("recording a patched module");
}

static int is_patched(const struct gmp_ctx_state *s, CUmodule m)
{
	for (size_t i = 0; i < s->npatched; i++)
		if (s->patched[i] == m)
			return 1;
	return 0;
}

static void snap_put(struct gmp_ctx_state *s, struct snapshot *sn)
{
	if (!sn || --sn->refs)
		return;
	s->snap_bytes -= sn->bytes;
	if (sn->dev)
		gmp_col.san.Free(s->ctx, sn->dev);
	free(sn->start);
	free(sn->size);
	free(sn);
}

/* The table of the current live set, uploaded on hs and complete on return. */
static struct snapshot *current_table(struct gmp_ctx_state *s, Sanitizer_StreamHandle hs)
{
	if (s->cur && s->cur->version == gmp_col.live_version)
		return s->cur;
	/*
	 * Launches waiting for harvest keep their tables alive; with many live
	 * objects and a changing set, that memory grows with every launch.
	 * Past SNAP_LIMIT, collect the oldest launches first.
	 */
	while (s->snap_bytes > SNAP_LIMIT && s->npend && collect_oldest(s) > 0) {
	}
	struct snapshot *sn = calloc(1, sizeof(*sn));
	size_t n = gmp_col.tab_n;
	size_t bytes = sizeof(struct gmp_patch_table) + 2 * n * sizeof(uint64_t);
	uint64_t *host = malloc(bytes);
	if (!sn || !host || !(sn->start = malloc((n ? n : 1) * 8)) || !(sn->size = malloc((n ? n : 1) * 8)))
		goto fail;
	sn->n = n;
	sn->version = gmp_col.live_version;
	sn->refs = 1;
	/* Copies of the recorder's sorted arrays: no walk of the live tree. */
	struct gmp_patch_table *t = (struct gmp_patch_table *)host;
	t->n = n;
	t->version = sn->version;
	uint64_t *start = (uint64_t *)(t + 1), *end = start + n;
	memcpy(start, gmp_col.tab_start, n * sizeof(uint64_t));
	memcpy(end, gmp_col.tab_end, n * sizeof(uint64_t));
	memcpy(sn->start, gmp_col.tab_start, n * sizeof(uint64_t));
	for (size_t i = 0; i < n; i++)
		sn->size[i] = end[i] - start[i];
	if (check(gmp_col.san.Alloc(s->ctx, &sn->dev, bytes), "allocating the object table") ||
	    check(gmp_col.san.MemcpyHostToDeviceAsync(sn->dev, host, bytes, hs), "uploading the object table") ||
	    /* Other streams' launches will read it too: let the upload finish first. */
	    check(gmp_col.san.StreamSynchronize(hs), "uploading the object table"))
		goto fail;
	free(host);
	sn->bytes = bytes + 2 * n * sizeof(uint64_t);
	s->snap_bytes += sn->bytes;
	snap_put(s, s->cur);
	s->cur = sn;
	return sn;
fail:
	if (!sn || !host || !sn->start || !sn->size)
		out_of_memory("building the object table");
	free(host);
	if (sn) {
		if (sn->dev)
			gmp_col.san.Free(s->ctx, sn->dev);
		free(sn->start);
		free(sn->size);
		free(sn);
	}
	return NULL;
}

static int get_buffer(struct gmp_ctx_state *s, size_t n, struct lbuf *out)
{
	for (size_t i = 0; i < s->nfree; i++) {
		if (s->free[i].cap >= n) {
			*out = s->free[i];
			s->free[i] = s->free[--s->nfree];
			return 0;
		}
	}
	size_t cap = n < 64 ? 64 : n + n / 4;
	out->cap = cap;
	return check(gmp_col.san.Alloc(s->ctx, &out->dev, GMP_PATCH_LAUNCH_SIZE + cap * 4),
		     "allocating a launch buffer");
}

static void put_buffer(struct gmp_ctx_state *s, struct lbuf b)
{
	if (GMP_GROW(s->free, s->free_cap, s->nfree + 1)) {
		gmp_col.san.Free(s->ctx, b.dev);
		return;
	}
	s->free[s->nfree++] = b;
}

/* Intra maps of every entry: [intra_obj * n][bitmap, counters per entry]. */
static size_t maps_bytes(const struct snapshot *sn, unsigned gs, unsigned cs)
{
	size_t bytes = sn->n * sizeof(struct gmp_patch_intra_obj);
	for (size_t i = 0; i < sn->n; i++)
		bytes += 4 * (gmp_maps__bitmap_words(sn->size[i], gs) + gmp_maps__counters(sn->size[i], cs));
	return bytes;
}

static int setup_intra(struct gmp_ctx_state *s, struct pending *p, struct gmp_patch_launch *l)
{
	unsigned gs = (unsigned)__builtin_ctz(gmp_col.opts.gran);
	unsigned cs = (unsigned)__builtin_ctz(gmp_col.opts.cgran);
	l->gran_shift = gs;
	l->cgran_shift = cs;
	size_t bytes = maps_bytes(p->snap, gs, cs);
	void *maps = NULL;
	if (gmp_col.san.Alloc(s->ctx, &maps, bytes) == SANITIZER_SUCCESS) {
		/* The maps fit beside the application's memory: keep them on the GPU. */
		struct gmp_patch_intra_obj *io = calloc(p->snap->n ? p->snap->n : 1, sizeof(*io));
		if (!io) {
			gmp_col.san.Free(s->ctx, maps);
			return -ENOMEM;
		}
		uint64_t at = (uint64_t)(uintptr_t)maps + p->snap->n * sizeof(*io);
		for (size_t i = 0; i < p->snap->n; i++) {
			io[i].base = p->snap->start[i];
			io[i].size = p->snap->size[i];
			io[i].bitmap = at;
			at += 4 * gmp_maps__bitmap_words(io[i].size, gs);
			io[i].counters = at;
			at += 4 * gmp_maps__counters(io[i].size, cs);
		}
		int err = check(gmp_col.san.Memset(maps, 0, bytes, p->hs), "clearing intra maps") ||
			  check(gmp_col.san.MemcpyHostToDeviceAsync(maps, io, p->snap->n * sizeof(*io), p->hs),
				"uploading intra maps");
		free(io);
		if (err) {
			gmp_col.san.Free(s->ctx, maps);
			return -EIO;
		}
		l->intra = (uint64_t)(uintptr_t)maps;
		l->mode |= GMP_MODE_INTRA_GPU;
	} else {
		/* No room: stream access records to the host instead. */
		bytes = (size_t)gmp_col.opts.records * sizeof(struct gmp_patch_record);
		if (gmp_col.san.Alloc(s->ctx, &maps, bytes) != SANITIZER_SUCCESS)
			return -ENOMEM;
		l->records = (uint64_t)(uintptr_t)maps;
		l->record_cap = gmp_col.opts.records;
		l->mode |= GMP_MODE_INTRA_STREAM;
	}
	p->maps = maps;
	p->maps_bytes = bytes;
	return 0;
}

static void harvest(struct gmp_ctx_state *s, struct pending *p);

/*
 * Collects the pending launches of one stream (or all) that a completed
 * synchronization covers: those enqueued (their launch returned) no later
 * than horizon, the enqueue count when the synchronizing call began.  A
 * launch another thread has not finished issuing, or issued after the
 * sync began, may still be running: it waits for a later sync.  Returns
 * how many were collected.
 */
static size_t harvest_stream(struct gmp_ctx_state *s, Sanitizer_StreamHandle hs, int all,
			     uint64_t horizon)
{
	size_t taken = 0;
	for (size_t i = 0; i < s->npend;) {
		const struct pending *q = &s->pend[i];
		int covered = horizon == HV_ANY || (q->seq && q->seq <= horizon);
		if ((all || q->hs == hs) && covered) {
			struct pending p = s->pend[i];
			memmove(&s->pend[i], &s->pend[i + 1], (s->npend - i - 1) * sizeof(*s->pend));
			s->npend--;
			harvest(s, &p);
			taken++;
		} else {
			i++;
		}
	}
	return taken;
}

/* Records the kernel event: its kind says how the launch is monitored. */
static void record(struct gmp_launch_info *li, struct gmp_event *e, uint32_t mode)
{
	e->kind = (uint8_t)(mode & GMP_MODE_INTRA_GPU ? GMP_KERNEL_INTRA_GPU
				: mode & GMP_MODE_INTRA_STREAM ? GMP_KERNEL_INTRA_STREAM
							       : GMP_KERNEL_OBJECT);
	int64_t ev = rec_event(e, li->name, 1);
	li->ev = ev < 0 ? UINT64_MAX : (uint64_t)ev;
}

void dev_launch_begin(struct gmp_launch_info *li, struct gmp_event *e)
{
	struct gmp_ctx_state *s = state_of(li->ctx);
	if (!s || s->patches != 1 || !is_patched(s, li->module)) {
		record(li, e, 0); /* unmonitored: its access sets stay unknown */
		return;
	}
	/* The pool ran low: wait for the oldest launch's stream and collect it. */
	if (s->npend >= gmp_col.opts.pool && collect_oldest(s) < 0)
		return;
	struct pending p = { .hs = li->hstream, .mode = GMP_MODE_OBJECT };
	if (!(p.snap = current_table(s, li->hstream)) || get_buffer(s, p.snap->n, &p.buf)) {
		record(li, e, 0);
		return;
	}
	p.snap->refs++;
	struct gmp_patch_launch l = { .table = (uint64_t)(uintptr_t)p.snap->dev,
				      .hits = (uint64_t)(uintptr_t)p.buf.dev + GMP_PATCH_LAUNCH_SIZE,
				      .mode = GMP_MODE_OBJECT, .abi = GMP_PATCH_ABI_VERSION };
	if (gmp_col.opts.mode == GMP_COLLECT_INTRA && gmp_kfilter__take(gmp_col.kf, li->name) &&
	    setup_intra(s, &p, &l) == 0)
		p.mode = l.mode;
	if (check(gmp_col.san.MemcpyHostToDeviceAsync(p.buf.dev, &l, sizeof(l), li->hstream),
		  "uploading a launch buffer") ||
	    check(gmp_col.san.Memset((char *)p.buf.dev + GMP_PATCH_LAUNCH_SIZE, 0, p.snap->n * 4,
				     li->hstream), "clearing hit flags") ||
	    check(gmp_col.san.SetLaunchCallbackData(li->hlaunch, li->function, li->hstream, p.buf.dev),
		  "sanitizerSetLaunchCallbackData") ||
	    (GMP_GROW(s->pend, s->pend_cap, s->npend + 1) && (out_of_memory("queuing a launch"), 1))) {
		if (p.maps)
			gmp_col.san.Free(s->ctx, p.maps);
		put_buffer(s, p.buf);
		snap_put(s, p.snap);
		record(li, e, 0);
		return;
	}
	record(li, e, p.mode);
	if (li->ev == UINT64_MAX) {
		if (p.maps)
			gmp_col.san.Free(s->ctx, p.maps);
		put_buffer(s, p.buf);
		snap_put(s, p.snap);
		return;
	}
	p.ev = li->ev;
	s->pend[s->npend++] = p;
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
	/* DrGPUM's way (for comparison), and intra maps, which are big: collect now. */
	if (gmp_col.opts.harvest == GMP_HARVEST_LAUNCH || last->maps) {
		if (check(gmp_col.san.StreamSynchronize(li->hstream), "sanitizerStreamSynchronize"))
			return;
		struct pending p = *last;
		memmove(last, last + 1, (s->npend - k) * sizeof(*last));
		s->npend--;
		harvest(s, &p);
	}
}

static void touches_gpu(struct gmp_ctx_state *s, struct pending *p, const uint32_t *hits,
			struct gmp_touch_vec *tv)
{
	(void)s;
	uint8_t *host = malloc(p->maps_bytes ? p->maps_bytes : 1);
	if (!host || check(gmp_col.san.MemcpyDeviceToHost(host, p->maps, p->maps_bytes, p->hs),
			   "reading intra maps")) {
		free(host);
		tv->n = SIZE_MAX; /* unknown */
		return;
	}
	unsigned gs = (unsigned)__builtin_ctz(gmp_col.opts.gran);
	unsigned cs = (unsigned)__builtin_ctz(gmp_col.opts.cgran);
	const struct gmp_patch_intra_obj *io = (const struct gmp_patch_intra_obj *)host;
	uint64_t dev0 = (uint64_t)(uintptr_t)p->maps;
	for (size_t i = 0; i < p->snap->n; i++) {
		if (!hits[i])
			continue;
		const uint32_t *bm = (const uint32_t *)(host + (io[i].bitmap - dev0));
		const uint32_t *ct = (const uint32_t *)(host + (io[i].counters - dev0));
		if (gmp_maps__touches(io[i].base, io[i].size, bm, ct, gs, cs, hits[i], tv)) {
			tv->n = SIZE_MAX;
			break;
		}
	}
	free(host);
}

static void touches_stream(struct gmp_ctx_state *s, struct pending *p, const uint32_t *hits,
			   struct gmp_touch_vec *tv)
{
	(void)s;
	struct gmp_patch_launch l;
	if (check(gmp_col.san.MemcpyDeviceToHost(&l, p->buf.dev, sizeof(l), p->hs), "reading a launch")) {
		tv->n = SIZE_MAX;
		return;
	}
	if (l.record_count > l.record_cap) {
		tv->n = SIZE_MAX; /* records were dropped: the touches would be wrong */
		return;
	}
	size_t nrec = l.record_count;
	struct gmp_patch_record *rec = malloc((nrec ? nrec : 1) * sizeof(*rec));
	if (!rec || check(gmp_col.san.MemcpyDeviceToHost(rec, p->maps, nrec * sizeof(*rec), p->hs),
			  "reading access records")) {
		free(rec);
		tv->n = SIZE_MAX;
		return;
	}
	unsigned gs = (unsigned)__builtin_ctz(gmp_col.opts.gran);
	unsigned cs = (unsigned)__builtin_ctz(gmp_col.opts.cgran);
	for (size_t i = 0; i < p->snap->n && tv->n != SIZE_MAX; i++) {
		if (!hits[i])
			continue;
		uint64_t base = p->snap->start[i], size = p->snap->size[i];
		uint32_t *bm = calloc(gmp_maps__bitmap_words(size, gs) + 1, 4);
		uint32_t *ct = calloc(gmp_maps__counters(size, cs) + 1, 4);
		if (bm && ct) {
			for (size_t k = 0; k < nrec; k++)
				gmp_maps__add(base, size, bm, ct, gs, cs, rec[k].addr, rec[k].size);
			if (gmp_maps__touches(base, size, bm, ct, gs, cs, hits[i], tv))
				tv->n = SIZE_MAX;
		} else {
			tv->n = SIZE_MAX;
		}
		free(bm);
		free(ct);
	}
	free(rec);
}

static void harvest(struct gmp_ctx_state *s, struct pending *p)
{
	size_t n = p->snap->n;
	uint32_t *hits = malloc((n ? n : 1) * sizeof(*hits));
	struct gmp_access *acc = malloc((n ? n : 1) * sizeof(*acc));
	if (hits && acc &&
	    !check(gmp_col.san.MemcpyDeviceToHost(hits, (char *)p->buf.dev + GMP_PATCH_LAUNCH_SIZE,
						  n * 4, p->hs), "reading hit flags")) {
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			if (hits[i] & (GMP_HIT_READ | GMP_HIT_WRITE))
				acc[k++] = (struct gmp_access){ .addr = p->snap->start[i],
								.rw = hits[i] & (GMP_HIT_READ | GMP_HIT_WRITE) };
		rec_accesses(p->ev, acc, k);
		if (p->maps) {
			struct gmp_touch_vec tv = { 0 };
			if (p->mode & GMP_MODE_INTRA_GPU)
				touches_gpu(s, p, hits, &tv);
			else
				touches_stream(s, p, hits, &tv);
			if (tv.n != SIZE_MAX)
				rec_touches(p->ev, tv.v, tv.n);
			free(tv.v);
		}
	} else if (!hits || !acc) {
		out_of_memory("reading a launch's accesses");
	}
	free(hits);
	free(acc);
	if (p->maps)
		gmp_col.san.Free(s->ctx, p->maps);
	put_buffer(s, p->buf);
	snap_put(s, p->snap);
}

void dev_synced(CUcontext ctx, Sanitizer_StreamHandle hs, int all, uint64_t horizon)
{
	for (size_t i = 0; i < gmp_col.nctxs; i++) {
		struct gmp_ctx_state *s = gmp_col.ctxs[i];
		if (ctx && s->ctx != ctx)
			continue;
		harvest_stream(s, hs, all, horizon);
	}
}

static void release(struct gmp_ctx_state *s)
{
	for (size_t i = 0; i < s->nfree; i++)
		gmp_col.san.Free(s->ctx, s->free[i].dev);
	s->nfree = 0;
	snap_put(s, s->cur);
	s->cur = NULL;
}

/* Everything still pending on s: wait for each stream, then collect. */
static void drain(struct gmp_ctx_state *s)
{
	while (s->npend) {
		Sanitizer_StreamHandle hs = s->pend[0].hs;
		if (gmp_col.san.StreamSynchronize(hs) != SANITIZER_SUCCESS) {
			/* The context is gone: these launches stay without access sets. */
			for (size_t i = 0; i < s->npend; i++)
				snap_put(s, s->pend[i].snap);
			s->npend = 0;
			break;
		}
		harvest_stream(s, hs, 0, HV_ANY);
	}
}

void dev_context_destroying(CUcontext ctx)
{
	for (size_t i = 0; i < gmp_col.nctxs; i++) {
		struct gmp_ctx_state *s = gmp_col.ctxs[i];
		if (s->ctx != ctx)
			continue;
		drain(s);
		release(s);
		free(s->free);
		free(s->pend);
		free(s->patched);
		free(s);
		gmp_col.ctxs[i] = gmp_col.ctxs[--gmp_col.nctxs];
		return;
	}
}

void dev_finish(void)
{
	for (size_t i = 0; i < gmp_col.nctxs; i++)
		drain(gmp_col.ctxs[i]);
}
