// SPDX-License-Identifier: MIT
/*
 * GitHub annotations and GitLab Code Quality from a SARIF log
 * (analyzer/ci_formats.c): what is read from each result, the escapes of
 * workflow commands, GitHub's 10 of each kind (errors first), results a
 * baseline has left out, and Code Quality fingerprints that stay unique
 * and stable.
 */
#define _GNU_SOURCE
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "ci_formats.h"

/* A result of a SARIF log as gmprof writes them. */
struct res {
	const char *rule;
	int index; /* into the rules below */
	int error;
	const char *msg, *uri;
	int relative;
	unsigned line;
	const char *fp;    /* partial fingerprint value, or NULL */
	const char *state; /* baselineState, or NULL */
	const char *input; /* or NULL */
};

/* Rules 0 and 1: a pattern with problem.severity recommendation, then a leak's warning. */
static char *sarif_of(const struct res *r, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	fputs("{\"version\":\"2.1.0\",\"runs\":[{\"tool\":{\"driver\":{\"name\":\"gmprof\",\"rules\":["
	      "{\"id\":\"early_allocation\",\"properties\":{\"problem.severity\":\"recommendation\"}},"
	      "{\"id\":\"memory_leak\",\"properties\":{\"problem.severity\":\"warning\"}}]}},\"results\":[", f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s{\"ruleId\":\"%s\",\"ruleIndex\":%d,\"level\":\"%s\",\"message\":{\"text\":\"%s\"},"
			"\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":\"%s\"%s},"
			"\"region\":{\"startLine\":%u}}}]",
			i ? "," : "", r[i].rule, r[i].index, r[i].error ? "error" : "warning", r[i].msg, r[i].uri,
			r[i].relative ? ",\"uriBaseId\":\"%SRCROOT%\"" : "", r[i].line);
		if (r[i].fp)
			fprintf(f, ",\"partialFingerprints\":{\"gmprofFinding/v1\":\"%s\"}", r[i].fp);
		if (r[i].state)
			fprintf(f, ",\"baselineState\":\"%s\"", r[i].state);
		if (r[i].input)
			fprintf(f, ",\"properties\":{\"input\":\"%s\"}", r[i].input);
		fputc('}', f);
	}
	fputs("]}]}", f);
	assert_int_equal(fclose(f), 0);
	return text;
}

static void parse(const struct res *r, size_t n, struct gmp_ci_log *log)
{
	char *text = sarif_of(r, n);
	assert_int_equal(gmp_ci__parse(text, strlen(text), log), 0);
	free(text);
	assert_int_equal(log->n, n);
}

/* What fn writes to a stream, as a string (owned). */
static char *written(const struct gmp_ci_log *log, int (*fn)(const struct gmp_ci_log *, FILE *), int *rc)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	*rc = fn(log, f);
	assert_int_equal(fclose(f), 0);
	return text;
}

static char *escaped(void (*fn)(const char *, FILE *), const char *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	fn(s, f);
	assert_int_equal(fclose(f), 0);
	return text;
}

static void escapes(void **state)
{
	(void)state;
	char *d = escaped(gmp_ci__escape_data, "50%\r\nnext: a,b");
	char *p = escaped(gmp_ci__escape_property, "50%\r\nnext: a,b");
	assert_string_equal(d, "50%25%0D%0Anext: a,b");
	assert_string_equal(p, "50%25%0D%0Anext%3A a%2Cb");
	free(d);
	free(p);
	/* Whatever the string, unescaping gives it back, and nothing a command reads as syntax is left. */
	srand(7);
	for (int round = 0; round < 2000; round++) {
		char s[24];
		size_t n = (size_t)rand() % (sizeof(s) - 1);
		for (size_t i = 0; i < n; i++)
			s[i] = "%\r\n:,ab c9"[rand() % 10];
		s[n] = 0;
		char *e = escaped(gmp_ci__escape_property, s);
		if (strpbrk(e, "\r\n:,"))
			fail_msg("'%s' left syntax in '%s'", s, e);
		char back[24 * 3 + 1];
		size_t k = 0;
		for (const char *q = e; *q; q++) {
			unsigned v;
			if (*q == '%' && sscanf(q + 1, "%2X", &v) == 1) {
				back[k++] = (char)v;
				q += 2;
			} else {
				back[k++] = *q;
			}
		}
		back[k] = 0;
		if (strcmp(back, s))
			fail_msg("round %d: '%s' came back as '%s' (escaped '%s')", round, s, back, e);
		free(e);
	}
}

