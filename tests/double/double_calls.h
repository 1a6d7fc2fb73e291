/* SPDX-License-Identifier: MIT */
/*
 * The test double's handles and the API calls it makes beside a script's
 * events (double_calls.c): API enter and exit callbacks, allocations that
 * run out of memory, the profiler API.
 */
#ifndef GMPROF_DOUBLE_CALLS_H
#define GMPROF_DOUBLE_CALLS_H

#include <stddef.h>
#include <stdint.h>

#include "gmprof/trace.h"
#include "sanitizer_api.h"

#define DOUBLE_CTX ((CUcontext)(uintptr_t)0x1000)

/*
 * A script's stream n as a CUstream (0: the legacy stream, NULL) and as a
 * Sanitizer handle.  GMP_DOUBLE_STREAM_REUSE=1: every stream of the
 * script has the same CUstream, as a driver may give a new stream the
 * handle of one destroyed before.
 */
int double_stream_reuse(void);
static inline CUstream double_stream_handle(uint32_t n)
{
	return n ? (CUstream)(uintptr_t)(0x5000 + (n < 4096 && double_stream_reuse() ? 1 : n) * 16) : NULL;
}

static inline Sanitizer_StreamHandle double_hstream(uint32_t n)
{
	return (Sanitizer_StreamHandle)(uintptr_t)(0x6000 + n * 16);
}

/* The stream the driver runs a graph launched on stream n on (GMP_DOUBLE_GRAPH). */
#define DOUBLE_GRAPH_STREAM(n) (4096 + (n))

/* The double's delivery of a callback (sanitizer_double.c). */
void double_deliver(Sanitizer_CallbackDomain d, Sanitizer_CallbackId cbid, const void *data);
/*
 * A runtime API call's enter or exit, with an id of its function's
 * (GMP_DOUBLE_API_IDS=one: 1 for all), unless that id was turned off.
 */
void double_api(const char *name, Sanitizer_ApiCallbackSite site);
/* The same with the call's parameter block (the exit: returning success). */
void double_api_params(const char *name, const void *params, Sanitizer_ApiCallbackSite site);
/*
 * Streams 1 to last of t (base + n as the collector sees them), made in
 * that order: a stream t declares (a script's `stream` line) inside the
 * call that makes it, cudaStreamCreateWithFlags with its flags
 * (GMP_DOUBLE_STREAM_API=driver: cuStreamCreate; =plain: cudaStreamCreate
 * for a blocking one), the STREAM_CREATED callback within; another with
 * the callback alone.  GMP_DOUBLE_PER_THREAD=1: the runtime calls come
 * with a _ptsz suffix, as a program built with --default-stream
 * per-thread makes them.
 */
void double_streams_made(const struct gmp_trace *t, uint32_t last, uint32_t base);
/*
 * GMP_DOUBLE_POLL=N: a script's event sync (event 1) or stream sync
 * comes as a polling loop instead: cudaEventQuery (cudaStreamQuery; with
 * GMP_DOUBLE_POLL_API=driver, cuEventQuery, cuStreamQuery) not ready
 * twice, then done N times; no SYNCHRONIZE callback.  0: not asked (the
 * sync comes as ever).
 */
int double_query(const void *handle, int event);
/*
 * GMP_DOUBLE_SYMBOL_COPIES=1: after a launch, a blocking copy of 4 bytes
 * from a module's variable (no object) to the host on its stream, as
 * cudaMemcpyFromSymbol makes it.
 */
void double_symbol_copy(CUstream stream, Sanitizer_StreamHandle hs);
/* GMP_DOUBLE_POLL: after a launch, its stream queried once and found busy (not ready). */
void double_query_busy(const void *stream);
/* sanitizerEnableCallback for the API domains: an id on or off. */
SanitizerResult double_api_enable(uint32_t enable, Sanitizer_CallbackDomain d, Sanitizer_CallbackId cbid);
/*
 * Before event e: GMP_DOUBLE_QUERIES=n, n rounds of calls that make no GPU
 * work; GMP_DOUBLE_PACE=1, a wait until e's time_ns (ns since the first
 * event) has passed, as a program's host work between its calls takes time.
 */
