// SPDX-License-Identifier: MIT
/*
 * Patching modules: the device patches loaded into each context once, and
 * each module's global memory accesses (cp.async copies, device-side
 * malloc and free) made to call them, when the module loads or, with
 * GMPROF_PATCH_AT=launch, at its first monitored launch: kernels of a
 * module never launched inside a capture range (or never launched) then
 * run unpatched, at native speed, and their modules cost no patching.
 * GMPROF_PATCH_AT=range also unpatches modules after the range (below).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "util.h"

static const struct {
	Sanitizer_InstructionId id;
	const char *cb;
} points[] = {
	{ SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, "gmp_patch_global_access" },
	{ SANITIZER_INSTRUCTION_MEMCPY_ASYNC, "gmp_patch_memcpy_async" },
	{ SANITIZER_INSTRUCTION_DEVICE_SIDE_MALLOC, "gmp_patch_device_malloc" },
	{ SANITIZER_INSTRUCTION_DEVICE_SIDE_FREE, "gmp_patch_device_free" },
	/* Bulk copies (sm_90 on); a Sanitizer without these ids refuses them: such copies go unseen. */
	{ SANITIZER_INSTRUCTION_BULK_COPY_GLOBAL_TO_SHARED, "gmp_patch_bulk_load" },
	{ SANITIZER_INSTRUCTION_BULK_COPY_SHARED_TO_GLOBAL, "gmp_patch_bulk_store" },
	{ SANITIZER_INSTRUCTION_BULK_REDUCTION_SHARED_TO_GLOBAL, "gmp_patch_bulk_reduce" },
};

/* In object mode no launch is monitored at intra level: the callbacks' specializations for object level. */
static int object_level(void)
{
	return gmp_col.opts.mode == GMP_COLLECT_OBJECT && !(gmp_col.opts.fallback & GMP_FALLBACK_OBJECT_CALLBACK);
}

/*
 * The device function an instruction kind calls.  Global accesses: an
 * empty one (the cost benchmark's baseline), the one with per-instruction
 * records (GMPROF_PATCH_HINTS), or the plain one.
 */
static const char *callback(size_t i)
{
	const struct gmp_opts *o = &gmp_col.opts;
	if (points[i].id == SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS)
		return o->patch_empty	? "gmp_patch_global_access_empty"
		       : o->patch_hints ? "gmp_patch_global_access_records"
		       : object_level() ? "gmp_patch_global_access_object"
					: points[i].cb;
	if (points[i].id == SANITIZER_INSTRUCTION_MEMCPY_ASYNC && object_level())
		return "gmp_patch_memcpy_async_object";
	return points[i].cb;
}

/*
 * Patches one module: lock released.  0, or the failure to report.  Sets
 * *heap when device-side malloc() was patched (older drivers may lack it).
 */
static SanitizerResult patch_module(CUmodule module, const char **what, int *heap)
{
	for (size_t i = 0; i < sizeof(points) / sizeof(points[0]); i++) {
		const char *cb = callback(i);
		int is_heap = points[i].id == SANITIZER_INSTRUCTION_DEVICE_SIDE_MALLOC ||
			      points[i].id == SANITIZER_INSTRUCTION_DEVICE_SIDE_FREE;
		if (is_heap && !gmp_col.opts.heap_records)
			continue; /* GMPROF_HEAP_RECORDS=0 */
		SanitizerResult r = gmp_col.san.PatchInstructions(points[i].id, module, cb);
		if (r != SANITIZER_SUCCESS && points[i].id == SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS) {
			*what = "patching global memory accesses";
			return r;
		}
		if (r == SANITIZER_SUCCESS && points[i].id == SANITIZER_INSTRUCTION_DEVICE_SIDE_MALLOC)
			*heap = 1;
	}
	*what = "sanitizerPatchModule";
	return gmp_col.san.PatchModule(module);
}

static int listed(const CUmodule *list, size_t n, CUmodule m)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == m)
			return 1;
	return 0;
}

