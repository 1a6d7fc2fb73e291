// SPDX-License-Identifier: MIT
/*
 * The test double's device memory: host memory standing in for it (a
 * header before each block keeps its size), copies (both ways) and sets
 * done at once, and the counts GMP_DOUBLE_STATS=1 prints at exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "double_calls.h"
#include "double_memory.h"
#include "double_patch.h"
#include "patch_logic.h"
#include "sanitizer_double.h"

struct double_stats double_stats;
static uint64_t oom_above = UINT64_MAX;

#define STREAM_STRIPES 64
static pthread_mutex_t stream_locks[STREAM_STRIPES];
static pthread_once_t stream_locks_once = PTHREAD_ONCE_INIT;

static void stream_locks_init(void)
{
	for (int i = 0; i < STREAM_STRIPES; i++)
		if (pthread_mutex_init(&stream_locks[i], NULL)) {
			fprintf(stderr, "sanitizer double: cannot make the stream locks\n");
			abort();
		}
}

static pthread_mutex_t *stream_mutex(Sanitizer_StreamHandle stream)
{
	if (pthread_once(&stream_locks_once, stream_locks_init)) {
		fprintf(stderr, "sanitizer double: cannot make the stream locks\n");
		abort();
	}
	return &stream_locks[((uintptr_t)stream >> 4) % STREAM_STRIPES]; /* the double's handles are 16 apart */
}

void double_stream_lock(Sanitizer_StreamHandle stream)
{
	if (pthread_mutex_lock(stream_mutex(stream))) {
		fprintf(stderr, "sanitizer double: cannot lock a stream\n");
		abort();
	}
}

void double_stream_unlock(Sanitizer_StreamHandle stream)
{
	if (pthread_mutex_unlock(stream_mutex(stream))) {
		fprintf(stderr, "sanitizer double: cannot unlock a stream\n");
		abort();
	}
}

/*
 * The stream-ordered pools async allocations of a replay come from: each
 * reserves in 2 MiB chunks what its allocations need, keeps what they
 * free, and at a sync gives back all it does not use past its release
 * threshold (GMP_DOUBLE_POOL_THRESHOLD bytes, 0 unset), as the driver
 * does; the driver's cuMemPoolGetAttribute answers from them (fake_app).
 * Pool 0 is every device's current pool; with GMP_DOUBLE_POOLS=2 every
 * second allocation comes from pool 1 (cudaMallocFromPoolAsync's).
 */
#define POOL_CHUNK (2ull << 20)
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	uint64_t reserved, used, reserved_high, used_high;
} pools[2];

static uint64_t chunks(uint64_t bytes)
{
	return (bytes + POOL_CHUNK - 1) / POOL_CHUNK * POOL_CHUNK;
}

CUmemoryPool double_pool_alloc(uint64_t size, uint8_t *which)
{
	static unsigned turn, from_device;
	const char *v = getenv("GMP_DOUBLE_POOLS"), *un = getenv("GMP_DOUBLE_POOL_UNNAMED");
	unsigned w = __atomic_fetch_add(&turn, 1, __ATOMIC_RELAXED) % (v && !strcmp(v, "2") ? 2 : 1);
	/* The device's pool names itself unless GMP_DOUBLE_POOL_UNNAMED=1 (=2: every second time). */
	unsigned k = w ? 0 : __atomic_fetch_add(&from_device, 1, __ATOMIC_RELAXED);
	int unnamed = un && (!strcmp(un, "1") || (!strcmp(un, "2") && k % 2));
	double_pool_change(w, size, 0);
	*which = (uint8_t)w;
	return w ? DOUBLE_POOL2 : unnamed ? NULL : DOUBLE_POOL;
}

void double_pool_change(unsigned which, uint64_t alloc, uint64_t freed)
{
	pthread_mutex_lock(&pool_lock);
	__typeof__(&pools[0]) p = &pools[which & 1];
	p->used += alloc;
	p->used -= freed < p->used ? freed : p->used;
	if (chunks(p->used) > p->reserved)
		p->reserved = chunks(p->used);
	if (p->reserved > p->reserved_high)
		p->reserved_high = p->reserved;
	if (p->used > p->used_high)
		p->used_high = p->used;
	pthread_mutex_unlock(&pool_lock);
}

