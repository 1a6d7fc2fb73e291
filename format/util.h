/* SPDX-License-Identifier: MIT */
/*
 * Small helpers shared by the format and detector modules: array growth
 * with overflow checks.
 */
#ifndef GMPROF_UTIL_H
#define GMPROF_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * Makes room for `need` elements of `elem` bytes in *p (capacity *cap),
 * doubling.  Returns 0 or -ENOMEM; *p is unchanged on failure.
 */
static inline int gmp_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / elem)
		return -ENOMEM;
	void *np = realloc(*p, ncap * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

#define GMP_GROW(arr, cap, need) \
	gmp_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

#endif
