/* SPDX-License-Identifier: MIT */
/*
 * Suppressions (--suppressions FILE): findings a team has decided to live
 * with -- a leak inside a vendor library, a pool it cannot resize -- taken
 * out of every output and gate.  One rule per line; '#' at the start of a
 * line, or after a blank, starts a comment:
 *
 *   PATTERN:GLOB
 *
 * PATTERN is a pattern name or '*'.  GLOB (fnmatch(3), '*' crosses '/') is
 * matched against the allocation call path of the finding's object, frame
 * by frame: the function, "file:line", the file, and the module's path and
 * file name; for an event script, against the allocation's `at` and its
 * file; against the kernel of an intra-object finding; and against the
 * NVTX ranges the object was allocated in ("outer > inner").  A finding is
 * suppressed when any frame (or the kernel) matches a rule of its pattern.
 * PATTERN out_of_memory (never '*') takes out allocations that ran out of
 * memory, matched against the failed call's path likewise: a program that
 * probes how much fits, say.
 */
#ifndef GMPROF_SUPPRESS_H
#define GMPROF_SUPPRESS_H

#include <stddef.h>
#include <stdint.h>

#include "gmprof/detect.h"
#include "sites.h"

struct gmp_suppress_rule {
	uint32_t patterns;   /* mask of enum gmp_pattern; bit GMP_PAT_COUNT: out_of_memory */
	char *glob;
	unsigned line;
	size_t hits;         /* findings it suppressed */
};

struct gmp_suppress {
	const char *path;
	struct gmp_suppress_rule *rules;
	size_t n;
	size_t suppressed;   /* findings taken out */
	size_t suppressed_failures; /* failed allocations taken out */
};

/* Reads the rules; on a bad file prints one line ("FILE:LINE: ...") and returns -1. */
int gmp_suppress__load(const char *path, struct gmp_suppress *sp);
void gmp_suppress__release(struct gmp_suppress *sp);
/*
 * Takes the suppressed findings out of r (the others keep their order) and
 * counts them, per rule too; then remakes r's failed allocations without
 * the suppressed ones.  0, or -ENOMEM (r's findings are then unchanged).
 */
int gmp_suppress__apply(struct gmp_suppress *sp, struct gmp_result *r, struct gmp_sites *sites);

#endif
