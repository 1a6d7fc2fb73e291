/* SPDX-License-Identifier: MIT */
/*
 * The collector's state and its internal interfaces.  One collector per
 * process (the Sanitizer API allows one subscriber).  Every field below
 * `lock` is guarded by it; callbacks take it, do little, and let it go.
 *
 *   inject.c     entry points (InitializeInjection, the constructor), exit
 *   callbacks.c  the Sanitizer callback: cbdata -> recorder and device calls
 *   cblog.c      GMPROF_LOG_CALLBACKS: what the Sanitizer delivers, on stderr
 *   recorder.c   events into the profile and the in-memory trace, streams,
 *                live objects, the flusher thread, online detection at exit
 *   device.c     patches, object tables, launch buffers (device.h: locking)
 *   harvest.c    reading monitored launches back
 *   kfilter.c    which launches intra-object mode monitors
 *   selftime.c   the collector's record of its own time
 */
#ifndef GMPROF_COLLECTOR_H
#define GMPROF_COLLECTOR_H

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "callpath.h"
#include "gmprof/profile.h"
#include "options.h"
#include "san.h"
#include "selftime.h"
#include "u64map.h"

struct gmp_ctx_state;
struct gmp_kfilter;
struct gmp_objmap;

struct gmp_collector {
	struct gmp_opts opts;
	struct gmp_san san;
	Sanitizer_SubscriberHandle sub;
	int active;               /* subscribed and recording */
	char patch_path[PATH_MAX];

	pthread_mutex_t lock;
	pthread_mutex_t patch_lock; /* the Sanitizer's patching calls, one thread at a time (recursive) */
	struct gmp_writer *w;
	struct gmp_trace *trace;  /* the same events, for online detection (NULL: off) */
	char path[PATH_MAX];      /* the profile */
	int write_failed;         /* the profile cannot be written: stop, keep the program going */
	int closed;
	int closing;              /* rec_close is draining the device side */
	uint64_t t0_ns;
	struct gmp_callpath *cp;
	uint64_t *pcs;            /* scratch for call paths (opts.depth) */
	/* streams: CUstream (or per-thread key) -> number */
	struct gmp_u64map streams;
	uint32_t next_stream;
	struct gmp_u64map blocking; /* stream number -> 1: a blocking stream (the legacy stream's syncs cover it) */
	/* contexts: CUcontext -> device ordinal */
	struct gmp_u64map ctx_device;
	/*
	 * Live device objects, disjoint ranges in an ordered map (live.c):
	 * O(log n) to add, remove and look up, wherever the driver places
	 * them; object tables are built from them.  obj: a slot of live_info.
	 */
	struct gmp_objmap *live;
	struct gmp_live_info {
		uint32_t device;
		uint32_t ev;      /* its ALLOC event (UINT32_MAX: unknown) */
		uint8_t kind;     /* enum gmp_mem_kind */
	} *live_info;
	size_t live_info_n, live_info_cap;
	uint32_t *live_free;      /* slots of live_info to reuse */
	size_t live_free_n, live_free_cap;
	size_t tab_n;             /* live objects */
	uint64_t live_version;    /* bumped on every change */
	/*
	 * The allocations and frees behind the latest changes, for object
	 * tables built from the previous ones (tables.c): live_log[k] made
	 * live_version live_log_v0 + k + 1.  Changes not logged (NVTX regions)
	 * restart it; so does a full log.
	 */
	struct gmp_live_change {
		uint64_t start, end;
		int freed;
	} *live_log;
	size_t live_log_n;
	uint64_t live_log_v0;
	uint64_t enqueue_seq;     /* launches enqueued so far (atomic) */
	int profiling;            /* GMP_CAPTURE_PROFILER: between the program's
				     cudaProfilerStart and cudaProfilerStop (atomic) */
	uint64_t launches;        /* GMP_CAPTURE_LAUNCHES: the program's launches so far (lock) */
	/*
	 * GMPROF_PATCH_AT=range (patching.c): every launch's LAUNCH_BEGIN and
	 * LAUNCH_END callbacks so far (atomic, changed with the lock held;
	 * counted under range only);
	 * whether modules are being unpatched, which launches wait out (lock,
	 * the condition variable); how many modules were unpatched (lock).
	 */
	uint64_t launch_begins, launch_ends;
	int unpatching;
	pthread_cond_t unpatched;
	pthread_cond_t patch_done; /* a thread ended its patching of a context (patching.c; lock) */
	uint64_t unpatches;
	uint32_t graph_launches;  /* graph launches so far: each one's number (lock) */
	uint64_t api_callbacks;   /* atomic: API callbacks taken (enter and exit), added by 256 (cb_api_callbacks) */
	int patch_wanted;         /* atomic: some context has modules to patch after a call (patching.c) */
	struct gmp_ctx_state **ctxs;
	size_t nctxs, ctxs_cap;
	struct gmp_kfilter *kf;   /* kept for the process: a launch on another thread may consult it after exit */
	/* the flusher thread */
	pthread_t flusher;
	pthread_cond_t wake;
	int flusher_running, stop;
	uint64_t events_since_flush;
	int64_t last_device_sync; /* the last event was a device sync of this device, or -1 */
	struct gmp_objmap *heap;  /* live device-heap objects (malloc() in kernels) */
	struct gmp_objmap *regions; /* live NVTX regions (nvtx.c); obj: their heap's number */
	uint64_t heap_lost;       /* in-kernel malloc()/free() calls whose records were lost */
	uint64_t described[4];    /* devices 0 to 255 whose META records are written (a bit each) */
	int cuda_described;       /* the META cuda is written */
	uint64_t dev_bytes, dev_peak; /* device memory the collector holds, and at most held */
	uint64_t fails, fails_lost;   /* allocations that ran out of memory; those not recorded */
	struct gmp_selftime self; /* where the collector's time went (st_add) */
	uint64_t self_t0;         /* st_now() when the collector started */
};

