// SPDX-License-Identifier: MIT
/*
 * gmprof's own DWARF reader (DWARF 2 to 5): compilation units, the DIEs of
 * functions and inlined calls, range lists and line programs, decoded
 * straight from the ELF sections that libelf maps.  It fills the same CU
 * index, line rows and function ranges as the libdwarf reader in dwarf.c,
 * several times faster: libdwarf allocates per DIE, attribute and line row,
 * and loading the CUs was what made symbolization slow.
 *
 * It declines (-ENOTSUP) what it does not read, and dwarf.c then uses
 * libdwarf: split DWARF (skeleton units, .dwo files), dwz's alternate
 * files (DW_FORM_GNU_*_alt), .zdebug sections, vendors' forms it does not
 * know, and a file whose .debug_info it cannot find.  A damaged file (a
 * unit past its section, a form no DWARF defines) it refuses (-EIO), and
 * libdwarf is not given it: libdwarf 20210528 crashes on some (the fuzz
 * target found a double free).  The tests compare both readers on every
 * address of several binaries (tests/cli/dwarf_readers.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libdwarf/dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf_read.h"
#include "safefile.h"
#include "util.h"

static const char *const sect_name[S_N] = {
	".debug_info", ".debug_abbrev", ".debug_line", ".debug_str", ".debug_line_str",
	".debug_ranges", ".debug_rnglists", ".debug_addr", ".debug_str_offsets",
};

/* ---- functions -------------------------------------------------------------- */

struct walk {
	struct gmp_dwarf *d;
	struct cu *cu;
	const struct unit *u;
	struct func f;              /* the function whose ranges are being added */
};

static int func_range(void *ctx, uint64_t lo, uint64_t hi)
{
	struct walk *w = ctx;
	return gmp_dwarf__add_func(w->cu, &w->f, lo, hi);
}

static uint32_t udata(const struct val *v, uint32_t add)
{
	if (v->k == V_CONST || (v->k == V_SCONST && (int64_t)v->u >= 0))
		return (uint32_t)v->u + add;
	return 0;
}

/*
 * Reads the sibling list at c up to its null entry: functions and inlined
 * calls at depth (the CU's children are at 0) become ranges while keep
 * holds, as in the libdwarf reader: only below DIEs that hold code, and
 * to depth 64.
 */
static int siblings(struct walk *w, struct gmp_dec *c, uint32_t depth, int keep)
{
	const struct gmp_dwr *r = w->d->own;
	const uint8_t *info = r->s[S_INFO].p;
	if (depth > 4096)
		return -EIO; /* nested deeper than any compiler writes: damaged */
	for (;;) {
		int rc;
		const struct abbrev *a = dwr_die_abbrev(r, w->u, c, &rc);
		if (!a)
			return rc;
		int func = keep && (a->tag == DW_TAG_subprogram || a->tag == DW_TAG_inlined_subroutine);
		int inner = keep && gmp_dwarf__holds_code(a->tag) && depth + 1 <= 64;
		uint64_t sib = 0;
		if (!func && !(inner && a->children)) {
			/* Nothing here for lookups: step over it, and over its children. */
			if ((rc = dwr_skip_attrs(r, w->u, c, a, &sib)))
				return rc;
			if (!a->children)
				continue;
			if (sib && sib < w->u->end && info + sib > c->p) {
				c->p = info + sib;
				continue;
			}
			if ((rc = siblings(w, c, depth + 1, 0)))
				return rc;
			continue;
		}
		struct die x;
		if ((rc = dwr_read_attrs(r, w->u, c, a, &x)))
			return rc;
		if (func) {
			size_t first = w->cu->nfuncs;
			w->f = (struct func){ .depth = depth };
			if ((rc = dwr_die_ranges(r, w->u, &x, func_range, w)))
				return rc;
			if (w->cu->nfuncs > first) {
				uint32_t name = dwr_func_name(w->d, w->u, &x, 0), line = 0, file = 0;
				if (x.tag == DW_TAG_inlined_subroutine) {
					line = udata(&x.call_line, 0);
					file = udata(&x.call_file, 1); /* number + 1; 0 none */
				}
				for (size_t k = first; k < w->cu->nfuncs; k++) {
					w->cu->funcs[k].name = name;
					w->cu->funcs[k].call_line = line;
					w->cu->funcs[k].call_file = file;
				}
			}
		}
		if (!x.children)
			continue;
		if (!inner && x.sibling.k == V_REF && x.sibling.u < w->u->end &&
		    info + x.sibling.u > c->p) {
			c->p = info + x.sibling.u; /* skip the subtree */
			continue;
		}
		if ((rc = siblings(w, c, depth + 1, inner)))
			return rc;
	}
}

