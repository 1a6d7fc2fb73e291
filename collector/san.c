// SPDX-License-Identifier: MIT
/* Finding and loading libsanitizer-public.so. */
#define _GNU_SOURCE
#include "san.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LIBNAME "libsanitizer-public.so"

static int exists(const char *p)
{
	return access(p, R_OK) == 0;
}

/* The directory of a compute-sanitizer on PATH, into dir. */
static int on_path(char *dir, size_t n)
{
	const char *path = getenv("PATH");
	if (!path)
		return 0;
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t k = colon ? (size_t)(colon - path) : strlen(path);
		if (k && k + 32 < n) {
			char cand[PATH_MAX];
			if (snprintf(cand, sizeof(cand), "%.*s/compute-sanitizer", (int)k, path) <
				    (int)sizeof(cand) &&
			    access(cand, X_OK) == 0) {
				char real[PATH_MAX];
				if (!realpath(cand, real))
					memcpy(real, cand, sizeof(real));
				char *slash = strrchr(real, '/');
				if (slash)
					*slash = '\0';
				if (snprintf(dir, n, "%s", real) < (int)n)
					return 1;
			}
		}
		path += k + (colon ? 1 : 0);
		if (!colon)
			break;
	}
	return 0;
}

static int find(const char *explicit_path, char *out, size_t n)
{
	if (explicit_path && *explicit_path) {
		snprintf(out, n, "%s", explicit_path);
		return exists(out);
	}
	const char *home = getenv("CUDA_HOME");
	if (home && *home && snprintf(out, n, "%s/compute-sanitizer/" LIBNAME, home) < (int)n &&
	    exists(out))
		return 1;
	char dir[PATH_MAX];
	if (on_path(dir, sizeof(dir)) && snprintf(out, n, "%s/" LIBNAME, dir) < (int)n && exists(out))
		return 1;
	snprintf(out, n, "/usr/local/cuda/compute-sanitizer/" LIBNAME);
	return exists(out);
}

#define SYM(field, name)                                                         \
	do {                                                                     \
		*(void **)&s->field = dlsym(s->lib, name);                       \
		if (!s->field) {                                                 \
			snprintf(err, n, "'%s' lacks %s: it is too old or not the Compute Sanitizer library", \
				 s->path, name);                                 \
			dlclose(s->lib);                                         \
			s->lib = NULL;                                           \
			return -ENOSYS;                                          \
		}                                                                \
	} while (0)

int gmp_san__load(struct gmp_san *s, const char *explicit_path, char *err, size_t n)
{
	memset(s, 0, sizeof(*s));
	if (!find(explicit_path, s->path, sizeof(s->path))) {
		if (explicit_path && *explicit_path)
			snprintf(err, n, "the Compute Sanitizer library '%s' does not exist", s->path);
		else
			snprintf(err, n, "no Compute Sanitizer library found (looked in $CUDA_HOME/compute-sanitizer, beside compute-sanitizer on PATH and in /usr/local/cuda/compute-sanitizer): set GMPROF_SANITIZER_LIB to its path");
		return -ENOENT;
	}
	s->lib = dlopen(s->path, RTLD_NOW | RTLD_LOCAL);
	if (!s->lib) {
		snprintf(err, n, "cannot load the Compute Sanitizer library '%s': %s", s->path,
			 dlerror());
		return -ENOENT;
	}
	SYM(GetResultString, "sanitizerGetResultString");
	SYM(Subscribe, "sanitizerSubscribe");
	SYM(Unsubscribe, "sanitizerUnsubscribe");
	SYM(EnableDomain, "sanitizerEnableDomain");
	*(void **)&s->EnableCallback = dlsym(s->lib, "sanitizerEnableCallback"); /* GMPROF_API_CALLBACKS=needed only */
	SYM(Alloc, "sanitizerAlloc");
	SYM(Free, "sanitizerFree");
	*(void **)&s->AllocHost = dlsym(s->lib, "sanitizerAllocHost"); /* hit lists in pinned host memory */
	*(void **)&s->FreeHost = dlsym(s->lib, "sanitizerFreeHost");
	SYM(MemcpyHostToDeviceAsync, "sanitizerMemcpyHostToDeviceAsync");
	SYM(MemcpyDeviceToHost, "sanitizerMemcpyDeviceToHost");
	SYM(Memset, "sanitizerMemset");
	SYM(StreamSynchronize, "sanitizerStreamSynchronize");
	SYM(AddPatchesFromFile, "sanitizerAddPatchesFromFile");
	SYM(PatchInstructions, "sanitizerPatchInstructions");
	SYM(PatchModule, "sanitizerPatchModule");
	*(void **)&s->UnpatchModule = dlsym(s->lib, "sanitizerUnpatchModule"); /* GMPROF_PATCH_AT=range only */
	SYM(SetLaunchCallbackData, "sanitizerSetLaunchCallbackData");
	*(void **)&s->SetCallbackData = dlsym(s->lib, "sanitizerSetCallbackData"); /* optional */
	return 0;
}

const char *gmp_san__strerror(const struct gmp_san *s, SanitizerResult r)
{
	static __thread char buf[32];
	const char *str = NULL;
	if (s->GetResultString && s->GetResultString(r, &str) == SANITIZER_SUCCESS && str)
		return str;
	snprintf(buf, sizeof(buf), "error %d", (int)r);
	return buf;
}
