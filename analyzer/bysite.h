/* SPDX-License-Identifier: MIT */
/*
 * Findings grouped by allocation site and pattern: a program that
 * allocates in a loop (a layer per iteration, a tensor per step) has one
 * finding per object and one place to fix them all.  The groups come
 * ranked by the largest saving among their findings, then by how many
 * findings they hold.
 */
#ifndef GMPROF_BYSITE_H
#define GMPROF_BYSITE_H

#include <stddef.h>
#include <stdint.h>

#include "baseline.h"
#include "gmprof/detect.h"
#include "sites.h"

struct gmp_strtab;

struct gmp_site_group {
	const char *site;     /* "file:line"; else "call path #N" of the profile; else "no site" */
	unsigned pattern;
	size_t findings;      /* gmp_bysite__peak: the objects */
	uint64_t bytes;       /* their objects' sizes, summed */
	uint64_t max_saving;  /* the largest saving among them (gmp_bysite__peak: the bytes) */
};

struct gmp_bysite {
	struct gmp_strtab *sites; /* owns the groups' site strings */
	struct gmp_site_group *g;
	size_t n;
	size_t largest;       /* findings in the largest group */
};

/* 0, or -ENOMEM. */
int gmp_bysite__build(struct gmp_sites *sites, const struct gmp_result *r, struct gmp_bysite *out);
/* The largest of r's peaks (over every device), or NULL when none. */
const struct gmp_peak *gmp_peak__largest(const struct gmp_result *r);
/* A site label that names no place across runs: "call path #N" (a profile's own number), "no site". */
int gmp_site__is_local(const char *site);
/* A peak's live objects by allocation site (pattern 0), the most bytes first.  0, or -ENOMEM. */
int gmp_bysite__peak(struct gmp_sites *sites, const struct gmp_result *r, const struct gmp_peak *pk,
		     struct gmp_bysite *out);
/*
 * The groups of by with more bytes than the baseline had from their site
 * at its peak, sites that name a place only, the largest growth first:
 * their indices in *idx (malloc'd, the caller's) and their number in *n.
 * 0, or -ENOMEM.
 */
int gmp_bysite__grown(const struct gmp_bysite *by, const struct gmp_baseline *base, size_t **idx, size_t *n);
void gmp_bysite__release(struct gmp_bysite *b);

#endif
