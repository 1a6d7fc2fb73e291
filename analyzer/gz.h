/* SPDX-License-Identifier: MIT */
/*
 * Gzip output for any writer that takes a FILE *: gmp_gz__open returns a
 * stream that deflates into `under` (borrowed, left open).  fclose() on it
 * finishes the gzip member and returns EOF if any write failed.
 */
#ifndef GMPROF_GZ_H
#define GMPROF_GZ_H

#include <stdio.h>

FILE *gmp_gz__open(FILE *under);
/* Whether a path names a gzip file (ends in ".gz"). */
int gmp_gz__wanted(const char *path);

#endif
