/* SPDX-License-Identifier: MIT */
/*
 * A device's live bytes (or, where pools have NVTX regions, its bytes in
 * use) over the topological order, split by allocation site: the sites
 * that hold most of its largest peak, each a layer, and the rest as one.
 * It shows which site's memory makes up the peak, and when each grows and
 * shrinks around it (the HTML report draws it, the Perfetto trace has a
 * counter per layer).
 */
#ifndef GMPROF_STACK_H
#define GMPROF_STACK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gmprof/detect.h"
#include "strtab.h"
#include "sites.h"

struct gmp_stack {
	size_t nsites;            /* the sites drawn; layer nsites is the rest ("other sites") */
	const char **site;        /* their labels (owned by labels) */
	uint64_t *at_peak;        /* each layer's bytes at the largest peak (its first point) */
	uint64_t *v;              /* column c's bytes of layer k: v[c * (nsites + 1) + k] */
	uint32_t ncols;
	uint32_t peak_col;        /* the column of the device's largest peak */
	uint32_t last_level;      /* the result's largest level (the last column's end) */
	uint32_t *layer;          /* per object: its layer (UINT32_MAX: not counted: another device's; with
				     live bytes a pool region, with bytes in use a pool with regions) */
	size_t filled;            /* layers that hold some object */
	uint64_t *now;            /* each layer's bytes, as a walk over the events has them (gmp_stack__change) */
	struct gmp_strtab *labels; /* owns the sites' labels */
};

/*
 * Device's layers of its live bytes (r->curve), or with inuse of its
 * bytes in use (r->inuse_curve): the (at most max, or max + 1 where the
 * rest would be one site) sites holding most of the largest peak, ranked
 * as a peak's sites are everywhere (bytes, then objects, then name), the
 * rest as one, in ncols columns of the topological order; each column
 * holds the layers where the bytes are largest (as the plots take the
 * largest value of each column: gmp_text__columns), so the column of the
 * peak holds the peak's bytes by site.  0; -ENOENT when the device has no
 * bytes there; -ENOMEM; -EINVAL when the layers do not add up to the
 * curve (a bug, which the tests look for).  Release it in every case.
 */
int gmp_stack__build(struct gmp_sites *sites, const struct gmp_result *r, uint32_t device, int inuse, size_t max,
		     uint32_t ncols, struct gmp_stack *st);
void gmp_stack__release(struct gmp_stack *st);

/*
 * For a walk over the events in order (a trace): object obj allocated
 * (alloc 1) or freed.  Returns the label of its layer (a site, or "other
 * sites") with that layer's bytes now in *bytes; NULL when obj is in no
 * layer, or when one layer holds every object (the live bytes say it all).
 */
const char *gmp_stack__change(struct gmp_stack *st, const struct gmp_result *r, uint32_t obj, int alloc,
			      uint64_t *bytes);

/* How many layers hold bytes in some column: one alone says nothing the live bytes plot does not. */
int gmp_stack__layers(const struct gmp_stack *st);

/*
 * The layers as an SVG step area, labelled "WHAT by allocation site"
 * (classes l0 to l8 for the sites, l9 for the rest; each with a title
 * naming its site and its bytes at the peak),
 * top bytes at the plot's top, the first column at x0, h pixels high; then
 * a legend (ul.legend, a square of each layer's class).  0, -ENOMEM or -EIO.
 */
int gmp_stack__html(FILE *fp, const struct gmp_stack *st, uint32_t device, const char *what, uint64_t top, int x0,
		    int h);

#endif
