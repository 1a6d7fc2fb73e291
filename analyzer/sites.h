/* SPDX-License-Identifier: MIT */
/*
 * Source sites of events and stable fingerprints of findings, shared by
 * report, check, baseline, SARIF, Perfetto and HTML.  A gmp_sites borrows
 * its result and symbolizer (which may be NULL: scripts have `at`).
 */
#ifndef GMPROF_SITES_H
#define GMPROF_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "findings_json.h"
#include "gmprof/detect.h"
#include "symbolize.h"

struct gmp_site_index;

struct gmp_sites {
	const struct gmp_result *r;
	struct gmp_symbolizer *sym;
	struct gmp_site_index *idx;   /* owned: the lines' ranks (gmp_sites__index) */
	int idx_failed;               /* out of memory making it at a fingerprint (said): ranks are 0 */
};

/*
 * Makes the index of the trace's calls that fingerprints rank lines by
 * (a session does, before anything asks for a fingerprint; else the first
 * fingerprint does).  0, or -ENOMEM.
 */
int gmp_sites__index(struct gmp_sites *s);

/* Frees the rank index (the fingerprints' next call makes it again). */
void gmp_sites__release(struct gmp_sites *s);

/* "file:line" where the host issued ev (frame gets the user frame, may be NULL), or NULL. */
const char *gmp_sites__event(struct gmp_sites *s, uint32_t ev, struct gmp_frame *frame);
/* Likewise for the failed allocation trace->fails[fail]. */
const char *gmp_sites__failure(struct gmp_sites *s, uint32_t fail, struct gmp_frame *frame);
/*
 * The site of the call ev as fingerprints know it (sites.c): its function,
 * its file's name and its line's rank there, with what it calls; the same
 * in two runs where only lines elsewhere, or the checkout, differ.
 */
uint64_t gmp_sites__event_key(struct gmp_sites *s, uint32_t ev);
/* A failed allocation's: its call and site (function, file and line), as findings' survive rebuilds. */
uint64_t gmp_sites__failure_fingerprint(struct gmp_sites *s, uint32_t fail);
uint64_t gmp_sites__fingerprint(struct gmp_sites *s, const struct gmp_finding *f);
/* A label's (an NVTX range's path): a result about it keeps it across runs. */
uint64_t gmp_sites__label_fingerprint(const char *label);
/* A result of kind what about the site of key (gmp_sites__event_key): kept where lines moved. */
uint64_t gmp_sites__site_fingerprint(const char *what, uint64_t key);
const char *gmp_sites__fingerprint_hex(struct gmp_sites *s, const struct gmp_finding *f,
				       char *buf, size_t n);
/* Findings JSON options: symbolized `at`, and a fingerprint and call path per finding. */
void gmp_sites__findings_opts(struct gmp_sites *s, struct gmp_findings_opts *o);
void gmp_sites__json_extra(void *ctx, struct gmp_jw *jw, const struct gmp_result *r,
			   const struct gmp_finding *f);

#endif
