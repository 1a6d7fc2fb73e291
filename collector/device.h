/* SPDX-License-Identifier: MIT */
/*
 * The device side's private state, shared by device.c (patches, object
 * tables, launches) and harvest.c (reading launches back).
 *
 * Locking.  Callers of every dev_* function hold gmp_col.lock, and every
 * Sanitizer call is made with it released (dev_unlock/dev_lock around the
 * call).  On a real GPU the driver runs allocation callbacks under a lock
 * of its own, held shared, and a synchronous Sanitizer copy takes that
 * lock exclusively: a thread that copied while holding gmp_col.lock, which
 * another thread's allocation callback waits for, deadlocked both (seen on
 * an H100; docs/sanitizer-api.md).  So what a Sanitizer call works on is
 * made private to the calling thread first: a pending launch is taken off
 * its queue, a new object table is built from a copy of the live set, and
 * device memory to free goes on a garbage list freed outside the lock.
 */
#ifndef GMPROF_DEVICE_H
#define GMPROF_DEVICE_H

#include "collector.h"
#include "patch_abi.h"
#include "touches.h"
#include "u64map.h"

/*
 * A table on the device, uploaded on one stream for its launches; once no
 * launch needs it, a spare for the next table uploaded on that stream
 * (ordered after whatever read it there).
 */
struct tcopy {
	Sanitizer_StreamHandle hs;
	void *dev;
	size_t cap;               /* the block's size: at least the table's */
	size_t applied;           /* a base's: its tombstones set there (patch_abi.h) */
};

/* Tombstones a base takes before it is rebuilt: each is a small copy per stream. */
#define TOMB_MAX 32u

/*
 * The base of the object tables (patch_abi.h): the live set when it was
 * built, shared by the snapshots built since.  Objects of it freed since
 * are its tombstones; objects allocated since are in each snapshot's
 * recent table.  So a change of the live set costs a small table, not a
 * copy of every live object (tables.c).
 */
struct tbase {
	uint32_t refs;            /* snapshots using it, + 1 while the context's */
	uint32_t gen;             /* the context's bases, numbered */
	int pieces;               /* built with pools split into NVTX regions: never changed */
	size_t n;
	size_t bytes;             /* host and device memory it holds */
	void *host;               /* struct gmp_patch_table + start[n] + end[n], as built */
	uint64_t *start, *end;    /* inside host: ends as built */
	uint64_t *dead;           /* per entry, the live version that freed it; UINT64_MAX: live.
				     Set with the lock held, read without it (relaxed atomics): a
				     value set after a snapshot is later than its version either way */
	uint32_t tombs[TOMB_MAX]; /* the entries freed, in order */
	size_t ntombs;
	struct tcopy *copies;     /* on the device, one per stream; tombstones set up to applied */
	size_t ncopies, copies_cap;
};

/* The object tables of one version of the live set, shared by its launches. */
struct snapshot {
	uint32_t refs;            /* pending launches and callers using it, + 1 while current */
	uint64_t id;              /* this one among the context's snapshots (from 1) */
	size_t bytes;             /* host and device memory it holds */
	uint64_t version;
	size_t n;                 /* entries: the base's, then the recent table's */
	struct tbase *base;
	size_t ntombs;            /* the base's tombstones at this version */
	size_t nr;                /* recent objects */
	uint64_t *rstart, *rend;  /* inside host */
	void *host;               /* the recent table, as uploaded */
	size_t table_bytes;       /* its size */
	struct tcopy *copies;     /* the recent table on the device, one per stream that launched with it */
	size_t ncopies, copies_cap;
};

/* Where entry i of a snapshot starts. */
static inline uint64_t snap_start(const struct snapshot *sn, size_t i)
{
	return i < sn->base->n ? sn->base->start[i] : sn->rstart[i - sn->base->n];
}

