/* SPDX-License-Identifier: MIT */
/*
 * Intra-object maps to touches: the bitmap (one bit per granule) and the
 * counters (one per coarser cell) of one object, as harvested from the
 * GPU, become the runs of accessed bytes with their access counts that
 * the profile's TOUCH records hold.  Stream-mode records are folded into
 * the same maps first.  Pure functions.
 */
#ifndef GMPROF_TOUCHES_H
#define GMPROF_TOUCHES_H

#include <stddef.h>
#include <stdint.h>

#include "gmprof/trace.h"

struct gmp_touch_vec {
	struct gmp_touch *v;
	size_t n, cap;
};

/* Words of bitmap and counters an object of size bytes needs. */
size_t gmp_maps__bitmap_words(uint64_t size, unsigned gran_shift);
size_t gmp_maps__counters(uint64_t size, unsigned cgran_shift);

/*
 * Appends the touches of one object: runs of set bits, split where the
 * counter changes, clipped to size.  Returns 0 or -ENOMEM.
 */
int gmp_maps__touches(uint64_t base, uint64_t size, const uint32_t *bitmap,
		      const uint32_t *counters, unsigned gran_shift, unsigned cgran_shift,
		      uint32_t rw, struct gmp_touch_vec *out);

/* Folds one streamed access into an object's maps (host memory). */
void gmp_maps__add(uint64_t base, uint64_t size, uint32_t *bitmap, uint32_t *counters,
		   unsigned gran_shift, unsigned cgran_shift, uint64_t addr, uint64_t len);

#endif
