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
	const char *domains_in, *domains_out; /* --nvtx-domain-include, --nvtx-domain-exclude */
	const char *kernels_from;  /* --kernels-from: a profile */
	char *chosen;              /* the regex it gave (o.kernels then points at it) */
	uint32_t kernels_top;
	const char *alloc_fns[GMP_MAX_ALLOC_FNS];
	size_t nalloc_fns;
	int force;
	int no_caching;            /* --no-caching */
	const char *nvtx_strip;    /* --nvtx-strip, for the summary */
	int nvtx_numbers;          /* --nvtx-numbers */
	int domain_names;          /* --nvtx-domain-names */
	uint32_t fail_on, top;
};

/*
 * Sets the environment the program inherits: the collector and its
 * settings, and with --no-caching the frameworks' switches that turn their
 * memory pools off.  0, or -errno.
 */
int gmp_run__set_env(const struct run_opts *o, const char *collector);

/* run_manifest.c.  The directory part of an output pattern ("." when none), into dir. */
void gmp_run__output_dir(const char *pattern, char *dir, size_t n);
/*
 * Makes the run's list of profiles (GMPROF_RUN_MANIFEST), a directory beside
 * the profiles when their directory is known, else in TMPDIR, its absolute
 * path into out: 0, or -1 said in one line.
 */
int gmp_run__make_manifest(const char *pattern, char *out, size_t n);
/* Removes the list and what is in it. */
void gmp_run__drop_manifest(const char *manifest);
/* The listed profiles, sorted, each once; the list is removed.  NULL (and *n 0) when none. */
char **gmp_run__listed(const char *manifest, size_t *n);

#endif