extern struct gmp_collector gmp_col;

/* ---- selftime.c: the collector's own time (META collector_time; callers hold gmp_col.lock) ---- */
uint64_t st_now(void);
/* At the exit that began at t_exit (st_now()): writes the META. */
void st_record(uint64_t t_exit);
/* Adds ns to part, and one to its count. */
static inline void st_add(int part, uint64_t ns)
{
	gmp_col.self.ns[part] += ns;
	gmp_col.self.n[part]++;
}
/* Adds the time since t0 (st_now()) to part. */
static inline void st_since(int part, uint64_t t0)
{
	st_add(part, st_now() - t0);
}
/*
 * Takes gmp_col.lock; a wait for it (another thread held it) counts as
 * GMP_ST_LOCK from t (st_now()), an uncontended take costs no clock read.
 */
static inline void st_lock(uint64_t t)
{
	if (pthread_mutex_trylock(&gmp_col.lock)) {
		pthread_mutex_lock(&gmp_col.lock);
		st_since(GMP_ST_LOCK, t);
	}
}

/* ---- recorder.c (callers hold gmp_col.lock) -------------------------------- */
/* Creates the profile; on failure one sentence is in err. */
int rec_open(char *err, size_t errn);
/* Names the profile in gmprof run's list (GMPROF_RUN_MANIFEST), once the collector is subscribed. */
void rec_list_for_run(void);
/* Flushes, runs the online detector (clean) and closes; idempotent. */
void rec_close(int clean);
/* ns since the run began. */
uint64_t rec_now(void);
/* Captures this thread's call path into the profile: its STACK id, 0 for none, or -1. */
int64_t rec_stack(void);
/* Appends an event; name may be NULL; the call path is captured when stack is set. */
int64_t rec_event(struct gmp_event *e, const char *name, int stack);
/* A write error ends recording, once, with one sentence; the program runs on. */
void rec_write_failed(int err);
/* The online detector (online.c), lock held: event idx, as recorded, into its trace; at a
   clean close, its run, its findings into the profile and the summary on stderr. */
