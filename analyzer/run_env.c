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
	/* What the options say, each where given (NULL: not given). */
	const struct {
		const char *var, *value;
	} given[] = {
		{ "CUDA_INJECTION64_PATH", collector }, { "GMPROF_OUTPUT", o->output },
		{ "GMPROF_FORCE", o->force ? "1" : NULL }, { "GMPROF_MODE", o->mode },
		{ "GMPROF_KERNEL_SAMPLE", o->sample }, { "GMPROF_KERNELS", o->kernels },
		{ "GMPROF_DEPTH", o->depth }, { "GMPROF_HARVEST", o->harvest },
		{ "GMPROF_SANITIZER_LIB", o->sanlib }, { "GMPROF_CAPTURE", o->capture },
		{ "GMPROF_NVTX_DOMAIN_INCLUDE", o->domains_in }, { "GMPROF_NVTX_DOMAIN_EXCLUDE", o->domains_out },
		{ "GMPROF_NVTX_DOMAIN_NAMES", o->domain_names ? "1" : NULL },
		/* Each tensor an allocation of its own (frameworks.c names the pools that hide them). */
		{ "PYTORCH_NO_CUDA_MEMORY_CACHING", o->no_caching ? "1" : NULL },
		{ "TF_GPU_ALLOCATOR", o->no_caching ? "cuda_malloc_async" : NULL },
		{ "XLA_PYTHON_CLIENT_ALLOCATOR", o->no_caching ? "platform" : NULL },
	};
	int err = 0;
	for (size_t i = 0; i < sizeof(given) / sizeof(given[0]); i++)
		if (given[i].value)
			err |= setenv(given[i].var, given[i].value, 1);
	/* One NVTX domain list: the option's, not one the environment had of the other kind. */
	if (o->domains_in || o->domains_out)
		err |= unsetenv(o->domains_in ? "GMPROF_NVTX_DOMAIN_EXCLUDE" : "GMPROF_NVTX_DOMAIN_INCLUDE");
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
