// SPDX-License-Identifier: MIT
/* Which NVTX domains a profile's ranges and marks came from (nvtx_domains.h). */
#define _GNU_SOURCE
#include "nvtx_domains.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gmprof/trace.h"

#define NAMED_MAX 8 /* domains named in each list; the others counted */

/* "N ranges, M marks" for a domain, into out. */
static const char *counts(const char *ranges, const char *marks, char *out, size_t n)
{
	uint64_t r = ranges ? strtoull(ranges, NULL, 10) : 0, m = marks ? strtoull(marks, NULL, 10) : 0;
	out[0] = 0;
	if (r)
		snprintf(out, n, "%" PRIu64 " range%s", r, r == 1 ? "" : "s");
	if (m) {
		size_t len = strlen(out);
		snprintf(out + len, n - len, "%s%" PRIu64 " mark%s", len ? ", " : "", m, m == 1 ? "" : "s");
	}
	return out;
}

const char *gmp_nvtx_domains__note(const struct gmp_trace *t, char *buf, size_t n)
{
	char key[64], what[64];
	size_t shown[2] = { 0, 0 }, more[2] = { 0, 0 };
	char part[2][768] = { "", "" }; /* recorded, left out */
	const char *def = gmp_trace__meta(t, "nvtx.default.left_out");
	if (def && !strcmp(def, "1")) {
		snprintf(part[1], sizeof(part[1]), "the default domain");
		shown[1]++;
	}
	for (size_t k = 0;; k++) {
		snprintf(key, sizeof(key), "nvtx.domain.%zu.name", k);
		const char *name = gmp_trace__meta(t, key);
		if (!name)
			break;
		snprintf(key, sizeof(key), "nvtx.domain.%zu.ranges", k);
		const char *r = gmp_trace__meta(t, key);
		snprintf(key, sizeof(key), "nvtx.domain.%zu.marks", k);
		const char *m = gmp_trace__meta(t, key);
		snprintf(key, sizeof(key), "nvtx.domain.%zu.left_out", k);
		const char *lo = gmp_trace__meta(t, key);
		int out = lo && !strcmp(lo, "1");
		if (shown[out] >= NAMED_MAX) {
			more[out]++;
			continue;
		}
		counts(r, m, what, sizeof(what));
		size_t len = strlen(part[out]); /* what does not fit is cut */
		snprintf(part[out] + len, sizeof(part[out]) - len, "%s%s%s%s%s", shown[out] ? ", " : "", name,
			 *what ? " (" : "", what, *what ? ")" : "");
		shown[out]++;
	}
	buf[0] = 0;
	for (int out = 0; out < 2; out++) {
		if (!shown[out])
			continue;
		size_t len = strlen(buf);
		char tail[48] = "";
		if (more[out])
			snprintf(tail, sizeof(tail), " and %zu more", more[out]);
		snprintf(buf + len, n - len, "%s%s%s%s", len ? "; " : "",
			 out ? "left out when recorded: " : "NVTX domains besides the default: ", part[out], tail);
	}
	return buf;
}
