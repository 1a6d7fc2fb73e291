// SPDX-License-Identifier: MIT
// Bulk copies (cp.async.bulk, sm_90 on; built with the flags of bulk.nvcc):
// each block moves 4 KiB of a into shared memory with one thread's bulk
// copy, doubles it there, and moves it out to b with one bulk store.  No
// plain global access touches a or b, so their use is seen only through
// the bulk copies' patches (gmp_patch_bulk_load and gmp_patch_bulk_store):
// unseen, b would be taken for an object that could reuse a's memory.
// Its event model is bulk.jsonl.
#include <cstdint>

#include "common.h"
#include "mbarrier.h"

#define CHUNK 1024 /* floats per block: 4 KiB */

__global__ void bulk_double(const float *a, float *b)
{
	__shared__ alignas(128) float buf[CHUNK];
	__shared__ alignas(8) uint64_t bar;
	const uint32_t sbuf = (uint32_t)__cvta_generic_to_shared(buf);
	const uint32_t sbar = (uint32_t)__cvta_generic_to_shared(&bar);
	const size_t off = (size_t)blockIdx.x * CHUNK;
	if (threadIdx.x == 0)
		mbar_init(sbar);
	__syncthreads();
	if (threadIdx.x == 0) {
		mbar_expect(sbar, CHUNK * 4);
		asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
			     ::"r"(sbuf), "l"(a + off), "r"(CHUNK * 4), "r"(sbar)
			     : "memory");
	}
	mbar_wait(sbar);
	for (int i = threadIdx.x; i < CHUNK; i += blockDim.x)
		buf[i] *= 2.0f;
	asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
	__syncthreads();
	if (threadIdx.x == 0) {
		asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(b + off), "r"(sbuf),
			     "r"(CHUNK * 4)
			     : "memory");
		asm volatile("cp.async.bulk.commit_group;" ::: "memory");
		asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
	}
}

int main()
{
	const size_t n = 1 << 18;
	return a_to_b("bulk", n, [n](const float *a, float *b) { bulk_double<<<(unsigned)(n / CHUNK), 128>>>(a, b); });
}
