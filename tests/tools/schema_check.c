// SPDX-License-Identifier: MIT
/*
 * schema_check: validates JSON documents against one of gmprof's JSON
 * Schemas (docs/schema/), with the subset of JSON Schema 2020-12 that
 * those use: type, properties, required, additionalProperties, items,
 * enum, const, minimum, maximum, pattern (POSIX extended), allOf, anyOf,
 * oneOf, if/then and local $ref ("#/$defs/NAME"); annotations ($schema, $id,
 * $comment, title, description) are read past.  Any other keyword is a
 * schema error, so a schema cannot lean on a rule this tool does not
 * check.
 *
 * With --all-seen, every property a schema declares must have been
 * present in at least one document: a schema that documents a field the
 * program no longer writes, or that the test corpus never reaches, fails.
 *
 * Usage: schema_check [--all-seen] SCHEMA DOC...
 * Prints one line per problem; exit 0 valid, 1 invalid, 2 bad usage or schema.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cJSON *root;      /* the schema */
static int errors, schema_bad;
static int quiet;              /* > 0: trying a branch (anyOf, oneOf, if): no output, nothing seen */
static const char *doc_name;

/* Every property schema met, and whether a document had it. */
struct prop {
	const cJSON *schema; /* the "properties" object holding it */
	const char *key;
	char *where;         /* its place in the schema, as a JSON pointer */
	int seen;
};
static struct prop *props;
static size_t nprops, capprops;

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n);
	if (!q) {
		fprintf(stderr, "schema_check: out of memory\n");
		exit(2);
	}
	return q;
}

static void bad_schema(const char *path, const char *why)
{
	if (!schema_bad++)
		fprintf(stderr, "schema_check: schema: %s at %s\n", why, path);
}

static void fail(const char *path, const char *fmt, const char *arg)
{
	errors++;
	if (quiet || errors > 20)
		return;
	fprintf(stderr, "schema_check: %s: %s: ", doc_name, *path ? path : "(top)");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
}

static struct prop *prop_of(const cJSON *properties, const char *key)
{
	for (size_t i = 0; i < nprops; i++)
		if (props[i].schema == properties && !strcmp(props[i].key, key))
			return &props[i];
	return NULL; /* under "if": a condition, not a declaration */
}

static void add_prop(const cJSON *properties, const char *key, const char *where)
{
	if (nprops == capprops) {
		capprops = capprops ? 2 * capprops : 256;
		props = xrealloc(props, capprops * sizeof(*props));
	}
	size_t n = strlen(where) + strlen(key) + 2;
	char *w = xrealloc(NULL, n);
	snprintf(w, n, "%s/%s", where, key);
	props[nprops++] = (struct prop){ properties, key, w, 0 };
}

static const cJSON *get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

static const cJSON *resolve(const char *ref)
{
	if (strncmp(ref, "#/$defs/", 8)) {
		bad_schema(ref, "only local references #/$defs/NAME are supported");
		return NULL;
	}
	const cJSON *d = get(get(root, "$defs"), ref + 8);
	if (!d)
		bad_schema(ref, "a reference to no definition");
	return d;
}

static int type_is(const cJSON *x, const char *t)
{
	if (!strcmp(t, "object"))
		return cJSON_IsObject(x);
	if (!strcmp(t, "array"))
		return cJSON_IsArray(x);
	if (!strcmp(t, "string"))
		return cJSON_IsString(x);
	if (!strcmp(t, "number"))
		return cJSON_IsNumber(x);
	if (!strcmp(t, "integer"))
		return cJSON_IsNumber(x) && x->valuedouble == floor(x->valuedouble);
	if (!strcmp(t, "boolean"))
		return cJSON_IsBool(x);
	if (!strcmp(t, "null"))
		return cJSON_IsNull(x);
	bad_schema(t, "an unknown type");
	return 0;
}

