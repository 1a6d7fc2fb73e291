// SPDX-License-Identifier: MIT
/*
 * The test double's NVTX side: a script's pool regions announced through
 * NVTX's own loader (which loads the collector from NVTX_INJECTION64_PATH),
 * as a caching allocator would: a heap per pool on its first region, each
 * region registered and unregistered, the heap reset or unregistered
 * around the pool's cudaFree (GMP_DOUBLE_NVTX, sanitizer_double.c).  A
 * region with a label in the script is named with nvtxMemRegionsName; with
 * GMP_DOUBLE_NVTX=heapnames a pool's label names its heap; with =regnames
 * heaps and regions are named by handles of registered strings
 * (nvtxDomainRegisterStringA), as nvtx3's C++ API names them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wchar.h>

#include "double_nvtx.h"
#include "sanitizer_double.h"
#include "gmprof/trace.h"

#if HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtMem.h>
#if __has_include(<cuda.h>) && __has_include(<driver_types.h>)
#include <nvtx3/nvToolsExtCuda.h>   /* streams' names */
#include <nvtx3/nvToolsExtCudaRt.h>
#define HAVE_NVTX_CUDA 1
#endif

static unsigned long n_pushes;
/*
 * Per thread, whether each open range was pushed in the domain: such a one
 * is popped by the domain (each domain has a stack of its own).  Not the
 * handle: with a tool that makes no domains, nvtxDomainCreateA gives
 * NULL, and the domain calls still reach the tool with it.
 */
static __thread unsigned char in_domain[GMP_RANGE_DEPTH_MAX];

/*
 * GMP_DOUBLE_NVTX_RANGES=startend: a script's ranges are begun with
 * nvtxRangeStartA, nvtxRangeStartW, nvtxRangeStartEx and a domain's
 * nvtxDomainRangeStartEx in turn, and ended by their ids (nvtxRangeEnd,
 * nvtxDomainRangeEnd), innermost first; =elsewhere: the same, each start
 * and each end made on a thread of its own (joined before the replay goes
 * on), as a program whose ranges span threads does; =mixed: the ranges
 * at even depths (the outermost first) begun and ended by id, the others
 * pushed and popped.
 */
static __thread nvtxRangeId_t range_ids[GMP_RANGE_DEPTH_MAX];

/* An ASCII name widened by hand, into wide (128 wide characters). */
static const wchar_t *widen(const char *name, wchar_t *wide)
{
	size_t j = 0;
	for (; name[j] && j + 1 < 128; j++)
		wide[j] = (wchar_t)(unsigned char)name[j];
	wide[j] = 0;
	return wide;
}
static unsigned long n_starts;

struct start_end {
	nvtxDomainHandle_t domain;
	const char *name;    /* NULL: end */
	nvtxRangeId_t *id;   /* the replaying thread's, for this depth */
	unsigned char *dom;  /* its domain flag */
};

static void *start_or_end(void *arg)
{
	struct start_end *a = arg;
	if (!a->name) {
		if (*a->dom)
			nvtxDomainRangeEnd(a->domain, *a->id);
		else
			nvtxRangeEnd(*a->id);
		return NULL;
	}
	wchar_t wide[128];
	nvtxEventAttributes_t ea = { .version = NVTX_VERSION, .size = NVTX_EVENT_ATTRIB_STRUCT_SIZE,
				     .messageType = NVTX_MESSAGE_TYPE_ASCII, .message.ascii = a->name };
	*a->dom = 0;
	switch (__atomic_fetch_add(&n_starts, 1, __ATOMIC_RELAXED) % 4) {
	case 0: *a->id = nvtxRangeStartA(a->name); break;
	case 1: *a->id = nvtxRangeStartW(widen(a->name, wide)); break;
	case 2: *a->id = nvtxRangeStartEx(&ea); break;
	default:
		*a->id = nvtxDomainRangeStartEx(a->domain, &ea);
		*a->dom = 1;
	}
	return NULL;
}

