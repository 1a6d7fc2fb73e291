/* SPDX-License-Identifier: MIT */
/* Helpers shared by the unit tests. */
#ifndef GMPROF_TEST_SUPPORT_H
#define GMPROF_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gmprof/detect.h"
#include "gmprof/script.h"
#include "gmprof/trace.h"

/* Parses a script held in a string; fails the test on error. */
struct gmp_trace *ts_script(const char *text);
/* Parses a script that must fail; returns its error. */
struct gmp_script_error ts_script_error(const char *text);
/* Reads tests/scripts/NAME (relative to the source tree). */
struct gmp_trace *ts_script_file(const char *name);
/* Runs the detector with default options (or o); fails the test on error. */
struct gmp_result *ts_detect(const struct gmp_trace *t, const struct gmp_detect_opts *o);
/* The clock of memory over time for r; fails the test on error or when r's trace has no host times. */
struct gmp_clock *ts_clock(const struct gmp_result *r);
/* Runs the detector on a trace that must be rejected; returns the error. */
struct gmp_detect_error ts_detect_error(const struct gmp_trace *t);
/* Number of findings of pattern on object name (name NULL: any object). */
size_t ts_count(const struct gmp_result *r, unsigned pattern, const char *name);
/* The single finding of pattern on name; fails the test unless exactly one. */
const struct gmp_finding *ts_one(const struct gmp_result *r, unsigned pattern, const char *name);
/* Index of the object named name, or fails. */
uint32_t ts_obj(const struct gmp_result *r, const char *name);
/* xorshift64: the next pseudo-random number of *s. */
uint64_t ts_rnd(uint64_t *s);
/*
 * A random multi-stream trace of 20 to 219 events: allocations of three
 * sizes, kernels that read and write, copies and sets at varying offsets,
 * device/stream/event syncs, event record and wait, frees.
 */
struct gmp_trace *ts_random_trace(uint64_t *seed);
/* The same, with about unmonitored_pct percent of the kernels' accesses unknown (no ACCESS_KNOWN). */
struct gmp_trace *ts_random_trace_with(uint64_t *seed, unsigned unmonitored_pct);
/* A temporary file path (unique per call); the caller frees it. */
char *ts_tmpfile(const char *tag);
/* A file's bytes (*len of them, and a byte more to spare); the caller frees them. */
unsigned char *ts_slurp(const char *path, size_t *len);
/* The profile at path, read (the reader's status must be 0); the caller frees it. */
struct gmp_trace *ts_read_profile(const char *path);

#endif
