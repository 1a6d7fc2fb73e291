/* SPDX-License-Identifier: MIT */
/*
 * Inside the event-script reader (script_read.c, script_fields.c): its
 * state while reading, and the parsers of one line's fields.  Each parser
 * returns 0; 1 for an optional field that is absent (sr_opt_*); or -EINVAL
 * after sr_fail() wrote the reason and the line into the error; or -ENOMEM.
 */
#ifndef GMPROF_SCRIPT_READER_H
#define GMPROF_SCRIPT_READER_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "gmprof/script.h"
#include "gmprof/trace.h"
#include "ranges.h"
#include "u64map.h"

struct reader {
	struct gmp_trace *t;
	struct gmp_script_error *err;
	unsigned line;
	int ended;
	int objects;                   /* lines read as JSON objects so far */
	struct gmp_access *acc;
	size_t nacc, acc_cap;
	struct gmp_touch *touch;
	size_t ntouch, touch_cap;
	struct gmp_u64map last_kernel; /* device << 32 | stream -> its latest launch + 1 */
	struct gmp_u64map heap;        /* device_heap object address -> 1 while live */
	struct gmp_u64map used_streams; /* stream number -> 1 once an op used it, 0 once declared */
	uint32_t last_stream;          /* the stream the latest op used (0 none) */
	struct gmp_range_stacks ranges; /* each thread's open NVTX ranges */
};

/* The line fails: its reason (printf) into the error, with the line number; -EINVAL. */
int sr_fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int sr_in_list(const char *const *list, const char *s);
/* An integer, or a "0x" hex string: the field's value into *v. */
int sr_num(struct reader *r, const cJSON *item, const char *field, uint64_t *v);
int sr_opt_num(struct reader *r, const cJSON *o, const char *field, uint64_t *v);
int sr_req_num(struct reader *r, const cJSON *o, const char *field, uint64_t *v);
int sr_opt_u32(struct reader *r, const cJSON *o, const char *field, uint32_t *v);
/* A string, interned in the trace: its id into *id. */
int sr_opt_str(struct reader *r, const cJSON *o, const char *field, uint32_t *id);
/* "event": a number, or a name (GMP_EVENT_NAMED | its string id); absent: 1, or a failure when required. */
int sr_event_id(struct reader *r, const cJSON *o, uint64_t *v, int required);
/* "read"/"write" addresses, and "touch" entries (*present when the field is), appended to r's. */
int sr_addr_list(struct reader *r, const cJSON *o, const char *field, uint32_t rw);
int sr_parse_rw(struct reader *r, const cJSON *item, uint32_t *rw);
int sr_touch_list(struct reader *r, const cJSON *o, int *present);
/* "kind" of an allocation, when given. */
int sr_parse_kind(struct reader *r, const cJSON *o, uint8_t *kind);

#endif