void rec_online_add(const struct gmp_event *e, const char *name, int64_t idx);
void rec_online(void);
/* Out of memory for the online trace: it is given up, with one sentence; the profile goes on. */
void rec_online_lost(void);
/* Past GMPROF_ONLINE_EVENTS of what ("events", "NVTX marks"): the online trace is given up, with one sentence. */
void rec_online_capped(const char *what);
/* A mark of thread tid at host_ns into the online trace (lock held). */
void rec_online_mark(uint32_t tid, uint64_t host_ns, const char *name);
/* A META record (run metadata): lock held. */
void rec_meta(const char *key, const char *value);
/* What the driver says of a device (driver.c); "" and 0 where it did not say. */
struct gmp_device_desc {
	char name[96];
	char cuda[16];   /* the driver's CUDA version, "13.0" */
	uint64_t memory; /* bytes */
	int cc_major, cc_minor; /* compute capability (0: not known) */
};
/* Its META records (device.N.name, device.N.memory, cuda), once per device: lock held. */
void rec_device_desc(uint32_t device, const struct gmp_device_desc *d);
/* Names the allocation of ALLOC event ev (a LABEL record; the online trace too): lock held. */
void rec_label(uint64_t ev, const char *label);
/* ALLOC event ev's allocation was shared with other processes (an EXPORTED record; the online trace too): lock held. */
void rec_exported(uint64_t ev);
int rec_accesses(uint64_t ev, const struct gmp_access *acc, size_t n);
int rec_touches(uint64_t ev, const struct gmp_touch *t, size_t n);
/*
 * malloc() (size > 0) and free() (size 0) calls inside the launch recorded
 * as event kev (k: its event as recorded), in the order the device took
 * them; lost: calls whose records did not fit.  Written as in-kernel
 * alloc/free events of device_heap objects.
 */
struct gmp_patch_heap_record;
void rec_heap(const struct gmp_event *k, uint64_t kev, const struct gmp_patch_heap_record *h,
	      size_t n, uint64_t lost);
/* A stream handle's number (0: the legacy default stream), given at its first sight. */
uint32_t rec_stream(uint64_t handle);
/* The same for a handle a call named (not the thread's call in progress: its end). */
uint32_t rec_stream_in(uint64_t handle, const char *call);
/* A stream was made (STREAM_CREATED): a new number, even for a handle seen before. */
void rec_stream_created(uint64_t handle, uint32_t device);
/* The flags the call that made it was given (GMP_STREAM_*): written as its STREAM record. */
void rec_stream_flags(uint64_t handle, uint32_t device, uint32_t flags);
/* Whether stream number n is known to be blocking (lock held). */
int rec_stream_blocking(uint32_t n);
void rec_context(CUcontext ctx, uint32_t device);
uint32_t rec_device(CUcontext ctx);
/*
 * A device object comes or goes (for copies and the patch tables), with its
 * ALLOC event (negative: none recorded).  The caller has ended the live
 * objects it overlaps.  Adding returns -ENOMEM (the profile is then
 * stopped, with one sentence) when memory ran out.
 */
int rec_live_add(uint64_t addr, uint64_t size, uint32_t device, int64_t ev, uint8_t kind);
int rec_live_remove(uint64_t addr);
/* The ALLOC event of the live object starting at addr, or UINT32_MAX; *kind (when not NULL) its kind. */
uint32_t rec_live_event(uint64_t addr, uint8_t *kind);
/* The device of the live object containing addr, or UINT32_MAX. */
uint32_t rec_live_device(uint64_t addr);
/* 1 when [addr, addr+size) lies inside one live object. */
int rec_is_device(uint64_t addr, uint64_t size);
/* The live object with the largest start <= addr: 1 and its bounds (end may be NULL), or 0. */
int rec_live_floor(uint64_t addr, uint64_t *start, uint64_t *end);
/* Calls fn for every live object in address order; stops early when fn returns nonzero. */
int rec_live_each(int (*fn)(void *ctx, uint64_t start, uint64_t end, uint32_t device), void *ctx);
/* The live objects' bounds, in address order, into start[tab_n] and end[tab_n]. */
void rec_live_copy(uint64_t *start, uint64_t *end);
/* Writes what is buffered (signal handlers: only when the lock is free). */
void rec_flush_now(void);
/* Prints one line "gmprof: ..." on stderr (the collector talks to the user only so). */
void rec_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * ---- driver.c: the CUDA driver's own functions, for the collector's use:
 * no collector lock held, the re-entry guard set; 0 or -1 (not found, or the
 * driver said no) -------------------------------------------------------------
 */
