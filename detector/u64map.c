// SPDX-License-Identifier: MIT
/* Open-addressing hash map u64 -> u32. */
#include "u64map.h"

#include <stdlib.h>
#include <string.h>

#define EMPTY UINT64_MAX

static size_t hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k;
}

void gmp_u64map__init(struct gmp_u64map *m)
{
	memset(m, 0, sizeof(*m));
}

void gmp_u64map__release(struct gmp_u64map *m)
{
	free(m->keys);
	free(m->vals);
	gmp_u64map__init(m);
}

static int rehash(struct gmp_u64map *m, size_t cap)
{
	uint64_t *keys = malloc(cap * sizeof(*keys));
	uint32_t *vals = malloc(cap * sizeof(*vals));
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	memset(keys, 0xff, cap * sizeof(*keys));
	for (size_t i = 0; i < m->cap; i++) {
		if (m->keys[i] == EMPTY)
			continue;
		size_t j = hash(m->keys[i]) & (cap - 1);
		while (keys[j] != EMPTY)
			j = (j + 1) & (cap - 1);
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

uint32_t *gmp_u64map__get(const struct gmp_u64map *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	size_t i = hash(key) & (m->cap - 1);
	while (m->keys[i] != EMPTY) {
		if (m->keys[i] == key)
			return &m->vals[i];
		i = (i + 1) & (m->cap - 1);
	}
	return NULL;
}

uint32_t *gmp_u64map__slot(struct gmp_u64map *m, uint64_t key, uint32_t init, int *is_new)
{
	if ((m->n + 1) * 4 > m->cap * 3 && rehash(m, m->cap ? m->cap * 2 : 16))
		return NULL;
	size_t i = hash(key) & (m->cap - 1);
	while (m->keys[i] != EMPTY) {
		if (m->keys[i] == key) {
			if (is_new)
				*is_new = 0;
			return &m->vals[i];
		}
		i = (i + 1) & (m->cap - 1);
	}
	m->keys[i] = key;
	m->vals[i] = init;
	m->n++;
	if (is_new)
		*is_new = 1;
	return &m->vals[i];
}
