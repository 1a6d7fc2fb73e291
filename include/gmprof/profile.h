/* SPDX-License-Identifier: MIT */
/*
 * The gmprof profile: a versioned, append-only binary file of records.
 * The collector writes it while the program runs; the analyzer reads it.
 * The format is documented in docs/profile-format.md.
 *
 * Writer: not thread-safe; the caller serializes.  It owns its file
 * descriptor and buffer.  Every function returns 0 (or an id/index) on
 * success and a negative errno on failure; after a write error the writer
 * stays failed and every later call returns the same error.
 *
 * Reader: returns a new trace owned by the caller.  A profile cut off at
 * any byte after its header reads up to the last complete record and sets
 * trace->truncated; a record that fails its checksum stops the reader and
 * sets trace->damaged.  Neither is an error.
 */
#ifndef GMPROF_PROFILE_H
#define GMPROF_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "gmprof/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GMP_PROFILE_MAGIC "\x89GMPROF\n"
#define GMP_PROFILE_MAGIC_LEN 8
#define GMP_PROFILE_HEADER_LEN 16
#define GMP_PROFILE_VERSION_MAJOR 1
#define GMP_PROFILE_VERSION_MINOR 7 /* 1.1: LABEL records; 1.2: FAILED_ALLOC, RANGES; 1.3: POOLS; 1.4: kind cuda_array;
				    1.5: RETURNED; 1.6: MARK; 1.7: kind imported, EXPORTED */

enum gmp_record_type {
	GMP_REC_META = 1,
	GMP_REC_STRING = 2,
	GMP_REC_STACK = 3,
	GMP_REC_MODULE = 4,
	GMP_REC_STREAM = 5,
	GMP_REC_EVENT = 6,
	GMP_REC_ACCESS = 7,
	GMP_REC_TOUCH = 8,
	GMP_REC_FINDINGS = 9,
	GMP_REC_END = 10,
	GMP_REC_LABEL = 11,  /* 1.1: a name given to an earlier allocation */
	GMP_REC_FAILED_ALLOC = 12, /* 1.2: an allocation that ran out of memory */
	GMP_REC_RANGES = 13, /* 1.2: a host thread's NVTX ranges from here on */
	GMP_REC_POOLS = 14,  /* 1.3: a device's stream-ordered memory pools, as the driver said */
	GMP_REC_RETURNED = 15, /* 1.5: when a blocking call returned */
	GMP_REC_MARK = 16,   /* 1.6: an NVTX mark */
	GMP_REC_EXPORTED = 17, /* 1.7: an earlier allocation shared with other processes */
	GMP_REC_MAX = 17
};

struct gmp_writer;

/* Takes ownership of fd (closed by gmp_writer__close) and writes the header. */
int gmp_writer__open_fd(int fd, size_t buffer_bytes, struct gmp_writer **out);
/*
 * Creates path (never following a symlink; never overwriting unless force)
 * and opens a writer on it; a regular file whose header cannot be written
 * is removed.
 */
int gmp_writer__create(const char *path, int force, size_t buffer_bytes,
		       struct gmp_writer **out);

int gmp_writer__meta(struct gmp_writer *w, const char *key, const char *value);
/* Interns s; writes a STRING record the first time.  Returns id >= 1 or -errno. */
int64_t gmp_writer__string(struct gmp_writer *w, const char *s, size_t len);
/* Interns a call stack; writes a STACK record the first time. */
int64_t gmp_writer__stack(struct gmp_writer *w, const uint64_t *pcs, size_t n);
int gmp_writer__module(struct gmp_writer *w, const struct gmp_module *m);
int gmp_writer__stream(struct gmp_writer *w, const struct gmp_stream_info *s);
/*
 * Appends one event; string and stack ids in ev are the writer's own.
 * Returns the event's index (from 0) or -errno.  acc_*, touch_* and line
 * are not written: see gmp_writer__accesses/touches.
 */
