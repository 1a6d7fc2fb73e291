// SPDX-License-Identifier: MIT
/* The streaming JSON writer. */
#include "jw.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define DRAIN_AT (64 * 1024)

void gmp_jw__init(struct gmp_jw *jw, FILE *sink, int pretty)
{
	memset(jw, 0, sizeof(*jw));
	jw->sink = sink;
	jw->pretty = pretty;
	jw->first[0] = 1;
}

int gmp_jw__flush(struct gmp_jw *jw)
{
	if (jw->err || !jw->sink || !jw->len)
		return jw->err;
	if (fwrite(jw->buf, 1, jw->len, jw->sink) != jw->len)
		jw->err = errno ? -errno : -EIO;
	jw->len = 0;
	return jw->err;
}

int gmp_jw__finish(struct gmp_jw *jw)
{
	int err = gmp_jw__flush(jw);
	if (jw->sink)
		gmp_jw__release(jw);
	return err;
}

void gmp_jw__release(struct gmp_jw *jw)
{
	free(jw->buf);
	jw->buf = NULL;
	jw->len = jw->cap = 0;
}

static void __attribute__((noinline)) put_slow(struct gmp_jw *jw, const char *s, size_t n)
{
	if (jw->err)
		return;
	if (jw->sink && jw->len >= DRAIN_AT && gmp_jw__flush(jw))
		return;
	if (GMP_GROW(jw->buf, jw->cap, jw->len + n + 1)) {
		jw->err = -ENOMEM;
		return;
	}
	memcpy(jw->buf + jw->len, s, n);
	jw->len += n;
	jw->buf[jw->len] = '\0';
}

/* The buffer always keeps room for a NUL; drained lazily at DRAIN_AT. */
static inline void put(struct gmp_jw *jw, const char *s, size_t n)
{
	if (jw->len + n < jw->cap && jw->len < DRAIN_AT && !jw->err) {
		memcpy(jw->buf + jw->len, s, n);
		jw->len += n;
		jw->buf[jw->len] = '\0';
		return;
	}
	put_slow(jw, s, n);
}

static void indent(struct gmp_jw *jw)
{
	static const char spaces[] = "                                ";
	put(jw, "\n", 1);
	int n = jw->depth * 2;
	while (n > 0) {
		int k = n > 32 ? 32 : n;
		put(jw, spaces, (size_t)k);
		n -= k;
	}
}

/* Emits the separator that comes before a value or key. */
static void sep(struct gmp_jw *jw)
{
	if (jw->after_key) {
		jw->after_key = 0;
		return;
	}
	if (jw->depth > 0 && !jw->first[jw->depth])
		put(jw, ",", 1); /* top-level values are separated by the caller */
	jw->first[jw->depth] = 0;
	if (jw->pretty && jw->depth > 0)
		indent(jw);
}

static void open_(struct gmp_jw *jw, const char *c)
{
	sep(jw);
	put(jw, c, 1);
	if (jw->depth + 1 >= GMP_JW_MAX_DEPTH) {
		jw->err = -E2BIG;
		return;
	}
	jw->depth++;
	jw->first[jw->depth] = 1;
}

static void close_(struct gmp_jw *jw, const char *c)
{
	int empty = jw->first[jw->depth];
	if (jw->depth > 0)
		jw->depth--;
	if (jw->pretty && !empty)
		indent(jw);
	put(jw, c, 1);
}

void gmp_jw__obj(struct gmp_jw *jw) { open_(jw, "{"); }
void gmp_jw__obj_end(struct gmp_jw *jw) { close_(jw, "}"); }
void gmp_jw__arr(struct gmp_jw *jw) { open_(jw, "["); }
void gmp_jw__arr_end(struct gmp_jw *jw) { close_(jw, "]"); }

size_t gmp_utf8__len(const unsigned char *p, size_t n)
{
	size_t k = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3
		 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
	if (k > n)
		return 0;
	for (size_t i = 1; i < k; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((k == 3 && p[0] == 0xe0 && p[1] < 0xa0) || (k == 3 && p[0] == 0xed && p[1] >= 0xa0) ||
	    (k == 4 && p[0] == 0xf0 && p[1] < 0x90) || (k == 4 && p[0] == 0xf4 && p[1] >= 0x90))
		return 0; /* overlong, a surrogate, or past U+10FFFF */
	return k;
}

/*
 * A JSON string: quotes, backslashes and control characters escaped, and
 * any byte that is not part of valid UTF-8 (a path or a name from the
 * program can hold anything) written as U+FFFD, so the document stays
 * valid for strict readers.
 */
static void quoted(struct gmp_jw *jw, const char *s, size_t n)
{
	static const char hexd[] = "0123456789abcdef";
	put(jw, "\"", 1);
	size_t run = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			continue;
		const char *esc = NULL;
		char u[7];
		if (c >= 0x80) {
			size_t k = gmp_utf8__len((const unsigned char *)s + i, n - i);
			if (k) {
				i += k - 1;
				continue;
			}
			esc = "\\ufffd";
		} else {
			switch (c) {
			case '"': esc = "\\\""; break;
			case '\\': esc = "\\\\"; break;
			case '\n': esc = "\\n"; break;
			case '\r': esc = "\\r"; break;
			case '\t': esc = "\\t"; break;
			default: /* the other control characters and DEL */
				u[0] = '\\'; u[1] = 'u'; u[2] = '0'; u[3] = '0';
				u[4] = hexd[c >> 4]; u[5] = hexd[c & 15]; u[6] = 0;
				esc = u;
			}
		}
		if (esc) {
			put(jw, s + run, i - run);
			put(jw, esc, strlen(esc));
			run = i + 1;
		}
	}
	put(jw, s + run, n - run);
	put(jw, "\"", 1);
}

