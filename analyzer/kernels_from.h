/* SPDX-License-Identifier: MIT */
/* `gmprof run --kernels-from PROFILE`: which kernels intra mode monitors (kernels_from.c). */
#ifndef GMPROF_KERNELS_FROM_H
#define GMPROF_KERNELS_FROM_H

#include <stdint.h>

/*
 * Opens the profile (or event script) at path and returns in *regex
 * (malloc'd) an extended regular expression matching the names, as
 * recorded, of at most top kernels that touched objects live at its
 * peaks, those that touched the most bytes of them first; says which on
 * standard error.  -1 after saying why in one line (a bad input, no such
 * kernel, no memory).
 */
int gmp_kernels_from(const char *path, uint32_t top, char **regex);

struct gmp_trace;
/* A profile recorded in object mode with kernels in it: reports suggest --kernels-from it. */
int gmp_kernels_from__suggested(const struct gmp_trace *t);

#endif