/* Entry i of a snapshot: its object's start and end; start == end for a base object freed before it. */
static inline void snap_entry(const struct snapshot *sn, size_t i, uint64_t *start, uint64_t *end)
{
	const struct tbase *b = sn->base;
	*start = snap_start(sn, i);
	if (i >= b->n)
		*end = sn->rend[i - b->n];
	else
		*end = __atomic_load_n(&b->dead[i], __ATOMIC_RELAXED) <= sn->version ? *start : b->end[i];
}

/*
 * A launch's device buffer: struct gmp_patch_launch, uint32_t list[list
 * cap] (the hit list), then (hints) uint64_t hints[GMP_HINTS], the
 * per-instruction records, then uint32_t hits[cap], then (heap_cap > 0)
 * struct gmp_patch_heap_record[heap_cap] at heap_off().  The records and
 * the hit words are kept from launch to launch, and cleared together
 * (one memset from hints_off(): patch_abi.h).  A buffer whose hit list is
 * in pinned host memory has no list on the device, and ring headers in
 * place of one: the headers of its next launches, uploaded at once
 * (device.c: header_slot), of which each launch's patches read one.
 */
struct lbuf {
	void *dev;
	struct gmp_patch_host_list *host_list; /* the hit list in pinned host memory, or NULL: after the launch struct */
	size_t host_bytes;        /* the piece of a pinned slab it is (lbuf.c) */
	size_t cap;
	size_t heap_cap;
	int hints;
	int cleared;              /* its hit words and records were cleared (once, when new: patch_abi.h) */
	uint32_t epoch;           /* the number of its latest launch since they were */
	uint32_t ring_held;       /* slots holding ring_hdr's header, with epochs from its own on (0: none) */
	struct gmp_patch_launch ring_hdr; /* the first of them */
};

/* Header slots of a buffer whose hit list is in host memory: one upload for up to as many launches. */
#define LBUF_RING 8u

/* Hit list entries: two per entry (a read and a write bit), at most LBUF_LIST_MAX. */
#define LBUF_LIST_MAX 1024u

static inline uint32_t lbuf_list_cap(const struct lbuf *b)
{
	return b->cap >= GMP_LIST_MAX_ENTRY ? 0 : b->cap < LBUF_LIST_MAX / 2 ? (uint32_t)(2 * b->cap)
										: LBUF_LIST_MAX;
}

/* Header slots: LBUF_RING with the hit list in host memory (unless GMPROF_FALLBACK=launch-headers), else 1. */
static inline uint32_t lbuf_ring(const struct lbuf *b)
{
	return b->host_list && !(gmp_col.opts.fallback & GMP_FALLBACK_LAUNCH_HEADERS) ? LBUF_RING : 1;
}

/* 8-byte aligned: the launch struct's size and the list's are multiples of 8. */
static inline size_t lbuf_hints_off(const struct lbuf *b)
{
	return (size_t)lbuf_ring(b) * GMP_PATCH_LAUNCH_SIZE + (b->host_list ? 0 : (size_t)lbuf_list_cap(b) * 4);
}

static inline size_t lbuf_hits_off(const struct lbuf *b)
{
	return lbuf_hints_off(b) + (b->hints ? GMP_HINTS * sizeof(uint64_t) : 0);
}

static inline size_t lbuf_heap_off(const struct lbuf *b)
{
	return (lbuf_hits_off(b) + b->cap * 4 + 7) & ~(size_t)7;
}

static inline size_t lbuf_bytes(const struct lbuf *b)
{
	return lbuf_heap_off(b) + b->heap_cap * sizeof(struct gmp_patch_heap_record);
}

