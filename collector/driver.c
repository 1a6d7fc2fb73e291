// SPDX-License-Identifier: MIT
/*
 * The few functions of the CUDA driver that the collector calls itself:
 * how much memory a device has free (after an allocation ran out of it),
 * and what each device is (its name, memory and compute capability, the driver's CUDA version:
 * written into the profile, so that reports can say how close a peak came
 * to the device's capacity), and which module a launched function is in
 * (GMPROF_PATCH_AT=launch: patched before the launch, callbacks.c), and
 * what the stream-ordered memory pools hold (pools.c), and what a CUDA array
 * holds (arrays.c), and where a function's parameters lie (tensormaps.c),
 * and the allocation a pointer falls in (ipc.c).
 * They are looked up once, in the driver the
 * program loaded (a no-load open: the collector never loads a driver
 * itself), else among the process's exported symbols.  Callers hold no
 * collector lock and have set the re-entry guard: a driver call may
 * deliver API callbacks of its own, which are not the program's.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "alloc_api.h"
#include "collector.h"

static struct {
	int (*mem_info)(size_t *free_bytes, size_t *total_bytes);  /* cuMemGetInfo_v2 */
	int (*name)(char *name, int len, int device);              /* cuDeviceGetName */
	int (*total_mem)(size_t *bytes, int device);               /* cuDeviceTotalMem_v2 */
	int (*version)(int *version);                               /* cuDriverGetVersion */
	int (*attr)(int *value, int attribute, int device);         /* cuDeviceGetAttribute */
	int (*func_module)(CUmodule *module, CUfunction f);         /* cuFuncGetModule (CUDA 11.0) */
	int (*kernel_function)(CUfunction *fn, void *kernel);       /* cuKernelGetFunction (CUDA 12.0) */
	int (*pool_attr)(CUmemoryPool pool, int attr, void *value); /* cuMemPoolGetAttribute (CUDA 11.2) */
	int (*device_pool)(CUmemoryPool *pool, int device);         /* cuDeviceGetMemPool (CUDA 11.2) */
	int (*array_desc)(struct gmp_array3d_desc *d, CUarray a);   /* cuArray3DGetDescriptor_v2 (CUDA 3.2) */
	int (*param_info)(CUfunction f, size_t i, size_t *off, size_t *size); /* cuFuncGetParamInfo (CUDA 12.4) */
	int (*address_range)(uint64_t *base, size_t *size, uint64_t ptr);    /* cuMemGetAddressRange_v2 */
} drv;
static pthread_once_t drv_once = PTHREAD_ONCE_INIT;

static void *find(void *lib, const char *name)
{
	void *p = lib ? dlsym(lib, name) : NULL;
	return p ? p : dlsym(RTLD_DEFAULT, name);
}

static void find_driver(void)
{
	/* The handle is never closed: the driver stays loaded for the process's life. */
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	*(void **)&drv.mem_info = find(lib, "cuMemGetInfo_v2");
	*(void **)&drv.name = find(lib, "cuDeviceGetName");
	*(void **)&drv.total_mem = find(lib, "cuDeviceTotalMem_v2");
	*(void **)&drv.version = find(lib, "cuDriverGetVersion");
	*(void **)&drv.attr = find(lib, "cuDeviceGetAttribute");
	*(void **)&drv.func_module = find(lib, "cuFuncGetModule");
	*(void **)&drv.kernel_function = find(lib, "cuKernelGetFunction");
	*(void **)&drv.pool_attr = find(lib, "cuMemPoolGetAttribute");
	*(void **)&drv.device_pool = find(lib, "cuDeviceGetMemPool");
	*(void **)&drv.array_desc = find(lib, "cuArray3DGetDescriptor_v2");
	*(void **)&drv.param_info = find(lib, "cuFuncGetParamInfo");
	*(void **)&drv.address_range = find(lib, "cuMemGetAddressRange_v2");
}

