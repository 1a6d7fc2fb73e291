// SPDX-License-Identifier: MIT
/*
 * Interning string table: an open-addressing hash index over an array of
 * owned strings.  Ids are array positions plus one.
 */
#include "strtab.h"

#include <stdlib.h>
#include <string.h>

struct entry {
	char *s;
	size_t len;
	uint64_t hash;
};

struct gmp_strtab {
	struct entry *e;
	size_t n, cap;
	uint32_t *slots; /* 0 empty, else id */
	size_t nslots;   /* power of two */
};

static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h ^ (h >> 29);
}

struct gmp_strtab *gmp_strtab__new(void)
{
	struct gmp_strtab *st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->nslots = 64;
	st->slots = calloc(st->nslots, sizeof(*st->slots));
	if (!st->slots) {
		free(st);
		return NULL;
	}
	return st;
}

void gmp_strtab__free(struct gmp_strtab *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->n; i++)
		free(st->e[i].s);
	free(st->e);
	free(st->slots);
	free(st);
}

static size_t probe(const struct gmp_strtab *st, const char *s, size_t len,
		    uint64_t h, uint32_t *found)
{
	size_t mask = st->nslots - 1;
	size_t i = (size_t)h & mask;
	for (;;) {
		uint32_t id = st->slots[i];
		if (!id) {
			*found = 0;
			return i;
		}
		const struct entry *e = &st->e[id - 1];
		if (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0) {
			*found = id;
			return i;
		}
		i = (i + 1) & mask;
	}
}

static int grow_index(struct gmp_strtab *st)
{
	size_t nslots = st->nslots * 2;
	uint32_t *slots = calloc(nslots, sizeof(*slots));
	if (!slots)
		return -1;
	for (size_t k = 0; k < st->n; k++) {
		size_t i = (size_t)st->e[k].hash & (nslots - 1);
		while (slots[i])
			i = (i + 1) & (nslots - 1);
		slots[i] = (uint32_t)(k + 1);
	}
	free(st->slots);
	st->slots = slots;
	st->nslots = nslots;
	return 0;
}

uint32_t gmp_strtab__find(const struct gmp_strtab *st, const char *s, size_t len)
{
	uint32_t id;
	probe(st, s, len, hash_bytes(s, len), &id);
	return id;
}

uint32_t gmp_strtab__intern(struct gmp_strtab *st, const char *s, size_t len)
{
	uint64_t h = hash_bytes(s, len);
	uint32_t id;
	size_t slot = probe(st, s, len, h, &id);
	if (id)
		return id;
	if (st->n >= UINT32_MAX - 1)
		return 0;
	if ((st->n + 1) * 4 > st->nslots * 3) {
		if (grow_index(st))
			return 0;
		slot = probe(st, s, len, h, &id);
	}
	if (st->n == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 64;
		struct entry *e = realloc(st->e, cap * sizeof(*e));
		if (!e)
			return 0;
		st->e = e;
		st->cap = cap;
	}
	char *copy = malloc(len + 1);
	if (!copy)
		return 0;
	memcpy(copy, s, len);
	copy[len] = '\0';
	st->e[st->n] = (struct entry){ .s = copy, .len = len, .hash = h };
	st->n++;
	st->slots[slot] = (uint32_t)st->n;
	return (uint32_t)st->n;
}

const char *gmp_strtab__get(const struct gmp_strtab *st, uint32_t id, size_t *len)
{
	if (id == 0 || id > st->n)
		return NULL;
	if (len)
		*len = st->e[id - 1].len;
	return st->e[id - 1].s;
}

size_t gmp_strtab__count(const struct gmp_strtab *st)
{
	return st->n;
}
