/* SPDX-License-Identifier: MIT */
/*
 * A warp on the CPU, for tests/unit/test_warp.cpp: what gmprof_patch.cu
 * needs of CUDA to be built as C++ for the host.  Each lane is a thread;
 * the warp-wide intrinsics (__ballot_sync, __shfl_sync, __match_any_sync,
 * ...) make the active lanes meet at a barrier, put their values side by
 * side and compute the result each lane would get.  Every active lane must
 * reach the same intrinsics in the same order, as on a GPU (the patch's
 * code is convergent); a mask other than the active set, or a shuffle from
 * an inactive lane, is counted as misuse (emu_warp.misuse), which the
 * tests require to be 0.
 */
#ifndef GMPROF_WARP_EMU_H
#define GMPROF_WARP_EMU_H

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define __device__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))

struct emu_warp {
	pthread_barrier_t meet;  /* the active lanes, at each intrinsic */
	uint32_t active;         /* the lanes that run this instruction */
	uint64_t slot[32];       /* each lane's value at the current intrinsic */
	int misuse;
};

extern struct emu_warp emu_warp;
extern thread_local uint32_t emu_lane;

static inline uint32_t gmp_emu_lane(void)
{
	return emu_lane;
}

/* Every active lane's v, in out[lane] (lanes outside the active set: 0). */
static inline void emu_gather(uint32_t mask, uint64_t v, uint64_t out[32])
{
	if (mask != emu_warp.active)
		__atomic_store_n(&emu_warp.misuse, 1, __ATOMIC_RELAXED);
	emu_warp.slot[emu_lane] = v;
	pthread_barrier_wait(&emu_warp.meet);
	for (int i = 0; i < 32; i++)
		out[i] = emu_warp.active >> i & 1 ? emu_warp.slot[i] : 0;
	pthread_barrier_wait(&emu_warp.meet); /* nobody writes a slot before all have read */
}

static inline uint32_t __activemask(void)
{
	return emu_warp.active;
}

static inline uint32_t __ballot_sync(uint32_t mask, int pred)
{
	uint64_t s[32];
	emu_gather(mask, pred != 0, s);
	uint32_t r = 0;
	for (int i = 0; i < 32; i++)
		if (s[i])
			r |= 1u << i;
	return r & mask;
}

static inline int __all_sync(uint32_t mask, int pred)
{
	return __ballot_sync(mask, pred) == mask;
}

static inline int __any_sync(uint32_t mask, int pred)
{
	return __ballot_sync(mask, pred) != 0;
}

/*
 * What a shuffle from an inactive lane gives is undefined on a GPU (that
 * lane's register holds whatever it held).  Here it is adversarial: the
 * asking lane's own value, 0, all ones or noise, picked at random per
 * call, so code that uses it without checking the lane is caught.
 */
static inline uint64_t emu_undefined(uint64_t own)
{
	static thread_local uint64_t x = 0x2545f4914f6cdd1dull;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	switch (x % 4) {
	case 0: return own;
	case 1: return 0;
	case 2: return ~0ull;
	default: return x;
	}
}

template <class T> static inline T emu_from(uint32_t mask, const uint64_t s[32], uint32_t src, uint64_t own)
{
	return (mask >> src & 1) ? (T)s[src] : (T)emu_undefined(own);
}

template <class T> static inline T __shfl_sync(uint32_t mask, T v, int src)
{
	uint64_t s[32];
	emu_gather(mask, (uint64_t)v, s);
	if (!(mask >> (src & 31) & 1))
		__atomic_store_n(&emu_warp.misuse, 1, __ATOMIC_RELAXED);
	return emu_from<T>(mask, s, (uint32_t)src & 31, (uint64_t)v);
}

/* The partner may be inactive: the code must not use what it gets then (not misuse by itself). */
template <class T> static inline T __shfl_xor_sync(uint32_t mask, T v, int x)
{
	uint64_t s[32];
	emu_gather(mask, (uint64_t)v, s);
	return emu_from<T>(mask, s, (emu_lane ^ (uint32_t)x) & 31, (uint64_t)v);
}

template <class T> static inline uint32_t __match_any_sync(uint32_t mask, T v)
{
	uint64_t s[32];
	emu_gather(mask, (uint64_t)v, s);
	uint32_t r = 0;
	for (int i = 0; i < 32; i++)
		if ((mask >> i & 1) && s[i] == (uint64_t)v)
			r |= 1u << i;
	return r;
}

static inline int __ffs(int x)
{
	return __builtin_ffs(x);
}

static inline int __popc(uint32_t x)
{
	return __builtin_popcount(x);
}

#endif
