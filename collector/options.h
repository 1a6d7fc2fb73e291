/* SPDX-License-Identifier: MIT */
/*
 * The collector's options: GMPROF_* environment variables, validated.
 * `gmprof run` sets them; they can also be set by hand.  A bad value is
 * reported by name and the collector does not start.
 */
#ifndef GMPROF_COLLECTOR_OPTIONS_H
#define GMPROF_COLLECTOR_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

/*
 * GMPROF_MODE: object (every kernel's read and write sets), intra (also
 * per-object maps), alloc (no device patches: allocations, frees, copies,
 * sets, launches and syncs only, for peaks and leaks at about native speed).
 */
enum gmp_mode { GMP_COLLECT_OBJECT = 0, GMP_COLLECT_INTRA = 1, GMP_COLLECT_ALLOC = 2 };
/* The mode's name, as GMPROF_MODE and a profile's "mode" say it. */
const char *gmp_mode__name(int mode);

/* GMPROF_KERNELS's longest value, NUL included: room for a few mangled template names. */
#define GMP_KERNELS_MAX 16384
enum gmp_harvest { GMP_HARVEST_DEFERRED = 0, GMP_HARVEST_LAUNCH = 1 };

/*
 * GMPROF_FALLBACK: mechanisms not yet run on a GPU, each replaceable by the
 * simpler way it replaced, so that a GPU check can tell which one a wrong
 * result comes from (and a user can turn one off).
 */
#define GMP_FALLBACK_HIT_LIST 0x1u    /* read every hit word, not the launch's hit list */
#define GMP_FALLBACK_TWO_TABLES 0x2u  /* a whole table per version of the live set: no
					 recent table, no tombstones */
#define GMP_FALLBACK_TABLE_REUSE 0x4u /* free each table block, none kept for the next table */
#define GMP_FALLBACK_HIT_EPOCHS 0x8u  /* clear the hit words before every launch, not once per
					 buffer (launches numbered: patch_abi.h) */
#define GMP_FALLBACK_OBJECT_CALLBACK 0x10u /* object mode patches the callbacks that handle every
					      mode, not their object-level specializations */
#define GMP_FALLBACK_DEVICE_LISTS 0x20u /* hit lists in device memory, read back with a copy,
					    not in pinned host memory */
#define GMP_FALLBACK_LAUNCH_HEADERS 0x40u /* upload each launch's header before it, not a launch
					     buffer's next headers at once (device.c) */
#define GMP_FALLBACK_PINNED_READS 0x80u /* read intra maps, access records and hit words
					   straight into the collector's memory, not through
					   a pinned host buffer (lbuf.c) */
#define GMP_FALLBACK_ALL 0xffu

/*
 * GMPROF_CAPTURE: which launches are monitored.  Every one (""); those
 * between the program's cudaProfilerStart and cudaProfilerStop
 * ("profiler-api", off until the first start); those made by a thread
 * inside an NVTX range of a name ("nvtx:NAME"); the program's launches
 * FIRST to LAST, counted from 1 over all its threads ("launches:FIRST-LAST",
 * LAST left out: to the end).  The others are recorded with their accesses
 * unknown, and without call paths.
 */
/*
 * GMPROF_PATCH_AT: when modules are patched.  As they load; at a module's
 * first monitored launch; or at that launch, and unpatched again once a
 * capture range that may not come back (profiler-api, launches) is over
 * and the program synchronized its context with no launch in flight
 * (patching.c), patched again if a range starts again.
 */
enum gmp_patch_at { GMP_PATCH_AT_LOAD = 0, GMP_PATCH_AT_LAUNCH = 1, GMP_PATCH_AT_RANGE = 2 };

enum gmp_capture { GMP_CAPTURE_ALL = 0, GMP_CAPTURE_PROFILER = 1, GMP_CAPTURE_NVTX = 2,
		   GMP_CAPTURE_LAUNCHES = 3 };
#define GMP_CAPTURE_NAME_MAX 96 /* an NVTX range's name, NUL included (as nvtx_ranges.c keeps them) */
#define GMP_CAPTURE_EXPECTED "expected all, profiler-api, nvtx:NAME (a range's name, up to 95 bytes) " \
			     "or launches:FIRST-LAST (counted from 1; LAST may be left out)"
/*
 * A GMPROF_CAPTURE value's enum gmp_capture, or -1 when it is none of
 * GMP_CAPTURE_EXPECTED; first and last (may be NULL) get a launches range
 * (last UINT64_MAX when left out).
 */
int gmp_capture__parse(const char *value, uint64_t *first, uint64_t *last);

