// SPDX-License-Identifier: MIT
/* ELF symbol tables and build-ids with libelf; C++ demangling at run time. */
#define _GNU_SOURCE
#include "symtab.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "safefile.h"
#include "util.h"

struct sym {
	uint64_t lo;
	uint32_t shndx;         /* the section it is in */
	uint32_t order;         /* its place in the table */
	char *name;
	const char *file;       /* from the STT_FILE before it (borrowed from files[]), or NULL */
};

struct gmp_symtab {
	struct sym *s;
	size_t n, cap;
	uint64_t (*sec)[3];     /* allocated sections: lo, hi, index */
	size_t nsec, sec_cap;
	char **files;
	size_t nfiles, files_cap;
	char build_id[96];
	uint64_t text_lo, text_hi;
};

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/*
 * Function symbols with the source file binutils would name for them: the
 * last STT_FILE before the symbol, unless a global symbol came between
 * (then only local symbols keep it).
 */
static int cmp_sec(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return (x[0] > y[0]) - (x[0] < y[0]);
}

static int read_symbols(struct gmp_symtab *st, Elf *elf, Elf_Scn *scn, GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || !sh->sh_entsize)
		return 0;
	size_t count = sh->sh_size / sh->sh_entsize;
	const char *file = NULL;
	enum { NOTHING, SYMBOL, FILE_AFTER_SYMBOL } state = NOTHING;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		int type = GELF_ST_TYPE(sym.st_info);
		const char *name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (type == STT_FILE) {
			file = NULL;
			if (name) { /* binutils names even an empty one */
				if (GMP_GROW(st->files, st->files_cap, st->nfiles + 1))
					return -ENOMEM;
				if (!(file = st->files[st->nfiles] = strdup(name)))
					return -ENOMEM;
				st->nfiles++;
			}
			if (state == SYMBOL)
				state = FILE_AFTER_SYMBOL;
			continue;
		}
		if (state == NOTHING)
			state = SYMBOL;
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    sym.st_shndx >= SHN_LORESERVE || !name || !*name)
			continue;
		if (GMP_GROW(st->s, st->cap, st->n + 1))
			return -ENOMEM;
		char *copy = strdup(name);
		if (!copy)
			return -ENOMEM;
		int local = GELF_ST_BIND(sym.st_info) == STB_LOCAL;
		st->s[st->n++] = (struct sym){ .lo = sym.st_value, .shndx = sym.st_shndx,
					       .order = (uint32_t)i, .name = copy,
					       .file = file && (local || state != FILE_AFTER_SYMBOL) ? file : NULL };
	}
	return 0;
}

static void read_build_id(struct gmp_symtab *st, Elf_Scn *scn)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;
	while (data && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((char *)data->d_buf + name_off, "GNU", 4) == 0) {
			const unsigned char *d = (const unsigned char *)data->d_buf + desc_off;
			size_t k = 0;
			for (size_t i = 0; i < nh.n_descsz && k + 3 < sizeof(st->build_id); i++)
				k += (size_t)snprintf(st->build_id + k, sizeof(st->build_id) - k, "%02x", d[i]);
			return;
		}
	}
}

int gmp_symtab__open(const char *path, struct gmp_symtab **out)
{
	int fd = gmp_file__open_regular(path);
	if (fd < 0)
		return fd;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	struct gmp_symtab *st = calloc(1, sizeof(*st));
	int err = 0;
	if (!st)
		err = -ENOMEM;
	else if (!elf || elf_kind(elf) != ELF_K_ELF)
		err = -EINVAL;
	if (err)
		goto out;
	st->text_lo = UINT64_MAX;
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh, symsh, dynsh;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			symtab = scn;
			symsh = sh;
		} else if (sh.sh_type == SHT_DYNSYM) {
			dynsym = scn;
			dynsh = sh;
		} else if (sh.sh_type == SHT_NOTE) {
			read_build_id(st, scn);
		}
		if ((sh.sh_flags & SHF_ALLOC) && sh.sh_size && sh.sh_type != SHT_NOBITS &&
		    !GMP_GROW(st->sec, st->sec_cap, st->nsec + 1)) {
			st->sec[st->nsec][0] = sh.sh_addr;
			st->sec[st->nsec][1] = sh.sh_addr + sh.sh_size;
			st->sec[st->nsec][2] = elf_ndxscn(scn);
			st->nsec++;
		}
		if ((sh.sh_flags & SHF_EXECINSTR) && sh.sh_size) {
			if (sh.sh_addr < st->text_lo)
				st->text_lo = sh.sh_addr;
			if (sh.sh_addr + sh.sh_size > st->text_hi)
				st->text_hi = sh.sh_addr + sh.sh_size;
		}
	}
	if (symtab)
		err = read_symbols(st, elf, symtab, &symsh);
	else if (dynsym)
		err = read_symbols(st, elf, dynsym, &dynsh);
	if (!err && st->n > 1)
		qsort(st->s, st->n, sizeof(*st->s), cmp_sym);
	if (st->nsec > 1)
		qsort(st->sec, st->nsec, sizeof(*st->sec), cmp_sec);
out:
	if (elf)
		elf_end(elf);
	close(fd);
	if (err) {
		gmp_symtab__close(st);
		return err;
	}
	*out = st;
	return 0;
}

void gmp_symtab__close(struct gmp_symtab *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->n; i++)
		free(st->s[i].name);
	for (size_t i = 0; i < st->nfiles; i++)
		free(st->files[i]);
	free(st->files);
	free(st->s);
	free(st->sec);
	free(st);
}

static int64_t section_of(const struct gmp_symtab *st, uint64_t addr)
{
	/* Sections are sorted by address; they do not overlap. */
	size_t lo = 0, hi = st->nsec;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (st->sec[mid][0] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr < st->sec[lo - 1][1])
		return (int64_t)st->sec[lo - 1][2];
	return -1;
}


/* As binutils: the last function symbol at or below addr in addr's section. */
const char *gmp_symtab__find(const struct gmp_symtab *st, uint64_t addr, const char **file)
{
	if (file)
		*file = NULL;
	int64_t sec = section_of(st, addr);
	if (sec < 0)
		return NULL;
	size_t lo = 0, hi = st->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct sym *s = &st->s[mid];
		if (s->shndx < sec || (s->shndx == sec && s->lo <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || st->s[lo - 1].shndx != sec)
		return NULL;
	if (file)
		*file = st->s[lo - 1].file;
	return st->s[lo - 1].name;
}

int gmp_symtab__mapped(const struct gmp_symtab *st, uint64_t addr)
{
	return section_of(st, addr) >= 0;
}

const char *gmp_symtab__build_id(const struct gmp_symtab *st)
{
	return st->build_id;
}

void gmp_symtab__text(const struct gmp_symtab *st, uint64_t *lo, uint64_t *hi)
{
	*lo = st->text_lo;
	*hi = st->text_hi;
}
