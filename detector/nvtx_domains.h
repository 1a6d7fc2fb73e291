/* SPDX-License-Identifier: MIT */
/*
 * Which NVTX domains a profile's ranges and marks came from, as the
 * collector says at exit (META nvtx.domain.K.name, .ranges, .marks,
 * .left_out and nvtx.default.left_out: collector/nvtx_domains.c).
 */
#ifndef GMPROF_NVTX_DOMAINS_H
#define GMPROF_NVTX_DOMAINS_H

#include <stddef.h>

struct gmp_trace;

/*
 * A line for the reports under their range and mark tables, into buf:
 * "NVTX domains besides the default: NCCL (120 ranges); left out when
 * recorded: the default domain, noise (8 ranges, 2 marks)"; "" for a
 * profile whose ranges and marks were all the default domain's, and all
 * recorded.  Returns buf.
 */
const char *gmp_nvtx_domains__note(const struct gmp_trace *t, char *buf, size_t n);

#endif
