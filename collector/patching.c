// SPDX-License-Identifier: MIT
/*
 * Patching modules: the device patches loaded into each context once, and
 * each module's global memory accesses (cp.async copies, device-side
 * malloc and free) made to call them, when the module loads or, with
 * GMPROF_PATCH_AT=launch, at its first monitored launch: kernels of a
 * module never launched inside a capture range (or never launched) then
 * run unpatched, at native speed, and their modules cost no patching.
 */
#define _GNU_SOURCE
#include <pthread.h>

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
};

/*
 * Patches one module: lock released.  0, or the failure to report.  Sets
 * *heap when device-side malloc() was patched (older drivers may lack it).
 */
static SanitizerResult patch_module(CUmodule module, const char **what, int *heap)
{
	for (size_t i = 0; i < sizeof(points) / sizeof(points[0]); i++) {
		const char *cb = gmp_col.opts.patch_empty && i == 0 ? "gmp_patch_global_access_empty"
								   : points[i].cb; /* [0]: global */
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

static int is_patched(const struct gmp_ctx_state *s, CUmodule m)
{
	for (size_t i = 0; i < s->npatched; i++)
		if (s->patched[i] == m)
			return 1;
	return 0;
}

/*
 * Loads the patches into s's context (once) and patches module: lock held,
 * released for the Sanitizer's calls, which take the patch lock instead
 * (the Sanitizer wants them serialized; with GMPROF_PATCH_AT=launch modules
 * are patched from launches on any thread).
 */
static void patch(struct gmp_ctx_state *s, CUmodule module)
{
	/* Two threads may load the patches into one context at once: both succeed. */
	int add = s->patches == 0;
	CUcontext ctx = s->ctx;
	dev_unlock_for(GMP_ST_PATCH);
	pthread_mutex_lock(&gmp_col.patch_lock);
	SanitizerResult added = add ? gmp_col.san.AddPatchesFromFile(gmp_col.patch_path, ctx)
				    : SANITIZER_SUCCESS;
	const char *what = NULL;
	int heap = 0;
	SanitizerResult r = added == SANITIZER_SUCCESS ? patch_module(module, &what, &heap) : added;
	pthread_mutex_unlock(&gmp_col.patch_lock);
	dev_lock();
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
	 * launch (dev_ready); functions loaded lazily into one patched already
	 * are patched now.
	 */
	if (gmp_col.opts.patch_at_launch && !is_patched(s, module))
		return;
	patch(s, module);
}

int dev_ready(struct gmp_ctx_state *s, CUmodule module)
{
	if (gmp_col.opts.patch_at_launch && patching(s) && !is_patched(s, module))
		patch(s, module); /* its first monitored launch */
	return s->patches == 1 && is_patched(s, module);
}
