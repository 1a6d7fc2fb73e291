// SPDX-License-Identifier: MIT
/*
 * Harvesting monitored launches: when a sync covers them (or the pool runs
 * low, or at the end), their hit flags and intra-object maps are read back
 * and become the kernel's accesses and touches in the profile.  A harvest
 * takes its launches off the queue under the lock, reads them with the lock
 * released (Sanitizer copies; see device.h), and commits them under it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "patch_logic.h"
#include "util.h"

/*
 * Intra maps on the GPU: [intra_obj * n][bitmap, counters per entry], laid
 * out by device.c's setup_intra.  When few objects were hit, only their
 * maps are read: one copy for each run of them whose maps lie within
 * COPY_COST bytes of each other (a kernel's buffers are often allocated
 * one after the other, so their maps are neighbours: many_allocs' five a
 * launch in one copy, where each copy is a synchronous call; laghos_state's
 * step kernel four of its five 64 MiB buffers, 24 MiB of maps and not the
 * block's 30), unless the block in one copy costs less.  A copy's own cost
 * is counted as COPY_COST bytes read (tens of microseconds a call).
 */
#define FEW_HITS 64
#define COPY_COST ((size_t)256 << 10)

struct run {
	size_t off, len, to; /* [off, off+len) of the block, read to host+to */
};

/* Each hit object's maps into runs: at most FEW_HITS; the bytes they cover. */
static size_t map_runs(const struct pending *p, const uint32_t *hits, unsigned gs, unsigned cs, struct run *run,
		       size_t *nrun)
{
	size_t at = p->snap->n * sizeof(struct gmp_patch_intra_obj), total = 0;
	*nrun = 0;
	for (size_t i = 0; i < p->snap->n; i++) {
		if (!has_maps(p, i))
			continue;
		uint64_t start, end;
		snap_entry(p->snap, i, &start, &end);
		size_t len = maps_len(end - start, gs, cs);
		if (hits[i]) {
			struct run *last = *nrun ? &run[*nrun - 1] : NULL;
			if (last && at - (last->off + last->len) <= COPY_COST) {
				total += at + len - (last->off + last->len);
				last->len = at + len - last->off;
			} else {
				run[(*nrun)++] = (struct run){ at, len, total };
				total += len;
			}
		}
		at += len;
	}
	return total;
}

static void touches_gpu(struct gmp_ctx_state *s, struct pending *p, const uint32_t *hits)
{
	struct gmp_touch_vec *tv = &p->tv;
	unsigned gs = (unsigned)__builtin_ctz(gmp_col.opts.gran);
	unsigned cs = (unsigned)__builtin_ctz(gmp_col.opts.cgran);
	size_t n = p->snap->n, nhit = 0;
	for (size_t i = 0; i < n; i++) {
		if (!hits[i])
			continue;
		if (!has_maps(p, i)) {
			tv->n = SIZE_MAX; /* it touched an object without maps: its touches are unknown */
			return;
		}
		nhit++;
	}
	struct run run[FEW_HITS];
	size_t nrun = 0, runs_bytes = nhit <= FEW_HITS ? map_runs(p, hits, gs, cs, run, &nrun) : 0;
	int each = nhit <= FEW_HITS && runs_bytes + nrun * COPY_COST < p->maps_bytes + COPY_COST;
	if (!each)
		nrun = 0;
	/* Read into the pinned staging buffer and parsed there where they fit, else into memory of their own. */
	size_t bytes = each ? runs_bytes : p->maps_bytes;
	uint8_t *staged = dev_stage_take(s, bytes);
	uint8_t *host = staged ? staged : malloc(bytes ? bytes : 1);
	int failed = !host;
	if (!each && !failed)
		failed = dev_read(s, host, p->maps, p->maps_bytes, p->hs, "reading intra maps");
	for (size_t r = 0; r < nrun && !failed; r++)
		failed = dev_read(s, host + run[r].to, (char *)p->maps + run[r].off, run[r].len, p->hs, "reading intra maps");
	if (failed) {
		tv->n = SIZE_MAX; /* unknown */
		goto done;
	}
	size_t at = n * sizeof(struct gmp_patch_intra_obj), r = 0; /* the maps' offset in the block; the run */
	for (size_t i = 0; i < n; i++) {
		if (!has_maps(p, i))
			continue; /* no maps in the block (and not hit: see above) */
		uint64_t base, end;
		snap_entry(p->snap, i, &base, &end);
		uint64_t size = end - base;
		size_t bw = 4 * gmp_maps__bitmap_words(size, gs), cw = 4 * gmp_maps__counters(size, cs);
		if (hits[i]) {
			while (each && at >= run[r].off + run[r].len)
				r++; /* runs are in the block's order, as the entries */
			const uint8_t *m = each ? host + run[r].to + (at - run[r].off) : host + at;
			if (gmp_maps__touches(base, size, (const uint32_t *)m, (const uint32_t *)(m + bw), gs, cs,
					      hits[i], tv)) {
				tv->n = SIZE_MAX;
				break;
			}
		}
		at += bw + cw;
	}
done:
	if (staged)
		dev_stage_give(s);
	else
		free(host);
}

