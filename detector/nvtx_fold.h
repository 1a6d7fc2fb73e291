/* SPDX-License-Identifier: MIT */
/*
 * NVTX names that carry a counter ("epoch 3", "aten::mm, seq = 812") read
 * as one name (gmprof's --nvtx-numbers and --nvtx-strip; the collector's
 * GMPROF_NVTX_NUMBERS and GMPROF_NVTX_STRIP, for its summary): the names
 * of a trace's ranges and marks rewritten before it is analyzed, so that
 * every table, check, baseline and diff by range or mark sees the folded
 * names.
 */
#ifndef GMPROF_NVTX_FOLD_H
#define GMPROF_NVTX_FOLD_H

#include <regex.h>
#include <stddef.h>

struct gmp_trace;

struct gmp_nvtx_fold {
	int numbers;     /* each number that stands alone becomes N */
	int strip;       /* re holds --nvtx-strip's expression: its matches are removed */
	regex_t re;
};

/*
 * Compiles strip (a POSIX extended regular expression, or NULL for none)
 * and sets numbers.  0, or -1 with why (the regex library's words) in buf;
 * release f after 0.
 */
int gmp_nvtx_fold__init(struct gmp_nvtx_fold *f, const char *strip, int numbers, char *why, size_t n);
void gmp_nvtx_fold__release(struct gmp_nvtx_fold *f);
/*
 * Name folded (malloc'd; NULL: out of memory): the strip's matches removed
 * first, then each number that stands alone (a word of digits with dots
 * between them: "3", "0.001") written N, where a word is letters, digits,
 * underscores and dots ("conv2d", "layer.3" stay); "(unnamed)" for a name
 * with nothing left.
 */
char *gmp_nvtx_fold__dup(const struct gmp_nvtx_fold *f, const char *name);
/*
 * For a budget's glob that matched no NVTX range path (ranges) or mark name
 * of t: the first that glob matches with its numbers folded, into buf as
 * "'epoch 3 done' reads 'epoch N done'"; "" for none.  Returns buf.
 */
const char *gmp_nvtx_fold__hint(const struct gmp_trace *t, int ranges, const char *glob, char *buf, size_t n);
/*
 * Where t's range names (ranges) or mark names would become fewer with
 * their numbers folded: "--nvtx-numbers reads these 4 range names as 2
 * ('epoch 1' and 2 more as 'epoch N')" into buf; "" where not.  0 or
 * -ENOMEM.
 */
int gmp_nvtx_fold__note(const struct gmp_trace *t, int ranges, char *buf, size_t n);
/* Folds the names of t's ranges and marks (gmp_trace__rename_nvtx).  0 or -ENOMEM. */
int gmp_nvtx_fold__trace(const struct gmp_nvtx_fold *f, struct gmp_trace *t);

#endif
