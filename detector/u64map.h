/* SPDX-License-Identifier: MIT */
/*
 * A hash map from 64-bit keys to 32-bit values (open addressing, linear
 * probing).  The key UINT64_MAX is reserved.
 */
#ifndef GMPROF_U64MAP_H
#define GMPROF_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct gmp_u64map {
	uint64_t *keys;
	uint32_t *vals;
	size_t n, cap; /* cap is a power of two or 0 */
};

void gmp_u64map__init(struct gmp_u64map *m);
void gmp_u64map__release(struct gmp_u64map *m);
/* Returns a pointer to the value slot for key, inserting `init` when new; NULL on ENOMEM. */
uint32_t *gmp_u64map__slot(struct gmp_u64map *m, uint64_t key, uint32_t init, int *is_new);
/* Returns the value pointer or NULL. */
uint32_t *gmp_u64map__get(const struct gmp_u64map *m, uint64_t key);

#endif
