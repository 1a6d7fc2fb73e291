// SPDX-License-Identifier: MIT
/*
 * Tensor maps: the tensor memory accelerator of sm_90 and later copies
 * tiles between global and shared memory (cp.async.bulk.tensor) with no
 * patch call in the Sanitizer of CUDA 13.0, and cuBLAS, cuDNN and CUTLASS
 * kernels on Hopper move most of their operands that way.  Unseen, those
 * reads would make an operand's upload its last use, and its memory free
 * for another object to reuse (a redundant allocation that would break the
 * program), or its upload a dead write.
 *
 * A kernel reaches such memory through a map the host encoded
 * (cuTensorMapEncodeTiled and its kin, through the driver API) and passed
 * among the kernel's parameters, by value: 128 opaque bytes, inside a
 * parameter of its own or a struct of them, at a 64-byte aligned place.
 * So the collector keeps each map's bytes with its global address (the
 * latest 4096 maps), and reads the parameters of every driver launch call
 * (cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel, their
 * sizes from cuFuncGetParamInfo, or the packed buffer of an extra array)
 * while any map is known: the object live at the address of a map among
 * them is read by the launch, a read added to its accesses (as a
 * texture's: textures.c).  The object is the one there at the launch, not
 * at the encoding, as the copies read it: a map a program keeps (cached by
 * its pointer and sizes) over memory freed and allocated again reads the
 * new object.  That can hide a late deallocation or an idleness of the
 * object, never make one up; a write through the map is not told from a
 * read, so such writes are not known.  In intra mode the launch records no
 * touch of the object for those reads, so its bytes are not known
 * (detector/intra.c).  Not seen: maps made or changed on the device
 * (tensormap.replace), maps in global memory, graphs' kernel nodes (those
 * launched while maps are known are counted for the profile: META
 * tensor_maps, tmap_close).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_api.h"
#include "collector.h"

#define MAPS 4096     /* maps kept, the latest */
#define BUCKETS 8192  /* a power of two */
#define FNS 256       /* functions whose parameters are kept, direct-mapped */
#define BIG 8         /* parameters of a function that can hold a map, kept */
#define PARAMS 1024   /* parameters asked about per function, at most */
#define PER_LAUNCH 32 /* objects read through maps per launch, at most */

/* The maps (gmp_col.lock): a ring, and chains by the bytes' hash. */
static struct tmap {
	uint64_t q[GMP_TMAP_BYTES / 8];
	uint64_t addr; /* its global address; 0: its context is gone */
	CUcontext ctx;
	uint32_t hash;
	int32_t next; /* in its bucket's chain; -1 ends it */
} *maps;
static int32_t bucket[BUCKETS];
static uint64_t made; /* maps kept so far: the next goes to slot made % MAPS */
static int any;       /* atomic: a map is known */
/* For the profile (META tensor_maps, lock): maps encoded, launches that read through them, graph nodes that could not. */
static uint64_t encoded, read_launches, nodes;

/* Functions and where their parameters that can hold a map lie (fns_lock: asked with no collector lock). */
static struct fn_params {
	CUfunction f;
	uint8_t nbig;
	struct { uint32_t idx, size; } big[BIG]; /* each one's index among the parameters, its size */
} fns[FNS];
static pthread_mutex_t fns_lock = PTHREAD_MUTEX_INITIALIZER;

/* This thread's launch in progress: the objects its parameters' maps read. */
static __thread struct { uint64_t obj[PER_LAUNCH]; size_t n; } launch;

static uint32_t hash(const uint64_t *q)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < GMP_TMAP_BYTES / 8; i++)
		h = (h ^ q[i]) * 0xff51afd7ed558ccdull;
	return (uint32_t)(h >> 32);
}

int tmap_any(void)
{
	return __atomic_load_n(&any, __ATOMIC_RELAXED);
}

/* Lock held: the kept map with these bytes, or -1. */
static int32_t find(const uint64_t *q, uint32_t h)
{
	if (!maps)
		return -1; /* the buckets are set with the ring */
	for (int32_t i = bucket[h % BUCKETS]; i >= 0; i = maps[i].next)
		if (maps[i].hash == h && !memcmp(maps[i].q, q, GMP_TMAP_BYTES))
			return i;
	return -1;
}

