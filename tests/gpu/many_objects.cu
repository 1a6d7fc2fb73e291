// SPDX-License-Identifier: MIT
// 2500 live objects, each written by its own kernel and freed right after:
// the object table grows past any fixed size and every access is found.
#include <vector>

#include "common.h"

int main()
{
	const int count = 2500;
	const size_t n = 256;
	std::vector<float *> p(count);
	for (int i = 0; i < count; i++)
		CHECK(cudaMalloc(&p[i], n * sizeof(float)));
	/* All 2500 live at once; then each used once, in reverse order, and freed. */
	for (int i = count - 1; i >= 0; i--) {
		fill<<<1, 256>>>(p[i], n, 1.0f);
		CHECK(cudaFree(p[i]));
	}
	return 0;
}
