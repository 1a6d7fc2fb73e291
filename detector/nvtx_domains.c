// SPDX-License-Identifier: MIT
/* Which NVTX domains a profile's ranges and marks came from (nvtx_domains.h). */
#define _GNU_SOURCE
#include "nvtx_domains.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gmprof/trace.h"

#define NAMED_MAX 8 /* domains named in each list of the note; the others counted */

/* META key "nvtx.domain.K.FIELD" of t. */
static const char *field(const struct gmp_trace *t, size_t k, const char *f)
{
	char key[64];
	snprintf(key, sizeof(key), "nvtx.domain.%zu.%s", k, f);
	return gmp_trace__meta(t, key);
}

static int is_one(const char *v)
{
	return v && !strcmp(v, "1");
}

int gmp_nvtx_domains__get(const struct gmp_trace *t, size_t k, struct gmp_nvtx_domain *d)
{
	const char *name = field(t, k, "name"), *r = field(t, k, "ranges"), *m = field(t, k, "marks");
	if (!name)
		return 0;
	d->name = name;
	d->ranges = r ? strtoull(r, NULL, 10) : 0;
	d->marks = m ? strtoull(m, NULL, 10) : 0;
	d->left_out = is_one(field(t, k, "left_out"));
	return 1;
}

int gmp_nvtx_domains__default_left_out(const struct gmp_trace *t)
{
	return is_one(gmp_trace__meta(t, "nvtx.default.left_out"));
}

size_t gmp_nvtx_domains__left_out_keys(const struct gmp_trace *t, const char **out, size_t max)
{
	size_t n = 0;
	if (gmp_nvtx_domains__default_left_out(t) && n < max)
		out[n++] = "default";
	struct gmp_nvtx_domain d;
	for (size_t k = 0; n < max && gmp_nvtx_domains__get(t, k, &d); k++)
		if (d.left_out)
			out[n++] = d.name;
	return n;
}

/* "N ranges, M marks" for a domain, into out. */
static const char *counts(const struct gmp_nvtx_domain *d, char *out, size_t n)
{
	out[0] = 0;
	if (d->ranges)
		snprintf(out, n, "%" PRIu64 " range%s", d->ranges, d->ranges == 1 ? "" : "s");
	if (d->marks) {
		size_t len = strlen(out);
		snprintf(out + len, n - len, "%s%" PRIu64 " mark%s", len ? ", " : "", d->marks, d->marks == 1 ? "" : "s");
	}
	return out;
}

/* The domains recorded (out 0) or left out (1, the default one first), with their counts, into buf; "" for none. */
static const char *list(const struct gmp_trace *t, int out, char *buf, size_t n)
{
	char what[64];
	size_t shown = 0, more = 0;
	buf[0] = 0;
	if (out && gmp_nvtx_domains__default_left_out(t)) {
		snprintf(buf, n, "the default domain");
		shown++;
	}
	struct gmp_nvtx_domain d;
	for (size_t k = 0; gmp_nvtx_domains__get(t, k, &d); k++) {
		if (d.left_out != out)
			continue;
		if (shown >= NAMED_MAX) {
			more++;
			continue;
		}
		counts(&d, what, sizeof(what));
		size_t len = strlen(buf); /* what does not fit is cut */
		snprintf(buf + len, n - len, "%s%s%s%s%s", shown++ ? ", " : "", d.name, *what ? " (" : "", what,
			 *what ? ")" : "");
	}
	if (more) {
		size_t len = strlen(buf);
		snprintf(buf + len, n - len, " and %zu more", more);
	}
	return buf;
}

const char *gmp_nvtx_domains__left_out_names(const struct gmp_trace *t, char *buf, size_t n)
{
	return list(t, 1, buf, n);
}

const char *gmp_nvtx_domains__note(const struct gmp_trace *t, char *buf, size_t n)
{
	char part[2][768];
	list(t, 0, part[0], sizeof(part[0]));
	list(t, 1, part[1], sizeof(part[1]));
	snprintf(buf, n, "%s%s%s%s%s", *part[0] ? "NVTX domains besides the default: " : "", part[0],
		 *part[0] && *part[1] ? "; " : "", *part[1] ? "left out when recorded: " : "", part[1]);
	return buf;
}

void gmp_nvtx_domains__only_in(const char *const *x, size_t nx, const char *const *y, size_t ny, const char *which,
			       char *buf, size_t n, size_t *said)
{
	for (size_t i = 0; i < nx; i++) {
		size_t j = 0;
		while (j < ny && strcmp(x[i], y[j]))
			j++;
		if (j < ny)
			continue;
		size_t len = strlen(buf); /* what does not fit is cut */
		snprintf(buf + len, n - len, "%s%s (%s)", (*said)++ ? ", " : "",
			 strcmp(x[i], "default") ? x[i] : "the default domain", which);
	}
}

const char *gmp_nvtx_domains__differ(const struct gmp_trace *a, const struct gmp_trace *b, char *buf, size_t n)
{
	const char *ka[GMP_NVTX_DOMAINS_MAX], *kb[GMP_NVTX_DOMAINS_MAX];
	size_t na = gmp_nvtx_domains__left_out_keys(a, ka, GMP_NVTX_DOMAINS_MAX);
	size_t nb = gmp_nvtx_domains__left_out_keys(b, kb, GMP_NVTX_DOMAINS_MAX);
	char list[768] = "";
	size_t said = 0;
	gmp_nvtx_domains__only_in(ka, na, kb, nb, "before", list, sizeof(list), &said);
	gmp_nvtx_domains__only_in(kb, nb, ka, na, "after", list, sizeof(list), &said);
	snprintf(buf, n, "%s%s", said ? "NVTX domains were left out of one run only: " : "", list);
	return buf;
}
