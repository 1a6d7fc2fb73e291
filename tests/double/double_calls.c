// SPDX-License-Identifier: MIT
/* The API calls the test double makes beside a script's events (double_calls.h). */
#define _GNU_SOURCE
#include "double_calls.h"
#include "double_nvtx.h"
#include "double_patch.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * API callback ids: one per function, in the order the double first calls
 * them (a real Sanitizer's are the toolkit's callback ids), or 1 for every
 * function with GMP_DOUBLE_API_IDS=one, as a library whose ids were not
 * per function would give them.
 */
#define API_IDS 256
static struct {
	pthread_mutex_t lock;
	int one;                       /* GMP_DOUBLE_API_IDS=one */
	size_t n;
	const char *name[API_IDS];
	uint8_t off[2][API_IDS + 1];   /* atomic: turned off (sanitizerEnableCallback), [0] driver */
	unsigned long delivered, skipped; /* atomic */
} ids = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void read_ids_env(void)
{
	const char *v = getenv("GMP_DOUBLE_API_IDS");
	ids.one = v && !strcmp(v, "one");
}

static Sanitizer_CallbackId api_id(const char *name)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, read_ids_env);
	if (ids.one)
		return 1;
	pthread_mutex_lock(&ids.lock);
	size_t i = 0;
	while (i < ids.n && strcmp(ids.name[i], name))
		i++;
	if (i == ids.n && ids.n < API_IDS)
		ids.name[ids.n++] = name; /* the double's names are string literals */
	pthread_mutex_unlock(&ids.lock);
	return (Sanitizer_CallbackId)(i + 1);
}

SanitizerResult double_api_enable(uint32_t enable, Sanitizer_CallbackDomain d, Sanitizer_CallbackId cbid)
{
	if (cbid < 1 || cbid > API_IDS)
		return SANITIZER_ERROR_INVALID_PARAMETER;
	__atomic_store_n(&ids.off[d == SANITIZER_CB_DOMAIN_RUNTIME_API][cbid], !enable, __ATOMIC_RELEASE);
	return SANITIZER_SUCCESS;
}

static int api_off(Sanitizer_CallbackDomain d, Sanitizer_CallbackId cbid)
{
	return cbid <= API_IDS && __atomic_load_n(&ids.off[d == SANITIZER_CB_DOMAIN_RUNTIME_API][cbid], __ATOMIC_ACQUIRE);
}

/* An API callback, unless its id was turned off. */
static void api_deliver(Sanitizer_CallbackDomain d, Sanitizer_CallbackData *cd)
{
	Sanitizer_CallbackId cbid = api_id(cd->functionName);
	if (api_off(d, cbid)) {
		__atomic_add_fetch(&ids.skipped, 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_add_fetch(&ids.delivered, 1, __ATOMIC_RELAXED);
	double_deliver(d, cbid, cd);
}

/* Switches the calls below read on every call, read once (getenv walks the environment). */
static struct {
	int per_thread, symbol_copies, stream_reuse;
	const char *poll, *poll_api, *texture;
} sw;
static void read_switches(void)
{
	const char *v = getenv("GMP_DOUBLE_PER_THREAD");
	sw.per_thread = v && !strcmp(v, "1");
	v = getenv("GMP_DOUBLE_SYMBOL_COPIES");
	sw.symbol_copies = v && !strcmp(v, "1");
	sw.stream_reuse = getenv("GMP_DOUBLE_STREAM_REUSE") != NULL;
	v = getenv("GMP_DOUBLE_POLL");
	sw.poll = v && strcmp(v, "0") ? v : NULL;
	sw.poll_api = getenv("GMP_DOUBLE_POLL_API");
	sw.texture = getenv("GMP_DOUBLE_TEXTURE");
}

static void switches(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, read_switches);
}

int double_stream_reuse(void)
{
	switches();
	return sw.stream_reuse;
}

/* GMP_DOUBLE_PER_THREAD=1: name as a program built with --default-stream per-thread calls it (_ptsz). */
static const char *per_thread(const char *name)
{
	static char names[32][64];
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	switches();
	if (!sw.per_thread)
		return name;
	static const char *const on_streams[] = { "Launch", "Memcpy", "Memset", "Async", "Stream", "Event", "Graph" };
	int on_stream = 0; /* cudaMalloc, cudaFree and the like have no per-thread variant */
	for (size_t i = 0; i < sizeof(on_streams) / sizeof(on_streams[0]); i++)
		on_stream |= strstr(name, on_streams[i]) != NULL;
	if (!on_stream)
		return name;
	const char *out = name;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < 32; i++) {
		if (!names[i][0])
			snprintf(names[i], sizeof(names[i]), "%s_ptsz", name);
		if (!strncmp(names[i], name, strlen(name)) && !strcmp(names[i] + strlen(name), "_ptsz")) {
			out = names[i];
			break;
		}
	}
	pthread_mutex_unlock(&lock);
	return out;
}

