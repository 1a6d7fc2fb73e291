// SPDX-License-Identifier: MIT
/*
 * The device patches' per-access logic (gpu_patch/patch_logic.h) built for
 * the CPU: lookups in gaps and at object ends, accesses straddling two
 * objects, no objects, 100k objects, the base and recent tables, atomics and prefetches
 * (the hit list: test_hit_list.c),
 * bitmaps and counters, stream records, heap records.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "patch_logic.h"
#include "patch_tables.h"
#include "support.h"

static void gaps_and_ends(void **state)
{
	(void)state;
	/* Objects of 100 bytes every 256 bytes from 0x1000. */
	struct gmp_patch_table *t = table(3, 0x1000, 256, 100);
	assert_int_equal(gmp_patch_lookup(t, 0xfff), -1);      /* before the first */
	assert_int_equal(gmp_patch_lookup(t, 0x1000), 0);      /* first byte */
	assert_int_equal(gmp_patch_lookup(t, 0x1000 + 99), 0); /* last byte */
	assert_int_equal(gmp_patch_lookup(t, 0x1000 + 100), -1); /* the gap after it */
	assert_int_equal(gmp_patch_lookup(t, 0x1000 + 255), -1);
	assert_int_equal(gmp_patch_lookup(t, 0x1100), 1);
	assert_int_equal(gmp_patch_lookup(t, 0x1200 + 99), 2);
	assert_int_equal(gmp_patch_lookup(t, 0x1200 + 100), -1); /* past the last */
	assert_int_equal(gmp_patch_lookup(t, UINT64_MAX), -1);
	free(t);
}

static void no_objects(void **state)
{
	(void)state;
	struct gmp_patch_table *t = table(0, 0, 0, 0);
	uint32_t hits[1] = { 0 };
	struct gmp_patch_launch l = { .table = (uintptr_t)t, .base_n = (uint32_t)t->n, .hits = (uintptr_t)hits,
				      .mode = GMP_MODE_OBJECT };
	assert_int_equal(gmp_patch_lookup(t, 0x1000), -1);
	assert_int_equal(gmp_patch_access(&l, 0, 0x1000, 4, GMP_SAN_ACCESS_READ), -1);
	assert_int_equal(hits[0], 0);
	free(t);
}

static void flags(void **state)
{
	(void)state;
	struct gmp_patch_table *t = table(4, 0x1000, 0x1000, 64);
	uint32_t hits[4] = { 0 };
	struct gmp_patch_launch l = { .table = (uintptr_t)t, .base_n = (uint32_t)t->n, .hits = (uintptr_t)hits,
				      .mode = GMP_MODE_OBJECT };
	gmp_patch_access(&l, 0, 0x1008, 4, GMP_SAN_ACCESS_READ);
	gmp_patch_access(&l, 0, 0x2008, 8, GMP_SAN_ACCESS_WRITE);
	gmp_patch_access(&l, 0, 0x3000, 4, GMP_SAN_ACCESS_READ | GMP_SAN_ACCESS_WRITE); /* an atomic */
	gmp_patch_access(&l, 0, 0x4000, 4, GMP_SAN_ACCESS_ATOMSYS);
	gmp_patch_access(&l, 0, 0x1010, 4, GMP_SAN_ACCESS_PREFETCH | GMP_SAN_ACCESS_READ);
	gmp_patch_access(&l, 0, 0x1040, 4, GMP_SAN_ACCESS_WRITE); /* the gap after object 0 */
	assert_int_equal(bits_of(&l, hits[0]), GMP_HIT_READ);
	assert_int_equal(bits_of(&l, hits[1]), GMP_HIT_WRITE);
	assert_int_equal(bits_of(&l, hits[2]), GMP_HIT_READ | GMP_HIT_WRITE);
	assert_int_equal(bits_of(&l, hits[3]), GMP_HIT_READ | GMP_HIT_WRITE);
	/* Zero-sized and flagless accesses mark nothing. */
	assert_int_equal(gmp_patch_access(&l, 0, 0x1000, 0, GMP_SAN_ACCESS_WRITE), -1);
	assert_int_equal(gmp_patch_access(&l, 0, 0x1000, 4, 0), -1);
	assert_int_equal(bits_of(&l, hits[0]), GMP_HIT_READ);
	free(t);
}

