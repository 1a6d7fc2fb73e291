/* SPDX-License-Identifier: MIT */
/*
 * Baselines for `gmprof check --baseline`, written by `gmprof baseline`:
 * the peak and leaked bytes of a run and the fingerprints of its findings.
 *
 *   {"gmprof_baseline": 1, "input": "...", "peak_bytes": N, "leaked_bytes": N,
 *    "findings": [{"fingerprint": "16 hex digits", "pattern": "...",
 *                  "object": "...", "saving_bytes": N}, ...]}
 *
 * The reader is strict (unknown keys, wrong types, bad fingerprints are
 * errors) and pure: it takes bytes, so it can be fuzzed.
 */
#ifndef GMPROF_BASELINE_H
#define GMPROF_BASELINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gmprof/detect.h"

struct gmp_baseline {
	uint64_t peak_bytes;
	uint64_t leaked_bytes;
	uint64_t *fingerprints;   /* sorted, unique */
	size_t nfingerprints;
};

/* Parses a baseline; returns 0, or -EINVAL with a reason in err, or -ENOMEM. */
int gmp_baseline__parse(const char *text, size_t len, struct gmp_baseline *b, char *err,
			size_t errn);
/* Reads path; prints one line naming the problem and returns -1 on failure. */
int gmp_baseline__load(const char *path, struct gmp_baseline *b);
void gmp_baseline__release(struct gmp_baseline *b);
int gmp_baseline__has(const struct gmp_baseline *b, uint64_t fingerprint);

/* Bytes the run's memory_leak findings leave allocated. */
uint64_t gmp_leaked_bytes(const struct gmp_result *r);

#endif
