// SPDX-License-Identifier: MIT
/*
 * The test double's module patching: the patches "loaded" into its
 * context, the callbacks the collector asks each instruction kind to call,
 * and the module patched and unpatched (GMP_DOUBLE_STATS=3 counts both;
 * GMP_DOUBLE_PATCHES=1 prints each instruction kind's device function, and
 * each function's callback data set and taken back).
 * On a GPU a kernel runs from its start until a context synchronization
 * whose call began after it was launched; unpatching its module meanwhile
 * is what the collector must never do (GMPROF_PATCH_AT=range), so the
 * double aborts on it with a sentence.
 * GMP_DOUBLE_LAZY=1 loads each kernel lazily, as CUDA_MODULE_LOADING=LAZY
 * does: FUNCTIONS_LAZY_LOADED before its first launch, and when its module
 * is patched, the double patches it (FUNCTIONS_LAZY_PATCHED follows).  As
 * on an H100 (2026-11-27), a module patched again while patched, after
 * functions of it were loaded lazily, leaves those functions reporting no
 * access at all, until it is unpatched.
 * Patching a module again while kernels of it may run is as bad: on an
 * H200 (2026-11-30) eight threads' first launches each patched the module
 * while the first one's kernels ran, and those hit an illegal instruction;
 * the double aborts on it too.
 * Patching from inside a kernel launch's callback (LAUNCH_BEGIN, or a graph
 * kernel node's) waits on an H100 for a driver lock the launch holds: a
 * deadlock (2026-11-27, sanitizerAddPatchesFromFile and sanitizerPatchModule
 * on a stream with stream-ordered allocations); the double aborts on it with
 * a sentence, wherever the stream.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "double_calls.h"
#include "double_memory.h"
#include "double_patch.h"
#include "sanitizer_double.h"

static const char *patched_cb[64]; /* callback name per instruction id (atomic: patched while kernels run) */
static int module_patched;
static unsigned long kernels_started, kernels_launched, kernels_covered;
static int unpatching; /* inside sanitizerUnpatchModule: no kernel may start (atomic) */
static __thread int in_launch; /* this thread is in a kernel launch's callback */

void double_launch_callback(int inside)
{
	in_launch = inside;
}

static void not_in_launch(const char *fn)
{
	if (!in_launch)
		return;
	fprintf(stderr, "sanitizer double: deadlock: %s called from a kernel launch's callback waits for the "
		"driver lock the launch holds\n", fn);
	abort();
}
/*
 * What the double keeps per function: loaded lazily (GMP_DOUBLE_LAZY=1), and
 * then silenced by a second patching; its sanitizerSetCallbackData userdata.
 */
static struct {
	CUfunction fn;
	int loaded, silent;
	void *data;
	const void *by; /* the thread that set data (&self) */
} fns[256];
static __thread char self;
static size_t nfns;
static pthread_mutex_t fns_lock = PTHREAD_MUTEX_INITIALIZER;

/* fn's entry, made when new (NULL: the table is full); fns_lock held. */
static __typeof__(&fns[0]) entry(CUfunction fn)
{
	size_t i = 0;
	while (i < nfns && fns[i].fn != fn)
		i++;
	if (i == sizeof(fns) / sizeof(fns[0]))
		return NULL;
	if (i == nfns)
		fns[nfns++] = (__typeof__(fns[0])){ .fn = fn };
	return &fns[i];
}

static int lazy; /* GMP_DOUBLE_LAZY=1, read once */
static void read_lazy(void)
{
	const char *v = getenv("GMP_DOUBLE_LAZY");
	lazy = v && !strcmp(v, "1");
}

void double_function_launching(CUfunction fn)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, read_lazy);
	if (!lazy)
		return;
	pthread_mutex_lock(&fns_lock);
	__typeof__(&fns[0]) f = entry(fn);
	int first = f && !f->loaded;
	if (f)
		f->loaded = 1;
	pthread_mutex_unlock(&fns_lock);
	if (!f) {
		fprintf(stderr, "sanitizer double: more than %zu functions\n", sizeof(fns) / sizeof(fns[0]));
		abort();
	}
	if (!first)
		return; /* loaded already */
	Sanitizer_ResourceFunctionsLazyLoadedData d = { .context = DOUBLE_CTX, .module = MODULE, .functions = &fn,
							 .numFunctions = 1 };
	double_deliver(SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CBID_RESOURCE_FUNCTIONS_LAZY_LOADED, &d);
	if (double_module_patched()) /* the double patches it as the Sanitizer does */
		double_deliver(SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CBID_RESOURCE_FUNCTIONS_LAZY_PATCHED, &d);
}

/* sanitizerSetCallbackData: userdata per function, for launches given none of their own. */
SanitizerResult sanitizerSetCallbackData(CUfunction kernel, const void *userdata)
{
	pthread_mutex_lock(&fns_lock);
	__typeof__(&fns[0]) f = entry(kernel);
	if (f) {
		f->data = (void *)userdata;
		f->by = &self;
	}
	pthread_mutex_unlock(&fns_lock);
	if (!f)
		return SANITIZER_ERROR_OUT_OF_MEMORY;
	if (getenv("GMP_DOUBLE_PATCHES")) /* each setting, for the tests */
		fprintf(stderr, "double: callback data of function %p %s\n", (void *)kernel, userdata ? "set" : "taken back");
	return SANITIZER_SUCCESS;
}

