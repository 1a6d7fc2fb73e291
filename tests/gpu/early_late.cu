// SPDX-License-Identifier: MIT
// obj#1 is allocated long before its first use and freed long after its last.
#include "common.h"

int main()
{
	const size_t n = 1 << 18;
	float *a, *b;
	CHECK(cudaMalloc(&a, n * sizeof(float)));      /* obj#1, allocated early */
	CHECK(cudaMalloc(&b, n * sizeof(float)));      /* obj#2 */
	fill<<<blocks(n), 256>>>(b, n, 1.0f);
	scale<<<blocks(n), 256>>>(b, n, 2.0f);
	fill<<<blocks(n), 256>>>(a, n, 3.0f);          /* a's only use */
	scale<<<blocks(n), 256>>>(b, n, 2.0f);
	scale<<<blocks(n), 256>>>(b, n, 2.0f);
	CHECK(cudaFree(b));
	CHECK(cudaFree(a));                            /* freed late */
	return 0;
}