struct pending {
	uint64_t ev;
	uint64_t seq;             /* order in which launches were enqueued; 0: not yet */
	Sanitizer_StreamHandle hs;
	Sanitizer_StreamHandle hwait; /* the stream whose sync covers it: hs, or a graph node's launching stream */
	struct lbuf buf;
	struct snapshot *snap;
	CUfunction fn;
	uint32_t mode;
	uint8_t *mapped;          /* intra: per entry, whether it has maps (khist.c); NULL: all */
	void *maps;               /* intra: device block of maps, or stream records */
	size_t maps_bytes;
	size_t maps_cap;          /* the block's size: a reused one may be larger */
	uint64_t io_snap;         /* the snapshot whose table of maps (intra_obj) the block holds: 0 none */
	/* What a harvest read back (outside the lock), for its commit (inside). */
	struct gmp_access *acc;
	size_t nacc;
	struct gmp_touch_vec tv;  /* tv.n == SIZE_MAX: touches unknown */
	struct gmp_event kev;     /* the launch's event as recorded (in-kernel heap ops copy it) */
	uint64_t *tex;            /* objects textures may read through in it (tex_live), ntex of them */
	size_t ntex;
	struct gmp_patch_heap_record *heap; /* malloc()/free() calls read back */
	size_t nheap;
	uint64_t heap_lost;       /* calls whose records did not fit */
	int read;                 /* 1 read, 0 the read failed, -1 out of host memory */
	int unread;               /* its stream could not be waited for (wait_streams): not read */
};

/* Bytes of the intra maps of an object of size bytes: its bitmap, then its counters. */
static inline size_t maps_len(uint64_t size, unsigned gs, unsigned cs)
{
	return 4 * (gmp_maps__bitmap_words(size, gs) + gmp_maps__counters(size, cs));
}

/* Whether a launch's entry i has intra maps in its block. */
static inline int has_maps(const struct pending *p, size_t i)
{
	return !p->mapped || p->mapped[i];
}

struct gmp_ctx_state {
	CUcontext ctx;
	uint32_t device;
	int patches;              /* 0 not yet, 1 loaded, -1 failed */
	int patching;             /* a thread is patching a module of it: others wait (patch_done) */
	int heap;                 /* device-side malloc/free were patched in some module */
	struct snapshot *cur;
	struct tbase *base;       /* the base of the next tables */
	uint32_t bases;           /* bases built so far */
	uint64_t snaps;           /* snapshots made so far */
	struct gmp_u64map khist;  /* kernel and object start -> 1: what kernels touched (khist.c) */
	struct gmp_u64map klast;  /* kernel -> the base of its last launch collected */
	struct lbuf *free;
	size_t nfree, free_cap;
	size_t lbuf_out;          /* bytes of the launch buffers out of the pool (pending launches') */
	struct pending *pend;
	size_t npend, pend_cap;
	size_t snap_bytes;        /* held by live snapshots: bounded by SNAP_LIMIT */
	CUmodule *patched;
	size_t npatched, patched_cap;
	CUmodule *wanted;         /* GMPROF_PATCH_AT=launch: to patch once the API call returns */
	size_t nwanted, wanted_cap;
	CUmodule *loaded;         /* GMPROF_PATCH_AT=launch: every module loaded (dev_patch_all) */
	size_t nloaded, loaded_cap;
	struct gmp_dev_block {    /* device (or pinned host) memory to free once the lock is released */
		void *dev;
		size_t bytes;
		int host;         /* sanitizerAllocHost's: sanitizerFreeHost */
	} *garbage;
	size_t ngarbage, garbage_cap;
	struct spare {            /* intra maps blocks kept for the next intra launches */
		void *dev;
		size_t cap;
		uint64_t io_snap; /* as pending's: the table of maps it holds, for every entry */
	} *spares;
	size_t nspares, spares_cap, spare_bytes;
	struct tcopy *tspares;    /* table blocks kept for the next tables, by stream */
	size_t ntspares, tspares_cap, tspare_bytes;
	struct hpiece {           /* pieces of pinned slabs given back, for the next hit lists (lbuf.c) */
		void *p;
		size_t bytes;
	} *hfree;
	size_t nhfree, hfree_cap;
	void **slabs;             /* pinned host slabs hit lists are carved from, freed at the context's end */
	size_t nslabs, slabs_cap;
	char *slab_at;            /* the newest slab's part not yet carved */
	size_t slab_left;
	int slab_failed;          /* sanitizerAllocHost refused a slab: hit lists stay on the device */
	pthread_mutex_t stage_lock; /* the staging buffer, used with gmp_col.lock released (lbuf.c) */
	void *stage;              /* pinned host memory large reads go through, or NULL */
	int stage_failed;         /* sanitizerAllocHost refused it: reads go straight to their buffers */
};