static int is_patched(const struct gmp_ctx_state *s, CUmodule m)
{
	return listed(s->patched, s->npatched, m);
}

/*
 * Modules the driver loaded lazily inside the collector's own queries at a
 * launch call (cuKernelGetFunction under CUDA_MODULE_LOADING=LAZY): their
 * MODULE_LOADED callbacks come while the collector is in a callback, so
 * they are kept and handled when the query is over (callbacks.c).  On an
 * H200 (2026-11-30) tma.cu's module, loaded so, was never patched.
 */
#define LATER 8
static _Thread_local struct later {
	CUcontext ctx;
	CUmodule module;
} later[LATER];
static _Thread_local size_t nlater;

void dev_module_later(CUcontext ctx, CUmodule module)
{
	if (nlater < LATER) {
		later[nlater++] = (struct later){ ctx, module };
		return;
	}
	static int said; /* atomic */
	if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		rec_say("more than %d modules loaded by one query of the driver: the others are not patched", LATER);
}

void dev_modules_later(void)
{
	if (!nlater)
		return;
	uint64_t t0 = st_now();
	st_lock(t0);
	for (size_t i = 0; i < nlater && !gmp_col.closed; i++)
		dev_module_loaded(later[i].ctx, later[i].module);
	nlater = 0;
	st_since(GMP_ST_CALLBACKS, t0);
	pthread_mutex_unlock(&gmp_col.lock);
}

/*
 * Loads the patches into s's context (once) and patches module: lock held,
 * released for the Sanitizer's calls, which take the patch lock instead
 * (the Sanitizer wants them serialized; with GMPROF_PATCH_AT=launch modules
 * are patched from launches on any thread).  One thread patches a context
 * at a time, and the others wait for it and look again: on an H200
 * (2026-11-30) eight threads' first launches each patched the module (and
 * loaded the patches) anew while the first one's kernels ran, and those
 * hit an illegal instruction.
 */
static void patch(struct gmp_ctx_state *s, CUmodule module)
{
	CUcontext ctx = s->ctx; /* s is found again by it where the lock was released */
	while (s->patching) {
		pthread_cond_wait(&gmp_col.patch_done, &gmp_col.lock);
		if (dev_find_state(ctx) != s || s->patches < 0 || is_patched(s, module))
			return; /* gone, the patches failed to load, or patched by the other thread */
	}
	int add = s->patches == 0;
	s->patching = 1;
	dev_unlock_for(GMP_ST_PATCH);
	pthread_mutex_lock(&gmp_col.patch_lock);
	SanitizerResult added = add ? gmp_col.san.AddPatchesFromFile(gmp_col.patch_path, ctx)
				    : SANITIZER_SUCCESS;
	const char *what = NULL;
	int heap = 0;
	SanitizerResult r = added == SANITIZER_SUCCESS ? patch_module(module, &what, &heap) : added;
	pthread_mutex_unlock(&gmp_col.patch_lock);
	dev_lock();
	pthread_cond_broadcast(&gmp_col.patch_done);
	if (dev_find_state(ctx) != s)
		return; /* the context went meanwhile */
	s->patching = 0;
	if (heap && r == SANITIZER_SUCCESS)
		s->heap = 1;
	if (add && s->patches == 0) {
		s->patches = added == SANITIZER_SUCCESS ? 1 : -1;
		if (added != SANITIZER_SUCCESS)
			rec_say("cannot load the device patches '%s' (%s); kernels are not monitored",
				gmp_col.patch_path, gmp_san__strerror(&gmp_col.san, added));
	}
	if (added != SANITIZER_SUCCESS || dev_check(r, what) || is_patched(s, module))
		return;
	if (!GMP_GROW(s->patched, s->patched_cap, s->npatched + 1))
		s->patched[s->npatched++] = module;
	else
		dev_out_of_memory("recording a patched module");
}