int drv_mem_info(uint64_t *free_bytes, uint64_t *total_bytes);
int drv_describe(uint32_t device, struct gmp_device_desc *d);
/*
 * The module a launched function is in (cuFuncGetModule; for a kernel handle
 * launched as a function, of cuKernelGetFunction's function): 0, or -1.
 */
int drv_func_module(CUfunction f, CUmodule *module);
/* A pool's attribute (GMP_POOL_ATTR_*, alloc_api.h: each a cuuint64_t): cuMemPoolGetAttribute. */
int drv_pool_attr(CUmemoryPool pool, int attr, uint64_t *value);
/* Where parameter i of function f (or kernel handle) lies: cuFuncGetParamInfo; -1 past the last or unknown, -2 no such call. */
int drv_param_info(CUfunction f, size_t i, size_t *off, size_t *size);
/* The pool cudaMallocAsync takes from on device (cuDeviceGetMemPool). */
int drv_device_pool(uint32_t device, CUmemoryPool *pool);
/* The allocation ptr falls in, as the driver has it (cuMemGetAddressRange_v2): its start and bytes. */
int drv_address_range(uint64_t ptr, uint64_t *base, uint64_t *size);
/* A CUDA array's dimensions and element format (cuArray3DGetDescriptor_v2). */
struct gmp_array3d_desc;
int drv_array_desc(CUarray a, struct gmp_array3d_desc *d);

/*
 * ---- arrays.c: CUDA arrays (cudaMallocArray, cuArray3DCreate): device
 * memory that kernels reach through textures and surfaces ------------------
 */
/* Lock held: the Sanitizer's ARRAY_CREATED; recorded by arrays_record, once described. */
void arrays_created(const Sanitizer_ResourceArrayData *ad);
/* Whether this thread has arrays made since its last arrays_record (no lock needed). */
int arrays_due(void);
/* No lock held, the re-entry guard set: asks the driver for each new array's format. */
void arrays_describe(void);
/* Lock held: an ALLOC event for each new array described, labelled api (may be NULL). */
void arrays_record(const char *api);
/* Lock held: the Sanitizer's ARRAY_DESTROYED; a FREE event unless its context is being torn down. */
void arrays_destroyed(const Sanitizer_ResourceArrayData *ad, int dying);

/*
 * ---- streams.c, queries.c: what the end of the program's calls tells ------
 */
/*
 * The end of the program's outermost runtime or driver call fn (ok: it
 * returned success), with its parameters: texture objects (textures.c),
 * the streams it made (streams.c), and the work a query found finished
 * (queries.c).
 */
void calls_ended(const char *fn, const void *params, CUcontext ctx, int ok);
/*
 * No lock held: the end of the thread's outermost call that made sync event
 * *sync_ev (-1: none): a RETURNED record stamps when the call returned, when
 * what it waited for is known finished (a sync is stamped as it begins).
 * Sets *sync_ev to -1.
 */
