// SPDX-License-Identifier: MIT
/* gmprof's DWARF reader: forms, abbreviations, DIEs and range lists (dwarf_read.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <libdwarf/dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_read.h"
#include "util.h"

/* ---- forms ------------------------------------------------------------------ */

/*
 * A form code this reader does not read: -ENOTSUP for a vendor's extension
 * (dwz's DW_FORM_GNU_*_alt: libdwarf reads those files), -EIO for a code
 * that no DWARF version defines, which only a damaged file holds (and
 * libdwarf is not handed: 20210528 frees twice on some).
 */
static int unknown_form(unsigned f)
{
	return f >= 0x1f00 ? -ENOTSUP : -EIO; /* DW_FORM_lo_user: vendors from there up */
}

/* Reads one value of form; -ENOTSUP or -EIO for a form it does not read (unknown_form). */
int dwr_form(struct gmp_dec *c, const struct unit *u, unsigned f, int64_t implicit, struct val *v)
{
	v->k = V_NONE;
	switch (f) {
	case DW_FORM_addr: v->k = V_ADDR; v->u = rd(c, u->asize); break;
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1:
	case DW_FORM_addrx1:
		v->u = rd(c, 1); break;
	case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2:
		v->u = rd(c, 2); break;
	case DW_FORM_strx3: case DW_FORM_addrx3: v->u = rd(c, 3); break;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4:
	case DW_FORM_ref_sup4:
		v->u = rd(c, 4); break;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8:
		v->u = rd(c, 8); break;
	case DW_FORM_data16: gmp_dec_bytes(c, 16); return 0;
	case DW_FORM_sdata: v->k = V_SCONST; v->u = (uint64_t)sleb(c); return c->err ? -EIO : 0;
	case DW_FORM_udata: case DW_FORM_ref_udata: case DW_FORM_strx: case DW_FORM_addrx:
	case DW_FORM_loclistx: case DW_FORM_rnglistx: case DW_FORM_GNU_addr_index:
	case DW_FORM_GNU_str_index:
		v->u = gmp_dec_varint(c); break;
	case DW_FORM_string: v->k = V_STR; v->s = cstr(c); return c->err ? -EIO : 0;
	case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset: case DW_FORM_strp_sup:
		v->u = rd(c, u->offsz); break;
	case DW_FORM_ref_addr: v->u = rd(c, u->version <= 2 ? u->asize : u->offsz); break;
	case DW_FORM_block1: gmp_dec_bytes(c, rd(c, 1)); return c->err ? -EIO : 0;
	case DW_FORM_block2: gmp_dec_bytes(c, rd(c, 2)); return c->err ? -EIO : 0;
	case DW_FORM_block4: gmp_dec_bytes(c, rd(c, 4)); return c->err ? -EIO : 0;
	case DW_FORM_block: case DW_FORM_exprloc:
		gmp_dec_bytes(c, gmp_dec_varint(c));
		return c->err ? -EIO : 0;
	case DW_FORM_flag_present: v->u = 1; break;
	case DW_FORM_implicit_const: v->k = V_SCONST; v->u = (uint64_t)implicit; return 0;
	case DW_FORM_indirect: {
		uint64_t g = gmp_dec_varint(c);
		if (c->err || g == DW_FORM_indirect || g == DW_FORM_implicit_const)
			return -EIO;
		return dwr_form(c, u, (unsigned)g, 0, v);
	}
	default:
		return unknown_form(f);
	}
	if (c->err)
		return -EIO;
	switch (f) {
	case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4: case DW_FORM_data8:
	case DW_FORM_udata: case DW_FORM_flag: case DW_FORM_flag_present:
		v->k = V_CONST; break;
	case DW_FORM_ref1: case DW_FORM_ref2: case DW_FORM_ref4: case DW_FORM_ref8:
	case DW_FORM_ref_udata:
		v->k = V_REF; v->u += u->off; break;
	case DW_FORM_ref_addr: v->k = V_REF; break;
	case DW_FORM_strx: case DW_FORM_strx1: case DW_FORM_strx2: case DW_FORM_strx3:
	case DW_FORM_strx4: case DW_FORM_GNU_str_index:
		v->k = V_STRX; break;
	case DW_FORM_addrx: case DW_FORM_addrx1: case DW_FORM_addrx2: case DW_FORM_addrx3:
	case DW_FORM_addrx4: case DW_FORM_GNU_addr_index:
		v->k = V_ADDRX; break;
	case DW_FORM_sec_offset: v->k = V_SEC; break;
	case DW_FORM_rnglistx: v->k = V_RNGX; break;
	case DW_FORM_strp: v->k = V_STR; v->s = NULL; v->u = v->u << 1; break; /* .debug_str */
	case DW_FORM_line_strp: v->k = V_STR; v->s = NULL; v->u = v->u << 1 | 1; break;
	default: break;
	}
	return 0;
}

