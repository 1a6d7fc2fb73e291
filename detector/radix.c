// SPDX-License-Identifier: MIT
/*
 * LSD radix sort of 64-bit keys with 11-bit digits (6 passes at most);
 * a pass whose digit is the same for every key is skipped, so keys that
 * use few bits cost few passes.
 */
#include "radix.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BITS 11
#define BUCKETS (1u << BITS)
#define PASSES 6

int gmp_radix_sort_u64(uint64_t *keys, size_t n)
{
	if (n < 2)
		return 0;
	uint64_t *tmp = malloc(n * sizeof(*tmp));
	size_t (*count)[BUCKETS] = calloc(PASSES, sizeof(*count));
	if (!tmp || !count) {
		free(tmp);
		free(count);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		for (unsigned p = 0; p < PASSES; p++)
			count[p][(keys[i] >> (p * BITS)) & (BUCKETS - 1)]++;
	uint64_t *src = keys, *dst = tmp;
	for (unsigned p = 0; p < PASSES; p++) {
		size_t *c = count[p];
		unsigned shift = p * BITS;
		if (c[(src[0] >> shift) & (BUCKETS - 1)] == n)
			continue; /* every key has the same digit here */
		size_t sum = 0;
		for (unsigned b = 0; b < BUCKETS; b++) {
			size_t k = c[b];
			c[b] = sum;
			sum += k;
		}
		for (size_t i = 0; i < n; i++)
			dst[c[(src[i] >> shift) & (BUCKETS - 1)]++] = src[i];
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != keys)
		memcpy(keys, src, n * sizeof(*keys));
	free(tmp);
	free(count);
	return 0;
}
