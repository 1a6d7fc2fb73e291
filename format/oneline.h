/* SPDX-License-Identifier: MIT */
/*
 * A name or a path from the program (an NVTX label, a kernel name, a
 * site, a command line) on one line of gmprof's text output, so that a
 * label with a line break cannot start a line of gmprof's own (a CI log's
 * "PASS ...", the collector's "==gmprof==" summary).
 */
#ifndef GMPROF_ONELINE_H
#define GMPROF_ONELINE_H

#include <stddef.h>

/*
 * s itself when it holds no control character, else a copy in buf (cut to
 * n bytes) with them (and backslashes) written as C escapes ("\n", "\t",
 * "\x01", "\\").
 */
const char *gmp_oneline(const char *s, char *buf, size_t n);
/* The same, always a copy (malloc'd; NULL when out of memory). */
char *gmp_oneline_dup(const char *s);

#endif
