// SPDX-License-Identifier: MIT
/*
 * A stand-in for a CUDA program, for the collector tests.  It loads the
 * collector as the CUDA driver would (dlopen of GMPROF_COLLECTOR, then
 * InitializeInjection) -- or finds it already preloaded -- and has the
 * Sanitizer test double replay event scripts as callbacks.
 *
 *   fake_app [--preloaded] [--bare] [--no-teardown] [--threads N] [--oom-above BYTES]
 *            [--die-after N kill|segv|abort|exit] SCRIPT
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "double_patch.h"
#include "fake_nvtx.h"
#include "sanitizer_double.h"

struct api {
	__typeof__(&gmp_double_start) start;
	__typeof__(&gmp_double_replay) replay;
	__typeof__(&gmp_double_teardown) teardown;
	__typeof__(&gmp_double_set_die) set_die;
	__typeof__(&gmp_double_set_oom_above) set_oom;
	__typeof__(&gmp_double_error) error;
	__typeof__(&gmp_double_pool_attr) pool_attr;
	__typeof__(&gmp_double_array_desc) array_desc;
	__typeof__(&gmp_double_address_range) address_range;
	__typeof__(&gmp_double_fork_during_ranges) fork_ranges;
	__typeof__(&gmp_double_module_used) module_used;
};

static struct api d;

/*
 * The stream-ordered pools: every device's current one is the double's
 * pool 0, and pool 1 one the program made (double_memory.c); each answers
 * for the attributes the collector asks.
 */
int cuDeviceGetMemPool(CUmemoryPool *pool, int device);
int cuDeviceGetMemPool(CUmemoryPool *pool, int device)
{
	if (!pool || device < 0)
		return 1;
	*pool = DOUBLE_POOL;
	return 0;
}

int cuMemPoolGetAttribute(CUmemoryPool pool, int attr, void *value);
int cuMemPoolGetAttribute(CUmemoryPool pool, int attr, void *value)
{
	if ((pool != DOUBLE_POOL && pool != DOUBLE_POOL2) || !value || !d.pool_attr)
		return 1; /* CUDA_ERROR_INVALID_VALUE */
	return d.pool_attr(pool == DOUBLE_POOL2, attr, value);
}

/* A CUDA array's dimensions and format: the double's arrays (double_memory.c). */
int cuArray3DGetDescriptor_v2(void *desc, void *array);
int cuArray3DGetDescriptor_v2(void *desc, void *array)
{
	return d.array_desc ? d.array_desc(desc, array) : 1;
}

/* The allocation a pointer falls in: what the double's IPC opens mapped (double_ipc.c). */
int cuMemGetAddressRange_v2(uint64_t *base, size_t *size, uint64_t ptr);
int cuMemGetAddressRange_v2(uint64_t *base, size_t *size, uint64_t ptr)
{
	return d.address_range ? d.address_range(base, size, ptr) : 1;
}

/*
 * The driver's cuMemGetInfo_v2, which the collector asks when an allocation
 * runs out of memory: FAKE_CUDA_FREE and FAKE_CUDA_TOTAL bytes, or an error
 * when they are unset.  Exported (-rdynamic), as a loaded driver's would be.
 */
int cuMemGetInfo_v2(size_t *free_bytes, size_t *total_bytes);
int cuMemGetInfo_v2(size_t *free_bytes, size_t *total_bytes)
{
	const char *f = getenv("FAKE_CUDA_FREE"), *t = getenv("FAKE_CUDA_TOTAL");
	if (!f || !t)
		return 999; /* CUDA_ERROR_UNKNOWN */
	*free_bytes = (size_t)strtoull(f, NULL, 10);
	*total_bytes = (size_t)strtoull(t, NULL, 10);
	return 0;
}

/*
 * What the collector asks of each device at its first context:
 * FAKE_CUDA_NAME, FAKE_CUDA_TOTAL bytes and FAKE_CUDA_VERSION (13000 for
 * 13.0); each an error when unset.
 */
int cuDeviceGetName(char *name, int len, int device);
int cuDeviceGetName(char *name, int len, int device)
{
	const char *v = getenv("FAKE_CUDA_NAME");
	if (!v || len <= 0 || device < 0)
		return 999;
	snprintf(name, (size_t)len, "%s", v);
	return 0;
}

/*
 * The module a function is in: the double's program has one (double_patch.h).
 * FAKE_CUDA_KERNEL_HANDLES=1: launches pass kernel handles (cuLibraryGetKernel's,
 * which the runtime may launch through since CUDA 12), which cuFuncGetModule
 * refuses; cuKernelGetFunction gives the function (here, the handle with its
 * low bit set).
 */
static int kernel_handles(void)
{
	const char *v = getenv("FAKE_CUDA_KERNEL_HANDLES");
	return v && *v == '1';
}

