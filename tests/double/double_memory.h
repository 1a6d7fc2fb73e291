/* SPDX-License-Identifier: MIT */
/* What the test double counts of the collector's use of the "GPU" (double_memory.c). */
#ifndef GMPROF_DOUBLE_MEMORY_H
#define GMPROF_DOUBLE_MEMORY_H

#include "sanitizer_api.h"

/* Counted atomically; printed at exit with GMP_DOUBLE_STATS=1. */
struct double_stats {
	unsigned long stream_syncs, uploads, upload_bytes, allocs, l1_kernels; /* uploads: host-to-device copies */
	unsigned long readbacks, readback_bytes; /* device-to-host copies, and their bytes */
	unsigned long held, held_peak; /* device bytes allocated and not freed; the most of it */
};
extern struct double_stats double_stats;

#endif
