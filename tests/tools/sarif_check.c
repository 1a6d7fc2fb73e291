// SPDX-License-Identifier: MIT
/*
 * sarif_check: verifies a SARIF file has what GitHub code scanning
 * requires of an upload: version 2.1.0 and $schema; runs[].tool.driver
 * with a name and rules that have a unique id and short and full
 * descriptions; and results with a ruleId among the rules (ruleIndex
 * pointing at it), a level, message.text, a location with
 * artifactLocation.uri and an integer region.startLine >= 1, a uriBaseId
 * that originalUriBaseIds defines, and partialFingerprints of strings.
 * Usage: sarif_check FILE [MIN_RESULTS]; prints one line; exit 0 or 1.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errors;

#define BAD(...)                                                  \
	do {                                                      \
		if (errors++ < 20) {                              \
			fprintf(stderr, "sarif_check: " __VA_ARGS__); \
			fputc('\n', stderr);                      \
		}                                                 \
	} while (0)

static const cJSON *get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

static int text_of(const cJSON *o, const char *k)
{
	const cJSON *x = get(get(o, k), "text");
	return cJSON_IsString(x) && x->valuestring[0];
}

static void location(const cJSON *loc, const cJSON *bases, const char *what, int i)
{
	const cJSON *pl = get(loc, "physicalLocation");
	const cJSON *uri = get(get(pl, "artifactLocation"), "uri");
	const cJSON *base = get(get(pl, "artifactLocation"), "uriBaseId");
	const cJSON *line = get(get(pl, "region"), "startLine");
	if (!cJSON_IsString(uri) || !uri->valuestring[0])
		BAD("result %d: %s without artifactLocation.uri", i, what);
	if (!cJSON_IsNumber(line) || line->valuedouble < 1 || line->valuedouble != (double)(long)line->valuedouble)
		BAD("result %d: %s without an integer region.startLine >= 1", i, what);
	if (base && (!cJSON_IsString(base) || !get(bases, base->valuestring)))
		BAD("result %d: %s uriBaseId is not in originalUriBaseIds", i, what);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: sarif_check FILE [MIN_RESULTS]\n");
		return 2;
	}
	long min_results = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
	FILE *fp = fopen(argv[1], "rb");
	if (!fp) {
		fprintf(stderr, "sarif_check: cannot open %s\n", argv[1]);
		return 2;
	}
	static char buf[64 << 20];
	size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = 0;
	cJSON *root = cJSON_Parse(buf);
	if (!root) {
		fprintf(stderr, "sarif_check: not JSON\n");
		return 1;
	}
	const cJSON *v = get(root, "version"), *schema = get(root, "$schema");
	if (!cJSON_IsString(v) || strcmp(v->valuestring, "2.1.0"))
		BAD("version is not \"2.1.0\"");
	if (!cJSON_IsString(schema) || !strstr(schema->valuestring, "sarif"))
		BAD("no $schema");
	const cJSON *runs = get(root, "runs"), *run;
	if (!cJSON_IsArray(runs) || !cJSON_GetArraySize(runs))
		BAD("no runs");
	int nresults = 0, nrules = 0;
	cJSON_ArrayForEach(run, runs) {
		const cJSON *driver = get(get(run, "tool"), "driver");
		const cJSON *name = get(driver, "name"), *rules = get(driver, "rules"), *r;
		const cJSON *bases = get(run, "originalUriBaseIds");
		if (!cJSON_IsString(name) || !name->valuestring[0])
			BAD("tool.driver.name missing");
		int k = 0;
		cJSON_ArrayForEach(r, rules) {
			const cJSON *id = get(r, "id");
			if (!cJSON_IsString(id))
				BAD("rule %d without an id", k);
			else
				for (const cJSON *q = rules->child; q != r; q = q->next)
					if (cJSON_IsString(get(q, "id")) && !strcmp(get(q, "id")->valuestring, id->valuestring))
						BAD("rule id %s is not unique", id->valuestring);
			if (!text_of(r, "shortDescription") || !text_of(r, "fullDescription"))
				BAD("rule %d without short and full descriptions", k);
			k++;
		}
		nrules += k;
		const cJSON *results = get(run, "results"), *res;
		if (!cJSON_IsArray(results))
			BAD("run without a results array");
		int i = 0;
		cJSON_ArrayForEach(res, results) {
			const cJSON *rid = get(res, "ruleId"), *ridx = get(res, "ruleIndex"), *lvl = get(res, "level");
			const cJSON *rule = NULL;
			if (!cJSON_IsString(rid))
				BAD("result %d without ruleId", i);
			else
				cJSON_ArrayForEach(rule, rules)
					if (!strcmp(get(rule, "id")->valuestring, rid->valuestring))
						break;
			if (cJSON_IsString(rid) && !rule)
				BAD("result %d: ruleId %s is not a rule", i, rid->valuestring);
			if (ridx && rule && (!cJSON_IsNumber(ridx) || cJSON_GetArrayItem(rules, ridx->valueint) != rule))
				BAD("result %d: ruleIndex does not point at its rule", i);
			if (!cJSON_IsString(lvl) || (strcmp(lvl->valuestring, "error") && strcmp(lvl->valuestring, "warning") &&
						     strcmp(lvl->valuestring, "note") && strcmp(lvl->valuestring, "none")))
				BAD("result %d: bad level", i);
			if (!text_of(res, "message"))
				BAD("result %d without message.text", i);
			const cJSON *locs = get(res, "locations"), *loc;
			if (!cJSON_IsArray(locs) || !cJSON_GetArraySize(locs))
				BAD("result %d without locations", i);
			cJSON_ArrayForEach(loc, locs)
				location(loc, bases, "location", i);
			cJSON_ArrayForEach(loc, get(res, "relatedLocations"))
				location(loc, bases, "related location", i);
			const cJSON *pf = get(res, "partialFingerprints"), *f;
			if (!cJSON_IsObject(pf) || !pf->child)
				BAD("result %d without partialFingerprints", i);
			cJSON_ArrayForEach(f, pf)
				if (!cJSON_IsString(f) || !f->valuestring[0])
					BAD("result %d: partialFingerprints.%s is not a string", i, f->string);
			i++;
		}
		nresults += i;
	}
	if (nresults < min_results)
		BAD("%d results, expected at least %ld", nresults, min_results);
	if (!errors)
		printf("sarif ok: %d rules, %d results\n", nrules, nresults);
	cJSON_Delete(root);
	return errors ? 1 : 0;
}
