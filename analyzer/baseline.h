/* SPDX-License-Identifier: MIT */
/*
 * Baselines for `gmprof check --baseline`, written by `gmprof baseline`:
 * the peak and leaked bytes of a run, the peak's bytes by allocation site
 * (version 2; version 1 has none), and the fingerprints of its findings.
 *
 *   {"gmprof_baseline": 2, "input": "...", "peak_bytes": N, "leaked_bytes": N,
 *    "peak_sites": [{"site": "file:line", "bytes": N}, ...],
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

struct gmp_baseline_site {
	char *site;
	uint64_t bytes;
};

struct gmp_baseline {
	uint64_t peak_bytes;
	uint64_t leaked_bytes;
	struct gmp_baseline_site *sites;  /* at the peak; none in version 1 */
	size_t nsites;
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
/* The baseline's bytes at its peak from site, 0 when none. */
uint64_t gmp_baseline__site_bytes(const struct gmp_baseline *b, const char *site);

/*
 * Device bytes the run's memory_leak findings leave allocated: a leaked
 * region of a pool that is itself leaked is part of the pool's bytes, so
 * only the pool counts (as peaks count pools, not their regions).
 */
uint64_t gmp_leaked_bytes(const struct gmp_result *r);
/* Whether f is a leak whose object's bytes gmp_leaked_bytes counts. */
int gmp_leak__counted(const struct gmp_result *r, const struct gmp_finding *f);

#endif
