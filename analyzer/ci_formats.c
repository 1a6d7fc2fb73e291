// SPDX-License-Identifier: MIT
/*
 * GitHub Actions annotations and GitLab Code Quality, from the SARIF log
 * gmprof check writes (ci_formats.h).  Reading the log back, instead of
 * walking the findings a second time, keeps one place (sarif.c) that
 * decides which results there are, where they point and what they say.
 */
#include "ci_formats.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jw.h"

static const char *str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A URI's path, percent-decoded (NULL when out of memory). */
static char *decode(const char *p)
{
	char *out = malloc(strlen(p) + 1), *o = out;
	if (!out)
		return NULL;
	for (; *p; p++) {
		int h, l;
		if (*p == '%' && (h = hexval(p[1])) >= 0 && (l = hexval(p[2])) >= 0) {
			*o++ = (char)(h << 4 | l);
			p += 2;
		} else {
			*o++ = *p;
		}
	}
	*o = 0;
	return out;
}

/* The rule's problem.severity, by the result's ruleIndex. */
static const char *severity_of(const cJSON *rules, const cJSON *res)
{
	const cJSON *ix = cJSON_GetObjectItemCaseSensitive(res, "ruleIndex");
	if (!cJSON_IsNumber(ix) || ix->valuedouble < 0)
		return NULL;
	const cJSON *rule = cJSON_GetArrayItem(rules, (int)ix->valuedouble);
	return str_of(cJSON_GetObjectItemCaseSensitive(rule, "properties"), "problem.severity");
}

/* One result into it: 0, -EINVAL (not as gmprof writes them) or -ENOMEM. */
static int item_of(const cJSON *rules, const cJSON *res, struct gmp_ci_item *it)
{
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(res, "message");
	const cJSON *loc = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(res, "locations"), 0);
	const cJSON *phys = cJSON_GetObjectItemCaseSensitive(loc, "physicalLocation");
	const cJSON *art = cJSON_GetObjectItemCaseSensitive(phys, "artifactLocation");
	const cJSON *line = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(phys, "region"), "startLine");
	const char *uri = str_of(art, "uri"), *level = str_of(res, "level");
	it->rule = str_of(res, "ruleId");
	it->message = str_of(msg, "text");
	if (!it->rule || !it->message || !uri || !level || !cJSON_IsNumber(line))
		return -EINVAL;
	it->error = !strcmp(level, "error");
	it->severity = severity_of(rules, res);
	it->line = line->valuedouble >= 1 ? (unsigned long)line->valuedouble : 1;
	it->relative = str_of(art, "uriBaseId") != NULL;
	if (!it->relative && strncmp(uri, "file://", 7) == 0)
		uri += 7;
	if (!(it->path = decode(uri)))
		return -ENOMEM;
	const cJSON *fps = cJSON_GetObjectItemCaseSensitive(res, "partialFingerprints");
	const cJSON *fp = fps ? fps->child : NULL;
	if (cJSON_IsString(fp) && fp->string) {
		size_t n = strlen(fp->string) + strlen(fp->valuestring) + 2;
		if (!(it->fingerprint = malloc(n)))
			return -ENOMEM;
		snprintf(it->fingerprint, n, "%s/%s", fp->string, fp->valuestring);
	}
	const char *state = str_of(res, "baselineState");
	it->in_baseline = state && !strcmp(state, "unchanged");
	it->input = str_of(cJSON_GetObjectItemCaseSensitive(res, "properties"), "input");
	return 0;
}

void gmp_ci__release(struct gmp_ci_log *log)
{
	for (size_t i = 0; i < log->n; i++) {
		free(log->items[i].path);
		free(log->items[i].fingerprint);
	}
	free(log->items);
	cJSON_Delete(log->root);
	*log = (struct gmp_ci_log){ 0 };
}

