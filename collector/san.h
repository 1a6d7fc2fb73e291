/* SPDX-License-Identifier: MIT */
/*
 * The Compute Sanitizer library, loaded at run time: every function the
 * collector calls, looked up by name.  The rest of the collector calls
 * the API only through this table, so the test double can stand in for
 * the real library.
 */
#ifndef GMPROF_SAN_H
#define GMPROF_SAN_H

#include <limits.h>

#include "sanitizer_api.h"

struct gmp_san {
	void *lib;
	char path[PATH_MAX];
	__typeof__(&sanitizerGetResultString) GetResultString;
	__typeof__(&sanitizerSubscribe) Subscribe;
	__typeof__(&sanitizerUnsubscribe) Unsubscribe;
	__typeof__(&sanitizerEnableDomain) EnableDomain;
	__typeof__(&sanitizerEnableCallback) EnableCallback; /* NULL where the library lacks it */
	__typeof__(&sanitizerAlloc) Alloc;
	__typeof__(&sanitizerFree) Free;
	__typeof__(&sanitizerAllocHost) AllocHost; /* NULL where the library lacks them: hit lists on the device */
	__typeof__(&sanitizerFreeHost) FreeHost;
	__typeof__(&sanitizerMemcpyHostToDeviceAsync) MemcpyHostToDeviceAsync;
	__typeof__(&sanitizerMemcpyDeviceToHost) MemcpyDeviceToHost;
	__typeof__(&sanitizerMemset) Memset;
	__typeof__(&sanitizerStreamSynchronize) StreamSynchronize;
	__typeof__(&sanitizerAddPatchesFromFile) AddPatchesFromFile;
	__typeof__(&sanitizerPatchInstructions) PatchInstructions;
	__typeof__(&sanitizerPatchModule) PatchModule;
	__typeof__(&sanitizerUnpatchModule) UnpatchModule; /* NULL where the library lacks it */
	__typeof__(&sanitizerSetLaunchCallbackData) SetLaunchCallbackData;
	__typeof__(&sanitizerSetCallbackData) SetCallbackData; /* GMPROF_GRAPH_NODE_DATA=function only */
};

/*
 * Finds and loads libsanitizer-public.so: the explicit path when given,
 * else $CUDA_HOME/compute-sanitizer, else beside a compute-sanitizer on
 * PATH, else /usr/local/cuda/compute-sanitizer.  Returns 0, or -ENOENT /
 * -ENOSYS with one sentence in err.
 */
int gmp_san__load(struct gmp_san *s, const char *explicit_path, char *err, size_t n);
/* The library's text for a result, or a number. */
const char *gmp_san__strerror(const struct gmp_san *s, SanitizerResult r);

#endif
