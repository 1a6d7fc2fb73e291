/* SPDX-License-Identifier: MIT */
/*
 * A profile's call paths as source lines.  The symbolizer borrows the
 * trace; strings it returns live until it is freed.  Not thread-safe.
 */
#ifndef GMPROF_SYMBOLIZE_H
#define GMPROF_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

#include "gmprof/trace.h"

struct gmp_symbolizer;

struct gmp_frame {
	const char *function;    /* demangled; NULL unknown */
	const char *file;        /* NULL unknown */
	uint32_t line;
	int inlined;             /* inlined into the next frame */
	const char *module;      /* the module's recorded path, or NULL */
	uint64_t pc;
	uint64_t offset;          /* pc - 1 as a file address in module (its load bias removed) */
};

/* symdir (may be NULL): a directory holding the modules by name (for profiles from elsewhere). */
int gmp_symbolizer__new(const struct gmp_trace *t, const char *symdir,
			struct gmp_symbolizer **out);
void gmp_symbolizer__free(struct gmp_symbolizer *s);
/* Functions (fnmatch globs, kept by the caller) whose frames are allocation wrappers, never sites. */
void gmp_symbolizer__alloc_fns(struct gmp_symbolizer *s, const char *const *globs, size_t n);
/* Whether function (demangled; NULL: no) is one of those wrappers. */
int gmp_symbolizer__is_alloc_fn(const struct gmp_symbolizer *s, const char *function);
/* The user frames of a stack, innermost first, inlined frames included. */
size_t gmp_symbolizer__stack(struct gmp_symbolizer *s, uint32_t stack, struct gmp_frame *out,
			     size_t max);
/* "file:line" of the innermost frame with a line outside the CUDA toolkit and
   system headers and not in an allocation wrapper (else the innermost with a
   line; f gets that frame), or NULL. */
const char *gmp_symbolizer__site(struct gmp_symbolizer *s, uint32_t stack, struct gmp_frame *f);
/* The same as a gmp_at_fn (ctx is the symbolizer). */
const char *gmp_symbolizer__at(void *ctx, uint32_t stack);
/* "function (file:line)" into buf. */
const char *gmp_frame__format(const struct gmp_frame *f, char *buf, size_t n);

#endif