/* Whether modules of s may be patched: not in alloc mode, nor where the patches failed to load. */
static int patching(const struct gmp_ctx_state *s)
{
	return s && s->patches >= 0 && gmp_col.opts.mode != GMP_COLLECT_ALLOC;
}

void dev_patch_loaded(struct gmp_ctx_state *s, CUmodule module)
{
	if (!patching(s))
		return; /* alloc mode: no module is patched, so no launch is monitored */
	/*
	 * GMPROF_PATCH_AT=launch: a module is patched at its first monitored
	 * launch (dev_ready).  Functions loaded lazily into a patched module
	 * the Sanitizer patches itself (callbacks.c).
	 */
	if (gmp_col.opts.patch_at != GMP_PATCH_AT_LOAD) { /* kept for a graph launch (dev_patch_all) */
		if (listed(s->loaded, s->nloaded, module))
			return;
		if (!GMP_GROW(s->loaded, s->loaded_cap, s->nloaded + 1))
			s->loaded[s->nloaded++] = module;
		else
			dev_out_of_memory("recording a loaded module");
		return;
	}
	patch(s, module);
}

/* Takes module off a list of n (order not kept); whether it was there. */
static int drop(CUmodule *list, size_t *n, CUmodule module)
{
	for (size_t i = 0; i < *n; i++)
		if (list[i] == module) {
			list[i] = list[--*n];
			return 1;
		}
	return 0;
}

void dev_module_unloading(CUcontext ctx, CUmodule module)
{
	struct gmp_ctx_state *s = dev_find_state(ctx);
	if (s) { /* its handle may come back for another module */
		drop(s->loaded, &s->nloaded, module);
		drop(s->patched, &s->npatched, module);
		drop(s->wanted, &s->nwanted, module);
	}
}

/*
 * GMPROF_PATCH_AT=launch or range: a graph launch's call (cuGraphLaunch)
 * does not name its kernel nodes' functions, and a node whose module is
 * not patched runs unmonitored.  So a graph launch that will be monitored
 * first patches every module the context loaded (what GMPROF_PATCH_AT=load
 * would have done), and says so once: the kernels of those modules then
 * call the patches outside the range too.
 */
void dev_patch_all(struct gmp_ctx_state *s)
{
	if (!patching(s))
		return;
	CUmodule *todo = malloc((s->nloaded + 1) * sizeof(*todo));
	size_t n = 0;
	for (size_t i = 0; todo && i < s->nloaded; i++)
		if (!is_patched(s, s->loaded[i]))
			todo[n++] = s->loaded[i];
	if (!todo)
		dev_out_of_memory("patching the modules for a graph launch");
	static int said;
	if (n && !said++)
		rec_say("GMPROF_PATCH_AT=%s: a CUDA graph launch is monitored, so every module the program loaded "
			"is patched before it (a graph launch does not name its kernels' modules); their kernels "
			"call the patches from here on, outside a capture range too",
			gmp_col.opts.patch_at == GMP_PATCH_AT_RANGE ? "range" : "launch");
	/* patch() releases the lock: the context, and each module, are looked for again. */
	CUcontext ctx = s->ctx;
	for (size_t i = 0; i < n && dev_find_state(ctx) == s; i++)
		if (listed(s->loaded, s->nloaded, todo[i]) && !is_patched(s, todo[i]))
			patch(s, todo[i]);
	free(todo);
}

/*
 * GMPROF_PATCH_AT=launch or range: a driver call that launches a kernel,
 * as it begins, before the driver takes the locks the launch holds; its
 * parameters (cuLaunchKernel's and cuLaunchCooperativeKernel's, the
 * function first; cuLaunchKernelEx's, after the launch's configuration)
 * name the function, whose module is patched now if the launch will be
 * monitored; a graph's (cuGraphLaunch) names none (dev_patch_all).
 */