int gmp_dwr__load_cu(struct gmp_dwarf *d, uint32_t i)
{
	struct cu *cu = &d->cus[i];
	const struct unit *u = &d->own->u[i];
	cu->loaded = -1;
	if (u->has_lines) {
		int err = dwr_lines(d, cu, u);
		if (err == -ENOMEM)
			return err;
		if (err) { /* no usable line table: functions only */
			free(cu->rows);
			free(cu->disc);
			cu->rows = NULL;
			cu->disc = NULL;
			cu->nrows = cu->rows_cap = 0;
		}
	}
	struct gmp_dec c = at(&d->own->s[S_INFO], u->die);
	c.end = d->own->s[S_INFO].p + u->end;
	struct die x;
	struct walk w = { .d = d, .cu = cu, .u = u };
	int rc = dwr_read_die(d->own, u, &c, &x);
	if (rc < 0)
		return rc;
	if (rc == 1 && x.children && (rc = siblings(&w, &c, 0, 1)))
		return rc;
	return gmp_dwarf__finish_cu(cu);
}

/* ---- units and sections ----------------------------------------------------- */

/*
 * Whether every unit of .debug_rnglists has a DWARF 5 header and fits in
 * the section, as libdwarf reads them all when it opens a file: a fuzzed
 * file whose section pointed at its ELF header made libdwarf 20210528
 * free memory twice (dwarf_load_rnglists).
 */
static int rnglists_intact(const struct gmp_dwr *r)
{
	const struct sect *s = &r->s[S_RNGLISTS];
	for (uint64_t off = 0; off < s->n;) {
		struct gmp_dec c = at(s, off);
		uint64_t len = rd(&c, 4);
		if (len == 0xffffffffu)
			len = rd(&c, 8);
		uint64_t head = (uint64_t)(c.p - (s->p + off));
		if (c.err || len < 8 || len > s->n - off - head || rd(&c, 2) != 5)
			return 0;
		off += head + len;
	}
	return 1;
}

/*
 * Reads unit headers and CU DIEs: the CU index, and each unit's bases.
 * Split DWARF is declined (-ENOTSUP: libdwarf reads it), but only once
 * every unit header after it has been read too, and the range lists':
 * a damaged one makes the file damaged (-EIO), not libdwarf's to read
 * (fuzzing found libdwarf 20210528 crashing on damaged files).
 */