static int equal(const cJSON *a, const cJSON *b)
{
	return cJSON_Compare(a, b, 1);
}

static void validate(const cJSON *x, const cJSON *s, const char *path);

/* Validates x against s silently: how many problems it has (0: it holds). */
static int problems(const cJSON *x, const cJSON *s, const char *path)
{
	int e = errors;
	quiet++;
	validate(x, s, path);
	quiet--;
	int n = errors - e;
	errors = e;
	return n;
}

static int holds(const cJSON *x, const cJSON *s, const char *path)
{
	return !problems(x, s, path);
}

static void child_path(char *buf, size_t n, const char *path, const char *key, int index)
{
	if (key)
		snprintf(buf, n, "%s.%s", path, key);
	else
		snprintf(buf, n, "%s[%d]", path, index);
}

static void object_rules(const cJSON *x, const cJSON *s, const char *path)
{
	const cJSON *props_s = get(s, "properties"), *addl = get(s, "additionalProperties");
	const cJSON *req = get(s, "required"), *k;
	char sub[1024];
	cJSON_ArrayForEach(k, req)
		if (cJSON_IsString(k) && !get(x, k->valuestring))
			fail(path, "lacks the required \"%s\"", k->valuestring);
	const cJSON *m;
	cJSON_ArrayForEach(m, x) {
		child_path(sub, sizeof(sub), path, m->string, 0);
		const cJSON *ps = props_s ? get(props_s, m->string) : NULL;
		if (ps) {
			struct prop *pr = quiet ? NULL : prop_of(props_s, m->string);
			if (pr)
				pr->seen = 1;
			validate(m, ps, sub);
		} else if (cJSON_IsFalse(addl)) {
			fail(path, "has \"%s\", which the schema does not describe", m->string);
		} else if (cJSON_IsObject(addl)) {
			validate(m, addl, sub);
		}
	}
}

static void number_rules(const cJSON *x, const cJSON *s, const char *path)
{
	const cJSON *min = get(s, "minimum"), *max = get(s, "maximum");
	char v[64];
	snprintf(v, sizeof(v), "%.17g", x->valuedouble);
	if (cJSON_IsNumber(min) && x->valuedouble < min->valuedouble)
		fail(path, "%s is below the minimum", v);
	if (cJSON_IsNumber(max) && x->valuedouble > max->valuedouble)
		fail(path, "%s is above the maximum", v);
}

/* An array's "minItems" and "uniqueItems". */
static void array_rules(const cJSON *x, const cJSON *s, const char *path)
{
	const cJSON *min = get(s, "minItems"), *uniq = get(s, "uniqueItems");
	int n = cJSON_GetArraySize(x);
	char msg[128];
	if (cJSON_IsNumber(min) && n < min->valuedouble) {
		snprintf(msg, sizeof(msg), "has %d items, fewer than minItems", n);
		fail(path, "%s", msg);
	}
	if (!cJSON_IsTrue(uniq))
		return;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (equal(cJSON_GetArrayItem(x, i), cJSON_GetArrayItem(x, j))) {
				snprintf(msg, sizeof(msg), "has items %d and %d alike, and uniqueItems", i, j);
				fail(path, "%s", msg);
			}
}

/* Each "pattern" of the schema, compiled once. */
static struct compiled {
	const cJSON *node;
	regex_t re;
} *regexes;
static size_t nregexes;

static void string_rules(const cJSON *x, const cJSON *s, const char *path)
{
	const cJSON *pat = get(s, "pattern");
	if (!cJSON_IsString(pat))
		return;
	size_t i = 0;
	while (i < nregexes && regexes[i].node != pat)
		i++;
	if (i == nregexes) {
		regexes = xrealloc(regexes, (nregexes + 1) * sizeof(*regexes));
		if (regcomp(&regexes[i].re, pat->valuestring, REG_EXTENDED | REG_NOSUB)) {
			bad_schema(pat->valuestring, "a pattern POSIX regcomp does not take");
			return;
		}
		regexes[nregexes++].node = pat;
	}
	if (regexec(&regexes[i].re, x->valuestring, 0, NULL, 0))
		fail(path, "\"%s\" does not match the pattern", x->valuestring);
}