int gmp_ci__parse(const char *text, size_t n, struct gmp_ci_log *log)
{
	*log = (struct gmp_ci_log){ 0 };
	cJSON *root = cJSON_ParseWithLength(text, n);
	if (!root)
		return -EINVAL; /* cJSON says no more: malformed, or out of memory */
	log->root = root;
	const cJSON *run = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "runs"), 0);
	const cJSON *results = cJSON_GetObjectItemCaseSensitive(run, "results");
	const cJSON *driver = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(run, "tool"), "driver");
	const cJSON *rules = cJSON_GetObjectItemCaseSensitive(driver, "rules");
	if (!cJSON_IsArray(results)) {
		gmp_ci__release(log);
		return -EINVAL;
	}
	size_t count = (size_t)cJSON_GetArraySize(results);
	if (count && !(log->items = calloc(count, sizeof(*log->items)))) {
		gmp_ci__release(log);
		return -ENOMEM;
	}
	const cJSON *res;
	cJSON_ArrayForEach(res, results) {
		int err = item_of(rules, res, &log->items[log->n]);
		log->n++; /* released whole, even half filled */
		if (err) {
			gmp_ci__release(log);
			return err;
		}
	}
	return 0;
}

static void escape(const char *s, FILE *out, int property)
{
	for (; *s; s++) {
		if (*s == '%')
			fputs("%25", out);
		else if (*s == '\r')
			fputs("%0D", out);
		else if (*s == '\n')
			fputs("%0A", out);
		else if (property && *s == ':')
			fputs("%3A", out);
		else if (property && *s == ',')
			fputs("%2C", out);
		else
			fputc(*s, out);
	}
}

void gmp_ci__escape_data(const char *s, FILE *out)
{
	escape(s, out, 0);
}

void gmp_ci__escape_property(const char *s, FILE *out)
{
	escape(s, out, 1);
}

static void annotate(const struct gmp_ci_item *it, FILE *out)
{
	fprintf(out, "::%s ", it->error ? "error" : "warning");
	if (it->relative) {
		fputs("file=", out);
		gmp_ci__escape_property(it->path, out);
		fprintf(out, ",line=%lu,", it->line);
	}
	fputs("title=gmprof ", out);
	gmp_ci__escape_property(it->rule, out);
	fputs("::", out);
	if (it->input) {
		gmp_ci__escape_data(it->input, out);
		fputs(": ", out);
	}
	if (!it->relative) { /* outside the repository: GitHub cannot place it, so the message says where */
		gmp_ci__escape_data(it->path, out);
		fprintf(out, ":%lu: ", it->line);
	}
	gmp_ci__escape_data(it->message, out);
	fputc('\n', out);
}

int gmp_ci__github(const struct gmp_ci_log *log, FILE *out)
{
	size_t shown[2] = { 0, 0 }, over[2] = { 0, 0 }, known = 0;
	int lines = 0;
	for (int pass = 1; pass >= 0; pass--) /* errors first: GitHub keeps the first it is given */
		for (size_t i = 0; i < log->n; i++) {
			const struct gmp_ci_item *it = &log->items[i];
			if (it->error != pass)
				continue;
			if (it->in_baseline) {
				known++;
				continue;
			}
			if (shown[pass] == GMP_CI_ANNOTATIONS_PER_KIND) {
				over[pass]++;
				continue;
			}
			annotate(it, out);
			shown[pass]++;
			lines++;
		}
	if (over[0] || over[1] || known) {
		fprintf(out, "::notice title=gmprof::Not annotated:");
		const char *sep = " ";
		if (over[1] || over[0]) {
			fprintf(out, "%s%zu more error%s and %zu more warning%s (GitHub shows %d of each per step)", sep,
				over[1], over[1] == 1 ? "" : "s", over[0], over[0] == 1 ? "" : "s",
				GMP_CI_ANNOTATIONS_PER_KIND);
			sep = "; ";
		}
		if (known)
			fprintf(out, "%s%zu result%s the baseline has", sep, known, known == 1 ? "" : "s");
		fputs(". The SARIF log (--sarif) and gmprof report list them all.\n", out);
		lines++;
	}
	return fflush(out) || ferror(out) ? -EIO : lines;
}

/* 64-bit FNV-1a, as 16 hex digits: a fingerprint GitLab can store as it stores its own. */
static void hash_hex(const char *s, unsigned k, char out[17])
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	for (; k; k >>= 8) /* the occurrence, for results that share a fingerprint */
		h = (h ^ (k & 0xff)) * 0x100000001b3ull;
	snprintf(out, 17, "%016" PRIx64, h);
}