/* The string a value names, or NULL. */
const char *dwr_string(const struct gmp_dwr *r, const struct unit *u, const struct val *v)
{
	if (v->k == V_STR)
		return v->s ? v->s : str_at(&r->s[v->u & 1 ? S_LINE_STR : S_STR], v->u >> 1);
	if (v->k != V_STRX)
		return NULL;
	struct gmp_dec c = at(&r->s[S_STR_OFF], u->str_base + v->u * u->offsz);
	uint64_t off = rd(&c, u->offsz);
	return c.err ? NULL : str_at(&r->s[S_STR], off);
}

/* The address a value names: 0 and *ok 0 when it names none. */
uint64_t dwr_address(const struct gmp_dwr *r, const struct unit *u, const struct val *v, int *ok)
{
	*ok = 1;
	if (v->k == V_ADDR)
		return v->u;
	if (v->k == V_ADDRX) {
		struct gmp_dec c = at(&r->s[S_ADDR], u->addr_base + v->u * u->asize);
		uint64_t a = rd(&c, u->asize);
		if (!c.err)
			return a;
	}
	*ok = 0;
	return 0;
}

/* ---- abbreviations ---------------------------------------------------------- */

/* Bytes a form's value takes when that is fixed for the unit, or -1. */
static int fixed_size(unsigned f, const struct unit *u)
{
	switch (f) {
	case DW_FORM_flag_present: case DW_FORM_implicit_const: return 0;
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1:
	case DW_FORM_addrx1:
		return 1;
	case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2: return 2;
	case DW_FORM_strx3: case DW_FORM_addrx3: return 3;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4:
	case DW_FORM_ref_sup4:
		return 4;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8: return 8;
	case DW_FORM_data16: return 16;
	case DW_FORM_addr: return u->asize;
	case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset: case DW_FORM_strp_sup:
		return u->offsz;
	case DW_FORM_ref_addr: return u->version <= 2 ? u->asize : u->offsz;
	default: return -1;
	}
}

static uint32_t unit_key(const struct unit *u)
{
	return (uint32_t)u->asize | (uint32_t)u->offsz << 8 | (uint32_t)(u->version <= 2) << 16;
}

/*
 * What skipping DIEs of abbreviation a takes, for the sizes of unit u.
 * spec is its table's whole array (NULL while it is empty): a's
 * attributes start at a->first.
 */
static void plan_skip(struct abbrev *a, const struct spec *spec, const struct unit *u)
{
	int32_t at = 0;
	a->sib = -1;
	a->key = unit_key(u);
	for (uint32_t i = 0; i < a->n; i++) {
		const struct spec *sp = &spec[a->first + i];
		if (sp->at == DW_AT_sibling && at >= 0) {
			a->sib = at;
			a->sib_form = sp->form;
		}
		int n = fixed_size(sp->form, u);
		at = n < 0 || at < 0 ? -1 : at + n;
	}
	a->fixed = at;
}

