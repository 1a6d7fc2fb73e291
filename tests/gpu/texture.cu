// SPDX-License-Identifier: MIT
// a is read only through a texture object over its linear memory, which
// the device patches do not see: the collector counts every kernel
// launched while the texture exists as reading a, so b is not taken for
// an object that could reuse a's memory (tests/cli/textures.sh, through
// the test double; this program's event model is texture.jsonl).
#include "common.h"

__global__ void from_texture(cudaTextureObject_t tex, float *out, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = 2.0f * tex1Dfetch<float>(tex, (int)i);
}

int main()
{
	const size_t n = 1 << 18;
	cudaTextureObject_t tex = 0;
	return a_to_b(
		"texture", n,
		[&](const float *a, float *b) {
			cudaResourceDesc res = {};
			res.resType = cudaResourceTypeLinear;
			res.res.linear.devPtr = (void *)a;
			res.res.linear.desc = cudaCreateChannelDesc<float>();
			res.res.linear.sizeInBytes = n * sizeof(float);
			cudaTextureDesc td = {};
			td.readMode = cudaReadModeElementType;
			CHECK(cudaCreateTextureObject(&tex, &res, &td, nullptr));
			from_texture<<<blocks(n), 256>>>(tex, b, n);
		},
		[&] { CHECK(cudaDestroyTextureObject(tex)); });
}
