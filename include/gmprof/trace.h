/* SPDX-License-Identifier: MIT */
/*
 * The gmprof event model: what a CUDA program did to GPU memory, as the
 * collector records it, as an event script describes it, and as the
 * detector reads it.  A trace is an ordered array of events (issue order)
 * plus the side tables they refer to: interned strings, call stacks, the
 * module map, streams and run metadata.
 *
 * Ownership: a struct gmp_trace owns every array and string it holds.
 * Pointers returned by the accessors are borrowed and stay valid until the
 * next call that appends to the same table, or until gmp_trace__free().
 * Functions return 0 or a negative errno; none of them prints.
 */
#ifndef GMPROF_TRACE_H
#define GMPROF_TRACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* String, stack and module ids start at 1; 0 means "none". */
#define GMP_NONE 0u

enum gmp_op {
	GMP_OP_ALLOC = 1,        /* a data object comes to life */
	GMP_OP_FREE = 2,         /* the object at addr is released */
	GMP_OP_MEMCPY = 3,       /* copy size bytes src -> addr (dst) */
	GMP_OP_MEMSET = 4,       /* set size bytes at addr */
	GMP_OP_KERNEL = 5,       /* a kernel launch */
	GMP_OP_SYNC = 6,         /* host waits: device, one stream or one event */
	GMP_OP_EVENT_RECORD = 7, /* cudaEventRecord(value, stream) */
	GMP_OP_EVENT_WAIT = 8,   /* cudaStreamWaitEvent(stream, value) */
	GMP_OP_MAX = 8
};

/* Kinds of allocation (GMP_OP_ALLOC's kind). */
enum gmp_mem_kind {
	GMP_MEM_DEVICE = 0,      /* cudaMalloc, cuMemAlloc */
	GMP_MEM_MANAGED = 1,     /* cudaMallocManaged */
	GMP_MEM_ASYNC = 2,       /* cudaMallocAsync, pool allocations */
	GMP_MEM_POOL_REGION = 3, /* a sub-allocation inside another object (NVTX) */
	GMP_MEM_DEVICE_HEAP = 4, /* malloc() inside a kernel */
	GMP_MEM_ARRAY = 5,       /* a CUDA array (cudaMallocArray, cuArray3DCreate): textures and surfaces */
	GMP_MEM_IMPORTED = 6,    /* another process's memory mapped into this one (cudaIpcOpenMemHandle) */
	GMP_MEM_KIND_MAX = 6
};

/*
 * Objects whose accesses are not analyzed: a device-heap object's (the
 * launch that malloc()s it cannot report its own accesses to it) and a
 * CUDA array's (kernels reach it through texture and surface instructions,
 * which the patches do not see).  They count towards peaks and failures and
 * are reported when leaked; no other pattern is told for them.
 */
static inline int gmp_mem_kind__unanalyzed(unsigned kind)
{
	return kind == GMP_MEM_DEVICE_HEAP || kind == GMP_MEM_ARRAY;
}

/*
 * Objects whose bytes count towards their device's live bytes (the peaks):
 * not a pool region (its bytes are its pool's) nor memory imported from
 * another process (its bytes are the exporter's: this process's mapping of
 * them allocates none).
 */
static inline int gmp_mem_kind__device_bytes(unsigned kind)
{
	return kind != GMP_MEM_POOL_REGION && kind != GMP_MEM_IMPORTED;
}

/* How a kernel launch was monitored (GMP_OP_KERNEL's kind). */
enum gmp_kernel_kind {
	GMP_KERNEL_OBJECT = 0,        /* object level: hit flags only */
	GMP_KERNEL_INTRA_GPU = 1,     /* intra-object maps kept on the GPU */
	GMP_KERNEL_INTRA_STREAM = 2,  /* intra-object access records streamed to the host */
};

/* Read/write bits of accesses and touches. */
#define GMP_RW_READ 0x1u
#define GMP_RW_WRITE 0x2u

