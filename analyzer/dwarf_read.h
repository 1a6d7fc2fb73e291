/* SPDX-License-Identifier: MIT */
/*
 * gmprof's own DWARF reader, shared by its three files: dwarf_decode.c
 * (forms, abbreviations, DIEs, range lists), dwarf_lines.c (line
 * programs) and dwarf_read.c (sections, units, functions; its header
 * comment says what the reader does and declines).
 */
#ifndef GMPROF_DWARF_READ_H
#define GMPROF_DWARF_READ_H

#include <gelf.h>
#include <stdint.h>
#include <string.h>

#include "codec.h"
#include "dwarf_model.h"

enum { S_INFO, S_ABBREV, S_LINE, S_STR, S_LINE_STR, S_RANGES, S_RNGLISTS, S_ADDR, S_STR_OFF, S_N };

struct sect {
	const uint8_t *p;
	size_t n;
};

struct spec {
	uint16_t at, form;
	int64_t implicit;           /* DW_FORM_implicit_const's value */
};

struct abbrev {
	uint16_t tag;
	uint8_t children;
	uint32_t first, n;          /* its specs in abbrevs.spec */
	/* For skipping a DIE unread, with the sizes of the unit that read the table: */
	int32_t fixed;              /* bytes of its attributes when all have fixed sizes, or -1 */
	int32_t sib;                /* DW_AT_sibling's offset among them (fixed ones before it), or -1 */
	uint16_t sib_form;
	uint32_t key;               /* the unit sizes these hold for (unit_key) */
};

/* One abbreviation table (several units may share it). */
struct abbrevs {
	uint64_t off;
	struct abbrev *by_code;     /* indexed by code; tag 0: no such code */
	size_t ncode;
	struct spec *spec;
	size_t nspec, spec_cap;
};

struct unit {
	uint64_t off, die, end;     /* header, first DIE, end: offsets in .debug_info */
	uint16_t version;
	uint8_t asize, offsz;
	uint32_t abbr;              /* its table in gmp_dwr.ab */
	uint64_t base;              /* the CU's low_pc: base of its ranges and offsets */
	uint64_t stmt_list;
	int has_lines;
	uint64_t str_base, addr_base, rng_base;
	int has_rng_base;
	const char *comp_dir;
};

struct gmp_dwr {
	size_t rows_per_kb;         /* line rows per KiB of line program seen so far */
	int fd;
	Elf *elf;
	struct sect s[S_N];
	struct unit *u;
	size_t nu, u_cap;
	struct abbrevs *ab;
	size_t nab, ab_cap;
};

/* An attribute value, as its form gives it. */
enum vkind { V_NONE, V_CONST, V_SCONST, V_ADDR, V_ADDRX, V_STR, V_STRX, V_REF, V_SEC, V_RNGX };
struct val {
	enum vkind k;
	uint64_t u;
	const char *s;
};

struct die {
	uint16_t tag;
	uint8_t children;
	struct val low, high, ranges, name, linkage, origin, spec, call_file, call_line, sibling;
	struct val stmt, str_base, addr_base, rng_base, comp_dir, dwo;
};

typedef int (*range_cb)(void *ctx, uint64_t lo, uint64_t hi);

/* ---- primitive reads -------------------------------------------------------- */

/*
 * Reads on a struct gmp_dec (codec.h: gmp_dec_varint is ULEB128,
 * gmp_dec_bytes skips), for what DWARF adds: n-byte little-endian words,
 * SLEB128 and strings.  Past the end, or asked for a word of over 8 bytes
 * (an address size as a corrupt header gives it), they set err and return 0.
 */
static inline uint64_t rd(struct gmp_dec *c, unsigned n)
{
	if (n > 8 || (size_t)(c->end - c->p) < n) {
		c->err = 1;
		c->p = c->end;
		return 0;
	}
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (8 * i); /* little-endian: x86-64 and aarch64 */
	c->p += n;
	return v;
}

static inline int64_t sleb(struct gmp_dec *c)
{
	uint64_t v = 0;
	unsigned shift = 0;
	while (c->p < c->end) {
		uint8_t b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << shift;
			return (int64_t)v;
		}
	}
	c->err = 1;
	return 0;
}

static inline const char *cstr(struct gmp_dec *c)
{
	const uint8_t *z = c->p < c->end ? memchr(c->p, 0, (size_t)(c->end - c->p)) : NULL;
	if (!z) {
		c->err = 1;
		c->p = c->end;
		return NULL;
	}
	const char *s = (const char *)c->p;
	c->p = z + 1;
	return s;
}

/* A NUL-terminated string at off in a string section, or NULL. */
static inline const char *str_at(const struct sect *s, uint64_t off)
{
	if (!s->p || off >= s->n || !memchr(s->p + off, 0, s->n - off))
		return NULL;
	return (const char *)s->p + off;
}

static inline struct gmp_dec at(const struct sect *s, uint64_t off)
{
	if (!s->p || off > s->n)
		return (struct gmp_dec){ NULL, NULL, 1 }; /* a missing section: nothing to move over */
	return (struct gmp_dec){ s->p + off, s->p + s->n, 0 };
}

/* dwarf_decode.c */
int dwr_form(struct gmp_dec *c, const struct unit *u, unsigned f, int64_t implicit, struct val *v);
const char *dwr_string(const struct gmp_dwr *r, const struct unit *u, const struct val *v);
uint64_t dwr_address(const struct gmp_dwr *r, const struct unit *u, const struct val *v, int *ok);
int dwr_read_abbrevs(struct gmp_dwr *r, uint64_t off, const struct unit *u, uint32_t *out);
const struct abbrev *dwr_die_abbrev(const struct gmp_dwr *r, const struct unit *u, struct gmp_dec *c,
				    int *err);
int dwr_read_attrs(const struct gmp_dwr *r, const struct unit *u, struct gmp_dec *c,
		   const struct abbrev *a, struct die *d);
int dwr_read_die(const struct gmp_dwr *r, const struct unit *u, struct gmp_dec *c, struct die *d);
int dwr_skip_attrs(const struct gmp_dwr *r, const struct unit *u, struct gmp_dec *c,
		   const struct abbrev *a, uint64_t *sibling);
uint32_t dwr_func_name(struct gmp_dwarf *d, const struct unit *u, const struct die *x, int depth);
int dwr_die_ranges(const struct gmp_dwr *r, const struct unit *u, const struct die *x, range_cb fn,
		   void *ctx);
/* dwarf_lines.c */
int dwr_lines(struct gmp_dwarf *d, struct cu *cu, const struct unit *u);

#endif
