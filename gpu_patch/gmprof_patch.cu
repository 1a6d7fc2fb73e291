// SPDX-License-Identifier: MIT
/*
 * gmprof's device patches: the callbacks the Compute Sanitizer calls
 * before every global memory access (and cp.async copy from global
 * memory), and after a kernel's malloc()/free().  Built with
 * `nvcc --fatbin --compile-as-tools-patch` for every architecture nvcc
 * supports; the collector loads the fatbin into each context.
 *
 * The per-access logic is gpu_patch/patch_logic.h, shared with the host
 * and tested there.  This file adds what only a GPU has: warp aggregation.
 * When one object holds the whole warp's access (the common case), the
 * warp searches the table once, for its leader's address, and the leader
 * sets the hit bits.  With GMPROF_PATCH_HINTS=1 the warp first tries the
 * entry the same instruction found last, and when that instruction's
 * record says this launch set the bits already, sets nothing (patch_abi.h:
 * the warps of a kernel reading one array then read no hit word, which
 * one L2 line would serve to every warp of the GPU in turn).  Otherwise
 * lanes that hit the same object elect one lane to set the object's bits
 * (the OR of theirs).  Lanes that bump the same counter add their count
 * once.  Nothing here synchronizes with the host.
 * tests/unit/test_warp.cpp builds this file for the CPU, a thread per lane,
 * and checks what a warp does against each lane's access made one by one
 * (patch_logic.h).
 */
#include "patch_logic.h"

/* The Sanitizer's patch result: 0 is success (an error would end the warp). */
typedef int gmp_patch_result;

static __device__ __forceinline__ uint32_t lane_id(void)
{
#ifdef __CUDA_ARCH__
	uint32_t lane;
	asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
	return lane;
#else
	return gmp_emu_lane(); /* tests/unit/warp_emu.h: this file built for the CPU, a thread per lane */
#endif
}

/*
 * Intra mode's bitmap, for the lanes whose access sets bits in one word of
 * it (gmp_patch_bitmap_word): each lane tests its bits; when some are not
 * set, the lanes that share a word OR their masks together and one of them
 * sets them with one atomic, where each lane would take its own (a warp
 * reading 32 consecutive floats for the first time: 32 atomics on one word,
 * one after the other at the L2).  The masks are ORed with a butterfly
 * between lanes of the same word, which gathers whole groups when they are
 * aligned blocks of lanes (coalesced accesses: 32 lanes on one word, or 16
 * and 16 with 8-byte elements); when it did not gather some group whole,
 * every lane sets its own bits instead.  Called by every active lane (it
 * shuffles), io NULL for a lane without one object; returns 1 for the lanes
 * whose bits it handled.
 */
static __device__ __forceinline__ int bitmap_set(const struct gmp_patch_launch *l,
						 const struct gmp_patch_intra_obj *io, uint64_t addr,
						 uint32_t size, uint32_t active, uint32_t lane)
{
	uint64_t wi = 0;
	uint32_t m = 0, *w = nullptr;
	const int one = io && gmp_patch_bitmap_word(l, io, addr, size, &wi, &m);
	if (one)
		w = (uint32_t *)(uintptr_t)io->bitmap + wi;
	const int need = one && (gmp_patch_test(w, m, l->mode) & m) != m;
	if (!__any_sync(active, need))
		return one; /* every bit already set: the common case after the first touch */
	const uint64_t key = one ? (uint64_t)(uintptr_t)w : ~0ull - lane; /* unique when not one */
	uint32_t acc = m;
	for (uint32_t o = 1; o < 32; o <<= 1) {
		uint32_t pm = __shfl_xor_sync(active, acc, o);
		uint64_t pk = __shfl_xor_sync(active, key, o);
		if (((active >> (lane ^ o)) & 1) && pk == key)
			acc |= pm;
	}
	const uint32_t leader = __ffs(__match_any_sync(active, key)) - 1;
	const uint32_t lead_acc = __shfl_sync(active, acc, leader);
	if (__all_sync(active, (lead_acc & m) == m)) {
		if (one && lane == leader && (gmp_patch_test(w, lead_acc, l->mode) & lead_acc) != lead_acc)
			GMP_OR32(w, lead_acc);
	} else if (need) {
		GMP_OR32(w, m);
	}
	return one;
}

/*
 * In warp_access's modes only, never a launch's: the launch may keep
 * per-instruction records (GMPROF_PATCH_HINTS).  gmp_patch_global_access_object
 * is patched only where no launch keeps them, and leaves them out: no load
 * of l->hints, and no 64-bit record live across the search (registers a
 * patch saves and restores, or spills, on every call).
 */