/* Event flags (struct gmp_event.flags). */
#define GMP_EF_HAS_DST 0x0001u      /* memcpy: addr is a device object */
#define GMP_EF_HAS_SRC 0x0002u      /* memcpy: src is a device object */
#define GMP_EF_SYNC_STREAM 0x0004u  /* sync: the host waits for one stream */
#define GMP_EF_SYNC_EVENT 0x0008u   /* sync: the host waits for event value */
#define GMP_EF_ACCESS_KNOWN 0x0010u /* kernel: its read/write sets were recorded */
#define GMP_EF_TOUCH_KNOWN 0x0020u  /* kernel: intra-object touches were recorded */
#define GMP_EF_HAS_VALUE 0x0040u    /* memset: value was given */
#define GMP_EF_HAS_LABEL 0x0080u    /* alloc: name holds a user label */
#define GMP_EF_ASYNC 0x0100u        /* memcpy/memset: an *Async call */
#define GMP_EF_IN_KERNEL 0x0200u    /* alloc/free of a device_heap object: malloc() or
				       free() inside the kernel launch at event `value` */
#define GMP_EF_EXPORTED 0x0400u     /* alloc: the object was shared with other processes
				       (cudaIpcGetMemHandle): their use of it is not seen */

/*
 * One GPU API as issued by the host.  64 bytes: the detector's memory
 * budget per event is built on this size, so think before growing it.
 * What an event carries depends on its op, and the fields of different ops
 * share storage: a kernel has acc_off..touch_n and no addr, size, src or
 * value; a memcpy has src and no value; every other op may have value and
 * no src.  Read only the fields of the event's op.
 */
struct gmp_event {
	uint8_t op;          /* enum gmp_op */
	uint8_t kind;        /* alloc: enum gmp_mem_kind; kernel: enum gmp_kernel_kind */
	uint16_t flags;      /* GMP_EF_* */
	uint32_t device;     /* CUDA device ordinal */
	uint32_t stream;     /* stream number: 0 is the legacy default stream */
	uint32_t thread;     /* host thread id (0 unknown) */
	uint32_t stack;      /* call-path id (0 none) */
	uint32_t at;         /* string id of "file:line" (0 none) */
	uint32_t name;       /* kernel: name; alloc: label (0 none) */
	uint32_t line;       /* event script line, 0 for recorded events */
	union {
		struct {     /* every op but kernels */
			uint64_t addr;   /* alloc/free/memset: object address; memcpy: dst */
			uint64_t size;   /* alloc/memcpy/memset: bytes */
			union {
				uint64_t src;    /* memcpy: source address */
				uint64_t value;  /* memset: byte value; event ops and
						    event sync: event id; in-kernel
						    alloc/free: the launch's index */
			};
		};
		struct {     /* kernels */
			uint32_t acc_off;    /* first entry in trace->acc */
			uint32_t acc_n;      /* number of accesses */
			uint32_t touch_off;  /* first entry in trace->touch */
			uint32_t touch_n;    /* number of touches */
			uint32_t graph;      /* the CUDA graph launch it is a kernel node of,
						numbered 1, 2, ... in issue order; 0 none */
		};
	};
	uint64_t host_ns;    /* host clock at issue, ns since the run began (0 unknown) */
};

_Static_assert(sizeof(struct gmp_event) == 64, "struct gmp_event is 64 bytes");

/* An alloc or free made by malloc() or free() inside the launch at event `value`. */
static inline int gmp_event__in_kernel(const struct gmp_event *e)
{
	return (e->op == GMP_OP_ALLOC || e->op == GMP_OP_FREE) && (e->flags & GMP_EF_IN_KERNEL);
}

/*
 * A kernel read and/or wrote the object that contains addr.  12 bytes:
 * large traces hold several per kernel.
 */
struct __attribute__((packed, aligned(4))) gmp_access {
	uint64_t addr;
	uint32_t rw;         /* GMP_RW_* */
};

/* A kernel accessed bytes [addr, addr+size) count times. */
struct gmp_touch {
	uint64_t addr;
	uint64_t size;
	uint64_t count;
	uint32_t rw;         /* GMP_RW_* */
	uint32_t reserved;
};

/* A loaded ELF module, for offline symbolization. */
struct gmp_module {
	uint32_t path;       /* string id */
	uint32_t build_id;   /* string id of the hex build-id (0 unknown) */
	uint64_t base;       /* lowest mapped address */
	uint64_t size;       /* extent of the mapping */
	uint64_t bias;       /* load bias: runtime address - file address */
};