/* Which pending launches a harvest may take (see dev_harvest_stream). */
#define HV_ANY UINT64_MAX       /* also launches not yet enqueued (teardown) */
#define HV_ENQUEUED (UINT64_MAX - 1)

/*
 * The time the lock is released for Sanitizer calls counts as one part of
 * the collector's time (GMP_ST_CALLS, _PATCH or _WAIT: dev_unlock_for),
 * added when the lock is taken back (st_lock: a wait for it counts as
 * GMP_ST_LOCK).  A span may change its part once (dev_span_to).
 */
extern _Thread_local struct dev_span {
	uint64_t t0, done_ns;
	int part, done_part;
} dev_span;

static inline void dev_unlock_for(int part)
{
	pthread_mutex_unlock(&gmp_col.lock);
	dev_span.part = part;
	dev_span.done_ns = 0;
	dev_span.t0 = st_now();
}

static inline void dev_unlock(void)
{
	dev_unlock_for(GMP_ST_CALLS);
}

/* With the lock released: what follows counts as part instead. */
static inline void dev_span_to(int part)
{
	uint64_t t = st_now();
	dev_span.done_part = dev_span.part;
	dev_span.done_ns = t - dev_span.t0;
	dev_span.part = part;
	dev_span.t0 = t;
}

static inline void dev_lock(void)
{
	uint64_t t = st_now();
	st_lock(t);
	st_add(dev_span.part, t - dev_span.t0);
	if (dev_span.done_ns)
		st_add(dev_span.done_part, dev_span.done_ns);
}

/*
 * patching.c (lock held, released meanwhile): patches a module that loaded,
 * unless GMPROF_PATCH_AT=launch waits for its first monitored launch;
 * dev_ready says whether a launch of the module can be monitored (under
 * GMPROF_PATCH_AT=launch, whether its launch call patched it).
 */
void dev_patch_loaded(struct gmp_ctx_state *s, CUmodule module);
int dev_ready(struct gmp_ctx_state *s, CUmodule module);
/* GMPROF_PATCH_AT=launch or range: patches module before a launch (dev_launch_call). */
void dev_patch_early(struct gmp_ctx_state *s, CUmodule module);
/* The same before a graph launch (dev_graph_call): every module s loaded. */
void dev_patch_all(struct gmp_ctx_state *s);
/* From a graph launch's driver call as it begins (lock not held): dev_patch_all when it will be monitored. */
void dev_graph_call(CUcontext ctx);
/* A context's state; NULL when gmprof has none for it. */
struct gmp_ctx_state *dev_find_state(CUcontext ctx);
/* GMPROF_PATCH_AT=range: a launch waits here while modules are being unpatched (dev_unpatch). */
void dev_unpatch_wait(void);

/* 0, or -EIO after saying once that what failed leaves launches unmonitored. */
int dev_check(SanitizerResult r, const char *what);
void dev_out_of_memory(const char *what);
/* Device memory to free with the lock released (dev_collect_garbage). */
void dev_free_later(struct gmp_ctx_state *s, void *dev, size_t bytes);
/* Counts device memory the collector allocated (gmp_col.dev_bytes and dev_peak): lock held. */
void dev_allocated(size_t bytes);
/* A launch's maps block back: kept as the spare for the next intra launch, or freed later. */
void dev_put_maps(struct gmp_ctx_state *s, struct pending *p);
/* Frees the garbage list; releases the lock meanwhile. */
void dev_collect_garbage(struct gmp_ctx_state *s);
/* tables.c: the current tables, with a reference for the caller (NULL: out of memory). */
struct snapshot *dev_current_table(struct gmp_ctx_state *s);
/*
 * Its tables on the device for launches on stream hs: the base's copy in
 * *base, the recent table's in *recent (NULL when it has no objects).
 * Nonzero on failure (said).
 */