#define GMP_MAY_HINT 0x80000000u

/*
 * One warp instruction's accesses.  modes: the launch modes the caller can
 * get, and GMP_MAY_HINT (a constant: GMP_MODE_OBJECT | GMP_MODE_L1_TESTS
 * leaves the intra code and the records out of gmp_patch_global_access_object).
 */
static __device__ __forceinline__ void warp_access(struct gmp_patch_launch *l, uint64_t pc,
						   uint64_t addr, uint32_t size, uint32_t flags,
						   uint32_t modes = ~0u)
{
	const uint32_t active = __activemask();
	const uint32_t lane = lane_id();
	const uint32_t leader = __ffs(active) - 1;
	uint32_t bits = size ? gmp_patch_hit_bits(flags) : 0;
	/* Which lanes read and which write: the OR of any group's bits is two ballots. */
	const uint32_t rd = __ballot_sync(active, bits & GMP_HIT_READ);
	const uint32_t wr = __ballot_sync(active, bits & GMP_HIT_WRITE);
	if (!(rd | wr))
		return; /* prefetches or empty accesses only */
	int64_t i, j;
	/*
	 * The common case first: one object holds every lane's access (a warp
	 * reading one array).  The whole warp searches the leader's address,
	 * so each step of the search is one broadcast load, not up to 32.
	 */
	const uint64_t hint = (modes & GMP_MAY_HINT) ? gmp_patch_hint(l, pc) : GMP_NO_HINT;
	struct gmp_patch_span span; /* i0's bounds, as the search read them: no loads again (unset for -1) */
	int64_t i0 = gmp_patch_find(l, __shfl_sync(active, addr, leader), hint, &span);
	int inside = !bits || (i0 >= 0 && gmp_patch_within(&span, addr, size));
	/* Read after the search, not live across it (a register saved, or a spill, on every call). */
	uint32_t *hits = (uint32_t *)(uintptr_t)l->hits;
	const uint32_t mode = l->mode & modes;
	if (__all_sync(active, inside)) {
		i = j = bits ? i0 : -1;
		/* Unless the instruction's record says this launch set the bits already: no hit word read. */
		const uint32_t need = (rd ? GMP_HIT_READ : 0) | (wr ? GMP_HIT_WRITE : 0);
		if (i0 >= 0 && lane == leader && (need & ~gmp_patch_claims(l, hint, (uint64_t)i0))) {
			const uint32_t have = gmp_patch_mark(l, hits, (uint64_t)i0, need, mode);
			if (modes & GMP_MAY_HINT)
				gmp_patch_note(l, pc, hint, (uint64_t)i0, have);
		}
	} else {
		i = bits ? gmp_patch_locate(l, addr) : -1;
		j = bits && size > 1 ? gmp_patch_locate(l, addr + size - 1) : i;
		/* One lane per distinct object sets the bits its group needs. */
		uint32_t group = __match_any_sync(active, (unsigned long long)i);
		uint32_t gbits = (rd & group ? GMP_HIT_READ : 0) | (wr & group ? GMP_HIT_WRITE : 0);
		if (i >= 0 && lane == (uint32_t)(__ffs(group) - 1))
			gmp_patch_mark(l, hits, (uint64_t)i, gbits, mode);
		if (j >= 0 && j != i)
			gmp_patch_mark(l, hits, (uint64_t)j, bits, mode); /* straddles two objects: rare */
	}

	if (mode & GMP_MODE_INTRA_GPU) {
		const struct gmp_patch_intra_obj *io =
			(const struct gmp_patch_intra_obj *)(uintptr_t)l->intra;
		/* Bitmaps: one atomic per word and warp (bitmap_set).  Counters: one add per cell and warp. */
		const int word_done = bitmap_set(l, io && i >= 0 && j == i ? &io[i] : nullptr, addr, size,
						 active, lane); /* every active lane: it shuffles */
		uint64_t cell = ~0ull - lane; /* unique unless the access sits in one cell */
		int single = 0;
		if (io && i >= 0 && j == i && io[i].counters && addr >= io[i].base) {
			uint64_t off = addr - io[i].base;
			uint64_t c0 = off >> l->cgran_shift, c1 = (off + size - 1) >> l->cgran_shift;
			if (c0 == c1 && off + size <= io[i].size) {
				cell = (uint64_t)i << 32 ^ c0;
				single = 1;
			}
		}
		uint32_t same = __match_any_sync(active, cell);
		if (io && i >= 0) {
			struct gmp_patch_intra_obj o = io[i];
			if (word_done)
				o.bitmap = 0; /* its bits are set (or were already) */
			if (single) {
				o.counters = 0; /* counted below, once for the whole group */
				if (lane == (uint32_t)(__ffs(same) - 1)) {
					uint32_t *cnt = (uint32_t *)(uintptr_t)io[i].counters;
					GMP_ADD32(&cnt[(addr - o.base) >> l->cgran_shift], __popc(same));
				}
			}
			gmp_patch_intra(l, &o, addr, size);
		}
		if (io && j >= 0 && j != i)
			gmp_patch_intra(l, &io[j], addr, size);
	}
	if ((mode & GMP_MODE_INTRA_STREAM) && (i >= 0 || j >= 0))
		gmp_patch_stream(l, addr, size, flags);
}