static void reads_results(void **state)
{
	(void)state;
	const struct res r[] = {
		{ "early_allocation", 0, 1, "early", "src/a%20b.cu", 1, 12, "00ff", NULL, NULL },
		{ "memory_leak", 1, 0, "leak", "file:///opt/lib/x%25.cu", 0, 3, NULL, "unchanged", "rank1.gmprof" },
	};
	struct gmp_ci_log log;
	parse(r, 2, &log);
	const struct gmp_ci_item *a = &log.items[0], *b = &log.items[1];
	assert_string_equal(a->rule, "early_allocation");
	assert_true(a->error);
	assert_string_equal(a->severity, "recommendation");
	assert_string_equal(a->path, "src/a b.cu");
	assert_true(a->relative);
	assert_int_equal(a->line, 12);
	assert_string_equal(a->fingerprint, "gmprofFinding/v1/00ff");
	assert_false(a->in_baseline);
	assert_null(a->input);
	assert_false(b->error);
	assert_string_equal(b->severity, "warning");
	assert_string_equal(b->path, "/opt/lib/x%.cu");
	assert_false(b->relative);
	assert_null(b->fingerprint);
	assert_true(b->in_baseline);
	assert_string_equal(b->input, "rank1.gmprof");
	gmp_ci__release(&log);
}

