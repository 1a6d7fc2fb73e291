// SPDX-License-Identifier: MIT
/*
 * A test double of libsanitizer-public.so.  It exports the functions the
 * collector calls, with "device memory" in host memory, and replays an
 * event script as the callbacks and callback data the real library
 * delivers: contexts, modules, streams, allocations, copies, sets,
 * launches, syncs and events.  Kernels "run" through gpu_patch's own
 * per-access logic on the userdata the collector attached to the launch,
 * so hit flags, bitmaps and counters come out exactly as the patches
 * would make them.  Pool regions are announced as a caching allocator
 * would, with the NVTX memory API (the NVTX library loads the collector
 * from NVTX_INJECTION64_PATH): a heap per pool on its first region, each
 * region registered and unregistered, the heap unregistered after the
 * pool's cudaFree.  GMP_DOUBLE_NVTX=reset resets the heap before the
 * cudaFree instead; =resize also resizes each region to its own size
 * right after registering it.  GMP_DOUBLE_GRAPH=1 delivers kernels,
 * copies, sets and stream-ordered allocations and frees as the nodes of
 * graph launches (double_graph.h); GMP_DOUBLE_LAZY=1 loads kernels lazily
 * (double_patch.h).  Used by the collector tests; never
 * installed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gmprof/profile.h"
#include "gmprof/script.h"
#include "patch_logic.h"
#include "sanitizer_api.h"
#include "sanitizer_double.h"

#include "double_calls.h"
#include "double_graph.h"
#include "double_memory.h"
#include "double_patch.h"
#include "double_nvtx.h"

static Sanitizer_CallbackFunc callback;
static void *callback_data;
static int subscribed;
static uint32_t domains;           /* enabled domains, one bit each */
static __thread void *launch_userdata; /* set by the collector in LAUNCH_BEGIN, same thread */
static char last_error[256];

/*
 * The driver's lock, as seen on a real GPU (gmprof's docs/sanitizer-api.md):
 * allocation and free callbacks run with it held shared, and a synchronous
 * Sanitizer copy or stream wait takes it exclusively.  A collector that
 * makes such a call while holding a lock of its own, which another
 * thread's allocation callback waits for, deadlocks; here the wait gives
 * up after DRIVER_WAIT_S and the process aborts with a sentence saying so.
 */
static pthread_rwlock_t driver = PTHREAD_RWLOCK_INITIALIZER;
static __thread int driver_shared; /* this thread is in a callback that holds it */
static int replaying;              /* threads replaying at once (atomic) */
#define DRIVER_WAIT_S 10

void double_driver_exclusive(const char *fn)
{
	if (driver_shared)
		return; /* called back from inside the driver: it holds what it needs */
	if (__atomic_load_n(&replaying, __ATOMIC_RELAXED) > 1)
		usleep(300); /* widen the window in which other threads enter callbacks */
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += DRIVER_WAIT_S;
	if (pthread_rwlock_timedwrlock(&driver, &until)) {
		fprintf(stderr, "sanitizer double: deadlock: %s waited %d s for the driver lock, which "
			"threads inside allocation callbacks hold\n", fn, DRIVER_WAIT_S);
		abort();
	}
	pthread_rwlock_unlock(&driver);
}

#define CTX DOUBLE_CTX
#define HOST_ADDR 0x10ull            /* a host buffer: no device object is there */

SanitizerResult sanitizerGetResultString(SanitizerResult result, const char **str)
{
	if (!str)
		return SANITIZER_ERROR_INVALID_PARAMETER;
	*str = result == SANITIZER_SUCCESS ? "no error" :
	       result == SANITIZER_ERROR_OUT_OF_MEMORY ? "out of memory" :
	       result == SANITIZER_ERROR_MAX_LIMIT_REACHED ? "limit reached" : "double error";
	return SANITIZER_SUCCESS;
}