static void straddling(void **state)
{
	(void)state;
	/* Two adjacent objects: [0x1000, 0x1010) and [0x1010, 0x1020). */
	struct gmp_patch_table *t = table(2, 0x1000, 16, 16);
	uint32_t hits[2] = { 0 };
	struct gmp_patch_launch l = { .table = (uintptr_t)t, .base_n = (uint32_t)t->n, .hits = (uintptr_t)hits,
				      .mode = GMP_MODE_OBJECT };
	assert_int_equal(gmp_patch_access(&l, 0, 0x100c, 8, GMP_SAN_ACCESS_WRITE), 0);
	assert_int_equal(bits_of(&l, hits[0]), GMP_HIT_WRITE);
	assert_int_equal(bits_of(&l, hits[1]), GMP_HIT_WRITE);
	/* Starting in a gap and ending in an object still marks the object. */
	struct gmp_patch_table *g = table(2, 0x1000, 32, 16);
	uint32_t h2[2] = { 0 };
	l.table = (uintptr_t)g;
	l.base_n = (uint32_t)g->n;
	l.hits = (uintptr_t)h2;
	assert_int_equal(gmp_patch_access(&l, 0, 0x101c, 8, GMP_SAN_ACCESS_READ), -1);
	assert_int_equal(h2[0], 0);
	assert_int_equal(bits_of(&l, h2[1]), GMP_HIT_READ);
	free(t);
	free(g);
}

/* Every record that claims bits for this launch is true: its entry's hit word holds them. */
static void records_true(const struct gmp_patch_launch *l, const uint64_t *h, const uint32_t *hits, uint64_t n)
{
	for (uint32_t k = 0; k < GMP_HINTS; k++) {
		uint32_t claim = gmp_patch_claims(l, h[k], (uint32_t)h[k]);
		if (claim && ((uint32_t)h[k] >= n || (claim & ~bits_of(l, hits[(uint32_t)h[k]]))))
			fail_msg("slot %u claims bits %u of entry %u, which it does not hold", k, claim, (uint32_t)h[k]);
	}
}

/*
 * One launch buffer's hit words, never cleared after the first time, used
 * by launch after launch (epochs 0, 1, 2, ...): each launch lists and holds
 * exactly the bits of its own accesses, whatever earlier launches left in
 * the words, and in the per-instruction records (GMPROF_PATCH_HINTS=1),
 * kept from launch to launch like the words.  Random accesses to 16
 * objects by 4 instructions, 300 launches; the last ones take the largest
 * epochs before the host would clear the words again.
 */
static void epochs(void **state)
{
	(void)state;
	assert_int_not_equal(GMP_HIT_STAMP(GMP_HIT_EPOCHS), 0);
	assert_int_not_equal(GMP_HIT_STAMP(GMP_HIT_EPOCHS), GMP_HIT_STAMP(0));
	assert_int_equal(GMP_HIT_STAMP(GMP_HIT_EPOCHS + 1), 0); /* why the host clears before */
	struct gmp_patch_table *t = table(16, 0x1000, 0x100, 0x100);
	uint32_t hits[16] = { 0 };
	uint64_t h[GMP_HINTS] = { 0 };
	struct gmp_patch_launch *l = with_list(64);
	l->table = (uintptr_t)t;
	l->base_n = (uint32_t)t->n;
	l->hits = (uintptr_t)hits;
	l->hints = (uintptr_t)h;
	uint64_t seed = 11;
	for (uint32_t round = 0; round < 300; round++) {
		l->epoch = round < 290 ? round : GMP_HIT_EPOCHS - (299 - round);
		l->list_count = 0;
		uint32_t want[16] = { 0 };
		for (int k = 0; k < 20; k++) {
			uint32_t obj = (uint32_t)(ts_rnd(&seed) % 16), rw = (uint32_t)(ts_rnd(&seed) % 3) + 1;
			uint32_t flags = (rw & GMP_HIT_READ ? GMP_SAN_ACCESS_READ : 0) |
					 (rw & GMP_HIT_WRITE ? GMP_SAN_ACCESS_WRITE : 0);
			gmp_patch_access(l, (ts_rnd(&seed) % 4) << 4, 0x1000 + obj * 0x100 + 8, 4, flags);
			want[obj] |= rw;
			records_true(l, h, hits, 16);
		}
		uint32_t seen[16] = { 0 };
		for (uint32_t k = 0; k < l->list_count; k++) {
			uint32_t i = gmp_patch_list(l)[k] >> GMP_LIST_SHIFT, b = gmp_patch_list(l)[k] & 3u;
			if (seen[i] & b)
				fail_msg("round %u: entry %u's bits %u listed twice", round, i, b);
			seen[i] |= b;
		}
		for (int i = 0; i < 16; i++)
			if (seen[i] != want[i] || bits_of(l, hits[i]) != want[i])
				fail_msg("round %u (epoch %u), entry %d: listed %u, word %u, accessed %u", round,
					 l->epoch, i, seen[i], bits_of(l, hits[i]), want[i]);
	}
	free(l);
	free(t);
}

