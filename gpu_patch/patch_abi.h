/* SPDX-License-Identifier: MIT */
/*
 * The data the collector (host) and the device patches share: structs and
 * constants only, laid out identically for nvcc and the host C compiler
 * (device pointers are uint64_t).  The size of each field is in its
 * comment; every struct is a multiple of 8 bytes.
 *
 * For each monitored launch the collector fills one struct
 * gmp_patch_launch in device memory and passes its address as the
 * callbacks' userdata (with the hit list in host memory, the patches
 * write nothing in it, and the host may upload several launches' at once,
 * each in a slot of its own).  The objects are in two tables: the base, the live
 * set as it was when the host built it (shared by launches until it is
 * rebuilt), and the recent table, objects allocated since (small, new
 * whenever the live set changes).  An object of the base freed since is a
 * tombstone there: its end is set to its start, so nothing matches it.
 * Entries are numbered through both: the base's 0 .. n-1, then the recent
 * table's n .. n+r-1 (the hit words, the hit list, the intra maps).
 */
#ifndef GMPROF_PATCH_ABI_H
#define GMPROF_PATCH_ABI_H

#include <stdint.h>

#define GMP_PATCH_ABI_VERSION 8

/* Access flags as the Compute Sanitizer passes them to a memory-access patch. */
#define GMP_SAN_ACCESS_READ 0x1u
#define GMP_SAN_ACCESS_WRITE 0x2u
#define GMP_SAN_ACCESS_ATOMSYS 0x4u   /* a system-scope atomic */
#define GMP_SAN_ACCESS_PREFETCH 0x8u  /* a prefetch: reads nothing */

/*
 * Hit words, one uint32_t per table entry: stamp << 2 | bits, where the
 * stamp says which launch of the buffer set the bits (GMP_HIT_STAMP of
 * its epoch) and bits are GMP_HIT_READ and GMP_HIT_WRITE.  A word whose
 * stamp is another launch's holds no hit of this one, so a buffer's hit
 * words are cleared once, when it is new, not before every launch: the
 * host numbers each launch of a buffer (gmp_patch_launch.epoch), and the
 * first access to an entry in a launch replaces the older stamp.  Stamps
 * count from 1 (epoch + 1): a cleared word is no launch's.
 */
#define GMP_HIT_READ 0x1u
#define GMP_HIT_WRITE 0x2u
#define GMP_HIT_STAMP_BITS 30
#define GMP_HIT_STAMP(epoch) (((uint32_t)(epoch) + 1u) & ((1u << GMP_HIT_STAMP_BITS) - 1u))
/* Epochs a buffer may take before its hit words are cleared again (their stamps would repeat). */
#define GMP_HIT_EPOCHS ((1u << GMP_HIT_STAMP_BITS) - 2u)

/*
 * The hit list: the access that sets a hit bit first (its atomic found it
 * clear) appends the entry and the bits it set, as entry << 2 | bits, to
 * uint32_t list[list_cap], counting them in list_count; both right after
 * struct gmp_patch_launch and in it, or, when list_host is not 0, in a
 * struct gmp_patch_host_list there: pinned host memory the device writes
 * through, so that the host reads what a launch touched after the sync
 * with no copy (the count of heap records goes there too).  Each bit of each entry is appended once, so a launch
 * that touches k objects appends at most 2k, and the host reads what a
 * launch touched without reading every entry's hit word; past list_cap
 * the count goes on and the host reads the hit words instead.  Entries of
 * 2^30 and beyond are never listed (the host gives such tables list_cap 0).
 */
#define GMP_LIST_SHIFT 2
#define GMP_LIST_MAX_ENTRY (1u << 30)

/* What a launch records (gmp_patch_launch.mode). */
#define GMP_MODE_OBJECT 0x1u        /* hit bits per object */
#define GMP_MODE_INTRA_GPU 0x2u     /* access bitmaps and counters kept on the GPU */
#define GMP_MODE_INTRA_STREAM 0x4u  /* access records streamed to the host */
#define GMP_MODE_L1_TESTS 0x8u      /* test hit words and bitmap words first with loads the SM's
				       L1 may answer, then at the L2 when those lack the bits
				       (GMPROF_PATCH_LOADS=l1); without it they are read at the
				       L2, coherent across the GPU */