static int index_units(struct gmp_dwarf *d)
{
	struct gmp_dwr *r = d->own;
	const struct sect *info = &r->s[S_INFO];
	uint64_t off = 0;
	int split = 0;
	while (off + 11 <= info->n) {
		struct gmp_dec c = at(info, off);
		struct unit u = { .off = off, .offsz = 4 };
		uint64_t len = rd(&c, 4);
		if (len == 0xffffffffu) {
			len = rd(&c, 8);
			u.offsz = 8;
		}
		if (c.err || len > (uint64_t)(c.end - c.p) || len < 7)
			return -EIO;
		u.end = (uint64_t)(c.p - info->p) + len;
		u.version = (uint16_t)rd(&c, 2);
		uint64_t abbr;
		if (u.version < 2 || u.version > 5)
			return -ENOTSUP;
		if (u.version >= 5) {
			uint8_t type = (uint8_t)rd(&c, 1);
			u.asize = (uint8_t)rd(&c, 1);
			abbr = rd(&c, u.offsz);
			if (type == DW_UT_skeleton || type == DW_UT_split_compile || type == DW_UT_split_type) {
				split = 1; /* split DWARF: the other headers still read */
				off = u.end;
				continue;
			}
			if (type == DW_UT_type)
				gmp_dec_bytes(&c, 8 + u.offsz);
		} else {
			abbr = rd(&c, u.offsz);
			u.asize = (uint8_t)rd(&c, 1);
		}
		if (c.err)
			return -EIO;
		if (u.asize != 4 && u.asize != 8)
			return -ENOTSUP;
		u.die = (uint64_t)(c.p - info->p);
		int err = dwr_read_abbrevs(r, abbr, &u, &u.abbr);
		if (err)
			return err;
		struct die x;
		c.end = info->p + u.end;
		int rc = dwr_read_die(r, &u, &c, &x);
		if (rc < 0)
			return rc == -ENOMEM || rc == -ENOTSUP ? rc : -EIO;
		if (rc == 1 && x.dwo.k != V_NONE) { /* a skeleton of split DWARF (GNU, DWARF 4) */
			split = 1;
			off = u.end;
			continue;
		}
		if (rc == 1) {
			u.str_base = x.str_base.u;
			u.addr_base = x.addr_base.u;
			u.rng_base = x.rng_base.u;
			u.has_rng_base = x.rng_base.k != V_NONE;
			u.has_lines = x.stmt.k == V_SEC || x.stmt.k == V_CONST;
			u.stmt_list = x.stmt.u;
			u.comp_dir = dwr_string(r, &u, &x.comp_dir);
			int ok;
			u.base = dwr_address(r, &u, &x.low, &ok);
		}
		if (GMP_GROW(r->u, r->u_cap, r->nu + 1) || GMP_GROW(d->cus, d->cus_cap, d->ncus + 1))
			return -ENOMEM;
		uint32_t i = (uint32_t)d->ncus++;
		memset(&d->cus[i], 0, sizeof(d->cus[i]));
		d->cus[i].die_off = u.die;
		r->u[r->nu++] = u;
		struct gmp_span_ctx sc = { d, i };
		if (rc == 1 && (err = dwr_die_ranges(r, &r->u[i], &x, gmp_dwarf__span_cb, &sc)))
			return err;
		off = u.end;
	}
	return !split ? 0 : rnglists_intact(r) ? -ENOTSUP : -EIO;
}

/* The DWARF sections of an ELF file; 0 when it has .debug_info. */
static int sections(struct gmp_dwr *r)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(r->elf, &shstrndx))
		return -EIO; /* section headers libelf cannot read */
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(r->elf, scn));) {
		GElf_Shdr sh;
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(r->elf, shstrndx, sh.sh_name) : NULL;
		if (!name || sh.sh_type == SHT_NOBITS)
			continue;
		if (!strncmp(name, ".zdebug_", 8))
			return -ENOTSUP; /* GNU's old compressed sections */
		for (int k = 0; k < S_N; k++) {
			if (strcmp(name, sect_name[k]))
				continue;
			if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
				return -ENOTSUP;
			Elf_Data *data = elf_getdata(scn, NULL);
			if (data && data->d_buf) {
				r->s[k].p = data->d_buf;
				r->s[k].n = data->d_size;
			}
		}
	}
	return r->s[S_INFO].p && r->s[S_ABBREV].p ? 0 : -ENODATA;
}

static int open_elf(struct gmp_dwr *r, const char *path)
{
	if (r->elf)
		elf_end(r->elf);
	if (r->fd >= 0)
		close(r->fd);
	memset(r->s, 0, sizeof(r->s));
	r->elf = NULL;
	r->fd = gmp_file__open_regular(path);
	if (r->fd == -EINVAL)
		return -ENOTSUP; /* not a regular file: not one this reader reads */
	if (r->fd < 0)
		return -ENOENT;
	r->elf = elf_begin(r->fd, ELF_C_READ_MMAP, NULL);
	if (!r->elf || elf_kind(r->elf) != ELF_K_ELF)
		return -ENOTSUP;
	unsigned char *id = (unsigned char *)elf_getident(r->elf, NULL);
	if (!id || id[EI_DATA] != ELFDATA2LSB)
		return -ENOTSUP; /* the reads above are little-endian */
	return sections(r);
}