/*
 * A stream the collector saw, or a script's `stream` line.  flags holds
 * CUDA's creation flags (GMP_STREAM_NON_BLOCKING: cudaStreamNonBlocking,
 * CU_STREAM_NON_BLOCKING) and GMP_STREAM_KNOWN when they are known (the
 * collector saw the call that made the stream; earlier collectors wrote
 * 0 for every stream).  A stream whose flags are known and lack NON_BLOCKING is a
 * blocking stream: the legacy default stream (0) of its device and it
 * wait for each other's earlier work (detector/build.c).  The detector
 * reads a stream's flags by its number alone: the collector numbers the
 * streams of all devices as one sequence, and a per-thread default stream
 * (one number per thread) is blocking on every device.
 */
struct gmp_stream_info {
	uint32_t number;     /* the number events use */
	uint32_t device;
	uint64_t handle;     /* CUstream value */
	uint32_t flags;      /* GMP_STREAM_* */
	uint32_t reserved;
};
#define GMP_STREAM_NON_BLOCKING 0x1u
#define GMP_STREAM_KNOWN 0x10000u
/* 1 when s is known to be a blocking stream (see above). */
static inline int gmp_stream__blocking(uint32_t flags)
{
	return (flags & GMP_STREAM_KNOWN) && !(flags & GMP_STREAM_NON_BLOCKING);
}

/*
 * An allocation the program asked for and did not get: the call returned
 * out of memory.  It changes no object; it marks a moment in issue order,
 * after the first `before` events, when the live objects plus the request
 * did not fit on the device.
 */
struct gmp_alloc_failure {
	uint64_t before;     /* events issued before it */
	uint64_t size;       /* bytes requested */
	uint64_t host_ns;    /* host clock, ns since the run began (0 unknown) */
	uint64_t dev_free;   /* the device's free memory, as the driver said right after (0 unknown) */
	uint64_t dev_total;  /* and its total memory (0 unknown) */
	uint32_t device;
	uint32_t stream;
	uint32_t thread;
	uint32_t stack;      /* call-path id (0 none) */
	uint32_t at;         /* string id of "file:line" (0 none) */
	uint32_t api;        /* string id: the call that failed, "cudaMalloc" (0 unknown) */
	uint32_t kind;       /* enum gmp_mem_kind asked for */
	uint32_t line;       /* event script line, 0 for recorded failures */
	uint32_t range;      /* derived (gmp_trace__settle_ranges): its thread's NVTX range path */
	uint32_t reserved;
};

/*
 * The stream-ordered memory pools of a device (cudaMallocAsync's), as the
 * driver said after the first `before` events: the bytes they held reserved
 * on the device and the bytes of those in use by allocations, then and at
 * most so far (each pool's most, summed over its pools), and the largest
 * release threshold among them.  Reserved bytes not in use are cached by a
 * pool: held on the device, though no object lives in them.
 */
struct gmp_pool_state {
	uint64_t before;        /* events issued before it */
	uint64_t reserved;      /* bytes reserved, then */
	uint64_t used;          /* of which in use (never above reserved) */
	uint64_t reserved_high; /* the most reserved so far (never below reserved) */
	uint64_t used_high;     /* the most in use so far (never below used, nor above reserved_high) */
	uint64_t threshold;     /* the largest release threshold among the pools (bytes kept at a sync) */
	uint32_t device;
	uint32_t pools;         /* how many pools (at least 1) */
	uint32_t line;          /* event script line, 0 for recorded ones */
	uint32_t reserved_;
};

/*
 * NVTX ranges: from event `before` on, host thread `thread` issues its calls
 * inside the ranges of path `path` (outermost first; 0: none).  Paths are
 * interned lists of STRING ids (gmp_trace__range_path).
 */
#define GMP_RANGE_DEPTH_MAX 64 /* names in a range path */

struct gmp_range_change {
	uint64_t before;
	uint32_t thread;
	uint32_t path;
};

/*
 * A blocking call's return (1.5): the call that made event `ev` (a sync, a
 * blocking copy's sync) had returned by host time `host_ns`, and with it
 * every earlier call of that event's thread.  The collector stamps a call
 * as it begins; this is when the host knew that what the call waited for
 * had finished.  `before`: the events issued before it was recorded.
 */
