// SPDX-License-Identifier: MIT
/* Test helpers: parse scripts, run the detector, look up findings. */
#include "support.h"

#include "gmprof/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct gmp_trace *ts_script(const char *text)
{
	struct gmp_trace *t = NULL;
	struct gmp_script_error e;
	int err = gmp_script__read_mem(text, strlen(text), &t, &e);
	if (err)
		fail_msg("script rejected at line %u: %s", e.line, e.msg);
	return t;
}

struct gmp_script_error ts_script_error(const char *text)
{
	struct gmp_trace *t = NULL;
	struct gmp_script_error e;
	int err = gmp_script__read_mem(text, strlen(text), &t, &e);
	if (!err) {
		gmp_trace__free(t);
		fail_msg("script was accepted: %s", text);
	}
	assert_int_equal(err, -22 /* EINVAL */);
	return e;
}

struct gmp_trace *ts_script_file(const char *name)
{
	char path[512];
	const char *dir = getenv("GMPROF_SRC");
	snprintf(path, sizeof(path), "%s/tests/scripts/%s", dir ? dir : ".", name);
	FILE *fp = fopen(path, "r");
	if (!fp)
		fail_msg("cannot open %s", path);
	struct gmp_trace *t = NULL;
	struct gmp_script_error e;
	int err = gmp_script__read_file(fp, &t, &e);
	fclose(fp);
	if (err)
		fail_msg("%s:%u: %s", path, e.line, e.msg);
	return t;
}

struct gmp_clock *ts_clock(const struct gmp_result *r)
{
	struct gmp_clock *c = NULL;
	assert_int_equal(gmp_clock__new(r, &c), 0);
	assert_non_null(c);
	return c;
}

struct gmp_result *ts_detect(const struct gmp_trace *t, const struct gmp_detect_opts *o)
{
	struct gmp_result *r = NULL;
	struct gmp_detect_error e;
	struct gmp_detect_opts v;
	if (o)
		v = *o;
	else
		gmp_detect_opts__defaults(&v);
	v.verify_order = 1; /* every test trace also checks the levels against Kahn's */
	int err = gmp_detect(t, &v, &r, &e);
	if (err)
		fail_msg("detector failed (%d) at line %u: %s", err, e.line, e.msg);
	return r;
}

struct gmp_detect_error ts_detect_error(const struct gmp_trace *t)
{
	struct gmp_result *r = NULL;
	struct gmp_detect_error e;
	int err = gmp_detect(t, NULL, &r, &e);
	if (!err) {
		gmp_result__free(r);
		fail_msg("detector accepted an inconsistent trace");
	}
	return e;
}

static int named(const struct gmp_result *r, uint32_t obj, const char *name)
{
	char buf[160];
	return !name || strcmp(gmp_result__object_name(r, obj, buf, sizeof(buf)), name) == 0;
}

size_t ts_count(const struct gmp_result *r, unsigned pattern, const char *name)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nfindings; i++)
		if (r->findings[i].pattern == pattern && named(r, r->findings[i].object, name))
			n++;
	return n;
}

const struct gmp_finding *ts_one(const struct gmp_result *r, unsigned pattern, const char *name)
{
	const struct gmp_finding *f = NULL;
	size_t n = 0;
	for (size_t i = 0; i < r->nfindings; i++) {
		if (r->findings[i].pattern == pattern && named(r, r->findings[i].object, name)) {
			f = &r->findings[i];
			n++;
		}
	}
	if (n != 1)
		fail_msg("expected one %s finding on %s, got %zu", gmp_pattern__name(pattern),
			 name ? name : "any object", n);
	return f;
}

uint32_t ts_obj(const struct gmp_result *r, const char *name)
{
	for (size_t i = 0; i < r->nobjects; i++)
		if (named(r, (uint32_t)i, name))
			return (uint32_t)i;
	fail_msg("no object named %s", name);
	return 0;
}

char *ts_tmpfile(const char *tag)
{
	static unsigned n;
	const char *dir = getenv("TMPDIR");
	char *p = malloc(512);
	assert_non_null(p);
	snprintf(p, 512, "%s/gmprof-test-%d-%s-%u", dir ? dir : "/tmp", (int)getpid(), tag, n++);
	unlink(p);
	return p;
}

unsigned char *ts_slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	long n = ftell(fp);
	assert_true(n >= 0);
	assert_int_equal(fseek(fp, 0, SEEK_SET), 0);
	unsigned char *b = malloc((size_t)n + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	*len = (size_t)n;
	return b;
}

struct gmp_trace *ts_read_profile(const char *path)
{
	size_t len;
	unsigned char *b = ts_slurp(path, &len);
	struct gmp_trace *t = NULL;
	assert_int_equal(gmp_profile__read_mem(b, len, &t), 0);
	free(b);
	return t;
}
