// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "baseline.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "baseline_json.h"
#include "input.h"
#include "json_parse.h"

#define MAX_BASELINE (64u << 20)

static int parse_hex(const char *s, uint64_t *v)
{
	if (strlen(s) != 16)
		return -1;
	uint64_t x = 0;
	for (int i = 0; i < 16; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return -1;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* A sites array, key `array` (each {"site": string, "bytes": N, "key": hex}; a `noun` each), into *out and *n. */
static int parse_sites(const cJSON *ss, const char *array, const char *noun, struct gmp_baseline_site **out,
		       size_t *nout, char *err, size_t errn)
{
	static const char *const keys[] = { "site", "bytes", "key" };
	char msg[160];
	if (!cJSON_IsArray(ss)) {
		snprintf(msg, sizeof(msg), "\"%s\" must be an array", array);
		return gmp_bj__bad(err, errn, msg);
	}
	size_t n = (size_t)cJSON_GetArraySize(ss);
	if (!(*out = calloc(n ? n : 1, sizeof(**out))))
		return -ENOMEM;
	const cJSON *e;
	cJSON_ArrayForEach(e, ss) {
		if (!cJSON_IsObject(e)) {
			snprintf(msg, sizeof(msg), "every %s must be an object", noun);
			return gmp_bj__bad(err, errn, msg);
		}
		int rc = gmp_bj__only_keys(e, keys, 3, err, errn);
		if (rc)
			return rc;
		const cJSON *site = cJSON_GetObjectItemCaseSensitive(e, "site");
		const cJSON *key = cJSON_GetObjectItemCaseSensitive(e, "key");
		struct gmp_baseline_site *x = &(*out)[*nout];
		if (!cJSON_IsString(site) || gmp_bj__u64(e, "bytes", &x->bytes)) {
			snprintf(msg, sizeof(msg), "a %s needs a \"site\" string and \"bytes\", a non-negative integer", noun);
			return gmp_bj__bad(err, errn, msg);
		}
		if (key && (!cJSON_IsString(key) || parse_hex(key->valuestring, &x->key))) {
			snprintf(msg, sizeof(msg), "a %s's \"key\" must be 16 lower-case hex digits", noun);
			return gmp_bj__bad(err, errn, msg);
		}
		x->has_key = key != NULL;
		if (!(x->site = strdup(site->valuestring)))
			return -ENOMEM;
		++*nout;
	}
	return 0;
}

/*
 * Version 4's "range_peaks" (each {"range": string, "peak_bytes": N}) into
 * p, sorted by path; version 5's also with "times" (2 or more) and
 * "grew_bytes", where a range was entered more than once (once where not);
 * version 6's also with "kept_sites", where it grew.
 */
static int parse_ranges(const cJSON *rs, struct gmp_baseline_peak *p, uint64_t version, char *err, size_t errn)
{
	static const char *const keys[] = { "range", "peak_bytes", "times", "grew_bytes", "kept_sites" };
	if (!cJSON_IsArray(rs))
		return gmp_bj__bad(err, errn, "\"range_peaks\" must be an array");
	size_t n = (size_t)cJSON_GetArraySize(rs);
	if (!(p->ranges = calloc(n ? n : 1, sizeof(*p->ranges))))
		return -ENOMEM;
	p->growth = version >= 5;
	p->kept = version >= 6;
	const cJSON *e;
	cJSON_ArrayForEach(e, rs) {
		if (!cJSON_IsObject(e))
			return gmp_bj__bad(err, errn, "every range peak must be an object");
		int rc = gmp_bj__only_keys(e, keys, version >= 6 ? 5 : version >= 5 ? 4 : 2, err, errn);
		if (rc)
			return rc;
		const cJSON *range = cJSON_GetObjectItemCaseSensitive(e, "range");
		struct gmp_baseline_range *x = &p->ranges[p->nranges];
		if (!cJSON_IsString(range) || !*range->valuestring || gmp_bj__u64(e, "peak_bytes", &x->peak_bytes))
			return gmp_bj__bad(err, errn, "a range peak needs a \"range\" (a non-empty string) and \"peak_bytes\", "
					      "a non-negative integer");
		int has_times = cJSON_GetObjectItemCaseSensitive(e, "times") != NULL;
		if (has_times != (cJSON_GetObjectItemCaseSensitive(e, "grew_bytes") != NULL) ||
		    (has_times && (gmp_bj__u64(e, "times", &x->times) || x->times < 2 ||
				   gmp_bj__u64(e, "grew_bytes", &x->grew_bytes))))
			return gmp_bj__bad(err, errn, "a range peak's \"times\" (2 or more) and \"grew_bytes\" (a non-negative "
					      "integer) go together");
		if (!has_times)
			x->times = p->growth; /* version 5: entered once; version 4: not recorded */
		if (!(x->range = strdup(range->valuestring)))
			return -ENOMEM;
		p->nranges++;
		const cJSON *ks = cJSON_GetObjectItemCaseSensitive(e, "kept_sites");
		if (ks && !x->grew_bytes)
			return gmp_bj__bad(err, errn, "a range peak has \"kept_sites\" only where it grew (\"grew_bytes\" above 0)");
		if (ks && (rc = parse_sites(ks, "kept_sites", "kept site", &x->kept, &x->nkept, err, errn)))
			return rc;
	}
	if (gmp_baseline__sort_ranges(p, 0))
		return gmp_bj__bad(err, errn, "a range is in a peak's \"range_peaks\" twice");
	return 0;
}

static int cmp_range(const void *x, const void *y)
{
	return strcmp(((const struct gmp_baseline_range *)x)->range, ((const struct gmp_baseline_range *)y)->range);
}

int gmp_baseline__sort_ranges(struct gmp_baseline_peak *p, int merge)
{
	if (p->nranges)
		qsort(p->ranges, p->nranges, sizeof(*p->ranges), cmp_range);
	size_t u = 0;
	for (size_t k = 0; k < p->nranges; k++) {
		if (!u || cmp_range(&p->ranges[u - 1], &p->ranges[k])) {
			p->ranges[u++] = p->ranges[k];
			continue;
		}
		if (!merge)
			return -EINVAL;
		struct gmp_baseline_range *x = &p->ranges[u - 1], *y = &p->ranges[k];
		uint64_t peak = y->peak_bytes > x->peak_bytes ? y->peak_bytes : x->peak_bytes;
		uint64_t times = y->times > x->times ? y->times : x->times;
		if (y->grew_bytes > x->grew_bytes) { /* keep the one that grew more, with what it kept */
			struct gmp_baseline_range t = *x;
			*x = *y;
			*y = t;
		}
		x->peak_bytes = peak;
		x->times = times;
		gmp_baseline__range_release(y);
	}
	p->nranges = u;
	return 0;
}

const struct gmp_baseline_range *gmp_baseline__range(const struct gmp_baseline_peak *p, const char *range)
{
	struct gmp_baseline_range key = { .range = (char *)range };
	return p->nranges ? bsearch(&key, p->ranges, p->nranges, sizeof(*p->ranges), cmp_range) : NULL;
}

static int cmp_peak(const void *x, const void *y)
{
	const struct gmp_baseline_peak *p = x, *q = y;
	int c = strcmp(p->input, q->input);
	return c ? c : (p->device > q->device) - (p->device < q->device);
}

/* Version 3's and later "peaks": one per input and device, none twice; from version 4 with their ranges, 7 marks. */
static int parse_peaks(const cJSON *ps, struct gmp_baseline *b, uint64_t version, char *err, size_t errn)
{
	static const char *const keys[] = { "input", "device", "peak_bytes", "inuse_peak_bytes",
					    "pool_reserved_high_bytes", "peak_sites", "range_peaks", "mark_peaks" };
	if (!cJSON_IsArray(ps))
		return gmp_bj__bad(err, errn, "\"peaks\" must be an array");
	size_t n = (size_t)cJSON_GetArraySize(ps);
	if (!(b->peaks = calloc(n ? n : 1, sizeof(*b->peaks))))
		return -ENOMEM;
	const cJSON *e;
	cJSON_ArrayForEach(e, ps) {
		if (!cJSON_IsObject(e))
			return gmp_bj__bad(err, errn, "every peak must be an object");
		int rc = gmp_bj__only_keys(e, keys, version >= 7 ? 8 : version >= 4 ? 7 : 6, err, errn);
		if (rc)
			return rc;
		struct gmp_baseline_peak *p = &b->peaks[b->npeaks];
		if (cJSON_GetObjectItemCaseSensitive(e, "inuse_peak_bytes") &&
		    (gmp_bj__u64(e, "inuse_peak_bytes", &p->inuse_peak_bytes) || !p->inuse_peak_bytes))
			return gmp_bj__bad(err, errn, "a peak's \"inuse_peak_bytes\" must be a positive integer");
		if (cJSON_GetObjectItemCaseSensitive(e, "pool_reserved_high_bytes") &&
		    (gmp_bj__u64(e, "pool_reserved_high_bytes", &p->pool_reserved_high) || !p->pool_reserved_high))
			return gmp_bj__bad(err, errn, "a peak's \"pool_reserved_high_bytes\" must be a positive integer");
		const cJSON *in = cJSON_GetObjectItemCaseSensitive(e, "input");
		uint64_t dev;
		if (!cJSON_IsString(in) || !*in->valuestring || strchr(in->valuestring, '/'))
			return gmp_bj__bad(err, errn, "a peak's \"input\" must be a file name (no directory)");
		if (gmp_bj__u64(e, "device", &dev) || dev >= GMP_ANY_DEVICE)
			return gmp_bj__bad(err, errn, "a peak's \"device\" must be a device number");
		if (gmp_bj__u64(e, "peak_bytes", &p->peak_bytes))
			return gmp_bj__bad(err, errn, "a peak's \"peak_bytes\" must be a non-negative integer");
		p->device = (uint32_t)dev;
		if (!(p->input = strdup(in->valuestring)))
			return -ENOMEM;
		b->npeaks++;
		const cJSON *ss = cJSON_GetObjectItemCaseSensitive(e, "peak_sites");
		if (!ss)
			return gmp_bj__bad(err, errn, "a peak needs its \"peak_sites\"");
		if ((rc = parse_sites(ss, "peak_sites", "peak site", &p->sites, &p->nsites, err, errn)))
			return rc;
		const cJSON *rs = cJSON_GetObjectItemCaseSensitive(e, "range_peaks");
		if (rs && (rc = parse_ranges(rs, p, version, err, errn)))
			return rc;
		const cJSON *ms = cJSON_GetObjectItemCaseSensitive(e, "mark_peaks");
		if (ms && (rc = gmp_baseline__parse_marks(ms, p, err, errn)))
			return rc;
	}
	return 0;
}

static int parse_tree(const cJSON *root, struct gmp_baseline *b, char *err, size_t errn)
{
	static const char *const top[] = { "gmprof_baseline", "input", "peak_bytes", "leaked_bytes",
					   "findings", "peak_sites", "peaks", "fingerprints", "nvtx_names",
					   "nvtx_domains_left_out" };
	static const char *const fkeys[] = { "fingerprint", "pattern", "object", "saving_bytes" };
	if (!cJSON_IsObject(root))
		return gmp_bj__bad(err, errn, "not a JSON object");
	int rc = gmp_bj__only_keys(root, top, 10, err, errn);
	if (rc)
		return rc;
	uint64_t version;
	if (gmp_bj__u64(root, "gmprof_baseline", &version) || version < 1 || version > 9)
		return gmp_bj__bad(err, errn, "not a gmprof baseline of version 1 to 9 (\"gmprof_baseline\": 9)");
	if ((rc = gmp_baseline__parse_names(cJSON_GetObjectItemCaseSensitive(root, "nvtx_names"), version, b, err, errn)) ||
	    (rc = gmp_baseline__parse_domains(cJSON_GetObjectItemCaseSensitive(root, "nvtx_domains_left_out"), version, b,
					      err, errn)))
		return rc;
	const cJSON *sites = cJSON_GetObjectItemCaseSensitive(root, "peak_sites");
	const cJSON *peaks = cJSON_GetObjectItemCaseSensitive(root, "peaks");
	if (version == 1 && sites)
		return gmp_bj__bad(err, errn, "a baseline of version 1 has no \"peak_sites\"");
	if (version < 3 && peaks)
		return gmp_bj__bad(err, errn, "only a baseline of version 3 or later has \"peaks\"");
	if (version >= 3 && (sites || !peaks))
		return gmp_bj__bad(err, errn, "a baseline of version 3 or later has \"peaks\", and its sites in them");
	if (gmp_bj__u64(root, "peak_bytes", &b->peak_bytes))
		return gmp_bj__bad(err, errn, "\"peak_bytes\" must be a non-negative integer");
	if (version >= 3) {
		if ((rc = parse_peaks(peaks, b, version, err, errn)))
			return rc;
	} else { /* one peak, of whichever device */
		if (!(b->peaks = calloc(1, sizeof(*b->peaks))))
			return -ENOMEM;
		b->npeaks = 1;
		b->peaks[0] = (struct gmp_baseline_peak){ .device = GMP_ANY_DEVICE, .peak_bytes = b->peak_bytes };
		if (sites && (rc = parse_sites(sites, "peak_sites", "peak site", &b->peaks[0].sites, &b->peaks[0].nsites, err, errn)))
			return rc;
	}
	if (gmp_bj__u64(root, "leaked_bytes", &b->leaked_bytes))
		return gmp_bj__bad(err, errn, "\"leaked_bytes\" must be a non-negative integer");
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(root, "input");
	if (in && !cJSON_IsString(in))
		return gmp_bj__bad(err, errn, "\"input\" must be a string");
	const cJSON *fs = cJSON_GetObjectItemCaseSensitive(root, "findings");
	if (!cJSON_IsArray(fs))
		return gmp_bj__bad(err, errn, "\"findings\" must be an array");
	size_t n = (size_t)cJSON_GetArraySize(fs);
	/* Fingerprints of the scheme gmprof makes (sites.c: lines ranked, files by name); none: an earlier one. */
	const cJSON *scheme = cJSON_GetObjectItemCaseSensitive(root, "fingerprints");
	if (scheme && !(cJSON_IsNumber(scheme) && scheme->valuedouble == GMP_FINGERPRINTS))
		return gmp_bj__bad(err, errn, "\"fingerprints\" must be 2");
	if (!scheme && n)
		return gmp_bj__bad(err, errn, "its findings' fingerprints were made by an earlier gmprof, which this one makes "
				      "otherwise: write it again with gmprof baseline");
	b->fingerprints = malloc((n ? n : 1) * sizeof(uint64_t));
	if (!b->fingerprints)
		return -ENOMEM;
	const cJSON *f;
	size_t i = 0;
	cJSON_ArrayForEach(f, fs) {
		if (!cJSON_IsObject(f))
			return gmp_bj__bad(err, errn, "every finding must be an object");
		if ((rc = gmp_bj__only_keys(f, fkeys, 4, err, errn)))
			return rc;
		const cJSON *fp = cJSON_GetObjectItemCaseSensitive(f, "fingerprint");
		if (!cJSON_IsString(fp) || parse_hex(fp->valuestring, &b->fingerprints[i]))
			return gmp_bj__bad(err, errn, "a finding's \"fingerprint\" must be 16 lower-case hex digits");
		const cJSON *pat = cJSON_GetObjectItemCaseSensitive(f, "pattern");
		if (pat && (!cJSON_IsString(pat) || gmp_pattern__parse(pat->valuestring) < 0))
			return gmp_bj__bad(err, errn, "a finding's \"pattern\" must name a pattern");
		const cJSON *obj = cJSON_GetObjectItemCaseSensitive(f, "object");
		if (obj && !cJSON_IsString(obj))
			return gmp_bj__bad(err, errn, "a finding's \"object\" must be a string");
		uint64_t saving;
		if (cJSON_GetObjectItemCaseSensitive(f, "saving_bytes") && gmp_bj__u64(f, "saving_bytes", &saving))
			return gmp_bj__bad(err, errn, "a finding's \"saving_bytes\" must be a non-negative integer");
		i++;
	}
	b->nfingerprints = n;
	if (gmp_baseline__index(b))
		return gmp_bj__bad(err, errn, "two peaks of one input and device");
	return 0;
}

int gmp_baseline__index(struct gmp_baseline *b)
{
	qsort(b->fingerprints, b->nfingerprints, sizeof(uint64_t), cmp_u64);
	size_t u = 0;
	for (size_t k = 0; k < b->nfingerprints; k++)
		if (!u || b->fingerprints[u - 1] != b->fingerprints[k])
			b->fingerprints[u++] = b->fingerprints[k];
	b->nfingerprints = u;
	b->ninputs = 0;
	if (b->npeaks == 1 && !b->peaks[0].input)
		return 0; /* versions 1 and 2: one peak, of any input and device */
	/* In (input, device) order, for the checks' binary search; none twice. */
	qsort(b->peaks, b->npeaks, sizeof(*b->peaks), cmp_peak);
	for (size_t k = 0; k < b->npeaks; k++) {
		if (k && !cmp_peak(&b->peaks[k - 1], &b->peaks[k]))
			return -EINVAL;
		b->ninputs += !k || strcmp(b->peaks[k - 1].input, b->peaks[k].input) != 0;
	}
	return 0;
}

int gmp_baseline__sniff(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		gmp_input__perror(path, "cannot open baseline", errno);
		return -1;
	}
	char head[4096];
	size_t n = fread(head, 1, sizeof(head), fp);
	int rerr = ferror(fp);
	fclose(fp);
	if (rerr) {
		fprintf(stderr, "gmprof: cannot read baseline '%s': read error\n", path);
		return -1;
	}
	return memmem(head, n, "\"gmprof_baseline\"", 17) != NULL;
}

int gmp_baseline__parse(const char *text, size_t len, struct gmp_baseline *b, char *err,
			size_t errn)
{
	memset(b, 0, sizeof(*b));
	snprintf(err, errn, "?");
	int oom;
	cJSON *root = gmp_json__parse(text, len, NULL, &oom);
	if (!root && oom) {
		snprintf(err, errn, "out of memory");
		return -ENOMEM;
	}
	if (!root)
		return gmp_bj__bad(err, errn, "not valid JSON");
	int rc = parse_tree(root, b, err, errn);
	cJSON_Delete(root);
	if (rc)
		gmp_baseline__release(b);
	return rc;
}

int gmp_baseline__load(const char *path, struct gmp_baseline *b)
{
	memset(b, 0, sizeof(*b));
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		gmp_input__perror(path, "cannot open baseline", errno);
		return -1;
	}
	char *buf = malloc(MAX_BASELINE + 1);
	size_t n = buf ? fread(buf, 1, MAX_BASELINE + 1, fp) : 0;
	int rerr = ferror(fp);
	fclose(fp);
	if (!buf || rerr || n > MAX_BASELINE) {
		fprintf(stderr, "gmprof: cannot read baseline '%s': %s\n", path,
			!buf ? "out of memory" : rerr ? "read error" : "larger than 64 MiB");
		free(buf);
		return -1;
	}
	char err[160];
	int rc = gmp_baseline__parse(buf, n, b, err, sizeof(err));
	free(buf);
	if (rc) {
		fprintf(stderr, "gmprof: bad baseline '%s': %s\n", path, rc == -ENOMEM ? "out of memory" : err);
		return -1;
	}
	return 0;
}