void dev_api_launch_call(const Sanitizer_CallbackData *cd)
{
	const char *n = cd->functionName;
	if (!n || strncmp(n, "cu", 2) || !cd->functionParams)
		return;
	size_t len = strcspn(n, "_"); /* cuLaunchKernel_ptsz: the per-thread stream's */
	int at;
	if ((len == 14 && !strncmp(n, "cuLaunchKernel", len)) || (len == 25 && !strncmp(n, "cuLaunchCooperativeKernel", len)))
		at = 0;
	else if (len == 16 && !strncmp(n, "cuLaunchKernelEx", len))
		at = 1;
	else if (len == 13 && !strncmp(n, "cuGraphLaunch", len))
		at = -1;
	else
		return;
	int was = cb_guard(); /* the driver's and the patching's own callbacks are not the program's */
	CUfunction f = at < 0 ? NULL : ((const CUfunction *)cd->functionParams)[at];
	CUmodule m = NULL;
	if (at < 0)
		dev_graph_call(cd->context);
	else if (drv_func_module(f, &m) == 0)
		dev_launch_call(cd->context, m);
	cb_unguard(was);
	if (gmp_col.opts.log_callbacks)
		fprintf(stderr, "gmprof: api %s function %p module %p\n", n, (void *)f, (void *)m);
}

/*
 * GMPROF_PATCH_AT=launch or range.  A module is patched for its first
 * monitored launch as the driver's launch call begins (dev_launch_call),
 * never from the launch's own callback: there sanitizerAddPatchesFromFile
 * waited for a lock that the launch holds (an H100, 2026-11-27, a stream
 * with stream-ordered allocations; docs/sanitizer-api.md).  A launch no
 * such call announced (a graph's kernel node its graph launch's call did
 * not patch for, dev_patch_all; a driver without cuFuncGetModule) finds
 * its module unpatched: it runs unmonitored, and
 * the module is patched when the program's API call returns
 * (dev_patch_wanted), for the launches after it.
 */
void dev_patch_early(struct gmp_ctx_state *s, CUmodule module)
{
	if (patching(s) && !is_patched(s, module))
		patch(s, module);
}

static void want(struct gmp_ctx_state *s, CUmodule module)
{
	if (listed(s->wanted, s->nwanted, module))
		return;
	if (GMP_GROW(s->wanted, s->wanted_cap, s->nwanted + 1)) {
		dev_out_of_memory("recording a module to patch");
		return;
	}
	s->wanted[s->nwanted++] = module;
	__atomic_store_n(&gmp_col.patch_wanted, 1, __ATOMIC_RELEASE);
	static int said;
	if (!said++)
		rec_say("GMPROF_PATCH_AT=%s%s: a kernel was launched with no launch call to patch its module before "
			"(a driver without cuFuncGetModule, or a CUDA graph's kernel node its graph launch's call did not "
			"patch for); that launch is not "
			"monitored, and the module is patched for the launches after it%s",
			gmp_col.opts.patch_at == GMP_PATCH_AT_RANGE ? "range" : "launch",
			gmp_col.opts.patch_at_default ? " (the default under a capture range)" : "",
			gmp_col.opts.patch_at_default ? " (GMPROF_PATCH_AT=load monitors it, at the cost of "
							"patched kernels outside the range)" : "");
}

int dev_ready(struct gmp_ctx_state *s, CUmodule module)
{
	if (gmp_col.opts.patch_at != GMP_PATCH_AT_LOAD && patching(s) && !is_patched(s, module)) {
		want(s, module);
		return 0;
	}
	return s->patches == 1 && is_patched(s, module);
}

