// SPDX-License-Identifier: MIT
/*
 * gmprof check's reports beside its lines: JUnit XML (a test suite per
 * input, a test case per check) and Markdown (a table of the checks per
 * input, the findings behind each under a fold), for $GITHUB_STEP_SUMMARY
 * or a comment on a pull request.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cmds.h"
#include "markdown.h"

size_t gmp_gate__failures(const struct gmp_gate *g)
{
	size_t n = 0;
	for (size_t i = 0; i < g->n; i++)
		n += g->checks[i].failed != 0;
	return n;
}

/* A copy of the first line of the check's detail (NULL: out of memory); *rest: the lines after it, or NULL. */
static char *first_line(const struct gmp_check *c, const char **rest)
{
	const char *d = c->detail ? c->detail : "", *nl = strchr(d, '\n');
	*rest = nl ? nl + 1 : NULL;
	return strndup(d, nl ? (size_t)(nl - d) : strlen(d));
}

static int junit_suite(FILE *fp, const struct gmp_gate *g)
{
	fprintf(fp, "  <testsuite name=\"gmprof check: ");
	gmp_text__markup(fp, g->name);
	fprintf(fp, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\" time=\"0\">\n", g->n,
		gmp_gate__failures(g));
	for (size_t i = 0; i < g->n; i++) {
		const struct gmp_check *c = &g->checks[i];
		fprintf(fp, "    <testcase classname=\"gmprof.check\" name=\"");
		gmp_text__markup(fp, c->name);
		fprintf(fp, "\" time=\"0\"");
		if (!c->failed) {
			fprintf(fp, ">\n      <system-out>");
			gmp_text__markup(fp, c->detail);
			fprintf(fp, "</system-out>\n    </testcase>\n");
			continue;
		}
		const char *rest;
		char *first = first_line(c, &rest);
		if (!first)
			return -ENOMEM;
		fprintf(fp, ">\n      <failure type=\"gmprof\" message=\"");
		gmp_text__markup(fp, first);
		free(first);
		fprintf(fp, "\">");
		gmp_text__markup(fp, c->detail);
		fprintf(fp, "</failure>\n    </testcase>\n");
	}
	fprintf(fp, "  </testsuite>\n");
	return 0;
}

int gmp_gates__junit(FILE *fp, void *ctx)
{
	const struct gmp_gates *a = ctx;
	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(fp, "<testsuites name=\"gmprof check\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n", a->checks,
		a->failed);
	for (size_t i = 0; i < a->n; i++) {
		int err = junit_suite(fp, &a->v[i]);
		if (err)
			return err;
	}
	fprintf(fp, "</testsuites>\n");
	return ferror(fp) ? -EIO : 0;
}

/* "FAIL, 2 of 9 checks failed" or "PASS, 9 checks". */
static void md_verdict(FILE *fp, size_t checks, size_t failed)
{
	if (failed)
		fprintf(fp, "FAIL, %zu of %zu check%s failed", failed, checks, checks == 1 ? "" : "s");
	else
		fprintf(fp, "PASS, %zu check%s", checks, checks == 1 ? "" : "s");
}

/*
 * A gate's table: a row per check with the first line of its detail; then,
 * folded, the lines below it (the findings, where the peak grew) of each
 * check that has some.
 */
static int md_gate(FILE *fp, const struct gmp_gate *g)
{
	fprintf(fp, "| result | check | detail |\n|---|---|---|\n");
	for (size_t i = 0; i < g->n; i++) {
		const struct gmp_check *c = &g->checks[i];
		const char *rest;
		char *first = first_line(c, &rest);
		if (!first)
			return -ENOMEM;
		fprintf(fp, "| %s | ", c->failed ? "**FAIL**" : "PASS");
		gmp_md__code(fp, c->name, 1);
		fputs(" | ", fp);
		gmp_md__text(fp, first);
		fputs(" |\n", fp);
		free(first);
	}
	fputc('\n', fp);
	for (size_t i = 0; i < g->n; i++) {
		const struct gmp_check *c = &g->checks[i];
		if (!c->detail || !strchr(c->detail, '\n'))
			continue; /* one line: the table said it all */
		const char *rest;
		char *first = first_line(c, &rest);
		if (!first)
			return -ENOMEM;
		fprintf(fp, "<details%s><summary>%s ", c->failed ? " open" : "", c->failed ? "FAIL" : "PASS");
		gmp_text__markup(fp, c->name);
		fputs(": ", fp);
		gmp_text__markup(fp, first);
		fputs("</summary>\n\n", fp);
		gmp_md__block(fp, rest);
		fputs("</details>\n\n", fp);
		free(first);
	}
	return 0;
}

int gmp_gates__markdown(FILE *fp, void *ctx)
{
	const struct gmp_gates *a = ctx;
	fputs("## gmprof check: ", fp);
	md_verdict(fp, a->checks, a->failed);
	if (a->n > 1)
		fprintf(fp, " in %zu inputs", a->n);
	fputs("\n\n", fp);
	for (size_t i = 0; i < a->n; i++) {
		const struct gmp_gate *g = &a->v[i];
		fputs(a->n > 1 ? "### " : "Input: ", fp);
		gmp_md__code(fp, g->name, 0);
		if (a->n > 1) {
			fputs(": ", fp);
			md_verdict(fp, g->n, gmp_gate__failures(g));
		}
		fputs("\n\n", fp);
		int err = md_gate(fp, g);
		if (err)
			return err;
	}
	return ferror(fp) ? -EIO : 0;
}
