// SPDX-License-Identifier: MIT
/*
 * cJSON's allocation hooks, installed once, count failed allocations per
 * thread, so that a parse that failed for want of memory is not reported
 * as malformed input.
 */
#include "json_parse.h"

#include <pthread.h>
#include <stdlib.h>

static _Thread_local unsigned failed_allocs;

static void *counting_malloc(size_t n)
{
	void *p = malloc(n);
	if (!p)
		failed_allocs++;
	return p;
}

static void install(void)
{
	cJSON_Hooks h = { .malloc_fn = counting_malloc, .free_fn = free };
	cJSON_InitHooks(&h);
}

cJSON *gmp_json__parse(const char *text, size_t len, const char **endp, int *oom)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, install);
	unsigned before = failed_allocs;
	cJSON *o = cJSON_ParseWithLengthOpts(text, len, endp, 0);
	*oom = !o && failed_allocs != before;
	return o;
}