void dev_patch_wanted(void)
{
	if (!__atomic_exchange_n(&gmp_col.patch_wanted, 0, __ATOMIC_ACQ_REL))
		return;
	uint64_t t0 = st_now();
	st_lock(t0);
	/* patch() releases the lock: contexts and their lists are read again each time. */
	for (size_t c = 0; c < gmp_col.nctxs && !gmp_col.closed; c++) {
		struct gmp_ctx_state *s = gmp_col.ctxs[c];
		while (s->nwanted && !gmp_col.closed) {
			CUmodule m = s->wanted[--s->nwanted];
			dev_patch_early(s, m);
			if (c >= gmp_col.nctxs || gmp_col.ctxs[c] != s)
				break; /* the context went meanwhile */
		}
	}
	st_since(GMP_ST_CALLBACKS, t0);
	pthread_mutex_unlock(&gmp_col.lock);
}

/* Whether the capture range is over, and may not come back without a module patched again. */
static int range_over(void)
{
	switch (gmp_col.opts.capture) {
	case GMP_CAPTURE_PROFILER: return !__atomic_load_n(&gmp_col.profiling, __ATOMIC_RELAXED);
	case GMP_CAPTURE_LAUNCHES: return gmp_col.launches >= gmp_col.opts.capture_last;
	default: return 0; /* every launch; or NVTX ranges, which threads open again and again */
	}
}

/*
 * GMPROF_PATCH_AT=range.  A patched kernel pays the Sanitizer's call on
 * every access even where its launch is not monitored; unpatched it runs
 * at native speed.  A module is unpatched only when no kernel of it can be
 * running: after a context synchronization that covered every launch
 * issued (none was being issued when its call began, none began since:
 * callbacks.c), with the context's monitored launches all collected, and
 * while it is unpatched, launches wait in their LAUNCH_BEGIN callback
 * (dev_unpatch_wait), so none starts meanwhile.  Its next monitored launch
 * patches it again (dev_ready).
 */
void dev_unpatch(CUcontext ctx, int covered)
{
	if (gmp_col.opts.patch_at != GMP_PATCH_AT_RANGE || !covered || gmp_col.unpatching || !range_over())
		return;
	struct gmp_ctx_state *s = dev_find_state(ctx);
	if (!s || s->npend || !s->npatched)
		return;
	static int warned;
	if (!gmp_col.san.UnpatchModule) {
		if (!warned++)
			rec_say("the Compute Sanitizer library '%s' lacks sanitizerUnpatchModule: kernels after the capture range stay patched",
				gmp_col.san.path);
		return;
	}
	CUmodule *mods = s->patched;
	size_t n = s->npatched, kept = 0;
	s->patched = NULL;
	s->npatched = s->patched_cap = 0;
	gmp_col.unpatching = 1;
	dev_unlock_for(GMP_ST_PATCH);
	pthread_mutex_lock(&gmp_col.patch_lock);
	SanitizerResult failed = SANITIZER_SUCCESS;
	for (size_t i = 0; i < n; i++) {
		SanitizerResult r = gmp_col.san.UnpatchModule(mods[i]);
		if (r != SANITIZER_SUCCESS) {
			failed = r;
			mods[kept++] = mods[i]; /* still patched */
		}
	}
	pthread_mutex_unlock(&gmp_col.patch_lock);
	dev_lock();
	gmp_col.unpatching = 0;
	pthread_cond_broadcast(&gmp_col.unpatched);
	gmp_col.unpatches += n - kept;
	if (failed != SANITIZER_SUCCESS && !warned++)
		rec_say("sanitizerUnpatchModule failed (%s); kernels after the capture range stay patched "
			"until a later synchronization unpatches them", gmp_san__strerror(&gmp_col.san, failed));
	/* The context may have gone while the lock was released. */
	s = dev_find_state(ctx);
	for (size_t i = 0; s && i < kept; i++) {
		if (is_patched(s, mods[i]))
			continue;
		if (!GMP_GROW(s->patched, s->patched_cap, s->npatched + 1))
			s->patched[s->npatched++] = mods[i];
		else
			dev_out_of_memory("recording a patched module");
	}
	free(mods);
}

void dev_unpatch_wait(void)
{
	while (gmp_col.unpatching)
		pthread_cond_wait(&gmp_col.unpatched, &gmp_col.lock);
}
