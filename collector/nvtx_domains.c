// SPDX-License-Identifier: MIT
/*
 * NVTX domains (nvtxDomainCreateA/W): a library scopes its ranges and
 * marks in a domain of its own (NCCL's collectives, a RAPIDS library's
 * calls), and each domain keeps its own stack of pushed ranges on every
 * thread: a pop in one domain ends that domain's innermost range, not the
 * thread's (nvtx_ranges.c keeps the domain of each).  The collector is
 * the tool, so the handles are its own: a pointer to an entry of this
 * table, never changed or freed while the process runs (a domain
 * destroyed and made again gets its entry back), so a push reads it
 * without a lock.  NULL is the default domain (nvtxRangePushA and the
 * others without one).
 *
 * GMPROF_NVTX_DOMAIN_INCLUDE and GMPROF_NVTX_DOMAIN_EXCLUDE (comma lists
 * of names, spaces around each ignored, "default" the default domain; one
 * of them at most) say whose ranges and marks the profile gets: those of
 * a domain left out are not recorded at all, which, with a stack of its
 * own, changes no other domain's.  At exit the profile says which domains
 * made ranges or marks, and which were left out (META nvtx.domain.K.*:
 * nvtx_domains_meta), and a line names those of a list no domain had.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "collector.h"
#include "nvtx_abi.h"

#define MAX_DOMAINS 256
#define DOMAIN_MAGIC 0x676d70646f6d6e00ull /* "gmpdomn": an entry of this table */

struct domain {
	uint64_t magic;
	int recorded;               /* its ranges and marks go to the profile */
	uint64_t ranges, marks;     /* pushed or begun, and marked (atomic) */
	char name[GMP_NVTX_NAME_MAX];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct domain *table[MAX_DOMAINS]; /* owned: every entry, until the process ends; in creation order */
static size_t count;                      /* entries (written under lock, read atomically) */
int nvtx_default_recorded = 1;            /* atomic: set once, by nvtx_domains_init (collector.h) */
static int warned_full;

/* The next name of a comma-separated list at *p, spaces around it left out, into [*a, *b); 0 at the list's end. */
static int next_name(const char **p, const char **a, const char **b)
{
	if (!**p)
		return 0;
	const char *e = strchr(*p, ',');
	const char *end = e ? e : *p + strlen(*p);
	*a = *p;
	*b = end;
	while (*a < *b && **a == ' ')
		(*a)++;
	while (*b > *a && (*b)[-1] == ' ')
		(*b)--;
	*p = e ? e + 1 : end;
	return 1;
}

/* Whether name is one of list's comma-separated names. */
static int listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *a, *b;
	for (const char *p = list; next_name(&p, &a, &b);)
		if ((size_t)(b - a) == n && !memcmp(a, name, n))
			return 1;
	return 0;
}

/* Whether the domain of this name ("default" for the default one) is recorded, as the options say. */
static int chosen(const char *name)
{
	const struct gmp_opts *o = &gmp_col.opts;
	if (o->nvtx_domain_include[0])
		return listed(o->nvtx_domain_include, name);
	return !listed(o->nvtx_domain_exclude, name);
}

void nvtx_domains_init(void)
{
	__atomic_store_n(&nvtx_default_recorded, chosen("default"), __ATOMIC_RELAXED);
}

/* The entry of name (clean UTF-8), made where there is none; NULL when the table is full or out of memory. */
static void *create(const char *name)
{
	struct domain *d = NULL;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < count && !d; i++)
		if (!strcmp(table[i]->name, name))
			d = table[i];
	if (!d && count < MAX_DOMAINS && (d = calloc(1, sizeof(*d)))) {
		d->magic = DOMAIN_MAGIC;
		d->recorded = chosen(name);
		snprintf(d->name, sizeof(d->name), "%s", name);
		table[count] = d;
		__atomic_store_n(&count, count + 1, __ATOMIC_RELEASE);
	}
	int full = !d && count >= MAX_DOMAINS && !warned_full++;
	pthread_mutex_unlock(&lock);
	if (full)
		rec_say("more than %d NVTX domains made: the later ones' ranges and marks are the default domain's",
			MAX_DOMAINS);
	return d;
}

void *nvtx_domain_create_a(const char *name)
{
	char buf[GMP_NVTX_NAME_MAX];
	const char *n = name ? nvtx_name(GMP_NVTX_MESSAGE_ASCII, name, buf, sizeof(buf)) : NULL;
	return create(n && *n ? n : "(unnamed)");
}