SanitizerResult sanitizerSubscribe(Sanitizer_SubscriberHandle *subscriber,
				   Sanitizer_CallbackFunc cb, void *userdata)
{
	if (subscribed || double_fails(DOUBLE_FAIL_SUBSCRIBE))
		return SANITIZER_ERROR_MAX_LIMIT_REACHED;
	subscribed = 1;
	callback = cb;
	callback_data = userdata;
	*subscriber = (Sanitizer_SubscriberHandle)(uintptr_t)0x77;
	return SANITIZER_SUCCESS;
}

SanitizerResult sanitizerUnsubscribe(Sanitizer_SubscriberHandle subscriber)
{
	(void)subscriber;
	subscribed = 0;
	callback = NULL;
	return SANITIZER_SUCCESS;
}

SanitizerResult sanitizerEnableDomain(uint32_t enable, Sanitizer_SubscriberHandle subscriber,
				      Sanitizer_CallbackDomain domain)
{
	(void)subscriber;
	if (domain <= 0 || domain > 31 || (enable && double_fails(DOUBLE_FAIL_DOMAIN)))
		return SANITIZER_ERROR_INVALID_DOMAIN_ID;
	if (enable)
		domains |= 1u << domain;
	else
		domains &= ~(1u << domain);
	return SANITIZER_SUCCESS;
}

SanitizerResult sanitizerEnableCallback(uint32_t enable, Sanitizer_SubscriberHandle subscriber,
					Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid)
{
	if (domain == SANITIZER_CB_DOMAIN_RUNTIME_API || domain == SANITIZER_CB_DOMAIN_DRIVER_API)
		return double_api_enable(enable, domain, cbid);
	(void)cbid; /* other domains: the whole domain */
	return sanitizerEnableDomain(enable, subscriber, domain);
}

SanitizerResult sanitizerSetLaunchCallbackData(Sanitizer_LaunchHandle launch, CUfunction kernel,
					       Sanitizer_StreamHandle stream, const void *userdata)
{
	(void)launch;
	(void)kernel;
	(void)stream;
	launch_userdata = (void *)userdata;
	return SANITIZER_SUCCESS;
}

/* ---- replay ----------------------------------------------------------------- */

static void deliver(Sanitizer_CallbackDomain d, Sanitizer_CallbackId cbid, const void *data)
{
	if (!callback || !(domains & (1u << d)))
		return;
	int shared = d == SANITIZER_CB_DOMAIN_RESOURCE &&
		     (cbid == SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC ||
		      cbid == SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE ||
		      cbid == SANITIZER_CBID_RESOURCE_MEMORY_ALLOC_ASYNC ||
		      cbid == SANITIZER_CBID_RESOURCE_MEMORY_FREE_ASYNC);
	if (shared) {
		pthread_rwlock_rdlock(&driver);
		driver_shared++;
	}
	callback(callback_data, d, cbid, data);
	if (shared) {
		driver_shared--;
		pthread_rwlock_unlock(&driver);
	}
}

void double_deliver(Sanitizer_CallbackDomain d, Sanitizer_CallbackId cbid, const void *data)
{
	deliver(d, cbid, data);
}

static int fail(unsigned line, const char *msg)
{
	snprintf(last_error, sizeof(last_error), "line %u: %s", line, msg);
	return -EINVAL;
}

static CUevent event_handle(uint64_t v)
{
	return (CUevent)(uintptr_t)(0x900000 + (v & 0xffffffffu) * 16 + ((v >> 63) ? 8 : 0));
}