void double_api(const char *name, Sanitizer_ApiCallbackSite site)
{
	Sanitizer_CallbackData cd = { .callbackSite = site, .functionName = per_thread(name), .context = DOUBLE_CTX };
	api_deliver(SANITIZER_CB_DOMAIN_RUNTIME_API, &cd);
}

void double_api_params(const char *name, const void *params, Sanitizer_ApiCallbackSite site)
{
	static const int ok = 0;
	Sanitizer_CallbackData cd = { .callbackSite = site, .functionName = name, .functionParams = params,
				      .functionReturnValue = site == SANITIZER_API_EXIT ? &ok : NULL,
				      .context = DOUBLE_CTX };
	api_deliver(strncmp(name, "cuda", 4) ? SANITIZER_CB_DOMAIN_DRIVER_API : SANITIZER_CB_DOMAIN_RUNTIME_API, &cd);
}

void double_streams_made(const struct gmp_trace *t, uint32_t last, uint32_t base)
{
	const char *api = getenv("GMP_DOUBLE_STREAM_API");
	switches();
	if (sw.per_thread) /* GMP_DOUBLE_NVTX_STREAM_NAMES: the default stream, the thread's or the legacy one */
		double_nvtx_name_stream(base, (void *)(uintptr_t)2);
	else if (!base)
		double_nvtx_name_stream(0, NULL);
	const char *v = getenv("GMP_DOUBLE_NVTX_STREAM_NAMES");
	if (!base && v && !strcmp(v, "bogus")) /* and a handle that is no stream: the collector says so */
		double_nvtx_name_stream(99, (void *)(uintptr_t)0x7e570000);
	for (uint32_t n = 1; n <= last; n++) {
		const struct gmp_stream_info *decl = NULL;
		for (size_t i = 0; i < t->nstreams && !decl; i++)
			if (t->streams[i].number == n && (t->streams[i].flags & GMP_STREAM_KNOWN))
				decl = &t->streams[i];
		Sanitizer_ResourceStreamData sd = { .context = DOUBLE_CTX, .stream = double_stream_handle(base + n),
						    .hStream = double_hstream(base + n) };
		if (!decl) { /* made by a call the collector does not read */
			double_deliver(SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CBID_RESOURCE_STREAM_CREATED, &sd);
			double_nvtx_name_stream(base + n, sd.stream);
			continue;
		}
		const int blocking = gmp_stream__blocking(decl->flags);
		const char *name = api && !strcmp(api, "driver") ? "cuStreamCreate"
				   : api && !strcmp(api, "plain") && blocking ? "cudaStreamCreate" : "cudaStreamCreateWithFlags";
		CUstream made = NULL;
		struct { CUstream *at; unsigned flags; } params = { &made, blocking ? 0u : 1u };
		int rv = 0;
		Sanitizer_CallbackDomain dom = name[2] == 'd' ? SANITIZER_CB_DOMAIN_RUNTIME_API : SANITIZER_CB_DOMAIN_DRIVER_API;
		Sanitizer_CallbackData cd = { .callbackSite = SANITIZER_API_ENTER, .functionName = name,
					      .functionParams = &params, .context = DOUBLE_CTX };
		api_deliver(dom, &cd);
		double_deliver(SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CBID_RESOURCE_STREAM_CREATED, &sd);
		made = sd.stream; /* written before the call returns */
		cd.callbackSite = SANITIZER_API_EXIT;
		cd.functionReturnValue = &rv;
		api_deliver(dom, &cd);
		double_nvtx_name_stream(base + n, sd.stream);
	}
}