/*
 * Per-instruction records (GMPROF_PATCH_HINTS=1): an instruction tries its
 * record's entry before the search, always with the search's answer; when
 * the record says this launch set the bits already, the access sets
 * nothing; records of earlier launches (older stamps) claim nothing.
 */
static void hints(void **state)
{
	(void)state;
	/* Objects of 100 bytes every 256 from 0x1000: gaps between them. */
	struct gmp_patch_table *t = table(40, 0x1000, 256, 100);
	uint64_t h[GMP_HINTS];
	uint32_t hits[40] = { 0 }, want[40] = { 0 };
	uint64_t seed = 7;
	struct gmp_patch_launch *l = with_list(80);
	l->table = (uintptr_t)t;
	l->base_n = (uint32_t)t->n;
	l->hits = (uintptr_t)hits;
	l->hints = (uintptr_t)h;
	l->epoch = 5;
	/* Earlier launches' records: any entry (some past the 40), older stamps, any bits. */
	for (uint32_t k = 0; k < GMP_HINTS; k++)
		h[k] = ts_rnd(&seed) % 50 |
		       (uint64_t)(GMP_HIT_STAMP(ts_rnd(&seed) % 5) << 2 | (uint32_t)(ts_rnd(&seed) % 4)) << 32;
	for (int i = 0; i < 20000; i++) {
		uint64_t addr = 0xf00 + ts_rnd(&seed) % (41 * 256), pc = (ts_rnd(&seed) % 8) << 4;
		uint32_t rw = (uint32_t)(ts_rnd(&seed) % 3) + 1;
		int64_t at = gmp_patch_lookup(t, addr);
		uint64_t hint = gmp_patch_hint(l, pc);
		assert_true(hint == h[GMP_HINT_SLOT(pc)]);
		struct gmp_patch_span sp = { 1, 0 };
		assert_int_equal(gmp_patch_find(l, addr, hint, &sp), at);
		assert_true(at < 0 || (sp.start == 0x1000 + (uint64_t)at * 256 && sp.end == sp.start + 100));
		assert_int_equal(gmp_patch_access(l, pc, addr, 1, (rw & 1 ? GMP_SAN_ACCESS_READ : 0) |
								  (rw & 2 ? GMP_SAN_ACCESS_WRITE : 0)), at);
		if (at >= 0) { /* the instruction's record now names what it found */
			want[at] |= rw;
			assert_int_equal((uint32_t)h[GMP_HINT_SLOT(pc)], at);
		}
		records_true(l, h, hits, 40);
	}
	for (int i = 0; i < 40; i++)
		assert_int_equal(bits_of(l, hits[i]), want[i]);
	/*
	 * The next launch of the buffer: a read the record covers sets nothing
	 * (another array of hit words stays clear), a write it does not cover does.
	 */
	l->epoch++;
	uint32_t other[40] = { 0 };
	gmp_patch_access(l, 0x70, 0x1000 + 3 * 256, 4, GMP_SAN_ACCESS_READ);
	l->hits = (uintptr_t)other;
	gmp_patch_access(l, 0x70, 0x1000 + 3 * 256 + 8, 4, GMP_SAN_ACCESS_READ);
	assert_int_equal(other[3], 0);
	gmp_patch_access(l, 0x70, 0x1000 + 3 * 256 + 8, 4, GMP_SAN_ACCESS_WRITE);
	assert_int_equal(bits_of(l, other[3]), GMP_HIT_WRITE);
	/* Without records: the search alone, nothing claimed. */
	l->hints = 0;
	assert_true(gmp_patch_hint(l, 0x70) == GMP_NO_HINT);
	assert_int_equal(gmp_patch_claims(l, GMP_NO_HINT, UINT32_MAX), 0);
	struct gmp_patch_span sp;
	assert_int_equal(gmp_patch_find(l, 0x1000 + 3 * 256 + 5, GMP_NO_HINT, &sp), 3);
	assert_true(sp.start == 0x1000 + 3 * 256 && sp.end == sp.start + 100);
	free(l);
	free(t);
}