static void check_keywords(const cJSON *s, const char *path)
{
	static const char *const known[] = {
		"$schema", "$id", "$comment", "title", "description", "$defs", "$ref", "type",
		"properties", "required", "additionalProperties", "items", "enum", "const",
		"minimum", "maximum", "pattern", "allOf", "anyOf", "oneOf", "if", "then",
		"minItems", "uniqueItems",
	};
	const cJSON *k;
	cJSON_ArrayForEach(k, s) {
		size_t i = 0;
		while (i < sizeof(known) / sizeof(*known) && strcmp(k->string, known[i]))
			i++;
		if (i == sizeof(known) / sizeof(*known)) {
			char msg[256];
			snprintf(msg, sizeof(msg), "unsupported keyword \"%s\"", k->string);
			bad_schema(path, msg);
		}
	}
}

static void validate(const cJSON *x, const cJSON *s, const char *path)
{
	if (cJSON_IsTrue(s))
		return;
	if (!cJSON_IsObject(s)) {
		bad_schema(path, "a schema that is neither an object nor true");
		return;
	}
	check_keywords(s, path);
	const cJSON *ref = get(s, "$ref");
	if (cJSON_IsString(ref)) {
		static int depth; /* a reference that leads back to itself never ends */
		const cJSON *d = resolve(ref->valuestring);
		if (d && depth > 64)
			bad_schema(ref->valuestring, "references nested more than 64 deep");
		else if (d) {
			depth++;
			validate(x, d, path);
			depth--;
		}
	}
	const cJSON *type = get(s, "type");
	if (type) {
		int ok = 0;
		if (cJSON_IsString(type)) {
			ok = type_is(x, type->valuestring);
		} else {
			const cJSON *t;
			cJSON_ArrayForEach(t, type)
				ok |= cJSON_IsString(t) && type_is(x, t->valuestring);
		}
		if (!ok) {
			char *txt = cJSON_PrintUnformatted(type);
			fail(path, "is not of type %s", txt ? txt : "?");
			free(txt);
			if (quiet) /* a branch of another type is the farthest, not the closest */
				errors += 1000;
			return;
		}
	}
	const cJSON *en = get(s, "enum"), *c = get(s, "const"), *e;
	if (en) {
		int ok = 0;
		cJSON_ArrayForEach(e, en)
			ok |= equal(x, e);
		if (!ok)
			fail(path, "%s", "is none of the values the enum allows");
	}
	if (c && !equal(x, c))
		fail(path, "%s", "is not the const the schema gives");
	if (cJSON_IsObject(x))
		object_rules(x, s, path);
	if (cJSON_IsArray(x))
		array_rules(x, s, path);
	if (cJSON_IsArray(x) && get(s, "items")) {
		char sub[1024];
		int i = 0;
		cJSON_ArrayForEach(e, x) {
			child_path(sub, sizeof(sub), path, NULL, i++);
			validate(e, get(s, "items"), sub);
		}
	}
	if (cJSON_IsNumber(x))
		number_rules(x, s, path);
	if (cJSON_IsString(x))
		string_rules(x, s, path);
	cJSON_ArrayForEach(e, get(s, "allOf"))
		validate(x, e, path);
	const cJSON *any = get(s, "anyOf"), *one = get(s, "oneOf");
	if (any || one) {
		const cJSON *list = any ? any : one;
		int n = 0, least = -1;
		const cJSON *first = NULL, *closest = NULL;
		cJSON_ArrayForEach(e, list) {
			int k = problems(x, e, path);
			if (!k && !n++)
				first = e;
			if (k && (least < 0 || k < least)) {
				least = k;
				closest = e;
			}
		}
		if (one && n > 1)
			fail(path, "%s", "matches more than one of oneOf");
		else if (n)
			validate(x, first, path); /* again, to record what it saw */
		else {
			fail(path, "%s", "matches none of anyOf/oneOf; the closest says:");
			validate(x, closest, path);
		}
	}
	const cJSON *iff = get(s, "if"), *then = get(s, "then");
	if (iff && then && holds(x, iff, path))
		validate(x, then, path);
}

