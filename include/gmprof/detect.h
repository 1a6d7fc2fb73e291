/* SPDX-License-Identifier: MIT */
/*
 * The gmprof detector: a pure library (no CUDA, no I/O) that turns a
 * trace into findings.  It builds the multi-stream dependency graph
 * (stream order, RAW/WAW/WAR on each object, synchronization), gives every
 * API a timestamp with Kahn's algorithm, classifies the ten patterns of
 * the DrGPUM paper, finds the memory peaks per device and estimates what
 * fixing each finding would save at the peak.
 *
 * Ownership: a result borrows its trace (keep the trace alive while the
 * result is used) and owns everything else it points to.
 */
#ifndef GMPROF_DETECT_H
#define GMPROF_DETECT_H

#include <stddef.h>
#include <stdint.h>

#include "gmprof/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

enum gmp_pattern {
	GMP_PAT_EARLY_ALLOCATION = 0,
	GMP_PAT_LATE_DEALLOCATION,
	GMP_PAT_REDUNDANT_ALLOCATION,
	GMP_PAT_UNUSED_ALLOCATION,
	GMP_PAT_MEMORY_LEAK,
	GMP_PAT_TEMPORARY_IDLENESS,
	GMP_PAT_DEAD_WRITE,
	GMP_PAT_OVERALLOCATION,
	GMP_PAT_NON_UNIFORM_ACCESS_FREQUENCY,
	GMP_PAT_STRUCTURED_ACCESS,
	GMP_PAT_COUNT
};

#define GMP_PAT_ALL ((1u << GMP_PAT_COUNT) - 1)
/* What a trace without the kernels' accesses (gmp_detect_opts.accesses_unknown) still shows. */
#define GMP_PAT_WITHOUT_ACCESSES (1u << GMP_PAT_MEMORY_LEAK)

/*
 * What the host's use of managed memory, which no callback shows, cannot
 * make wrong: what the GPU's accesses alone decide.  The other patterns are
 * not reported on managed objects unless gmp_detect_opts.managed_gpu_only.
 */
#define GMP_PAT_MANAGED_SEEN                                                            \
	((1u << GMP_PAT_MEMORY_LEAK) | (1u << GMP_PAT_NON_UNIFORM_ACCESS_FREQUENCY) | \
	 (1u << GMP_PAT_STRUCTURED_ACCESS))

/*
 * Memory shared between processes: 1 for another process's memory mapped
 * into this one (kind GMP_MEM_IMPORTED: not in the peaks, no findings), 2
 * for this process's memory shared with others (GMP_EF_EXPORTED: their use
 * of it is not seen, so only what GMP_PAT_MANAGED_SEEN names is told), 0
 * for neither.
 */
#define GMP_SHARED_IMPORTED 1
#define GMP_SHARED_EXPORTED 2

/* The patterns mask names that need the kernels' accesses; "all" names none of them in particular. */
static inline uint32_t gmp_patterns__need_accesses(uint32_t mask)
{
	return mask == GMP_PAT_ALL ? 0 : mask & ~GMP_PAT_WITHOUT_ACCESSES;
}

const char *gmp_pattern__name(unsigned p);   /* "early_allocation", ... */
/* Parses a name; returns the pattern or -1. */
int gmp_pattern__parse(const char *s);
/* Parses "all" or a comma list of names into a mask; returns 0 or -EINVAL. */
int gmp_pattern__parse_list(const char *s, uint32_t *mask);

