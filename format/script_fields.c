// SPDX-License-Identifier: MIT
/*
 * The event-script reader's field parsers (script_reader.h): numbers, hex
 * addresses, strings, event ids, address lists, touches and kinds, each
 * checked, the first bad one failing the line with its reason.
 */
#define _GNU_SOURCE
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "script_reader.h"
#include "util.h"

#define MAX_EXACT 9007199254740992.0 /* 2^53: larger integers need hex strings */

int sr_fail(struct reader *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err->msg, sizeof(r->err->msg), fmt, ap);
	va_end(ap);
	r->err->line = r->line;
	return -EINVAL;
}

int sr_in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (strcmp(*list, s) == 0)
			return 1;
	return 0;
}

/* Parses an integer or a "0x" hex string into *v. */
int sr_num(struct reader *r, const cJSON *item, const char *field, uint64_t *v)
{
	if (cJSON_IsNumber(item)) {
		double d = item->valuedouble;
		if (d < 0 || d != floor(d))
			return sr_fail(r, "field '%s' must be a non-negative integer", field);
		if (d > MAX_EXACT)
			return sr_fail(r, "field '%s' is too large for a JSON number; write it as a \"0x\" hex string",
				    field);
		*v = (uint64_t)d;
		return 0;
	}
	if (cJSON_IsString(item)) {
		const char *s = item->valuestring;
		size_t n = strlen(s);
		if (n >= 3 && n <= 18 && s[0] == '0' && s[1] == 'x' &&
		    strspn(s + 2, "0123456789abcdefABCDEF") == n - 2) {
			*v = strtoull(s + 2, NULL, 16);
			return 0;
		}
	}
	return sr_fail(r, "field '%s' must be a non-negative integer or a \"0x\" hex string", field);
}

int sr_opt_num(struct reader *r, const cJSON *o, const char *field, uint64_t *v)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, field);
	if (!it)
		return 1;
	return sr_num(r, it, field, v) ? -EINVAL : 0;
}

int sr_req_num(struct reader *r, const cJSON *o, const char *field, uint64_t *v)
{
	int rc = sr_opt_num(r, o, field, v);
	if (rc > 0)
		return sr_fail(r, "missing required field '%s'", field);
	return rc;
}

int sr_opt_u32(struct reader *r, const cJSON *o, const char *field, uint32_t *v)
{
	uint64_t x;
	int rc = sr_opt_num(r, o, field, &x);
	if (rc)
		return rc;
	if (x > UINT32_MAX)
		return sr_fail(r, "field '%s' must be below 2^32", field);
	*v = (uint32_t)x;
	return 0;
}

int sr_opt_str(struct reader *r, const cJSON *o, const char *field, uint32_t *id)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, field);
	if (!it)
		return 1;
	if (!cJSON_IsString(it))
		return sr_fail(r, "field '%s' must be a string", field);
	*id = gmp_trace__intern_cstr(r->t, it->valuestring);
	return *id ? 0 : -ENOMEM;
}

int sr_event_id(struct reader *r, const cJSON *o, uint64_t *v, int required)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, "event");
	if (!it)
		return required ? sr_fail(r, "missing required field 'event'") : 1;
	if (cJSON_IsString(it) && strncmp(it->valuestring, "0x", 2) != 0) {
		uint32_t id = gmp_trace__intern_cstr(r->t, it->valuestring);
		if (!id)
			return -ENOMEM;
		*v = GMP_EVENT_NAMED | id;
		return 0;
	}
	if (sr_num(r, it, "event", v))
		return -EINVAL;
	if (*v & GMP_EVENT_NAMED)
		return sr_fail(r, "field 'event' is too large");
	return 0;
}

int sr_addr_list(struct reader *r, const cJSON *o, const char *field, uint32_t rw)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, field);
	if (!arr)
		return 0;
	if (!cJSON_IsArray(arr))
		return sr_fail(r, "field '%s' must be a list of addresses", field);
	const cJSON *it;
	cJSON_ArrayForEach(it, arr) {
		uint64_t a;
		if (sr_num(r, it, field, &a))
			return -EINVAL;
		if (GMP_GROW(r->acc, r->acc_cap, r->nacc + 1))
			return -ENOMEM;
		r->acc[r->nacc++] = (struct gmp_access){ .addr = a, .rw = rw };
	}
	return 0;
}

int sr_parse_rw(struct reader *r, const cJSON *item, uint32_t *rw)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(item, "rw");
	if (!it)
		return sr_fail(r, "missing required field 'rw' in a touch");
	const char *s = cJSON_IsString(it) ? it->valuestring : "";
	if (strcmp(s, "r") == 0)
		*rw = GMP_RW_READ;
	else if (strcmp(s, "w") == 0)
		*rw = GMP_RW_WRITE;
	else if (strcmp(s, "rw") == 0)
		*rw = GMP_RW_READ | GMP_RW_WRITE;
	else
		return sr_fail(r, "field 'rw' of a touch must be \"r\", \"w\" or \"rw\"");
	return 0;
}

int sr_touch_list(struct reader *r, const cJSON *o, int *present)
{
	static const char *const touch_f[] = { "addr", "size", "count", "rw", NULL };
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "touch");
	*present = arr != NULL;
	if (!arr)
		return 0;
	if (!cJSON_IsArray(arr))
		return sr_fail(r, "field 'touch' must be a list of objects");
	const cJSON *it;
	cJSON_ArrayForEach(it, arr) {
		if (!cJSON_IsObject(it))
			return sr_fail(r, "each touch must be an object");
		const cJSON *f;
		cJSON_ArrayForEach(f, it) {
			if (!sr_in_list(touch_f, f->string))
				return sr_fail(r, "unknown field '%s' in a touch", f->string);
		}
		struct gmp_touch tc = { .count = 1 };
		if (sr_req_num(r, it, "addr", &tc.addr) || sr_req_num(r, it, "size", &tc.size) ||
		    sr_opt_num(r, it, "count", &tc.count) < 0 || sr_parse_rw(r, it, &tc.rw))
			return -EINVAL;
		if (tc.size == 0)
			return sr_fail(r, "a touch must have a positive size");
		if (tc.addr + tc.size < tc.addr)
			return sr_fail(r, "a touch runs past the end of the address space");
		if (GMP_GROW(r->touch, r->touch_cap, r->ntouch + 1))
			return -ENOMEM;
		r->touch[r->ntouch++] = tc;
	}
	return 0;
}

int sr_parse_kind(struct reader *r, const cJSON *o, uint8_t *kind)
{
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(o, "kind");
	if (!k)
		return 0;
	int v = cJSON_IsString(k) ? gmp_mem_kind__parse(k->valuestring) : -1;
	if (v < 0)
		return sr_fail(r, "field 'kind' must be one of \"device\", \"managed\", \"async\", \"pool_region\", "
			       "\"device_heap\", \"cuda_array\", \"imported\"");
	*kind = (uint8_t)v;
	return 0;
}

