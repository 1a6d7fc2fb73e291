// SPDX-License-Identifier: MIT
// Intra mode's maps for what each kernel touched before (collector/khist.c),
// run with GMPROF_MAPS_MB=1 (intra_khist.env): maps of the three 1 MiB
// objects would take 288 KiB a launch, past an eighth of it, so a kernel's
// launch gets maps only for the objects it touched in launches collected
// before, and those allocated since.  k's 2nd launch has maps for a alone
// (its touches exact), its 3rd reads b, which has none (its touches
// unknown, its reads known), its 4th has b's, its 5th d's (allocated
// since), and j's first launch every object's (intra_khist.touched says
// which launches have touches).  The event model is intra_khist.jsonl, as
// tests/cli/collector.sh runs it through the test double.
#include "common.h"

/* Reads nr floats of r and writes nw floats of w (either may be none); key is a NaN, so sink is never written. */
__global__ void k(const float *r, size_t nr, float *w, size_t nw, float key, float *sink)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (r && i < nr && r[i] == key)
		*sink = 0.0f;
	if (w && i < nw)
		w[i] = 1.0f;
}

/* k's body under another name: a kernel of its own. */
__global__ void j(const float *r, size_t nr, float key, float *sink)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (r && i < nr && r[i] == key)
		*sink = 0.0f;
}

int main()
{
	const size_t mib = 1 << 20;
	const float nan = __builtin_nanf("");
	float *a, *b, *c, *d;
	CHECK(cudaMalloc(&a, mib)); /* obj#1 */
	CHECK(cudaMalloc(&b, mib)); /* obj#2 */
	CHECK(cudaMalloc(&c, mib)); /* obj#3 */
	k<<<blocks(1024), 256>>>(a, 1024, nullptr, 0, nan, nullptr); /* reads 4096 bytes of a */
	CHECK(cudaDeviceSynchronize());
	k<<<blocks(1024), 256>>>(nullptr, 0, a, 1024, nan, nullptr); /* writes them */
	k<<<blocks(2048), 256>>>(b, 2048, nullptr, 0, nan, nullptr); /* reads 8192 bytes of b: no maps for b */
	CHECK(cudaDeviceSynchronize());
	k<<<blocks(2048), 256>>>(b, 2048, nullptr, 0, nan, nullptr); /* again, with b's maps */
	CHECK(cudaMalloc(&d, mib)); /* obj#4 */
	k<<<blocks(256), 256>>>(nullptr, 0, d, 256, nan, nullptr); /* writes 1024 bytes of d */
	j<<<blocks(512), 256>>>(c, 512, nan, nullptr); /* reads 2048 bytes of c */
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaFree(a));
	CHECK(cudaFree(b));
	CHECK(cudaFree(c));
	CHECK(cudaFree(d));
	return 0;
}