void call_returned(int64_t *sync_ev);
/* No lock held: a successful event or stream query, recorded as the sync it stands for. */
void query_call(const char *fn, const void *params, CUcontext ctx, int ok);
/* Lock held: event recorded on stream (hs, number) of ctx, after the launches enqueued so far. */
void query_recorded(uint64_t event, CUcontext ctx, Sanitizer_StreamHandle hs, uint32_t stream);
/* Lock held: STREAM_CREATED's data. */
void stream_created(const Sanitizer_ResourceStreamData *sd);
/* nvtxNameCudaStreamA/W and nvtxNameCuStreamA/W (the handles are the same): a stream's name. Takes gmp_col.lock. */
void nvtx_name_stream_a(const void *stream, const char *name);
void nvtx_name_stream_w(const void *stream, const wchar_t *name);
/* The thread's outermost runtime or driver call in progress (NULL: none). */
extern __thread const char *cb_api_name;
/*
 * The thread's outermost runtime or driver call in progress, numbered
 * (0: none): events recorded in one call share its call path (rec_stack).
 */
uint64_t cb_api_call(void);
/* The Sanitizer's callback of every domain the collector subscribes to (callbacks.c). */
void gmp_sanitizer_callback(void *userdata, Sanitizer_CallbackDomain domain,
			    Sanitizer_CallbackId cbid, const void *cbdata);

/*
 * ---- textures.c: texture objects over linear memory, whose reads the
 * device patches do not see --------------------------------------------------
 */
/*
 * No lock held: the end of the program's call fn (params its parameters,
 * ok: it succeeded); a texture object made over a tracked object, or
 * destroyed, when fn is cudaCreateTextureObject, cuTexObjectCreate or
 * their Destroy.
 */
void tex_call(const char *fn, const void *params, CUcontext ctx, int ok);
/* Lock held: the object at addr is freed; textures over it read it no more. */
void tex_object_freed(uint64_t addr);
/* Lock held: the context is torn down, with its textures. */
void tex_context_gone(CUcontext ctx);
/* Lock held: the starts of the objects the device's textures read (malloc'd; NULL, *n 0: none). */
uint64_t *tex_live(uint32_t device, size_t *n);
/* A read of each of objs added to acc (n entries, address order kept): 0 or -ENOMEM. */
int tex_reads(const uint64_t *objs, size_t nobjs, struct gmp_access **acc, size_t *n);

/* ---- tensormaps.c: objects kernels read through tensor maps -------------- */
/*
 * No lock held: the end of the program's call fn; a tensor map encoded (or
 * given another address) when fn is one of cuTensorMapEncode*,
 * cuTensorMapReplaceAddress.
 */
void tmap_call(const char *fn, const void *params, CUcontext ctx, int ok);
/* Whether any tensor map is known (a launch's parameters are then read). */
int tmap_any(void);
/*
 * No lock held, re-entry guard set: the enter of a driver launch call fn:
 * the objects of the tensor maps among its kernel's parameters, kept for
 * this thread's next launch.
 */
void tmap_launch_call(const char *fn, const void *params);
/* Lock held: the objects this thread's launch reads through tensor maps, added to objs (n of them): 0 or -ENOMEM. */
int tmap_take(uint64_t **objs, size_t *n);
/* Lock held: ctx is torn down, with its functions: its maps read nothing more. */
void tmap_context_gone(CUcontext ctx);
/* A module is unloaded: what is known of functions' parameters is dropped. */
void tmap_functions_gone(void);
/*
 * Lock held: a monitored kernel node of a graph begins: counted while maps are known
 * (its parameters are not read; an unmonitored launch counts as a use of
 * every live object already).
 */
void tmap_graph_node(void);
/*
 * Lock held, at exit: META tensor_maps, when the program encoded any:
 * "encoded=N launches=M graph_nodes=K", the maps encoded (or given another
 * address), the launches that read objects through them, and the graph
 * kernel nodes launched while maps were known, whose parameters were not read.
 */
void tmap_close(void);

/*
 * ---- pools.c: stream-ordered memory pools (cudaMallocAsync's): what they
 * hold reserved on each device beside the objects in them ------------------
 */