static void driver_api(const char *name, Sanitizer_ApiCallbackSite site)
{
	Sanitizer_CallbackData cd = { .callbackSite = site, .functionName = name, .context = DOUBLE_CTX };
	api_deliver(SANITIZER_CB_DOMAIN_DRIVER_API, &cd);
}

/*
 * GMP_DOUBLE_QUERIES=n: before each event, n rounds of calls that make no
 * GPU work, as a framework makes around every operation: cudaGetDevice
 * (cuCtxGetCurrent and cuCtxGetDevice inside it), cudaGetLastError and cudaStreamQuery (not
 * such a call: a completed query tells the program that work finished).
 * GMP_DOUBLE_QUERIES_WAIT=1: after the first round, wait up to 10 s for
 * the collector to turn the query calls' callbacks off, so that tests
 * count at most one round of them.
 */
static long queries = -1;
static int queries_wait;
static void read_queries_env(void)
{
	const char *v = getenv("GMP_DOUBLE_QUERIES");
	queries = v ? strtol(v, NULL, 10) : 0;
	v = getenv("GMP_DOUBLE_QUERIES_WAIT");
	queries_wait = v && !strcmp(v, "1");
}

static void query_round(void)
{
	double_api("cudaGetDevice", SANITIZER_API_ENTER);
	driver_api("cuCtxGetCurrent", SANITIZER_API_ENTER);
	driver_api("cuCtxGetCurrent", SANITIZER_API_EXIT);
	driver_api("cuCtxGetDevice", SANITIZER_API_ENTER);
	driver_api("cuCtxGetDevice", SANITIZER_API_EXIT);
	double_api("cudaGetDevice", SANITIZER_API_EXIT);
	double_api("cudaGetLastError", SANITIZER_API_ENTER);
	double_api("cudaGetLastError", SANITIZER_API_EXIT);
	double_api("cudaStreamQuery", SANITIZER_API_ENTER);
	double_api("cudaStreamQuery", SANITIZER_API_EXIT);
}

/* Whether the collector turned off the callbacks of query_round's calls that make no GPU work. */
static int queries_off(void)
{
	static const char *const quiet[] = { "cudaGetDevice", "cuCtxGetCurrent", "cuCtxGetDevice", "cudaGetLastError" };
	for (size_t i = 0; i < 4; i++)
		if (!api_off(strncmp(quiet[i], "cuda", 4) ? SANITIZER_CB_DOMAIN_DRIVER_API : SANITIZER_CB_DOMAIN_RUNTIME_API,
			     api_id(quiet[i])))
			return 0;
	return 1;
}

/* GMP_DOUBLE_PACE=1: each event no sooner than its time_ns after the first (of any thread). */
static int pace_on;
static void read_pace_env(void)
{
	const char *v = getenv("GMP_DOUBLE_PACE");
	pace_on = v && !strcmp(v, "1");
}

static void pace(uint64_t ns)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	static uint64_t t0; /* atomic: when time 0 was */
	struct timespec now;
	pthread_once(&once, read_pace_env);
	if (!pace_on || !ns || clock_gettime(CLOCK_MONOTONIC, &now))
		return;
	uint64_t at = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec, zero = 0;
	__atomic_compare_exchange_n(&t0, &zero, at - ns, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	uint64_t due = __atomic_load_n(&t0, __ATOMIC_RELAXED) + ns;
	if (at < due) {
		struct timespec ts = { (time_t)((due - at) / 1000000000u), (long)((due - at) % 1000000000u) };
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
}

void double_sync_call(const char *name, Sanitizer_CallbackDomain d, Sanitizer_CallbackId cbid, const void *data)
{
	double_api(name, SANITIZER_API_ENTER);
	double_deliver(d, cbid, data);
	double_api(name, SANITIZER_API_EXIT);
}

void double_before_event(const struct gmp_event *e)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pace(e->host_ns);
	pthread_once(&once, read_queries_env);
	for (long r = 0; r < queries; r++) {
		query_round();
		if (!queries_wait || ids.one)
			continue;
		queries_wait = 0; /* once: the first round's */
		for (int ms = 0; ms < 10000 && !queries_off(); ms++)
			usleep(1000);
	}
}

