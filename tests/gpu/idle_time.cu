// SPDX-License-Identifier: MIT
// Host times on a real GPU (memory over time): a idles while the host
// sleeps 300 ms between its two uses, then waits 1.5 s more for its free.
// idle_time.waits says how long each must have waited at least and at
// most, idle_time.returned.waits the narrower ranges that the syncs'
// returns give; idle_time.jsonl is the event model, with the times these
// sleeps give.
#include <unistd.h>

#include "common.h"

int main()
{
	const size_t n = 1 << 20;
	float *a, *b;
	CHECK(cudaMalloc(&a, n * sizeof(float)));
	fill<<<blocks(n), 256>>>(a, n, 1.0f);
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaMalloc(&b, n * sizeof(float)));
	fill<<<blocks(n), 256>>>(b, n, 2.0f);
	CHECK(cudaDeviceSynchronize());
	usleep(300000); /* a idles */
	fill<<<blocks(n), 256>>>(b, n, 3.0f);
	add<<<blocks(n), 256>>>(b, b, a, n); /* a's last use */
	CHECK(cudaDeviceSynchronize());
	usleep(200000);
	fill<<<blocks(n), 256>>>(b, n, 4.0f);
	CHECK(cudaDeviceSynchronize());
	usleep(1500000); /* a waits for its free */
	CHECK(cudaFree(a));
	CHECK(cudaFree(b));
	return 0;
}