struct gmp_return {
	uint64_t before;
	uint64_t host_ns;
	uint32_t ev;
};

/*
 * An NVTX mark (1.6): host thread `thread` marked a moment, named by STRING
 * `name`, at host time `host_ns` (0: unknown), after the first `before`
 * events.  Marks make no GPU work: the Perfetto trace shows them.
 */
struct gmp_mark {
	uint64_t before;
	uint64_t host_ns;
	uint32_t thread;
	uint32_t name;
};

/* Run metadata: owned strings, kept apart from the interned string ids. */
struct gmp_kv {
	char *key;
	char *value;
};

struct gmp_strtab;
struct gmp_u64map;

struct gmp_trace {
	struct gmp_event *ev;
	size_t nev, ev_cap;
	struct gmp_access *acc;
	size_t nacc, acc_cap;
	struct gmp_touch *touch;
	size_t ntouch, touch_cap;
	struct gmp_strtab *strings;
	/* stacks: stack id k (1-based) has pcs[stack_off[k-1] .. stack_off[k]) */
	uint64_t *pcs;
	size_t npcs, pcs_cap;
	uint32_t *stack_off;
	size_t nstacks, stacks_cap;
	struct gmp_module *mods;
	size_t nmods, mods_cap;
	struct gmp_stream_info *streams;
	size_t nstreams, streams_cap;
	struct gmp_kv *meta;
	size_t nmeta, meta_cap;
	int stream_names;        /* some META stream.N.name (gmp_trace__stream_name) */
	struct gmp_alloc_failure *fails; /* in issue order (`before` never decreases) */
	size_t nfails, fails_cap;
	struct gmp_pool_state *pools;    /* in issue order (`before` never decreases) */
	size_t npools, pools_cap;
	struct gmp_return *rets;         /* in issue order (`before` never decreases) */
	size_t nrets, rets_cap;
	struct gmp_mark *marks;          /* in issue order (`before` never decreases) */
	size_t nmarks, marks_cap;
	struct gmp_range_change *rchg;   /* in issue order (`before` never decreases) */
	size_t nrchg, rchg_cap;
	/* range paths: path k (1-based) names rnames[rpath_off[k-1] .. rpath_off[k]) */
	uint32_t *rnames;
	size_t nrnames, rnames_cap;
	uint32_t *rpath_off;
	size_t npaths, rpaths_cap;
	struct gmp_u64map *rpath_ids;    /* hash of a path's names -> its id */
	uint32_t *ev_range;              /* derived: per event, its range path (NULL: no ranges) */
	char *findings_json;     /* online findings stored in a profile, or NULL */
	int ended;               /* the program reached its end (script `end`, clean exit) */
	/* Set by readers: */
	int truncated;           /* the input ended inside a record */
	int damaged;             /* a record failed its checksum or made no sense */
	const char *damage;      /* static text: why the reader stopped early */
	uint64_t bytes_read;     /* bytes of complete, intact records read */
	uint64_t bytes_total;    /* bytes in the input */
	uint64_t unharvested;    /* kernels whose access sets never arrived */
	uint64_t untouched;      /* intra-mode kernels with access sets but no touches */
};

struct gmp_trace *gmp_trace__new(void);
void gmp_trace__free(struct gmp_trace *t);

/*
 * Appends a copy of ev and returns its index, or a negative errno.  For
 * kernels, accesses and touches are appended from the arrays given and
 * acc_off/acc_n/touch_off/touch_n are set; pass NULL/0 when there are none.
 */
int64_t gmp_trace__add_event(struct gmp_trace *t, const struct gmp_event *ev,
			     const struct gmp_access *acc, size_t nacc,
			     const struct gmp_touch *touch, size_t ntouch);

/*
 * Appends a failed allocation.  Returns 0, -EINVAL when f->before is past
 * the events or before an earlier failure's, or when a string or stack id
 * is undefined, or -ENOMEM.
 */
int gmp_trace__add_failure(struct gmp_trace *t, const struct gmp_alloc_failure *f);

/*
 * Appends a pool state.  Returns 0, -EINVAL when s->before is past the
 * events or before an earlier state's, or its numbers contradict each other
 * (struct gmp_pool_state), or -ENOMEM.
 */