/*
 * The base and the recent table (patch_abi.h), against a scan of the live
 * objects: random live sets of 200 slots of 256 bytes, each object in
 * the base, freed (a tombstone there), or recent (over a tombstone, or
 * where the base had nothing), an object of a slot sometimes shorter
 * than the slot, with and without a record's entry to try first.
 */
static void two_tables(void **state)
{
	(void)state;
	enum { SLOTS = 200 };
	uint64_t seed = 11;
	for (int round = 0; round < 50; round++) {
		struct gmp_patch_table *b = table(SLOTS, 0x10000, 256, 256);
		struct gmp_patch_table *r = table(SLOTS, 0, 0, 0);
		uint64_t *bs = (uint64_t *)(b + 1), *be = bs + SLOTS, *rs = (uint64_t *)(r + 1);
		uint64_t live_s[SLOTS], live_e[SLOTS], entry[SLOTS], nb = 0, nr = 0, nlive = 0;
		uint64_t rstart[SLOTS], rend[SLOTS];
		for (uint64_t k = 0; k < SLOTS; k++) {
			uint64_t s0 = 0x10000 + k * 256, e0 = s0 + 256 - (ts_rnd(&seed) % 2) * 64;
			switch (ts_rnd(&seed) % 5) {
			case 0: /* a gap: in neither */
				break;
			case 1: /* freed: a tombstone */
				bs[nb] = be[nb] = s0;
				nb++;
				break;
			case 2: /* recent over a tombstone */
				bs[nb] = be[nb] = s0;
				nb++;
				/* fall through */
			case 3: /* recent */
				entry[nlive] = SLOTS + nr; /* numbered once nb is known */
				rstart[nr] = s0;
				rend[nr++] = e0;
				live_s[nlive] = s0;
				live_e[nlive++] = e0;
				break;
			default:
				entry[nlive] = nb;
				bs[nb] = s0;
				be[nb++] = e0;
				live_s[nlive] = s0;
				live_e[nlive++] = e0;
			}
		}
		/* Pack the base's ends after its nb starts, the recent table likewise. */
		memmove(bs + nb, be, nb * sizeof(uint64_t));
		b->n = nb;
		r->n = nr;
		memcpy(rs, rstart, nr * sizeof(uint64_t));
		memcpy(rs + nr, rend, nr * sizeof(uint64_t));
		for (uint64_t i = 0; i < nlive; i++)
			if (entry[i] >= SLOTS)
				entry[i] = entry[i] - SLOTS + nb;
		struct gmp_patch_launch l = { .table = (uintptr_t)b, .base_n = (uint32_t)nb, .recent = nr ? (uintptr_t)r : 0 };
		assert_int_equal(gmp_patch_entries(&l), nb + nr);
		for (int q = 0; q < 2000; q++) {
			uint64_t addr = 0x10000 - 512 + ts_rnd(&seed) % ((SLOTS + 4) * 256);
			int64_t want = -1;
			uint64_t ws = 0, we = 0;
			for (uint64_t i = 0; i < nlive; i++)
				if (live_s[i] <= addr && addr < live_e[i]) {
					want = (int64_t)entry[i];
					ws = live_s[i];
					we = live_e[i];
				}
			assert_int_equal(gmp_patch_locate(&l, addr), want);
			/* A record's entry, any (some past the last), tried first: the same answer, and its bounds. */
			struct gmp_patch_span sp = { 1, 0 };
			assert_int_equal(gmp_patch_find(&l, addr, round % 2 ? ts_rnd(&seed) % (SLOTS + 8) : GMP_NO_HINT, &sp), want);
			if (want >= 0) {
				assert_true(gmp_patch_holds(&l, (uint64_t)want, addr, 1));
				assert_true(sp.start == ws && sp.end == we);
			}
		}
		free(b);
		free(r);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static void hundred_thousand(void **state)
{
	(void)state;
	enum { N = 100000 };
	/* Random sizes and gaps; every lookup checked against a linear scan. */
	struct gmp_patch_table *t = calloc(1, sizeof(*t) + 2 * N * sizeof(uint64_t));
	uint64_t *start = (uint64_t *)(t + 1), *end = start + N;
	uint64_t x = 12345, a = 0x7f0000000000ull;
	t->n = N;
	for (int k = 0; k < N; k++) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		start[k] = a;
		end[k] = a + 1 + x % 5000;
		a = end[k] + x % 300; /* sometimes no gap at all */
	}
	for (int q = 0; q < 200000; q++) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		uint64_t addr = 0x7f0000000000ull - 10 + x % (a - 0x7f0000000000ull + 20);
		int64_t want = -1;
		uint64_t *p = bsearch(&addr, start, N, sizeof(uint64_t), cmp_u64);
		if (p)
			want = p - start;
		else
			for (int k = 0; k < N; k++)
				if (start[k] <= addr && addr < end[k]) {
					want = k;
					break;
				}
		if (gmp_patch_lookup(t, addr) != want)
			fail_msg("lookup of 0x%llx: %lld, want %lld", (unsigned long long)addr,
				 (long long)gmp_patch_lookup(t, addr), (long long)want);
		if (q > 2000 && !p)
			q += 50; /* the linear scan is slow: fewer misses */
	}
	free(t);
}

