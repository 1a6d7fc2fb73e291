// SPDX-License-Identifier: MIT
/* Random traces for the unit tests' property checks. */
#include <stdlib.h>

#include "support.h"

uint64_t ts_rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * A random multi-stream trace: allocations, kernels that read and write,
 * copies, sets, device/stream/event syncs, event record and wait, frees.
 */
struct gmp_trace *ts_random_trace(uint64_t *seed)
{
	return ts_random_trace_with(seed, 0);
}

struct gmp_trace *ts_random_trace_with(uint64_t *seed, unsigned unmonitored_pct)
{
	struct gmp_trace *t = gmp_trace__new();
	assert_non_null(t);
	enum { SLOTS = 8 };
	uint64_t live[SLOTS] = { 0 }, next = 0x10000;
	int nev = 20 + (int)(ts_rnd(seed) % 200);
	for (int i = 0; i < nev; i++) {
		struct gmp_event e = { .stream = (uint32_t)(ts_rnd(seed) % 4),
				       .device = (uint32_t)(ts_rnd(seed) % 5 == 0) };
		struct gmp_access acc[3];
		size_t nacc = 0;
		uint32_t slot = (uint32_t)(ts_rnd(seed) % SLOTS), other = (slot + 1) % SLOTS;
		switch (ts_rnd(seed) % 9) {
		case 0:
			if (live[slot])
				continue;
			e.op = GMP_OP_ALLOC;
			e.addr = live[slot] = next;
			e.size = 4096 + (ts_rnd(seed) % 3) * 256; /* 4352 is within 10% of 4096, 4608 is not */
			next += 0x10000;
			break;
		case 1:
			if (!live[slot])
				continue;
			e.op = GMP_OP_FREE;
			e.addr = live[slot];
			live[slot] = 0;
			break;
		case 2: case 3:
			e.op = GMP_OP_KERNEL;
			if (unmonitored_pct && ts_rnd(seed) % 100 < unmonitored_pct)
				break; /* its accesses unknown */
			e.flags = GMP_EF_ACCESS_KNOWN;
			for (uint32_t k = 0; k < SLOTS && nacc < 3; k++)
				if (live[k] && ts_rnd(seed) % 3 == 0)
					acc[nacc++] = (struct gmp_access){
						live[k] + 8, 1 + (uint32_t)(ts_rnd(seed) % 3) };
			break;
		case 4:
			if (!live[slot] || !live[other])
				continue;
			e.op = GMP_OP_MEMCPY;
			e.flags = GMP_EF_HAS_DST | GMP_EF_HAS_SRC;
			e.addr = live[slot] + ts_rnd(seed) % 4 * 32; /* ranges that partly overlap */
			e.src = live[other] + ts_rnd(seed) % 4 * 32;
			e.size = 64 + ts_rnd(seed) % 3 * 32;
			break;
		case 5:
			if (!live[slot])
				continue;
			e.op = GMP_OP_MEMSET;
			e.addr = live[slot] + ts_rnd(seed) % 4 * 32;
			e.size = 32 + ts_rnd(seed) % 4 * 32;
			break;
		case 6:
			e.op = GMP_OP_SYNC;
			e.flags = ts_rnd(seed) % 2 ? GMP_EF_SYNC_STREAM : 0;
			break;
		case 7:
			e.op = GMP_OP_EVENT_RECORD;
			e.value = ts_rnd(seed) % 3;
			break;
		default:
			e.op = ts_rnd(seed) % 2 ? GMP_OP_EVENT_WAIT : GMP_OP_SYNC;
			if (e.op == GMP_OP_SYNC)
				e.flags = GMP_EF_SYNC_EVENT;
			e.value = ts_rnd(seed) % 3;
			break;
		}
		assert_true(gmp_trace__add_event(t, &e, acc, nacc, NULL, 0) >= 0);
	}
	return t;
}
