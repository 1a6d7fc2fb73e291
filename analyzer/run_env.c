// SPDX-License-Identifier: MIT
/* The environment `gmprof run` gives the program it runs (run_env.h). */
#define _GNU_SOURCE
#include "run_env.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gmp_run__set_env(const struct run_opts *o, const char *collector)
{
	int err = setenv("CUDA_INJECTION64_PATH", collector, 1);
	err |= setenv("GMPROF_OUTPUT", o->output, 1);
	if (o->force)
		err |= setenv("GMPROF_FORCE", "1", 1);
	if (o->mode)
		err |= setenv("GMPROF_MODE", o->mode, 1);
	if (o->sample)
		err |= setenv("GMPROF_KERNEL_SAMPLE", o->sample, 1);
	if (o->kernels)
		err |= setenv("GMPROF_KERNELS", o->kernels, 1);
	if (o->depth)
		err |= setenv("GMPROF_DEPTH", o->depth, 1);
	if (o->harvest)
		err |= setenv("GMPROF_HARVEST", o->harvest, 1);
	if (o->sanlib)
		err |= setenv("GMPROF_SANITIZER_LIB", o->sanlib, 1);
	if (o->capture)
		err |= setenv("GMPROF_CAPTURE", o->capture, 1);
	/* Each tensor an allocation of its own (frameworks.c names the pools that hide them). */
	if (o->no_caching) {
		err |= setenv("PYTORCH_NO_CUDA_MEMORY_CACHING", "1", 1);
		err |= setenv("TF_GPU_ALLOCATOR", "cuda_malloc_async", 1);
		err |= setenv("XLA_PYTHON_CLIENT_ALLOCATOR", "platform", 1);
	}
	/* The report comes from gmprof; the program's stderr stays the program's. */
	err |= setenv("GMPROF_SUMMARY", "0", 1);
	/* gmprof analyzes the profile itself: the program need not do it at its exit too. */
	err |= setenv("GMPROF_ONLINE", "0", 0);
	/* Patch every kernel when its module loads; alloc mode patches none, so loads stay lazy. */
	const char *mode = o->mode ? o->mode : getenv("GMPROF_MODE");
	if (!mode || strcmp(mode, "alloc"))
		err |= setenv("CUDA_MODULE_LOADING", "EAGER", 0);
	/* Pools' regions announced with the NVTX memory API come to the collector too. */
	const char *nvtx = getenv("NVTX_INJECTION64_PATH");
	if (nvtx && *nvtx && strcmp(nvtx, collector) != 0)
		fprintf(stderr, "gmprof: NVTX_INJECTION64_PATH names another tool ('%s'); "
			"regions of memory pools announced with NVTX are not seen\n", nvtx);
	else
		err |= setenv("NVTX_INJECTION64_PATH", collector, 1);
	return err ? -errno : 0;
}