int gmp_trace__add_pool_state(struct gmp_trace *t, const struct gmp_pool_state *s);
/*
 * Appends a return: event ev's call had returned by host_ns, after the
 * events so far.  Returns 0, -EINVAL when ev is not an event yet, host_ns
 * is 0 or before the event's own host time, or -ENOMEM.
 */
int gmp_trace__add_return(struct gmp_trace *t, uint32_t ev, uint64_t host_ns);
/*
 * Appends a mark after the events so far.  Returns 0, -EINVAL when name is
 * no string of t, or -ENOMEM.
 */
int gmp_trace__add_mark(struct gmp_trace *t, uint32_t thread, uint64_t host_ns, uint32_t name);
/*
 * Each event's earliest return (any is a true bound; the earliest the
 * tightest): event -> its index in t->rets, into m (initialized).  0 or -ENOMEM.
 */
int gmp_trace__return_index(const struct gmp_trace *t, struct gmp_u64map *m);
/* Device's pool state taken right after the first `before` events (the last such), or NULL. */
const struct gmp_pool_state *gmp_trace__pool_state_at(const struct gmp_trace *t, uint64_t before,
						      uint32_t device);
/* Device's last pool state, or NULL: its pools' most reserved and in use over the run. */
const struct gmp_pool_state *gmp_trace__pool_state_last(const struct gmp_trace *t, uint32_t device);
/* The most device's pools reserved over the run (its last state's), 0 when none was recorded. */
uint64_t gmp_trace__pool_high(const struct gmp_trace *t, uint32_t device);
/* What failure f's device held beside live bytes in the program's objects (total - free - live): 0 unknown. */
uint64_t gmp_trace__held_beside(const struct gmp_alloc_failure *f, uint64_t live);
/*
 * What the pools of failure f's device cached at its moment (reserved, in no
 * object), with live bytes in the program's objects then: 0 when nothing or
 * unknown, or when the device's memory in use beside the objects is less
 * (the pools' counters lag behind the driver, which gives their cache back
 * when an allocation runs out of memory); *stale, unless NULL, gets what the
 * counters said in that case, else 0.
 */
uint64_t gmp_trace__pool_cached(const struct gmp_trace *t, const struct gmp_alloc_failure *f, uint64_t live,
				uint64_t *stale);

/* Interns a range path of n STRING ids (outermost first): its id (>= 1), 0 for n 0, or -errno. */
int64_t gmp_trace__add_range_path(struct gmp_trace *t, const uint32_t *names, size_t n);
/* The names of range path id; returns their count and sets *names (borrowed). */
size_t gmp_trace__range_path(const struct gmp_trace *t, uint32_t id, const uint32_t **names);
/* Appends a range change (before not below the last one's, nor past the events): 0 or -errno. */
int gmp_trace__add_range_change(struct gmp_trace *t, uint64_t before, uint32_t thread,
				uint32_t path);
/*
 * Derives each event's range path (ev_range; an in-kernel heap op takes its
 * launch's) and each failure's, from the changes.  Readers call it once all
 * events are in and placed.  0 or -ENOMEM.
 */
int gmp_trace__settle_ranges(struct gmp_trace *t);
/*
 * Renames the NVTX names: each string id k used as a range name or a mark
 * name becomes map[k] (a string id; k < nmap, or it stays).  The range
 * paths are made again of the new names, so paths that become alike
 * become one; each range change's path and each mark's name follow, and
 * the events' paths are settled again.  0, -EINVAL (a map entry that is
 * no string), or -ENOMEM (the trace is then unchanged).
 */
int gmp_trace__rename_nvtx(struct gmp_trace *t, const uint32_t *map, size_t nmap);
/* Event ev's range path (0: none, or no ranges in t). */
static inline uint32_t gmp_trace__event_range(const struct gmp_trace *t, size_t ev)
{
	return t->ev_range && ev < t->nev ? t->ev_range[ev] : 0;
}
/* "a > b > c": range path id's names joined, into buf; "" for 0. */
const char *gmp_trace__range_text(const struct gmp_trace *t, uint32_t id, char *buf, size_t n);
/* The NVTX ranges event ev was made in, as gmp_trace__range_text writes them. */
static inline const char *gmp_trace__event_range_text(const struct gmp_trace *t, size_t ev, char *buf, size_t n)
{
	return gmp_trace__range_text(t, gmp_trace__event_range(t, ev), buf, n);
}