int dwr_read_abbrevs(struct gmp_dwr *r, uint64_t off, const struct unit *u, uint32_t *out)
{
	for (size_t i = 0; i < r->nab; i++)
		if (r->ab[i].off == off) {
			*out = (uint32_t)i;
			return 0;
		}
	if (GMP_GROW(r->ab, r->ab_cap, r->nab + 1))
		return -ENOMEM;
	struct abbrevs *t = &r->ab[r->nab];
	memset(t, 0, sizeof(*t));
	t->off = off;
	r->nab++;
	struct gmp_dec c = at(&r->s[S_ABBREV], off);
	for (;;) {
		uint64_t code = gmp_dec_varint(&c);
		if (c.err)
			return -EIO;
		if (!code)
			break;
		if (code > (1u << 16))
			return -ENOTSUP; /* sparse codes: not what compilers write */
		uint64_t tag = gmp_dec_varint(&c);
		uint8_t children = (uint8_t)rd(&c, 1);
		if (code >= t->ncode) {
			size_t n = (size_t)code + 16;
			struct abbrev *b = realloc(t->by_code, n * sizeof(*b));
			if (!b)
				return -ENOMEM;
			memset(b + t->ncode, 0, (n - t->ncode) * sizeof(*b));
			t->by_code = b;
			t->ncode = n;
		}
		struct abbrev *a = &t->by_code[code];
		*a = (struct abbrev){ .tag = (uint16_t)(tag ? tag : 0xffff), .children = children,
				      .first = (uint32_t)t->nspec };
		for (;;) {
			uint64_t name = gmp_dec_varint(&c), f = gmp_dec_varint(&c);
			int64_t implicit = f == DW_FORM_implicit_const ? sleb(&c) : 0;
			if (c.err)
				return -EIO;
			if (!name && !f)
				break;
			if (f > 0xffff || name > 0xffff)
				return -EIO;
			/* Over 16 zero bytes every form this reader reads is read: one that fails is not. */
			static const uint8_t zeros[16];
			struct val v;
			struct gmp_dec probe = { zeros, zeros + sizeof(zeros), 0 };
			struct unit dummy = { .asize = 8, .offsz = 4, .version = 5 };
			int ferr = f == DW_FORM_indirect ? 0 : dwr_form(&probe, &dummy, (unsigned)f, 0, &v);
			if (ferr)
				return ferr; /* -ENOTSUP: a vendor's form, libdwarf reads the file; -EIO: damaged */
			if (GMP_GROW(t->spec, t->spec_cap, t->nspec + 1))
				return -ENOMEM;
			t->spec[t->nspec++] = (struct spec){ (uint16_t)name, (uint16_t)f, implicit };
		}
		t->by_code[code].n = (uint32_t)t->nspec - t->by_code[code].first;
		plan_skip(&t->by_code[code], t->spec, u);
	}
	*out = (uint32_t)(r->nab - 1);
	return 0;
}

static struct val *slot(struct die *d, unsigned at)
{
	switch (at) {
	case DW_AT_low_pc: return &d->low;
	case DW_AT_high_pc: return &d->high;
	case DW_AT_ranges: return &d->ranges;
	case DW_AT_name: return &d->name;
	case DW_AT_linkage_name: case DW_AT_MIPS_linkage_name:
		return &d->linkage;
	case DW_AT_abstract_origin: return &d->origin;
	case DW_AT_specification: return &d->spec;
	case DW_AT_call_file: return &d->call_file;
	case DW_AT_call_line: return &d->call_line;
	case DW_AT_sibling: return &d->sibling;
	case DW_AT_stmt_list: return &d->stmt;
	case DW_AT_str_offsets_base: return &d->str_base;
	case DW_AT_addr_base: case DW_AT_GNU_addr_base: return &d->addr_base;
	case DW_AT_rnglists_base: return &d->rng_base;
	case DW_AT_comp_dir: return &d->comp_dir;
	case DW_AT_dwo_name: case DW_AT_GNU_dwo_name: return &d->dwo;
	default: return NULL;
	}
}

/* The abbreviation of the DIE at c (advancing past its code); NULL at a null entry. */
const struct abbrev *dwr_die_abbrev(const struct gmp_dwr *r, const struct unit *u,
				       struct gmp_dec *c, int *err)
{
	uint64_t code = gmp_dec_varint(c);
	const struct abbrevs *t = &r->ab[u->abbr];
	*err = 0;
	if (c->err || (code && (code >= t->ncode || !t->by_code[code].tag)))
		*err = -EIO;
	return *err || !code ? NULL : &t->by_code[code];
}