/* A copy of fn's entry, all zero when it has none (fns_lock taken here). */
static __typeof__(fns[0]) entry_of(CUfunction fn)
{
	__typeof__(fns[0]) f = { 0 };
	pthread_mutex_lock(&fns_lock);
	for (size_t i = 0; i < nfns; i++)
		if (fns[i].fn == fn)
			f = fns[i];
	pthread_mutex_unlock(&fns_lock);
	return f;
}

void *double_function_data(CUfunction fn, int node)
{
	__typeof__(fns[0]) f = entry_of(fn);
	if (f.data && f.by != &self) /* the Sanitizer may do so: the collector counts such launches */
		fprintf(stderr, "sanitizer double: a %s read the callback data another thread's graph launch set for "
			"its function\n", node ? "kernel node" : "launch outside any graph");
	else if (f.data && !node) { /* a graph node's per-function data, left set: its buffer may serve another launch now */
		fprintf(stderr, "sanitizer double: a launch outside any graph got the callback data a graph's "
			"node set for its function\n");
		abort();
	}
	return f.data;
}

int double_function_silent(CUfunction fn)
{
	return entry_of(fn).silent;
}

/* Every lazily loaded function silenced (a second patching) or heard again (unpatched). */
static void lazy_silence(int silent)
{
	pthread_mutex_lock(&fns_lock);
	for (size_t i = 0; i < nfns; i++)
		fns[i].silent = silent && fns[i].loaded;
	pthread_mutex_unlock(&fns_lock);
}

int double_module_patched(void)
{
	return __atomic_load_n(&module_patched, __ATOMIC_RELAXED);
}

const char *double_patched_cb(Sanitizer_InstructionId id)
{
	return id > 0 && id < 64 ? __atomic_load_n(&patched_cb[id], __ATOMIC_RELAXED) : NULL;
}

void double_kernel_started(void)
{
	__atomic_add_fetch(&kernels_started, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&unpatching, __ATOMIC_SEQ_CST)) {
		fprintf(stderr, "sanitizer double: a kernel started while its module was being unpatched\n");
		abort();
	}
}

void double_kernel_launched(void)
{
	__atomic_add_fetch(&kernels_launched, 1, __ATOMIC_ACQ_REL);
}

void double_context_sync_begins(void)
{
	unsigned long launched = __atomic_load_n(&kernels_launched, __ATOMIC_ACQUIRE),
		      covered = __atomic_load_n(&kernels_covered, __ATOMIC_RELAXED);
	while (launched > covered && !__atomic_compare_exchange_n(&kernels_covered, &covered, launched, 1,
								    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
	}
}

/*
 * GMP_DOUBLE_LAZY=module: the module loads at its first use, as under
 * CUDA_MODULE_LOADING=LAZY: a driver query of one of its functions (the
 * collector's own, inside its callback: fake_app's cuFuncGetParamInfo,
 * cuKernelGetFunction, cuFuncGetModule) or the first launch, after the
 * launch call's enter.  Otherwise it loads as the program starts.
 */
static int module_lazy, module_loaded; /* module_loaded: atomic */
static void read_module_lazy(void)
{
	const char *v = getenv("GMP_DOUBLE_LAZY");
	module_lazy = v && !strcmp(v, "module");
}

void gmp_double_module_used(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, read_module_lazy);
	if (__atomic_exchange_n(&module_loaded, 1, __ATOMIC_ACQ_REL))
		return;
	Sanitizer_ResourceModuleData md = { .context = DOUBLE_CTX, .module = MODULE };
	double_deliver(SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CBID_RESOURCE_MODULE_LOADED, &md);
}

void double_module_start(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, read_module_lazy);
	if (!module_lazy)
		gmp_double_module_used();
}

/*
 * GMP_DOUBLE_RELOAD_AT=N: before the Nth event the program unloads its
 * module and loads it again, at the same handle (as a driver may give a
 * freed handle again): unloaded, it is no longer patched.
 */
/* The module gone (unloaded, or its context destroyed): nothing of it is patched any more. */
static void module_gone(void)
{
	for (size_t i = 0; i < sizeof(patched_cb) / sizeof(patched_cb[0]); i++)
		__atomic_store_n(&patched_cb[i], NULL, __ATOMIC_RELAXED);
	__atomic_store_n(&module_patched, 0, __ATOMIC_RELAXED);
	lazy_silence(0);
}

static long reload_at;
static void read_reload_at(void)
{
	const char *v = getenv("GMP_DOUBLE_RELOAD_AT");
	reload_at = v ? strtol(v, NULL, 10) : 0;
}