/* The range at depth begun (name) or ended, here or (elsewhere) on a new thread: 0, or -2. */
static int start_end(nvtxDomainHandle_t domain, const char *name, size_t depth, int elsewhere)
{
	if (depth >= GMP_RANGE_DEPTH_MAX)
		return 0;
	struct start_end a = { domain, name, &range_ids[depth], &in_domain[depth] };
	pthread_t th;
	if (!elsewhere)
		start_or_end(&a);
	else if (pthread_create(&th, NULL, start_or_end, &a) || pthread_join(th, NULL))
		return -2;
	return 0;
}

/*
 * GMP_DOUBLE_NVTX_RANGES=registered: each range is pushed with its name
 * registered (nvtx3::registered_string, NVTX3_FUNC_RANGE): by
 * nvtxDomainRegisterStringA into the domain and nvtxDomainRangePushEx, then
 * by nvtxDomainRegisterStringW into the default domain (NULL) and
 * nvtxRangePushEx, in turn; every name registered again at each push, as
 * a program that registers in a loop does.  GMP_DOUBLE_NVTX_STRINGS=N: N
 * other names registered first ("filler-K"), to fill the collector's table.
 */
static unsigned long n_registered;

static void fill_strings(nvtxDomainHandle_t domain)
{
	static int done;
	const char *v = getenv("GMP_DOUBLE_NVTX_STRINGS");
	if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL) || !v)
		return;
	for (unsigned long k = 0, n = strtoul(v, NULL, 10); k < n; k++) {
		char name[32];
		snprintf(name, sizeof(name), "filler-%lu", k);
		nvtxDomainRegisterStringA(domain, name);
	}
}

static void push_registered(nvtxDomainHandle_t domain, const char *name, size_t i)
{
	fill_strings(domain);
	wchar_t wide[128];
	nvtxEventAttributes_t ea = { .version = NVTX_VERSION, .size = NVTX_EVENT_ATTRIB_STRUCT_SIZE,
				     .messageType = NVTX_MESSAGE_TYPE_REGISTERED };
	int in = __atomic_fetch_add(&n_registered, 1, __ATOMIC_RELAXED) % 2 == 0;
	if (in) {
		ea.message.registered = nvtxDomainRegisterStringA(domain, name);
		nvtxDomainRangePushEx(domain, &ea);
	} else {
		ea.message.registered = nvtxDomainRegisterStringW(NULL, widen(name, wide));
		nvtxRangePushEx(&ea);
	}
	if (i < GMP_RANGE_DEPTH_MAX)
		in_domain[i] = (unsigned char)in;
}

/* The range at depth i pushed, by each of four ways in turn. */
static void push(nvtxDomainHandle_t domain, const char *name, size_t i)
{
	wchar_t wide[128];
	nvtxEventAttributes_t ea = { .version = NVTX_VERSION, .size = NVTX_EVENT_ATTRIB_STRUCT_SIZE,
				     .messageType = NVTX_MESSAGE_TYPE_ASCII };
	if (i < GMP_RANGE_DEPTH_MAX)
		in_domain[i] = 0;
	switch (__atomic_fetch_add(&n_pushes, 1, __ATOMIC_RELAXED) % 4) {
	case 0: nvtxRangePushA(name); break;
	case 1: nvtxRangePushW(widen(name, wide)); break;
	case 2:
		ea.message.ascii = name;
		nvtxRangePushEx(&ea);
		break;
	default: /* a library's own domain */
		ea.message.ascii = name;
		nvtxDomainRangePushEx(domain, &ea);
		if (i < GMP_RANGE_DEPTH_MAX)
			in_domain[i] = 1;
	}
}

