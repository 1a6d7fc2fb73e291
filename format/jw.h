/* SPDX-License-Identifier: MIT */
/*
 * A streaming JSON writer.  Values go into a growable buffer that is
 * drained into `sink` (when set) every 64 KiB, so arbitrarily large
 * documents are written in bounded memory.  Commas and escaping are
 * handled here; callers only say what comes next.  Errors are sticky:
 * check gmp_jw__finish() once at the end.
 */
#ifndef GMPROF_JW_H
#define GMPROF_JW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define GMP_JW_MAX_DEPTH 64

struct gmp_jw {
	char *buf;
	size_t len, cap;
	FILE *sink;          /* borrowed; NULL keeps everything in buf */
	int err;             /* first error (-errno) */
	int depth;
	int pretty;          /* indent nested values */
	unsigned char first[GMP_JW_MAX_DEPTH];
	int after_key;
};

/*
 * The length of the valid UTF-8 sequence that starts with the non-ASCII
 * byte at p (at most n bytes read), or 0: cut short, overlong, a
 * surrogate, past U+10FFFF, or not a lead byte.
 */
size_t gmp_utf8__len(const unsigned char *p, size_t n);

void gmp_jw__init(struct gmp_jw *jw, FILE *sink, int pretty);
/* Drains the buffer to the sink; returns the sticky error or 0. */
int gmp_jw__flush(struct gmp_jw *jw);
/* Flushes and releases the buffer (unless there is no sink: then the caller takes buf). */
int gmp_jw__finish(struct gmp_jw *jw);
void gmp_jw__release(struct gmp_jw *jw);

void gmp_jw__obj(struct gmp_jw *jw);
void gmp_jw__obj_end(struct gmp_jw *jw);
void gmp_jw__arr(struct gmp_jw *jw);
void gmp_jw__arr_end(struct gmp_jw *jw);
void gmp_jw__key(struct gmp_jw *jw, const char *k);
void gmp_jw__str(struct gmp_jw *jw, const char *s);
void gmp_jw__strn(struct gmp_jw *jw, const char *s, size_t n);
void gmp_jw__u64(struct gmp_jw *jw, uint64_t v);
void gmp_jw__i64(struct gmp_jw *jw, int64_t v);
void gmp_jw__dbl(struct gmp_jw *jw, double v, int decimals);
void gmp_jw__bool(struct gmp_jw *jw, int v);
void gmp_jw__null(struct gmp_jw *jw);
void gmp_jw__hex(struct gmp_jw *jw, uint64_t v);   /* "0x1a2b" */
/* v / 1000 with up to three decimals, exactly (ns as µs: 1500 -> 1.5). */
void gmp_jw__milli(struct gmp_jw *jw, uint64_t v);
/* Raw text appended as is (no comma handling): newlines between JSON lines. */
void gmp_jw__raw(struct gmp_jw *jw, const char *s, size_t n);
/* printf into the buffer as raw text. */
void gmp_jw__rawf(struct gmp_jw *jw, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A key known at compile time, written without escaping:
 * GMP_JW_KEY(jw, "ts") is gmp_jw__key(jw, "ts"), faster.
 */
void gmp_jw__key_lit(struct gmp_jw *jw, const char *k, const char *lit, size_t n);
#define GMP_JW_KEY(jw, k) gmp_jw__key_lit((jw), k, "\"" k "\":", sizeof("\"" k "\":") - 1)

/* Key-value shorthands. */
void gmp_jw__kstr(struct gmp_jw *jw, const char *k, const char *s);
void gmp_jw__ku64(struct gmp_jw *jw, const char *k, uint64_t v);
void gmp_jw__ki64(struct gmp_jw *jw, const char *k, int64_t v);
void gmp_jw__khex(struct gmp_jw *jw, const char *k, uint64_t v);
void gmp_jw__kdbl(struct gmp_jw *jw, const char *k, double v, int decimals);
void gmp_jw__kbool(struct gmp_jw *jw, const char *k, int v);
void gmp_jw__kmilli(struct gmp_jw *jw, const char *k, uint64_t v);

#endif