struct gmp_detect_opts {
	uint32_t early_apis;     /* --early-apis: APIs between alloc and first use (1) */
	uint32_t late_apis;      /* --late-apis: APIs between last use and free (1) */
	uint32_t idle_apis;      /* --idle-apis: APIs between two uses (2) */
	double redundant_pct;    /* --redundant-pct: size difference allowed (10) */
	double overalloc_pct;    /* --overalloc-pct: accessed share below this (80) */
	double frag_pct;         /* --frag-pct: fragmentation below this (80) */
	double cv_pct;           /* --cv-pct: coefficient of variation above this (20) */
	uint32_t peaks;          /* --peaks: peaks reported per device (2) */
	uint32_t patterns;       /* --patterns: mask of patterns to report (all) */
	uint64_t min_bytes;      /* --min-size: findings on smaller objects are not
				    reported (0: every one) */
	int managed_gpu_only;    /* --managed-gpu-only: the program's host never reads
				    or writes its managed memory, so every pattern is
				    told on managed objects (0: only GMP_PAT_MANAGED_SEEN,
				    the others counted in gmp_result.nmanaged) */
	int keep_deps;           /* keep each event's object uses in the result (traces, HTML) */
	int accesses_unknown;    /* the kernels' accesses were not recorded (an alloc-mode
				    profile): only leaks are found, each with its last use
				    unknown (ev_a GMP_NO_EVENT), so with no saving */
	int verify_order;        /* also level the whole graph with the general Kahn's
				    algorithm and fail unless it agrees (tests: slower,
				    more memory) */
	/* Kernel names in labels: a malloc'd readable name for a recorded one, or
	   NULL to keep it (the analyzer passes a C++ demangler; NULL: none). */
	char *(*demangle)(const char *name);
};

void gmp_detect_opts__defaults(struct gmp_detect_opts *o);

/*
 * What an event does to an object: result->deps entries are
 * (object << 3) | GMP_DEP_*, kept when gmp_detect_opts.keep_deps is set.
 */
#define GMP_DEP_READ 1u
#define GMP_DEP_WRITE 2u
#define GMP_DEP_RW 3u
#define GMP_DEP_ALLOC 4u
#define GMP_DEP_FREE 5u
#define GMP_DEP_OBJ(d) ((d) >> 3)
#define GMP_DEP_KIND(d) ((d) & 7u)

#define GMP_NO_EVENT UINT32_MAX
#define GMP_NO_OBJECT UINT32_MAX

struct gmp_object {
	uint64_t addr, size;
	uint32_t alloc_ev;       /* event index of its allocation */
	uint32_t free_ev;        /* event index of its free, GMP_NO_EVENT if leaked */
	uint32_t first_ev;       /* first (lowest level) accessing API, or GMP_NO_EVENT */
	uint32_t last_ev;        /* last (highest level) accessing API, or GMP_NO_EVENT */
	uint32_t naccess;        /* APIs that access it, or may: unmonitored included */
	uint32_t device;
	uint32_t kind;           /* enum gmp_mem_kind */
	uint32_t parent;         /* pool regions: the object they live in */
	uint32_t unmonitored;    /* kernel launches with unknown accesses issued while it
				    was live: each counts as a use (first_ev, last_ev and
				    naccess include them) */
	uint32_t flags;          /* GMP_OBJ_* */
};

#define GMP_OBJ_EXPORTED 0x1u    /* its allocation carries GMP_EF_EXPORTED: shared with other processes */

/* A byte range inside an object (offsets from the object's start). */
struct gmp_range {
	uint64_t off, len;
	uint32_t ev;             /* the API that the range belongs to, or GMP_NO_EVENT */
	uint32_t reserved;
};

#define GMP_HIST_BUCKETS 10

/*
 * One idle range of an object: no GPU API uses it between ev_a and ev_b.
 * Its distance is level[ev_b] - level[ev_a].
 */
struct gmp_span {
	uint32_t ev_a, ev_b;
	uint32_t apis_between;
};

/* Bytes of an object per access-count bucket, for one launch. */
struct gmp_hist {
	uint64_t max_count;              /* bucket b holds counts in (b, b+1] * max/BUCKETS */
	uint64_t bytes[GMP_HIST_BUCKETS];
};

/*
 * A finding.  64 bytes: results of large traces hold millions.  Its text
 * (the suggestion) is made on demand by gmp_result__suggestion(); its
 * device peak is in result->devices, and the peak with it fixed is
 * gmp_finding__peak_after().
 */
