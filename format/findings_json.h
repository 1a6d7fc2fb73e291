/* SPDX-License-Identifier: MIT */
/*
 * The findings object (event-script spec, "Output of gmprof replay"):
 * written by `gmprof replay --format json`, by `gmprof report --format
 * json` and, online, by the collector into the profile.
 */
#ifndef GMPROF_FINDINGS_JSON_H
#define GMPROF_FINDINGS_JSON_H

#include "gmprof/detect.h"
#include "gmprof/script.h"
#include "jw.h"

/* The document's version ("gmprof_findings"; docs/schema/findings.schema.json). */
#define GMP_FINDINGS_JSON_VERSION 1

struct gmp_findings_opts {
	const char *input;      /* the profile or script as named by the user ("input"); may be NULL */
	gmp_at_fn at_fn;        /* symbolizes a call stack to "file:line"; may be NULL */
	void *at_ctx;
	/* Adds more fields to a finding object (fingerprints...); may be NULL. */
	void (*extra)(void *ctx, struct gmp_jw *jw, const struct gmp_result *r,
		      const struct gmp_finding *f);
	void *extra_ctx;
	/* Adds fields to the top-level object, after "findings" (ctx: top_ctx); may be NULL. */
	void (*top_extra)(void *ctx, struct gmp_jw *jw, const struct gmp_result *r);
	void *top_ctx;
	/* Each finding's waiting time by the host's clock, where known; may be NULL. */
	const struct gmp_clock *clock;
	int max_findings;       /* 0: all */
	uint32_t max_ranges;    /* ranges (idle spans, slices...) per finding; 0: all */
};

/* Writes the whole findings object as one JSON value. */
void gmp_findings__json(struct gmp_jw *jw, const struct gmp_result *r,
			const struct gmp_findings_opts *o);
/* One finding object (an element of "findings"). */
void gmp_findings__one(struct gmp_jw *jw, const struct gmp_result *r, const struct gmp_finding *f,
		       const struct gmp_findings_opts *o);
/* An API reference object: {"api":"KERNEL","name":..,"stream":..,"ordinal":..,"level":..}. */
void gmp_findings__api_ref(struct gmp_jw *jw, const struct gmp_result *r, uint32_t ev,
			   const struct gmp_findings_opts *o);
/* "where" the host issued ev: its `at`, or its symbolized stack, or "". */
const char *gmp_findings__where(const struct gmp_result *r, uint32_t ev,
				const struct gmp_findings_opts *o);

/* Likewise for the failed allocation trace->fails[fail]. */
const char *gmp_findings__where_failure(const struct gmp_result *r, uint32_t fail,
					const struct gmp_findings_opts *o);

/*
 * A failure's memory, as keys of the object being written: what the driver
 * said was free (when known), what was live, what the fixes free then.
 */
void gmp_findings__failure_memory(struct gmp_jw *jw, const struct gmp_result *r,
				  const struct gmp_failure *g);

/*
 * How long a finding's memory waited, by the host's clock: "waited 12.3 ms
 * for its first use", "held 1.2 ms to 143.2 ms after its last use", "idle
 * 1.20 s to 2.31 s in all, the longest up to 0.40 s", ...; "" when not
 * timed (c NULL: no host times).  The reports' and the collector's summary.
 */
const char *gmp_findings__waited(const struct gmp_result *r, const struct gmp_clock *c, const struct gmp_finding *f,
				 char *buf, size_t n);
/* "1.5 MiB", "512 B": into buf (at least 16 bytes). */
const char *gmp_human_bytes(uint64_t v, char *buf, size_t n);
/* "812 ns", "12.3 us", "4.6 ms", "1.23 s", "12.5 min", "3.2 h": into buf (at least 16 bytes). */
const char *gmp_human_ns(uint64_t ns, char *buf, size_t n);
/* From before to after: "+1.0 MiB", "-512 B"; with pct (and before not 0) also ", +25.0%".  Into buf (48 bytes). */
const char *gmp_human_change(uint64_t before, uint64_t after, int pct, char *buf, size_t n);

#endif
