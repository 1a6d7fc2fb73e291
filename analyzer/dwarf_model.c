// SPDX-License-Identifier: MIT
/*
 * The DWARF model both readers fill (dwarf_model.h): the CU index, line
 * rows and their order, function ranges and the lookup arrays built when
 * a CU is loaded.
 */
#include <errno.h>
#include <stddef.h>
#include <libdwarf/dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_model.h"
#include "util.h"

int gmp_dwarf__add_span(struct gmp_dwarf *d, uint64_t lo, uint64_t hi, uint32_t cu)
{
	if (hi <= lo)
		return 0;
	if (GMP_GROW(d->idx, d->idx_cap, d->nidx + 1))
		return -ENOMEM;
	d->idx[d->nidx++] = (struct span){ lo, hi, cu };
	return 0;
}

int gmp_dwarf__span_cb(void *ctx, uint64_t lo, uint64_t hi)
{
	const struct gmp_span_ctx *c = ctx;
	return gmp_dwarf__add_span(c->d, lo, hi, c->cu);
}

int gmp_dwarf__cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	return (x->lo > y->lo) - (x->lo < y->lo);
}

uint32_t gmp_dwarf__intern(struct gmp_dwarf *d, const char *s)
{
	if (d->threads && s) {
		pthread_spin_lock(&d->mu);
		uint32_t id = gmp_strtab__intern(d->str, s, strlen(s));
		pthread_spin_unlock(&d->mu);
		return id;
	}
	return s ? gmp_strtab__intern(d->str, s, strlen(s)) : 0;
}

/* Line tables and DIEs usually come in address order already. */
static int sorted(const void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	const char *p = base;
	for (size_t i = 1; i < n; i++)
		if (cmp(p + (i - 1) * size, p + i * size) > 0)
			return 0;
	return 1;
}

int gmp_dwarf__add_row(struct cu *cu, uint64_t addr, uint32_t line, uint32_t file,
		       uint32_t disc, int end)
{
	size_t cap = cu->rows_cap;
	if (cu->nrows == cap && GMP_GROW(cu->rows, cu->rows_cap, cu->nrows + 1))
		return -ENOMEM;
	if (cu->disc && cu->rows_cap != cap) {
		uint32_t *d = realloc(cu->disc, cu->rows_cap * sizeof(*d));
		if (!d)
			return -ENOMEM;
		cu->disc = d;
	}
	if (disc && !cu->disc) {
		if (!(cu->disc = calloc(cu->rows_cap, sizeof(*cu->disc))))
			return -ENOMEM;
	}
	if (cu->disc)
		cu->disc[cu->nrows] = disc;
	cu->rows[cu->nrows++] = (struct row){ .addr = addr,
					      .line = end ? GMP_ROW_END
						  : line < GMP_ROW_END ? line : GMP_ROW_END - 1,
					      .file = file };
	return 0;
}

/* Row order: by address, a sequence's end before a row that starts at it, then as read. */
static int row_before(const struct row *x, const struct row *y)
{
	if (x->addr != y->addr)
		return x->addr < y->addr;
	return x->line == GMP_ROW_END && y->line != GMP_ROW_END;
}

struct row_ix {
	struct row r;
	uint32_t disc, order;
};

static int cmp_row_ix(const void *a, const void *b)
{
	const struct row_ix *x = a, *y = b;
	if (row_before(&x->r, &y->r))
		return -1;
	if (row_before(&y->r, &x->r))
		return 1;
	return (x->order > y->order) - (x->order < y->order);
}

/* Sorts rows (with their discriminators) stably; most tables need no sorting. */
static int sort_rows(struct cu *cu)
{
	size_t n = cu->nrows, k = 1;
	while (k < n && !row_before(&cu->rows[k], &cu->rows[k - 1]))
		k++;
	if (k >= n)
		return 0;
	struct row_ix *t = malloc(n * sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		t[i] = (struct row_ix){ cu->rows[i], cu->disc ? cu->disc[i] : 0, (uint32_t)i };
	qsort(t, n, sizeof(*t), cmp_row_ix);
	for (size_t i = 0; i < n; i++) {
		cu->rows[i] = t[i].r;
		if (cu->disc)
			cu->disc[i] = t[i].disc;
	}
	free(t);
	return 0;
}

static int cmp_func(const void *a, const void *b)
{
	const struct func *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->hi < y->hi) - (x->hi > y->hi); /* the enclosing one first */
}

int gmp_dwarf__finish_cu(struct cu *cu)
{
	if (sort_rows(cu))
		return -ENOMEM;
	if (!sorted(cu->funcs, cu->nfuncs, sizeof(*cu->funcs), cmp_func))
		qsort(cu->funcs, cu->nfuncs, sizeof(*cu->funcs), cmp_func);
	cu->maxhi = malloc((cu->nfuncs ? cu->nfuncs : 1) * sizeof(*cu->maxhi));
	if (!cu->maxhi)
		return -ENOMEM;
	for (size_t i = 0; i < cu->nfuncs; i++)
		cu->maxhi[i] = i && cu->maxhi[i - 1] > cu->funcs[i].hi ? cu->maxhi[i - 1] : cu->funcs[i].hi;
	cu->loaded = 1;
	return 0;
}

int gmp_dwarf__add_func(struct cu *cu, const struct func *f, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return 0;
	if (GMP_GROW(cu->funcs, cu->funcs_cap, cu->nfuncs + 1))
		return -ENOMEM;
	cu->funcs[cu->nfuncs] = *f;
	cu->funcs[cu->nfuncs].lo = lo;
	cu->funcs[cu->nfuncs].hi = hi;
	cu->nfuncs++;
	return 0;
}

int gmp_dwarf__holds_code(unsigned tag)
{
	switch (tag) {
	case DW_TAG_subprogram: case DW_TAG_inlined_subroutine: case DW_TAG_lexical_block:
	case DW_TAG_namespace: case DW_TAG_module: case DW_TAG_try_block: case DW_TAG_catch_block:
	case DW_TAG_with_stmt: case DW_TAG_common_block:
		return 1;
	default:
		return 0;
	}
}

void gmp_dwarf__free_cus(struct gmp_dwarf *d)
{
	for (size_t i = 0; i < d->ncus; i++) {
		free(d->cus[i].rows);
		free(d->cus[i].disc);
		free(d->cus[i].funcs);
		free(d->cus[i].maxhi);
		free(d->cus[i].files);
	}
	d->ncus = 0;
}

/* From the hint the search gallops forward (gmprof addr2line sorts each batch). */
_Static_assert(offsetof(struct row, addr) == 0 && offsetof(struct func, lo) == 0 &&
		       offsetof(struct span, lo) == 0,
	       "gmp_dwarf__upper searches by the first field");

size_t gmp_dwarf__upper(const void *base, size_t size, size_t n, uint64_t key, size_t *hint)
{
	const char *b = base;
#define KEY(i) (*(const uint64_t *)(const void *)(b + (i) * size))
	size_t lo = 0, hi = n, h = hint ? *hint : n;
	if (h < n) {
		if (KEY(h) <= key) {
			lo = h + 1;
			size_t step = 1;
			while (lo + step - 1 < n && KEY(lo + step - 1) <= key) {
				lo += step;
				step <<= 1;
			}
			hi = lo + step - 1 < n ? lo + step - 1 : n;
		} else {
			hi = h;
		}
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (KEY(mid) <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
#undef KEY
	if (hint)
		*hint = lo ? lo - 1 : 0;
	return lo;
}