/*
 * GMP_DOUBLE_STATS=api: the API callbacks delivered and those whose ids
 * were turned off, a line at exit (in place of the counts GMP_DOUBLE_STATS=1
 * prints, double_memory.c).
 */
__attribute__((destructor)) static void print_api_stats(void)
{
	const char *v = getenv("GMP_DOUBLE_STATS");
	if (!v || strcmp(v, "api"))
		return;
	size_t off = 0;
	for (int d = 0; d < 2; d++)
		for (size_t i = 1; i <= API_IDS; i++)
			off += ids.off[d][i];
	fprintf(stderr, "sanitizer double: api callbacks %lu delivered, %lu not (ids turned off: %zu)\n",
		__atomic_load_n(&ids.delivered, __ATOMIC_RELAXED), __atomic_load_n(&ids.skipped, __ATOMIC_RELAXED), off);
}

static int no_driver_launch; /* GMP_DOUBLE_DRIVER_LAUNCH=0, read once */
static const char *launch_api;  /* GMP_DOUBLE_LAUNCH_API=NAME: every launch through that driver call */
static void read_driver_launch(void)
{
	const char *v = getenv("GMP_DOUBLE_DRIVER_LAUNCH");
	no_driver_launch = v && !strcmp(v, "0");
	launch_api = getenv("GMP_DOUBLE_LAUNCH_API");
}

void double_driver_launch(CUfunction fn, const char *kernel, Sanitizer_ApiCallbackSite site)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, read_driver_launch);
	if (no_driver_launch)
		return;
	/*
	 * The driver calls a runtime's launches become, in turn (each launch's
	 * enter and exit the same), or GMP_DOUBLE_LAUNCH_API's alone:
	 * cuLaunchKernel's parameters start with the function, as do the
	 * per-thread stream's and cooperative launches'; cuLaunchKernelEx's with
	 * the launch's configuration, then the function.
	 */
	static const char *const names[] = { "cuLaunchKernel", "cuLaunchKernelEx", "cuLaunchKernel_ptsz",
					     "cuLaunchCooperativeKernel", "cuLaunchKernelEx_ptsz" };
	static unsigned long launches;
	static __thread unsigned long mine;
	if (site == SANITIZER_API_ENTER)
		mine = __atomic_fetch_add(&launches, 1, __ATOMIC_RELAXED) % 5;
	const char *name = launch_api && *launch_api ? launch_api : names[mine];
	static const int config[8];
	void *params[11] = { (void *)fn }; /* the function, the grid, ..., extra */
	if (strstr(name, "Ex")) {
		params[0] = (void *)config; /* const CUlaunchConfig * */
		params[1] = (void *)fn;
	}
	if (site == SANITIZER_API_ENTER) /* its parameters: the tensor map's, where the kernel takes one */
		double_tensormap_params(kernel, name, params);
	Sanitizer_CallbackData cd = { .callbackSite = site, .functionName = name,
				      .functionParams = params, .context = DOUBLE_CTX };
	api_deliver(SANITIZER_CB_DOMAIN_DRIVER_API, &cd);
}

/* A call named name (the runtime's when it starts with "cuda") with these parameters, returning rv. */
void double_api_call(const char *name, const void *params, int rv)
{
	Sanitizer_CallbackDomain dom = strncmp(name, "cuda", 4) ? SANITIZER_CB_DOMAIN_DRIVER_API
								: SANITIZER_CB_DOMAIN_RUNTIME_API;
	Sanitizer_CallbackData cd = { .callbackSite = SANITIZER_API_ENTER, .functionName = name,
				      .functionParams = params, .context = DOUBLE_CTX };
	api_deliver(dom, &cd);
	cd.callbackSite = SANITIZER_API_EXIT;
	cd.functionReturnValue = &rv;
	api_deliver(dom, &cd);
}