/* Attaches a kernel's access sets after the fact (deferred harvest). */
int gmp_trace__set_accesses(struct gmp_trace *t, size_t event,
			    const struct gmp_access *acc, size_t nacc);
int gmp_trace__set_touches(struct gmp_trace *t, size_t event,
			   const struct gmp_touch *touch, size_t ntouch);

/*
 * Moves each in-kernel heap op (GMP_EF_IN_KERNEL) to just after its
 * launch, keeping their order, and renumbers `value` (and each failed
 * allocation's `before`) to match.  A
 * collector learns of them only when it reads the launch back, so a
 * profile holds them later in file order; readers call this once all
 * events are in.  Returns 0, -EINVAL when one names no earlier kernel
 * launch, or -ENOMEM (the trace is then unchanged).
 */
int gmp_trace__place_heap_ops(struct gmp_trace *t);

/* Interns s (len bytes, not NUL-terminated) and returns its id (>= 1), or 0 on ENOMEM. */
uint32_t gmp_trace__intern(struct gmp_trace *t, const char *s, size_t len);
uint32_t gmp_trace__intern_cstr(struct gmp_trace *t, const char *s);
/* Looks up an id without interning: returns the id or 0. */
uint32_t gmp_trace__find_string(const struct gmp_trace *t, const char *s, size_t len);
/* The string for id, or "" for 0 and unknown ids; *len may be NULL. */
const char *gmp_trace__str(const struct gmp_trace *t, uint32_t id, size_t *len);
size_t gmp_trace__nstrings(const struct gmp_trace *t);

/* Appends a call stack; returns its id (>= 1) or 0 on ENOMEM. */
uint32_t gmp_trace__add_stack(struct gmp_trace *t, const uint64_t *pcs, size_t n);
/* The PCs of stack id; returns the count and sets *pcs (borrowed). */
size_t gmp_trace__stack(const struct gmp_trace *t, uint32_t id, const uint64_t **pcs);

int gmp_trace__add_module(struct gmp_trace *t, const struct gmp_module *m);
int gmp_trace__add_stream(struct gmp_trace *t, const struct gmp_stream_info *s);
int gmp_trace__set_meta(struct gmp_trace *t, const char *key, const char *value);
/* The value of metadata key, or NULL. */
const char *gmp_trace__meta(const struct gmp_trace *t, const char *key);
/* The name the program gave stream number `stream` through NVTX (META stream.N.name), or NULL. */
const char *gmp_trace__stream_name(const struct gmp_trace *t, uint32_t stream);
/*
 * What the collector recorded of device dev (META device.N.name and
 * device.N.memory, docs/profile-format.md): its name, or NULL; its memory
 * in bytes, or 0 when not recorded or not a decimal count.
 */
const char *gmp_trace__device_name(const struct gmp_trace *t, uint32_t dev);
/* The device's compute capability from META device.N.cc ("9.0"), as 90; 0 when not known. */
int gmp_trace__device_cc(const struct gmp_trace *t, uint32_t dev);
uint64_t gmp_trace__device_memory(const struct gmp_trace *t, uint32_t dev);
/* pct percent of that memory, in bytes (0 unknown). */
uint64_t gmp_trace__device_share_bytes(const struct gmp_trace *t, uint32_t dev, double pct);
/*
 * bytes as a share of that memory, "88.3% of its 79.1 GiB", into buf, or ""
 * when the trace does not record it (reports, the collector's summary).
 */
const char *gmp_trace__device_share(const struct gmp_trace *t, uint32_t dev, uint64_t bytes, char *buf, size_t n);
int gmp_trace__set_findings(struct gmp_trace *t, const char *json, size_t len);

const char *gmp_op__name(unsigned op);          /* "alloc", "kernel", ... */
const char *gmp_mem_kind__name(unsigned kind);  /* "device", "managed", ... */
/* Parses a kind name; returns the kind or -1. */
int gmp_mem_kind__parse(const char *s);

#ifdef __cplusplus
}
#endif
#endif
