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

#include "gmprof/detect.h"
#include "sites.h"

struct gmp_strtab;

struct gmp_site_group {
	const char *site;     /* "file:line"; else "call path #N" of the profile; else "no site" */
	unsigned pattern;
	size_t findings;      /* gmp_bysite__peak: the objects */
	uint64_t bytes;       /* their objects' sizes, summed */
	uint64_t max_saving;  /* the largest saving among them */
};

struct gmp_bysite {
	struct gmp_strtab *sites; /* owns the groups' site strings */
	struct gmp_site_group *g;
	size_t n;
	size_t largest;       /* findings in the largest group */
};

/* 0, or -ENOMEM. */
int gmp_bysite__build(struct gmp_sites *sites, const struct gmp_result *r, struct gmp_bysite *out);
/* A peak's live objects by allocation site (pattern 0), the most bytes first.  0, or -ENOMEM. */
int gmp_bysite__peak(struct gmp_sites *sites, const struct gmp_result *r, const struct gmp_peak *pk,
		     struct gmp_bysite *out);
void gmp_bysite__release(struct gmp_bysite *b);

#endif
