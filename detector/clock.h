/* SPDX-License-Identifier: MIT */
/*
 * The clock's state, shared by its two halves (internal to detector/):
 * clock.c finds when each event that bounds a finding is known to have
 * finished; held.c sums how long memory waited from those times.
 */
#ifndef GMPROF_CLOCK_H
#define GMPROF_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "gmprof/detect.h"

struct gmp_clock {
	const struct gmp_result *r;
	uint64_t start, end;     /* the first and last host times */
	uint64_t *need;          /* a bit per event: a finding is bounded by it */
	uint32_t *rank;          /* per word of need: the bits set in the words before it */
	struct when {            /* per event bounding a finding, in event order (compact: the */
		uint64_t issue;  /* findings' walks read these, not the 64-byte events) */
		uint64_t done;   /* its completion bound */
	} *at;
	size_t nneed;
	struct gmp_memtime *mt;  /* per device in r->devices' order */
	struct gmp_held *idle;   /* per object: its idleness finding's waiting (an object has one at most) */
	uint8_t *idle_known;     /* per object: idle[] holds it */
};

/* Event ev's place in at[], or SIZE_MAX when no finding is bounded by it. */
size_t det_clock_slot(const struct gmp_clock *c, uint32_t ev);
/* The devices' numbers and the idleness findings' waits, once the times are known (held.c).  0 or -ENOMEM. */
int det_clock_summarize(struct gmp_clock *c);

#endif
