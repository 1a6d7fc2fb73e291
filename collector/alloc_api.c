// SPDX-License-Identifier: MIT
/* Allocation calls and their parameter layouts (alloc_api.h). */
#include "alloc_api.h"

#include <stddef.h>
#include <string.h>

#include "gmprof/trace.h"

#define P(x) ((uint8_t)(x * sizeof(void *)))

static const struct gmp_alloc_api apis[] = {
	/* runtime API */
	{ "cudaMalloc", GMP_MEM_DEVICE, 1, { P(1) }, 0 },
	{ "cudaMallocManaged", GMP_MEM_MANAGED, 1, { P(1) }, 0 },
	{ "cudaMallocAsync", GMP_MEM_ASYNC, 1, { P(1) }, P(2) },
	{ "cudaMallocFromPoolAsync", GMP_MEM_ASYNC, 1, { P(1) }, P(3) },
	{ "cudaMallocPitch", GMP_MEM_DEVICE, 2, { P(2), P(3) }, 0 },
	{ "cudaMalloc3D", GMP_MEM_DEVICE, 3, { P(1), P(2), P(3) }, 0 },
	/* driver API */
	{ "cuMemAlloc", GMP_MEM_DEVICE, 1, { P(1) }, 0 },
	{ "cuMemAllocManaged", GMP_MEM_MANAGED, 1, { P(1) }, 0 },
	{ "cuMemAllocAsync", GMP_MEM_ASYNC, 1, { P(1) }, P(2) },
	{ "cuMemAllocFromPoolAsync", GMP_MEM_ASYNC, 1, { P(1) }, P(3) },
	{ "cuMemAllocPitch", GMP_MEM_DEVICE, 2, { P(2), P(3) }, 0 },
	{ "cuMemCreate", GMP_MEM_DEVICE, 1, { P(1) }, 0 },
};

/* Length of name without trailing _v<digits>, _ptsz and _ptds suffixes. */
static size_t base_len(const char *name)
{
	size_t n = strlen(name);
	for (;;) {
		if (n > 5 && (!strncmp(name + n - 5, "_ptsz", 5) || !strncmp(name + n - 5, "_ptds", 5))) {
			n -= 5;
			continue;
		}
		size_t d = n;
		while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
			d--;
		if (d < n && d >= 2 && name[d - 1] == 'v' && name[d - 2] == '_') {
			n = d - 2;
			continue;
		}
		return n;
	}
}

const struct gmp_alloc_api *gmp_alloc_api__find(const char *function_name)
{
	if (!function_name)
		return NULL;
	size_t n = base_len(function_name);
	for (size_t i = 0; i < sizeof(apis) / sizeof(apis[0]); i++)
		if (strlen(apis[i].name) == n && !strncmp(apis[i].name, function_name, n))
			return &apis[i];
	return NULL;
}

uint64_t gmp_alloc_api__size(const struct gmp_alloc_api *a, const void *params)
{
	uint64_t size = 1;
	for (unsigned i = 0; i < a->nfactors; i++) {
		size_t v;
		memcpy(&v, (const char *)params + a->off[i], sizeof(v));
		if (v && size > UINT64_MAX / v)
			return 0;
		size *= v;
	}
	return size;
}

const struct gmp_alloc_api *gmp_alloc_api__all(unsigned *n)
{
	*n = (unsigned)(sizeof(apis) / sizeof(apis[0]));
	return apis;
}