void gmp_baseline__release(struct gmp_baseline *b)
{
	for (size_t i = 0; i < b->npeaks; i++) {
		for (size_t k = 0; k < b->peaks[i].nsites; k++)
			free(b->peaks[i].sites[k].site);
		free(b->peaks[i].sites);
		for (size_t k = 0; k < b->peaks[i].nranges; k++)
			gmp_baseline__range_release(&b->peaks[i].ranges[k]);
		free(b->peaks[i].ranges);
		for (size_t k = 0; k < b->peaks[i].nmarks; k++)
			free(b->peaks[i].marks[k].mark);
		free(b->peaks[i].marks);
		free(b->peaks[i].input);
	}
	free(b->peaks);
	free(b->fingerprints);
	free(b->nvtx_strip);
	for (size_t i = 0; i < b->ndomains_out; i++)
		free(b->domains_out[i]);
	free(b->domains_out);
	memset(b, 0, sizeof(*b));
}

int gmp_baseline__has(const struct gmp_baseline *b, uint64_t fp)
{
	return bsearch(&fp, b->fingerprints, b->nfingerprints, sizeof(uint64_t), cmp_u64) != NULL;
}

const char *gmp_baseline__input_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The bytes of the sites (of n) that are site: by key where they have one, else by name. */
static uint64_t sites_bytes(const struct gmp_baseline_site *s, size_t n, const char *site, uint64_t key)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		if (s[i].has_key ? s[i].key == key : !strcmp(s[i].site, site))
			sum += s[i].bytes;
	return sum;
}