void *nvtx_domain_create_w(const wchar_t *name)
{
	char buf[GMP_NVTX_NAME_MAX];
	const char *n = name ? nvtx_name(GMP_NVTX_MESSAGE_UNICODE, name, buf, sizeof(buf)) : NULL;
	return create(n && *n ? n : "(unnamed)");
}

void nvtx_domain_destroy(void *domain)
{
	(void)domain; /* kept: its ranges may still be open, and its name is made again the same */
}

/* The entry a handle stands for, or NULL (the default domain, or a handle the collector did not make). */
static struct domain *entry(const void *handle)
{
	struct domain *d = (struct domain *)handle;
	return d && d->magic == DOMAIN_MAGIC ? d : NULL;
}

int nvtx_domain_recorded(const void *handle)
{
	const struct domain *d = entry(handle);
	return d ? d->recorded : __atomic_load_n(&nvtx_default_recorded, __ATOMIC_RELAXED);
}

size_t nvtx_domain_prefix(const void *handle, char *buf, size_t n)
{
	const struct domain *d = entry(handle);
	size_t len = d ? strlen(d->name) : 0;
	buf[0] = 0;
	if (!len || n < 3)
		return 0;
	if (len > n - 2) { /* room for the colon and the NUL: cut at a character's start */
		len = n - 2;
		while (len && ((unsigned char)d->name[len] & 0xc0) == 0x80)
			len--;
	}
	memcpy(buf, d->name, len);
	buf[len] = ':';
	buf[len + 1] = 0;
	return len + 1;
}

void nvtx_domain_count(const void *handle, int mark)
{
	struct domain *d = entry(handle);
	if (d) /* the default domain's are in the profile, or all left out: not counted (no shared counter per push) */
		__atomic_add_fetch(mark ? &d->marks : &d->ranges, 1, __ATOMIC_RELAXED);
}

/*
 * At exit: the names of the option's list (var) that no domain the program
 * made has, said in one line with those it made: a name mistyped leaves
 * nothing out (or, in an include list, everything).
 */
static void unmade(const char *var, const char *list, size_t n)
{
	char missing[512] = "", made[512] = "";
	const char *a, *b;
	for (const char *p = list; next_name(&p, &a, &b);) {
		size_t k = (size_t)(b - a), i = 0;
		while (i < n && (strlen(table[i]->name) != k || memcmp(table[i]->name, a, k)))
			i++;
		if (!k || (k == 7 && !memcmp(a, "default", 7)) || i < n)
			continue;
		size_t len = strlen(missing); /* what does not fit is cut */
		snprintf(missing + len, sizeof(missing) - len, "%s'%.*s'", len ? ", " : "", (int)k, a);
	}
	if (!*missing)
		return;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(made);
		snprintf(made + len, sizeof(made) - len, "%s%s", i ? ", " : "", table[i]->name);
	}
	rec_say("%s names %s, but the program made no NVTX domain of that name (%s%s)", var, missing,
		n ? "it made " : "it made none", made);
}

void nvtx_domains_meta(void)
{
	size_t n = __atomic_load_n(&count, __ATOMIC_ACQUIRE), k = 0;
	char key[64], v[32];
	unmade("GMPROF_NVTX_DOMAIN_INCLUDE", gmp_col.opts.nvtx_domain_include, n);
	unmade("GMPROF_NVTX_DOMAIN_EXCLUDE", gmp_col.opts.nvtx_domain_exclude, n);
	if (!__atomic_load_n(&nvtx_default_recorded, __ATOMIC_RELAXED))
		rec_meta("nvtx.default.left_out", "1");
	for (size_t i = 0; i < n; i++) {
		const struct domain *d = table[i];
		uint64_t r = __atomic_load_n(&d->ranges, __ATOMIC_RELAXED), m = __atomic_load_n(&d->marks, __ATOMIC_RELAXED);
		if (!r && !m)
			continue; /* made, never used: nothing of it in the profile, nothing to leave out */
		snprintf(key, sizeof(key), "nvtx.domain.%zu.name", k);
		rec_meta(key, d->name);
		snprintf(key, sizeof(key), "nvtx.domain.%zu.ranges", k);
		snprintf(v, sizeof(v), "%" PRIu64, r);
		rec_meta(key, v);
		snprintf(key, sizeof(key), "nvtx.domain.%zu.marks", k);
		snprintf(v, sizeof(v), "%" PRIu64, m);
		rec_meta(key, v);
		if (!d->recorded) {
			snprintf(key, sizeof(key), "nvtx.domain.%zu.left_out", k);
			rec_meta(key, "1");
		}
		k++;
	}
}

void nvtx_domains_in_child(void)
{
	pthread_mutex_init(&lock, NULL);
}