static void intra_maps(void **state)
{
	(void)state;
	/* One 256-byte object; 4-byte bitmap granularity, 64-byte counters. */
	struct gmp_patch_table *t = table(1, 0x10000, 0, 256);
	uint32_t hits[1] = { 0 }, bitmap[2] = { 0 }, counters[4] = { 0 };
	struct gmp_patch_intra_obj io = { .base = 0x10000, .size = 256,
					  .bitmap = (uintptr_t)bitmap,
					  .counters = (uintptr_t)counters };
	struct gmp_patch_launch l = { .table = (uintptr_t)t, .base_n = (uint32_t)t->n, .hits = (uintptr_t)hits,
				      .intra = (uintptr_t)&io,
				      .mode = GMP_MODE_OBJECT | GMP_MODE_INTRA_GPU,
				      .gran_shift = GMP_GRAN_SHIFT_DEFAULT,
				      .cgran_shift = GMP_CGRAN_SHIFT_DEFAULT };
	gmp_patch_access(&l, 0, 0x10000, 8, GMP_SAN_ACCESS_READ);   /* bits 0-1, counter 0 */
	gmp_patch_access(&l, 0, 0x10004, 4, GMP_SAN_ACCESS_READ);   /* bit 1 again, counter 0 */
	gmp_patch_access(&l, 0, 0x1003e, 4, GMP_SAN_ACCESS_WRITE);  /* bits 15-16, counters 0-1 */
	gmp_patch_access(&l, 0, 0x100fc, 16, GMP_SAN_ACCESS_READ);  /* runs past the end: bit 63 only */
	assert_int_equal(bitmap[0], 0x00018003u);   /* bytes 0-7, 62-65 */
	assert_int_equal(bitmap[1], 0x80000000u);   /* bytes 252-255 */
	assert_int_equal(counters[0], 3);
	assert_int_equal(counters[1], 1);
	assert_int_equal(counters[2], 0);
	assert_int_equal(counters[3], 1);
	assert_int_equal(bits_of(&l, hits[0]), GMP_HIT_READ | GMP_HIT_WRITE);
	free(t);
}

/*
 * Bulk copies: the object holding the first byte, and it only, even where
 * the size runs past it; the bitmap and counters over the whole range, a
 * word at a time, kept to the object.
 */