/* Reads the attributes of a DIE whose abbreviation is a. */
int dwr_read_attrs(const struct gmp_dwr *r, const struct unit *u, struct gmp_dec *c,
		      const struct abbrev *a, struct die *d)
{
	const struct abbrevs *t = &r->ab[u->abbr];
	memset(d, 0, sizeof(*d));
	d->tag = a->tag;
	d->children = a->children;
	for (uint32_t i = 0; i < a->n; i++) {
		const struct spec *sp = &t->spec[a->first + i];
		struct val v;
		int err = dwr_form(c, u, sp->form, sp->implicit, &v);
		if (err)
			return err;
		struct val *s = slot(d, sp->at);
		/* DW_AT_linkage_name wins over DW_AT_MIPS_linkage_name, as binutils reads them. */
		if (s && !(sp->at == DW_AT_MIPS_linkage_name && d->linkage.k != V_NONE))
			*s = v;
	}
	return 0;
}

/*
 * Reads the DIE at c (advancing past it).  Returns 1 for a DIE, 0 for the
 * null entry that ends a sibling list, or a negative errno.
 */
int dwr_read_die(const struct gmp_dwr *r, const struct unit *u, struct gmp_dec *c, struct die *d)
{
	int err;
	const struct abbrev *a = dwr_die_abbrev(r, u, c, &err);
	if (!a)
		return err;
	return (err = dwr_read_attrs(r, u, c, a, d)) ? err : 1;
}

/*
 * Steps over a DIE's attributes without decoding them: at once when their
 * sizes are fixed.  *sibling gets DW_AT_sibling's target, or 0.
 */
int dwr_skip_attrs(const struct gmp_dwr *r, const struct unit *u, struct gmp_dec *c,
		      const struct abbrev *a, uint64_t *sibling)
{
	struct val v;
	*sibling = 0;
	if (a->fixed >= 0 && a->key == unit_key(u)) {
		if (a->sib >= 0 && a->children) {
			struct gmp_dec sc = *c;
			gmp_dec_bytes(&sc, (uint64_t)a->sib);
			if (!dwr_form(&sc, u, a->sib_form, 0, &v) && v.k == V_REF)
				*sibling = v.u;
		}
		gmp_dec_bytes(c, (uint64_t)a->fixed);
		return c->err ? -EIO : 0;
	}
	const struct spec *sp = &r->ab[u->abbr].spec[a->first];
	for (uint32_t i = 0; i < a->n; i++) {
		int n = fixed_size(sp[i].form, u);
		if (n >= 0 && sp[i].at != DW_AT_sibling) {
			gmp_dec_bytes(c, (uint64_t)n);
			continue;
		}
		int err = dwr_form(c, u, sp[i].form, sp[i].implicit, &v);
		if (err)
			return err;
		if (sp[i].at == DW_AT_sibling && v.k == V_REF)
			*sibling = v.u;
	}
	return c->err ? -EIO : 0;
}

/* The unit holding .debug_info offset off, or NULL. */
_Static_assert(offsetof(struct unit, off) == 0, "gmp_dwarf__upper searches by the first field");

static const struct unit *unit_of(const struct gmp_dwr *r, uint64_t off)
{
	size_t lo = gmp_dwarf__upper(r->u, sizeof(*r->u), r->nu, off, NULL);
	return lo && off < r->u[lo - 1].end ? &r->u[lo - 1] : NULL;
}


/* The name of the function DIE at off, through the cache of origins. */
static uint32_t name_at(struct gmp_dwarf *d, uint64_t off, int depth)
{
	if (d->threads)
		pthread_spin_lock(&d->mu);
	uint32_t *hit = gmp_u64map__get(&d->names, off), known = hit ? *hit : 0;
	if (d->threads)
		pthread_spin_unlock(&d->mu);
	if (known)
		return known - 1;
	const struct unit *u = unit_of(d->own, off);
	uint32_t id = 0;
	struct die x;
	struct gmp_dec c = at(&d->own->s[S_INFO], off);
	if (u && dwr_read_die(d->own, u, &c, &x) == 1)
		id = dwr_func_name(d, u, &x, depth + 1);
	if (d->threads)
		pthread_spin_lock(&d->mu);
	uint32_t *slot_ = gmp_u64map__slot(&d->names, off, id + 1, NULL);
	(void)slot_; /* out of memory only costs the cache */
	if (d->threads)
		pthread_spin_unlock(&d->mu);
	return id;
}

