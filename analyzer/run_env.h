/* SPDX-License-Identifier: MIT */
/*
 * What `gmprof run` asks of the program it runs (run_env.c): its options,
 * and the environment that injects the collector and passes them on.
 */
#ifndef GMPROF_RUN_ENV_H
#define GMPROF_RUN_ENV_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"

/* gmprof run's options, as cmd_run.c parses them from its flags. */
struct run_opts {
	const char *output, *mode, *sample, *kernels, *depth, *harvest, *sanlib, *suppress, *capture;
	const char *kernels_from;  /* --kernels-from: a profile */
	char *chosen;              /* the regex it gave (o.kernels then points at it) */
	uint32_t kernels_top;
	const char *alloc_fns[GMP_MAX_ALLOC_FNS];
	size_t nalloc_fns;
	int force;
	int no_caching;            /* --no-caching */
	uint32_t fail_on, top;
};

/*
 * Sets the environment the program inherits: the collector and its
 * settings, and with --no-caching the frameworks' switches that turn their
 * memory pools off.  0, or -errno.
 */
int gmp_run__set_env(const struct run_opts *o, const char *collector);

#endif