static void run_kernel(const struct gmp_trace *t, size_t k, CUfunction fn, int node, int first)
{
	const struct gmp_event *e = &t->ev[k];
	struct gmp_patch_launch *l = launch_userdata ? launch_userdata : double_function_data(fn, node);
	const int patched = double_module_patched() && !double_function_silent(fn);
	__atomic_add_fetch(&double_stats.unpatched_kernels, !patched, __ATOMIC_RELAXED);
	if (!l || !patched || !double_patched_cb(SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS))
		return;
	if (first)
		double_launch_starts(l, k);
	/* Its malloc() and free() calls: the script's heap ops that follow it. */
	const int heap = double_patched_cb(SANITIZER_INSTRUCTION_DEVICE_SIDE_MALLOC) != NULL;
	for (size_t i = k + 1; i < t->nev && heap; i++) {
		const struct gmp_event *h = &t->ev[i];
		if (!(h->flags & GMP_EF_IN_KERNEL) || h->value != k)
			break;
		gmp_patch_heap(l, h->addr, h->op == GMP_OP_ALLOC ? h->size : 0);
	}
	for (uint32_t i = 0; i < e->acc_n; i++) {
		const struct gmp_access *a = &t->acc[e->acc_off + i];
		uint32_t flags = (a->rw & GMP_RW_READ ? GMP_SAN_ACCESS_READ : 0) |
				 (a->rw & GMP_RW_WRITE ? GMP_SAN_ACCESS_WRITE : 0);
		gmp_patch_access(l, (uint64_t)i << 4, a->addr, 1, flags); /* an instruction per access */
	}
	for (uint32_t i = 0; i < e->touch_n; i++) {
		const struct gmp_touch *tc = &t->touch[e->touch_off + i];
		uint32_t flags = (tc->rw & GMP_RW_READ ? GMP_SAN_ACCESS_READ : 0) |
				 (tc->rw & GMP_RW_WRITE ? GMP_SAN_ACCESS_WRITE : 0);
		for (uint64_t c = 0; c < tc->count; c++)
			gmp_patch_access(l, (uint64_t)(e->acc_n + i) << 4, tc->addr, (uint32_t)tc->size, flags);
	}
}

void double_kernel_runs(const struct gmp_trace *t, size_t i, const Sanitizer_LaunchData *ld, int first)
{
	double_kernel_started();
	double_stream_lock(ld->hStream); /* the kernel reads the tables copies on its stream write */
	run_kernel(t, i, ld->function, ld->apiContext != NULL, first); /* a graph node names its launch's context */
	double_stream_unlock(ld->hStream);
	double_kernel_launched(); /* submitted: then its LAUNCH_END */
}

/* Room for one more live object (the array doubles: replays of 100k allocations stay linear). */
static struct live *live_room(struct live **live, size_t nlive)
{
	if (nlive >= 16 && (nlive & (nlive - 1)))
		return *live; /* the capacity is the next power of two */
	struct live *nl = realloc(*live, (nlive < 16 ? 16 : 2 * nlive) * sizeof(**live));
	if (nl)
		*live = nl;
	return nl;
}