int dev_tables_on(struct gmp_ctx_state *s, struct snapshot *sn, Sanitizer_StreamHandle hs, void **base,
		  void **recent);
void dev_snap_put(struct gmp_ctx_state *s, struct snapshot *sn);
/*
 * khist.c: for a launch of kernel fn in intra mode whose maps for every
 * entry would take full_bytes, which entries get maps: every one (KH_ALL),
 * those *mask says (KH_MASK: malloc'd, a byte per entry), or none
 * (KH_NONE: the launch is monitored at object level).
 */
enum { KH_ALL, KH_MASK, KH_NONE };
int khist_plan(struct gmp_ctx_state *s, const struct snapshot *sn, CUfunction fn, size_t full_bytes,
	       uint8_t **mask);
/* What a collected launch touched, remembered for its kernel. */
void khist_learn(struct gmp_ctx_state *s, const struct pending *p);
void khist_release(struct gmp_ctx_state *s);
/* The current tables, their base and the spare blocks, at the context's end. */
void dev_release_tables(struct gmp_ctx_state *s);
/* lbuf.c: a launch buffer for n entries, from the pool or allocated (lock released meanwhile); back to the pool. */
int dev_get_buffer(struct gmp_ctx_state *s, size_t n, struct lbuf *out);
void dev_put_buffer(struct gmp_ctx_state *s, struct lbuf b);
/* The pooled launch buffers, to free with the garbage (the context's end). */
void dev_release_buffers(struct gmp_ctx_state *s);
/*
 * Reads n bytes of the context's device memory at src into dst in stream
 * hs's order, through the context's pinned staging buffer where n is large
 * (lbuf.c).  Lock released.  0, or -EIO after saying once that what failed
 * leaves launches unmonitored (dev_check, naming what).
 */
int dev_read(struct gmp_ctx_state *s, void *dst, void *src, size_t n, Sanitizer_StreamHandle hs, const char *what);
/*
 * The staging buffer itself, for a reader that reads n bytes into it and
 * parses them there (no copy on into memory of its own): NULL when n is
 * under what goes through it or more than it holds, when another thread's
 * read uses it, or when there is none.  Given back with dev_stage_give;
 * dev_read into it meanwhile copies straight in.  Lock released.
 */
void *dev_stage_take(struct gmp_ctx_state *s, size_t n);
void dev_stage_give(struct gmp_ctx_state *s);
/* The staging buffer, to free with the garbage (the context's end): lock held. */
void dev_release_stage(struct gmp_ctx_state *s);

/* harvest.c: each releases the lock while it waits and reads. */
size_t dev_harvest_stream(struct gmp_ctx_state *s, Sanitizer_StreamHandle hs, int all,
			  uint64_t horizon, int wait);
/* Waits for the oldest launch's stream, collects what it completed: 1 some, 0 none, -1 failed. */
int dev_collect_oldest(struct gmp_ctx_state *s);
/* A launch taken off the queue: wait for its stream, read it, commit it. */
void dev_harvest_now(struct gmp_ctx_state *s, struct pending *p);
/* Everything still pending on s. */
void dev_drain(struct gmp_ctx_state *s);

/* graphdata.c, lock held: li->crossed, and the launch issuing, at its begin; counts it as recorded (monitored or not). */
void dev_graph_launch_begins(struct gmp_launch_info *li);
void dev_graph_recorded(const struct gmp_launch_info *li, int monitored);
/* Sets li->fn_data for a monitored launch: whether its buffer is set as its function's data. */
void dev_graph_choose_data(struct gmp_launch_info *li);
/* Sets a launch's buffer for its patches (lock released); 0, or -EIO said once. */
int dev_set_data(const struct gmp_launch_info *li, void *buf);
/* Its META counts (at the exit). */
void dev_graph_meta(void);

#endif