struct gmp_opts {
	char output[1024];       /* GMPROF_OUTPUT: path pattern ("gmprof.%p.gmprof") */
	int force;               /* GMPROF_FORCE: replace an existing profile (0) */
	int mode;                /* GMPROF_MODE: object | intra | alloc (object) */
	uint32_t kernel_sample;  /* GMPROF_KERNEL_SAMPLE: monitor every Nth launch of a kernel (1) */
	char kernels[GMP_KERNELS_MAX]; /* GMPROF_KERNELS: regex on kernel names ("") */
	uint32_t depth;          /* GMPROF_DEPTH: call-path frames kept (32) */
	uint32_t flush_ms;       /* GMPROF_FLUSH_MS: flush interval (200) */
	int fail;                /* GMPROF_ON_ERROR: continue (0) | fail (1) */
	char sanitizer_lib[1024];/* GMPROF_SANITIZER_LIB: libsanitizer-public.so ("": search) */
	char patch[1024];        /* GMPROF_PATCH: the device patch fatbin ("": beside the collector) */
	int online;              /* GMPROF_ONLINE: run the detector at exit (1) */
	uint32_t online_events;  /* GMPROF_ONLINE_EVENTS: events kept for it (2000000) */
	int summary;             /* GMPROF_SUMMARY: print the summary on stderr (1) */
	int nvtx_numbers;        /* GMPROF_NVTX_NUMBERS: the summary's NVTX names with numbers folded (0) */
	char nvtx_strip[256];    /* GMPROF_NVTX_STRIP: and with what this regex matches removed ("") */
	char nvtx_domain_include[1024]; /* GMPROF_NVTX_DOMAIN_INCLUDE: only these NVTX domains' ranges and marks
					   recorded, a comma list ("default": the default domain) ("": all) */
	char nvtx_domain_exclude[1024]; /* GMPROF_NVTX_DOMAIN_EXCLUDE: these domains' left out ("": none) */
	int nvtx_domain_names;   /* GMPROF_NVTX_DOMAIN_NAMES: a named domain's ranges and marks recorded as
				    "DOMAIN:name" (0) */
	int harvest;             /* GMPROF_HARVEST: deferred | launch (deferred) */
	uint32_t pool;           /* GMPROF_POOL: launch buffers before a forced harvest (256) */
	uint32_t gran;           /* GMPROF_GRANULARITY: bitmap bytes per bit, power of 2 (4) */
	uint32_t cgran;          /* GMPROF_COUNTER_GRANULARITY: bytes per counter (64) */
	uint32_t records;        /* GMPROF_RECORDS: stream-mode records per launch (1048576) */
	uint32_t maps_mb;        /* GMPROF_MAPS_MB: intra maps on the device, MiB, for launches in
				    flight and again for spare blocks (512) */
	uint32_t heap_records;   /* GMPROF_HEAP_RECORDS: in-kernel malloc()/free() calls recorded
				    per launch; 0: not tracked (1024) */
	int python;              /* GMPROF_PYTHON: a Python program's frames in call paths (1) */
	int patch_hints;         /* GMPROF_PATCH_HINTS: per-instruction hints before the table
				    search (0) */
	int patch_l1;            /* GMPROF_PATCH_LOADS: l2 | l1: where the patches test hit and
				    bitmap words before setting them (l2) */
	int patch_at;            /* GMPROF_PATCH_AT: enum gmp_patch_at (load; launch under a
				    capture range) */
	int patch_at_default;    /* GMPROF_PATCH_AT unset: patch_at is the default */
	int graph_fn_data;       /* GMPROF_GRAPH_NODE_DATA: launch | function: how a graph's kernel
				    node gets its launch buffer, per launch or per function (function) */
	char run_manifest[1024]; /* GMPROF_RUN_MANIFEST: gmprof run's list of the profiles its
				    run wrote, a directory; each collector adds a file ("": none) */
	int api_needed;          /* GMPROF_API_CALLBACKS: all | needed: the callbacks of calls that
				    make no GPU work turned off (api_off.c) (all) */
	int log_callbacks;       /* GMPROF_LOG_CALLBACKS: one stderr line per Sanitizer callback
				    outside the API domains, with the API it came from (0) */
	int oom_meminfo;         /* GMPROF_OOM_MEMINFO: at an allocation that runs out of memory,
				    ask the driver how much was free (cuMemGetInfo) (1) */
	int device_info;         /* GMPROF_DEVICE_INFO: at a device's first context, ask the driver
				    its name and memory, and the CUDA version (META records) (1) */
	int patch_empty;         /* GMPROF_PATCH_EMPTY: global accesses call an empty callback
				    (the per-access cost benchmark's baseline; no findings) (0) */
	uint32_t hit_epochs;     /* GMPROF_HIT_EPOCHS: launches of a launch buffer before its hit
				    words are cleared again (GMP_HIT_EPOCHS, when stamps would
				    repeat; lower only to test the clearing) */
	uint32_t fallback;       /* GMPROF_FALLBACK: GMP_FALLBACK_* mechanisms replaced by the
				    simpler ways before them: a comma list of their names
				    (options.c), or all ("": none) */
	int capture;             /* GMPROF_CAPTURE: enum gmp_capture (all) */
	char capture_value[GMP_CAPTURE_NAME_MAX + 8]; /* as given ("": all) */
	const char *capture_range; /* GMP_CAPTURE_NVTX: the range's name, in capture_value */
	uint64_t capture_first, capture_last; /* GMP_CAPTURE_LAUNCHES: the launches monitored */
};

typedef const char *(*gmp_getenv_fn)(const char *name);

/* "hit-list,two-tables": the GMP_FALLBACK_* bits' names into buf ("" for none). */
const char *gmp_opts__fallback_names(uint32_t bits, char *buf, size_t n);
/* Fills o from the environment; returns 0 or -EINVAL with one sentence in err. */
int gmp_opts__parse(struct gmp_opts *o, gmp_getenv_fn getenv_fn, char *err, size_t n);

#endif
