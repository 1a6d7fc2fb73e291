// SPDX-License-Identifier: MIT
/*
 * What a baseline records of its run's NVTX names (baseline.h): how they
 * were folded (version 8, "nvtx_names") and which NVTX domains the
 * collector left out (version 9, "nvtx_domains_left_out"), and what a
 * check makes of them: a baseline folded otherwise is refused, one whose
 * run left out other domains is compared, with a line saying which ranges
 * and marks cannot match.
 */
#define _GNU_SOURCE
#include "baseline.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline_json.h"
#include "nvtx_domains.h"

int gmp_baseline__parse_names(const cJSON *names, uint64_t version, struct gmp_baseline *b, char *err, size_t errn)
{
	static const char *const keys[] = { "numbers", "strip" };
	if ((version == 8 && !names) || (version < 8 && names))
		return gmp_bj__bad(err, errn, "a baseline of version 8 has \"nvtx_names\", and one before 8 none");
	if (!names)
		return 0;
	if (!cJSON_IsObject(names))
		return gmp_bj__bad(err, errn, "\"nvtx_names\" must be an object");
	int rc = gmp_bj__only_keys(names, keys, 2, err, errn);
	if (rc)
		return rc;
	const cJSON *num = cJSON_GetObjectItemCaseSensitive(names, "numbers"),
		    *strip = cJSON_GetObjectItemCaseSensitive(names, "strip");
	if (!cJSON_IsBool(num))
		return gmp_bj__bad(err, errn, "\"nvtx_names\" must say \"numbers\": true or false");
	if (strip && (!cJSON_IsString(strip) || !*strip->valuestring))
		return gmp_bj__bad(err, errn, "\"nvtx_names\"'s \"strip\" must be a regular expression");
	if (!cJSON_IsTrue(num) && !strip)
		return gmp_bj__bad(err, errn, "\"nvtx_names\" must say how the names were folded");
	b->nvtx_numbers = cJSON_IsTrue(num);
	if (strip && !(b->nvtx_strip = strdup(strip->valuestring)))
		return -ENOMEM;
	return 0;
}

static int has_domain(const struct gmp_baseline *b, const char *name)
{
	for (size_t i = 0; i < b->ndomains_out; i++)
		if (!strcmp(b->domains_out[i], name))
			return 1;
	return 0;
}

/* Adds name to b's domains left out unless it is there.  0 or -ENOMEM. */
static int add_domain(struct gmp_baseline *b, const char *name)
{
	if (has_domain(b, name))
		return 0;
	char **v = realloc(b->domains_out, (b->ndomains_out + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	b->domains_out = v;
	if (!(v[b->ndomains_out] = strdup(name)))
		return -ENOMEM;
	b->ndomains_out++;
	return 0;
}

int gmp_baseline__parse_domains(const cJSON *domains, uint64_t version, struct gmp_baseline *b, char *err, size_t errn)
{
	if (!domains != (version < 9))
		return gmp_bj__bad(err, errn, "a baseline of version 9, and only one, has \"nvtx_domains_left_out\"");
	if (!domains)
		return 0;
	if (!cJSON_IsArray(domains) || !cJSON_GetArraySize(domains) || cJSON_GetArraySize(domains) > GMP_NVTX_DOMAINS_MAX)
		return gmp_bj__bad(err, errn, "\"nvtx_domains_left_out\" must be an array of 1 to 264 names");
	const cJSON *d;
	cJSON_ArrayForEach(d, domains) {
		if (!cJSON_IsString(d) || !*d->valuestring)
			return gmp_bj__bad(err, errn, "\"nvtx_domains_left_out\" must hold NVTX domains' names");
		if (has_domain(b, d->valuestring))
			return gmp_bj__bad(err, errn, "\"nvtx_domains_left_out\" names a domain twice");
		int rc = add_domain(b, d->valuestring);
		if (rc)
			return rc;
	}
	return 0;
}

int gmp_baseline__add_domains(struct gmp_baseline *b, const struct gmp_trace *t)
{
	const char *names[GMP_NVTX_DOMAINS_MAX];
	size_t n = gmp_nvtx_domains__left_out_keys(t, names, GMP_NVTX_DOMAINS_MAX);
	int err = 0;
	for (size_t i = 0; i < n && !err; i++)
		err = add_domain(b, names[i]);
	return err;
}

const char *gmp_baseline__domains_differ(const struct gmp_baseline *b, const struct gmp_trace *t, char *buf, size_t n)
{
	const char *run[GMP_NVTX_DOMAINS_MAX];
	size_t nrun = gmp_nvtx_domains__left_out_keys(t, run, GMP_NVTX_DOMAINS_MAX), said = 0;
	buf[0] = 0;
	const char *const *base = (const char *const *)b->domains_out;
	gmp_nvtx_domains__only_in(run, nrun, base, b->ndomains_out, "this run only", buf, n, &said);
	gmp_nvtx_domains__only_in(base, b->ndomains_out, run, nrun, "the baseline's run only", buf, n, &said);
	return buf;
}
/* The options that fold NVTX names so, into buf ("" for none). */
static const char *folding(int numbers, const char *strip, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s%s%s%s", numbers ? "--nvtx-numbers" : "", numbers && strip ? " " : "",
		 strip ? "--nvtx-strip '" : "", strip ? strip : "", strip ? "'" : "");
	return buf;
}

int gmp_baseline__same_names(const struct gmp_baseline *b, int numbers, const char *strip, char *buf, size_t n)
{
	int names = 0;
	for (size_t i = 0; i < b->npeaks; i++)
		names |= b->peaks[i].nranges || b->peaks[i].nmarks;
	int same = !b->nvtx_numbers == !numbers && !b->nvtx_strip == !strip && (!strip || !strcmp(strip, b->nvtx_strip));
	if (!names || same)
		return 1;
	char was[300], now[300];
	folding(b->nvtx_numbers, b->nvtx_strip, was, sizeof(was));
	folding(numbers, strip, now, sizeof(now));
	if (!*was)
		snprintf(buf, n, "its run's NVTX names were not folded, and this check folds them (%s)", now);
	else if (!*now)
		snprintf(buf, n, "its run's NVTX names were folded (%s), and this check does not fold them", was);
	else
		snprintf(buf, n, "its run's NVTX names were folded by %s, and this check folds them by %s", was, now);
	return 0;
}

