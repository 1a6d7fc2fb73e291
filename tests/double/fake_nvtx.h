/* SPDX-License-Identifier: MIT */
/*
 * fake_app's own NVTX calls, before it loads the collector as the driver
 * would (tests/double/fake_nvtx.c): apart from fake_app.c, whose stand-ins
 * for the driver's functions would clash with the toolkit's cuda.h.
 */
#ifndef GMPROF_FAKE_NVTX_H
#define GMPROF_FAKE_NVTX_H

/*
 * GMP_DOUBLE_NVTX_STREAM_NAMES=early: the default streams named before the
 * program's first CUDA call, as a program may (NVTX then loads the
 * collector as its tool first): the legacy one "early-legacy"
 * (nvtxNameCudaStreamA of NULL), this thread's "early-default"
 * (nvtxNameCuStreamA of CU_STREAM_PER_THREAD).  0, or -1 (said on stderr)
 * where the toolkit's nvtx3 headers were missing.
 */
int fake_nvtx_early(void);

#endif