struct gmp_finding {
	uint32_t pattern;        /* enum gmp_pattern */
	uint32_t object;         /* index into result->objects */
	uint32_t other;          /* redundant: the object it can reuse */
	uint32_t ev_a, ev_b;     /* the APIs that bound it (GMP_NO_EVENT when none);
				    idleness: its longest idle range */
	uint32_t kernel;         /* string id: kernel name (intra-object patterns) */
	union {
		struct {         /* lifetime patterns, dead write, redundant */
			int32_t distance;      /* level difference between ev_a and ev_b */
			uint32_t apis_between; /* GPU APIs whose level lies strictly between */
		};
		struct {         /* overallocation */
			float accessed_pct;
			float frag_pct;
		};
		struct {         /* non-uniform access frequency */
			float cv_pct;          /* the largest over the kernel's launches */
			uint32_t hist;         /* index into result->hists */
		};
	};
	uint64_t bytes;          /* dead write: dead bytes; overallocation: unaccessed;
				    structured: object minus its largest slice */
	uint32_t count;          /* idle ranges; NUAF: launches over the threshold; slices */
	uint32_t total;          /* NUAF/structured: launches of the kernel on the object */
	uint32_t range_off;      /* idleness: into result->spans; others: result->ranges */
	uint32_t range_n;
	uint64_t saving;         /* bytes fixing it removes from its device's peak */
};

struct gmp_peak {
	uint32_t device;
	uint32_t ev;             /* the event that reached the peak */
	uint64_t bytes;
	uint32_t obj_off, obj_n; /* live objects: result->peak_objs[off .. off+n) */
};

/* A change of live bytes on a device, in topological order. */
struct gmp_curve_point {
	uint32_t ev;
	uint32_t device;
	uint64_t live;
};

/*
 * An allocation that failed for lack of memory (trace->fails[fail]) and how
 * its device stood then, in issue order: the objects live on it (pools
 * whole; pool regions and device-heap objects, which live inside other
 * memory, not counted), and what fixing the findings would have freed at
 * that moment.  Only the first GMP_FAILURES_ANALYZED failures are.
 */
#define GMP_FAILURES_ANALYZED 64
#define GMP_FAILURE_LIST 256     /* objects and fixes kept per failure, largest first */

struct gmp_failure {
	uint32_t fail;           /* index into trace->fails */
	uint32_t device;
	uint64_t live_bytes;     /* bytes of the objects live then */
	uint64_t live_objects;   /* how many (obj_n keeps the largest) */
	uint64_t freeable;       /* bytes the fixes would have freed then (each object once) */
	uint32_t obj_off, obj_n; /* result->fail_objs[off .. off+n): largest first */
	uint32_t fix_off, fix_n; /* result->fail_fixes[off .. off+n): most bytes first */
	uint32_t retry_ev;       /* the allocation of at least its size that the same thread then
				    got on the device, within GMP_FAILURE_RETRY events (a caching
				    allocator that freed its cache and retried), or GMP_NO_EVENT */
	uint32_t reserved;
};

#define GMP_FAILURE_RETRY 256

struct gmp_failure_fix {
	uint32_t finding;        /* index into result->findings */
	uint32_t reserved;
	uint64_t bytes;          /* what its fix frees at that moment */
};

struct gmp_device_summary {
	uint32_t device;
	uint64_t peak_bytes;
	uint64_t objects;
	/*
	 * When pools on the device have regions (sub-allocations announced with
	 * NVTX): the peak of the bytes in use, where such a pool counts by its
	 * live regions instead of its own size.  0 when it has none.
	 */
	uint64_t inuse_peak_bytes;
};

/*
 * Several fixes at once, per device (detector/plan.c): the peak with every
 * finding that can free its memory fixed together, and, given a target,
 * findings that bring the peak to it, chosen greedily: while the peak is
 * above the target, the finding that lowers it most.
 */
