// SPDX-License-Identifier: MIT
/* Names and paths from the program on one line of gmprof's text (oneline.h). */
#include "oneline.h"

#include <stdlib.h>
#include <string.h>

/*
 * Writes s with control characters and backslashes as C escapes into out
 * (cap bytes, 0 for none), cut before an escape that would not fit;
 * returns the length of the whole.
 */
static size_t controls(const char *s, char *out, size_t cap)
{
	static const char hexd[] = "0123456789abcdef";
	size_t len = 0, kept = 0;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char e[4] = { (char)c, 0, 0, 0 };
		size_t k = 1;
		if (c == '\n' || c == '\t' || c == '\r' || c == '\\') {
			e[0] = '\\';
			e[1] = c == '\n' ? 'n' : c == '\t' ? 't' : c == '\r' ? 'r' : '\\';
			k = 2;
		} else if (c < 0x20 || c == 0x7f) {
			e[0] = '\\'; e[1] = 'x'; e[2] = hexd[c >> 4]; e[3] = hexd[c & 15];
			k = 4;
		}
		if (kept == len && len + k < cap) {
			memcpy(out + len, e, k);
			kept += k;
		}
		len += k;
	}
	if (cap)
		out[kept] = 0;
	return len;
}

/* Whether s holds a control character (then its backslashes are escaped too, so that "\\n" is one). */
static int has_controls(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

const char *gmp_oneline(const char *s, char *buf, size_t n)
{
	if (!s || !n || !has_controls(s))
		return s;
	controls(s, buf, n);
	return buf;
}

char *gmp_oneline_dup(const char *s)
{
	if (!has_controls(s))
		return strdup(s);
	size_t len = controls(s, NULL, 0);
	char *d = malloc(len + 1);
	if (d)
		controls(s, d, len + 1);
	return d;
}