static void touches_stream(struct gmp_ctx_state *s, struct pending *p, const struct gmp_patch_launch *l,
			   const uint32_t *hits)
{
	struct gmp_touch_vec *tv = &p->tv;
	if (l->record_count > l->record_cap) {
		tv->n = SIZE_MAX; /* records were dropped: the touches would be wrong */
		static int said;
		if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
			rec_say("a launch made %u accesses, more than GMPROF_RECORDS=%u: its intra-object touches "
				"are not recorded (gmprof report counts such launches)", l->record_count, l->record_cap);
		return;
	}
	size_t nrec = l->record_count;
	struct gmp_patch_record *rec = malloc((nrec ? nrec : 1) * sizeof(*rec));
	if (!rec || dev_read(s, rec, p->maps, nrec * sizeof(*rec), p->hs, "reading access records")) {
		free(rec);
		tv->n = SIZE_MAX;
		return;
	}
	unsigned gs = (unsigned)__builtin_ctz(gmp_col.opts.gran);
	unsigned cs = (unsigned)__builtin_ctz(gmp_col.opts.cgran);
	for (size_t i = 0; i < p->snap->n && tv->n != SIZE_MAX; i++) {
		if (!hits[i])
			continue;
		uint64_t base, end;
		snap_entry(p->snap, i, &base, &end);
		uint64_t size = end - base;
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

/* The malloc()/free() records of a launch whose header says how many it took. */
static int read_heap(struct pending *p, const struct gmp_patch_launch *l)
{
	size_t n = l->heap_count < p->buf.heap_cap ? l->heap_count : p->buf.heap_cap;
	p->heap_lost = l->heap_count - n;
	if (!n)
		return 0;
	p->heap = malloc(n * sizeof(*p->heap));
	if (!p->heap) {
		p->heap_lost += n;
		return -ENOMEM;
	}
	if (dev_check(gmp_col.san.MemcpyDeviceToHost(p->heap, (char *)p->buf.dev + lbuf_heap_off(&p->buf),
						     n * sizeof(*p->heap), p->hs), "reading heap records")) {
		p->heap_lost += n;
		return -EIO;
	}
	p->nheap = n;
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	uint64_t x = ((const struct gmp_access *)a)->addr, y = ((const struct gmp_access *)b)->addr;
	return (x > y) - (x < y);
}

static int touch_by_addr(const void *a, const void *b)
{
	uint64_t x = ((const struct gmp_touch *)a)->addr, y = ((const struct gmp_touch *)b)->addr;
	return (x > y) - (x < y);
}

/*
 * Accesses and touches come out in entry order: the base's objects by
 * address, then the recent table's (patch_abi.h).  The profile has them in
 * address order, as the events of a script do.
 */
static void address_order(struct pending *p)
{
	for (size_t i = 1; i < p->nacc; i++)
		if (p->acc[i].addr < p->acc[i - 1].addr) {
			qsort(p->acc, p->nacc, sizeof(*p->acc), by_addr);
			break;
		}
	for (size_t i = 1; p->tv.n != SIZE_MAX && i < p->tv.n; i++)
		if (p->tv.v[i].addr < p->tv.v[i - 1].addr) {
			qsort(p->tv.v, p->tv.n, sizeof(*p->tv.v), touch_by_addr);
			break;
		}
}

/* Hit list entries read in the first copy, with the launch's header: most launches touch fewer. */
#define LIST_FIRST 64

static int by_entry(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a >> GMP_LIST_SHIFT, y = *(const uint32_t *)b >> GMP_LIST_SHIFT;
	return (x > y) - (x < y);
}

/*
 * A hit list in pinned host memory (patch_abi.h): its items into *block
 * after room for the header, which is read from the device only when its
 * other counts are needed (the record count of a launch that streamed its
 * accesses); else *l is zeros but for the counts of the list and of the
 * heap records, which are there too.  No copy at all in object mode, nor
 * for intra maps on the GPU.
 */
static int read_host_list(struct pending *p, struct gmp_patch_launch *l, uint8_t **block)
{
	const size_t hsz = GMP_PATCH_LAUNCH_SIZE;
	const struct gmp_patch_host_list *h = p->buf.host_list;
	uint32_t cap = lbuf_list_cap(&p->buf), count = __atomic_load_n(&h->count, __ATOMIC_ACQUIRE);
	size_t items = count <= cap ? count : 0;
	uint8_t *b = malloc(hsz + items * 4 + 4);
	if (!b)
		return -ENOMEM;
	*block = b;
	memset(l, 0, sizeof(*l));
	if ((p->mode & GMP_MODE_INTRA_STREAM) &&
	    dev_check(gmp_col.san.MemcpyDeviceToHost(l, p->buf.dev, sizeof(*l), p->hs), "reading a launch's counts"))
		return -EIO;
	l->list_count = count;
	l->heap_count = __atomic_load_n(&h->heap_count, __ATOMIC_ACQUIRE);
	if (count > cap || (gmp_col.opts.fallback & GMP_FALLBACK_HIT_LIST))
		return 0;
	memcpy(b + hsz, h + 1, items * 4);
	return 1;
}

/*
 * Reads the launch's header into *l and its hit list after it into *block
 * (malloc'd, the caller's even on failure): one copy when the list holds
 * at most LIST_FIRST items, none when the list is in pinned host memory.
 * 1 when the list holds every hit, 0 when it overflowed or is not to be
 * used (GMPROF_FALLBACK=hit-list: the hit words say what was hit), -EIO
 * when a copy failed (said), -ENOMEM.
 */
static int read_list(struct pending *p, struct gmp_patch_launch *l, uint8_t **block)
{
	if (p->buf.host_list)
		return read_host_list(p, l, block);
	const size_t hsz = GMP_PATCH_LAUNCH_SIZE;
	uint32_t cap = lbuf_list_cap(&p->buf), first = cap < LIST_FIRST ? cap : LIST_FIRST;
	uint8_t *b = malloc(hsz + first * 4);
	if (!b)
		return -ENOMEM;
	*block = b;
	if (dev_check(gmp_col.san.MemcpyDeviceToHost(b, p->buf.dev, hsz + first * 4, p->hs), "reading hit flags"))
		return -EIO;
	memcpy(l, b, sizeof(*l));
	if (l->list_count > cap || (gmp_col.opts.fallback & GMP_FALLBACK_HIT_LIST))
		return 0;
	if (l->list_count > first) {
		if (!(b = realloc(b, hsz + l->list_count * 4)))
			return -ENOMEM;
		*block = b;
		if (dev_check(gmp_col.san.MemcpyDeviceToHost(b + hsz + first * 4, (char *)p->buf.dev + hsz + first * 4,
							     (l->list_count - first) * 4, p->hs), "reading hit flags"))
			return -EIO;
	}
	return 1;
}

/*
 * The accesses of a listed launch: its list sorted by entry, the read and
 * write items of an entry merged; and the hit words, when hits is not
 * NULL (zeroed).  -1 when an item names no entry: the launch's data is
 * not to be trusted.
 */
static int accesses_from_list(struct pending *p, uint32_t *list, size_t count, uint32_t *hits)
{
	qsort(list, count, sizeof(*list), by_entry);
	for (size_t k = 0; k < count; k++) {
		uint32_t i = list[k] >> GMP_LIST_SHIFT, rw = list[k] & (GMP_HIT_READ | GMP_HIT_WRITE);
		if (i >= p->snap->n) {
			static int said;
			if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
				rec_say("a launch's hit list names entry %u of %zu: its accesses are not recorded",
					i, p->snap->n);
			return -1;
		}
		if (hits)
			hits[i] |= rw;
		if (k && i == list[k - 1] >> GMP_LIST_SHIFT)
			p->acc[p->nacc - 1].rw |= rw;
		else
			p->acc[p->nacc++] = (struct gmp_access){ .addr = snap_start(p->snap, i), .rw = rw };
	}
	return 0;
}

/*
 * Reads one launch back: lock released; p and its snapshot are this
 * thread's.  What it touched comes from its hit list (O(objects touched)),
 * or, when the list overflowed, from every entry's hit word; intra mode
 * also needs the hit words of every entry, as its maps cover them all.
 */
static void harvest_read(struct gmp_ctx_state *s, struct pending *p)
{
	size_t n = p->snap->n;
	struct gmp_patch_launch l;
	uint8_t *block = NULL;
	uint32_t *hits = NULL;
	p->read = -1;
	int listed = read_list(p, &l, &block);
	size_t nacc = listed == 1 ? l.list_count : n;
	if (listed < 0 || !(p->acc = malloc((nacc ? nacc : 1) * sizeof(*p->acc))) ||
	    ((listed == 0 || p->maps) && !(hits = calloc(n ? n : 1, sizeof(*hits))))) {
		p->read = listed == -EIO ? 0 : -1; /* a failed copy (said), or no memory */
		goto out;
	}
	p->read = 0;
	if (listed == 0 && dev_read(s, hits, (char *)p->buf.dev + lbuf_hits_off(&p->buf), n * 4, p->hs, "reading hit flags"))
		goto out;
	if (listed == 1) {
		if (accesses_from_list(p, (uint32_t *)(block + GMP_PATCH_LAUNCH_SIZE), l.list_count, hits))
			goto out;
	} else {
		for (size_t i = 0; i < n; i++)
			if ((hits[i] = gmp_patch_hit_of(hits[i], p->buf.epoch))) /* this launch's bits */
				p->acc[p->nacc++] = (struct gmp_access){ .addr = snap_start(p->snap, i), .rw = hits[i] };
	}
	p->read = 1;
	if (p->buf.heap_cap)
		read_heap(p, &l); /* a failure counts the calls as lost */
	if (p->maps) {
		if (p->mode & GMP_MODE_INTRA_GPU)
			touches_gpu(s, p, hits);
		else
			touches_stream(s, p, &l, hits);
	}
	address_order(p);
out:
	free(hits);
	free(block);
}

/* Records what was read and returns the launch's resources: lock held. */
static void harvest_commit(struct gmp_ctx_state *s, struct pending *p)
{
	if (gmp_col.opts.mode == GMP_COLLECT_INTRA)
		khist_learn(s, p);
	if (p->read == 1 && p->ntex && tex_reads(p->tex, p->ntex, &p->acc, &p->nacc))
		p->read = -1;
	if (p->read == 1) {
		rec_accesses(p->ev, p->acc, p->nacc);
		if (p->maps && p->tv.n != SIZE_MAX)
			rec_touches(p->ev, p->tv.v, p->tv.n);
		if (p->nheap || p->heap_lost)
			rec_heap(&p->kev, p->ev, p->heap, p->nheap, p->heap_lost);
	} else if (p->read < 0) {
		dev_out_of_memory("reading a launch's accesses");
	}
	free(p->acc);
	free(p->tex);
	free(p->tv.v);
	free(p->heap);
	dev_put_maps(s, p);
	dev_put_buffer(s, p->buf);
	dev_snap_put(s, p->snap);
}

/*
 * Collects the pending launches of one stream (or all) that a completed
 * synchronization covers: those enqueued (their launch returned) no later
 * than horizon, the enqueue count when the synchronizing call began.  A
 * launch another thread has not finished issuing, or issued after the
 * sync began, may still be running: it waits for a later sync.  Returns
 * how many were collected.
 */
/*
 * Launches whose hit lists are in pinned host memory, collected at a sync
 * not known to have finished them (cudaFree's: whether the Sanitizer's
 * free callback comes before or after its wait for the device is not
 * known): each of their streams is waited for once, as a copy of a list
 * on the device waited, in its stream's order.  Lock released.  A launch
 * whose stream could not be waited for is not read (said).
 */
static void wait_streams(struct pending *take, size_t n)
{
	Sanitizer_StreamHandle seen[16];
	int failed[16];
	size_t m = 0;
	for (size_t k = 0; k < n; k++) {
		if (!take[k].buf.host_list)
			continue;
		size_t j = 0;
		while (j < m && seen[j] != take[k].hs)
			j++;
		if (j == m) {
			int f = dev_check(gmp_col.san.StreamSynchronize(take[k].hs), "sanitizerStreamSynchronize");
			if (m < sizeof(seen) / sizeof(seen[0])) {
				seen[m] = take[k].hs;
				failed[m++] = f;
			}
			take[k].unread = f;
		} else {
			take[k].unread = failed[j];
		}
	}
}

size_t dev_harvest_stream(struct gmp_ctx_state *s, Sanitizer_StreamHandle hs, int all,
			  uint64_t horizon, int wait)
{
	struct pending *take = NULL;
	size_t n = 0, cap = 0, kept = 0;
	/* One pass: taken launches move out, the others close up in order. */
	for (size_t i = 0; i < s->npend; i++) {
		const struct pending *q = &s->pend[i];
		int covered = horizon == HV_ANY || (q->seq && q->seq <= horizon);
		int take_it = (all == DEV_SYNC_ALL || q->hwait == hs ||
			       (all == DEV_SYNC_LEGACY && rec_stream_blocking(q->kev.stream))) && covered;
		if (take_it && GMP_GROW(take, cap, n + 1)) {
			dev_out_of_memory("collecting launches"); /* it waits for a later sync */
			take_it = 0;
		}
		if (take_it)
			take[n++] = *q;
		else
			s->pend[kept++] = *q;
	}
	s->npend = kept;
	if (!n)
		return 0;
	dev_unlock();
	if (wait)
		wait_streams(take, n);
	for (size_t k = 0; k < n; k++) {
		if (take[k].unread)
			take[k].read = 0; /* as a failed copy */
		else
			harvest_read(s, &take[k]);
	}
	dev_lock();
	for (size_t k = 0; k < n; k++)
		harvest_commit(s, &take[k]);
	free(take);
	dev_collect_garbage(s);
	return n;
}

int dev_collect_oldest(struct gmp_ctx_state *s)
{
	if (!s->npend)
		return 0;
	Sanitizer_StreamHandle oldest = s->pend[0].hwait;
	dev_unlock_for(GMP_ST_WAIT);
	SanitizerResult r = gmp_col.san.StreamSynchronize(oldest);
	dev_lock();
	if (dev_check(r, "sanitizerStreamSynchronize"))
		return -1;
	return dev_harvest_stream(s, oldest, 0, HV_ENQUEUED, 0) > 0;
}

void dev_harvest_now(struct gmp_ctx_state *s, struct pending *p)
{
	dev_unlock_for(GMP_ST_WAIT);
	SanitizerResult r = gmp_col.san.StreamSynchronize(p->hs);
	dev_span_to(GMP_ST_CALLS);
	if (r == SANITIZER_SUCCESS)
		harvest_read(s, p);
	dev_lock();
	if (dev_check(r, "sanitizerStreamSynchronize"))
		p->read = 0;
	harvest_commit(s, p);
	dev_collect_garbage(s);
}

void dev_drain(struct gmp_ctx_state *s)
{
	while (s->npend) {
		Sanitizer_StreamHandle hs = s->pend[0].hwait;
		dev_unlock_for(GMP_ST_WAIT);
		SanitizerResult r = gmp_col.san.StreamSynchronize(hs);
		dev_lock();
		if (r != SANITIZER_SUCCESS || !dev_harvest_stream(s, hs, 0, HV_ANY, 0)) {
			/* The context is gone (or memory ran out): these launches stay without access sets. */
			for (size_t i = 0; i < s->npend; i++)
				harvest_commit(s, &s->pend[i]); /* read 0: resources back, nothing recorded */
			s->npend = 0;
			dev_collect_garbage(s);
			break;
		}
	}
}

/* Contexts come and go while the lock is released: walk them by index. */
void dev_synced(CUcontext ctx, Sanitizer_StreamHandle hs, int all, uint64_t horizon, int wait)
{
	for (size_t i = 0; i < gmp_col.nctxs; i++) {
		struct gmp_ctx_state *s = gmp_col.ctxs[i];
		if (ctx && s->ctx != ctx)
			continue;
		dev_harvest_stream(s, hs, all, horizon, wait);
	}
}

void dev_finish(void)
{
	for (size_t i = 0; i < gmp_col.nctxs; i++)
		dev_drain(gmp_col.ctxs[i]);
	char n[32];
	/* What gmprof itself held on the devices at most (not in the program's peaks). */
	if (gmp_col.dev_peak) {
		snprintf(n, sizeof(n), "%" PRIu64, gmp_col.dev_peak);
		rec_meta("collector_device_peak", n);
	}
	if (gmp_col.opts.patch_at == GMP_PATCH_AT_RANGE) { /* modules unpatched after a capture range */
		snprintf(n, sizeof(n), "%" PRIu64, gmp_col.unpatches);
		rec_meta("module_unpatches", n);
	}
	uint64_t api = cb_api_callbacks();
	if (api) { /* the Sanitizer's calls of the collector for API calls, beside those collector_time counts */
		snprintf(n, sizeof(n), "%" PRIu64, api);
		rec_meta("api_callbacks", n);
	}
	if (gmp_col.opts.api_needed)
		api_off_meta();
	dev_graph_meta(); /* graph launches whose kernel nodes' accesses may mix (graphdata.c) */
}
