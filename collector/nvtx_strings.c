// SPDX-License-Identifier: MIT
/*
 * NVTX's registered strings (nvtxDomainRegisterStringA/W): a program
 * registers a name once and passes the handle the tool gave it in place of
 * the name (NVTX3_FUNC_RANGE and nvtx3::registered_string do so for every
 * range; RAPIDS libraries name all theirs that way).  The collector is the
 * tool, so the handle is its own: a pointer to an entry of this table that
 * holds the name as clean UTF-8 and is never changed or freed while the
 * process runs, so a push reads it without a lock.  Registrations take a
 * lock; the same name (in any domain) gets the same entry; past
 * MAX_STRINGS entries a registration gets no handle (NULL, which names
 * "(unnamed)"), said once.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "collector.h"
#include "nvtx_abi.h"

#define MAX_STRINGS 65536
#define BUCKETS 4096
#define STRING_MAGIC 0x676d7072737472ull /* "gmprstr": an entry of this table */

struct entry {
	uint64_t magic;
	struct entry *next;         /* in its bucket */
	char name[GMP_NVTX_NAME_MAX];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry *bucket[BUCKETS]; /* owned: every entry, until the process ends */
static size_t count;
static int warned_full;

static size_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)(h % BUCKETS);
}

/* The entry of name (clean UTF-8), made where there is none; NULL when the table is full or out of memory. */
static void *intern(const char *name)
{
	size_t b = hash(name);
	struct entry *e;
	pthread_mutex_lock(&lock);
	for (e = bucket[b]; e && strcmp(e->name, name); e = e->next)
		;
	if (!e && count < MAX_STRINGS && (e = calloc(1, sizeof(*e)))) {
		e->magic = STRING_MAGIC;
		snprintf(e->name, sizeof(e->name), "%s", name);
		e->next = bucket[b];
		bucket[b] = e;
		count++;
	}
	int full = !e && count >= MAX_STRINGS && !warned_full++;
	pthread_mutex_unlock(&lock);
	if (full)
		rec_say("more than %d distinct NVTX strings registered: later ones name \"(unnamed)\"", MAX_STRINGS);
	return e;
}

void *nvtx_register_a(const void *domain, const char *s)
{
	(void)domain; /* names are the same in every domain */
	char buf[GMP_NVTX_NAME_MAX];
	return s && nvtx_name(GMP_NVTX_MESSAGE_ASCII, s, buf, sizeof(buf)) ? intern(buf) : NULL;
}

void *nvtx_register_w(const void *domain, const wchar_t *s)
{
	(void)domain;
	char buf[GMP_NVTX_NAME_MAX];
	return s && nvtx_name(GMP_NVTX_MESSAGE_UNICODE, s, buf, sizeof(buf)) ? intern(buf) : NULL;
}

const char *nvtx_registered(const void *handle)
{
	const struct entry *e = handle;
	return e && e->magic == STRING_MAGIC ? e->name : NULL;
}

void nvtx_strings_in_child(void)
{
	pthread_mutex_init(&lock, NULL);
}
