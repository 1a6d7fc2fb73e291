// SPDX-License-Identifier: MIT
/*
 * Markdown from any string (analyzer/markdown.c): a code span stays on one
 * line, in one table cell, and reads back as its text; plain text leaves
 * no markup character unescaped; a code block's fence is never closed by
 * what it holds.  Fixed cases, then random strings of the characters that
 * matter against the reading back done here.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "markdown.h"
#include "support.h"

static void code_cell(FILE *fp, const char *s)
{
	gmp_md__code(fp, s, 1);
}

static void code_line(FILE *fp, const char *s)
{
	gmp_md__code(fp, s, 0);
}

static char *written(void (*fn)(FILE *, const char *), const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	fn(fp, s);
	assert_int_equal(fclose(fp), 0);
	return buf;
}

static void fixed_cases(void **state)
{
	(void)state;
	static const struct {
		void (*fn)(FILE *, const char *);
		const char *in, *out;
	} cases[] = {
		{ code_cell, "d_data_in1", "`d_data_in1`" },
		{ code_cell, "", "-" },
		{ code_cell, NULL, "-" },
		{ code_cell, "a|b", "`a\\|b`" },
		{ code_line, "a|b", "`a|b`" },
		{ code_cell, "a`b", "``a`b``" },
		{ code_cell, "`x", "`` `x ``" },
		{ code_cell, "x``", "``` x`` ```" },
		{ code_cell, " x", "`  x `" },
		{ code_cell, "  ", "`  `" },
		{ code_cell, "two\nlines", "`two lines`" },
		{ code_cell, "\tx\n", "`  x  `" },
		{ code_cell, "std::vector<int>", "`std::vector<int>`" },
		{ gmp_md__text, "16.0 MiB > 1.0 MiB", "16.0 MiB > 1.0 MiB" },
		{ gmp_md__text, "a_b*c*", "a\\_b\\*c\\*" },
		{ gmp_md__text, "<i>[x](y)|&`", "\\<i>\\[x\\](y)\\|\\&\\`" },
		{ gmp_md__text, "back\\slash", "back\\\\slash" },
		{ gmp_md__block, "one\ntwo", "```text\none\ntwo\n```\n\n" },
		{ gmp_md__block, "```\nx\n", "````text\n```\nx\n````\n\n" },
		{ gmp_md__block, "", "```text\n```\n\n" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = written(cases[i].fn, cases[i].in);
		if (strcmp(got, cases[i].out))
			fail_msg("case %zu: '%s' gave '%s', want '%s'", i, cases[i].in ? cases[i].in : "(null)", got,
				 cases[i].out);
		free(got);
	}
}

/* The text a reader takes from a code span: the fence and one padding space off each end, "\|" as "|". */
static char *read_code(const char *md)
{
	size_t n = strlen(md), fence = 0;
	while (md[fence] == '`')
		fence++;
	assert_true(fence > 0 && n >= 2 * fence);
	for (size_t k = 0; k < fence; k++)
		assert_int_equal(md[n - 1 - k], '`');
	assert_true(n == 2 * fence || md[n - fence - 1] != '`'); /* the closing run is the fence, no longer */
	const char *b = md + fence, *e = md + n - fence;
	if (e - b >= 2 && b[0] == ' ' && e[-1] == ' ' && strspn(b, " ") < (size_t)(e - b))
		b++, e--; /* a span of spaces only keeps them all */
	char *out = calloc((size_t)(e - b) + 1, 1), *o = out;
	assert_non_null(out);
	for (const char *p = b; p < e; p++) {
		if (p[0] == '\\' && p + 1 < e && p[1] == '|')
			p++;
		*o++ = *p;
	}
	return out;
}

static size_t longest_run(const char *s, char c)
{
	size_t most = 0, run = 0;
	for (; *s; s++) {
		run = *s == c ? run + 1 : 0;
		most = run > most ? run : most;
	}
	return most;
}

static void random_strings(void **state)
{
	(void)state;
	static const char alphabet[] = "ab `|<>*_\\&[]\n\t~";
	uint64_t seed = 0x3a4d;
	for (int round = 0; round < 5000; round++) {
		char s[24];
		size_t len = 1 + ts_rnd(&seed) % (sizeof(s) - 1);
		for (size_t i = 0; i < len; i++)
			s[i] = alphabet[ts_rnd(&seed) % (sizeof(alphabet) - 1)];
		s[len] = 0;
		char want[24]; /* a span holds one line: controls read as spaces */
		for (size_t i = 0; i <= len; i++)
			want[i] = s[i] && (unsigned char)s[i] < 0x20 ? ' ' : s[i];

		char *code = written(code_cell, s);
		assert_null(strchr(code, '\n'));
		char *back = read_code(code);
		if (strcmp(back, want))
			fail_msg("round %d: code span of '%s' is '%s', read back as '%s'", round, s, code, back);
		free(back);
		size_t fence = strspn(code, "`");
		if (fence <= longest_run(s, '`'))
			fail_msg("round %d: '%s' gave the fence of '%s'", round, s, code);
		for (const char *p = code; *p; p++) /* every '|' escaped: no second cell */
			if (*p == '|' && (p == code || p[-1] != '\\'))
				fail_msg("round %d: '%s' gave a bare '|' in '%s'", round, s, code);
		free(code);

		char *text = written(gmp_md__text, s), *t = text;
		assert_null(strchr(text, '\n'));
		for (size_t i = 0; *t; t++, i++) {
			if (strchr("\\`*_[]<|~&", *t)) {
				if (*t != '\\' || !t[1] || !strchr("\\`*_[]<|~&", t[1]))
					fail_msg("round %d: '%s' gave an unescaped '%c' in '%s'", round, s, *t, text);
				t++;
			}
			if (*t != want[i])
				fail_msg("round %d: '%s' gave '%s'", round, s, text);
		}
		free(text);

		char *block = written(gmp_md__block, s);
		size_t bf = strspn(block, "`");
		assert_true(bf >= 3 && bf > longest_run(s, '`'));
		char *close = block + strlen(block) - 2 - bf; /* the closing fence, then "\n\n" */
		assert_true(close > block && close[-1] == '\n');
		for (char *line = strchr(block, '\n') + 1; line < close; line = strchr(line, '\n') + 1)
			if (strspn(line, "`") >= bf)
				fail_msg("round %d: a line of '%s' closes the block: '%s'", round, s, block);
		free(block);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fixed_cases),
		cmocka_unit_test(random_strings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
