// SPDX-License-Identifier: MIT
/* The address ranges of a DIE, through libdwarf 20210528 (see dwarf_ranges.h). */
#include "dwarf_ranges.h"

#include <errno.h>
#include <stddef.h>

int gmp_dwarf__die_ranges(Dwarf_Debug dbg, Dwarf_Die die, uint64_t cu_base, range_fn fn, void *ctx)
{
	Dwarf_Error e = NULL;
	Dwarf_Addr lo, hi;
	Dwarf_Half form;
	enum Dwarf_Form_Class cls;
	if (dwarf_lowpc(die, &lo, &e) == DW_DLV_OK &&
	    dwarf_highpc_b(die, &hi, &form, &cls, &e) == DW_DLV_OK) {
		if (cls == DW_FORM_CLASS_CONSTANT)
			hi += lo;
		return fn(ctx, lo, hi);
	}
	Dwarf_Attribute attr;
	if (dwarf_attr(die, DW_AT_ranges, &attr, &e) != DW_DLV_OK)
		return 0;
	int rc = 0;
	Dwarf_Half aform = 0;
	dwarf_whatform(attr, &aform, &e);
	Dwarf_Unsigned val = 0;
	if (aform == DW_FORM_rnglistx) {
		dwarf_formudata(attr, &val, &e);
	} else {
		Dwarf_Off off = 0;
		if (dwarf_global_formref(attr, &off, &e) != DW_DLV_OK)
			dwarf_formudata(attr, &val, &e);
		else
			val = off;
	}
	Dwarf_Half version = 0, offsize = 0;
	dwarf_get_version_of_die(die, &version, &offsize);
	if (version >= 5) {
		Dwarf_Rnglists_Head head;
		Dwarf_Unsigned count = 0, global = 0;
		if (dwarf_rnglists_get_rle_head(attr, aform, val, &head, &count, &global, &e) ==
		    DW_DLV_OK) {
			for (Dwarf_Unsigned i = 0; i < count && !rc; i++) {
				unsigned len, code;
				Dwarf_Unsigned r1, r2, c1, c2;
				Dwarf_Bool unavailable = 0;
				if (dwarf_get_rnglists_entry_fields_a(head, i, &len, &code, &r1, &r2,
								      &unavailable, &c1, &c2, &e) != DW_DLV_OK)
					break;
				if (code == DW_RLE_end_of_list)
					break;
				if (code != DW_RLE_base_address && code != DW_RLE_base_addressx &&
				    !unavailable)
					rc = fn(ctx, c1, c2);
			}
			dwarf_dealloc_rnglists_head(head);
		}
	} else {
		Dwarf_Ranges *r;
		Dwarf_Signed n = 0;
		Dwarf_Off real;
		Dwarf_Unsigned bytes;
		if (dwarf_get_ranges_b(dbg, val, die, &real, &r, &n, &bytes, &e) == DW_DLV_OK) {
			uint64_t base = cu_base;
			for (Dwarf_Signed i = 0; i < n && !rc; i++) {
				if (r[i].dwr_type == DW_RANGES_END)
					break;
				if (r[i].dwr_type == DW_RANGES_ADDRESS_SELECTION)
					base = r[i].dwr_addr2;
				else
					rc = fn(ctx, base + r[i].dwr_addr1, base + r[i].dwr_addr2);
			}
			dwarf_ranges_dealloc(dbg, r, n);
		}
	}
	dwarf_dealloc(dbg, attr, DW_DLA_ATTR);
	return rc;
}