struct gmp_plan {
	uint32_t device;
	uint32_t findings;        /* its findings whose fixes free device memory (no redundant pairs) */
	uint32_t pairs_left_out;  /* its redundant allocations, which plans leave out */
	uint64_t peak;            /* as measured */
	uint64_t peak_all_fixed;  /* with all of them fixed */
	uint64_t target;          /* the peak to reach (0: none) */
	uint32_t fit_n;           /* target given: that many reach it (UINT32_MAX: no set of them does) */
	uint32_t fit_off;         /* they are fixes[fit_off .. fit_off + fit_n): findings, in the order chosen */
	uint64_t peak_fit;        /* the peak with those fixed */
	uint32_t fit_capped;      /* no plan: more fixes than a plan takes (64) would be needed */
	uint32_t fit_fewest;      /* a plan: no fewer fixes reach the target (0: the search for fewer
				     ended at its bound, and fewer may) */
};

#define GMP_PASSES 10
/* "resolve", "graph", "lifetime", "dead_write", "redundant", "intra", "peaks", "savings", "rank" */
const char *gmp_pass__name(unsigned i);

struct gmp_result {
	const struct gmp_trace *trace;  /* borrowed */
	struct gmp_object *objects;
	size_t nobjects;
	struct gmp_finding *findings;   /* ranked by saving, largest first */
	size_t nfindings;
	size_t nsmall;                  /* findings left out for their object's size: */
	uint64_t min_bytes;             /* under this (gmp_detect_opts.min_bytes) */
	size_t nmanaged;                /* findings on managed objects left out: the host's
					   use of them is not seen (GMP_PAT_MANAGED_SEEN) */
	size_t nshared;                 /* findings left out on memory shared between processes
					   (gmp_object__shared): the other process's use is not
					   seen.  All on imported objects, those outside
					   GMP_PAT_MANAGED_SEEN on exported ones */
	struct gmp_range *ranges;
	size_t nranges;
	struct gmp_span *spans;         /* idle ranges */
	size_t nspans;
	struct gmp_hist *hists;
	size_t nhists;
	struct gmp_peak *peaks;         /* per device, largest first */
	size_t npeaks;
	uint32_t *peak_objs;
	size_t npeak_objs;
	struct gmp_curve_point *curve;  /* every alloc/free, topological order */
	size_t ncurve;
	/* Where pools have regions: the bytes in use at every change, likewise; else NULL. */
	struct gmp_curve_point *inuse_curve;
	size_t ninuse_curve;
	struct gmp_device_summary *devices;
	size_t ndevices;
	struct gmp_failure *failures;   /* failed allocations, in issue order */
	size_t nfailures;
	size_t nfails_total;            /* failed allocations in the trace, less any left out, and the unrecorded */
	size_t nfails_unrecorded;       /* past the collector's first 4096 (META failed_allocations_unrecorded) */
	uint32_t *fail_objs;
	size_t nfail_objs;
	struct gmp_failure_fix *fail_fixes;
	size_t nfail_fixes;
	uint32_t *level;                /* per event: its topological timestamp */
	uint32_t *ordinal;              /* per event: #n among its op on its stream */
	uint32_t *order;                /* events sorted by (level, index) */
	uint32_t *dep_off;              /* keep_deps: event v uses deps[dep_off[v] .. dep_off[v+1]) */
	uint32_t *deps;                 /* keep_deps: (object << 3) | GMP_DEP_*; else NULL */
	uint32_t max_level;
	uint64_t napis;                 /* GPU APIs (sync ops excluded) */
	uint64_t nedges;                /* dependency edges */
	uint64_t peak_bytes;            /* the largest peak over all devices */
	size_t graph_launches_merged;   /* CUDA graph launches whose kernel nodes each count as making
					   every access of any of them (detector/graphs.c) */
	size_t graph_launches_lost;     /* CUDA graph launches none of whose kernel nodes reported an
					   access: their nodes count as launches with unknown accesses */
	uint32_t *graph_lost;           /* those nodes' events, ascending */
	size_t ngraph_lost;
	struct gmp_detect_opts opts;
	uint64_t pass_ns[GMP_PASSES];   /* time each pass took (gmp_pass__name) */
	struct gmp_names *names;        /* readable kernel names, cached (opts.demangle) */
};

struct gmp_detect_error {
	uint32_t ev;             /* event index, or GMP_NO_EVENT */
	uint32_t line;           /* the event's script line, or 0 */
	char msg[240];
};

