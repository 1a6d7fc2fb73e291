// SPDX-License-Identifier: MIT
/*
 * The Sanitizer callback: reads each callback's data and hands plain
 * values to the recorder and the device side.  This is the only file that
 * knows the callback structs.  A thread-local guard stops re-entry (2: but
 * the modules our own driver query loads are kept); one lock per callback.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "alloc_api.h"
#include "collector.h"
#include "ipc.h"

static __thread int in_callback, api_depth; /* api_depth: runtime/driver API calls in progress */
static __thread int pools_due; /* a sync came in this thread's call: ask the pools at its end */
static __thread int64_t sync_ev = -1; /* the latest sync in this thread's call: its return is stamped */
/* API callbacks this thread took since it last added them to gmp_col.api_callbacks (cb_api_callbacks). */
#define API_FLUSH 256u
static __thread uint32_t api_unflushed;

uint64_t cb_api_callbacks(void)
{
	return __atomic_load_n(&gmp_col.api_callbacks, __ATOMIC_RELAXED) + api_unflushed;
}
__thread const char *cb_api_name; /* the outermost runtime/driver API in progress (collector.h) */

static uint64_t h(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static int64_t event(struct gmp_event *e, const char *name)
{
	int64_t idx = rec_event(e, name ? name : cb_api_name, 1);
	if (idx >= 0 && e->op == GMP_OP_SYNC && api_depth > 0)
		sync_ev = idx;
	return idx;
}

/* Launches enqueued when this thread's current API call began. */
static __thread uint64_t api_enter_seq;
/* This thread's outermost API calls so far: the number of the one in progress. */
static __thread uint64_t api_calls;

uint64_t cb_api_call(void)
{
	return api_depth > 0 ? api_calls : 0;
}

/* What a sync in this thread covers: launches enqueued before its call began. */
static uint64_t sync_horizon(void)
{
	return api_depth > 0 ? api_enter_seq : UINT64_MAX - 1;
}

/* GMPROF_PATCH_AT=range: the launch callbacks so far when this thread's current API call began. */
static __thread uint64_t api_enter_begins, api_enter_ends;

/*
 * Whether a context sync in this thread covered every launch: none was
 * being issued (between its LAUNCH_BEGIN and LAUNCH_END) when its call
 * began, and none began since.  A sync outside any API call: not known.
 */
static int sync_covers_all(void)
{
	return api_depth > 0 && api_enter_ends == api_enter_begins &&
	       __atomic_load_n(&gmp_col.launch_begins, __ATOMIC_ACQUIRE) == api_enter_begins;
}

int cb_guard(void)
{
	int was = in_callback;
	in_callback = 1;
	return was;
}

void cb_unguard(int was)
{
	in_callback = was;
}

/* GMPROF_CAPTURE=profiler-api: the program's cudaProfilerStart and cudaProfilerStop (or cu*). */
static void profiler_api(const char *name)
{
	int on = !strcmp(name, "cudaProfilerStart") || !strcmp(name, "cuProfilerStart");
	if (on || !strcmp(name, "cudaProfilerStop") || !strcmp(name, "cuProfilerStop"))
		__atomic_store_n(&gmp_col.profiling, on, __ATOMIC_RELAXED);
}

static void api(const Sanitizer_CallbackData *cd)
{
	if (cd->callbackSite == SANITIZER_API_ENTER) {
		if (api_depth++ == 0) {
			api_calls++;
			cb_api_name = cd->functionName;
			api_enter_seq = __atomic_load_n(&gmp_col.enqueue_seq, __ATOMIC_ACQUIRE);
			if (gmp_col.opts.patch_at == GMP_PATCH_AT_RANGE) { /* ends first: see sync_covers_all */
				api_enter_ends = __atomic_load_n(&gmp_col.launch_ends, __ATOMIC_ACQUIRE);
				api_enter_begins = __atomic_load_n(&gmp_col.launch_begins, __ATOMIC_ACQUIRE);
			}
			if (gmp_col.opts.capture == GMP_CAPTURE_PROFILER && cb_api_name)
				profiler_api(cb_api_name);
			ipc_call_begins(cd->functionName, cd->functionParams);
			/* Where a graph is made, captured or launched, or a tensor map made, for reading the callbacks around it. */
			if (gmp_col.opts.log_callbacks && cb_api_name &&
			    (strstr(cb_api_name, "Graph") || strstr(cb_api_name, "Capture") || strstr(cb_api_name, "TensorMap")))
				fprintf(stderr, "gmprof: api %s\n", cb_api_name);
		}
		if (gmp_col.opts.patch_at != GMP_PATCH_AT_LOAD && gmp_col.opts.mode != GMP_COLLECT_ALLOC)
			dev_api_launch_call(cd);
		if (tmap_any() && gmp_col.opts.mode != GMP_COLLECT_ALLOC) { /* its kernel's tensor maps */
			in_callback = 2; /* the driver's own callbacks are not the program's; its module loads are */
			tmap_launch_call(cd->functionName, cd->functionParams);
			in_callback = 1;
			dev_modules_later(); /* patched now: the launch to come is monitored */
			in_callback = 0;
		}
	} else if (api_depth > 0 && --api_depth == 0) {
		cb_api_name = NULL;
		call_returned(&sync_ev); /* when what its syncs waited for was known finished */
		/* cudaErrorMemoryAllocation and CUDA_ERROR_OUT_OF_MEMORY are both 2. */
		const int *rv = cd->functionReturnValue;
		if (rv && *rv == GMP_ALLOC_OUT_OF_MEMORY && cd->functionParams)
			oom_call(cd->functionName, cd->functionParams, cd->context);
		if (arrays_due())
			cb_arrays(cd->functionName); /* the arrays it made, labelled with it */
		calls_ended(cd->functionName, cd->functionParams, cd->context, rv && *rv == 0);
		if (pools_due) {
			pools_due = 0;
			cb_pools();
		}
		if (__atomic_load_n(&gmp_col.patch_wanted, __ATOMIC_ACQUIRE)) {
			in_callback = 1;
			dev_patch_wanted(); /* what launches in the call could not patch */
			in_callback = 0;
		}
	}
}

/* No program data object: module variables, runtime internals, host memory, a peer's mapped into a context. */
static int ignored(const Sanitizer_ResourceMemoryData *md)
{
	return md->flags & (SANITIZER_MEMORY_FLAG_MODULE | SANITIZER_MEMORY_FLAG_CG_RUNTIME | SANITIZER_MEMORY_FLAG_CNP |
			    SANITIZER_MEMORY_FLAG_HOST_PINNED | SANITIZER_MEMORY_FLAG_PEER);
}

/* Records md's allocation: the kind it was recorded as (ipc_kind), or -1 for none. */
static int alloc(const Sanitizer_ResourceMemoryData *md, uint8_t kind, uint32_t stream)
{
	int exported;
	if (ignored(md) || !md->size)
		return -1;
	kind = (uint8_t)ipc_kind(kind, &exported); /* another process's memory, or this one's shared */
	uint64_t start, end;
	while (rec_live_floor(md->address + md->size - 1, &start, &end) && end > md->address) {
		/* A free missed (made before gmprof was loaded, say), or a reset's: end the stale object. */
		static int warned;
		if (!warned++)
			rec_say("an allocation at 0x%llx overlaps an object gmprof thought live (a free it did not see, or "
				"memory a context's teardown released); recording a free for it", (unsigned long long)md->address);
		nvtx_end_regions(start, end);
		struct gmp_event f = { .op = GMP_OP_FREE, .addr = start, .device = md->device };
		event(&f, "gmprof: free not seen");
		rec_live_remove(start);
	}
	struct gmp_event e = { .op = GMP_OP_ALLOC, .kind = kind, .addr = md->address,
			       .size = md->size, .device = (uint32_t)md->device, .stream = stream };
	/* With its ALLOC event: an NVTX heap's name may come for it. */
	int64_t ev = event(&e, NULL);
	rec_live_add(md->address, md->size, (uint32_t)md->device, ev, kind);
	if (exported && ev >= 0)
		rec_exported((uint64_t)ev);
	return kind;
}

/* Contexts being torn down: what they release then was leaked by the program. */
static CUcontext dying[16];
static size_t ndying;

static int is_dying(CUcontext c)
{
	for (size_t i = 0; i < ndying; i++)
		if (dying[i] == c)
			return 1;
	return 0;
}

static void release(const Sanitizer_ResourceMemoryData *md, uint32_t stream, int synchronizing)
{
	uint64_t start, end;
	if (ignored(md) || (md->context && is_dying(md->context)) || !rec_live_floor(md->address, &start, &end) ||
	    start != md->address)
		return; /* not an object we saw being born */
	uint32_t device = (uint32_t)md->device;
	/* cudaFree synchronizes the device first: launches before it are done. */
	if (synchronizing && gmp_col.last_device_sync != (int64_t)device) {
		struct gmp_event s = { .op = GMP_OP_SYNC, .device = device };
		event(&s, NULL);
	}
	nvtx_end_regions(start, end); /* pieces of it the program did not unregister */
	struct gmp_event e = { .op = GMP_OP_FREE, .addr = md->address, .device = device,
			       .stream = stream };
	event(&e, NULL);
	rec_live_remove(md->address);
	/*
	 * Harvest last: it releases the lock, and another thread's allocation
	 * may reuse the address meanwhile.  Accesses belong to their kernels'
	 * events, so the order of the records does not matter.
	 */
	if (synchronizing)
		dev_synced(md->context, NULL, DEV_SYNC_ALL, sync_horizon(), 1);
}

static void resource(Sanitizer_CallbackId cbid, const void *cbdata)
{
	switch (cbid) {
	case SANITIZER_CBID_RESOURCE_CONTEXT_CREATION_FINISHED: {
		const Sanitizer_ResourceContextData *c = cbdata;
		for (size_t i = ndying; i--;) /* after cudaDeviceReset the next may have the handle */
			if (dying[i] == c->context)
				dying[i] = dying[--ndying];
		dev_context_created(c->context, (uint32_t)c->device);
		break;
	}
	case SANITIZER_CBID_RESOURCE_CONTEXT_DESTROY_STARTING: {
		CUcontext c = ((const Sanitizer_ResourceContextData *)cbdata)->context;
		if (ndying < sizeof(dying) / sizeof(dying[0]))
			dying[ndying++] = c;
		pools_forget(NULL, rec_device(c), 1); /* never asked about again: they go with it */
		dev_context_destroying(c);
		break;
	}
	case SANITIZER_CBID_RESOURCE_STREAM_CREATED:
		stream_created(cbdata);
		break;
	case SANITIZER_CBID_RESOURCE_MODULE_LOADED: {
		const Sanitizer_ResourceModuleData *m = cbdata;
		dev_module_loaded(m->context, m->module);
		break;
	}
	case SANITIZER_CBID_RESOURCE_MODULE_UNLOAD_STARTING: {
		const Sanitizer_ResourceModuleData *m = cbdata;
		tmap_functions_gone(); /* their handles may be given again, as may the module's */
		dev_module_unloading(m->context, m->module);
		break;
	}
	/*
	 * FUNCTIONS_LAZY_LOADED: nothing to do.  The Sanitizer patches lazily
	 * loaded functions of a patched module itself (FUNCTIONS_LAZY_PATCHED
	 * follows); patching the module again from this callback left them
	 * reporting no access at all (H100, 2026-11-27, docs/sanitizer-api.md).
	 */
	case SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC: {
		const Sanitizer_ResourceMemoryData *md = cbdata;
		alloc(md, md->flags & SANITIZER_MEMORY_FLAG_MANAGED ? GMP_MEM_MANAGED : GMP_MEM_DEVICE,
		      rec_stream(h(md->stream)));
		break;
	}
	case SANITIZER_CBID_RESOURCE_MEMORY_ALLOC_ASYNC: {
		const Sanitizer_ResourceMemoryData *md = cbdata;
		if (alloc(md, GMP_MEM_ASYNC, rec_stream(h(md->stream))) == GMP_MEM_ASYNC) /* an imported pool is not ours */
			pools_note(md->memoryPool, (uint32_t)md->device);
		break;
	}
	case SANITIZER_CBID_RESOURCE_ARRAY_CREATED:
		arrays_created(cbdata); /* recorded at the end of the call, once the driver has described it */
		break;
	case SANITIZER_CBID_RESOURCE_ARRAY_DESTROYED: {
		const Sanitizer_ResourceArrayData *ad = cbdata;
		arrays_destroyed(ad, ad->context && is_dying(ad->context));
		break;
	}
	case SANITIZER_CBID_RESOURCE_MEMPOOL_DESTROYING:
		pools_forget(((const Sanitizer_ResourceMempoolData *)cbdata)->memoryPool, 0, 0);
		break;
	case SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE:
		release(cbdata, 0, !ipc_closing());
		break;
	case SANITIZER_CBID_RESOURCE_MEMORY_FREE_ASYNC:
		release(cbdata, rec_stream(h(((const Sanitizer_ResourceMemoryData *)cbdata)->stream)), 0);
		break;
	default:
		break;
	}
}

/*
 * This thread's launches between their LAUNCH_BEGIN and END, oldest first.
 * A launch's END follows its BEGIN, but a graph launch's kernel nodes may
 * all begin before any ends (an H100: BEGIN, BEGIN, END, END), so an END is
 * matched to the oldest open launch of its function.
 */
#define OPEN_LAUNCHES 16
static __thread struct open_launch {
	uint64_t ev;
	CUfunction fn;
} open_launches[OPEN_LAUNCHES];
static __thread size_t nopen;
/* This thread's graph launch between its GRAPHS LAUNCH_BEGIN and END (graph_launch). */
static __thread int graph_open;
static __thread uint32_t graph_no; /* its number among the process's graph launches */

/* stream: the one the launch is recorded on (a graph's kernel node: the graph's, graph_node). */
static void launch(Sanitizer_CallbackId cbid, const Sanitizer_LaunchData *ld, CUstream stream, int node)
{
	struct gmp_launch_info li = { .ctx = ld->context, .module = ld->module,
				      .function = ld->function, .hstream = ld->hStream,
				      .hlaunch = ld->hLaunch, .name = ld->functionName,
				      .hwait = node && ld->hApiStream ? ld->hApiStream : ld->hStream,
				      .ev = UINT64_MAX, .graph_node = node };
	const int range = gmp_col.opts.patch_at == GMP_PATCH_AT_RANGE; /* sync_covers_all's counts */
	if (cbid == SANITIZER_CBID_LAUNCH_BEGIN) {
		if (range)
			__atomic_add_fetch(&gmp_col.launch_begins, 1, __ATOMIC_ACQ_REL);
		struct gmp_event e = { .op = GMP_OP_KERNEL, .device = (uint32_t)ld->device,
				       .stream = rec_stream(h(stream)), .graph = node && graph_open ? graph_no : 0 };
		dev_launch_begin(&li, &e);
		if (li.ev == UINT64_MAX) {
			dev_graph_issuing(ld->function, 0); /* no END will be matched to it */
			return;
		}
		if (nopen == OPEN_LAUNCHES) { /* an END never came: that launch waits for the exit */
			dev_graph_issuing(open_launches[0].fn, 0);
			memmove(open_launches, open_launches + 1, --nopen * sizeof(*open_launches));
		}
		open_launches[nopen++] = (struct open_launch){ li.ev, ld->function }; /* issuing it until its END */
	} else if (cbid == SANITIZER_CBID_LAUNCH_END) {
		if (range)
			__atomic_add_fetch(&gmp_col.launch_ends, 1, __ATOMIC_ACQ_REL);
		size_t i = 0;
		while (i < nopen && open_launches[i].fn != ld->function)
			i++;
		if (i == nopen)
			return;
		li.ev = open_launches[i].ev;
		memmove(open_launches + i, open_launches + i + 1, (--nopen - i) * sizeof(*open_launches));
		dev_graph_issuing(ld->function, 0);
		dev_launch_end(&li);
	}
}

/*
 * node: a graph's node (graph_node), recorded on *on, or else on the
 * stream its data names; it never blocks the host.  NULL: a call's copy.
 */
static void copy(const Sanitizer_MemcpyData *md, int node, const CUstream *on)
{
	if (md->direction == SANITIZER_MEMCPY_DIRECTION_HOST_TO_HOST)
		return;
	struct gmp_event e = { .op = GMP_OP_MEMCPY, .size = md->size,
			       .device = rec_device(md->dstContext ? md->dstContext : md->srcContext) };
	if (rec_is_device(md->dstAddress, md->size)) {
		e.addr = md->dstAddress;
		e.flags |= GMP_EF_HAS_DST;
	}
	if (rec_is_device(md->srcAddress, md->size)) {
		e.src = md->srcAddress;
		e.flags |= GMP_EF_HAS_SRC;
	}
	CUstream s = on ? *on : md->apiStream ? md->apiStream
				   : (e.flags & GMP_EF_HAS_DST ? md->dstStream : md->srcStream);
	e.stream = rec_stream(h(s));
	if (md->isAsync || node)
		e.flags |= GMP_EF_ASYNC;
	/* Neither side an object gmprof tracks (a module's variable, pinned host memory): no copy, but a wait below. */
	if (e.flags & (GMP_EF_HAS_DST | GMP_EF_HAS_SRC))
		event(&e, NULL);
	/* A blocking copy with host memory returns when done (cudaMemcpy between device buffers does not). */
	const int d2d = md->direction == SANITIZER_MEMCPY_DIRECTION_DEVICE_TO_DEVICE ||
			(e.flags & (GMP_EF_HAS_DST | GMP_EF_HAS_SRC)) == (GMP_EF_HAS_DST | GMP_EF_HAS_SRC);
	if (!md->isAsync && !node && !d2d) {
		struct gmp_event sy = { .op = GMP_OP_SYNC, .flags = GMP_EF_SYNC_STREAM,
					.stream = e.stream, .device = e.device };
		event(&sy, NULL);
	}
}

/* node, on: as for copy. */
static void set(const Sanitizer_MemsetData *md, int node, const CUstream *on)
{
	uint64_t size = md->width * (md->height ? md->height : 1) *
			(md->elementSize ? md->elementSize : 1);
	if (!rec_is_device(md->address, size))
		return;
	struct gmp_event e = { .op = GMP_OP_MEMSET, .addr = md->address, .size = size,
			       .stream = rec_stream(h(on ? *on : md->stream)),
			       .device = rec_device(md->context) };
	if (md->elementSize <= 1) {
		e.value = md->value & 0xff;
		e.flags |= GMP_EF_HAS_VALUE;
	}
	if (md->isAsync || node)
		e.flags |= GMP_EF_ASYNC;
	event(&e, NULL);
}

static void sync(Sanitizer_CallbackId cbid, const Sanitizer_SynchronizeData *sd)
{
	pools_due = pools_any(); /* the driver trims pools at a sync: asked at the call's end */
	struct gmp_event e = { .op = GMP_OP_SYNC, .device = rec_device(sd->context) };
	if (cbid == SANITIZER_CBID_SYNCHRONIZE_STREAM_SYNCHRONIZED) {
		e.flags = GMP_EF_SYNC_STREAM;
		e.stream = rec_stream(h(sd->stream));
		event(&e, NULL);
		/* The legacy stream's: the blocking streams' launches too, their streams waited for (not verified). */
		dev_synced(sd->context, sd->hStream, e.stream ? DEV_SYNC_STREAM : DEV_SYNC_LEGACY, sync_horizon(), !e.stream);
	} else if (cbid == SANITIZER_CBID_SYNCHRONIZE_CONTEXT_SYNCHRONIZED) {
		event(&e, NULL);
		dev_synced(sd->context, NULL, DEV_SYNC_ALL, sync_horizon(), 0);
		dev_unpatch(sd->context, sync_covers_all());
	}
}

static void events(Sanitizer_CallbackId cbid, const Sanitizer_EventData *ed)
{
	struct gmp_event e = { .value = h(ed->event), .device = rec_device(ed->context) };
	switch (cbid) {
	case SANITIZER_CBID_EVENTS_RECORD:
	case SANITIZER_CBID_EVENTS_STREAM_WAIT:
		e.op = cbid == SANITIZER_CBID_EVENTS_RECORD ? GMP_OP_EVENT_RECORD : GMP_OP_EVENT_WAIT;
		e.stream = rec_stream(h(ed->stream));
		break;
	case SANITIZER_CBID_EVENTS_SYNCHRONIZE:
		pools_due = pools_any();
		e.op = GMP_OP_SYNC;
		e.flags = GMP_EF_SYNC_EVENT;
		break;
	default:
		return;
	}
	event(&e, NULL);
	if (cbid == SANITIZER_CBID_EVENTS_RECORD) /* what a successful query of it will have finished */
		query_recorded(e.value, ed->context, ed->hStream, e.stream);
}

/*
 * A graph launch (cudaGraphLaunch) on this thread, between its GRAPHS
 * LAUNCH_BEGIN and END: its nodes are recorded on its stream.  The driver
 * runs a graph's nodes on streams of its own, which the program never made
 * and never waits for; what the program waits for is the stream it
 * launched the graph into, so that is where the nodes are ordered: after
 * the work before the launch there, before the work after it, and in the
 * order their callbacks come (a graph's own edges are not known).
 */
static __thread CUstream graph_stream;

static void graph_launch(Sanitizer_CallbackId cbid, const Sanitizer_GraphLaunchData *gl)
{
	if (gl->isGraphUpload)
		return; /* cudaGraphUpload: nothing runs */
	graph_open = cbid == SANITIZER_CBID_GRAPHS_LAUNCH_BEGIN;
	graph_stream = graph_open ? gl->stream : NULL;
	if (graph_open) {
		graph_no = ++gmp_col.graph_launches; /* its kernel nodes' events carry it (detector/graphs.c) */
		if (graph_no == 1 && gmp_col.opts.graph_fn_data && gmp_col.san.SetCallbackData)
			rec_meta("graph_node_data", "function"); /* only a kernel's own nodes may share a buffer */
		return;
	}
	dev_graph_launch_end();
}

static void graph_node(Sanitizer_CallbackId cbid, const Sanitizer_GraphNodeLaunchData *gd)
{
	if (gd->isGraphUpload)
		return;
	const int begin = cbid == SANITIZER_CBID_GRAPHS_NODE_LAUNCH_BEGIN;
	/* Outside a launch's callbacks (not seen on a GPU yet): the stream the node's data names. */
	const CUstream *on = graph_open ? &graph_stream : NULL;
	switch ((int)gd->nodeType) {
	case NODE_KERNEL: {
		const Sanitizer_LaunchData *ld = &gd->launchData;
		launch(begin ? SANITIZER_CBID_LAUNCH_BEGIN : SANITIZER_CBID_LAUNCH_END, ld,
		       on ? *on : ld->apiStream ? ld->apiStream : ld->stream, 1);
		break;
	}
	case NODE_MEMCPY:
		if (begin)
			copy(&gd->memcpyData, 1, on);
		break;
	case NODE_MEMSET:
		if (begin)
			set(&gd->memsetData, 1, on);
		break;
	case NODE_MEM_ALLOC:
		if (begin)
			alloc(&gd->memAllocData, GMP_MEM_ASYNC, rec_stream(h(on ? *on : gd->memAllocData.stream)));
		break;
	case NODE_MEM_FREE:
		if (begin) {
			/* Only the address comes: the device is the object's. */
			uint32_t dev = rec_live_device(gd->memFreeAddress);
			Sanitizer_ResourceMemoryData md = { .address = gd->memFreeAddress,
							    .device = (CUdevice)(dev == UINT32_MAX ? 0 : dev) };
			release(&md, on ? rec_stream(h(*on)) : 0, 0);
		}
		break;
	default:
		break;
	}
}

void gmp_sanitizer_callback(void *userdata, Sanitizer_CallbackDomain domain,
			    Sanitizer_CallbackId cbid, const void *cbdata)
{
	(void)userdata;
	const Sanitizer_ResourceModuleData *lm = cbdata; /* loaded inside our own driver query (in_callback 2) */
	if (in_callback == 2 && lm && domain == SANITIZER_CB_DOMAIN_RESOURCE && cbid == SANITIZER_CBID_RESOURCE_MODULE_LOADED)
		dev_module_later(lm->context, lm->module);
	if (in_callback || !gmp_col.active || !cbdata)
		return;
	if (domain == SANITIZER_CB_DOMAIN_RUNTIME_API || domain == SANITIZER_CB_DOMAIN_DRIVER_API) {
		if (++api_unflushed == API_FLUSH) { /* META api_callbacks: no shared write per call */
			__atomic_add_fetch(&gmp_col.api_callbacks, API_FLUSH, __ATOMIC_RELAXED);
			api_unflushed = 0;
		}
		if (!gmp_col.opts.api_needed || !api_off_ignored(domain, cbid, cbdata))
			api(cbdata); /* thread-local only: no lock */
		return;
	}
	if (gmp_col.opts.log_callbacks)
		cb_log(domain, cbid, cbdata, cb_api_name);
	in_callback = 1;
	uint64_t t0 = st_now();
	/* A new context's device, as the driver names it: asked before the lock is taken. */
	struct gmp_device_desc desc;
	const Sanitizer_ResourceContextData *created =
		domain == SANITIZER_CB_DOMAIN_RESOURCE && cbid == SANITIZER_CBID_RESOURCE_CONTEXT_CREATION_FINISHED
			? cbdata : NULL;
	int described = created && gmp_col.opts.device_info && !drv_describe((uint32_t)created->device, &desc);
	st_lock(t0);
	if (!gmp_col.closed) {
		if (described)
			rec_device_desc((uint32_t)created->device, &desc);
		switch (domain) {
		case SANITIZER_CB_DOMAIN_RESOURCE: resource(cbid, cbdata); break;
		case SANITIZER_CB_DOMAIN_LAUNCH: {
			const Sanitizer_LaunchData *ld = cbdata;
			launch(cbid, ld, ld->stream, 0);
			break;
		}
		case SANITIZER_CB_DOMAIN_MEMCPY:
			if (cbid == SANITIZER_CBID_MEMCPY_STARTING)
				copy(cbdata, 0, NULL);
			break;
		case SANITIZER_CB_DOMAIN_MEMSET:
			if (cbid == SANITIZER_CBID_MEMSET_STARTING)
				set(cbdata, 0, NULL);
			break;
		case SANITIZER_CB_DOMAIN_SYNCHRONIZE: sync(cbid, cbdata); break;
		case SANITIZER_CB_DOMAIN_EVENTS: events(cbid, cbdata); break;
		case SANITIZER_CB_DOMAIN_GRAPHS:
			if (cbid == SANITIZER_CBID_GRAPHS_NODE_LAUNCH_BEGIN ||
			    cbid == SANITIZER_CBID_GRAPHS_NODE_LAUNCH_END)
				graph_node(cbid, cbdata);
			else if (cbid == SANITIZER_CBID_GRAPHS_LAUNCH_BEGIN || cbid == SANITIZER_CBID_GRAPHS_LAUNCH_END)
				graph_launch(cbid, cbdata);
			break;
		default:
			break;
		}
		gmp_col.events_since_flush++;
	}
	st_since(GMP_ST_CALLBACKS, t0);
	pthread_mutex_unlock(&gmp_col.lock);
	in_callback = 0;
	if (domain == SANITIZER_CB_DOMAIN_RESOURCE && !api_depth && arrays_due())
		cb_arrays(NULL); /* made outside any call the collector saw */
}
