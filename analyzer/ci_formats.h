/* SPDX-License-Identifier: MIT */
/*
 * `gmprof check`'s results for CI systems that do not read SARIF: GitHub
 * Actions annotations (workflow commands on standard output) and a GitLab
 * Code Quality report.  Both are made from the SARIF log check writes, so
 * that every CI format says the same: one result per SARIF result, at its
 * location, with its level, message and fingerprint.
 */
#ifndef GMPROF_CI_FORMATS_H
#define GMPROF_CI_FORMATS_H

#include <stddef.h>
#include <stdio.h>

/* Annotations GitHub shows per step and kind (error, warning, notice); past them it drops them. */
#define GMP_CI_ANNOTATIONS_PER_KIND 10

/* A SARIF log as gmp_sarif__* wrote it, parsed: its results, in order. */
struct gmp_ci_item {
	const char *rule;        /* ruleId */
	int error;               /* level "error": what fails the gate */
	const char *severity;    /* the rule's problem.severity: error, warning, recommendation */
	const char *message;
	char *path;              /* owned: relative to the source root when relative, else absolute */
	int relative;
	unsigned long line;      /* >= 1 */
	char *fingerprint;       /* owned: "KEY/VALUE" of its first partial fingerprint, or NULL */
	int in_baseline;         /* baselineState "unchanged" */
	const char *input;       /* which input (several inputs), or NULL */
};

struct gmp_ci_log {
	void *root;              /* the parsed log (cJSON), which the strings point into */
	struct gmp_ci_item *items;
	size_t n;
};

/* Parses text (n bytes).  0, -EINVAL when it is not a SARIF log of results, or -ENOMEM. */
int gmp_ci__parse(const char *text, size_t n, struct gmp_ci_log *log);
void gmp_ci__release(struct gmp_ci_log *log);

/*
 * GitHub Actions workflow commands: an ::error or ::warning line per
 * result, errors first, with a file and line where the path is relative
 * (to the source root, which for GitHub must be the repository's: the
 * default, the current directory, is the workspace), at most
 * GMP_CI_ANNOTATIONS_PER_KIND of each; results a baseline has are left
 * out (the gate does not fail on them); one ::notice line says how many
 * were left out and why.  Returns the lines written, or -EIO.
 */
int gmp_ci__github(const struct gmp_ci_log *log, FILE *out);

/*
 * A GitLab Code Quality report (a JSON array; artifacts:reports:codequality):
 * every result, with its description, check_name ("gmprof/RULE"),
 * fingerprint (unique within the report), severity (critical where it fails
 * the gate, major for leaks, minor otherwise) and location.  0, -EIO or -ENOMEM.
 */
int gmp_ci__codequality(const struct gmp_ci_log *log, FILE *out);

/* The escapes a workflow command's data (message) and its properties (file, title) need. */
void gmp_ci__escape_data(const char *s, FILE *out);
void gmp_ci__escape_property(const char *s, FILE *out);

#endif