static void bulk(void **state)
{
	(void)state;
	/* Two adjacent objects of 4 KiB at 0x10000; intra maps for the first. */
	struct gmp_patch_table *t = table(2, 0x10000, 4096, 4096);
	uint32_t hits[2] = { 0 }, bitmap[32] = { 0 }, counters[64] = { 0 };
	struct gmp_patch_intra_obj io[2] = { { .base = 0x10000, .size = 4096, .bitmap = (uintptr_t)bitmap,
					       .counters = (uintptr_t)counters },
					     { .base = 0x11000, .size = 4096 } };
	struct gmp_patch_launch l = { .table = (uintptr_t)t, .base_n = (uint32_t)t->n, .hits = (uintptr_t)hits, .intra = (uintptr_t)io,
				      .mode = GMP_MODE_OBJECT | GMP_MODE_INTRA_GPU,
				      .gran_shift = GMP_GRAN_SHIFT_DEFAULT, .cgran_shift = GMP_CGRAN_SHIFT_DEFAULT };
	/* 1 KiB read from byte 8: granules 2 to 257, counters 0 to 16. */
	assert_int_equal(gmp_patch_bulk(&l, 0x10008, 1024, GMP_SAN_ACCESS_READ), 0);
	assert_int_equal(bits_of(&l, hits[0]), GMP_HIT_READ);
	assert_int_equal(bitmap[0], 0xfffffffcu);
	for (int w = 1; w < 8; w++)
		assert_int_equal(bitmap[w], 0xffffffffu);
	assert_int_equal(bitmap[8], 0x3u);
	assert_int_equal(bitmap[9], 0);
	for (int c = 0; c <= 16; c++)
		assert_int_equal(counters[c], 1);
	assert_int_equal(counters[17], 0);
	/* A store whose size runs 64 KiB past its object: the object alone, its bytes to its end. */
	assert_int_equal(gmp_patch_bulk(&l, 0x10f00, 65536, GMP_SAN_ACCESS_WRITE), 0);
	assert_int_equal(bits_of(&l, hits[0]), GMP_HIT_READ | GMP_HIT_WRITE);
	assert_int_equal(hits[1], 0);
	assert_int_equal(bitmap[31], 0xffffffffu);
	assert_int_equal(bitmap[29], 0);
	assert_int_equal(counters[63], 1);
	/* A reduction into the second object; nothing for a size of 0 or an address in no object. */
	assert_int_equal(gmp_patch_bulk(&l, 0x11010, 32, GMP_SAN_ACCESS_READ | GMP_SAN_ACCESS_WRITE), 1);
	assert_int_equal(bits_of(&l, hits[1]), GMP_HIT_READ | GMP_HIT_WRITE);
	assert_int_equal(gmp_patch_bulk(&l, 0x10000, 0, GMP_SAN_ACCESS_READ), -1);
	assert_int_equal(gmp_patch_bulk(&l, 0x20000, 16, GMP_SAN_ACCESS_READ), -1);
	free(t);
}

/*
 * The warp-aggregated bitmap path sets exactly the bits of the per-lane
 * one: for random accesses in and around an object, the word and mask
 * gmp_patch_bitmap_word gives (when it gives one) are what gmp_patch_intra
 * sets, at granularities 1 to 64 bytes.
 */
static void bitmap_word_agrees(void **state)
{
	(void)state;
	uint64_t seed = 42;
	for (unsigned gs = 0; gs <= 6; gs++) {
		const uint64_t base = 0x10000, size = 3000;
		size_t words = (size_t)(((size + (1u << gs) - 1) >> gs) + 31) / 32;
		uint32_t *a = calloc(words, 4), *b = calloc(words, 4);
		assert_non_null(a);
		assert_non_null(b);
		struct gmp_patch_intra_obj io = { .base = base, .size = size, .bitmap = (uintptr_t)a };
		struct gmp_patch_launch l = { .mode = GMP_MODE_INTRA_GPU, .gran_shift = gs, .cgran_shift = 6 };
		int one = 0;
		for (int k = 0; k < 4000; k++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			uint64_t addr = base - 64 + (seed >> 33) % (size + 128);
			uint64_t len = 1 + (seed >> 20) % (k % 3 ? 16 : 512);
			memset(a, 0, words * 4);
			io.bitmap = (uintptr_t)a;
			gmp_patch_intra(&l, &io, addr, len);
			uint64_t w;
			uint32_t m;
			if (!gmp_patch_bitmap_word(&l, &io, addr, len, &w, &m))
				continue;
			one++;
			memset(b, 0, words * 4);
			assert_true(w < words);
			b[w] = m;
			assert_memory_equal(a, b, words * 4);
		}
		assert_true(one > 1000); /* most accesses fit one word */
		free(a);
		free(b);
	}
	/* No bitmap, nothing accessed, or outside the object: no word. */
	uint32_t bm[4] = { 0 };
	struct gmp_patch_intra_obj io = { .base = 0x1000, .size = 256, .bitmap = (uintptr_t)bm };
	struct gmp_patch_launch l = { .gran_shift = 2 };
	uint64_t w;
	uint32_t m;
	assert_false(gmp_patch_bitmap_word(&l, &io, 0x1100, 4, &w, &m));
	assert_false(gmp_patch_bitmap_word(&l, &io, 0xffc, 4, &w, &m));
	assert_false(gmp_patch_bitmap_word(&l, &io, 0x1000, 0, &w, &m));
	assert_true(gmp_patch_bitmap_word(&l, &io, 0x1000, 128, &w, &m));
	assert_int_equal(w, 0);
	assert_int_equal(m, 0xffffffffu);
	assert_false(gmp_patch_bitmap_word(&l, &io, 0x1000, 129, &w, &m)); /* two words */
	io.bitmap = 0;
	assert_false(gmp_patch_bitmap_word(&l, &io, 0x1000, 4, &w, &m));
}

