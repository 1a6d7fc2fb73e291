/* SPDX-License-Identifier: MIT */
/* The Perfetto (Chrome Trace Event JSON) writer behind `gmprof perfetto`. */
#ifndef GMPROF_PERFETTO_H
#define GMPROF_PERFETTO_H

#include <stdint.h>
#include <stdio.h>

#include "jw.h"
#include "session.h"

/*
 * The trace of one or several inputs (an MPI job's ranks): begin (host_time:
 * the host clock axis instead of the topological order), add each session
 * opened with keep_deps (its processes named "LABEL: GPU d", their pids and
 * object ids apart from the other inputs'), end with the inputs' names.
 * add returns 0, -ENODATA when host time was asked for and the input has
 * none, or -errno; end returns the writer's first error.  d->written counts
 * the trace events written.
 */
struct gmp_perfetto_doc {
	struct gmp_jw jw;
	int host;
	int lean;                 /* no child slices or flows: the objects in each API's args */
	int any;                  /* a trace event was written */
	uint64_t written;         /* trace events */
	uint32_t pid_base;        /* the current input's processes start past it */
	uint64_t id_base;         /* and its object ids */
};
void gmp_perfetto__begin(struct gmp_perfetto_doc *d, FILE *fp, int host_time);
/* A slice's length on either axis (one level of the topological one), ns. */
#define GMP_PERFETTO_SLICE_NS 1000u
/*
 * On the host axis, the NVTX ranges of r's host threads as nested slices,
 * and their marks as instants (with the live bytes at each: markmem.h), in
 * process pid (perfetto_ranges.c); nothing on the topological one.
 */
int gmp_perfetto__ranges(struct gmp_perfetto_doc *d, const struct gmp_result *r, uint32_t pid);
int gmp_perfetto__add(struct gmp_perfetto_doc *d, struct gmp_session *s, const char *label);
int gmp_perfetto__end(struct gmp_perfetto_doc *d, const char *const *inputs, size_t n);
/* A child slice's name into buf (n > 20), "read obj#12", "write weights": without printf, for millions. */
size_t gmp_perfetto__child_name(const struct gmp_result *r, uint32_t obj, uint32_t kind, char *buf, size_t n);

#endif