static int found(void)
{
	return pthread_once(&drv_once, find_driver) == 0;
}

int drv_mem_info(uint64_t *free_bytes, uint64_t *total_bytes)
{
	size_t f = 0, t = 0;
	if (!found() || !drv.mem_info || drv.mem_info(&f, &t) != 0 || f > t)
		return -1;
	*free_bytes = f;
	*total_bytes = t;
	return 0;
}

int drv_describe(uint32_t device, struct gmp_device_desc *d)
{
	memset(d, 0, sizeof(*d));
	if (!found() || device > INT32_MAX)
		return -1;
	size_t bytes = 0;
	if (drv.total_mem && drv.total_mem(&bytes, (int)device) == 0)
		d->memory = bytes;
	if (drv.name && drv.name(d->name, (int)sizeof(d->name), (int)device) == 0)
		d->name[sizeof(d->name) - 1] = '\0';
	else
		d->name[0] = '\0';
	/* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR and _MINOR */
	int major = 0, minor = 0;
	if (drv.attr && drv.attr(&major, 75, (int)device) == 0 && drv.attr(&minor, 76, (int)device) == 0 &&
	    major > 0 && major < 100 && minor >= 0 && minor < 100) {
		d->cc_major = major;
		d->cc_minor = minor;
	}
	int v = 0;
	if (drv.version && drv.version(&v) == 0 && v > 0)
		snprintf(d->cuda, sizeof(d->cuda), "%d.%d", v / 1000, v % 1000 / 10);
	return d->memory || d->name[0] ? 0 : -1;
}

int drv_func_module(CUfunction f, CUmodule *module)
{
	*module = NULL;
	if (!found() || !drv.func_module || !f)
		return -1;
	if (drv.func_module(module, f) == 0 && *module)
		return 0;
	/* A kernel handle (cuLibraryGetKernel's) launched as a function: its function in this context. */
	CUfunction fn = NULL;
	*module = NULL;
	if (drv.kernel_function && drv.kernel_function(&fn, (void *)f) == 0 && fn &&
	    drv.func_module(module, fn) == 0 && *module)
		return 0;
	*module = NULL;
	return -1;
}

int drv_pool_attr(CUmemoryPool pool, int attr, uint64_t *value)
{
	uint64_t v = 0; /* cuuint64_t for the attributes asked (GMP_POOL_ATTR_*) */
	if (!found() || !drv.pool_attr || !pool || drv.pool_attr(pool, attr, &v) != 0)
		return -1;
	*value = v;
	return 0;
}

int drv_device_pool(uint32_t device, CUmemoryPool *pool)
{
	CUmemoryPool p = NULL;
	if (!found() || !drv.device_pool || device > INT32_MAX || drv.device_pool(&p, (int)device) != 0 || !p)
		return -1;
	*pool = p;
	return 0;
}

int drv_array_desc(CUarray a, struct gmp_array3d_desc *d)
{
	memset(d, 0, sizeof(*d));
	return found() && drv.array_desc && a && drv.array_desc(d, a) == 0 ? 0 : -1;
}

int drv_address_range(uint64_t ptr, uint64_t *base, uint64_t *size)
{
	uint64_t b = 0;
	size_t n = 0;
	if (!found() || !drv.address_range || drv.address_range(&b, &n, ptr) != 0 || !n || ptr < b || ptr - b >= n)
		return -1;
	*base = b;
	*size = n;
	return 0;
}

int drv_param_info(CUfunction f, size_t i, size_t *off, size_t *size)
{
	if (!found() || !drv.param_info)
		return -2;
	if (!f)
		return -1;
	if (drv.param_info(f, i, off, size) == 0)
		return 0;
	CUfunction fn = NULL; /* a kernel handle launched as a function (drv_func_module) */
	return drv.kernel_function && drv.kernel_function(&fn, (void *)f) == 0 && fn &&
			       drv.param_info(fn, i, off, size) == 0
		       ? 0
		       : -1;
}