/* g: 1 + its stream when the event comes as a node of the graph launch open on that stream, else 0. */
static int replay_event(const struct gmp_trace *t, size_t i, struct live **live, size_t *nlive, uint32_t g)
{
	const struct gmp_event *e = &t->ev[i];
	int prev_sync = i > 0 && t->ev[i - 1].op == GMP_OP_SYNC &&
			!(t->ev[i - 1].flags & (GMP_EF_SYNC_STREAM | GMP_EF_SYNC_EVENT));
	if ((e->op == GMP_OP_ALLOC || e->op == GMP_OP_FREE) && (e->flags & GMP_EF_IN_KERNEL))
		return 0; /* malloc() or free() inside the launch before it: run_kernel made it */
	switch (e->op) {
	case GMP_OP_ALLOC: {
		uint8_t pool = 0;
		int shared = 0;
		if (e->kind == GMP_MEM_POOL_REGION) {
#if HAVE_NVTX
			void *handle = region_register(*live, *nlive, e->addr, e->size,
						       e->flags & GMP_EF_HAS_LABEL ? gmp_trace__str(t, e->name, NULL)
										   : NULL);
			struct live *nl = live_room(live, *nlive);
			if (!nl)
				return -ENOMEM;
			nl[(*nlive)++] = (struct live){ e->addr, e->size, e->kind, 0, handle, NULL };
			break;
#else
			return fail(e->line, "the test double was built without the nvtx3 headers: no pool regions");
#endif
		}
		if (e->kind == GMP_MEM_ARRAY && !g) {
			double_array(e->addr, e->size, 1); /* cudaMallocArray */
		} else {
			if (e->kind != GMP_MEM_DEVICE && e->kind != GMP_MEM_MANAGED && e->kind != GMP_MEM_ASYNC &&
			    e->kind != GMP_MEM_IMPORTED)
				return fail(e->line, "the test double cannot replay this kind of allocation");
			Sanitizer_ResourceMemoryData md = {
				.address = e->addr, .size = e->size, .context = CTX, .device = (CUdevice)e->device,
				.stream = double_stream_handle(e->stream), .hStream = double_hstream(e->stream),
				.flags = e->kind == GMP_MEM_MANAGED ? SANITIZER_MEMORY_FLAG_MANAGED : 0,
				.visibility = SANITIZER_MEMORY_VISIBILITY_GLOBAL };
			if (e->kind == GMP_MEM_ASYNC && !g)
				md.memoryPool = double_pool_alloc(e->size, &pool);
			if ((e->kind == GMP_MEM_IMPORTED || (e->flags & GMP_EF_EXPORTED)) && !g) {
				shared = double_ipc_alloc(&md, e->kind == GMP_MEM_IMPORTED);
			} else if (g) {
				md.stream = double_stream_handle(DOUBLE_GRAPH_STREAM(e->stream));
				md.hStream = double_hstream(DOUBLE_GRAPH_STREAM(e->stream));
				double_graph_node(DOUBLE_NODE_MEM_ALLOC, SANITIZER_CBID_GRAPHS_NODE_LAUNCH_BEGIN, &md, sizeof(md));
			} else {
				double_api(e->kind == GMP_MEM_ASYNC ? "cudaMallocAsync" : "cudaMalloc", SANITIZER_API_ENTER);
				deliver(SANITIZER_CB_DOMAIN_RESOURCE,
					e->kind == GMP_MEM_ASYNC ? SANITIZER_CBID_RESOURCE_MEMORY_ALLOC_ASYNC
								 : SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC, &md);
				double_api("cudaMalloc", SANITIZER_API_EXIT);
				double_alongside(&md, 1);
			}
		}
		struct live *nl = live_room(live, *nlive);
		if (!nl)
			return -ENOMEM;
		nl[(*nlive)++] = (struct live){ e->addr, e->size, e->kind, pool, NULL,
						e->flags & GMP_EF_HAS_LABEL ? gmp_trace__str(t, e->name, NULL) : NULL, shared };
		break;
	}
	case GMP_OP_FREE: {
		uint8_t kind = GMP_MEM_DEVICE;
		int shared = 0;
		uint64_t size = 0;
		void *heap = NULL;
		/* A region and its pool share a start: the region is the one freed first. */
		size_t found = SIZE_MAX;
		for (size_t k = 0; k < *nlive; k++)
			if ((*live)[k].addr == e->addr &&
			    (found == SIZE_MAX || (*live)[k].kind == GMP_MEM_POOL_REGION))
				found = k;
		if (found != SIZE_MAX) {
			kind = (*live)[found].kind;
			heap = (*live)[found].handle;
			shared = (*live)[found].shared;
			size = (*live)[found].size;
			if (kind == GMP_MEM_ASYNC && !g)
				double_pool_change((*live)[found].pool, 0, (*live)[found].size);
#if HAVE_NVTX
			if (kind == GMP_MEM_POOL_REGION)
				region_unregister(&(*live)[found]);
#endif
			(*live)[found] = (*live)[--*nlive];
		}
		if (kind == GMP_MEM_POOL_REGION)
			break;
		if (kind == GMP_MEM_ARRAY) {
			double_array(e->addr, 0, 0); /* cudaFreeArray */
			break;
		}
#if HAVE_NVTX
		if (heap && nvtx_mode("reset"))
			nvtx_heap_reset(heap);
#endif
		Sanitizer_ResourceMemoryData md = { .address = e->addr, .context = CTX,
						    .stream = double_stream_handle(e->stream),
						    .hStream = double_hstream(e->stream) };
		/* After a device sync it is a cudaFree (always: GMP_DOUBLE_FREE_SYNCS); otherwise stream-ordered. */
		int blocking = (prev_sync || double_frees_sync()) && kind != GMP_MEM_ASYNC;
		if (g) {
			double_graph_node(DOUBLE_NODE_MEM_FREE, SANITIZER_CBID_GRAPHS_NODE_LAUNCH_BEGIN, &e->addr,
					  sizeof(e->addr));
		} else if (shared) {
			md.size = size;
			double_ipc_free(&md, shared, blocking);
		} else {
			double_alongside(&md, 0);
			double_api(blocking ? "cudaFree" : "cudaFreeAsync", SANITIZER_API_ENTER);
			deliver(SANITIZER_CB_DOMAIN_RESOURCE,
				blocking ? SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE
					 : SANITIZER_CBID_RESOURCE_MEMORY_FREE_ASYNC, &md);
			double_api("cudaFree", SANITIZER_API_EXIT);
		}
#if HAVE_NVTX
		if (heap)
			nvtx_heap_unregister(heap);
#else
		(void)heap;
#endif
		break;
	}
	case GMP_OP_MEMCPY: {
		int dst = (e->flags & GMP_EF_HAS_DST) != 0, src = (e->flags & GMP_EF_HAS_SRC) != 0;
		Sanitizer_MemcpyData md = {
			.srcContext = CTX, .dstContext = CTX, .srcStream = double_stream_handle(e->stream),
			.hSrcStream = double_hstream(e->stream), .dstStream = double_stream_handle(e->stream),
			.hDstStream = double_hstream(e->stream), .srcAddress = src ? e->src : HOST_ADDR,
			.dstAddress = dst ? e->addr : HOST_ADDR, .size = e->size, .width = e->size,
			.height = 1, .depth = 1, .isAsync = 1,
			.direction = dst && src ? SANITIZER_MEMCPY_DIRECTION_DEVICE_TO_DEVICE
				     : dst ? SANITIZER_MEMCPY_DIRECTION_HOST_TO_DEVICE
					   : SANITIZER_MEMCPY_DIRECTION_DEVICE_TO_HOST,
			.apiContext = CTX, .apiStream = double_stream_handle(e->stream),
			.hApiStream = double_hstream(e->stream) };
		if (g) { /* on the driver's stream; the API stream names the launch's */
			md.srcStream = md.dstStream = double_stream_handle(DOUBLE_GRAPH_STREAM(e->stream));
			md.hSrcStream = md.hDstStream = double_hstream(DOUBLE_GRAPH_STREAM(e->stream));
			md.isAsync = 0;
			double_graph_node(DOUBLE_NODE_MEMCPY, SANITIZER_CBID_GRAPHS_NODE_LAUNCH_BEGIN, &md, sizeof(md));
			break;
		}
		md.isAsync = !double_sync_copies() || (e->flags & GMP_EF_ASYNC);
		double_api(md.isAsync ? "cudaMemcpyAsync" : "cudaMemcpy", SANITIZER_API_ENTER);
		deliver(SANITIZER_CB_DOMAIN_MEMCPY, SANITIZER_CBID_MEMCPY_STARTING, &md);
		double_api(md.isAsync ? "cudaMemcpyAsync" : "cudaMemcpy", SANITIZER_API_EXIT);
		break;
	}
	case GMP_OP_MEMSET: {
		Sanitizer_MemsetData md = { .context = CTX, .stream = double_stream_handle(e->stream),
					    .hStream = double_hstream(e->stream), .address = e->addr,
					    .width = e->size, .height = 1, .elementSize = 1,
					    .value = (uint32_t)e->value, .isAsync = 1 };
		if (g) {
			md.stream = double_stream_handle(DOUBLE_GRAPH_STREAM(e->stream));
			md.hStream = double_hstream(DOUBLE_GRAPH_STREAM(e->stream));
			md.isAsync = 0;
			double_graph_node(DOUBLE_NODE_MEMSET, SANITIZER_CBID_GRAPHS_NODE_LAUNCH_BEGIN, &md, sizeof(md));
			break;
		}
		md.isAsync = !double_sync_copies() || (e->flags & GMP_EF_ASYNC);
		double_api(md.isAsync ? "cudaMemsetAsync" : "cudaMemset", SANITIZER_API_ENTER);
		deliver(SANITIZER_CB_DOMAIN_MEMSET, SANITIZER_CBID_MEMSET_STARTING, &md);
		double_api(md.isAsync ? "cudaMemsetAsync" : "cudaMemset", SANITIZER_API_EXIT);
		break;
	}
	case GMP_OP_KERNEL: {
		const char *name = gmp_trace__str(t, e->name, NULL);
		Sanitizer_LaunchData ld = {
			.context = CTX, .stream = double_stream_handle(e->stream), .hStream = double_hstream(e->stream),
			.module = MODULE, .function = DOUBLE_FUNCTION(e->name),
			.functionName = name, .gridDim_x = 1, .gridDim_y = 1, .gridDim_z = 1,
			.blockDim_x = 32, .blockDim_y = 1, .blockDim_z = 1, .gridId = i + 1,
			.hLaunch = (Sanitizer_LaunchHandle)(uintptr_t)(0x8000000 + i),
			.device = (CUdevice)e->device };
		if (g) { /* a kernel node: on the driver's stream, the launch's as its API stream */
			ld.stream = double_stream_handle(DOUBLE_GRAPH_STREAM(e->stream));
			ld.hStream = double_hstream(DOUBLE_GRAPH_STREAM(e->stream));
			ld.apiContext = CTX;
			ld.apiStream = double_stream_handle(e->stream);
			ld.hApiStream = double_hstream(e->stream);
		}
		double_graph_cross(0); /* GMP_DOUBLE_GRAPH_CROSS: two threads' first kernels meet */
		launch_userdata = NULL;
		double_function_launching(ld.function);
		if (g) {
			double_graph_node(DOUBLE_NODE_KERNEL, SANITIZER_CBID_GRAPHS_NODE_LAUNCH_BEGIN, &ld, sizeof(ld));
		} else {
			double_api("cudaLaunchKernel", SANITIZER_API_ENTER);
			double_driver_launch(ld.function, name, SANITIZER_API_ENTER);
			gmp_double_module_used(); /* GMP_DOUBLE_LAZY=module: the launch loads it, if nothing did */
			double_launch_callback(1);
			deliver(SANITIZER_CB_DOMAIN_LAUNCH, SANITIZER_CBID_LAUNCH_BEGIN, &ld);
			double_launch_callback(0);
		}
		double_graph_cross(1);
		if (g && double_graph_hold(t, i, g, &ld))
			break; /* runs and ends with the graph's next kernel nodes */
		double_kernel_runs(t, i, &ld, 1);
		double_graph_cross(2);
		if (g) {
			double_graph_node(DOUBLE_NODE_KERNEL, SANITIZER_CBID_GRAPHS_NODE_LAUNCH_END, &ld, sizeof(ld));
		} else {
			deliver(SANITIZER_CB_DOMAIN_LAUNCH, SANITIZER_CBID_LAUNCH_END, &ld);
			double_driver_launch(ld.function, name, SANITIZER_API_EXIT);
			double_api("cudaLaunchKernel", SANITIZER_API_EXIT);
			double_query_busy(ld.stream);
			double_symbol_copy(ld.stream, ld.hStream);
		}
		break;
	}
	case GMP_OP_SYNC: {
		double_pool_trim(); /* what the pool does not use goes back to the device */
		if (e->flags & GMP_EF_SYNC_EVENT) {
			Sanitizer_EventData ed = { .event = event_handle(e->value), .context = CTX };
			if (!double_query(ed.event, 1))
				double_sync_call("cudaEventSynchronize", SANITIZER_CB_DOMAIN_EVENTS, SANITIZER_CBID_EVENTS_SYNCHRONIZE, &ed);
		} else {
			Sanitizer_SynchronizeData sd = { .context = CTX,
							 .stream = double_stream_handle(e->stream),
							 .hStream = double_hstream(e->stream) };
			if (e->flags & GMP_EF_SYNC_STREAM) {
				if (!double_query(sd.stream, 0))
					double_sync_call("cudaStreamSynchronize", SANITIZER_CB_DOMAIN_SYNCHRONIZE,
							 SANITIZER_CBID_SYNCHRONIZE_STREAM_SYNCHRONIZED, &sd);
				break;
			}
			double_api("cudaDeviceSynchronize", SANITIZER_API_ENTER);
			double_context_sync_begins();
			deliver(SANITIZER_CB_DOMAIN_SYNCHRONIZE, SANITIZER_CBID_SYNCHRONIZE_CONTEXT_SYNCHRONIZED, &sd);
			double_api("cudaDeviceSynchronize", SANITIZER_API_EXIT);
		}
		break;
	}
	case GMP_OP_EVENT_RECORD:
	case GMP_OP_EVENT_WAIT: {
		Sanitizer_EventData ed = { .event = event_handle(e->value), .context = CTX,
					   .stream = double_stream_handle(e->stream),
					   .hStream = double_hstream(e->stream) };
		deliver(SANITIZER_CB_DOMAIN_EVENTS,
			e->op == GMP_OP_EVENT_RECORD ? SANITIZER_CBID_EVENTS_RECORD
						     : SANITIZER_CBID_EVENTS_STREAM_WAIT, &ed);
		break;
	}
	}
	return 0;
}