static cJSON *load(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		fprintf(stderr, "schema_check: cannot open '%s'\n", path);
		return NULL;
	}
	char *buf = NULL;
	size_t len = 0, cap = 0, k;
	do {
		if (cap - len < 65536)
			buf = xrealloc(buf, cap = 2 * cap + 65536);
		k = fread(buf + len, 1, cap - len - 1, fp);
		len += k;
	} while (k > 0);
	int err = ferror(fp);
	fclose(fp);
	buf[len] = '\0';
	cJSON *j = err ? NULL : cJSON_Parse(buf);
	free(buf);
	if (!j)
		fprintf(stderr, "schema_check: '%s' is not valid JSON\n", path);
	return j;
}

/*
 * Every property declared in s (at the JSON pointer where), registered so
 * that --all-seen can name the unseen; those under "if" are conditions.
 */
static void declare(const cJSON *s, const char *where)
{
	if (!cJSON_IsObject(s) && !cJSON_IsArray(s))
		return;
	const cJSON *p = cJSON_IsObject(s) ? get(s, "properties") : NULL, *k;
	char sub[1024];
	cJSON_ArrayForEach(k, p) {
		snprintf(sub, sizeof(sub), "%s/properties", where);
		add_prop(p, k->string, sub);
	}
	int i = 0;
	cJSON_ArrayForEach(k, s) {
		if (k->string && !strcmp(k->string, "if"))
			continue;
		if (k->string)
			snprintf(sub, sizeof(sub), "%s/%s", where, k->string);
		else
			snprintf(sub, sizeof(sub), "%s/%d", where, i);
		i++;
		declare(k, sub);
	}
}

static void release(void)
{
	for (size_t i = 0; i < nprops; i++)
		free(props[i].where);
	free(props);
	for (size_t i = 0; i < nregexes; i++)
		regfree(&regexes[i].re);
	free(regexes);
}

int main(int argc, char **argv)
{
	int all_seen = 0, a = 1;
	if (a < argc && !strcmp(argv[a], "--all-seen")) {
		all_seen = 1;
		a++;
	}
	if (argc - a < 2) {
		fprintf(stderr, "usage: schema_check [--all-seen] SCHEMA DOC...\n");
		return 2;
	}
	cJSON *schema = load(argv[a]);
	if (!schema)
		return 2;
	root = schema;
	declare(schema, "#");
	int invalid = 0, rc = 0;
	for (int i = a + 1; i < argc && !schema_bad; i++) {
		cJSON *doc = load(argv[i]);
		if (!doc) {
			rc = 2;
			continue;
		}
		doc_name = argv[i];
		errors = 0;
		validate(doc, schema, "");
		invalid += errors > 0;
		cJSON_Delete(doc);
	}
	if (schema_bad) {
		release();
		cJSON_Delete(schema);
		return 2;
	}
	size_t unseen = 0;
	for (size_t i = 0; i < nprops && all_seen && !rc; i++)
		if (!props[i].seen && ++unseen)
			fprintf(stderr, "schema_check: no document had %s (%s)\n", props[i].where, argv[a]);
	if (!rc && (invalid || unseen))
		rc = 1;
	printf("schema_check: %s: %d document(s), %d invalid, %zu properties declared, %zu never seen%s\n",
	       argv[a], argc - a - 1, invalid, nprops, unseen, all_seen ? "" : " (not required)");
	release();
	cJSON_Delete(schema);
	return rc;
}
