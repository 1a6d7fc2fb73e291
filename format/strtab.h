/* SPDX-License-Identifier: MIT */
/*
 * An interning string table: equal strings get equal ids, ids are dense
 * and start at 1.  The table owns copies of its strings.
 */
#ifndef GMPROF_STRTAB_H
#define GMPROF_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct gmp_strtab;

struct gmp_strtab *gmp_strtab__new(void);
void gmp_strtab__free(struct gmp_strtab *st);
/* Returns the id of s (interning a copy), or 0 on ENOMEM. */
uint32_t gmp_strtab__intern(struct gmp_strtab *st, const char *s, size_t len);
/* Returns the id of s, or 0 when absent. */
uint32_t gmp_strtab__find(const struct gmp_strtab *st, const char *s, size_t len);
/* Borrowed NUL-terminated string for id, NULL for unknown ids. */
const char *gmp_strtab__get(const struct gmp_strtab *st, uint32_t id, size_t *len);
size_t gmp_strtab__count(const struct gmp_strtab *st);

#endif