/* The name binutils prints: the linkage name, else the name, else the origin's. */
uint32_t dwr_func_name(struct gmp_dwarf *d, const struct unit *u, const struct die *x, int depth)
{
	const char *n = dwr_string(d->own, u, &x->linkage);
	if (!n)
		n = dwr_string(d->own, u, &x->name);
	if (n || depth > 8)
		return gmp_dwarf__intern(d, n);
	uint32_t id = 0;
	if (x->origin.k == V_REF)
		id = name_at(d, x->origin.u, depth);
	if (!id && x->spec.k == V_REF)
		id = name_at(d, x->spec.u, depth);
	return id;
}

/* DWARF 5 range list at off in .debug_rnglists. */
static int rnglist(const struct gmp_dwr *r, const struct unit *u, uint64_t off, range_cb fn,
		   void *ctx)
{
	struct gmp_dec c = at(&r->s[S_RNGLISTS], off);
	uint64_t base = u->base;
	int rc = 0, ok = 1, ok2 = 1;
	while (!rc && !c.err) {
		uint8_t kind = (uint8_t)rd(&c, 1);
		struct val a = { V_ADDRX, 0, NULL }, b = a;
		uint64_t lo, hi;
		switch (kind) {
		case DW_RLE_end_of_list:
			return 0;
		case DW_RLE_base_addressx:
			a.u = gmp_dec_varint(&c);
			base = dwr_address(r, u, &a, &ok);
			break;
		case DW_RLE_startx_endx:
			a.u = gmp_dec_varint(&c);
			b.u = gmp_dec_varint(&c);
			lo = dwr_address(r, u, &a, &ok);
			hi = dwr_address(r, u, &b, &ok2);
			if (ok && ok2)
				rc = fn(ctx, lo, hi);
			break;
		case DW_RLE_startx_length:
			a.u = gmp_dec_varint(&c);
			lo = dwr_address(r, u, &a, &ok);
			hi = lo + gmp_dec_varint(&c);
			if (ok)
				rc = fn(ctx, lo, hi);
			break;
		case DW_RLE_offset_pair:
			lo = gmp_dec_varint(&c);
			hi = gmp_dec_varint(&c);
			rc = fn(ctx, base + lo, base + hi);
			break;
		case DW_RLE_base_address:
			base = rd(&c, u->asize);
			break;
		case DW_RLE_start_end:
			lo = rd(&c, u->asize);
			hi = rd(&c, u->asize);
			rc = fn(ctx, lo, hi);
			break;
		case DW_RLE_start_length:
			lo = rd(&c, u->asize);
			hi = lo + gmp_dec_varint(&c);
			rc = fn(ctx, lo, hi);
			break;
		default:
			return 0; /* a kind of a later version: stop, as libdwarf does */
		}
	}
	return rc;
}

/* Calls fn for each address range of a DIE (low/high pc, ranges or rnglists). */
int dwr_die_ranges(const struct gmp_dwr *r, const struct unit *u, const struct die *x,
		      range_cb fn, void *ctx)
{
	int ok = 0;
	uint64_t lo = dwr_address(r, u, &x->low, &ok);
	if (ok && x->high.k != V_NONE) {
		int ok2 = 1;
		uint64_t hi = x->high.k == V_CONST || x->high.k == V_SCONST ? lo + x->high.u
									     : dwr_address(r, u, &x->high, &ok2);
		return ok2 ? fn(ctx, lo, hi) : 0;
	}
	if (x->ranges.k == V_NONE)
		return 0;
	if (u->version >= 5) {
		uint64_t off = x->ranges.u;
		if (x->ranges.k == V_RNGX) {
			if (!u->has_rng_base)
				return 0;
			struct gmp_dec c = at(&r->s[S_RNGLISTS], u->rng_base + x->ranges.u * u->offsz);
			off = u->rng_base + rd(&c, u->offsz);
			if (c.err)
				return 0;
		}
		return rnglist(r, u, off, fn, ctx);
	}
	/* DWARF 2 to 4: address pairs in .debug_ranges, from the CU's base. */
	struct gmp_dec c = at(&r->s[S_RANGES], x->ranges.u);
	uint64_t base = u->base, max = u->asize == 8 ? UINT64_MAX : 0xffffffffu;
	int rc = 0;
	while (!rc && !c.err) {
		uint64_t a = rd(&c, u->asize), b = rd(&c, u->asize);
		if (c.err || (!a && !b))
			break;
		if (a == max)
			base = b;
		else
			rc = fn(ctx, base + a, base + b);
	}
	return rc;
}
