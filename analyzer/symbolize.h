/* SPDX-License-Identifier: MIT */
/*
 * A profile's call paths as source lines.  The symbolizer borrows the
 * trace; strings it returns live until it is freed.  Not thread-safe.
 */
#ifndef GMPROF_SYMBOLIZE_H
#define GMPROF_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
/*
 * A native site's frame (gmp_symbolizer__site's, with a function) and the
 * first frame with a line that calls it: 1, or 0 when there is none.
 */
int gmp_symbolizer__caller(struct gmp_symbolizer *s, uint32_t stack, struct gmp_frame *site, struct gmp_frame *caller);
/* The same as a gmp_at_fn (ctx is the symbolizer). */
const char *gmp_symbolizer__at(void *ctx, uint32_t stack);
/* Why a module's frames show no source line. */
enum gmp_mod_problem {
	GMP_MOD_MISSING = 1,  /* no file as recorded nor under --symbols */
	GMP_MOD_OTHER_BUILD,  /* a file there, of another build (its build-id differs) */
	GMP_MOD_UNREADABLE,   /* a file there that is not a readable ELF file */
	GMP_MOD_NO_LINES,     /* read, but none of its frames looked up has a line */
	GMP_MOD_BAD_DWARF,    /* its DWARF is damaged (a unit past its section, an unknown form) */
};

/*
 * The modules whose frames, of those looked up so far (the CUDA runtime's,
 * the driver's, gmprof's and libc's start-up aside), have no source line
 * at all, the system's libraries aside (under /usr but /usr/local, /lib),
 * from the module at *i on: returns the next one's problem and
 * path, with *i past it; 0 when there is none left.  Start with *i = 0.
 */
int gmp_symbolizer__problem(const struct gmp_symbolizer *s, size_t *i, const char **path);
/* A few words on a problem: "not found". */
const char *gmp_mod_problem__text(int why);
/*
 * The modules whose frames showed no source line, over a command's
 * sessions (each input's, closed in turn): the first few, each once, with
 * why (gmp_mod_problem); and the allocation wrappers among their sites.
 * No allocation: it lives in the command's frame.
 */
#define GMP_SYMNOTES_MAX 4
#define GMP_WRAPNOTES_MAX 3
#define GMP_FWNOTES_MAX 4
struct gmp_symnotes {
	struct gmp_symnote {
		char path[4096];
		int why;
	} v[GMP_SYMNOTES_MAX];
	size_t n;
	int more;                 /* other modules too, not named */
	/* With wrappers set by the command: allocation wrappers among findings' sites (wrappers.c). */
	int wrappers;
	struct gmp_wrapnote {
		char site[512];           /* file:line */
		char function[256];
		uint32_t objects, callers; /* objects with findings allocated there; their calling lines */
	} w[GMP_WRAPNOTES_MAX];
	size_t nw;
	int wrappers_lost;        /* not looked for in some input (out of memory) */
	/* Allocations through a framework's caching allocator, per framework (frameworks.c). */
	struct gmp_fwnote {
		uint64_t allocations, largest;
	} fw[GMP_FWNOTES_MAX];
	/* Kernel launches from libraries that copy through the TMA on compute capability 9.0 on (frameworks.c). */
	struct gmp_tmanote {
		uint64_t launches;
		int cc;                   /* the highest compute capability among their devices, as 90 */
		unsigned libraries;       /* which: 1 cuBLAS, 2 cuDNN */
		int said;                 /* the inputs say what their tensor maps did (maps, read) */
		uint64_t maps, read;      /* maps encoded on the host, launches reading through them: all inputs' */
	} tma;
};

/* Adds the symbolizer's problems (gmp_symbolizer__problem) to notes, each module once. */
void gmp_symnotes__add(struct gmp_symnotes *notes, const struct gmp_symbolizer *sym);
/*
 * A line per module, each after prefix: "note: no source lines for frames
 * in PATH (why): findings allocated there name no site, ..."; then the
 * wrappers' (gmp_wrapnotes__print) and the frameworks' allocators'
 * (gmp_fwnotes__print).  Nothing when there are none.
 */
void gmp_symnotes__print(const struct gmp_symnotes *notes, FILE *fp, const char *prefix);
/* Whether there is something to print. */
int gmp_symnotes__any(const struct gmp_symnotes *notes);
/* The wrapper notes' lines (wrappers.c), as gmp_symnotes__print's. */
void gmp_wrapnotes__print(const struct gmp_symnotes *notes, FILE *fp, const char *prefix);

/* "function (file:line)" into buf. */
const char *gmp_frame__format(const struct gmp_frame *f, char *buf, size_t n);

#endif
