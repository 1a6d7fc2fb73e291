/* SPDX-License-Identifier: MIT */
/*
 * ELF function symbols (.symtab, else .dynsym) of one file, for names
 * where DWARF has none, and the file's build-id and debug link.
 */
#ifndef GMPROF_SYMTAB_H
#define GMPROF_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

struct gmp_symtab;

/* Returns 0, -errno from open (-ENOENT: no such file), -EINVAL (not a regular ELF file), -ENOMEM. */
int gmp_symtab__open(const char *path, struct gmp_symtab **out);
void gmp_symtab__close(struct gmp_symtab *s);
/*
 * The function symbol binutils would name for addr (a file address): the
 * last one at or below it in its section; NULL when none.  *file (may be
 * NULL) gets the source file an STT_FILE symbol names for it, or NULL.
 */
const char *gmp_symtab__find(const struct gmp_symtab *s, uint64_t addr, const char **file);
/* 1 when addr lies in a section the file loads into memory. */
int gmp_symtab__mapped(const struct gmp_symtab *s, uint64_t addr);
/* The hex build-id, or "" when the file has none. */
const char *gmp_symtab__build_id(const struct gmp_symtab *s);
/* The lowest and highest executable addresses (for tests and benchmarks). */
void gmp_symtab__text(const struct gmp_symtab *s, uint64_t *lo, uint64_t *hi);

#endif