int64_t gmp_writer__event(struct gmp_writer *w, const struct gmp_event *ev);
/* A kernel's read/write sets and intra-object touches, possibly later. */
int gmp_writer__accesses(struct gmp_writer *w, uint64_t event,
			 const struct gmp_access *acc, size_t n);
int gmp_writer__touches(struct gmp_writer *w, uint64_t event,
			const struct gmp_touch *touch, size_t n);
int gmp_writer__findings(struct gmp_writer *w, const char *json, size_t len);
/*
 * Names the allocation of an earlier ALLOC event (a region named after it
 * was registered): label is a STRING id of the writer's.  A later label
 * replaces an earlier one.
 */
int gmp_writer__label(struct gmp_writer *w, uint64_t event, uint32_t label);
/*
 * The allocation of an earlier ALLOC event was shared with other processes
 * (exported: cudaIpcGetMemHandle, cudaMemPoolExportPointer): readers set
 * GMP_EF_EXPORTED on it.
 */
int gmp_writer__exported(struct gmp_writer *w, uint64_t event);
/*
 * An allocation that failed for lack of memory, after the events written
 * so far (f->before is not written: it is the writer's event count); ids
 * in f are the writer's own.
 */
int gmp_writer__failure(struct gmp_writer *w, const struct gmp_alloc_failure *f);
/* A RETURNED record: event's call (and its thread's earlier calls) had returned by host_ns. */
int gmp_writer__returned(struct gmp_writer *w, uint64_t event, uint64_t host_ns);
/* An NVTX mark of host thread `thread` at host_ns, named by the writer's string `name`, before the next event. */
int gmp_writer__mark(struct gmp_writer *w, uint32_t thread, uint64_t host_ns, uint32_t name);
/* A POOLS record: a device's stream-ordered pools after the events written so far (s->before ignored). */
int gmp_writer__pools(struct gmp_writer *w, const struct gmp_pool_state *s);
/*
 * From the next event on, host thread `thread` issues its calls inside the
 * NVTX ranges names[0..n) (STRING ids of the writer's, outermost first;
 * n 0: none).
 */
int gmp_writer__ranges(struct gmp_writer *w, uint32_t thread, const uint32_t *names, size_t n);
/* Writes the buffered, complete records to the file. */
int gmp_writer__flush(struct gmp_writer *w);
uint64_t gmp_writer__events(const struct gmp_writer *w);
/* Bytes handed to the file so far (after the last flush). */
uint64_t gmp_writer__bytes_flushed(const struct gmp_writer *w);
/* The writer's first error (sticky; 0: none); _fail makes err (negative) it where there was none. */
int gmp_writer__error(const struct gmp_writer *w);
int gmp_writer__fail(struct gmp_writer *w, int err);
/*
 * Writes an END record when clean, flushes, closes and frees.  Returns the
 * first error seen over the writer's life, or 0.  NULL is a no-op.
 */
int gmp_writer__close(struct gmp_writer *w, int clean);

/*
 * Drops the writer without writing anything more (a forked child must not
 * add to its parent's file): closes the descriptor and frees.
 */
void gmp_writer__abandon(struct gmp_writer *w);

/* Writes every table and event of t (ids remapped to the writer's). */
int gmp_writer__write_trace(struct gmp_writer *w, const struct gmp_trace *t);

/* 1 when buf starts with the profile magic. */
int gmp_profile__is_profile(const void *buf, size_t len);
/*
 * Reads a whole profile from memory or from a file descriptor (read to its
 * end, not closed).  Returns 0 and a new trace, -EINVAL when the data is
 * not a profile, -EPROTONOSUPPORT for another major version, -ENODATA when
 * the header itself is cut short, -ENOMEM or the read error.
 */
int gmp_profile__read_mem(const void *buf, size_t len, struct gmp_trace **out);
int gmp_profile__read_fd(int fd, struct gmp_trace **out);

#ifdef __cplusplus
}
#endif
#endif