/* GMP_DOUBLE_POLL's queries: n of handle's answered not ready (cudaErrorNotReady, CUDA_ERROR_NOT_READY: 600), then done times. */
static int polls(const void *handle, int event, int n, long done)
{
	switches();
	if (!sw.poll)
		return 0;
	const int driver = sw.poll_api && !strcmp(sw.poll_api, "driver");
	const char *name = event ? (driver ? "cuEventQuery" : "cudaEventQuery")
				 : (driver ? "cuStreamQuery" : "cudaStreamQuery");
	const void *params[1] = { handle };
	for (int i = 0; i < n; i++)
		double_api_call(per_thread(name), params, 600);
	for (done = done < 0 ? strtol(sw.poll, NULL, 10) : done; done > 0; done--)
		double_api_call(per_thread(name), params, 0);
	return 1;
}

void double_symbol_copy(CUstream stream, Sanitizer_StreamHandle hs)
{
	switches();
	if (!sw.symbol_copies)
		return;
	Sanitizer_MemcpyData md = { .srcContext = DOUBLE_CTX, .dstContext = DOUBLE_CTX, .srcStream = stream,
				    .hSrcStream = hs, .dstStream = stream, .hDstStream = hs,
				    .srcAddress = 0x7e0000, /* a module's variable: no object */
				    .dstAddress = 0x10, .size = 4, .width = 4, .height = 1, .depth = 1, .isAsync = 0,
				    .direction = SANITIZER_MEMCPY_DIRECTION_DEVICE_TO_HOST, .apiContext = DOUBLE_CTX,
				    .apiStream = stream, .hApiStream = hs };
	double_api("cudaMemcpyFromSymbol", SANITIZER_API_ENTER);
	double_deliver(SANITIZER_CB_DOMAIN_MEMCPY, SANITIZER_CBID_MEMCPY_STARTING, &md);
	double_api("cudaMemcpyFromSymbol", SANITIZER_API_EXIT);
}

int double_query(const void *handle, int event)
{
	return polls(handle, event, 2, -1);
}

void double_query_busy(const void *stream)
{
	polls(stream, 0, 1, 0);
}

void double_texture(uint64_t addr, int make)
{
	switches();
	const char *at = sw.texture;
	if (!at)
		return; /* the other switches are read only where there is a texture */
	const char *api = getenv("GMP_DOUBLE_TEXTURE_API"), *type = getenv("GMP_DOUBLE_TEXTURE_TYPE"),
		   *keep = getenv("GMP_DOUBLE_TEXTURE_KEEP"), *end = getenv("GMP_DOUBLE_TEXTURE_END");
	if (!make && keep && !strcmp(keep, "1"))
		return;
	const uint64_t obj = strtoull(at, NULL, 0);
	if (addr != (!make && end ? strtoull(end, NULL, 0) : obj))
		return;
	addr = obj;
	const int driver = api && !strcmp(api, "driver");
	const char *name = make ? (driver ? "cuTexObjectCreate" : "cudaCreateTextureObject")
				: (driver ? "cuTexObjectDestroy" : "cudaDestroyTextureObject");
	uint64_t handle = 0x7e00 + (addr & 0xff);
	/* A resource description: its type, then (linear, pitch2D) the device pointer at offset 8. */
	struct { int type; uint64_t ptr, rest[6]; } res = { type ? atoi(type) : 2, addr, { 0 } };
	int texdesc[16] = { 0 };
	void *params[4] = { &handle, &res, texdesc, NULL };
	if (!make)
		memcpy(&params[0], &handle, sizeof(handle)); /* destroyed by value */
	double_api_call(name, params, 0);
}

