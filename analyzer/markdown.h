/* SPDX-License-Identifier: MIT */
/*
 * Markdown (GitHub's: CommonMark with tables) for CI pages: a job summary
 * ($GITHUB_STEP_SUMMARY), a comment on a pull request.  Text from a
 * profile (object labels, source paths, C++ names with '<' and '|') is
 * written so that it reads as itself and never as markup.
 */
#ifndef GMPROF_MARKDOWN_H
#define GMPROF_MARKDOWN_H

#include <stdio.h>

/*
 * s as an inline code span on one line ("-" when empty or NULL); cell: it
 * goes in a table cell, where '|' is escaped (out of tables a reader would
 * show the backslash: code spans take no escapes).
 */
void gmp_md__code(FILE *fp, const char *s, int cell);
/* s as plain text, safe in a table cell and a heading: markup characters escaped, on one line. */
void gmp_md__text(FILE *fp, const char *s);
/* s as a fenced code block (its fence longer than any run of backticks in s), then a blank line. */
void gmp_md__block(FILE *fp, const char *s);

#endif
