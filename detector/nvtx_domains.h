/* SPDX-License-Identifier: MIT */
/*
 * Which NVTX domains a profile's ranges and marks came from, as the
 * collector says at exit (META nvtx.domain.K.name, .ranges, .marks,
 * .left_out and nvtx.default.left_out: collector/nvtx_domains.c).
 */
#ifndef GMPROF_NVTX_DOMAINS_H
#define GMPROF_NVTX_DOMAINS_H

#include <stddef.h>
#include <stdint.h>

struct gmp_trace;

/* Domains a profile can name: the collector's 256 and the default one, with room. */
#define GMP_NVTX_DOMAINS_MAX 264

/* A domain as the profile tells of it. */
struct gmp_nvtx_domain {
	const char *name;       /* the trace's (META value) */
	uint64_t ranges, marks; /* pushed or begun, and marked, recorded or not */
	int left_out;           /* GMPROF_NVTX_DOMAIN_INCLUDE/EXCLUDE left it out */
};

/* The k-th domain of t (from 0, as the collector numbered them) into *d: 1, or 0 past the last. */
int gmp_nvtx_domains__get(const struct gmp_trace *t, size_t k, struct gmp_nvtx_domain *d);
/* Whether the default domain was left out. */
int gmp_nvtx_domains__default_left_out(const struct gmp_trace *t);

/*
 * A line for the reports under their range and mark tables, into buf:
 * "NVTX domains besides the default: NCCL (120 ranges); left out when
 * recorded: the default domain, noise (8 ranges, 2 marks)"; "" for a
 * profile whose ranges and marks were all the default domain's, and all
 * recorded.  Returns buf.
 */
const char *gmp_nvtx_domains__note(const struct gmp_trace *t, char *buf, size_t n);

/* The names of the domains t left out, "default" for the default one (first), at most max into out: how many. */
size_t gmp_nvtx_domains__left_out_keys(const struct gmp_trace *t, const char **out, size_t max);
/* The domains t left out, as the note lists them ("the default domain, NCCL (4 ranges)"), into buf; "" for none. */
const char *gmp_nvtx_domains__left_out_names(const struct gmp_trace *t, char *buf, size_t n);

/*
 * Appends to buf (NUL-terminated, n bytes; what does not fit is cut) each
 * name of x that y lacks, as "NCCL (which)" ("default" written "the
 * default domain"), after a comma where *said counts earlier ones.
 */
void gmp_nvtx_domains__only_in(const char *const *x, size_t nx, const char *const *y, size_t ny, const char *which,
			       char *buf, size_t n, size_t *said);

/*
 * Where two runs' profiles left out different NVTX domains (a domain left
 * out of one and made, or not left out, in the other; the default domain
 * too): "NVTX domains were left out of one run only: NCCL (before), the
 * default domain (after)" into buf (a is the run before), for gmprof diff, whose tables then
 * compare their ranges and marks with none; "" where they agree.  Returns
 * buf.
 */
const char *gmp_nvtx_domains__differ(const struct gmp_trace *a, const struct gmp_trace *b, char *buf, size_t n);

#endif
