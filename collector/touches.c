// SPDX-License-Identifier: MIT
/* Intra-object maps to touches (see touches.h). */
#include "touches.h"

#include <errno.h>

#include "util.h"

size_t gmp_maps__bitmap_words(uint64_t size, unsigned gran_shift)
{
	uint64_t granules = (size + (1ull << gran_shift) - 1) >> gran_shift;
	return (size_t)((granules + 31) / 32);
}

size_t gmp_maps__counters(uint64_t size, unsigned cgran_shift)
{
	return (size_t)((size + (1ull << cgran_shift) - 1) >> cgran_shift);
}

/* Appends a run, merged into the last one when it continues it within this object. */
static int push(struct gmp_touch_vec *out, size_t first, uint64_t addr, uint64_t len,
		uint64_t count, uint32_t rw)
{
	if (out->n > first) {
		struct gmp_touch *last = &out->v[out->n - 1];
		if (last->addr + last->size == addr && last->count == count && last->rw == rw) {
			last->size += len;
			return 0;
		}
	}
	if (GMP_GROW(out->v, out->cap, out->n + 1))
		return -ENOMEM;
	out->v[out->n++] = (struct gmp_touch){ .addr = addr, .size = len, .count = count, .rw = rw };
	return 0;
}

/*
 * The first granule at or after g whose bit differs from `flip`'s (flip 0:
 * the first set bit; flip ~0: the first clear one), or granules when none.
 */
static uint64_t next_bit(const uint32_t *bitmap, uint64_t g, uint64_t granules, uint32_t flip)
{
	uint64_t nwords = (granules + 31) / 32, w = g >> 5;
	if (w >= nwords)
		return granules;
	uint32_t word = (bitmap[w] ^ flip) & (~0u << (g & 31));
	while (!word) {
		if (++w >= nwords)
			return granules;
		word = bitmap[w] ^ flip;
	}
	uint64_t at = (w << 5) + (uint64_t)__builtin_ctz(word);
	return at < granules ? at : granules;
}

/*
 * Runs of set bits are found a word at a time and split only where a
 * counter cell ends (a cell holds whole granules: cgran >= gran), so the
 * cost is O(words + cells touched), not O(granules): a 64 MiB object at
 * 4-byte granules is 512k words, not 16M bit tests.
 */
int gmp_maps__touches(uint64_t base, uint64_t size, const uint32_t *bitmap,
		      const uint32_t *counters, unsigned gran_shift, unsigned cgran_shift,
		      uint32_t rw, struct gmp_touch_vec *out)
{
	uint64_t granules = (size + (1ull << gran_shift) - 1) >> gran_shift;
	size_t first = out->n; /* runs of an adjacent object before this one stay apart */
	for (uint64_t g = next_bit(bitmap, 0, granules, 0); g < granules;) {
		uint64_t end = next_bit(bitmap, g, granules, ~0u);
		uint64_t lo = g << gran_shift, hi = end << gran_shift;
		if (hi > size)
			hi = size;
		while (lo < hi) {
			uint64_t cut = hi, count = 1;
			if (counters) {
				uint64_t c = lo >> cgran_shift;
				if (((c + 1) << cgran_shift) < cut)
					cut = (c + 1) << cgran_shift;
				count = counters[c] ? counters[c] : 1;
			}
			if (push(out, first, base + lo, cut - lo, count, rw))
				return -ENOMEM;
			lo = cut;
		}
		g = next_bit(bitmap, end, granules, 0);
	}
	return 0;
}

void gmp_maps__add(uint64_t base, uint64_t size, uint32_t *bitmap, uint32_t *counters,
		   unsigned gran_shift, unsigned cgran_shift, uint64_t addr, uint64_t len)
{
	if (!len || addr + len <= base || addr >= base + size)
		return;
	uint64_t lo = addr > base ? addr - base : 0;
	uint64_t hi = addr + len - base;
	if (hi > size)
		hi = size;
	for (uint64_t g = lo >> gran_shift; g <= (hi - 1) >> gran_shift; g++)
		bitmap[g >> 5] |= 1u << (g & 31);
	if (counters)
		for (uint64_t c = lo >> cgran_shift; c <= (hi - 1) >> cgran_shift; c++)
			counters[c]++;
}
