/* SPDX-License-Identifier: MIT */
/* The Perfetto (Chrome Trace Event JSON) writer behind `gmprof perfetto`. */
#ifndef GMPROF_PERFETTO_H
#define GMPROF_PERFETTO_H

#include <stdint.h>
#include <stdio.h>

#include "session.h"

/*
 * Writes the trace of a session opened with keep_deps.  host_time: the
 * host clock axis instead of the topological order.  Returns 0, -ENODATA
 * when host time was asked for and the input has none, or -errno.
 * *nwritten (may be NULL) gets the number of trace events written.
 */
int gmp_perfetto__write(FILE *fp, struct gmp_session *s, int host_time, uint64_t *nwritten);

#endif
