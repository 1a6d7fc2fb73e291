// SPDX-License-Identifier: MIT
/* gmprof's DWARF reader: line programs (dwarf_read.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <libdwarf/dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_read.h"
#include "util.h"

/* ---- line programs ---------------------------------------------------------- */

struct files {
	const char **dir;
	size_t ndir, dir_cap;
	uint32_t *id;               /* string id per file number */
	size_t nfile, file_cap;
};

/* A file's full name as binutils and libdwarf form it, interned. */
static int add_file(struct gmp_dwarf *d, struct files *f, const struct unit *u, const char *name,
		    uint64_t dir)
{
	if (GMP_GROW(f->id, f->file_cap, f->nfile + 1))
		return -ENOMEM;
	uint32_t id = 0;
	if (name) {
		const char *dn = dir < f->ndir ? f->dir[dir] : NULL;
		char *full = NULL;
		int n = 0;
		if (name[0] == '/' || !dn || !*dn)
			n = asprintf(&full, "%s", name);
		else if (dn[0] != '/' && u->comp_dir && *u->comp_dir)
			n = asprintf(&full, "%s/%s/%s", u->comp_dir, dn, name);
		else
			n = asprintf(&full, "%s/%s", dn, name);
		if (n < 0)
			return -ENOMEM;
		id = gmp_dwarf__intern(d, full);
		free(full);
		if (!id)
			return -ENOMEM;
	}
	f->id[f->nfile++] = id;
	return 0;
}

static int add_dir(struct files *f, const char *s)
{
	if (GMP_GROW(f->dir, f->dir_cap, f->ndir + 1))
		return -ENOMEM;
	f->dir[f->ndir++] = s;
	return 0;
}

/* DWARF 5 directory or file entries: formats, then entries. */
static int entries5(struct gmp_dwarf *d, const struct unit *lu, struct gmp_dec *c, struct files *f,
		    int dirs)
{
	uint8_t nfmt = (uint8_t)rd(c, 1);
	uint64_t fmt[32][2];
	if (nfmt > 32)
		return -ENOTSUP;
	for (unsigned i = 0; i < nfmt; i++) {
		fmt[i][0] = gmp_dec_varint(c);
		fmt[i][1] = gmp_dec_varint(c);
	}
	uint64_t n = gmp_dec_varint(c);
	/* Every entry has a path, of a byte at least: a count past what is
	 * left (or entries of no field) is a corrupt table, not a loop of 2^64. */
	if (n && (!nfmt || n > (uint64_t)(c->end - c->p)))
		return -EIO;
	for (uint64_t k = 0; k < n && !c->err; k++) {
		const char *name = NULL;
		uint64_t dir = 0;
		for (unsigned i = 0; i < nfmt; i++) {
			struct val v;
			int err = dwr_form(c, lu, (unsigned)fmt[i][1], 0, &v);
			if (err)
				return err;
			if (fmt[i][0] == DW_LNCT_path)
				name = dwr_string(d->own, lu, &v);
			else if (fmt[i][0] == DW_LNCT_directory_index)
				dir = v.u;
		}
		int err = dirs ? add_dir(f, name) : add_file(d, f, lu, name, dir);
		if (err)
			return err;
	}
	return c->err ? -EIO : 0;
}

struct seqref {
	uint64_t start;
	size_t lo, hi;
};

static int cmp_seq(const void *a, const void *b)
{
	const struct seqref *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->lo > y->lo) - (x->lo < y->lo);
}

/*
 * Puts whole sequences in address order (each is in order already), so
 * that sorting the rows is rarely needed: gmp_dwarf__finish_cu checks, and
 * sorts only when sequences overlap.
 */