int cuFuncGetModule(CUmodule *module, CUfunction f);
int cuFuncGetModule(CUmodule *module, CUfunction f)
{
	if (d.module_used)
		d.module_used(); /* GMP_DOUBLE_LAZY=module: a query of its function loads it */
	if (!f || (kernel_handles() && !((uintptr_t)f & 1)))
		return 1; /* CUDA_ERROR_INVALID_VALUE */
	if (!DOUBLE_IS_FUNCTION((uintptr_t)f & ~(uintptr_t)1))
		return 400; /* CUDA_ERROR_INVALID_HANDLE: not a function the double made */
	*module = MODULE;
	return 0;
}

int cuKernelGetFunction(CUfunction *fn, void *kernel);
int cuKernelGetFunction(CUfunction *fn, void *kernel)
{
	if (d.module_used)
		d.module_used();
	if (!kernel || !kernel_handles())
		return 1;
	*fn = (CUfunction)((uintptr_t)kernel | 1);
	return 0;
}

/*
 * Where a function's parameters lie: every function of the double's program
 * takes two, 8 bytes at offset 0 and 384 at offset 128 (a struct that holds
 * a tensor map: double_tmap.c); a kernel handle (FAKE_CUDA_KERNEL_HANDLES) is
 * refused, as by cuFuncGetModule.  Built as fake_app_old, the program's
 * driver is from before CUDA 12.4, which has no such call.  FAKE_CUDA_STATS=1
 * prints how many times it was called, at exit.
 */
#ifndef FAKE_DRIVER_BEFORE_12_4
static unsigned long param_info_calls; /* atomic: FAKE_CUDA_STATS=1 prints it at exit */

__attribute__((destructor)) static void print_param_info_calls(void)
{
	const char *v = getenv("FAKE_CUDA_STATS");
	if (v && *v == '1')
		fprintf(stderr, "fake cuda: %lu cuFuncGetParamInfo calls\n",
			__atomic_load_n(&param_info_calls, __ATOMIC_RELAXED));
}

int cuFuncGetParamInfo(CUfunction f, size_t i, size_t *off, size_t *size);
int cuFuncGetParamInfo(CUfunction f, size_t i, size_t *off, size_t *size)
{
	__atomic_add_fetch(&param_info_calls, 1, __ATOMIC_RELAXED);
	if (d.module_used)
		d.module_used();
	if (!f || i > 1 || !off || !size || (kernel_handles() && !((uintptr_t)f & 1)))
		return 1; /* CUDA_ERROR_INVALID_VALUE; a kernel handle: cuKernelGetFunction's function */
	*off = i ? 128 : 0;
	*size = i ? 384 : 8;
	return 0;
}
#endif

/* FAKE_CUDA_CC ("9.0"): the compute capability (attributes 75 and 76); an error when unset. */
int cuDeviceGetAttribute(int *value, int attribute, int device);
int cuDeviceGetAttribute(int *value, int attribute, int device)
{
	const char *v = getenv("FAKE_CUDA_CC");
	int major, minor;
	if (!v || device < 0 || sscanf(v, "%d.%d", &major, &minor) != 2 || (attribute != 75 && attribute != 76))
		return 999;
	*value = attribute == 75 ? major : minor;
	return 0;
}

int cuDeviceTotalMem_v2(size_t *bytes, int device);
int cuDeviceTotalMem_v2(size_t *bytes, int device)
{
	const char *v = getenv("FAKE_CUDA_TOTAL");
	if (!v || device < 0)
		return 999;
	*bytes = (size_t)strtoull(v, NULL, 10);
	return 0;
}

int cuDriverGetVersion(int *version);
int cuDriverGetVersion(int *version)
{
	const char *v = getenv("FAKE_CUDA_VERSION");
	if (!v)
		return 999;
	*version = atoi(v);
	return 0;
}

static const char *script;

static void *thread_main(void *arg)
{
	uintptr_t k = (uintptr_t)arg;
	char name[16];
	snprintf(name, sizeof(name), "replay-%u", (unsigned)k);
	pthread_setname_np(pthread_self(), name); /* as a runtime names its threads: the profile says so */
	/* Each thread: streams and objects of its own. */
	if (d.replay(script, (uint32_t)(k * 100), (uint64_t)k << 40)) {
		fprintf(stderr, "fake_app: thread %u: %s\n", (unsigned)k, d.error());
		return (void *)1;
	}
	return NULL;
}

static void *must(void *h, const char *name)
{
	void *p = dlsym(h, name);
	if (!p) {
		fprintf(stderr, "fake_app: %s: %s\n", name, dlerror());
		exit(2);
	}
	return p;
}