static uint64_t pool_threshold(void)
{
	const char *v = getenv("GMP_DOUBLE_POOL_THRESHOLD");
	return v ? strtoull(v, NULL, 10) : 0;
}

void double_pool_trim(void)
{
	pthread_mutex_lock(&pool_lock);
	for (size_t i = 0; i < 2; i++) {
		uint64_t keep = pool_threshold();
		if (keep > pools[i].reserved)
			keep = pools[i].reserved;
		if (keep < chunks(pools[i].used))
			keep = chunks(pools[i].used);
		pools[i].reserved = keep;
	}
	pthread_mutex_unlock(&pool_lock);
}

int gmp_double_pool_attr(unsigned which, int attr, uint64_t *v)
{
	if (which > 1)
		return 1;
	pthread_mutex_lock(&pool_lock);
	int rc = 0;
	switch (attr) {
	case 4: *v = pool_threshold(); break; /* CU_MEMPOOL_ATTR_RELEASE_THRESHOLD */
	case 5: *v = pools[which].reserved; break;
	case 6: *v = pools[which].reserved_high; break;
	case 7: *v = pools[which].used; break;
	case 8: *v = pools[which].used_high; break;
	default: rc = 1; /* CUDA_ERROR_INVALID_VALUE */
	}
	pthread_mutex_unlock(&pool_lock);
	return rc;
}

/* The live arrays: handle (the script's address) and bytes. */
static struct {
	pthread_mutex_t lock;
	uint64_t handle[64], size[64];
	size_t n;
} arrays = { .lock = PTHREAD_MUTEX_INITIALIZER };

void double_array(uint64_t addr, uint64_t size, int create)
{
	pthread_mutex_lock(&arrays.lock);
	size_t i = 0;
	while (i < arrays.n && arrays.handle[i] != addr)
		i++;
	if (create && i == arrays.n && arrays.n < 64) {
		arrays.handle[arrays.n] = addr;
		arrays.size[arrays.n++] = size;
	} else if (!create && i < arrays.n) {
		arrays.n--;
		arrays.handle[i] = arrays.handle[arrays.n];
		arrays.size[i] = arrays.size[arrays.n];
	}
	pthread_mutex_unlock(&arrays.lock);
	Sanitizer_ResourceArrayData ad = { .context = DOUBLE_CTX, .hArray = (CUarray)(uintptr_t)addr,
					   .width = size % 4 ? size : size / 4 };
	const char *api = create ? "cudaMallocArray" : "cudaFreeArray";
	double_api(api, SANITIZER_API_ENTER);
	double_deliver(SANITIZER_CB_DOMAIN_RESOURCE,
		       create ? SANITIZER_CBID_RESOURCE_ARRAY_CREATED : SANITIZER_CBID_RESOURCE_ARRAY_DESTROYED, &ad);
	double_api(api, SANITIZER_API_EXIT);
}

/*
 * GMP_DOUBLE_PEER=1: the allocation at md (of device d) is also mapped
 * into device d + 1's context, as peer access maps a peer's memory there:
 * a DEVICE_MEMORY_ALLOC of the same address and size with FLAG_PEER and
 * sourceDevice d after it (map 1), and a DEVICE_MEMORY_FREE of the mapping
 * with FLAG_PEER before the allocation's own free (map 0).
 */
static void peer(const Sanitizer_ResourceMemoryData *md, int map)
{
	const char *v = getenv("GMP_DOUBLE_PEER");
	if (!v || *v != '1')
		return;
	Sanitizer_ResourceMemoryData p = *md;
	p.flags |= SANITIZER_MEMORY_FLAG_PEER;
	p.sourceDevice = md->device;
	p.device = md->device + 1;
	double_deliver(SANITIZER_CB_DOMAIN_RESOURCE,
		       map ? SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC : SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE, &p);
}