/* Lock held: an allocation came from pool (NULL: the device's current pool) on device. */
void pools_note(CUmemoryPool pool, uint32_t device);
/* Lock held: pool is being destroyed (MEMPOOL_DESTROYING); a context of device is (pool NULL). */
void pools_forget(CUmemoryPool pool, uint32_t device, int whole_device);
/* Whether any allocation came from a pool (no lock needed). */
int pools_any(void);
/*
 * No lock held, the re-entry guard set: asks the driver what the pools
 * hold (device's, or every device's for UINT32_MAX) into s[] (one per
 * device, at most n), returns how many.
 */
size_t pools_sample(uint32_t device, struct gmp_pool_state *s, size_t n);
/*
 * Lock held: records the states (a POOLS record each, and into the online
 * trace), after the events so far; unless always, only those that differ
 * from their device's last one.
 */
void pools_record(const struct gmp_pool_state *s, size_t n, int always);

/* ---- nvtx_ranges.c: NVTX ranges (lock held) ------------------------------- */
/* Before a record of this thread's: its ranges, when they changed since its last one. */
void nvtx_sync_ranges(void);
/* Whether this thread is inside an NVTX range whose name the glob name matches (at any of the depths kept). */
int nvtx_in_range(const char *name);
/* In a forked child (one thread): the lock of the process's ranges, which another thread may have held. */
void nvtx_ranges_in_child(void);

/* ---- nvtx_domains.c: NVTX domains (no lock needed) ------------------------ */
/* nvtxDomainCreateA/W: a handle for the domain (the same for the same name), or NULL; Destroy keeps it. */
void *nvtx_domain_create_a(const char *name);
void *nvtx_domain_create_w(const wchar_t *name);
void nvtx_domain_destroy(void *domain);
/* Once the options are read, before the first NVTX call: sets nvtx_default_recorded. */
void nvtx_domains_init(void);
/* Whether the default domain's ranges and marks are recorded (atomic; read on every push of it, no call). */
extern int nvtx_default_recorded;
/* Whether the domain's ranges and marks go to the profile (GMPROF_NVTX_DOMAIN_INCLUDE/EXCLUDE); NULL: the default. */
int nvtx_domain_recorded(const void *domain);
/*
 * "NCCL:" into buf, to go before the names of domain's ranges and marks
 * (GMPROF_NVTX_DOMAIN_NAMES): its name cut to whole characters to fit n
 * bytes with the colon and a NUL.  Its length; 0 ("") for the default domain.
 */
size_t nvtx_domain_prefix(const void *domain, char *buf, size_t n);
/* A range pushed or begun (mark 0) or a mark made (1) in the domain, recorded or not. */
void nvtx_domain_count(const void *domain, int mark);
/* At exit, lock held: which domains made ranges or marks, and which were left out (META nvtx.domain.K.*). */
void nvtx_domains_meta(void);
/* In a forked child: the domains' lock. */
void nvtx_domains_in_child(void);

/* ---- nvtx_strings.c: NVTX's registered strings (no lock needed) ----------- */
#define GMP_NVTX_NAME_MAX 96 /* bytes of a range's, heap's or region's name kept, its NUL included */
/* The name a string handle the collector gave stands for, or NULL (NULL, or not one of its handles). */
const char *nvtx_registered(const void *handle);
/* In a forked child: the registrations' lock. */
void nvtx_strings_in_child(void);

/* ---- threads.c: host threads' ids and names ------------------------------ */
/* The calling thread's id (gettid), cached per thread. */
uint32_t rec_tid(void);
/* nvtxNameOsThreadA and W: thread tid's name, kept and recorded (META thread.TID.name). Takes gmp_col.lock. */
void nvtx_name_os_thread_a(uint32_t tid, const char *name);
void nvtx_name_os_thread_w(uint32_t tid, const wchar_t *name);
/* The name thread tid was given through NVTX, into buf: 1, or 0 for none. */
int nvtx_thread_name(uint32_t tid, char *buf, size_t n);
/* At the calling thread's (tid's) first event, lock held: its name into the profile. */
void rec_thread_named(uint32_t tid);
/* In a forked child: the names' lock. */
void threads_in_child(void);
/* nvtxDomainRegisterStringA and W: a handle for the name (the same for the same name), or NULL. */
void *nvtx_register_a(const void *domain, const char *s);
void *nvtx_register_w(const void *domain, const wchar_t *s);

