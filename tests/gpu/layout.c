// SPDX-License-Identifier: MIT
/*
 * Prints the layout of every Sanitizer struct field and the value of every
 * constant the collector uses (see layout.h), one per line.
 */
#include <stddef.h>
#include <stdio.h>

#include "layout.h"
#include "sanitizer_api.h"

#define S(t) printf("%s size %zu\n", #t, sizeof(t));
#define F(t, f) printf("%s.%s offset %zu size %zu\n", #t, #f, offsetof(t, f), sizeof(((t *)0)->f));
#define C(c) printf("%s = %lld\n", #c, (long long)(c));

int main(void)
{
	GMP_LAYOUT_STRUCTS(S, F)
	GMP_LAYOUT_CONSTANTS(C)
	return 0;
}
