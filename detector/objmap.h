/* SPDX-License-Identifier: MIT */
/*
 * An ordered map of disjoint address ranges [start, end) to object ids,
 * kept as a treap: O(log n) insert, remove and point lookup.
 */
#ifndef GMPROF_OBJMAP_H
#define GMPROF_OBJMAP_H

#include <stddef.h>
#include <stdint.h>

struct gmp_objmap;

struct gmp_objmap *gmp_objmap__new(void);
void gmp_objmap__free(struct gmp_objmap *m);
/* Inserts a range; the caller has checked it overlaps nothing.  0 or -ENOMEM. */
int gmp_objmap__insert(struct gmp_objmap *m, uint64_t start, uint64_t end, uint32_t obj);
/* Removes the range starting exactly at start; returns 0 or -ENOENT. */
int gmp_objmap__remove(struct gmp_objmap *m, uint64_t start);
/*
 * The range with the greatest start <= addr: returns 1 and fills the
 * outputs (any may be NULL), or 0 when there is none.
 */
int gmp_objmap__floor(const struct gmp_objmap *m, uint64_t addr, uint64_t *start,
		      uint64_t *end, uint32_t *obj);
/* The object containing addr, or UINT32_MAX. */
uint32_t gmp_objmap__find(const struct gmp_objmap *m, uint64_t addr);
/* An object overlapping [start, end), or UINT32_MAX. */
uint32_t gmp_objmap__overlap(const struct gmp_objmap *m, uint64_t start, uint64_t end);
size_t gmp_objmap__count(const struct gmp_objmap *m);
/* Calls fn for every range in address order; stops early when fn returns nonzero. */
int gmp_objmap__each(const struct gmp_objmap *m,
		     int (*fn)(void *ctx, uint64_t start, uint64_t end, uint32_t obj), void *ctx);

#endif
