/* SPDX-License-Identifier: MIT */
/*
 * Event scripts (JSON Lines), the readable form of a trace.  The contract
 * is ../shared/spec/event-script.md, version 1; the project's additions
 * are documented in docs/event-script.md.
 *
 * The reader checks the form of each line (valid JSON, known op, required
 * fields, value types).  Whether an address belongs to a live object is
 * checked when the detector replays the trace, which names the line too.
 */
#ifndef GMPROF_SCRIPT_H
#define GMPROF_SCRIPT_H

#include <stddef.h>
#include <stdio.h>

#include "gmprof/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gmp_script_error {
	unsigned line;       /* 1-based line number, 0 when not about a line */
	char msg[240];       /* the reason, without the line number */
};

/* Reads a whole script.  Returns 0, -EINVAL (see *err), -ENOMEM or -EIO. */
int gmp_script__read_file(FILE *fp, struct gmp_trace **out, struct gmp_script_error *err);
int gmp_script__read_mem(const char *buf, size_t len, struct gmp_trace **out,
			 struct gmp_script_error *err);

/*
 * Supplies "file:line" for an event's call stack when it has no `at`
 * (the analyzer symbolizes); returns NULL when unknown.  The string is
 * borrowed until the next call.
 */
typedef const char *(*gmp_at_fn)(void *ctx, uint32_t stack);

/*
 * Writes t as an event script (what `gmprof dump` prints).  at_fn may be
 * NULL.  Returns 0 or a negative errno.
 */
int gmp_script__write(FILE *fp, const struct gmp_trace *t, gmp_at_fn at_fn, void *ctx);

/* Event ids given as strings in a script map to ids with this bit set. */
#define GMP_EVENT_NAMED (1ull << 63)

/* 1 when e's value is an event id named by a string (low 32 bits: string id). */
static inline int gmp_event__named_id(const struct gmp_event *e)
{
	return (e->op == GMP_OP_EVENT_RECORD || e->op == GMP_OP_EVENT_WAIT ||
		(e->op == GMP_OP_SYNC && (e->flags & GMP_EF_SYNC_EVENT))) &&
	       (e->value & GMP_EVENT_NAMED);
}

#ifdef __cplusplus
}
#endif
#endif