static int order_sequences(struct cu *cu, const size_t *seq, size_t nseq)
{
	size_t n = 0;
	int in_order = 1;
	struct seqref *s = malloc((nseq ? nseq : 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (size_t k = 0; k + 1 < nseq; k++) {
		if (seq[k + 1] == seq[k])
			continue;
		s[n] = (struct seqref){ cu->rows[seq[k]].addr, seq[k], seq[k + 1] };
		if (n && cmp_seq(&s[n - 1], &s[n]) > 0)
			in_order = 0;
		n++;
	}
	if (in_order || seq[nseq - 1] != cu->nrows) { /* (rows after the last end: leave them) */
		free(s);
		return 0;
	}
	qsort(s, n, sizeof(*s), cmp_seq);
	struct row *out = malloc((cu->nrows ? cu->nrows : 1) * sizeof(*out));
	uint32_t *disc = cu->disc ? malloc(cu->nrows * sizeof(*disc)) : NULL;
	if (!out || (cu->disc && !disc)) {
		free(out);
		free(disc);
		free(s);
		return -ENOMEM;
	}
	size_t at = 0;
	for (size_t k = 0; k < n; k++) {
		size_t m = s[k].hi - s[k].lo;
		memcpy(out + at, cu->rows + s[k].lo, m * sizeof(*out));
		if (disc)
			memcpy(disc + at, cu->disc + s[k].lo, m * sizeof(*disc));
		at += m;
	}
	free(cu->rows);
	free(cu->disc);
	cu->rows = out;
	cu->disc = disc;
	cu->rows_cap = cu->nrows ? cu->nrows : 1;
	free(s);
	return 0;
}

/* A line program's header: how to read its opcodes, and where they are. */
struct line_header {
	struct unit lu;          /* the CU's unit with the table's own offset size and version */
	uint64_t len;            /* the table's length past its length field */
	const uint8_t *prog, *end;
	uint8_t min_inst, line_range, opcode_base;
	int8_t line_base;
	uint8_t std_len[256];    /* operands of each standard opcode */
};

/* Reads the header of u's line table into h and its directories and files into f. */
static int read_header(struct gmp_dwarf *d, const struct unit *u, struct line_header *h, struct files *f)
{
	const struct gmp_dwr *r = d->own;
	struct gmp_dec c = at(&r->s[S_LINE], u->stmt_list);
	h->len = rd(&c, 4);
	h->lu = *u;
	h->lu.offsz = 4;
	if (h->len == 0xffffffffu) {
		h->len = rd(&c, 8);
		h->lu.offsz = 8;
	}
	if (c.err || h->len > (uint64_t)(c.end - c.p))
		return -EIO;
	c.end = h->end = c.p + h->len;
	h->lu.version = (uint16_t)rd(&c, 2);
	if (h->lu.version < 2 || h->lu.version > 5)
		return -EIO;
	if (h->lu.version >= 5) {
		h->lu.asize = (uint8_t)rd(&c, 1);
		rd(&c, 1); /* segment selector size */
	}
	uint64_t hlen = rd(&c, h->lu.offsz);
	if (c.err || hlen > (uint64_t)(c.end - c.p))
		return -EIO;
	h->prog = c.p + hlen;
	h->min_inst = (uint8_t)rd(&c, 1);
	if (h->lu.version >= 4)
		rd(&c, 1); /* maximum operations per instruction: 1 outside VLIW */
	rd(&c, 1);         /* default_is_stmt */
	h->line_base = (int8_t)rd(&c, 1);
	h->line_range = (uint8_t)rd(&c, 1);
	h->opcode_base = (uint8_t)rd(&c, 1);
	memset(h->std_len, 0, sizeof(h->std_len));
	for (unsigned i = 1; i < h->opcode_base; i++)
		h->std_len[i] = (uint8_t)rd(&c, 1);
	if (c.err || !h->line_range)
		return -EIO;
	int err = 0;
	if (h->lu.version >= 5) {
		err = entries5(d, &h->lu, &c, f, 1);
		if (!err)
			err = entries5(d, &h->lu, &c, f, 0);
	} else {
		/* Directory 0 is the compilation directory; files count from 1. */
		err = add_dir(f, u->comp_dir);
		while (!err && !c.err && c.p < c.end && *c.p)
			err = add_dir(f, cstr(&c));
		rd(&c, 1);
		if (!err)
			err = add_file(d, f, u, NULL, 0);
		while (!err && !c.err && c.p < c.end && *c.p) {
			const char *name = cstr(&c);
			uint64_t dir = gmp_dec_varint(&c);
			gmp_dec_varint(&c); /* mtime */
			gmp_dec_varint(&c); /* length */
			err = add_file(d, f, u, name, dir);
		}
	}
	return err ? err : c.err ? -EIO : 0;
}

/* Ends a sequence at the row count: seq[k] to seq[k+1] are one sequence's rows. */
static int end_sequence(struct cu *cu, size_t **seq, size_t *nseq, size_t *cap)
{
	if (GMP_GROW(*seq, *cap, *nseq + 1))
		return -ENOMEM;
	(*seq)[(*nseq)++] = cu->nrows;
	return 0;
}

/* Runs h's line program into cu's rows, adding the files it defines to f. */
static int run_program(struct gmp_dwarf *d, struct cu *cu, const struct unit *u, const struct line_header *h,
		       struct files *f, size_t **seq, size_t *nseq, size_t *seq_cap)
{
	struct gmp_dec c = { h->prog, h->end, 0 };
	uint64_t addr = 0;
	uint32_t file = 1, line = 1, disc = 0;
	int err = 0;
	while (!err && c.p < c.end && !c.err) {
		uint8_t op = (uint8_t)rd(&c, 1);
		uint32_t fid = file < f->nfile ? f->id[file] : 0;
		if (op >= h->opcode_base) {
			unsigned adj = op - h->opcode_base;
			addr += (uint64_t)(adj / h->line_range) * h->min_inst;
			line += (uint32_t)(h->line_base + (int)(adj % h->line_range));
			err = gmp_dwarf__add_row(cu, addr, line, fid, disc, 0);
			disc = 0;
			continue;
		}
		switch (op) {
		case 0: { /* extended */
			uint64_t n = gmp_dec_varint(&c);
			if (!n || n > (uint64_t)(c.end - c.p)) {
				c.err = 1;
				break;
			}
			const uint8_t *next = c.p + n;
			uint8_t sub = (uint8_t)rd(&c, 1);
			if (sub == DW_LNE_end_sequence) {
				err = gmp_dwarf__add_row(cu, addr, line, fid, disc, 1);
				if (!err)
					err = end_sequence(cu, seq, nseq, seq_cap);
				addr = 0;
				file = line = 1;
				disc = 0;
			} else if (sub == DW_LNE_set_address) {
				addr = rd(&c, (unsigned)(n - 1 <= 8 ? n - 1 : 8));
			} else if (sub == DW_LNE_set_discriminator) {
				disc = (uint32_t)gmp_dec_varint(&c);
			} else if (sub == DW_LNE_define_file && h->lu.version < 5) {
				const char *name = cstr(&c);
				err = add_file(d, f, u, name, gmp_dec_varint(&c));
			}
			c.p = next;
			break;
		}
		case DW_LNS_copy:
			err = gmp_dwarf__add_row(cu, addr, line, fid, disc, 0);
			disc = 0;
			break;
		case DW_LNS_advance_pc: addr += gmp_dec_varint(&c) * h->min_inst; break;
		case DW_LNS_advance_line: line += (uint32_t)sleb(&c); break;
		case DW_LNS_set_file: file = (uint32_t)gmp_dec_varint(&c); break;
		case DW_LNS_set_column: gmp_dec_varint(&c); break;
		case DW_LNS_negate_stmt: case DW_LNS_set_basic_block: case DW_LNS_set_prologue_end:
		case DW_LNS_set_epilogue_begin:
			break;
		case DW_LNS_const_add_pc:
			addr += (uint64_t)((255u - h->opcode_base) / h->line_range) * h->min_inst;
			break;
		case DW_LNS_fixed_advance_pc: addr += rd(&c, 2); break;
		case DW_LNS_set_isa: gmp_dec_varint(&c); break;
		default: /* an opcode of a later version: skip its operands */
			for (unsigned i = 0; i < h->std_len[op]; i++)
				gmp_dec_varint(&c);
		}
	}
	return err;
}

/* Decodes the CU's line program into its rows and file list. */
int dwr_lines(struct gmp_dwarf *d, struct cu *cu, const struct unit *u)
{
	struct line_header h;
	struct files f = { 0 };
	int err = read_header(d, u, &h, &f);
	/* Rows, sized from what earlier programs held per byte (growing copies them). */
	struct gmp_dwr *rw = d->own;
	size_t per_kb = __atomic_load_n(&rw->rows_per_kb, __ATOMIC_RELAXED);
	/* Sequences: [seq[k], seq[k+1]) of rows, each in address order. */
	size_t *seq = NULL, nseq = 0, seq_cap = 0;
	if (!err) {
		cu->rows_cap = (size_t)(h.len * (per_kb ? per_kb : 256) / 1024) + 64;
		if (!(cu->rows = malloc(cu->rows_cap * sizeof(*cu->rows))))
			err = -ENOMEM;
	}
	if (!err && GMP_GROW(seq, seq_cap, 1))
		err = -ENOMEM;
	if (!err)
		seq[nseq++] = 0;
	if (!err)
		err = run_program(d, cu, u, &h, &f, &seq, &nseq, &seq_cap);
	free(f.dir);
	if (!err && h.len >= 1024)
		__atomic_store_n(&rw->rows_per_kb, (size_t)(cu->nrows * 1024 / h.len) + 1, __ATOMIC_RELAXED);
	if (!err)
		err = order_sequences(cu, seq, nseq);
	free(seq);
	if (err) {
		free(f.id);
		return err;
	}
	cu->files = f.id; /* indexed by file number, as DW_AT_call_file counts */
	cu->nfiles = f.nfile;
	return 0;
}
