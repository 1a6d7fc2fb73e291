// SPDX-License-Identifier: MIT
/* The API calls the test double makes beside a script's events (double_calls.h). */
#define _GNU_SOURCE
#include "double_calls.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void double_api(const char *name, Sanitizer_ApiCallbackSite site)
{
	Sanitizer_CallbackData cd = { .callbackSite = site, .functionName = name, .context = DOUBLE_CTX };
	double_deliver(SANITIZER_CB_DOMAIN_RUNTIME_API, 1, &cd);
}

static int no_driver_launch; /* GMP_DOUBLE_DRIVER_LAUNCH=0, read once */
static void read_driver_launch(void)
{
	const char *v = getenv("GMP_DOUBLE_DRIVER_LAUNCH");
	no_driver_launch = v && !strcmp(v, "0");
}

void double_driver_launch(CUfunction fn, Sanitizer_ApiCallbackSite site)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, read_driver_launch);
	if (no_driver_launch)
		return;
	void *params[11] = { (void *)fn }; /* cuLaunchKernel's: the function, the grid, ..., extra */
	Sanitizer_CallbackData cd = { .callbackSite = site, .functionName = "cuLaunchKernel",
				      .functionParams = params, .context = DOUBLE_CTX };
	double_deliver(SANITIZER_CB_DOMAIN_DRIVER_API, 1, &cd);
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
	int rv = 2; /* cudaErrorMemoryAllocation, CUDA_ERROR_OUT_OF_MEMORY */
	Sanitizer_CallbackDomain dom = strncmp(name, "cuda", 4) ? SANITIZER_CB_DOMAIN_DRIVER_API
								: SANITIZER_CB_DOMAIN_RUNTIME_API;
	Sanitizer_CallbackData cd = { .callbackSite = SANITIZER_API_ENTER, .functionName = name,
				      .functionParams = params, .context = DOUBLE_CTX };
	double_deliver(dom, 1, &cd);
	cd.callbackSite = SANITIZER_API_EXIT;
	cd.functionReturnValue = &rv;
	double_deliver(dom, 1, &cd);
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
