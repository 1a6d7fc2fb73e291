/* SPDX-License-Identifier: MIT */
/* Part of the libdwarf shim (dwarf.c): a DIE's address ranges. */
#ifndef GMPROF_DWARF_RANGES_H
#define GMPROF_DWARF_RANGES_H

#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>
#include <stdint.h>

typedef int (*range_fn)(void *ctx, uint64_t lo, uint64_t hi);

/*
 * Calls fn for each address range of a DIE: low/high pc, DWARF 4 ranges or
 * DWARF 5 rnglists; cu_base is the CU's base address.  Returns 0, or the
 * first non-zero value fn returned.
 */
int gmp_dwarf__die_ranges(Dwarf_Debug dbg, Dwarf_Die die, uint64_t cu_base, range_fn fn,
			  void *ctx);

#endif
