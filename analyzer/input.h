/* SPDX-License-Identifier: MIT */
/*
 * Loading what the user named: a profile or an event script, told apart by
 * content (the profile's magic), never by file name.  On failure these
 * functions print one line naming the problem and return -1: the caller
 * exits with status 2.
 */
#ifndef GMPROF_INPUT_H
#define GMPROF_INPUT_H

#include "gmprof/detect.h"
#include "gmprof/trace.h"

struct gmp_input {
	const char *path;          /* borrowed */
	struct gmp_trace *trace;   /* owned */
	int is_profile;
};

/* path "-" reads standard input.  salvage: analyze a damaged profile's intact part. */
int gmp_input__load(const char *path, int salvage, struct gmp_input *in);
void gmp_input__release(struct gmp_input *in);

/* Runs the detector; prints a one-line error (with the script line) and returns -1. */
int gmp_input__detect(const struct gmp_input *in, const struct gmp_detect_opts *o,
		      struct gmp_result **out);

/* A profile recorded in alloc mode, without the kernels' accesses: of the patterns, only leaks can be found. */
int gmp_input__alloc_mode(const struct gmp_trace *t);
/* Kernel launches in t. */
uint64_t gmp_input__launches(const struct gmp_trace *t);
/*
 * Launches whose accesses the collector failed to record, where a gate
 * on the patterns of mask rests on them: those without an access set,
 * and (*untouched) intra-mode ones without touches where mask names an
 * intra-object pattern.  0 and 0 in alloc mode and with a capture range,
 * which leave launches unmonitored on purpose.
 */
uint64_t gmp_input__unmonitored(const struct gmp_trace *t, uint32_t mask, uint64_t *untouched);
/* What the collector says of t's tensor maps (META tensor_maps, collector/tensormaps.c). */
struct gmp_tmaps {
	uint64_t encoded;  /* maps the host encoded (or gave another address) */
	uint64_t launches; /* launches that read objects through them */
	uint64_t nodes;    /* graph kernel nodes launched while maps were known: their parameters not read */
	uint64_t forgotten; /* the oldest maps the collector dropped (it keeps the latest): reads through them unseen */
};
/* 1 with *m filled when t says, else 0 (no map, alloc mode, or a profile from before 2026-11-28). */
int gmp_tmaps__of(const struct gmp_trace *t, struct gmp_tmaps *m);
/*
 * 0 when t can have findings of every pattern mask names ("all" asks for
 * what it can have); else -1 after one sentence naming the first that it
 * cannot (option: how the user named them, "--patterns").
 */
int gmp_input__findable(const char *path, const struct gmp_trace *t, uint32_t mask, const char *option);

/* Prints "gmprof: MSG" for an errno-style error about path. */
void gmp_input__perror(const char *path, const char *what, int err);
/* The sentence for an output file gmp_outfile__open could not open (err < 0). */
void gmp_output__perror(const char *path, int err);
/* "cannot write 'path': reason", or "cannot write to standard output" for "-". */
void gmp_output__write_error(const char *path, int err);

#endif