/* Lock held: slot i out of its chain. */
static void unlink_slot(int32_t i)
{
	int32_t *at = &bucket[maps[i].hash % BUCKETS];
	while (*at >= 0 && *at != i)
		at = &maps[*at].next;
	if (*at == i)
		*at = maps[i].next;
}

/* Lock held: map q reads memory at ptr from now on. */
static void keep(const uint64_t *q, uint64_t ptr, CUcontext ctx)
{
	uint32_t h = hash(q);
	int32_t i = find(q, h);
	encoded++;
	if (i < 0) {
		if (!maps) {
			maps = malloc(MAPS * sizeof(*maps));
			if (!maps) {
				rec_say("out of memory for tensor maps: the reads through them are not recorded");
				return;
			}
			for (size_t b = 0; b < BUCKETS; b++)
				bucket[b] = -1;
		}
		i = (int32_t)(made % MAPS);
		if (made++ >= MAPS)
			unlink_slot(i);
		memcpy(maps[i].q, q, GMP_TMAP_BYTES);
		maps[i].hash = h;
		maps[i].next = bucket[h % BUCKETS];
		bucket[h % BUCKETS] = i;
	}
	maps[i].addr = ptr;
	maps[i].ctx = ctx;
	__atomic_store_n(&any, 1, __ATOMIC_RELAXED);
}

void tmap_call(const char *fn, const void *params, CUcontext ctx, int ok)
{
	launch.n = 0; /* the end of the program's call: its launch has begun, if it made one */
	int kind = gmp_tmap_api__kind(fn);
	if (!kind || !params || !ok)
		return;
	const char *p = params;
	const void *map;
	uint64_t ptr;
	memcpy(&map, p + GMP_TMAP_PARAM_MAP, sizeof(map));
	memcpy(&ptr, p + (kind == 1 ? GMP_TMAP_PARAM_ADDRESS : GMP_TMAP_REPLACE_ADDRESS), sizeof(ptr));
	if (!map)
		return;
	uint64_t q[GMP_TMAP_BYTES / 8];
	memcpy(q, map, sizeof(q)); /* written by the call, which has returned */
	pthread_mutex_lock(&gmp_col.lock);
	keep(q, ptr, ctx);
	pthread_mutex_unlock(&gmp_col.lock);
}

void tmap_functions_gone(void)
{
	pthread_mutex_lock(&fns_lock);
	memset(fns, 0, sizeof(fns));
	pthread_mutex_unlock(&fns_lock);
}

void tmap_context_gone(CUcontext ctx)
{
	tmap_functions_gone();
	if (!maps)
		return;
	for (size_t i = 0; i < MAPS && i < made; i++)
		if (maps[i].ctx == ctx)
			maps[i].addr = 0; /* another context's memory may come at it */
}

/* Where f's parameters that can hold a map lie: *out, from the driver once per function. */
static void params_of(CUfunction f, struct fn_params *out)
{
	size_t slot = ((uintptr_t)f >> 4) % FNS;
	pthread_mutex_lock(&fns_lock);
	if (fns[slot].f == f) {
		*out = fns[slot];
		pthread_mutex_unlock(&fns_lock);
		return;
	}
	pthread_mutex_unlock(&fns_lock);
	struct fn_params fp = { .f = f };
	size_t off, size;
	int r = drv_param_info(f, 0, &off, &size);
	if (r == -2) {
		static int said; /* atomic */
		if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
			rec_say("tensor maps are in use, but the driver does not say where a kernel's parameters lie "
				"(cuFuncGetParamInfo, CUDA 12.4): kernels' reads through the maps are not recorded");
	}
	for (size_t i = 0; r == 0; i++) { /* parameter i's place is known: the next one's asked */
		if (size >= GMP_TMAP_BYTES && fp.nbig < BIG && size <= UINT32_MAX) {
			fp.big[fp.nbig].idx = (uint32_t)i;
			fp.big[fp.nbig++].size = (uint32_t)size;
		}
		r = i + 1 < PARAMS ? drv_param_info(f, i + 1, &off, &size) : -1;
	}
	pthread_mutex_lock(&fns_lock);
	fns[slot] = fp;
	pthread_mutex_unlock(&fns_lock);
	*out = fp;
}

/*
 * Lock held: the objects live at the addresses of the maps among size
 * bytes at p (64-byte aligned places), to this thread's launch.  Memory
 * gmprof does not track (module variables, host memory) gives none.
 */
