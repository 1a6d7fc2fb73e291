/* SPDX-License-Identifier: MIT */
/*
 * Allocation wrappers among the findings' allocation sites (wrappers.c):
 * a line in a function that allocates for two or more calling lines.
 */
#ifndef GMPROF_WRAPPERS_H
#define GMPROF_WRAPPERS_H

#include "sites.h"
#include "symbolize.h"

/*
 * Adds to notes the sites of s's findings' objects whose objects came
 * from two or more calling lines (the first GMP_WRAPNOTES_MAX such sites,
 * merged with those of earlier inputs).  0, or -ENOMEM (notes says that
 * wrappers were not looked for).
 */
int gmp_wrapnotes__add(struct gmp_symnotes *notes, struct gmp_sites *s);

#endif
