// SPDX-License-Identifier: MIT
/*
 * The collector's record of its own time (format/selftime.h): the clock it
 * reads around its callbacks, its lock and its Sanitizer calls
 * (collector.h, device.h), and the META collector_time written at exit.
 */
#include <time.h>

#include "collector.h"

uint64_t st_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void st_record(uint64_t t_exit)
{
	struct gmp_selftime st = gmp_col.self;
	uint64_t now = st_now();
	st.ns[GMP_ST_EXIT] += now - t_exit;
	st.n[GMP_ST_EXIT]++;
	st.ns[GMP_ST_WALL] = now - gmp_col.self_t0;
	st.n[GMP_ST_WALL] = 1;
	char v[512];
	if (!gmp_selftime__format(&st, v, sizeof(v)))
		rec_meta(GMP_SELFTIME_META, v);
}