static void scan(const char *p, size_t size)
{
	for (size_t off = 0; off + GMP_TMAP_BYTES <= size; off += 64) {
		uint64_t q[GMP_TMAP_BYTES / 8], start, end;
		memcpy(q, p + off, sizeof(q));
		int32_t i = find(q, hash(q));
		if (i < 0 || !maps[i].addr || !rec_live_floor(maps[i].addr, &start, &end) || maps[i].addr >= end)
			continue;
		size_t k = 0;
		while (k < launch.n && launch.obj[k] != start)
			k++;
		if (k == launch.n && launch.n < PER_LAUNCH)
			launch.obj[launch.n++] = start;
	}
}

/* GMPROF_LOG_CALLBACKS=1: what a launch call's parameters gave. */
static void log_launch(const char *fn)
{
	if (gmp_col.opts.log_callbacks)
		fprintf(stderr, "gmprof: api %s: %zu object%s read through tensor maps\n", fn, launch.n,
			launch.n == 1 ? "" : "s");
}

void tmap_launch_call(const char *fn, const void *params)
{
	struct gmp_launch_layout l;
	if (!gmp_launch_api__layout(fn, &l))
		return; /* another call (the runtime's around it): what a launch call kept stays for its launch */
	launch.n = 0;
	if (!params)
		return;
	const char *p = params;
	CUfunction f;
	void **kp = NULL, **extra = NULL;
	memcpy(&f, p + l.function, sizeof(f));
	memcpy(&kp, p + l.kernel_params, sizeof(kp));
	if (l.extra >= 0)
		memcpy(&extra, p + l.extra, sizeof(extra));
	if (kp) {
		struct fn_params fp;
		params_of(f, &fp);
		pthread_mutex_lock(&gmp_col.lock);
		for (size_t i = 0; i < fp.nbig; i++) /* kp holds a pointer to each parameter's value, in order */
			if (kp[fp.big[i].idx])
				scan(kp[fp.big[i].idx], fp.big[i].size);
		pthread_mutex_unlock(&gmp_col.lock);
	} else if (extra) {
		const char *buf = NULL;
		size_t size = 0;
		for (size_t i = 0; i < 64 && (uintptr_t)extra[i] != GMP_LAUNCH_EXTRA_END; i += 2) {
			if ((uintptr_t)extra[i] == GMP_LAUNCH_EXTRA_BUFFER)
				buf = extra[i + 1];
			else if ((uintptr_t)extra[i] == GMP_LAUNCH_EXTRA_SIZE && extra[i + 1])
				memcpy(&size, extra[i + 1], sizeof(size));
		}
		if (buf && size) {
			pthread_mutex_lock(&gmp_col.lock);
			scan(buf, size);
			pthread_mutex_unlock(&gmp_col.lock);
		}
	}
	log_launch(fn);
}

int tmap_take(uint64_t **objs, size_t *n)
{
	if (!launch.n)
		return 0;
	uint64_t *o = realloc(*objs, (*n + launch.n) * sizeof(*o));
	if (!o)
		return -ENOMEM;
	*objs = o;
	uint64_t start, end;
	const size_t had = *n;
	for (size_t i = 0; i < launch.n; i++) /* another thread may have freed one since the call began */
		if (rec_live_floor(launch.obj[i], &start, &end) && start == launch.obj[i])
			o[(*n)++] = launch.obj[i];
	read_launches += *n > had;
	launch.n = 0;
	return 0;
}

void tmap_graph_node(void)
{
	nodes += tmap_any();
}

void tmap_close(void)
{
	if (!encoded || gmp_col.opts.mode == GMP_COLLECT_ALLOC)
		return; /* no map, or no launch's accesses recorded */
	char v[128];
	int n = snprintf(v, sizeof(v), "encoded=%" PRIu64 " launches=%" PRIu64 " graph_nodes=%" PRIu64, encoded,
			 read_launches, nodes);
	if (made > MAPS && n > 0 && (size_t)n < sizeof(v)) /* maps dropped from the ring: reads through them unseen */
		snprintf(v + n, sizeof(v) - (size_t)n, " forgotten=%" PRIu64, made - MAPS);
	rec_meta("tensor_maps", v);
}
