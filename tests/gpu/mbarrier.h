/* SPDX-License-Identifier: MIT */
/*
 * A block's one-phase barrier for the bulk copies of sm_90 (bulk.cu,
 * tma.cu): thread 0 makes it and says how many bytes the copies will
 * bring, and every thread waits until they have come.
 */
#ifndef GMPROF_GPU_TEST_MBARRIER_H
#define GMPROF_GPU_TEST_MBARRIER_H

#include <cstdint>

/* Thread 0: a barrier at shared address bar, for one arrival (its own). */
__device__ inline void mbar_init(uint32_t bar)
{
	asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
	asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

/* Thread 0: arrives, the barrier's phase to end once bytes have been copied into shared memory. */
__device__ inline void mbar_expect(uint32_t bar, uint32_t bytes)
{
	asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

/* Every thread: until the barrier's first phase has ended. */
__device__ inline void mbar_wait(uint32_t bar)
{
	uint32_t done = 0;
	while (!done)
		asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
			     : "=r"(done)
			     : "r"(bar)
			     : "memory");
}

#endif