/*
 * Per-instruction records (GMPROF_PATCH_HINTS=1): uint64_t hints[GMP_HINTS],
 * indexed by the accessing instruction's pc, each entry | (uint64_t)word
 * << 32: the table entry that instruction found last, and a hit word
 * (stamp << 2 | bits, as above) that entry is known to hold.  A load or
 * store instruction of a kernel mostly touches one array, so the warp
 * tries that entry before searching the table; and when the word carries
 * this launch's stamp and the bits the warp would set, they are set
 * already and the warp is done, without reading the hit word (which every
 * warp of the GPU reading that array would read, one request at a time at
 * the L2).  The entry is only a guess, checked against its bounds, and a
 * word with an older stamp claims nothing, so the loads may be stale and
 * racing warps may overwrite each other's records; but a record with this
 * launch's stamp must be true: a warp writes one only after setting (or
 * seeing) those bits in that launch, and the host clears the records
 * whenever it clears the hit words (the stamps then start again), so no
 * record holds a launch's stamp when the launch starts.
 */
#define GMP_HINTS 1024u
#define GMP_HINT_SLOT(pc) ((uint32_t)((pc) >> 4) & (GMP_HINTS - 1u)) /* 16-byte instructions */

#define GMP_GRAN_SHIFT_DEFAULT 2    /* bitmap: one bit per 4 bytes */
#define GMP_CGRAN_SHIFT_DEFAULT 6   /* counters: one per 64 bytes */

/*
 * A table of objects, sorted by start, disjoint: uint64_t start[n] then
 * uint64_t end[n] follow the header, n < 2^31 (the patches index entries
 * in 32 bits; such a table would take 32 GiB).  A pool with regions is split into
 * its regions and the gaps between them.  In the base, end == start marks
 * a tombstone: whatever an address there belongs to is in the recent table
 * (an object of the base is never in both: one allocated where a tombstone
 * was is recent, and the base was disjoint when it was built).
 */
struct gmp_patch_table {
	uint64_t n;                  /* 8: entries */
	uint64_t version;            /* 8: bumped whenever the host rebuilds it */
};

/* Per table entry in intra mode: where its object's maps live. */
struct gmp_patch_intra_obj {
	uint64_t base;               /* 8: the object's start (offsets count from here) */
	uint64_t size;               /* 8: the object's size */
	uint64_t bitmap;             /* 8: uint32_t words, one bit per 1 << gran_shift bytes; 0: none */
	uint64_t counters;           /* 8: uint32_t per 1 << cgran_shift bytes; 0: none */
};

/* Stream mode: one memory access. */
struct gmp_patch_record {
	uint64_t addr;               /* 8 */
	uint32_t size;               /* 4: bytes */
	uint32_t flags;              /* 4: GMP_SAN_ACCESS_* */
};

/* A malloc() or free() inside a kernel. */
struct gmp_patch_heap_record {
	uint64_t ptr;                /* 8 */
	uint64_t size;               /* 8: bytes; 0 for a free */
};

struct gmp_patch_launch {
	uint64_t table;              /* 8: const struct gmp_patch_table *: the base */
	uint64_t hits;               /* 8: uint32_t[entries], hit words (stamps of epoch + 1 are this launch's) */
	uint64_t intra;              /* 8: struct gmp_patch_intra_obj[entries], or 0 */
	uint64_t records;            /* 8: struct gmp_patch_record[record_cap], or 0 */
	uint64_t heap;               /* 8: struct gmp_patch_heap_record[heap_cap], or 0 */
	uint32_t mode;               /* 4: GMP_MODE_* */
	uint32_t gran_shift;         /* 4: log2 of the bitmap granularity */
	uint32_t cgran_shift;        /* 4: log2 of the counter granularity */
	uint32_t record_cap;         /* 4 */
	uint32_t heap_cap;           /* 4 */
	uint32_t abi;                /* 4: GMP_PATCH_ABI_VERSION */
	uint32_t record_count;       /* 4: records claimed; beyond record_cap they were dropped */
	uint32_t heap_count;         /* 4: heap records claimed; likewise */
	uint32_t list_count;         /* 4: hit list entries claimed; likewise */
	uint32_t list_cap;           /* 4: uint32_t entries after this struct */
	uint64_t hints;              /* 8: uint64_t[GMP_HINTS], or 0 (GMP_HINTS above) */
	uint64_t recent;             /* 8: const struct gmp_patch_table *, or 0: the recent table */
	uint32_t epoch;              /* 4: this launch's number among its buffer's (GMP_HIT_STAMP) */
	uint32_t base_n;             /* 4: the base's entries (its n): the patches search it without
					reading its header first, one dependent load fewer an access */
	uint64_t list_host;          /* 8: struct gmp_patch_host_list *, or 0: the list is after this struct */
};

#define GMP_PATCH_LAUNCH_SIZE 112

/*
 * The hit list in pinned host memory (gmp_patch_launch.list_host), with
 * the heap records' count, so that the host reads both without a copy:
 * uint32_t items[list_cap] follow.
 */
struct gmp_patch_host_list {
	uint32_t count;              /* 4: items claimed, as list_count */
	uint32_t heap_count;         /* 4: heap records claimed, as heap_count (the records stay on the device) */
};

#endif