void gmp_jw__key(struct gmp_jw *jw, const char *k)
{
	sep(jw);
	quoted(jw, k, strlen(k));
	put(jw, jw->pretty ? ": " : ":", jw->pretty ? 2 : 1);
	jw->after_key = 1;
}

void gmp_jw__strn(struct gmp_jw *jw, const char *s, size_t n)
{
	sep(jw);
	quoted(jw, s, n);
}

void gmp_jw__str(struct gmp_jw *jw, const char *s)
{
	gmp_jw__strn(jw, s, strlen(s));
}

/* Writes v in decimal ending at end; returns the first digit. */
static char *utoa(uint64_t v, char *end)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

void gmp_jw__u64(struct gmp_jw *jw, uint64_t v)
{
	char b[24];
	char *p = utoa(v, b + sizeof(b));
	sep(jw);
	put(jw, p, (size_t)(b + sizeof(b) - p));
}

void gmp_jw__i64(struct gmp_jw *jw, int64_t v)
{
	char b[24];
	uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	char *p = utoa(m, b + sizeof(b));
	if (v < 0)
		*--p = '-';
	sep(jw);
	put(jw, p, (size_t)(b + sizeof(b) - p));
}

void gmp_jw__dbl(struct gmp_jw *jw, double v, int decimals)
{
	char b[64];
	if (!isfinite(v)) {
		gmp_jw__null(jw);
		return;
	}
	int n = snprintf(b, sizeof(b), "%.*f", decimals, v);
	sep(jw);
	put(jw, b, (size_t)n);
}

void gmp_jw__bool(struct gmp_jw *jw, int v)
{
	sep(jw);
	put(jw, v ? "true" : "false", v ? 4 : 5);
}

void gmp_jw__null(struct gmp_jw *jw)
{
	sep(jw);
	put(jw, "null", 4);
}

void gmp_jw__hex(struct gmp_jw *jw, uint64_t v)
{
	static const char hexd[] = "0123456789abcdef";
	char b[24];
	char *p = b + sizeof(b);
	*--p = '"';
	do {
		*--p = hexd[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	*--p = '"';
	sep(jw);
	put(jw, p, (size_t)(b + sizeof(b) - p));
}

void gmp_jw__raw(struct gmp_jw *jw, const char *s, size_t n)
{
	put(jw, s, n);
}

void gmp_jw__rawf(struct gmp_jw *jw, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		jw->err = -EINVAL;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		put(jw, small, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big) {
		jw->err = -ENOMEM;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	put(jw, big, (size_t)n);
	free(big);
}

void gmp_jw__kstr(struct gmp_jw *jw, const char *k, const char *s)
{
	gmp_jw__key(jw, k);
	gmp_jw__str(jw, s);
}

void gmp_jw__ku64(struct gmp_jw *jw, const char *k, uint64_t v)
{
	gmp_jw__key(jw, k);
	gmp_jw__u64(jw, v);
}

void gmp_jw__ki64(struct gmp_jw *jw, const char *k, int64_t v)
{
	gmp_jw__key(jw, k);
	gmp_jw__i64(jw, v);
}

void gmp_jw__khex(struct gmp_jw *jw, const char *k, uint64_t v)
{
	gmp_jw__key(jw, k);
	gmp_jw__hex(jw, v);
}

void gmp_jw__kdbl(struct gmp_jw *jw, const char *k, double v, int decimals)
{
	gmp_jw__key(jw, k);
	gmp_jw__dbl(jw, v, decimals);
}

void gmp_jw__kbool(struct gmp_jw *jw, const char *k, int v)
{
	gmp_jw__key(jw, k);
	gmp_jw__bool(jw, v);
}

void gmp_jw__milli(struct gmp_jw *jw, uint64_t v)
{
	char b[32];
	char *end = b + sizeof(b), *p = end;
	uint64_t frac = v % 1000;
	if (frac) {
		/* Three decimals without trailing zeros: 1.5, 2.25, 3.125. */
		char d[3] = { (char)('0' + frac / 100), (char)('0' + frac / 10 % 10),
			      (char)('0' + frac % 10) };
		int n = d[2] != '0' ? 3 : d[1] != '0' ? 2 : 1;
		for (int i = n - 1; i >= 0; i--)
			*--p = d[i];
		*--p = '.';
	}
	p = utoa(v / 1000, p);
	sep(jw);
	put(jw, p, (size_t)(end - p));
}

void gmp_jw__kmilli(struct gmp_jw *jw, const char *k, uint64_t v)
{
	gmp_jw__key(jw, k);
	gmp_jw__milli(jw, v);
}

void gmp_jw__key_lit(struct gmp_jw *jw, const char *k, const char *lit, size_t n)
{
	if (jw->pretty) {
		gmp_jw__key(jw, k);
		return;
	}
	sep(jw);
	put(jw, lit, n);
	jw->after_key = 1;
}