void double_replay_failure(const struct gmp_trace *t, const struct gmp_alloc_failure *f)
{
	static const char *const by_kind[] = { "cudaMalloc", "cudaMallocManaged", "cudaMallocAsync" };
	const char *name = f->api ? gmp_trace__str(t, f->api, NULL)
			   : f->kind < 3 ? by_kind[f->kind]
			   : f->kind == GMP_MEM_ARRAY ? "cudaMallocArray" : "cudaMalloc";
	size_t params[6] = { 0x7ff000 };
	/* An array: floats (bytes when the size is no multiple of 4), one row of them. */
	const int floats = f->size % 4 == 0;
	const size_t width = (size_t)(floats ? f->size / 4 : f->size);
	const int channel[5] = { floats ? 32 : 8, 0, 0, 0, floats ? 2 : 1 }; /* cudaChannelFormatDesc */
	struct { size_t w, h; unsigned format, channels; } a2 = { width, 0, floats ? 0x20u : 0x01u, 1 };
	struct { size_t w, h, d; unsigned format, channels, flags; } a3 = { width, 0, 0, floats ? 0x20u : 0x01u, 1, 0 };
	if (strstr(name, "cuArray3DCreate")) {
		params[1] = (size_t)(uintptr_t)&a3; /* CUDA_ARRAY3D_DESCRIPTOR * */
	} else if (strstr(name, "cuArrayCreate")) {
		params[1] = (size_t)(uintptr_t)&a2; /* CUDA_ARRAY_DESCRIPTOR * */
	} else if (strstr(name, "Array")) {
		params[1] = (size_t)(uintptr_t)channel; /* cudaMallocArray's, cudaMalloc3DArray's: then the width */
		params[2] = width;
	} else if (strstr(name, "Pitch")) {
		params[2] = (size_t)f->size; /* width in bytes, height 1 */
		params[3] = 1;
	} else {
		params[1] = (size_t)f->size;
	}
	if (strstr(name, "Async"))
		params[strstr(name, "FromPool") ? 3 : 2] = (size_t)(uintptr_t)double_stream_handle(f->stream);
	double_api_call(name, params, 2); /* cudaErrorMemoryAllocation, CUDA_ERROR_OUT_OF_MEMORY */
}

static int frees_sync = -1;
static void read_frees_sync(void)
{
	const char *v = getenv("GMP_DOUBLE_FREE_SYNCS");
	frees_sync = v && !strcmp(v, "1");
}

int double_frees_sync(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, read_frees_sync);
	return frees_sync;
}

static int sync_copies;
static void read_sync_copies(void)
{
	const char *v = getenv("GMP_DOUBLE_SYNC_COPIES");
	sync_copies = v && *v == '1';
}

int double_sync_copies(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, read_sync_copies);
	return sync_copies;
}

static const char *profiler_env;
static void read_profiler_env(void)
{
	profiler_env = getenv("GMP_DOUBLE_PROFILER");
	profiler_env = profiler_env ? profiler_env : "";
}

void double_profiler_calls(size_t i)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, read_profiler_env);
	const char *v = profiler_env;
	int k = 0;
	for (const char *p = v; *p; k++, p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
		if (strtoul(p, NULL, 10) == i) {
			const char *name = k % 2 ? "cudaProfilerStop" : "cudaProfilerStart";
			double_api(name, SANITIZER_API_ENTER);
			double_api(name, SANITIZER_API_EXIT);
		}
}

static long reset_at = -2; /* -2 not read, -1 never */
static void read_reset_at(void)
{
	const char *v = getenv("GMP_DOUBLE_RESET_AT");
	reset_at = v && *v ? strtol(v, NULL, 10) : -1;
}

void double_reset_calls(size_t i, struct live *live, size_t *nlive)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, read_reset_at);
	if (reset_at < 0 || (size_t)reset_at != i)
		return;
	double_api("cudaDeviceReset", SANITIZER_API_ENTER);
	Sanitizer_ResourceContextData cd = { .context = DOUBLE_CTX, .device = 0 };
	double_deliver(SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, &cd);
	double_context_destroyed();
	for (size_t k = 0; k < *nlive; k++) {
		if (live[k].kind == GMP_MEM_POOL_REGION || live[k].kind == GMP_MEM_ARRAY)
			continue; /* the tests reset with device memory only */
		Sanitizer_ResourceMemoryData md = { .address = live[k].addr, .size = live[k].size,
						    .context = DOUBLE_CTX };
		double_deliver(SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE, &md);
	}
	*nlive = 0;
	double_deliver(SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CBID_RESOURCE_CONTEXT_CREATION_FINISHED, &cd);
	Sanitizer_ResourceModuleData mod = { .context = DOUBLE_CTX, .module = MODULE };
	double_deliver(SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CBID_RESOURCE_MODULE_LOADED, &mod);
	double_api("cudaDeviceReset", SANITIZER_API_EXIT);
}
