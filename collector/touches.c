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

int gmp_maps__touches(uint64_t base, uint64_t size, const uint32_t *bitmap,
		      const uint32_t *counters, unsigned gran_shift, unsigned cgran_shift,
		      uint32_t rw, struct gmp_touch_vec *out)
{
	uint64_t gran = 1ull << gran_shift;
	uint64_t granules = (size + gran - 1) >> gran_shift;
	size_t first = out->n; /* runs of an adjacent object before this one stay apart */
	for (uint64_t g = 0; g < granules;) {
		uint32_t word = bitmap[g >> 5];
		if (!word && !(g & 31)) {
			g += 32; /* a whole empty word */
			continue;
		}
		if (!(word & (1u << (g & 31)))) {
			g++;
			continue;
		}
		uint64_t off = g << gran_shift;
		uint64_t len = gran;
		if (off + len > size)
			len = size - off;
		uint64_t count = counters ? counters[off >> cgran_shift] : 1;
		if (push(out, first, base + off, len, count ? count : 1, rw))
			return -ENOMEM;
		g++;
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
