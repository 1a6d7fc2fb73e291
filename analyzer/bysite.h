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
	uint32_t alloc_ev;    /* an allocation there: gmp_sites__event_key of it is the site as runs match it */
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
/* An object's allocation site: "file:line", else "call path #N", else "no site" (buf, 32 bytes, holds those). */
const char *gmp_site__of_object(struct gmp_sites *sites, const struct gmp_result *r, const struct gmp_object *o,
				char *buf, size_t n);
/* A site label that names no place across runs: "call path #N" (a profile's own number), "no site". */
int gmp_site__is_local(const char *site);
/* A peak's live objects by allocation site (pattern 0), the most bytes first.  0, or -ENOMEM. */
int gmp_bysite__peak(struct gmp_sites *sites, const struct gmp_result *r, const struct gmp_peak *pk,
		     struct gmp_bysite *out);
/* A site holding more of the peak than at the baseline's. */
struct gmp_site_growth {
	const char *site;     /* "file:line" (in the gmp_bysite it came with) */
	uint64_t key;         /* the site as runs match it (gmp_sites__event_key) */
	uint64_t now, before; /* its bytes at the largest peak, and at the baseline's */
};

/*
 * At r's largest peak on device (GMP_ANY_DEVICE: of them all), the sites
 * that name a place and hold more bytes than at the baseline's peak base,
 * the largest growth first: *v (malloc'd), *n of them, their labels in
 * *by.  The caller frees *v and releases *by, also on failure.  0, or
 * -ENOMEM.
 */
int gmp_bysite__grown(struct gmp_sites *sites, const struct gmp_result *r, uint32_t device,
		      const struct gmp_baseline_peak *base, struct gmp_bysite *by, struct gmp_site_growth **v,
		      size_t *n);
void gmp_bysite__release(struct gmp_bysite *b);
/* The order of groups everywhere: the largest saving (a peak's: bytes) first, then the most findings (objects), bytes, site, pattern. */
int gmp_bysite__order(const struct gmp_site_group *x, const struct gmp_site_group *y);

#endif