/*
 * Runs the whole analysis.  Returns 0 and a result; -EINVAL when the trace
 * is inconsistent (a free of no live object, an access outside every
 * object, ...: *err says which event and why); -ELOOP for a dependency
 * cycle (named in *err); -ENOMEM.
 */
int gmp_detect(const struct gmp_trace *t, const struct gmp_detect_opts *o,
	       struct gmp_result **out, struct gmp_detect_error *err);
void gmp_result__free(struct gmp_result *r);
/*
 * Fixes combined: an object is absent wherever one of its fixes removes it,
 * smaller by its largest overallocation or structured-access saving where
 * it stays; a redundant pair, where no other fix changes either object, is
 * one buffer of the larger size from the first to the last moment either
 * lives (an object in a pair joins no other).  Plans leave redundant pairs
 * out (with them more fixes could raise a peak), so each fix there only
 * lowers the curve.  Pool regions'
 * findings free nothing on the device.  peak_with_fixes: device's peak
 * with findings fix[0..n) fixed together.  plan: plans[] (r->ndevices of
 * them), targets[d] the peak to reach on r->devices[d] (0, or targets
 * NULL: none; a plan takes at most 64 fixes); *fixes (may be NULL; the
 * caller frees it) gets the chosen findings: the fewest that reach the
 * target where fit_fewest says so (a bounded search), else the fewest the
 * search found.  0 or -ENOMEM.
 */
int gmp_result__peak_with_fixes(const struct gmp_result *r, uint32_t device, const uint32_t *fix,
				size_t n, uint64_t *peak);
int gmp_result__plan(const struct gmp_result *r, const uint64_t *targets, struct gmp_plan *plans,
		     uint32_t **fixes);
/*
 * (Re)makes r->failures from the trace's failed allocations and r's
 * findings, as gmp_detect does: after the findings change (suppressions),
 * since failures refer to findings by index.  skip (may be NULL) leaves out
 * the trace failures it marks.  0 or -ENOMEM (the failures are then empty).
 */
int gmp_result__failures(struct gmp_result *r, const uint8_t *skip);

/* The largest peak of a device (GMP_ANY_DEVICE: of them all), or NULL when it has none. */
#define GMP_ANY_DEVICE UINT32_MAX
const struct gmp_peak *gmp_result__top_peak(const struct gmp_result *r, uint32_t device);
/* A device's index in r->devices, or SIZE_MAX when it allocated nothing. */
size_t gmp_result__device_index(const struct gmp_result *r, uint32_t device);

/* Whether object obj is memory shared between processes: GMP_SHARED_IMPORTED, _EXPORTED or 0. */
int gmp_object__shared(const struct gmp_result *r, uint32_t obj);

/* The object's name: its label, or "obj#N" (N counts allocations from 1). */
const char *gmp_result__object_name(const struct gmp_result *r, uint32_t obj,
				    char *buf, size_t n);
/* A kernel's name (a trace string id) as labels show it: demangled with opts.demangle. */
const char *gmp_result__kernel_name(const struct gmp_result *r, uint32_t name);
/* "KERNEL vecAdd (stream 1, #3)", "ALLOC (stream 0, #2)", ... */
const char *gmp_result__api_label(const struct gmp_result *r, uint32_t ev, char *buf,
				  size_t n);
/*
 * The peak f's saving is measured against: the device's peak, or for a
 * region of a pool its peak of bytes in use (gmp_finding__in_use); and that
 * peak with f fixed.
 */
int gmp_finding__in_use(const struct gmp_result *r, const struct gmp_finding *f);
/* A device's peak of bytes in use: its peak when no pool on it has regions. */
uint64_t gmp_device__in_use_peak(const struct gmp_device_summary *ds);
uint64_t gmp_finding__peak_before(const struct gmp_result *r, const struct gmp_finding *f);
uint64_t gmp_finding__peak_after(const struct gmp_result *r, const struct gmp_finding *f);
/*
 * Whether fixing f frees device memory at some moment (f->saving says how
 * much at the peak): not so for a dead write or a non-uniform access, nor
 * for a leak whose last use is unknown (gmp_detect_opts.accesses_unknown).
 */
