/* SPDX-License-Identifier: MIT */
/* LSD radix sort of 64-bit keys: O(n), stable, 11-bit digits. */
#ifndef GMPROF_RADIX_H
#define GMPROF_RADIX_H

#include <stddef.h>
#include <stdint.h>

/* Sorts keys ascending; returns 0 or -ENOMEM. */
int gmp_radix_sort_u64(uint64_t *keys, size_t n);

#endif