void double_alongside(const Sanitizer_ResourceMemoryData *md, int made)
{
	if (made) {
		peer(md, 1);
		double_texture(md->address, 1);
		double_tensormap(md->address);
	} else {
		double_texture(md->address, 0);
		peer(md, 0);
	}
}

int gmp_double_array_desc(void *desc, void *array)
{
	const char *un = getenv("GMP_DOUBLE_ARRAY_UNDESCRIBED"), *fmt = getenv("GMP_DOUBLE_ARRAY_FORMAT");
	uint64_t size = 0;
	pthread_mutex_lock(&arrays.lock);
	for (size_t i = 0; i < arrays.n; i++)
		if (arrays.handle[i] == (uint64_t)(uintptr_t)array)
			size = arrays.size[i];
	pthread_mutex_unlock(&arrays.lock);
	if (!size || !desc || (un && *un == '1'))
		return 1; /* CUDA_ERROR_INVALID_VALUE */
	/* CUDA_ARRAY3D_DESCRIPTOR: width, height, depth (size_t), then format, channels, flags. */
	struct { uint64_t w, h, d; uint32_t format, channels, flags; } d = {
		.w = size % 4 ? size : size / 4, .format = size % 4 ? 0x01 : 0x20, .channels = 1 };
	if (fmt && *fmt)
		d.format = (uint32_t)strtoul(fmt, NULL, 0);
	memcpy(desc, &d, sizeof(d));
	return 0;
}

void gmp_double_set_oom_above(uint64_t bytes)
{
	oom_above = bytes;
}

/*
 * GMP_DOUBLE_FAIL="alloc:2,upload:5,set:1,download:3": the 2nd
 * sanitizerAlloc, the 5th sanitizerMemcpyHostToDeviceAsync, the 1st
 * sanitizerMemset and the 3rd sanitizerMemcpyDeviceToHost fail (each
 * counted from the program's start), as a device short of memory or a
 * failing context would make them; "patches:1" the 1st
 * sanitizerAddPatchesFromFile (a fatbin with no code for the GPU),
 * "module:N" the Nth sanitizerPatchModule (double_patch.c); "subscribe:1"
 * the 1st sanitizerSubscribe, as when another tool subscribed first, and
 * "domain:N" the Nth sanitizerEnableDomain that enables (sanitizer_double.c).
 */
static const char *const fail_names[DOUBLE_FAIL_KINDS] = { "alloc", "upload", "set", "download", "patches",
							   "module", "unpatch", "subscribe", "domain" };
static unsigned long fail_at[DOUBLE_FAIL_KINDS], fail_calls[DOUBLE_FAIL_KINDS];
static void read_fail(void)
{
	const char *v = getenv("GMP_DOUBLE_FAIL");
	for (int k = 0; v && k < DOUBLE_FAIL_KINDS; k++) {
		char key[16];
		snprintf(key, sizeof(key), "%s:", fail_names[k]);
		const char *at = strstr(v, key);
		if (at)
			fail_at[k] = strtoul(at + strlen(key), NULL, 10);
	}
}

int double_fails(int kind)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, read_fail);
	return fail_at[kind] && __atomic_add_fetch(&fail_calls[kind], 1, __ATOMIC_RELAXED) == fail_at[kind];
}

