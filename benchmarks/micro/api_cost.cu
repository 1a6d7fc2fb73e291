// SPDX-License-Identifier: MIT
/*
 * The host cost of a CUDA runtime call that does no GPU work, as a
 * framework makes several around every operation (the current device, the
 * last error, whether a stream or an event is done).  Under gmprof each
 * such call is an enter and an exit callback of the runtime API domain
 * (and of the driver's, for the calls the runtime makes), whatever the
 * mode, so alloc mode, the CI gate's, pays it too.  Run natively and under
 * gmprof; make bench-gpu subtracts the native time:
 *   ns per call = (loop ms - native loop ms) * 1e6 / calls
 * Output, one line: "api_cost: CALLS LOOP_MS" (the loop's wall time alone).
 * Usage: api_cost [ROUNDS] (four calls a round; 250000 by default)
 */
#include <chrono>

#include "../cuda/bench.h"

int main(int argc, char **argv)
{
	const long rounds = argc > 1 ? std::atol(argv[1]) : 250000;
	if (rounds <= 0) {
		std::fprintf(stderr, "api_cost: ROUNDS must be a positive number, not '%s'\n", argv[1]);
		return 2;
	}
	cudaStream_t s;
	cudaEvent_t e;
	CHECK(cudaStreamCreate(&s));
	CHECK(cudaEventCreate(&e));
	CHECK(cudaEventRecord(e, s));
	CHECK(cudaEventSynchronize(e));
	const auto t0 = std::chrono::steady_clock::now();
	for (long i = 0; i < rounds; i++) {
		int d;
		CHECK(cudaGetDevice(&d));
		CHECK(cudaGetLastError());
		CHECK(cudaStreamQuery(s));
		CHECK(cudaEventQuery(e));
	}
	const auto t1 = std::chrono::steady_clock::now();
	CHECK(cudaEventDestroy(e));
	CHECK(cudaStreamDestroy(s));
	std::printf("api_cost: %ld %.3f\n", rounds * 4, std::chrono::duration<double, std::milli>(t1 - t0).count());
	return 0;
}
