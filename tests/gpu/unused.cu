// SPDX-License-Identifier: MIT
// An allocation nothing ever touches: unused_allocation.
#include "common.h"

int main()
{
	const size_t n = 1 << 16;
	float *used, *unused;
	CHECK(cudaMalloc(&unused, n * sizeof(float)));  /* obj#1 */
	CHECK(cudaMalloc(&used, n * sizeof(float)));    /* obj#2 */
	fill<<<blocks(n), 256>>>(used, n, 1.0f);
	CHECK(cudaFree(used));
	CHECK(cudaFree(unused));
	return 0;
}