SanitizerResult sanitizerAlloc(CUcontext ctx, void **devPtr, size_t size)
{
	(void)ctx;
	if (size > oom_above || double_fails(DOUBLE_FAIL_ALLOC))
		return SANITIZER_ERROR_OUT_OF_MEMORY;
	__atomic_add_fetch(&double_stats.allocs, 1, __ATOMIC_RELAXED);
	/* The size goes in a header before the block, for the bytes held. */
	uint64_t *b = malloc(16 + size);
	if (!b)
		return SANITIZER_ERROR_OUT_OF_MEMORY;
	b[0] = size;
	/*
	 * Device memory comes uncleared.  Here every word of a new block reads
	 * 7: a hit word stamped by a buffer's first launch, read and written
	 * (patch_abi.h), so a launch buffer used before its hit words are
	 * cleared reports every object hit.
	 */
	uint32_t *w = (uint32_t *)(b + 2);
	for (size_t i = 0; i < size / 4; i++)
		w[i] = 7;
	unsigned long held = __atomic_add_fetch(&double_stats.held, size, __ATOMIC_RELAXED);
	unsigned long peak = __atomic_load_n(&double_stats.held_peak, __ATOMIC_RELAXED);
	while (held > peak && !__atomic_compare_exchange_n(&double_stats.held_peak, &peak, held, 0,
							   __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
	}
	*devPtr = b + 2;
	return SANITIZER_SUCCESS;
}

SanitizerResult sanitizerFree(CUcontext ctx, void *devPtr)
{
	(void)ctx;
	if (devPtr) {
		uint64_t *b = (uint64_t *)devPtr - 2;
		__atomic_sub_fetch(&double_stats.held, b[0], __ATOMIC_RELAXED);
		free(b);
	}
	return SANITIZER_SUCCESS;
}

/* The pinned host blocks live, so that a copy can tell one as its destination. */
static struct pinned {
	uintptr_t start, end;
} *pinned;
static size_t npinned, pinned_cap;
static pthread_mutex_t pinned_lock = PTHREAD_MUTEX_INITIALIZER;

static int pinned_add(const void *p, size_t size)
{
	pthread_mutex_lock(&pinned_lock);
	if (npinned == pinned_cap) {
		size_t cap = pinned_cap ? 2 * pinned_cap : 64;
		struct pinned *n = realloc(pinned, cap * sizeof(*n));
		if (!n) {
			pthread_mutex_unlock(&pinned_lock);
			return -1;
		}
		pinned = n;
		pinned_cap = cap;
	}
	pinned[npinned++] = (struct pinned){ (uintptr_t)p, (uintptr_t)p + size };
	pthread_mutex_unlock(&pinned_lock);
	return 0;
}

static void pinned_remove(const void *p)
{
	pthread_mutex_lock(&pinned_lock);
	for (size_t i = 0; i < npinned; i++)
		if (pinned[i].start == (uintptr_t)p) {
			pinned[i] = pinned[--npinned];
			break;
		}
	if (!npinned) {
		free(pinned);
		pinned = NULL;
		pinned_cap = 0;
	}
	pthread_mutex_unlock(&pinned_lock);
}

/* Whether [p, p+n) lies in a pinned host block. */
static int pinned_holds(const void *p, size_t n)
{
	int in = 0;
	pthread_mutex_lock(&pinned_lock);
	for (size_t i = 0; i < npinned && !in; i++)
		in = pinned[i].start <= (uintptr_t)p && n <= pinned[i].end - (uintptr_t)p && (uintptr_t)p < pinned[i].end;
	pthread_mutex_unlock(&pinned_lock);
	return in;
}

/*
 * Pinned host memory the device reaches (the collector's hit lists, and
 * the buffer its large reads go through): plain host memory here,
 * uncleared (every word 7, as device memory).  GMP_DOUBLE_NO_ALLOC_HOST=1
 * fails it, as an older Sanitizer without it.
 */
SanitizerResult sanitizerAllocHost(CUcontext ctx, void **devPtr, size_t size)
{
	(void)ctx;
	const char *no = getenv("GMP_DOUBLE_NO_ALLOC_HOST");
	if ((no && !strcmp(no, "1")) || size > oom_above)
		return SANITIZER_ERROR_OUT_OF_MEMORY;
	uint32_t *p = malloc(size ? size : 1);
	if (!p)
		return SANITIZER_ERROR_OUT_OF_MEMORY;
	for (size_t i = 0; i < size / 4; i++)
		p[i] = 7;
	if (pinned_add(p, size ? size : 1)) {
		free(p);
		return SANITIZER_ERROR_OUT_OF_MEMORY;
	}
	__atomic_add_fetch(&double_stats.host_allocs, 1, __ATOMIC_RELAXED);
	*devPtr = p;
	return SANITIZER_SUCCESS;
}

SanitizerResult sanitizerFreeHost(CUcontext ctx, void *devPtr)
{
	(void)ctx;
	if (devPtr) {
		pinned_remove(devPtr);
		__atomic_add_fetch(&double_stats.host_frees, 1, __ATOMIC_RELAXED);
	}
	free(devPtr);
	return SANITIZER_SUCCESS;
}

/* A copy (src) or a set (src NULL: value) of count bytes, in its stream's order; counted. */
static SanitizerResult on_stream(unsigned long *calls, unsigned long *bytes, void *dst, const void *src,
				 int value, size_t count, Sanitizer_StreamHandle stream)
{
	__atomic_add_fetch(calls, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(bytes, count, __ATOMIC_RELAXED);
	double_stream_lock(stream);
	if (src)
		memcpy(dst, src, count);
	else
		memset(dst, value, count);
	double_stream_unlock(stream);
	return SANITIZER_SUCCESS;
}

SanitizerResult sanitizerMemcpyHostToDeviceAsync(void *dst, void *src, size_t count,
						 Sanitizer_StreamHandle stream)
{
	if (double_fails(DOUBLE_FAIL_UPLOAD))
		return SANITIZER_ERROR_INVALID_PARAMETER;
	return on_stream(&double_stats.uploads, &double_stats.upload_bytes, dst, src, 0, count, stream);
}

SanitizerResult sanitizerMemcpyDeviceToHost(void *dst, void *src, size_t count,
					    Sanitizer_StreamHandle stream)
{
	double_driver_exclusive("sanitizerMemcpyDeviceToHost");
	if (double_fails(DOUBLE_FAIL_DOWNLOAD))
		return SANITIZER_ERROR_INVALID_PARAMETER;
	if (pinned_holds(dst, count)) {
		__atomic_add_fetch(&double_stats.pinned_readbacks, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&double_stats.pinned_readback_bytes, count, __ATOMIC_RELAXED);
	}
	return on_stream(&double_stats.readbacks, &double_stats.readback_bytes, dst, src, 0, count, stream);
}

SanitizerResult sanitizerMemset(void *devPtr, int value, size_t count, Sanitizer_StreamHandle stream)
{
	if (double_fails(DOUBLE_FAIL_SET))
		return SANITIZER_ERROR_INVALID_PARAMETER;
	return on_stream(&double_stats.sets, &double_stats.set_bytes, devPtr, NULL, value, count, stream);
}

/*
 * GMP_DOUBLE_STATS=1: one line at exit with the stream syncs, uploads,
 * read-backs and allocations the collector asked for, the kernels it ran with
 * GMP_MODE_L1_TESTS, and the device bytes it held at most and at exit; =2
 * adds the sets (sanitizerMemset) and their bytes at the end, =3 the
 * kernels that ran while their module was not patched, the modules patched
 * and unpatched; =4 the pinned host blocks allocated and freed; =5 those
 * and the device-to-host copies into them, and their bytes.
 */
__attribute__((destructor)) static void print_stats(void)
{
	const char *v = getenv("GMP_DOUBLE_STATS");
	if (v && *v >= '1' && *v <= '5')
		fprintf(stderr, "double: %lu stream syncs, %lu host-to-device copies of %lu bytes, %lu device-to-host "
			"copies of %lu bytes, %lu allocations, %lu kernels testing through the L1, %lu bytes "
			"held at most, %lu at exit",
			__atomic_load_n(&double_stats.stream_syncs, __ATOMIC_RELAXED),
			__atomic_load_n(&double_stats.uploads, __ATOMIC_RELAXED),
			__atomic_load_n(&double_stats.upload_bytes, __ATOMIC_RELAXED),
			__atomic_load_n(&double_stats.readbacks, __ATOMIC_RELAXED),
			__atomic_load_n(&double_stats.readback_bytes, __ATOMIC_RELAXED),
			__atomic_load_n(&double_stats.allocs, __ATOMIC_RELAXED),
			__atomic_load_n(&double_stats.l1_kernels, __ATOMIC_RELAXED),
			__atomic_load_n(&double_stats.held_peak, __ATOMIC_RELAXED),
			__atomic_load_n(&double_stats.held, __ATOMIC_RELAXED));
	if (v && *v == '2')
		fprintf(stderr, ", %lu sets of %lu bytes", __atomic_load_n(&double_stats.sets, __ATOMIC_RELAXED),
			__atomic_load_n(&double_stats.set_bytes, __ATOMIC_RELAXED));
	if (v && *v == '3')
		fprintf(stderr, ", %lu kernels ran unpatched, %lu module patches, %lu module unpatches",
			__atomic_load_n(&double_stats.unpatched_kernels, __ATOMIC_RELAXED),
			__atomic_load_n(&double_stats.module_patches, __ATOMIC_RELAXED),
			__atomic_load_n(&double_stats.module_unpatches, __ATOMIC_RELAXED));
	if (v && (*v == '4' || *v == '5'))
		fprintf(stderr, ", %lu pinned host blocks, %lu freed", __atomic_load_n(&double_stats.host_allocs, __ATOMIC_RELAXED),
			__atomic_load_n(&double_stats.host_frees, __ATOMIC_RELAXED));
	if (v && *v == '5')
		fprintf(stderr, ", %lu device-to-host copies into them of %lu bytes",
			__atomic_load_n(&double_stats.pinned_readbacks, __ATOMIC_RELAXED),
			__atomic_load_n(&double_stats.pinned_readback_bytes, __ATOMIC_RELAXED));
	if (v && *v >= '1' && *v <= '5')
		fputc('\n', stderr);
}

void double_launch_starts(const struct gmp_patch_launch *l, size_t k)
{
	if (l->mode & GMP_MODE_L1_TESTS)
		__atomic_fetch_add(&double_stats.l1_kernels, 1, __ATOMIC_RELAXED);
	const struct gmp_patch_table *base = (const struct gmp_patch_table *)(uintptr_t)l->table;
	if (base && l->base_n != base->n) {
		fprintf(stderr, "sanitizer double: the kernel of event %zu starts with a header counting %u base entries "
			"where its base table has %lu\n", k, l->base_n, (unsigned long)base->n);
		abort();
	}
	const uint64_t *hints = (const uint64_t *)(uintptr_t)l->hints;
	for (uint32_t slot = 0; hints && slot < GMP_HINTS; slot++)
		if (gmp_patch_claims(l, hints[slot], (uint32_t)hints[slot])) {
			fprintf(stderr, "sanitizer double: the kernel of event %zu starts with a record of its own "
				"stamp (slot %u): the records were not cleared with the hit words\n", k, slot);
			abort();
		}
}

/*
 * GMP_DOUBLE_SYNC_MS, GMP_DOUBLE_PATCH_MS: each stream sync, each module
 * patched takes that long, as a real one takes time (the collector's
 * accounting of its own time is checked against them).
 */
void double_delay(const char *env)
{
	const char *v = getenv(env);
	long ms = v && *v ? atol(v) : 0;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (ms > 0 && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

SanitizerResult sanitizerStreamSynchronize(Sanitizer_StreamHandle stream)
{
	(void)stream;
	__atomic_add_fetch(&double_stats.stream_syncs, 1, __ATOMIC_RELAXED);
	double_driver_exclusive("sanitizerStreamSynchronize");
	double_delay("GMP_DOUBLE_SYNC_MS");
	return SANITIZER_SUCCESS;
}

/* gmp_double_set_die: the program dies (GMP_DOUBLE_DIE_*) after that many events (fake_app --die-after). */
static long die_at = -1;
static int die_how;

void double_maybe_die(long n)
{
	if (n != die_at)
		return;
	double_delay("GMP_DOUBLE_DIE_PAUSE_MS"); /* the program lingers before it dies (flush-interval tests) */
	switch (die_how) {
	case GMP_DOUBLE_DIE_KILL: raise(SIGKILL); break;
	case GMP_DOUBLE_DIE_SEGV: raise(SIGSEGV); break;
	case GMP_DOUBLE_DIE_ABORT: abort();
	case GMP_DOUBLE_DIE_EXIT: exit(3);
	}
}

void gmp_double_set_die(long after_events, int how)
{
	die_at = after_events;
	die_how = how;
}
