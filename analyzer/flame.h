/* SPDX-License-Identifier: MIT */
/*
 * Bytes by call path: a calling-context tree whose nodes are frames (any
 * text: a function and its line, a device, an NVTX range, an object) and
 * whose leaves hold bytes, written as folded stacks (the input of
 * flamegraph.pl, inferno and speedscope) or drawn as an SVG flame graph
 * (no script: each frame's full text and bytes in its tooltip).
 *
 * Ownership: a gmp_flame owns copies of its labels.  Not thread-safe.
 */
#ifndef GMPROF_FLAME_H
#define GMPROF_FLAME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct gmp_flame;

#define GMP_FLAME_ROOT 0u   /* the node above every path */

/* 0, or -ENOMEM. */
int gmp_flame__new(struct gmp_flame **out);
void gmp_flame__free(struct gmp_flame *f);   /* NULL: nothing */
/*
 * The child of node parent labeled label (len bytes), made when new: its
 * node (>= 1), or -ENOMEM.
 */
int64_t gmp_flame__child(struct gmp_flame *f, uint32_t parent, const char *label, size_t len);
/*
 * A tree has one side, or two to compare (a run before a change, side 0,
 * and after it, side 1): bytes are added to the side chosen last (0 at
 * first).  A tree with a side 1 is a differential one.
 */
void gmp_flame__side(struct gmp_flame *f, int side);
/* Adds bytes to node's own on the current side (its callers' totals include them). */
void gmp_flame__add(struct gmp_flame *f, uint32_t node, uint64_t bytes);
/* Every byte added to a side. */
uint64_t gmp_flame__total(const struct gmp_flame *f, int side);

/*
 * Folded stacks: a line per path that holds bytes of its own, its frames
 * from the root down joined by ';', a space and the bytes (a differential
 * tree: its bytes on side 0, a space, on side 1, as difffolded.pl writes
 * them); paths in the byte order of their frames.  A ';' or a line break
 * inside a label is written as ':' or ' '.  0, or -EIO / -ENOMEM.
 */
int gmp_flame__folded(struct gmp_flame *f, FILE *fp);

/*
 * The tree as indented text, a line per frame, the widest first, under a
 * line for all: its share of the total, its bytes (a differential tree:
 * before, after and the change), its label.  Frames under min_pct of the
 * total are counted on one line per caller instead.  0, or -EIO / -ENOMEM.
 */
int gmp_flame__text(struct gmp_flame *f, FILE *fp, double min_pct);

struct gmp_flame_svg {
	const char *title;   /* the top row's text, and the drawing's title */
	unsigned width;      /* pixels (>= 200) */
	int standalone;      /* an SVG file (XML declaration, namespace) rather than inline in HTML */
};

/*
 * An icicle flame graph: the root's row on top, each frame below its
 * caller, as wide as its share of the total, the widest first; frames
 * under half a pixel are left out (the total still counts them).  A
 * differential tree is drawn as side 1, each frame red as far as it grew
 * from side 0, blue as far as it shrank; its tooltip gives both.
 * 0, or -EIO / -ENOMEM.
 */
int gmp_flame__svg(struct gmp_flame *f, FILE *fp, const struct gmp_flame_svg *o);

/* Which bytes of a run (flame_session.c). */
enum gmp_flame_what {
	GMP_FLAME_PEAK,       /* those live at each device's largest peak */
	GMP_FLAME_LEAKED,     /* those its memory_leak findings leave allocated (gmp_leaked_bytes) */
	GMP_FLAME_ALLOCATED,  /* every byte it allocated */
	GMP_FLAME_IN_USE,     /* those in use at each device's peak of bytes in use: a pool with
				 NVTX regions by its regions (without regions, the peak's) */
	GMP_FLAME_RANGE,      /* those live at NVTX range `range`'s peak on each device
				 (rangemem.h: right after the first call inside it to reach it) */
	GMP_FLAME_KEPT,       /* those NVTX range `range`'s times kept on each device: allocated
				 since its first time began, live as its last began (gmp_rmem__kept) */
	GMP_FLAME_MARK,       /* those live at the NVTX mark named `range` that found the most on
				 each device (markmem.h) */
	GMP_FLAME_MARK_KEPT,  /* those the marks named `range` kept on each device: allocated since
				 the first, live at the last (gmp_mmem__kept) */
};

struct gmp_flame_opts {
	enum gmp_flame_what what;
	uint32_t device;      /* only this device's objects, or GMP_ANY_DEVICE */
	int nvtx;             /* the NVTX ranges an object was allocated in as frames, outermost first */
	int objects;          /* the object's name as the last frame */
	const char *root;     /* a frame above every path (an input's name), or NULL */
	int device_frames;    /* "device N" above each path even when the run used one device */
	const char *ranges;   /* only objects allocated in NVTX ranges matching this glob, or NULL */
	const char *range;    /* GMP_FLAME_RANGE, GMP_FLAME_KEPT: the range's path, "outer > inner";
				 GMP_FLAME_MARK, GMP_FLAME_MARK_KEPT: the marks' name */
};

/*
 * Adds the bytes of session s's objects (o->what), each at its allocation
 * call path: the frames of its stack from the outermost, up to the
 * outermost --alloc-fn wrapper (left out, with what it called); else its
 * site.  Above them: o->root, "device N" when every device is wanted and
 * the run used several (or o->device_frames), the NVTX ranges (o->nvtx).
 * Pools count whole, as peaks count them, but in GMP_FLAME_IN_USE.  The
 * number of objects added, -ENOENT when the run has no range o->range
 * (GMP_FLAME_RANGE, GMP_FLAME_KEPT), or -ENOMEM.
 */
struct gmp_session;
int64_t gmp_flame__session(struct gmp_flame *f, struct gmp_session *s, const struct gmp_flame_opts *o);

#endif
