// SPDX-License-Identifier: MIT
// Buffers allocated and freed between launches while 100 others stay live,
// and half of those freed along the way: the collector's two object tables
// (a base, a recent table of what was allocated since, tombstones for what
// was freed since, and a rebuilt base past 32 of them) must find every
// access, including accesses to a buffer the driver placed where a freed
// one was.
#include <vector>

#include "common.h"

int main()
{
	const int live = 100, rounds = 80; /* rounds < live: keep[1 + r] is live in round r */
	const size_t n = 256;
	std::vector<float *> keep(live);
	for (int i = 0; i < live; i++)
		CHECK(cudaMalloc(&keep[i], n * sizeof(float)));
	fill<<<1, 256>>>(keep[0], n, 1.0f); /* the first launch: the base holds the 100 */
	for (int r = 0; r < rounds; r++) {
		float *t;
		CHECK(cudaMalloc(&t, n * sizeof(float))); /* a recent object */
		fill<<<1, 256>>>(t, n, (float)r);
		add<<<1, 256>>>(keep[1 + r], keep[1 + r], t, n);
		CHECK(cudaFree(t));
		if (r % 2 == 0) { /* an object of the base freed (used in an earlier round): a tombstone */
			CHECK(cudaFree(keep[1 + r / 2]));
			keep[1 + r / 2] = nullptr;
		}
	}
	CHECK(cudaDeviceSynchronize());
	for (float *p : keep)
		if (p)
			CHECK(cudaFree(p));
	return 0;
}