extern "C" __device__ __noinline__ gmp_patch_result
gmp_patch_global_access(void *userdata, uint64_t pc, void *ptr, uint32_t size, uint32_t flags,
			const void *data)
{
	(void)data;
	if (userdata)
		warp_access((struct gmp_patch_launch *)userdata, pc, (uint64_t)(uintptr_t)ptr, size, flags);
	return 0;
}

/*
 * The same for a run whose every launch is monitored at object level
 * (GMPROF_MODE=object, the collector's choice at patching): the intra code
 * left out, so the function is about half the size and saves fewer
 * registers (benchmarks/patch_sass.py).  A launch in intra mode must never
 * reach it: the collector patches it only when no launch can be.
 */
extern "C" __device__ __noinline__ gmp_patch_result
gmp_patch_global_access_object(void *userdata, uint64_t pc, void *ptr, uint32_t size, uint32_t flags,
			       const void *data)
{
	(void)data;
	if (userdata)
		warp_access((struct gmp_patch_launch *)userdata, pc, (uint64_t)(uintptr_t)ptr, size, flags,
			    GMP_MODE_OBJECT | GMP_MODE_L1_TESTS);
	return 0;
}

/*
 * GMPROF_PATCH_HINTS=1: the same, with the steady state of per-instruction
 * records in a function of its own.  A patch must leave every register as
 * the patched kernel had it, so each register it uses past the few it may
 * clobber is saved and restored on every call; ptxas gives
 * gmp_patch_global_access a 112-byte frame (sm_90, CUDA 13.0: 384 bytes of
 * spill stores, 572 of loads).  Here a warp whose lanes all fall in the
 * entry of the instruction's record, whose bits the record says this
 * launch set already, returns once it has loaded the record and the
 * entry's bounds, in a function with a 24-byte frame (20 bytes of stores
 * and loads); anything else calls warp_access, as gmp_patch_global_access
 * does.  Both leave the same state: a warp that returns early would have
 * set nothing either.
 */
static __device__ __forceinline__ int warp_claimed(const struct gmp_patch_launch *l, uint64_t pc,
						   uint64_t addr, uint32_t size, uint32_t flags)
{
	if (l->mode & (GMP_MODE_INTRA_GPU | GMP_MODE_INTRA_STREAM))
		return 0; /* bitmaps and counters take every access */
	const uint64_t hint = gmp_patch_hint(l, pc);
	if (hint == GMP_NO_HINT)
		return 0;
	const uint32_t bits = size ? gmp_patch_hit_bits(flags) : 0;
	const uint32_t claims = gmp_patch_hit_of((uint32_t)(hint >> 32), l->epoch);
	struct gmp_patch_span span;
	const int done = !bits || (!(bits & ~claims) && gmp_patch_span_of(l, (uint32_t)hint, &span) &&
				   gmp_patch_within(&span, addr, size));
	return __all_sync(__activemask(), done);
}

static __device__ __noinline__ void warp_unclaimed(struct gmp_patch_launch *l, uint64_t pc, uint64_t addr,
						   uint32_t size, uint32_t flags)
{
	warp_access(l, pc, addr, size, flags);
}

/* The same for a launch at object level: the intra code left out (as gmp_patch_global_access_object). */
static __device__ __noinline__ void warp_unclaimed_object(struct gmp_patch_launch *l, uint64_t pc, uint64_t addr,
							  uint32_t size, uint32_t flags)
{
	warp_access(l, pc, addr, size, flags, GMP_MODE_OBJECT | GMP_MODE_L1_TESTS | GMP_MAY_HINT);
}

