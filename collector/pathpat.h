/* SPDX-License-Identifier: MIT */
/*
 * Profile path patterns: %p (pid), %h (host), %q{VAR} (an environment
 * variable), %r (the MPI/Slurm/torchrun rank), %% (a percent sign).
 * Values that come from the environment may not move the file to another
 * directory: they may not contain '/', nor be "." or "..".
 */
#ifndef GMPROF_PATHPAT_H
#define GMPROF_PATHPAT_H

#include <stddef.h>
#include <sys/types.h>

#include "options.h"

/* The rank variables, in the order %r tries them. */
extern const char *const gmp_rank_vars[];

/* Expands pattern into out; returns 0 or -EINVAL with one sentence in err. */
int gmp_path__expand(const char *pattern, pid_t pid, const char *host, gmp_getenv_fn get,
		     char *out, size_t n, char *err, size_t errn);

#endif