/* What a result is told apart by: its fingerprint (or rule, place and message) and input. */
static char *identity(const struct gmp_ci_item *it)
{
	const char *a = it->fingerprint ? it->fingerprint : it->rule, *b = it->fingerprint ? "" : it->path;
	const char *c = it->fingerprint ? "" : it->message, *in = it->input ? it->input : "";
	size_t n = strlen(a) + strlen(b) + strlen(c) + strlen(in) + 8;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s|%s|%s|%s|%lu", a, b, c, in, it->fingerprint ? 0ul : it->line);
	return s;
}

struct ident {
	char *s;
	size_t i;
};

static int by_ident(const void *x, const void *y)
{
	const struct ident *a = x, *b = y;
	int c = strcmp(a->s, b->s);
	return c ? c : (a->i > b->i) - (a->i < b->i);
}

static const char *gitlab_severity(const struct gmp_ci_item *it)
{
	if (it->error)
		return "critical";
	if (it->severity && (!strcmp(it->severity, "warning") || !strcmp(it->severity, "error")))
		return "major";
	return "minor";
}

static void codequality_item(struct gmp_jw *jw, const struct gmp_ci_item *it, const char *id, unsigned occ,
			     char *desc, size_t ndesc)
{
	char fp[17], name[160];
	hash_hex(id, occ, fp);
	snprintf(name, sizeof(name), "gmprof/%s", it->rule);
	gmp_jw__obj(jw);
	if (it->input) {
		snprintf(desc, ndesc, "%s: %s", it->input, it->message);
		gmp_jw__kstr(jw, "description", desc);
	} else {
		gmp_jw__kstr(jw, "description", it->message);
	}
	gmp_jw__kstr(jw, "check_name", name);
	gmp_jw__kstr(jw, "fingerprint", fp);
	gmp_jw__kstr(jw, "severity", gitlab_severity(it));
	gmp_jw__key(jw, "location");
	gmp_jw__obj(jw);
	gmp_jw__kstr(jw, "path", it->path);
	gmp_jw__key(jw, "lines");
	gmp_jw__obj(jw);
	gmp_jw__ku64(jw, "begin", it->line);
	gmp_jw__obj_end(jw);
	gmp_jw__obj_end(jw);
	gmp_jw__obj_end(jw);
}

int gmp_ci__codequality(const struct gmp_ci_log *log, FILE *out)
{
	size_t n = log->n ? log->n : 1;
	struct ident *ids = calloc(n, sizeof(*ids));
	char **idof = calloc(n, sizeof(*idof)); /* each result's identity, in the log's order */
	unsigned *occ = calloc(n, sizeof(*occ));
	char *desc = malloc(8192);
	int err = ids && idof && occ && desc ? 0 : -ENOMEM;
	for (size_t i = 0; !err && i < log->n; i++) {
		ids[i] = (struct ident){ idof[i] = identity(&log->items[i]), i };
		if (!idof[i])
			err = -ENOMEM;
	}
	if (!err) {
		/* The k-th result of one identity gets occurrence k: fingerprints unique within the report. */
		qsort(ids, log->n, sizeof(*ids), by_ident);
		for (size_t k = 1; k < log->n; k++)
			if (!strcmp(ids[k].s, ids[k - 1].s))
				occ[ids[k].i] = occ[ids[k - 1].i] + 1;
		struct gmp_jw jw;
		gmp_jw__init(&jw, out, 1);
		gmp_jw__arr(&jw);
		for (size_t i = 0; i < log->n; i++)
			codequality_item(&jw, &log->items[i], idof[i], occ[i], desc, 8192);
		gmp_jw__arr_end(&jw);
		gmp_jw__raw(&jw, "\n", 1);
		err = gmp_jw__finish(&jw);
	}
	for (size_t i = 0; idof && i < log->n; i++)
		free(idof[i]);
	free(ids);
	free(idof);
	free(occ);
	free(desc);
	return err;
}