uint64_t gmp_baseline__site_bytes(const struct gmp_baseline_peak *p, const char *site, uint64_t key)
{
	return sites_bytes(p->sites, p->nsites, site, key);
}

uint64_t gmp_baseline__kept_bytes(const struct gmp_baseline_range *br, const char *site, uint64_t key)
{
	return sites_bytes(br->kept, br->nkept, site, key);
}

void gmp_baseline__range_release(struct gmp_baseline_range *br)
{
	for (size_t i = 0; i < br->nkept; i++)
		free(br->kept[i].site);
	free(br->kept);
	free(br->range);
	memset(br, 0, sizeof(*br));
}

uint64_t gmp_baseline__allowed(uint64_t peak, double pct, uint64_t abs)
{
	uint64_t rel = (uint64_t)((double)peak * pct / 100.0);
	return peak + (rel > abs ? rel : abs);
}

int gmp_baseline__compare(const struct gmp_baseline *b, const struct gmp_result *r, const char *input,
			  size_t ninputs, double pct, uint64_t abs, struct gmp_peak_cmp **v, size_t *n)
{
	int any = b->npeaks == 1 && b->peaks[0].device == GMP_ANY_DEVICE;
	size_t m = any ? 1 : r->ndevices;
	*n = 0;
	if (!(*v = calloc(m ? m : 1, sizeof(**v))))
		return -ENOMEM;
	if (any) {
		const struct gmp_baseline_peak *p = &b->peaks[0];
		(*v)[(*n)++] = (struct gmp_peak_cmp){ .device = GMP_ANY_DEVICE, .now = r->peak_bytes, .base = p,
						      .allowed = gmp_baseline__allowed(p->peak_bytes, pct, abs) };
		return 0;
	}
	const char *name = gmp_baseline__input_name(input);
	int by_device = ninputs == 1 && b->ninputs == 1;
	if (by_device)
		name = b->peaks[0].input; /* one against one: whatever the names */
	for (size_t i = 0; i < r->ndevices; i++) {
		struct gmp_peak_cmp *c = &(*v)[(*n)++];
		*c = (struct gmp_peak_cmp){ .device = r->devices[i].device, .now = r->devices[i].peak_bytes,
					    .by_device = by_device };
		struct gmp_baseline_peak key = { .input = (char *)name, .device = c->device };
		c->base = bsearch(&key, b->peaks, b->npeaks, sizeof(*b->peaks), cmp_peak);
		if (c->base)
			c->allowed = gmp_baseline__allowed(c->base->peak_bytes, pct, abs);
		if (c->base && c->base->inuse_peak_bytes) {
			c->inuse = 1;
			c->inuse_now = gmp_device__in_use_peak(&r->devices[i]);
			c->inuse_allowed = gmp_baseline__allowed(c->base->inuse_peak_bytes, pct, abs);
		}
		if (c->base && c->base->pool_reserved_high) {
			c->pools = 1;
			c->pools_now = gmp_trace__pool_high(r->trace, c->device);
			c->pools_allowed = gmp_baseline__allowed(c->base->pool_reserved_high, pct, abs);
		}
	}
	return 0;
}

int gmp_peak_cmp__failed(const struct gmp_peak_cmp *c)
{
	return !c->base || c->now > c->allowed;
}

int gmp_peak_cmp__inuse_failed(const struct gmp_peak_cmp *c)
{
	return c->inuse && c->inuse_now > c->inuse_allowed;
}

int gmp_peak_cmp__pools_failed(const struct gmp_peak_cmp *c)
{
	return c->pools && c->pools_now > c->pools_allowed;
}

int gmp_leak__counted(const struct gmp_result *r, const struct gmp_finding *f)
{
	if (f->pattern != GMP_PAT_MEMORY_LEAK)
		return 0;
	const struct gmp_object *o = &r->objects[f->object];
	return o->kind != GMP_MEM_POOL_REGION || o->parent == GMP_NO_OBJECT ||
	       r->objects[o->parent].free_ev != GMP_NO_EVENT;
}

uint64_t gmp_leaked_bytes(const struct gmp_result *r)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < r->nfindings; i++)
		if (gmp_leak__counted(r, &r->findings[i]))
			sum += r->objects[r->findings[i].object].size;
	return sum;
}
