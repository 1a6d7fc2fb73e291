/* SPDX-License-Identifier: MIT */
/* Object tables, hit words and launch structs for the patch logic's unit tests (test_patch.c, test_hit_list.c). */
#ifndef GMPROF_TEST_PATCH_TABLES_H
#define GMPROF_TEST_PATCH_TABLES_H

#include <stdlib.h>

#include "patch_logic.h"
#include "support.h"

/* A table of n objects: object k is [base + k*stride, + size). */
static inline struct gmp_patch_table *table(uint64_t n, uint64_t base, uint64_t stride, uint64_t size)
{
	struct gmp_patch_table *t = calloc(1, sizeof(*t) + 2 * (n ? n : 1) * sizeof(uint64_t));
	assert_non_null(t);
	t->n = n;
	uint64_t *start = (uint64_t *)(t + 1), *end = start + n;
	for (uint64_t k = 0; k < n; k++) {
		start[k] = base + k * stride;
		end[k] = start[k] + size;
	}
	return t;
}

/* The bits a hit word holds for launch l (patch_abi.h: stamped with its epoch). */
static inline uint32_t bits_of(const struct gmp_patch_launch *l, uint32_t word)
{
	return gmp_patch_hit_of(word, l->epoch);
}

/* A launch struct with room for cap hit list items after it, as in a launch buffer. */
static inline struct gmp_patch_launch *with_list(uint32_t cap)
{
	struct gmp_patch_launch *l = calloc(1, sizeof(*l) + (cap ? cap : 1) * sizeof(uint32_t));
	assert_non_null(l);
	l->list_cap = cap;
	l->mode = GMP_MODE_OBJECT;
	return l;
}

#endif
