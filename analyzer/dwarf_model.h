/* SPDX-License-Identifier: MIT */
/*
 * What the DWARF readers build and lookups search (dwarf.c): per CU, its
 * sorted line rows, its function ranges and its line table's file names;
 * an index of CU address ranges.  Filled by gmprof's own reader
 * (dwarf_read.c) or, for what it declines, by libdwarf (dwarf.c).
 */
#ifndef GMPROF_DWARF_MODEL_H
#define GMPROF_DWARF_MODEL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "strtab.h"
#include "u64map.h"

struct gmp_dwr;

/* A line-table row: 16 bytes, as large tables are what loading costs. */
struct row {
	uint64_t addr;
	uint32_t line;      /* GMP_ROW_END: the end of a sequence */
	uint32_t file;      /* string id of its file (0 unknown) */
};

#define GMP_ROW_END UINT32_MAX

struct func {
	uint64_t lo, hi;
	uint32_t name;      /* string id, 0 unknown */
	uint32_t call_file; /* inlined: the file it was called from, as number + 1 in
			       the CU's line table (cu->files); 0 none */
	uint32_t call_line;
	uint32_t depth;
};

struct cu {
	uint64_t die_off;
	int loaded;         /* 1 loaded, -1 failed */
	struct row *rows;
	size_t nrows, rows_cap;
	uint32_t *disc;     /* per row, its discriminator; NULL while all are 0 */
	struct func *funcs; /* sorted by lo */
	size_t nfuncs, funcs_cap;
	uint64_t *maxhi;    /* prefix maxima of funcs[].hi */
	uint32_t *files;    /* string ids of the line table's files */
	size_t nfiles;
	size_t row_hint, func_hint; /* where the last lookup ended: sorted lookups start there */
};

struct span {
	uint64_t lo, hi;
	uint32_t cu;
};

struct gmp_dwarf {
	void *dbg;                 /* libdwarf's Dwarf_Debug, or NULL */
	struct gmp_dwr *own;       /* gmprof's own reader, or NULL */
	struct cu *cus;
	size_t ncus, cus_cap;
	struct span *idx;
	size_t nidx, idx_cap;
	struct gmp_strtab *str;
	struct gmp_u64map names;   /* DIE offset of an abstract origin -> its name id + 1 */
	/* Held around str and names while gmp_dwarf__preload loads CUs on two threads. */
	pthread_spinlock_t mu;
	int threads;
};

/* Records [lo, hi) as an address range of CU cu (empty ranges are dropped). */
int gmp_dwarf__add_span(struct gmp_dwarf *d, uint64_t lo, uint64_t hi, uint32_t cu);
/* A range callback that records CU ranges: ctx is a struct gmp_span_ctx. */
struct gmp_span_ctx {
	struct gmp_dwarf *d;
	uint32_t cu;
};
int gmp_dwarf__span_cb(void *ctx, uint64_t lo, uint64_t hi);
/* qsort order of struct span: by start. */
int gmp_dwarf__cmp_span(const void *a, const void *b);
/* The string id of s in d's table (0 for NULL or out of memory). */
uint32_t gmp_dwarf__intern(struct gmp_dwarf *d, const char *s);
/* Appends f as the function range [lo, hi) (empty ones are dropped); 0 or -ENOMEM. */
int gmp_dwarf__add_func(struct cu *cu, const struct func *f, uint64_t lo, uint64_t hi);
/* 1 for DIE tags whose children may hold code (the rest, types and variables, are skipped). */
int gmp_dwarf__holds_code(unsigned tag);
/* Appends a row (program order); 0 or -ENOMEM. */
int gmp_dwarf__add_row(struct cu *cu, uint64_t addr, uint32_t line, uint32_t file,
		       uint32_t disc, int end);
/*
 * The first element of a sorted array whose uint64_t key (its first field)
 * is above key.  With hint, the search starts where the last one ended
 * (*hint) and leaves it there: increasing keys cost a comparison or two.
 */
size_t gmp_dwarf__upper(const void *base, size_t size, size_t n, uint64_t key, size_t *hint);
/* Frees every CU's tables and forgets the CUs (the arrays d->cus, d->idx stay). */
void gmp_dwarf__free_cus(struct gmp_dwarf *d);
/* Sorts a loaded CU's rows and functions and builds its lookup arrays. */
int gmp_dwarf__finish_cu(struct cu *cu);

/* dwarf_read.c: -ENOTSUP when it declines the file (libdwarf reads it then). */
int gmp_dwr__open(struct gmp_dwarf *d, const char *path);
int gmp_dwr__load_cu(struct gmp_dwarf *d, uint32_t cu);
void gmp_dwr__close(struct gmp_dwr *r);

#endif
