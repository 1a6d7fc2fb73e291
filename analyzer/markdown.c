// SPDX-License-Identifier: MIT
/* Markdown text, code spans and code blocks from any string (markdown.h). */
#include <string.h>

#include "markdown.h"

/* The longest run of backticks in s. */
static size_t longest_ticks(const char *s)
{
	size_t most = 0, run = 0;
	for (; *s; s++) {
		run = *s == '`' ? run + 1 : 0;
		most = run > most ? run : most;
	}
	return most;
}

static void ticks(FILE *fp, size_t n)
{
	while (n--)
		fputc('`', fp);
}

static int is_control(char c)
{
	return (unsigned char)c < 0x20 || c == 0x7f;
}

void gmp_md__code(FILE *fp, const char *s, int cell)
{
	size_t n = s ? strlen(s) : 0, spaces = 0;
	if (!n) {
		fputc('-', fp);
		return;
	}
	for (size_t i = 0; i < n; i++)
		spaces += s[i] == ' ' || is_control(s[i]);
	size_t fence = longest_ticks(s) + 1;
	/*
	 * A reader strips one space off each end of a span that has one at
	 * both (unless it is all spaces): a span that starts or ends with a
	 * backtick or a space gets a space of padding at each end.
	 */
	int edge = s[0] == '`' || s[0] == ' ' || is_control(s[0]) || s[n - 1] == '`' || s[n - 1] == ' ' ||
		   is_control(s[n - 1]);
	int pad = edge && spaces < n;
	ticks(fp, fence);
	if (pad)
		fputc(' ', fp);
	for (; *s; s++) {
		if (*s == '|' && cell)
			fputs("\\|", fp); /* a table splits its cells before it reads code spans */
		else
			fputc(is_control(*s) ? ' ' : *s, fp);
	}
	if (pad)
		fputc(' ', fp);
	ticks(fp, fence);
}

void gmp_md__text(FILE *fp, const char *s)
{
	for (; s && *s; s++) {
		if (is_control(*s))
			fputc(' ', fp);
		else if (strchr("\\`*_[]<|~&", *s))
			fprintf(fp, "\\%c", *s); /* any ASCII punctuation may be escaped so */
		else
			fputc(*s, fp);
	}
}

void gmp_md__block(FILE *fp, const char *s)
{
	size_t fence = longest_ticks(s ? s : "") + 1;
	fence = fence < 3 ? 3 : fence;
	ticks(fp, fence);
	fputs("text\n", fp);
	char last = '\n';
	for (; s && *s; s++)
		fputc(last = is_control(*s) && *s != '\n' && *s != '\t' ? ' ' : *s, fp);
	if (last != '\n')
		fputc('\n', fp);
	ticks(fp, fence);
	fputs("\n\n", fp);
}
