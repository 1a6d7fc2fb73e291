/* SPDX-License-Identifier: MIT */
/*
 * Where the collector's own time went in a run: the profile's META
 * "collector_time", written by the collector at exit and read by the
 * analyzer's reports and make bench-gpu.  The value is a list of
 * name=microseconds/count separated by spaces, e.g.
 *   wall=412003/1 start=1200/1 callbacks=81002/342 lock=12/350 ...
 * Readers skip names they do not know (later collectors may add parts).
 *
 * The parts, on the host only (what instrumented kernels cost on the
 * device is not in them):
 *   wall       from the collector's start to its exit's end
 *   start      setting up: options, loading the Sanitizer, subscribing
 *   callbacks  inside its callbacks, on the program's threads
 *   exit       at the program's exit: pending launches read back
 * and, inside callbacks or exit:
 *   lock       waiting for the collector's lock (counted when it had to wait)
 *   patch      loading the device patches and patching modules
 *   calls      other Sanitizer calls: uploads, read-backs, sets, allocations
 *   wait       stream syncs the collector made itself
 *   stack      unwinding call paths (once per API call, however many events it makes)
 */
#ifndef GMPROF_SELFTIME_H
#define GMPROF_SELFTIME_H

#include <stddef.h>
#include <stdint.h>

enum gmp_selftime_part {
	GMP_ST_WALL,
	GMP_ST_START,
	GMP_ST_CALLBACKS,
	GMP_ST_EXIT,
	GMP_ST_LOCK,
	GMP_ST_PATCH,
	GMP_ST_CALLS,
	GMP_ST_WAIT,
	GMP_ST_STACK,
	GMP_ST_N
};

#define GMP_SELFTIME_META "collector_time"

struct gmp_selftime {
	uint64_t ns[GMP_ST_N];    /* nanoseconds in each part */
	uint64_t n[GMP_ST_N];     /* how many times it was entered */
	uint32_t seen;            /* parts present (bit per part; parse only) */
};

/* The parts' names as the META value spells them. */
extern const char *const gmp_selftime__names[GMP_ST_N];

/* The META value into buf; 0, or -ENOSPC when it does not fit (buf then holds ""). */
int gmp_selftime__format(const struct gmp_selftime *st, char *buf, size_t n);
/*
 * Reads a META value.  0, or -EINVAL for a malformed one (a known part
 * twice, a number that is not one); st is zeroed first.
 */
int gmp_selftime__parse(const char *s, struct gmp_selftime *st);

#endif