int gmp_finding__frees_memory(const struct gmp_finding *f);
/* What to do about f, in one sentence, into buf. */
const char *gmp_result__suggestion(const struct gmp_result *r, const struct gmp_finding *f,
				   char *buf, size_t n);
/*
 * Whether event ev is a kernel launch whose accesses are unknown (not
 * monitored, or never read back; not so in a trace with accesses_unknown):
 * the patterns count it as a use of every object live when it was issued.
 */
int gmp_result__unknown_launch(const struct gmp_result *r, uint32_t ev);
/* "ALLOC", "FREE", "MEMCPY", "MEMSET", "KERNEL", "SYNC", ... */
const char *gmp_api__kind(unsigned op);

/*
 * Memory over time, by the host's clock (detector/held.c): the events'
 * host_ns, when the host issued each call.  A call issued asynchronously
 * runs on the GPU some time after that, and is known to have finished when
 * a call that waits for it returns: a sync (of its device, its stream, or
 * an event recorded after it on its stream) or a synchronous copy after it
 * on its stream, or one that waits for a stream that waited for an event
 * recorded after it, known to have returned when its host thread issues
 * its next call that is not a sync.  A use ran at some moment between the
 * two, so each duration is a range: lo takes the moments that leave the
 * least waiting, hi those that leave the most.  For a program that waits
 * for each call they meet.
 */
struct gmp_clock;
/*
 * The host times r's findings need.  0, with *out NULL when no event has a
 * host time (event scripts without time_ns); -ENOMEM.  r must outlive it.
 */
int gmp_clock__new(const struct gmp_result *r, struct gmp_clock **out);
void gmp_clock__free(struct gmp_clock *c);
uint64_t gmp_clock__run_ns(const struct gmp_clock *c); /* from the first call with a host time to the last */

struct gmp_held {
	uint64_t lo_ns, hi_ns;   /* how long the finding's memory waited: early allocation, from
				    the allocation to the first use; late deallocation, from the last
				    use to the free; temporary idleness, its idle ranges together;
				    memory leak, from its last use to the run's last call; unused
				    allocation, from the allocation to its free (or the last call) */
	uint64_t longest_lo_ns, longest_hi_ns; /* idleness: its longest idle range; else the same */
};
/*
 * How long f's memory waited: 0, or -ENOENT for the other patterns and
 * where a bound's host time is not known.  Bounds issued out of order
 * (calls of two threads) count 0.
 */
int gmp_clock__held(const struct gmp_clock *c, const struct gmp_finding *f, struct gmp_held *h);

enum gmp_waiting {
	GMP_WAIT_BEFORE_FIRST_USE, /* early allocation */
	GMP_WAIT_BETWEEN_USES,     /* temporary idleness */
	GMP_WAIT_AFTER_LAST_USE,   /* late deallocation, memory leak */
	GMP_WAIT_NEVER_USED,       /* unused allocation, a leak never used */
	GMP_WAIT_COUNT
};

/* A device's memory over the run: bytes x nanoseconds (doubles: they pass 2^64). */
struct gmp_memtime {
	uint32_t device;
	double held;               /* every object (pool regions aside): size x its lifetime,
				      the run's end for those never freed */
	double lo_all, hi_all;     /* the part of held that the findings say waited, at least
				      and at most: each moment of an object once */
	double lo[GMP_WAIT_COUNT], hi[GMP_WAIT_COUNT]; /* likewise, each kind of waiting alone
				      (the kinds may overlap, by the host's clock) */
	uint64_t untimed_objects;  /* left out: its allocation or free has no host time */
	uint64_t unknown_waiting_objects; /* counted, with some of what waited unknown: a finding's
					     bound with no host time, or a leak's last use unknown */
};
/* Per device in r->devices' order (*n of them), made with the clock: valid while it lives. */
const struct gmp_memtime *gmp_clock__memtime(const struct gmp_clock *c, size_t *n);

#ifdef __cplusplus
}
#endif
#endif
