// SPDX-License-Identifier: MIT
/*
 * NVTX ranges: the phase of the program (nvtxRangePush/Pop, and their
 * domain versions) in which each GPU call was made.  The program's NVTX
 * library loads the collector as its tool, as for the memory extension,
 * and the core initializer below fills the push and pop slots of each NVTX
 * instance (every library that includes NVTX has its own).
 *
 * A thread keeps its stack of open ranges in thread-local memory, with no
 * lock.  The profile hears of it only when the thread records something
 * and its stack changed since its last record (nvtx_sync_ranges, from
 * rec_event): ranges around no GPU call cost a push and a pop here and
 * nothing in the profile, as frameworks that push a range per operator need.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "collector.h"
#include "nvtx_abi.h"

#define API __attribute__((visibility("default")))
#define RANGE_DEPTH 32  /* deeper ranges are counted, not named */
#define RANGE_NAME 96

static __thread struct {
	char name[RANGE_DEPTH][RANGE_NAME];
	unsigned depth;           /* may exceed RANGE_DEPTH */
	uint64_t gen, written;    /* changes made, and the one the profile has */
	int started;              /* this thread has written its ranges */
} tr;
static int ranges_seen;       /* a thread wrote ranges: the others must say theirs (lock) */
static int warned_deep;

static int push(int32_t type, const void *message)
{
	unsigned d = tr.depth++;
	tr.gen++;
	if (d < RANGE_DEPTH) {
		const char *n = type == GMP_NVTX_MESSAGE_ASCII || type == GMP_NVTX_MESSAGE_UNICODE
					? nvtx_name((uint32_t)type, message, tr.name[d], RANGE_NAME) : NULL;
		if (!n || !*n)
			snprintf(tr.name[d], RANGE_NAME, "(unnamed)");
	}
	return (int)d;
}

static int pop(void)
{
	if (!tr.depth)
		return -1; /* NVTX's answer to a pop with nothing pushed */
	tr.gen++;
	return (int)--tr.depth;
}

static int range_push_a(const char *message)
{
	return push(GMP_NVTX_MESSAGE_ASCII, message);
}

static int range_push_w(const wchar_t *message)
{
	return push(GMP_NVTX_MESSAGE_UNICODE, message);
}

static int range_push_ex(const struct gmp_nvtx_event_attr *a)
{
	int known = a && a->size >= offsetof(struct gmp_nvtx_event_attr, message) + sizeof(a->message);
	return push(known ? a->message_type : 0, known ? a->message : NULL);
}

static int domain_range_push_ex(void *domain, const struct gmp_nvtx_event_attr *a)
{
	(void)domain;
	return range_push_ex(a);
}

static int domain_range_pop(void *domain)
{
	(void)domain;
	return pop();
}

void nvtx_sync_ranges(void)
{
	if (tr.gen == tr.written && (tr.started || !ranges_seen))
		return;
	uint32_t ids[RANGE_DEPTH], tid = rec_tid();
	size_t n = tr.depth < RANGE_DEPTH ? tr.depth : RANGE_DEPTH;
	if (tr.depth > RANGE_DEPTH && !warned_deep++)
		rec_say("NVTX ranges nest deeper than %d: the deeper ones are not recorded", RANGE_DEPTH);
	for (size_t i = 0; i < n; i++) {
		int64_t id = gmp_writer__string(gmp_col.w, tr.name[i], strlen(tr.name[i]));
		if (id < 0) {
			rec_write_failed((int)id);
			return;
		}
		ids[i] = (uint32_t)id;
	}
	int err = gmp_writer__ranges(gmp_col.w, tid, ids, n);
	if (err) {
		rec_write_failed(err);
		return;
	}
	if (gmp_col.trace) {
		/* The online trace: its own string ids, the same place among its events. */
		int64_t path = 0;
		for (size_t i = 0; i < n && path >= 0; i++)
			if (!(ids[i] = gmp_trace__intern_cstr(gmp_col.trace, tr.name[i])))
				path = -1;
		if (path == 0)
			path = gmp_trace__add_range_path(gmp_col.trace, ids, n);
		if (path < 0 || gmp_trace__add_range_change(gmp_col.trace, gmp_col.trace->nev, tid,
							    (uint32_t)path))
			rec_online_lost();
	}
	tr.written = tr.gen;
	tr.started = ranges_seen = 1;
}

int nvtx_in_range(const char *name)
{
	for (unsigned i = 0; i < tr.depth && i < RANGE_DEPTH; i++)
		if (!strcmp(tr.name[i], name))
			return 1;
	return 0;
}

/* Fills a module's slots that gmprof implements, where the table has them. */
static void fill(const struct gmp_nvtx_callbacks_table *cb, int module, const int *ids,
		 const gmp_nvtx_fn *fns, size_t n)
{
	gmp_nvtx_fn **table = NULL;
	unsigned int size = 0;
	if (!cb->get_module_function_table(module, &table, &size) || !table)
		return;
	for (size_t i = 0; i < n; i++)
		if ((unsigned)ids[i] <= size && table[ids[i]])
			*table[ids[i]] = fns[i];
}

/* The core modules: ranges. */
API int InitializeInjectionNvtx2(gmp_nvtx_get_export_table get_export_table);
API int InitializeInjectionNvtx2(gmp_nvtx_get_export_table get_export_table)
{
	const struct gmp_nvtx_callbacks_table *cb =
		get_export_table ? get_export_table(GMP_NVTX_ETID_CALLBACKS) : NULL;
	if (!cb || cb->struct_size < sizeof(*cb) || !cb->get_module_function_table)
		return 1; /* no ranges, and the memory extension still loads */
	static const int core[] = { GMP_NVTX_CBID_CORE_RANGE_PUSH_EX, GMP_NVTX_CBID_CORE_RANGE_PUSH_A,
				    GMP_NVTX_CBID_CORE_RANGE_PUSH_W, GMP_NVTX_CBID_CORE_RANGE_POP };
	const gmp_nvtx_fn core_fns[] = { (gmp_nvtx_fn)range_push_ex, (gmp_nvtx_fn)range_push_a,
					 (gmp_nvtx_fn)range_push_w, (gmp_nvtx_fn)pop };
	static const int core2[] = { GMP_NVTX_CBID_CORE2_DOMAIN_RANGE_PUSH_EX,
				     GMP_NVTX_CBID_CORE2_DOMAIN_RANGE_POP };
	const gmp_nvtx_fn core2_fns[] = { (gmp_nvtx_fn)domain_range_push_ex,
					  (gmp_nvtx_fn)domain_range_pop };
	fill(cb, GMP_NVTX_CB_MODULE_CORE, core, core_fns, 4);
	fill(cb, GMP_NVTX_CB_MODULE_CORE2, core2, core2_fns, 2);
	return 1;
}