/* The double's own NVTX domain, a library's: made once, by whichever thread comes first. */
static nvtxDomainHandle_t double_domain(void)
{
	static nvtxDomainHandle_t made;
	nvtxDomainHandle_t domain = __atomic_load_n(&made, __ATOMIC_ACQUIRE);
	if (!domain) {
		nvtxDomainHandle_t d = nvtxDomainCreateA("gmprof-double");
		if (__atomic_compare_exchange_n(&made, &domain, d, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			domain = d;
		else
			nvtxDomainDestroy(d); /* another thread's won: domain holds it */
	}
	return domain;
}

int double_nvtx_mark(const struct gmp_trace *t, const struct gmp_mark *m, size_t k)
{
	const char *name = gmp_trace__str(t, m->name, NULL);
	wchar_t wide[128];
	nvtxEventAttributes_t ea = { .version = NVTX_VERSION, .size = NVTX_EVENT_ATTRIB_STRUCT_SIZE,
				     .messageType = NVTX_MESSAGE_TYPE_ASCII, .message.ascii = name };
	switch (k % 5) {
	case 0: nvtxMarkA(name); break;
	case 1: nvtxMarkW(widen(name, wide)); break;
	case 2: nvtxMarkEx(&ea); break;
	case 3: /* by a registered string */
		ea.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
		ea.message.registered = nvtxDomainRegisterStringA(double_domain(), name);
		nvtxDomainMarkEx(double_domain(), &ea);
		break;
	default: nvtxDomainMarkEx(double_domain(), &ea); break;
	}
	return 0;
}

/* A second library's domain, for GMP_DOUBLE_NVTX_CROSS (double_nvtx_ranges): "gmprof-cross", or GMP_DOUBLE_NVTX_CROSS_NAME. */
static nvtxDomainHandle_t cross_domain(void)
{
	static nvtxDomainHandle_t made;
	nvtxDomainHandle_t domain = __atomic_load_n(&made, __ATOMIC_ACQUIRE);
	if (!domain) {
		const char *name = getenv("GMP_DOUBLE_NVTX_CROSS_NAME"); /* another name (a long one) */
		domain = nvtxDomainCreateA(name ? name : "gmprof-cross");
		__atomic_store_n(&made, domain, __ATOMIC_RELEASE); /* the same handle, made again or not */
	}
	return domain;
}

static __thread int cross_outer; /* GMP_DOUBLE_NVTX_CROSS=outer: this thread's range is open */

/*
 * GMP_DOUBLE_NVTX_CROSS=1: at every change of a thread's ranges, a range
 * of another domain ("crossing", in "gmprof-cross") is pushed before the
 * script's are popped, and popped after the new ones are pushed: each
 * domain's pops end its own ranges, not the thread's innermost, so the
 * profile still has the script's.  =outer: a range "library" of that
 * domain is pushed at the thread's first change and never popped, so the
 * thread's every call is made in it (unless the domain is left out).
 */
static void cross(int before)
{
	const char *v = getenv("GMP_DOUBLE_NVTX_CROSS");
	if (!v)
		return;
	nvtxEventAttributes_t ea = { .version = NVTX_VERSION, .size = NVTX_EVENT_ATTRIB_STRUCT_SIZE,
				     .messageType = NVTX_MESSAGE_TYPE_ASCII };
	if (!strcmp(v, "outer")) {
		if (before && !cross_outer++) {
			ea.message.ascii = "library";
			nvtxDomainRangePushEx(cross_domain(), &ea);
		}
		return;
	}
	/* Left out, the domain's stack is not kept: NVTX's "no tracking" for every push and pop. */
	const char *ex = getenv("GMPROF_NVTX_DOMAIN_EXCLUDE");
	const int untracked = ex && strstr(ex, "gmprof-cross");
	int level, want;
	if (before) {
		/* Its level is its domain's: 0, however deep the thread's other ranges are. */
		ea.message.ascii = "crossing";
		level = nvtxDomainRangePushEx(cross_domain(), &ea);
		want = untracked ? NVTX_NO_PUSH_POP_TRACKING : 0;
	} else if ((level = nvtxDomainRangePop(cross_domain())) == (want = untracked ? NVTX_NO_PUSH_POP_TRACKING : 0)) {
		/* And a pop with none of the domain's open: -1, the thread's ranges untouched. */
		level = nvtxDomainRangePop(cross_domain());
		want = untracked ? NVTX_NO_PUSH_POP_TRACKING : -1;
	}
	if (level != want) {
		fprintf(stderr, "double: a %s of gmprof-cross gave level %d, not %d\n", before ? "push" : "pop", level,
			want);
		abort();
	}
}

int double_nvtx_ranges(const struct gmp_trace *t, const struct gmp_range_change *c, uint32_t *cur)
{
	nvtxDomainHandle_t domain = double_domain();
	cross(1);
	const uint32_t *a, *b;
	size_t na = gmp_trace__range_path(t, *cur, &a), nb = gmp_trace__range_path(t, c->path, &b), k = 0;
	while (k < na && k < nb && a[k] == b[k])
		k++;
	const char *how = getenv("GMP_DOUBLE_NVTX_RANGES");
	int elsewhere = how && !strcmp(how, "elsewhere"), mixed = how && !strcmp(how, "mixed");
	int by_id = elsewhere || (how && !strcmp(how, "startend")), registered = how && !strcmp(how, "registered");
	for (size_t i = na; i > k; i--) {
		if (by_id || (mixed && (i - 1) % 2 == 0)) {
			if (start_end(domain, NULL, i - 1, elsewhere))
				return -2;
		} else if (i <= GMP_RANGE_DEPTH_MAX && in_domain[i - 1]) {
			nvtxDomainRangePop(domain);
		} else {
			nvtxRangePop();
		}
	}
	for (size_t i = k; i < nb; i++) {
		const char *name = gmp_trace__str(t, b[i], NULL);
		if (by_id || (mixed && i % 2 == 0)) {
			if (start_end(domain, name, i, elsewhere))
				return -2;
		} else if (registered) {
			push_registered(domain, name, i);
		} else {
			push(domain, name, i);
		}
	}
	cross(0);
	*cur = c->path;
	return 0;
}

void double_nvtx_name_thread(unsigned k, int after)
{
	const char *v = getenv("GMP_DOUBLE_NVTX_THREAD_NAMES");
	if (!v || strcmp(v, "1") || (k == 0) != (after != 0))
		return;
	char name[32];
	wchar_t wide[128];
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	snprintf(name, sizeof(name), k ? "nvtx-worker-%u" : "nvtx-main", k);
	if (k % 2)
		nvtxNameOsThreadA(tid, name);
	else
		nvtxNameOsThreadW(tid, widen(name, wide));
}

void double_nvtx_name_stream(uint32_t n, void *handle)
{
	const char *v = getenv("GMP_DOUBLE_NVTX_STREAM_NAMES");
	if (!v || (strcmp(v, "1") && strcmp(v, "bogus")))
		return;
#if HAVE_NVTX_CUDA
	char name[32];
	wchar_t wide[128];
	if (!handle)
		snprintf(name, sizeof(name), "nvtx-legacy");
	else
		snprintf(name, sizeof(name), (uintptr_t)handle == 2 ? "nvtx-default-%u" : "nvtx-stream-%u", n);
	switch (n % 4) { /* the runtime's and the driver's, A and W */
	case 0: nvtxNameCudaStreamA((cudaStream_t)handle, name); break;
	case 1: nvtxNameCuStreamA((CUstream)handle, name); break;
	case 2: nvtxNameCudaStreamW((cudaStream_t)handle, widen(name, wide)); break;
	default: nvtxNameCuStreamW((CUstream)handle, widen(name, wide)); break;
	}
#else
	(void)n;
	(void)handle;
	fprintf(stderr, "double: GMP_DOUBLE_NVTX_STREAM_NAMES needs the toolkit's cuda.h\n");
	abort();
#endif
}

static unsigned long n_unregisters;

int nvtx_mode(const char *m)
{
	const char *v = getenv("GMP_DOUBLE_NVTX");
	return v && !strcmp(v, m);
}

static unsigned long n_names;

/*
 * Names a region as an allocator would after handing it out: by handle
 * with a char string and by pointer with a wchar_t string (the UTF-8 label
 * decoded), in turn.
 */
static void region_name(nvtxMemRegionHandle_t handle, uint64_t addr, const char *label)
{
	int by_handle = __atomic_fetch_add(&n_names, 1, __ATOMIC_RELAXED) % 2 == 0;
	/* The label (valid UTF-8: the script reader checked it) decoded by hand, not with
	   mbstowcs: glibc's conversion state is not safe for ThreadSanitizer across threads. */
	wchar_t wide[128] = { 0 };
	const unsigned char *u = (const unsigned char *)label;
	for (size_t i = 0; *u && i + 1 < sizeof(wide) / sizeof(wide[0]); i++) {
		size_t k = *u < 0x80 ? 1 : *u < 0xe0 ? 2 : *u < 0xf0 ? 3 : 4;
		uint32_t c = k == 1 ? *u : *u & (0x7f >> k);
		for (size_t j = 1; j < k && u[j]; j++)
			c = c << 6 | (u[j] & 0x3f);
		wide[i] = (wchar_t)c;
		for (size_t j = 0; j < k && *u; j++)
			u++;
	}
	nvtxMemRegionNameDesc_t d = { .regionRefType = by_handle ? NVTX_MEM_REGION_REF_TYPE_HANDLE
								 : NVTX_MEM_REGION_REF_TYPE_POINTER,
				      .nameType = by_handle ? NVTX_MESSAGE_TYPE_ASCII : NVTX_MESSAGE_TYPE_UNICODE };
	if (by_handle) {
		d.region.handle = handle;
		d.name.ascii = label;
	} else {
		d.region.pointer = (void *)(uintptr_t)addr;
		d.name.unicode = wide;
	}
	if (nvtx_mode("regnames")) {
		d.nameType = NVTX_MESSAGE_TYPE_REGISTERED;
		d.name.registered = by_handle ? nvtxDomainRegisterStringA(NULL, label)
					      : nvtxDomainRegisterStringW(NULL, wide);
	}
	nvtxMemRegionsNameBatch_t b = { .extCompatID = NVTX_EXT_COMPATID_MEM, .structSize = sizeof(b),
					.regionCount = 1, .regionElementSize = sizeof(d), .regionElements = &d };
	nvtxMemRegionsName(NULL, &b);
}

void *region_register(struct live *live, size_t nlive, uint64_t addr, uint64_t size,
		      const char *label)
{
	void *heap = NULL;
	for (size_t k = 0; k < nlive; k++) {
		struct live *p = &live[k];
		if (p->kind == GMP_MEM_POOL_REGION || addr < p->addr || addr + size > p->addr + p->size)
			continue;
		if (!p->handle) {
			nvtxMemVirtualRangeDesc_t r = { .size = p->size, .ptr = (void *)(uintptr_t)p->addr };
			nvtxMemHeapDesc_t hd = { .extCompatID = NVTX_EXT_COMPATID_MEM,
						 .structSize = sizeof(hd),
						 .usage = NVTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR,
						 .type = NVTX_MEM_TYPE_VIRTUAL_ADDRESS,
						 .typeSpecificDescSize = sizeof(r), .typeSpecificDesc = &r };
			if (p->label && nvtx_mode("heapnames")) {
				hd.messageType = NVTX_MESSAGE_TYPE_ASCII;
				hd.message.ascii = p->label;
			} else if (p->label && nvtx_mode("regnames")) {
				hd.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
				hd.message.registered = nvtxDomainRegisterStringA(NULL, p->label);
			}
			p->handle = nvtxMemHeapRegister(NULL, &hd);
		}
		heap = p->handle;
		break;
	}
	nvtxMemVirtualRangeDesc_t r = { .size = size, .ptr = (void *)(uintptr_t)addr };
	nvtxMemRegionHandle_t handle = NULL;
	nvtxMemRegionsRegisterBatch_t b = { .extCompatID = NVTX_EXT_COMPATID_MEM, .structSize = sizeof(b),
					    .regionType = NVTX_MEM_TYPE_VIRTUAL_ADDRESS, .heap = heap,
					    .regionCount = 1, .regionDescElementSize = sizeof(r),
					    .regionDescElements = &r, .regionHandleElementsOut = &handle };
	nvtxMemRegionsRegister(NULL, &b);
	if (nvtx_mode("resize")) {
		nvtxMemRegionsResizeBatch_t rb = { .extCompatID = NVTX_EXT_COMPATID_MEM, .structSize = sizeof(rb),
						   .regionType = NVTX_MEM_TYPE_VIRTUAL_ADDRESS, .regionDescCount = 1,
						   .regionDescElementSize = sizeof(r), .regionDescElements = &r };
		nvtxMemRegionsResize(NULL, &rb);
	}
	if (label)
		region_name(handle, addr, label);
	return handle;
}

/* By handle and by pointer in turn: both name the region. */
void region_unregister(const struct live *l)
{
	int by_handle = __atomic_fetch_add(&n_unregisters, 1, __ATOMIC_RELAXED) % 2 == 0;
	nvtxMemRegionRef_t ref;
	if (by_handle)
		ref.handle = l->handle;
	else
		ref.pointer = (void *)(uintptr_t)l->addr;
	nvtxMemRegionsUnregisterBatch_t b = { .extCompatID = NVTX_EXT_COMPATID_MEM, .structSize = sizeof(b),
					      .refType = by_handle ? NVTX_MEM_REGION_REF_TYPE_HANDLE
								   : NVTX_MEM_REGION_REF_TYPE_POINTER,
					      .refCount = 1, .refElementSize = sizeof(ref), .refElements = &ref };
	nvtxMemRegionsUnregister(NULL, &b);
}

void nvtx_heap_reset(void *heap)
{
	nvtxMemHeapReset(NULL, heap);
}

void nvtx_heap_unregister(void *heap)
{
	nvtxMemHeapUnregister(NULL, heap);
}

void double_nvtx_start(void)
{
	/*
	 * NVTX loads its tool on a module's first call, with a check of its
	 * state that ThreadSanitizer reports when threads race to it (NVTX's
	 * code, not gmprof's): make that first call here, with no regions.
	 */
	nvtxMemRegionsUnregisterBatch_t none = { .extCompatID = NVTX_EXT_COMPATID_MEM,
						 .structSize = sizeof(none),
						 .refType = NVTX_MEM_REGION_REF_TYPE_POINTER };
	nvtxMemRegionsUnregister(NULL, &none);
}

static int spinning;

static void *spin_ranges(void *arg)
{
	(void)arg;
	while (__atomic_load_n(&spinning, __ATOMIC_ACQUIRE))
		nvtxRangeEnd(nvtxRangeStartA("parent"));
	return NULL;
}

int gmp_double_fork_during_ranges(int n)
{
	pthread_t th;
	__atomic_store_n(&spinning, 1, __ATOMIC_RELEASE);
	if (pthread_create(&th, NULL, spin_ranges, NULL))
		return -1;
	int bad = 0;
	for (int k = 0; k < n && !bad; k++) {
		pid_t pid = fork();
		if (pid == 0) {
			nvtxRangeEnd(nvtxRangeStartA("worker"));
			_exit(0);
		}
		int st = 0, waited = 0;
		pid_t got = 0;
		while (pid > 0 && !(got = waitpid(pid, &st, WNOHANG)) && waited++ < 10000)
			usleep(1000);
		if (pid > 0 && !got)
			kill(pid, SIGKILL), waitpid(pid, &st, 0);
		bad = pid < 0 || got != pid || !WIFEXITED(st) || WEXITSTATUS(st);
	}
	__atomic_store_n(&spinning, 0, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	return bad ? -1 : 0;
}
#else
int gmp_double_fork_during_ranges(int n)
{
	(void)n;
	return -1;
}
int double_nvtx_ranges(const struct gmp_trace *t, const struct gmp_range_change *c, uint32_t *cur)
{
	(void)t;
	(void)c;
	(void)cur;
	return -ENOTSUP;
}
int double_nvtx_mark(const struct gmp_trace *t, const struct gmp_mark *m, size_t k)
{
	(void)t;
	(void)m;
	(void)k;
	return -ENOTSUP;
}
void double_nvtx_start(void)
{
}
void double_nvtx_name_thread(unsigned k, int after)
{
	(void)k;
	(void)after;
}
void double_nvtx_name_stream(uint32_t n, void *handle)
{
	(void)n;
	(void)handle;
	if (getenv("GMP_DOUBLE_NVTX_STREAM_NAMES")) {
		fprintf(stderr, "double: GMP_DOUBLE_NVTX_STREAM_NAMES needs the toolkit's nvtx3 headers\n");
		abort();
	}
}
#endif