void double_module_reload_at(long n)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, read_reload_at);
	if (n != reload_at || !__atomic_load_n(&module_loaded, __ATOMIC_ACQUIRE))
		return;
	Sanitizer_ResourceModuleData md = { .context = DOUBLE_CTX, .module = MODULE };
	double_deliver(SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CBID_RESOURCE_MODULE_UNLOAD_STARTING, &md);
	module_gone();
	double_deliver(SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CBID_RESOURCE_MODULE_LOADED, &md);
}

void double_context_destroyed(void)
{
	double_context_sync_begins();
	module_gone();
}

SanitizerResult sanitizerAddPatchesFromFile(const char *filename, CUcontext ctx)
{
	(void)ctx;
	not_in_launch("sanitizerAddPatchesFromFile");
	if (double_fails(DOUBLE_FAIL_PATCHES))
		return SANITIZER_ERROR_INVALID_PARAMETER;
	return access(filename, R_OK) == 0 ? SANITIZER_SUCCESS : SANITIZER_ERROR_INVALID_PARAMETER;
}

SanitizerResult sanitizerPatchInstructions(const Sanitizer_InstructionId id, CUmodule module,
					   const char *name)
{
	static const char *const known[] = { "gmp_patch_global_access", "gmp_patch_global_access_object",
					     "gmp_patch_global_access_records",
					     "gmp_patch_memcpy_async", "gmp_patch_memcpy_async_object", "gmp_patch_device_malloc",
					     "gmp_patch_device_free", "gmp_patch_bulk_load", "gmp_patch_bulk_store",
					     "gmp_patch_bulk_reduce" };
	not_in_launch("sanitizerPatchInstructions");
	if (module != MODULE || id <= 0 || id >= 64)
		return SANITIZER_ERROR_INVALID_PARAMETER;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(name, known[i]) == 0) {
			__atomic_store_n(&patched_cb[id], known[i], __ATOMIC_RELAXED);
			if (getenv("GMP_DOUBLE_PATCHES")) /* which device function each instruction kind calls */
				fprintf(stderr, "double: instruction %d patched to %s\n", (int)id, known[i]);
			return SANITIZER_SUCCESS;
		}
	return SANITIZER_ERROR_INVALID_PARAMETER; /* no such device function in the patches */
}

SanitizerResult sanitizerPatchModule(CUmodule module)
{
	not_in_launch("sanitizerPatchModule");
	if (module != MODULE || double_fails(DOUBLE_FAIL_MODULE))
		return SANITIZER_ERROR_INVALID_PARAMETER;
	if (__atomic_exchange_n(&module_patched, 1, __ATOMIC_RELAXED)) {
		unsigned long started = __atomic_load_n(&kernels_started, __ATOMIC_SEQ_CST),
			      covered = __atomic_load_n(&kernels_covered, __ATOMIC_SEQ_CST);
		if (started > covered) {
			fprintf(stderr, "sanitizer double: sanitizerPatchModule of a patched module while %lu kernels "
				"of it may still run: their code changes under them (an illegal instruction)\n",
				started - covered);
			abort();
		}
		lazy_silence(1); /* patched again: its lazily loaded functions fall silent */
	}
	__atomic_add_fetch(&double_stats.module_patches, 1, __ATOMIC_RELAXED);
	double_delay("GMP_DOUBLE_PATCH_MS");
	return SANITIZER_SUCCESS;
}

SanitizerResult sanitizerUnpatchModule(CUmodule module)
{
	not_in_launch("sanitizerUnpatchModule");
	if (module != MODULE || !double_module_patched())
		return SANITIZER_ERROR_INVALID_PARAMETER;
	if (double_fails(DOUBLE_FAIL_UNPATCH)) /* GMP_DOUBLE_FAIL=unpatch:N: the module stays patched */
		return SANITIZER_ERROR_UNKNOWN;
	/* From here to the end no kernel may start; none that started may be left uncovered. */
	__atomic_store_n(&unpatching, 1, __ATOMIC_SEQ_CST);
	unsigned long started = __atomic_load_n(&kernels_started, __ATOMIC_SEQ_CST),
		      covered = __atomic_load_n(&kernels_covered, __ATOMIC_SEQ_CST);
	if (started > covered) {
		fprintf(stderr, "sanitizer double: sanitizerUnpatchModule while %lu kernels of the module may "
			"still run (started, and no context synchronization covered them)\n", started - covered);
		abort();
	}
	double_delay("GMP_DOUBLE_PATCH_MS"); /* as long as patching: kernels starting meanwhile are caught */
	/* Patching it again takes sanitizerPatchInstructions again. */
	for (size_t i = 0; i < sizeof(patched_cb) / sizeof(patched_cb[0]); i++)
		__atomic_store_n(&patched_cb[i], NULL, __ATOMIC_RELAXED);
	__atomic_store_n(&module_patched, 0, __ATOMIC_RELAXED);
	lazy_silence(0);
	__atomic_add_fetch(&double_stats.module_unpatches, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&unpatching, 0, __ATOMIC_SEQ_CST);
	return SANITIZER_SUCCESS;
}

