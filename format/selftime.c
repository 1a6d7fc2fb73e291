// SPDX-License-Identifier: MIT
/* The META "collector_time" value, written and read (selftime.h). */
#include "selftime.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const char *const gmp_selftime__names[GMP_ST_N] = {
	[GMP_ST_WALL] = "wall",   [GMP_ST_START] = "start", [GMP_ST_CALLBACKS] = "callbacks",
	[GMP_ST_EXIT] = "exit",   [GMP_ST_LOCK] = "lock",   [GMP_ST_PATCH] = "patch",
	[GMP_ST_CALLS] = "calls", [GMP_ST_WAIT] = "wait",   [GMP_ST_STACK] = "stack",
};

int gmp_selftime__format(const struct gmp_selftime *st, char *buf, size_t n)
{
	size_t len = 0;
	for (int i = 0; i < GMP_ST_N; i++) {
		int w = snprintf(buf + len, n - len, "%s%s=%" PRIu64 "/%" PRIu64, i ? " " : "",
				 gmp_selftime__names[i], st->ns[i] / 1000, st->n[i]);
		if (w < 0 || (size_t)w >= n - len) {
			if (n)
				buf[0] = '\0';
			return -ENOSPC;
		}
		len += (size_t)w;
	}
	return 0;
}

/* A decimal number below 2^64 at *s; advances *s.  0 or -EINVAL. */
static int number(const char **s, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		uint64_t d = (uint64_t)(*p - '0');
		if (x > (UINT64_MAX - d) / 10)
			return -EINVAL;
		x = x * 10 + d;
	}
	if (p == *s)
		return -EINVAL;
	*s = p;
	*v = x;
	return 0;
}

int gmp_selftime__parse(const char *s, struct gmp_selftime *st)
{
	memset(st, 0, sizeof(*st));
	while (*s) {
		if (*s == ' ') {
			s++;
			continue;
		}
		const char *eq = strchr(s, '=');
		const char *sp = strchr(s, ' ');
		if (!eq || (sp && sp < eq) || eq == s)
			return -EINVAL;
		int part = -1;
		for (int i = 0; i < GMP_ST_N; i++)
			if (strlen(gmp_selftime__names[i]) == (size_t)(eq - s) &&
			    !memcmp(s, gmp_selftime__names[i], (size_t)(eq - s)))
				part = i;
		s = eq + 1;
		uint64_t us, count;
		if (number(&s, &us) || *s++ != '/' || number(&s, &count) || (*s && *s != ' '))
			return -EINVAL;
		if (part < 0)
			continue; /* a part this reader does not know */
		if ((st->seen & (1u << part)) || us > UINT64_MAX / 1000)
			return -EINVAL;
		st->seen |= 1u << part;
		st->ns[part] = us * 1000;
		st->n[part] = count;
	}
	return 0;
}