static void stream_and_heap(void **state)
{
	(void)state;
	struct gmp_patch_table *t = table(1, 0x10000, 0, 256);
	uint32_t hits[1] = { 0 };
	struct gmp_patch_record rec[2];
	struct gmp_patch_heap_record heap[1];
	struct gmp_patch_launch l = { .table = (uintptr_t)t, .base_n = (uint32_t)t->n, .hits = (uintptr_t)hits,
				      .records = (uintptr_t)rec, .record_cap = 2,
				      .heap = (uintptr_t)heap, .heap_cap = 1,
				      .mode = GMP_MODE_OBJECT | GMP_MODE_INTRA_STREAM };
	gmp_patch_access(&l, 0, 0x10010, 4, GMP_SAN_ACCESS_READ);
	gmp_patch_access(&l, 0, 0x20000, 4, GMP_SAN_ACCESS_READ); /* no object: not recorded */
	gmp_patch_access(&l, 0, 0x10020, 8, GMP_SAN_ACCESS_WRITE);
	gmp_patch_access(&l, 0, 0x10030, 8, GMP_SAN_ACCESS_WRITE); /* over capacity: dropped, counted */
	assert_int_equal(l.record_count, 3);
	assert_int_equal(rec[0].addr, 0x10010);
	assert_int_equal(rec[1].size, 8);
	assert_int_equal(rec[1].flags, GMP_SAN_ACCESS_WRITE);
	gmp_patch_heap(&l, 0xabc000, 128);
	gmp_patch_heap(&l, 0xabc000, 0);
	assert_int_equal(l.heap_count, 2);
	assert_int_equal(heap[0].size, 128);
	/* With the hit list in host memory, the heap records' count is there: the records stay. */
	struct gmp_patch_host_list h = { 0, 0 };
	l.list_host = (uintptr_t)&h;
	gmp_patch_heap(&l, 0xabd000, 64);
	assert_int_equal(h.heap_count, 1);
	assert_int_equal(l.heap_count, 2);
	assert_int_equal(heap[0].ptr, 0xabd000); /* its index from the host count */
	assert_int_equal(heap[0].size, 64);
	free(t);
}

static void abi_layout(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct gmp_patch_launch), GMP_PATCH_LAUNCH_SIZE);
	/* The fields the host reads back at fixed offsets, and the last one. */
	assert_int_equal(offsetof(struct gmp_patch_launch, list_count), 72);
	assert_int_equal(offsetof(struct gmp_patch_launch, hints), 80);
	assert_int_equal(offsetof(struct gmp_patch_launch, recent), 88);
	assert_int_equal(offsetof(struct gmp_patch_launch, epoch), 96);
	assert_int_equal(offsetof(struct gmp_patch_launch, list_host), 104);
	assert_int_equal(sizeof(struct gmp_patch_host_list), 8);
	assert_int_equal(sizeof(struct gmp_patch_table), 16);
	assert_int_equal(sizeof(struct gmp_patch_intra_obj), 32);
	assert_int_equal(sizeof(struct gmp_patch_record), 16);
	assert_int_equal(sizeof(struct gmp_patch_heap_record), 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gaps_and_ends),
		cmocka_unit_test(no_objects),
		cmocka_unit_test(flags),
		cmocka_unit_test(straddling),
		cmocka_unit_test(epochs),
		cmocka_unit_test(hints),
		cmocka_unit_test(two_tables),
		cmocka_unit_test(hundred_thousand),
		cmocka_unit_test(bulk),
		cmocka_unit_test(intra_maps),
		cmocka_unit_test(bitmap_word_agrees),
		cmocka_unit_test(stream_and_heap),
		cmocka_unit_test(abi_layout),
	};
	return cmocka_run_group_tests_name("patch", tests, NULL, NULL);
}