const char *gmp_double_error(void)
{
	return last_error;
}

void gmp_double_start(void)
{
	Sanitizer_ResourceContextData cd = { .context = CTX, .device = 0 };
	deliver(SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CBID_RESOURCE_CONTEXT_CREATION_FINISHED, &cd);
	double_module_start();
	double_nvtx_start();
}

int gmp_double_replay(const char *script, uint32_t stream_base, uint64_t addr_offset)
{
	FILE *fp = fopen(script, "r");
	if (!fp) {
		snprintf(last_error, sizeof(last_error), "cannot open %s", script);
		return -errno;
	}
	struct gmp_trace *t = NULL;
	struct gmp_script_error se = { 0 };
	/* A script, or a profile (large replays: the scale benchmark). */
	unsigned char magic[8] = { 0 };
	size_t got = fread(magic, 1, sizeof(magic), fp);
	rewind(fp);
	int err = gmp_profile__is_profile(magic, got) ? gmp_profile__read_fd(fileno(fp), &t)
						      : gmp_script__read_file(fp, &t, &se);
	fclose(fp);
	if (err) {
		snprintf(last_error, sizeof(last_error), "%s:%u: %s", script, se.line,
			 se.msg[0] ? se.msg : strerror(-err));
		return err;
	}
	/* Streams are created in number order, so the collector numbers them alike. */
	uint32_t maxs = 0;
	for (size_t i = 0; i < t->nev; i++)
		if (t->ev[i].stream > maxs)
			maxs = t->ev[i].stream;
	for (size_t i = 0; i < t->nfails; i++) {
		if (t->fails[i].stream > maxs)
			maxs = t->fails[i].stream;
		if (t->fails[i].stream)
			t->fails[i].stream += stream_base;
	}
	double_streams_made(t, maxs, stream_base);
	double_graph_thread(stream_base / 100);
	double_nvtx_name_thread(stream_base / 100, 0); /* GMP_DOUBLE_NVTX_THREAD_NAMES: a worker, before it records */
	struct live *live = NULL;
	size_t nlive = 0;
	for (size_t i = 0; i < t->nev; i++) {
		struct gmp_event *e = &t->ev[i];
		if (e->stream)
			e->stream += stream_base;
		if (e->op != GMP_OP_KERNEL) {
			if (e->op != GMP_OP_MEMCPY || (e->flags & GMP_EF_HAS_DST))
				e->addr += addr_offset;
			if (e->op == GMP_OP_MEMCPY && (e->flags & GMP_EF_HAS_SRC))
				e->src += addr_offset;
			continue;
		}
		for (uint32_t k = 0; k < e->acc_n; k++)
			t->acc[e->acc_off + k].addr += addr_offset;
		for (uint32_t k = 0; k < e->touch_n; k++)
			t->touch[e->touch_off + k].addr += addr_offset;
	}
	__atomic_add_fetch(&replaying, 1, __ATOMIC_RELAXED);
	size_t nextf = 0, nextc = 0, nextm = 0;
	uint32_t path = 0; /* this thread's NVTX ranges, as the double pushed them */
	uint32_t graph = 0; /* the graph launch open (double_graph_switch) */
	for (size_t i = 0; i <= t->nev && !err; i++) {
		/* A graph launch holds a run of nodes on one stream, with no other call between. */
		int between = (nextc < t->nrchg && t->rchg[nextc].before <= i) ||
			      (nextf < t->nfails && t->fails[nextf].before <= i);
		uint32_t want = i < t->nev && !between ? double_graph_node_of(t, i, live, nlive) : 0;
		if (!double_graph_holds_past(t, i, want, graph))
			double_graph_flush(t); /* GMP_DOUBLE_GRAPH_MIX: the kernel nodes held run (and end) */
		double_graph_switch(&graph, want, want ? double_stream_handle(want - 1) : NULL, want ? double_hstream(want - 1) : NULL);
		for (; !err && nextc < t->nrchg && t->rchg[nextc].before <= i; nextc++) {
			int rc = double_nvtx_ranges(t, &t->rchg[nextc], &path);
			if (rc)
				err = fail(0, rc == -2 ? "the test double could not start a thread for an NVTX range"
						       : "the test double was built without the nvtx3 headers: no NVTX ranges");
		}
		for (; !err && nextm < t->nmarks && t->marks[nextm].before <= i; nextm++)
			if (double_nvtx_mark(t, &t->marks[nextm], nextm))
				err = fail(0, "the test double was built without the nvtx3 headers: no NVTX marks");
		for (; !err && nextf < t->nfails && t->fails[nextf].before <= i; nextf++)
			double_replay_failure(t, &t->fails[nextf]);
		if (err || i == t->nev)
			break;
		double_profiler_calls(i);
		double_module_reload_at((long)i + 1);
		double_reset_calls(i, live, &nlive);
		double_before_event(&t->ev[i]);
		err = replay_event(t, i, &live, &nlive, want);
		double_maybe_die((long)i + 1);
	}
	__atomic_sub_fetch(&replaying, 1, __ATOMIC_RELAXED);
	double_nvtx_name_thread(stream_base / 100, 1); /* the main thread, after it recorded */
	free(live);
	gmp_trace__free(t);
	return err;
}

void gmp_double_teardown(void)
{
	Sanitizer_ResourceContextData cd = { .context = CTX, .device = 0 };
	deliver(SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, &cd);
}
