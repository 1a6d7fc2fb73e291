/* SPDX-License-Identifier: MIT */
/*
 * File address -> function, file and line from DWARF (libdwarf behind
 * this one interface).  Strings returned are owned by the gmp_dwarf and
 * live until it is closed.  Not thread-safe.
 */
#ifndef GMPROF_DWARF_H
#define GMPROF_DWARF_H

#include <stddef.h>
#include <stdint.h>

struct gmp_dwarf;

struct gmp_srcloc {
	const char *function;   /* NULL unknown */
	const char *file;       /* NULL unknown */
	uint32_t line;          /* 0 unknown */
	uint32_t discriminator;
};

/*
 * Opens the DWARF of an ELF file (following .gnu_debuglink into
 * /usr/lib/debug).  Returns 0, -ENODATA when it has no DWARF, -EIO when it
 * is damaged, -ENOMEM, -ENOENT when path cannot be opened, -EINVAL when it
 * is not a regular file.
 */
int gmp_dwarf__open(const char *path, struct gmp_dwarf **out);
void gmp_dwarf__close(struct gmp_dwarf *d);
/*
 * Looks up a file address.  out[0] is the innermost location (an inlined
 * function when there is one); out[1..] the callers it was inlined into,
 * each with its call site.  Returns how many it filled (0: nothing known).
 */
int gmp_dwarf__lookup(struct gmp_dwarf *d, uint64_t addr, struct gmp_srcloc *out, int max);
/*
 * Loads, on two threads where there are two cores, the CUs that n
 * addresses fall in (each a uint64_t at addrs + i * stride), so that
 * looking them up finds them loaded.  Only gmprof's own reader does this.
 */
void gmp_dwarf__preload(struct gmp_dwarf *d, const void *addrs, size_t n, size_t stride);

#endif