static void refuses_what_is_not_a_log(void **state)
{
	(void)state;
	struct gmp_ci_log log;
	const char *bad[] = { "not json", "{}", "{\"runs\":[{\"results\":{}}]}",
			      "{\"runs\":[{\"results\":[{\"ruleId\":\"x\",\"level\":\"error\"}]}]}" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(gmp_ci__parse(bad[i], strlen(bad[i]), &log), -EINVAL);
		assert_null(log.root);
		assert_null(log.items);
	}
	const char *empty = "{\"runs\":[{\"results\":[]}]}";
	assert_int_equal(gmp_ci__parse(empty, strlen(empty), &log), 0);
	assert_int_equal(log.n, 0);
	int rc;
	char *out = written(&log, gmp_ci__github, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(out, "");
	free(out);
	out = written(&log, gmp_ci__codequality, &rc);
	assert_int_equal(rc, 0);
	cJSON *j = cJSON_Parse(out);
	assert_true(cJSON_IsArray(j) && cJSON_GetArraySize(j) == 0);
	cJSON_Delete(j);
	free(out);
	gmp_ci__release(&log);
}

/* 12 warnings before 13 errors, two results the baseline has: 10 errors, then 10 warnings, then a notice. */
static void github_shows_errors_first_ten_each(void **state)
{
	(void)state;
	struct res r[27];
	char msgs[27][32], fps[27][8];
	for (int i = 0; i < 27; i++) {
		int err = i >= 12 && i < 25;
		snprintf(msgs[i], sizeof(msgs[i]), "%s %d, 50%% more", err ? "e" : "w", i);
		snprintf(fps[i], sizeof(fps[i]), "%02x", i);
		r[i] = (struct res){ err ? "early_allocation" : "memory_leak", !err, err, msgs[i], "k.cu", 1,
				     (unsigned)i + 1, fps[i], i >= 25 ? "unchanged" : "new", NULL };
	}
	r[3].uri = "file:///elsewhere/m,n.cu";
	r[3].relative = 0;
	struct gmp_ci_log log;
	parse(r, 27, &log);
	int rc;
	char *out = written(&log, gmp_ci__github, &rc);
	assert_int_equal(rc, 21);
	char *line = out;
	for (int k = 0; k < 21; k++) {
		char *nl = strchr(line, '\n');
		assert_non_null(nl);
		*nl = 0;
		char want[256];
		if (k < 10)
			snprintf(want, sizeof(want), "::error file=k.cu,line=%d,title=gmprof early_allocation::e %d, 50%%25 more",
				 13 + k, 12 + k);
		else if (k < 20 && k - 10 == 3)
			snprintf(want, sizeof(want), "::warning title=gmprof memory_leak::/elsewhere/m,n.cu:4: w 3, 50%%25 more");
		else if (k < 20)
			snprintf(want, sizeof(want), "::warning file=k.cu,line=%d,title=gmprof memory_leak::w %d, 50%%25 more",
				 k - 10 + 1, k - 10);
		else
			snprintf(want, sizeof(want), "::notice title=gmprof::Not annotated: 3 more errors and 2 more warnings "
				 "(GitHub shows 10 of each per step); 2 results the baseline has. The SARIF log (--sarif) "
				 "and gmprof report list them all.");
		if (strcmp(line, want))
			fail_msg("line %d: '%s', want '%s'", k + 1, line, want);
		line = nl + 1;
	}
	assert_string_equal(line, "");
	free(out);
	gmp_ci__release(&log);
}

static void codequality_items(void **state)
{
	(void)state;
	/* Two results share a fingerprint (two objects of one site), one has another input, one no fingerprint. */
	const struct res r[] = {
		{ "early_allocation", 0, 1, "a", "x.cu", 1, 5, "aa", NULL, NULL },
		{ "early_allocation", 0, 0, "b", "x.cu", 1, 5, "aa", NULL, NULL },
		{ "memory_leak", 1, 0, "c", "file:///abs/y.cu", 0, 9, "aa", NULL, "two.gmprof" },
		{ "memory_leak", 1, 0, "d", "y.cu", 1, 2, NULL, NULL, NULL },
	};
	struct gmp_ci_log log;
	parse(r, 4, &log);
	int rc;
	char *out = written(&log, gmp_ci__codequality, &rc), *again = written(&log, gmp_ci__codequality, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(out, again); /* stable */
	cJSON *j = cJSON_Parse(out);
	assert_true(cJSON_IsArray(j));
	assert_int_equal(cJSON_GetArraySize(j), 4);
	const char *want_sev[] = { "critical", "minor", "major", "major" };
	const char *want_desc[] = { "a", "b", "two.gmprof: c", "d" };
	const char *want_path[] = { "x.cu", "x.cu", "/abs/y.cu", "y.cu" };
	const int want_line[] = { 5, 5, 9, 2 };
	const char *fp[4];
	for (int i = 0; i < 4; i++) {
		const cJSON *o = cJSON_GetArrayItem(j, i);
		const cJSON *loc = cJSON_GetObjectItem(o, "location");
		assert_string_equal(cJSON_GetObjectItem(o, "severity")->valuestring, want_sev[i]);
		assert_string_equal(cJSON_GetObjectItem(o, "description")->valuestring, want_desc[i]);
		assert_string_equal(cJSON_GetObjectItem(o, "check_name")->valuestring, i < 2 ? "gmprof/early_allocation" : "gmprof/memory_leak");
		assert_string_equal(cJSON_GetObjectItem(loc, "path")->valuestring, want_path[i]);
		assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(loc, "lines"), "begin")->valueint, want_line[i]);
		fp[i] = cJSON_GetObjectItem(o, "fingerprint")->valuestring;
		assert_int_equal(strlen(fp[i]), 16);
		for (int k = 0; k < i; k++)
			if (!strcmp(fp[i], fp[k]))
				fail_msg("results %d and %d share the fingerprint %s", k, i, fp[i]);
	}
	cJSON_Delete(j);
	free(out);
	free(again);
	gmp_ci__release(&log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(escapes),
		cmocka_unit_test(reads_results),
		cmocka_unit_test(refuses_what_is_not_a_log),
		cmocka_unit_test(github_shows_errors_first_ten_each),
		cmocka_unit_test(codequality_items),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
