// SPDX-License-Identifier: MIT
/* The baseline reader's JSON helpers (baseline_json.h). */
#include "baseline_json.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int gmp_bj__bad(char *err, size_t n, const char *msg)
{
	snprintf(err, n, "%s", msg);
	return -EINVAL;
}

int gmp_bj__u64(const cJSON *o, const char *key, uint64_t *v)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!cJSON_IsNumber(x) || !(x->valuedouble >= 0) || x->valuedouble >= 9007199254740992.0 ||
	    x->valuedouble != (double)(uint64_t)x->valuedouble)
		return -1;
	*v = (uint64_t)x->valuedouble;
	return 0;
}

int gmp_bj__only_keys(const cJSON *o, const char *const *keys, size_t n, char *err, size_t errn)
{
	const cJSON *c;
	cJSON_ArrayForEach(c, o) {
		size_t i = 0;
		while (i < n && strcmp(c->string, keys[i]))
			i++;
		if (i == n) {
			snprintf(err, errn, "unknown key '%.60s'", c->string);
			return -EINVAL;
		}
	}
	return 0;
}
