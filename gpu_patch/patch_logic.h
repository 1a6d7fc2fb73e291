/* SPDX-License-Identifier: MIT */
/*
 * What a patched memory access does, in one place for the device (nvcc)
 * and the host C compiler: the CPU tests and the collector's test double
 * run exactly this code.  No allocation, no I/O.
 *
 *   - find the object: binary search over the sorted base table, checking
 *     both ends, so an address in a gap (or a tombstone) belongs to nobody
 *     there; then over the recent table (patch_abi.h);
 *   - an access that straddles two objects marks both;
 *   - atomics set both read and write, prefetches nothing;
 *   - flags are tested before they are set: the atomics are for the first
 *     touch only, and the first atomic to set a flag lists it (the hit list);
 *     a flag set by an earlier launch of the same buffer does not count
 *     (hit words carry the launch's stamp: patch_abi.h);
 *   - intra mode: set bitmap bits and bump counters of the bytes touched,
 *     clipped to the object.
 */
#ifndef GMPROF_PATCH_LOGIC_H
#define GMPROF_PATCH_LOGIC_H

#include "patch_abi.h"

#ifdef __CUDACC__
#define GMP_HD __device__ __forceinline__
#define GMP_OR32(p, v) atomicOr((unsigned int *)(p), (unsigned int)(v))
#define GMP_ADD32(p, v) atomicAdd((unsigned int *)(p), (unsigned int)(v))
/* Compare and swap: the word's value before (the swap happened when it equals old). */
#define GMP_CAS32(p, old, v) atomicCAS((unsigned int *)(p), (unsigned int)(old), (unsigned int)(v))
#else
#define GMP_HD static inline
#define GMP_OR32(p, v) __atomic_fetch_or((p), (v), __ATOMIC_RELAXED)
#define GMP_ADD32(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
static inline uint32_t gmp_cas32(uint32_t *p, uint32_t old, uint32_t v)
{
	__atomic_compare_exchange_n(p, &old, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	return old; /* on failure, what the word held */
}
#define GMP_CAS32(p, old, v) gmp_cas32((p), (old), (v))
#endif

GMP_HD const uint64_t *gmp_patch_starts(const struct gmp_patch_table *t)
{
	return (const uint64_t *)(t + 1);
}

/* An entry's bounds, [start, end): a search hands back what it read on the way. */
struct gmp_patch_span {
	uint64_t start, end;
};

/* Whether [addr, addr+size) lies in the span, size > 0. */
GMP_HD int gmp_patch_within(const struct gmp_patch_span *s, uint64_t addr, uint64_t size)
{
	return s->start <= addr && addr < s->end && size <= s->end - addr;
}

/*
 * The entry containing addr, or -1 (a gap, before the first, or no
 * entries); *s its bounds.  Indices are 32-bit (a table has fewer than
 * 2^31 entries: patch_abi.h): on the device each 64-bit index took two
 * registers through the loop, which a patch saves and restores (or
 * spills) on every call.
 */
GMP_HD int64_t gmp_patch_search_n(const struct gmp_patch_table *t, uint32_t n, uint64_t addr,
				  struct gmp_patch_span *s)
{
	const uint64_t *start = gmp_patch_starts(t);
	if (n == 0 || addr < start[0])
		return -1;
	uint32_t lo = 0, hi = n; /* start[lo] <= addr; the answer is in [lo, hi) */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (start[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	const uint64_t end = start[n + lo]; /* the ends follow the starts (n + lo < 2^32) */
	if (addr >= end)
		return -1;
	s->start = start[lo];
	s->end = end;
	return (int64_t)lo;
}

/* The same, n read from the table's header. */
GMP_HD int64_t gmp_patch_search(const struct gmp_patch_table *t, uint64_t addr, struct gmp_patch_span *s)
{
	return gmp_patch_search_n(t, (uint32_t)t->n, addr, s);
}

GMP_HD int64_t gmp_patch_lookup(const struct gmp_patch_table *t, uint64_t addr)
{
	struct gmp_patch_span s;
	return gmp_patch_search(t, addr, &s);
}

/* The launch's base table and its recent table (NULL when it has none). */
GMP_HD const struct gmp_patch_table *gmp_patch_base(const struct gmp_patch_launch *l)
{
	return (const struct gmp_patch_table *)(uintptr_t)l->table;
}

GMP_HD const struct gmp_patch_table *gmp_patch_recent(const struct gmp_patch_launch *l)
{
	return (const struct gmp_patch_table *)(uintptr_t)l->recent;
}

/* Entries of a launch: the base's, then the recent table's. */
GMP_HD uint64_t gmp_patch_entries(const struct gmp_patch_launch *l)
{
	const struct gmp_patch_table *r = gmp_patch_recent(l);
	return l->base_n + (r ? r->n : 0);
}

/* The bounds of entry i (numbered through both tables; any value): 0 when there is no such entry. */
GMP_HD int gmp_patch_span_of(const struct gmp_patch_launch *l, uint64_t i, struct gmp_patch_span *s)
{
	const struct gmp_patch_table *t = gmp_patch_base(l);
	uint64_t n = l->base_n;
	if (i >= n) {
		i -= n;
		t = gmp_patch_recent(l);
		if (!t || i >= t->n)
			return 0;
		n = t->n;
	}
	s->start = gmp_patch_starts(t)[i];
	s->end = gmp_patch_starts(t)[n + i]; /* the ends follow the starts */
	return 1;
}

/* Whether entry i (any value) holds [addr, addr+size), size > 0. */
GMP_HD int gmp_patch_holds(const struct gmp_patch_launch *l, uint64_t i, uint64_t addr, uint64_t size)
{
	struct gmp_patch_span s;
	return gmp_patch_span_of(l, i, &s) && gmp_patch_within(&s, addr, size);
}

/*
 * The entry containing addr, numbered through both tables, or -1; *s its
 * bounds.  The base first: one search answers every address of an object
 * it holds (the common case, and the only one between the host's
 * rebuilds); an address it does not hold (a tombstone, a gap) is looked
 * for among the recent objects.
 */
GMP_HD int64_t gmp_patch_locate_span(const struct gmp_patch_launch *l, uint64_t addr, struct gmp_patch_span *s)
{
	const struct gmp_patch_table *t = gmp_patch_base(l);
	int64_t i = gmp_patch_search_n(t, l->base_n, addr, s);
	const struct gmp_patch_table *r = gmp_patch_recent(l);
	if (i >= 0 || !r)
		return i;
	int64_t k = gmp_patch_search(r, addr, s);
	return k >= 0 ? (int64_t)l->base_n + k : -1;
}

GMP_HD int64_t gmp_patch_locate(const struct gmp_patch_launch *l, uint64_t addr)
{
	struct gmp_patch_span s;
	return gmp_patch_locate_span(l, addr, &s);
}

/* The record of the instruction at pc (patch_abi.h); GMP_NO_HINT when the launch keeps none. */
#define GMP_NO_HINT (~(uint64_t)0)

GMP_HD uint64_t gmp_patch_hint(const struct gmp_patch_launch *l, uint64_t pc)
{
	const uint64_t *hints = (const uint64_t *)(uintptr_t)l->hints;
	return hints ? hints[GMP_HINT_SLOT(pc)] : GMP_NO_HINT; /* a plain load: the L1 may answer */
}

/*
 * The entry containing addr, trying first the one of the instruction's
 * record (hint: gmp_patch_hint's) against its bounds; *s the entry's
 * bounds (untouched for -1).  The same answer as gmp_patch_locate.
 */
GMP_HD int64_t gmp_patch_find(const struct gmp_patch_launch *l, uint64_t addr, uint64_t hint,
			      struct gmp_patch_span *s)
{
	if (hint != GMP_NO_HINT && gmp_patch_span_of(l, (uint32_t)hint, s) && gmp_patch_within(s, addr, 1))
		return (uint32_t)hint;
	return gmp_patch_locate_span(l, addr, s);
}

/* Hit bits of an access: atomics read and write, prefetches touch nothing. */
GMP_HD uint32_t gmp_patch_hit_bits(uint32_t flags)
{
	if (flags & GMP_SAN_ACCESS_PREFETCH)
		return 0;
	uint32_t b = 0;
	if (flags & GMP_SAN_ACCESS_READ)
		b |= GMP_HIT_READ;
	if (flags & GMP_SAN_ACCESS_WRITE)
		b |= GMP_HIT_WRITE;
	if (flags & GMP_SAN_ACCESS_ATOMSYS)
		b |= GMP_HIT_READ | GMP_HIT_WRITE;
	return b;
}

/*
 * Reads a hit or bitmap word before an atomic sets bits in it.  By default
 * the load is coherent across the GPU (volatile: the L2 answers).  With
 * GMP_MODE_L1_TESTS it is a relaxed load at block scope, which the SM's L1
 * may answer: it can miss bits another SM set, never report bits nobody
 * set, since the L1 starts every launch empty of the previous launches'
 * data.  Every warp of a kernel reading one array tests the same hit word,
 * which the L2 serves one request at a time; through the L1 each SM asks
 * once.
 */
GMP_HD uint32_t gmp_patch_load(const uint32_t *w, uint32_t mode)
{
#ifdef __CUDACC__
	uint32_t v;
	if (mode & GMP_MODE_L1_TESTS)
		asm volatile("ld.relaxed.cta.u32 %0, [%1];" : "=r"(v) : "l"(w));
	else
		v = *(volatile const uint32_t *)w;
	return v;
#else
	(void)mode;
	return __atomic_load_n(w, __ATOMIC_RELAXED);
#endif
}

/*
 * A bitmap word, for a test of bits m before an atomic sets them: when the
 * L1's answer (GMP_MODE_L1_TESTS) lacks some of them, the L2's.  An L1
 * line that stayed stale after the bits were set (by another SM, or by this
 * one's atomic, which runs at the L2) would otherwise cost an atomic at
 * every later warp on the SM; this way it costs the load the default makes.
 */
GMP_HD uint32_t gmp_patch_test(const uint32_t *w, uint32_t m, uint32_t mode)
{
	uint32_t v = gmp_patch_load(w, mode);
	if ((mode & GMP_MODE_L1_TESTS) && (v & m) != m)
		v = gmp_patch_load(w, 0);
	return v;
}

/* The launch's hit list (patch_abi.h): in pinned host memory, or right after the launch struct. */
GMP_HD uint32_t *gmp_patch_list(struct gmp_patch_launch *l)
{
	return l->list_host ? (uint32_t *)(uintptr_t)(l->list_host + sizeof(struct gmp_patch_host_list))
			    : (uint32_t *)(l + 1);
}

/* Its count, where the list is. */
GMP_HD uint32_t *gmp_patch_list_count(struct gmp_patch_launch *l)
{
	return l->list_host ? &((struct gmp_patch_host_list *)(uintptr_t)l->list_host)->count : &l->list_count;
}

/* The hit bits a hit word holds for the launch of this epoch (patch_abi.h). */
GMP_HD uint32_t gmp_patch_hit_of(uint32_t word, uint32_t epoch)
{
	return word >> 2 == GMP_HIT_STAMP(epoch) ? word & (GMP_HIT_READ | GMP_HIT_WRITE) : 0;
}

/* The hit bits a record (hint) says entry i holds in this launch: none unless it has the launch's stamp. */
GMP_HD uint32_t gmp_patch_claims(const struct gmp_patch_launch *l, uint64_t hint, uint64_t i)
{
	return hint != GMP_NO_HINT && (uint32_t)hint == i ? gmp_patch_hit_of((uint32_t)(hint >> 32), l->epoch) : 0;
}

/*
 * Records that the instruction at pc found entry i, whose hit word holds
 * bits (this launch's, all of them set: gmp_patch_mark's answer), unless
 * its record (hint, as loaded) says so already.
 */
GMP_HD void gmp_patch_note(const struct gmp_patch_launch *l, uint64_t pc, uint64_t hint, uint64_t i,
			   uint32_t bits)
{
	uint64_t *hints = (uint64_t *)(uintptr_t)l->hints;
	uint64_t rec = (uint32_t)i | (uint64_t)(GMP_HIT_STAMP(l->epoch) << 2 | bits) << 32;
	if (hints && rec != hint)
		hints[GMP_HINT_SLOT(pc)] = rec;
}

/*
 * Sets bits on entry i's hit word unless this launch set them already: a
 * word stamped by an earlier launch is replaced, one of this launch's gets
 * the bits added (compare and swap; a swap that lost to another warp's
 * retries with what that one wrote, and stops when the bits are there).
 * The swap that sets a bit first appends it to the hit list, once per bit.
 * Returns the bits the word then holds for this launch.
 */
GMP_HD uint32_t gmp_patch_mark(struct gmp_patch_launch *l, uint32_t *hits, uint64_t i, uint32_t bits,
			       uint32_t mode)
{
	const uint32_t stamp = GMP_HIT_STAMP(l->epoch) << 2;
	uint32_t old = gmp_patch_load(&hits[i], mode), fresh, have;
	if ((mode & GMP_MODE_L1_TESTS) && (bits & ~gmp_patch_hit_of(old, l->epoch)))
		old = gmp_patch_load(&hits[i], 0); /* as gmp_patch_test: the L2's answer before an atomic */
	for (;;) {
		have = gmp_patch_hit_of(old, l->epoch);
		fresh = bits & ~have;
		if (!fresh)
			return have;
		uint32_t seen = GMP_CAS32(&hits[i], old, stamp | have | bits);
		if (seen == old)
			break;
		old = seen;
	}
	uint32_t k = GMP_ADD32(gmp_patch_list_count(l), 1u);
	if (k < l->list_cap)
		gmp_patch_list(l)[k] = (uint32_t)i << GMP_LIST_SHIFT | fresh;
	return have | bits;
}

/* Intra mode: bitmap bits and counters of [addr, addr+size), clipped to the object. */
GMP_HD void gmp_patch_intra(const struct gmp_patch_launch *l, const struct gmp_patch_intra_obj *io,
			    uint64_t addr, uint64_t size)
{
	uint64_t lo = addr > io->base ? addr - io->base : 0;
	uint64_t hi = addr + size - io->base; /* exclusive */
	if (addr + size <= io->base || lo >= io->size)
		return;
	if (hi > io->size)
		hi = io->size;
	if (io->bitmap) {
		/* A word at a time: a bulk copy's range may cover thousands of granules. */
		uint32_t *bits = (uint32_t *)(uintptr_t)io->bitmap;
		const uint32_t mode = l->mode, gs = l->gran_shift; /* read once, not per word */
		const uint64_t g0 = lo >> gs, g1 = (hi - 1) >> gs;
		for (uint64_t wi = g0 >> 5; wi <= g1 >> 5; wi++) {
			uint32_t m = ~0u;
			if (wi == g0 >> 5)
				m &= ~0u << (g0 & 31);
			if (wi == g1 >> 5)
				m &= ~0u >> (31 - (g1 & 31));
			if ((gmp_patch_test(&bits[wi], m, mode) & m) != m)
				GMP_OR32(&bits[wi], m);
		}
	}
	if (io->counters) {
		uint32_t *cnt = (uint32_t *)(uintptr_t)io->counters;
		for (uint64_t c = lo >> l->cgran_shift; c <= (hi - 1) >> l->cgran_shift; c++)
			GMP_ADD32(&cnt[c], 1u);
	}
}

/*
 * The one bitmap word an access sets bits in, when it sets bits in one word
 * only (the common case: a lane's access is a few granules): its index in
 * the object's bitmap and the bits, as gmp_patch_intra would set them one
 * by one.  0 when the access sets bits in no word or in more than one.
 * The device ORs the masks of a warp whose lanes share the word and sets
 * them with one atomic, where gmp_patch_intra would take one per lane.
 */
GMP_HD int gmp_patch_bitmap_word(const struct gmp_patch_launch *l,
				 const struct gmp_patch_intra_obj *io, uint64_t addr, uint64_t size,
				 uint64_t *word, uint32_t *mask)
{
	if (!io->bitmap || !size || addr + size <= io->base || addr >= io->base + io->size)
		return 0;
	uint64_t lo = addr > io->base ? addr - io->base : 0;
	uint64_t hi = addr + size - io->base; /* exclusive */
	if (hi > io->size)
		hi = io->size;
	uint64_t g0 = lo >> l->gran_shift, g1 = (hi - 1) >> l->gran_shift;
	if (g0 >> 5 != g1 >> 5)
		return 0;
	*word = g0 >> 5;
	*mask = (uint32_t)((2u << (g1 & 31)) - (1u << (g0 & 31))); /* bits g0..g1, mod 2^32 */
	return 1;
}

/* Stream mode: claims a record slot; beyond the capacity the record is dropped. */
GMP_HD void gmp_patch_stream(struct gmp_patch_launch *l, uint64_t addr, uint32_t size,
			     uint32_t flags)
{
	uint32_t i = GMP_ADD32(&l->record_count, 1u);
	if (i < l->record_cap) {
		struct gmp_patch_record *r = (struct gmp_patch_record *)(uintptr_t)l->records;
		r[i].addr = addr;
		r[i].size = size;
		r[i].flags = flags;
	}
}

/*
 * Everything one thread's access does, without warp aggregation: the
 * device wraps this to let one lane per object set the hit bits.  With
 * records (l->hints), the instruction at pc whose record says its entry
 * holds the bits already sets nothing.  Returns the entry of the access's
 * first byte (or -1).
 */
GMP_HD int64_t gmp_patch_access(struct gmp_patch_launch *l, uint64_t pc, uint64_t addr, uint32_t size,
				uint32_t flags)
{
	uint32_t bits = gmp_patch_hit_bits(flags);
	if (!bits || !size)
		return -1;
	uint32_t *hits = (uint32_t *)(uintptr_t)l->hits;
	const uint64_t hint = gmp_patch_hint(l, pc);
	struct gmp_patch_span span;
	int64_t i = gmp_patch_find(l, addr, hint, &span);
	int64_t j = size > 1 ? gmp_patch_locate(l, addr + size - 1) : i;
	const struct gmp_patch_intra_obj *io =
		(const struct gmp_patch_intra_obj *)(uintptr_t)l->intra;
	if (i >= 0) {
		if (bits & ~gmp_patch_claims(l, hint, (uint64_t)i))
			gmp_patch_note(l, pc, hint, (uint64_t)i, gmp_patch_mark(l, hits, (uint64_t)i, bits, l->mode));
		if ((l->mode & GMP_MODE_INTRA_GPU) && io)
			gmp_patch_intra(l, &io[i], addr, size);
	}
	if (j >= 0 && j != i) {
		gmp_patch_mark(l, hits, (uint64_t)j, bits, l->mode);
		if ((l->mode & GMP_MODE_INTRA_GPU) && io)
			gmp_patch_intra(l, &io[j], addr, size);
	}
	if ((l->mode & GMP_MODE_INTRA_STREAM) && (i >= 0 || j >= 0))
		gmp_patch_stream(l, addr, size, flags);
	return i;
}

/*
 * The global side of a bulk copy (cp.async.bulk, sm_90 on: up to 1 MiB
 * moved by one thread's instruction): the object holding its first byte,
 * and that one only, since a bulk copy stays inside one allocation (a size
 * misread then marks no other object; gmp_patch_intra keeps to the
 * object's bytes).  Returns the entry, or -1.
 */
GMP_HD int64_t gmp_patch_bulk(struct gmp_patch_launch *l, uint64_t addr, uint64_t size, uint32_t flags)
{
	uint32_t bits = gmp_patch_hit_bits(flags);
	int64_t i = bits && size ? gmp_patch_locate(l, addr) : -1;
	if (i < 0)
		return -1;
	gmp_patch_mark(l, (uint32_t *)(uintptr_t)l->hits, (uint64_t)i, bits, l->mode);
	const struct gmp_patch_intra_obj *io = (const struct gmp_patch_intra_obj *)(uintptr_t)l->intra;
	if ((l->mode & GMP_MODE_INTRA_GPU) && io)
		gmp_patch_intra(l, &io[i], addr, size);
	if (l->mode & GMP_MODE_INTRA_STREAM)
		gmp_patch_stream(l, addr, size > UINT32_MAX ? UINT32_MAX : (uint32_t)size, flags);
	return i;
}

/* malloc() or free() inside a kernel (size 0). */
GMP_HD void gmp_patch_heap(struct gmp_patch_launch *l, uint64_t ptr, uint64_t size)
{
	if (!l->heap)
		return;
	uint32_t i = GMP_ADD32(l->list_host ? &((struct gmp_patch_host_list *)(uintptr_t)l->list_host)->heap_count
				     : &l->heap_count, 1u);
	if (i < l->heap_cap) {
		struct gmp_patch_heap_record *h = (struct gmp_patch_heap_record *)(uintptr_t)l->heap;
		h[i].ptr = ptr;
		h[i].size = size;
	}
}

#endif