/* The contents of a small section of the open file, or NULL. */
static const uint8_t *section(struct gmp_dwr *r, const char *want, size_t *n)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(r->elf, &shstrndx))
		return NULL;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(r->elf, scn));) {
		GElf_Shdr sh;
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(r->elf, shstrndx, sh.sh_name) : NULL;
		if (name && !strcmp(name, want) && sh.sh_type != SHT_NOBITS) {
			Elf_Data *data = elf_getdata(scn, NULL);
			if (data && data->d_buf) {
				*n = data->d_size;
				return data->d_buf;
			}
		}
	}
	return NULL;
}

/*
 * A stripped file's DWARF in a separate file: by build-id under
 * /usr/lib/debug/.build-id, or by .gnu_debuglink beside it, in .debug/,
 * or under /usr/lib/debug.
 */
static int separate(struct gmp_dwr *r, const char *path)
{
	char cand[4][4096];
	int nc = 0;
	size_t n = 0;
	const uint8_t *note = section(r, ".note.gnu.build-id", &n);
	if (note && n > 16) {
		uint32_t namesz = note[0] | note[1] << 8 | note[2] << 16 | (uint32_t)note[3] << 24;
		uint32_t descsz = note[4] | note[5] << 8 | note[6] << 16 | (uint32_t)note[7] << 24;
		size_t doff = 12 + ((namesz + 3) & ~3u);
		if (descsz >= 2 && descsz <= 64 && doff + descsz <= n) {
			char hex[132];
			for (uint32_t i = 0; i < descsz; i++)
				snprintf(hex + 2 * i, 3, "%02x", note[doff + i]);
			snprintf(cand[nc++], sizeof(cand[0]), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex,
				 hex + 2);
		}
	}
	const char *link = (const char *)section(r, ".gnu_debuglink", &n);
	if (link && memchr(link, 0, n) && *link && !strchr(link, '/')) {
		char dir[2048];
		const char *slash = strrchr(path, '/');
		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
		snprintf(cand[nc++], sizeof(cand[0]), "%s/%s", dir, link);
		snprintf(cand[nc++], sizeof(cand[0]), "%s/.debug/%s", dir, link);
		/* realpath's own buffer: a caller's must hold PATH_MAX, or a fortified glibc aborts. */
		char *real = realpath(dir, NULL);
		if (real && snprintf(cand[nc], sizeof(cand[0]), "/usr/lib/debug%s/%s", real, link) <
				    (int)sizeof(cand[0]))
			nc++; /* a path too long for it is no candidate */
		free(real);
	}
	for (int i = 0; i < nc; i++) {
		if (strcmp(cand[i], path) == 0 || access(cand[i], R_OK))
			continue;
		if (open_elf(r, cand[i]) == 0)
			return 0;
	}
	return -ENOTSUP;
}

int gmp_dwr__open(struct gmp_dwarf *d, const char *path)
{
	struct gmp_dwr *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->fd = -1;
	d->own = r;
	elf_version(EV_CURRENT);
	int err = open_elf(r, path);
	if (err == -ENODATA)
		err = separate(r, path);
	if (!err)
		err = index_units(d);
	if (!err && d->nidx > 1)
		qsort(d->idx, d->nidx, sizeof(*d->idx), gmp_dwarf__cmp_span);
	if (err) {
		/* Declined or failed: leave d as it was for libdwarf (or the caller). */
		gmp_dwarf__free_cus(d);
		d->nidx = 0;
		gmp_dwr__close(r);
		d->own = NULL;
		return err == -ENOMEM || err == -EIO ? err : -ENOTSUP; /* -EIO: damaged, not for libdwarf */
	}
	return 0;
}

void gmp_dwr__close(struct gmp_dwr *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nab; i++) {
		free(r->ab[i].by_code);
		free(r->ab[i].spec);
	}
	free(r->ab);
	free(r->u);
	if (r->elf)
		elf_end(r->elf);
	if (r->fd >= 0)
		close(r->fd);
	free(r);
}