int main(int argc, char **argv)
{
	int preloaded = 0, bare = 0, teardown = 1, threads = 0, i = 1;
	long die_after = -1, oom = -1;
	int how = 0;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--preloaded"))
			preloaded = 1;
		else if (!strcmp(argv[i], "--bare"))
			bare = 1;
		else if (!strcmp(argv[i], "--no-teardown"))
			teardown = 0;
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			threads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--oom-above") && i + 1 < argc)
			oom = atol(argv[++i]);
		else if (!strcmp(argv[i], "--die-after") && i + 2 < argc) {
			die_after = atol(argv[++i]);
			const char *h = argv[++i];
			how = !strcmp(h, "kill") ? GMP_DOUBLE_DIE_KILL : !strcmp(h, "segv") ? GMP_DOUBLE_DIE_SEGV
			      : !strcmp(h, "abort") ? GMP_DOUBLE_DIE_ABORT : GMP_DOUBLE_DIE_EXIT;
		} else {
			fprintf(stderr, "fake_app: bad option %s\n", argv[i]);
			return 2;
		}
	}
	if (i != argc - 1) {
		fprintf(stderr, "usage: fake_app [options] SCRIPT\n");
		return 2;
	}
	script = argv[i];
	/* The double drives the replay even when the collector was told another library. */
	const char *lib = getenv("GMPROF_DOUBLE");
	if (!lib)
		lib = getenv("GMPROF_SANITIZER_LIB");
	if (!lib) {
		fprintf(stderr, "fake_app: GMPROF_DOUBLE must name the test double\n");
		return 2;
	}
	if (fake_nvtx_early()) /* GMP_DOUBLE_NVTX_STREAM_NAMES=early */
		return 2;
	if (!preloaded && !bare) {
		/* What the driver does with CUDA_INJECTION64_PATH. */
		const char *col = getenv("GMPROF_COLLECTOR");
		if (!col)
			col = getenv("CUDA_INJECTION64_PATH");
		void *c = col ? dlopen(col, RTLD_NOW | RTLD_LOCAL) : NULL;
		if (!c) {
			fprintf(stderr, "fake_app: cannot load the collector: %s\n", col ? dlerror() : "GMPROF_COLLECTOR unset");
			return 2;
		}
		int (*init)(void) = (int (*)(void))must(c, "InitializeInjection");
		init();
	}
	void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
	if (!h) /* the collector did not load it (it gave up): load it to drive the replay */
		h = dlopen(lib, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "fake_app: %s\n", dlerror());
		return 2;
	}
	*(void **)&d.start = must(h, "gmp_double_start");
	*(void **)&d.replay = must(h, "gmp_double_replay");
	*(void **)&d.teardown = must(h, "gmp_double_teardown");
	*(void **)&d.set_die = must(h, "gmp_double_set_die");
	*(void **)&d.set_oom = must(h, "gmp_double_set_oom_above");
	*(void **)&d.error = must(h, "gmp_double_error");
	*(void **)&d.pool_attr = must(h, "gmp_double_pool_attr");
	*(void **)&d.array_desc = must(h, "gmp_double_array_desc");
	*(void **)&d.address_range = must(h, "gmp_double_address_range");
	*(void **)&d.fork_ranges = must(h, "gmp_double_fork_during_ranges");
	*(void **)&d.module_used = must(h, "gmp_double_module_used");
	if (oom >= 0)
		d.set_oom((uint64_t)oom);
	if (die_after >= 0)
		d.set_die(die_after, how);
	d.start();
	int rc = 0;
	if (threads > 0) {
		pthread_t *tid = calloc((size_t)threads, sizeof(*tid));
		for (int k = 0; k < threads; k++)
			pthread_create(&tid[k], NULL, thread_main, (void *)(uintptr_t)(k + 1));
		for (int k = 0; k < threads; k++) {
			void *r;
			pthread_join(tid[k], &r);
			rc |= r != NULL;
		}
		free(tid);
	} else if (d.replay(script, 0, 0)) {
		fprintf(stderr, "fake_app: %s\n", d.error());
		rc = 1;
	}
	/* FAKE_APP_FORK=1: a worker forked after the CUDA work (a data loader's) that exits without exec. */
	const char *fk = getenv("FAKE_APP_FORK");
	if (fk && !strcmp(fk, "1")) {
		pid_t pid = fork();
		if (pid == 0)
			exit(0);
		int st;
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			rc = 1;
	}
	/* FAKE_APP_FORK=ranges: 50 workers forked while a thread begins and ends NVTX ranges. */
	if (fk && !strcmp(fk, "ranges") && d.fork_ranges(50)) {
		fprintf(stderr, "fake_app: a worker forked during NVTX ranges hung or failed\n");
		rc = 1;
	}
	if (teardown)
		d.teardown();
	return rc;
}