void double_before_event(const struct gmp_event *e);
/* A stream or event sync: cudaStreamSynchronize's (name's) enter, the callback, its exit. */
void double_sync_call(const char *name, Sanitizer_CallbackDomain d, Sanitizer_CallbackId cbid, const void *data);
/*
 * The driver's cuLaunchKernel under a launch's cudaLaunchKernel: its enter
 * or exit, its parameters naming the function (the double's fake_app says
 * which module it is in: cuFuncGetModule).  GMP_DOUBLE_DRIVER_LAUNCH=0
 * leaves it out, as a driver that announced no launch call would.
 */
void double_driver_launch(CUfunction fn, const char *kernel, Sanitizer_ApiCallbackSite site);
/* A runtime (cuda*) or driver call with its parameters, entered and left returning rv. */
void double_api_call(const char *name, const void *params, int rv);
/*
 * GMP_DOUBLE_TENSORMAP=ADDR (double_tmap.c): right after the object at ADDR
 * is allocated, a tensor map over it (cuTensorMapEncodeTiled; with
 * GMP_DOUBLE_TENSORMAP_API=replace, encoded over host memory, then given ADDR
 * by cuTensorMapReplaceAddress), passed by value to every launch of kernel
 * GMP_DOUBLE_TENSORMAP_KERNEL (of every kernel when unset): in the second of
 * its two parameters (8 bytes, then a 384-byte struct holding the map at
 * offset 128: fake_app's cuFuncGetParamInfo says so), or with
 * GMP_DOUBLE_TENSORMAP_EXTRA=1 in an extra array's packed buffer (the map
 * at offset 256).  With GMP_DOUBLE_TENSORMAP_CACHE=1 the map is encoded at
 * the first such allocation only, and kept for the objects allocated at
 * ADDR later, as a program that caches its maps by pointer does.  With
 * GMP_DOUBLE_TENSORMAP_OTHERS=N, N more maps are encoded right after it
 * (before it, with GMP_DOUBLE_TENSORMAP_OTHERS_FIRST=1), over addresses of
 * no object, and passed to no kernel (a program making more maps than the
 * collector keeps).  The kernel's copies through it
 * are not in the script: they call no patch.
 */
void double_tensormap(uint64_t addr);
/* The launch call name of kernel: its kernelParams (or extra) slot in params set, where it takes the map. */
void double_tensormap_params(const char *kernel, const char *name, void **params);
/*
 * An allocation call that runs out of memory: no resource callback, only
 * the API's enter and exit, the exit returning 2 with the call's parameters
 * laid out as its signature has them.
 */
/*
 * GMP_DOUBLE_TEXTURE=ADDR: a texture object over the linear memory of the
 * object at ADDR, made (make 1) with cudaCreateTextureObject, or
 * cuTexObjectCreate under GMP_DOUBLE_TEXTURE_API=driver, and destroyed
 * (make 0) before the free of that object, or of the object at
 * GMP_DOUBLE_TEXTURE_END, unless GMP_DOUBLE_TEXTURE_KEEP=1 (the program
 * leaves it); its resource type is GMP_DOUBLE_TEXTURE_TYPE (2, linear
 * memory, by default).
 */
void double_texture(uint64_t addr, int make);
void double_replay_failure(const struct gmp_trace *t, const struct gmp_alloc_failure *f);
/*
 * GMP_DOUBLE_FREE_SYNCS=1: every free of a cudaMalloc allocation comes as
 * cudaFree does on a GPU, a device-wide wait with no SYNCHRONIZE callback,
 * not only right after a device sync.
 */
int double_frees_sync(void);
/*
 * GMP_DOUBLE_SYNC_COPIES=1: a script's copies and sets without "async"
 * come as cudaMemcpy and cudaMemset do, blocking (isAsync 0); otherwise
 * every one comes as the Async call.
 */
int double_sync_copies(void);
/* GMP_DOUBLE_PROFILER="3,7": cudaProfilerStart before event 3, cudaProfilerStop before 7, and so on. */
void double_profiler_calls(size_t i);
struct live;
/*
 * GMP_DOUBLE_RESET_AT=N: before script event N, cudaDeviceReset as the
 * driver makes it: the context's teardown begins, what the program left
 * allocated is freed under it (the live objects, dropped), and the next
 * context comes with the same handle, its module loaded again.
 */
void double_reset_calls(size_t i, struct live *live, size_t *nlive);

#endif
