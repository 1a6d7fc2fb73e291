/* SPDX-License-Identifier: MIT */
/*
 * cJSON parsing that tells an out-of-memory failure from malformed text
 * (cJSON returns NULL for both).
 */
#ifndef GMPROF_JSON_PARSE_H
#define GMPROF_JSON_PARSE_H

#include <stddef.h>

#include <cjson/cJSON.h>

/*
 * cJSON_ParseWithLengthOpts(text, len, endp, 0); on NULL, *oom says whether
 * an allocation failed (then the text may well be valid).
 */
cJSON *gmp_json__parse(const char *text, size_t len, const char **endp, int *oom);

#endif