extern "C" __device__ __noinline__ gmp_patch_result
gmp_patch_global_access_records(void *userdata, uint64_t pc, void *ptr, uint32_t size, uint32_t flags,
				const void *data)
{
	(void)data;
	struct gmp_patch_launch *l = (struct gmp_patch_launch *)userdata;
	if (!l || warp_claimed(l, pc, (uint64_t)(uintptr_t)ptr, size, flags))
		return 0;
	if (l->mode & (GMP_MODE_INTRA_GPU | GMP_MODE_INTRA_STREAM))
		warp_unclaimed(l, pc, (uint64_t)(uintptr_t)ptr, size, flags);
	else
		warp_unclaimed_object(l, pc, (uint64_t)(uintptr_t)ptr, size, flags);
	return 0;
}

/*
 * GMPROF_PATCH_EMPTY: the same call with nothing in it.  The per-access cost
 * benchmark (benchmarks/micro/) subtracts it to get what gmprof's own work
 * in the callback costs.
 */
extern "C" __device__ __noinline__ gmp_patch_result
gmp_patch_global_access_empty(void *userdata, uint64_t pc, void *ptr, uint32_t size,
			      uint32_t flags, const void *data)
{
	(void)userdata;
	(void)pc;
	(void)ptr;
	(void)size;
	(void)flags;
	(void)data;
	return 0;
}

/* cp.async: a read of global memory into shared memory. */
extern "C" __device__ __noinline__ gmp_patch_result
gmp_patch_memcpy_async(void *userdata, uint64_t pc, void *src, uint32_t dst, uint32_t size)
{
	(void)dst;
	if (userdata && src)
		warp_access((struct gmp_patch_launch *)userdata, pc, (uint64_t)(uintptr_t)src, size,
		       GMP_SAN_ACCESS_READ);
	return 0;
}

/* The same in object mode (as gmp_patch_global_access_object). */
extern "C" __device__ __noinline__ gmp_patch_result
gmp_patch_memcpy_async_object(void *userdata, uint64_t pc, void *src, uint32_t dst, uint32_t size)
{
	(void)dst;
	if (userdata && src)
		warp_access((struct gmp_patch_launch *)userdata, pc, (uint64_t)(uintptr_t)src, size,
			    GMP_SAN_ACCESS_READ, GMP_MODE_OBJECT | GMP_MODE_L1_TESTS | GMP_MAY_HINT);
	return 0;
}

/*
 * Bulk copies between global and shared memory (cp.async.bulk, sm_90 on),
 * each issued by one thread and moving up to 1 MiB: the object holding
 * the global side's first byte is read (into shared memory), written
 * (from it), or both (a reduction into global memory).  Sizes come in
 * 16-byte blocks: the low 16 bits of a load's data, a store's block count
 * (docs/sanitizer-api.md: the signatures past CUDA 12.6 are unconfirmed).
 */
static __device__ __forceinline__ gmp_patch_result bulk(void *userdata, uint64_t addr, uint64_t blocks, uint32_t flags)
{
	if (userdata)
		gmp_patch_bulk((struct gmp_patch_launch *)userdata, addr, blocks * 16, flags);
	return 0;
}

extern "C" __device__ __noinline__ gmp_patch_result
gmp_patch_bulk_load(void *userdata, uint64_t pc, uint64_t src, uint32_t dst, uint32_t barrier, uint32_t data,
		    uint32_t multicast)
{
	(void)pc, (void)dst, (void)barrier, (void)multicast;
	return bulk(userdata, src, data & 0xffffu, GMP_SAN_ACCESS_READ);
}

extern "C" __device__ __noinline__ gmp_patch_result
gmp_patch_bulk_store(void *userdata, uint64_t pc, uint64_t dst, uint32_t src, uint32_t blocks)
{
	(void)pc, (void)src;
	return bulk(userdata, dst, blocks, GMP_SAN_ACCESS_WRITE);
}

extern "C" __device__ __noinline__ gmp_patch_result
gmp_patch_bulk_reduce(void *userdata, uint64_t pc, uint64_t dst, uint32_t src, uint32_t blocks)
{
	(void)pc, (void)src;
	return bulk(userdata, dst, blocks, GMP_SAN_ACCESS_READ | GMP_SAN_ACCESS_WRITE);
}

extern "C" __device__ __noinline__ gmp_patch_result
gmp_patch_device_malloc(void *userdata, uint64_t pc, void *ptr, uint64_t size)
{
	(void)pc;
	if (userdata && ptr)
		gmp_patch_heap((struct gmp_patch_launch *)userdata, (uint64_t)(uintptr_t)ptr,
			       size ? size : 1);
	return 0;
}

extern "C" __device__ __noinline__ gmp_patch_result
gmp_patch_device_free(void *userdata, uint64_t pc, void *ptr)
{
	(void)pc;
	if (userdata && ptr)
		gmp_patch_heap((struct gmp_patch_launch *)userdata, (uint64_t)(uintptr_t)ptr, 0);
	return 0;
}