/* ---- oom.c: allocations that ran out of memory --------------------------- */
/*
 * No lock held: the outermost API call fn, with parameters params, returned
 * out of memory.  Where fn allocates, records what it asked for, what the
 * driver says is free and what the device's pools hold.
 */
void oom_call(const char *fn, const void *params, CUcontext ctx);
/* Lock held: at close, what was not recorded; at the online summary, each failure. */
void oom_close(void);
struct gmp_result;
void oom_summary(const struct gmp_result *r);

/* ---- nvtx.c: regions of pools announced with NVTX (callers hold gmp_col.lock) ---- */
/*
 * An NVTX name (GMP_NVTX_MESSAGE_ASCII, _UNICODE, or _REGISTERED: a string
 * handle the collector gave) as clean UTF-8 in buf (n bytes), or NULL for
 * none, another type or a handle not the collector's (said once).
 */
const char *nvtx_name(uint32_t type, const void *name, char *buf, size_t n);
/* Ends the live regions inside [start, end) (their pool is being freed). */
void nvtx_end_regions(uint64_t start, uint64_t end);
/* Frees the regions and heaps (the profile is closing). */
void nvtx_release(void);
/* Live regions, which split their pools in the object tables. */
size_t nvtx_region_count(void);
/*
 * The object table's entries: the n live objects [ls[i], le[i]) (sorted),
 * each pool split into its regions and the gaps between them; sorted and
 * disjoint.  start and end have room for n + 2 * nvtx_region_count()
 * entries; returns how many.
 */
size_t nvtx_table_pieces(const uint64_t *ls, const uint64_t *le, size_t n, uint64_t *start, uint64_t *end);

/* CUgraphNodeType values of the driver API. */
enum { NODE_KERNEL = 0, NODE_MEMCPY = 1, NODE_MEMSET = 2, NODE_MEM_ALLOC = 10, NODE_MEM_FREE = 11 };

/*
 * GMPROF_LOG_CALLBACKS=1 (cblog.c): one line on stderr per callback, with
 * the API in progress (api, or NULL) and the memory, streams and graph
 * nodes its data names.
 */
void cb_log(Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid, const void *cbdata, const char *api);
/*
 * The runtime and driver API callbacks taken (META api_callbacks): each
 * thread adds its own every 256, so this counts all of the calling
 * thread's and all but the last 255 or fewer of each other thread's.
 */
uint64_t cb_api_callbacks(void);
/*
 * GMPROF_API_CALLBACKS=needed (api_off.c): whether an API callback of
 * this id and function is to be ignored (a call that makes no GPU work;
 * the id is turned off soon), learning the id on its first call; whether
 * ids wait to be turned off or on; turning them so (the flusher thread,
 * no lock held); META api_callbacks_off and api_callbacks_late at exit.
 */
int api_off_ignored(Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid, const Sanitizer_CallbackData *cd);
int api_off_pending(void);
void api_off_apply(void);
void api_off_meta(void);
/*
 * No lock held: asks the driver what every device's stream-ordered pools
 * hold (the re-entry guard set around it) and records what changed; nothing
 * when no allocation came from a pool.
 */
void cb_pools(void);
/*
 * No lock held: records the CUDA arrays this thread made since its last
 * call (arrays.c), labelled api, the driver asked with the guard set.
 */
void cb_arrays(const char *api);
/* Sets this thread's re-entry guard (the driver's own API callbacks are not the program's): what it was. */
int cb_guard(void);
/* Puts the guard back as cb_guard found it. */
void cb_unguard(int was);

