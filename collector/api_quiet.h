/* SPDX-License-Identifier: MIT */
/*
 * The runtime and driver API calls whose callbacks the collector needs
 * not take (GMPROF_API_CALLBACKS=needed, api_off.c): calls that make no
 * GPU work and allocate, sync and launch nothing.  Pure: no Sanitizer.
 */
#ifndef GMPROF_API_QUIET_H
#define GMPROF_API_QUIET_H

#include <stddef.h>

/* 1 when functionName (with any _v2, _ptsz suffixes) is such a call. */
int gmp_api__quiet(const char *function_name);
/* The list, sorted as strcmp sorts: *n gets the count. */
const char *const *gmp_api__quiet_all(size_t *n);

#endif