/* ---- device.c, harvest.c (callers hold gmp_col.lock; each may release it
   while it calls the Sanitizer, see device.h) -------------------------------- */
struct gmp_launch_info {
	CUcontext ctx;
	CUmodule module;
	CUfunction function;
	Sanitizer_StreamHandle hstream;
	Sanitizer_LaunchHandle hlaunch;
	Sanitizer_StreamHandle hwait; /* the stream whose sync covers it: hstream, or for a graph's kernel
					 node the stream the graph was launched into */
	const char *name;
	uint64_t ev;              /* set by dev_launch_begin: the kernel's event, or UINT64_MAX */
	int graph_node;           /* a graph's kernel node */
	int fn_data;              /* its buffer set as its function's data (graphdata.c) */
	int crossed;              /* begun while another thread's graph launch held its function's data */
};

void dev_context_created(CUcontext ctx, uint32_t device);
void dev_module_loaded(CUcontext ctx, CUmodule module);
/* A module loaded inside the collector's own driver query (lock not held); those kept, handled (lock not held). */
void dev_module_later(CUcontext ctx, CUmodule module);
void dev_modules_later(void);
/*
 * GMPROF_PATCH_AT=launch or range, from a kernel launch's driver call as it
 * begins (lock not held): patches module when the launch will be monitored.
 * Patching from the launch's own callback can deadlock (patching.c).
 */
void dev_launch_call(CUcontext ctx, CUmodule module);
/* The same from any driver API enter callback (lock not held): a launch's, a graph launch's. */
void dev_api_launch_call(const Sanitizer_CallbackData *cd);
/* A module about to be unloaded (lock held): off the lists of loaded and patched ones. */
void dev_module_unloading(CUcontext ctx, CUmodule module);
/* At the end of an API call (lock not held): patches the modules launches could not (patching.c). */
void dev_patch_wanted(void);
/* Prepares the launch's buffers and records its kernel event e (kind: how it is monitored). */
void dev_launch_begin(struct gmp_launch_info *li, struct gmp_event *e);
void dev_launch_end(const struct gmp_launch_info *li);
/* A graph launch on this thread ended: per-function callback data set for its nodes is taken back. */
void dev_graph_launch_end(void);
/* This thread begins (begins 1, at dev_launch_begin) or ends issuing a launch of fn (graphdata.c; lock held). */
void dev_graph_issuing(CUfunction fn, int begins);
/*
 * Harvests the launches a sync completed: one stream (hs) or all (hs NULL,
 * all DEV_SYNC_ALL), or the legacy default stream's (hs) and, with it, the
 * blocking streams' (all DEV_SYNC_LEGACY: the legacy stream waited for
 * their earlier work), enqueued no later than horizon (the enqueue count when the
 * synchronizing call began); wait: the sync is not known to have finished
 * them when its callback comes (cudaFree's), so their streams are waited
 * for where nothing else would (hit lists in host memory).
 */
void dev_synced(CUcontext ctx, Sanitizer_StreamHandle hs, int all, uint64_t horizon, int wait);
enum { DEV_SYNC_STREAM = 0, DEV_SYNC_ALL = 1, DEV_SYNC_LEGACY = 2 };
/*
 * GMPROF_PATCH_AT=range: after a synchronization of ctx that covered every
 * launch issued (covered), unpatches its modules if the capture range is
 * over and all its monitored launches are collected.
 */
void dev_unpatch(CUcontext ctx, int covered);
/* Before a context goes: harvest everything, free its buffers. */
void dev_context_destroying(CUcontext ctx);
/* At exit: harvest every pending launch of every context. */
void dev_finish(void);

/* ---- kfilter.c ------------------------------------------------------------- */
int gmp_kfilter__new(struct gmp_kfilter **out, uint32_t sample, const char *regex, char *err,
		     size_t n);
/* 1 when this launch of the kernel is monitored in intra mode. */
int gmp_kfilter__take(struct gmp_kfilter *kf, const char *mangled);

#endif
