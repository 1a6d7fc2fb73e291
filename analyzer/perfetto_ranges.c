// SPDX-License-Identifier: MIT
/*
 * NVTX ranges in the Perfetto trace, on the host clock axis: a process
 * "host: NVTX ranges" with a track per host thread, and a slice per run of
 * the thread's calls made inside one range, nested as the ranges were (a
 * range holding no GPU call leaves no slice: the profile never heard of
 * it).  A slice lasts from its first call to its last, plus a slice's
 * length, cut where the next call outside it begins.  NVTX marks are
 * instants on their threads' tracks (the process is "host: NVTX marks"
 * where there are no ranges).  The topological axis has none: its levels
 * do not follow a thread's order.
 */
#define _GNU_SOURCE
#include "perfetto.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings_json.h"
#include "markmem.h"
#include "oneline.h"
#include "u64map.h"
#include "util.h"

struct open_range {
	uint32_t name;           /* STRING id */
	uint64_t start, last;    /* host ns of its first and last call */
};

struct thread_ranges {
	uint32_t tid;
	int named;
	struct open_range open[GMP_RANGE_DEPTH_MAX];
	size_t depth;
};

struct pr {
	struct gmp_perfetto_doc *d;
	const struct gmp_trace *t;
	uint32_t pid;
	const struct gmp_result *r;
	const struct gmp_mmem *mm;  /* the live bytes at the marks */
};

/* Starts a trace event on a line of its own: its phase, name and process. */
static struct gmp_jw *open_event(struct pr *p, const char *ph, const char *name)
{
	struct gmp_jw *jw = &p->d->jw;
	if (p->d->any)
		gmp_jw__raw(jw, ",\n", 2);
	p->d->any = 1;
	jw->first[1] = 1;
	gmp_jw__obj(jw);
	GMP_JW_KEY(jw, "ph");
	gmp_jw__str(jw, ph);
	GMP_JW_KEY(jw, "name");
	gmp_jw__str(jw, name);
	GMP_JW_KEY(jw, "pid");
	gmp_jw__u64(jw, p->pid);
	p->d->written++;
	return jw;
}

static void slice(struct pr *p, uint32_t tid, const struct open_range *o, uint64_t end)
{
	struct gmp_jw *jw = open_event(p, "X", gmp_trace__str(p->t, o->name, NULL));
	GMP_JW_KEY(jw, "tid");
	gmp_jw__u64(jw, tid);
	GMP_JW_KEY(jw, "ts");
	gmp_jw__milli(jw, o->start);
	GMP_JW_KEY(jw, "dur");
	gmp_jw__milli(jw, end > o->start ? end - o->start : 0);
	GMP_JW_KEY(jw, "cat");
	gmp_jw__str(jw, "nvtx");
	gmp_jw__obj_end(jw);
}

/* A metadata event: the process's name, or (thread: a thread_name) thread tid's, 0 too (a script's thread). */
static void name_event(struct pr *p, const char *what, int thread, uint32_t tid, const char *name)
{
	struct gmp_jw *jw = open_event(p, "M", what);
	if (thread) {
		GMP_JW_KEY(jw, "tid");
		gmp_jw__u64(jw, tid);
	}
	GMP_JW_KEY(jw, "args");
	gmp_jw__obj(jw);
	GMP_JW_KEY(jw, "name");
	gmp_jw__str(jw, name);
	gmp_jw__obj_end(jw);
	gmp_jw__obj_end(jw);
}

/* Closes thread th's ranges from depth k on, as the call at host time `next` is outside them. */
static void close_from(struct pr *p, struct thread_ranges *th, size_t k, uint64_t next)
{
	while (th->depth > k) {
		const struct open_range *o = &th->open[--th->depth];
		uint64_t end = o->last + GMP_PERFETTO_SLICE_NS;
		slice(p, th->tid, o, end < next ? end : next);
	}
}

/* The host threads met so far: their ranges, and whether their tracks are named. */
struct threads {
	struct gmp_u64map of; /* host thread -> its index + 1 */
	struct thread_ranges *th;
	size_t nth, cap;
};

/* Thread tid's entry, added at first sight (NULL: out of memory). */
static struct thread_ranges *thread_at(struct threads *ts, uint32_t tid)
{
	int is_new = 0;
	uint32_t *slot = gmp_u64map__slot(&ts->of, tid, 0, &is_new);
	if (!slot || (is_new && GMP_GROW(ts->th, ts->cap, ts->nth + 1)))
		return NULL;
	if (is_new) {
		ts->th[ts->nth] = (struct thread_ranges){ .tid = tid };
		*slot = (uint32_t)++ts->nth;
	}
	return &ts->th[*slot - 1];
}

/* Names h's track once: "pt_autograd_0 (thread 4242)" where the profile has its name. */
static void name_track(struct pr *p, struct thread_ranges *h)
{
	if (h->named)
		return;
	char key[40], buf[160], one[100];
	snprintf(key, sizeof(key), "thread.%u.name", h->tid);
	const char *os = gmp_trace__meta(p->t, key);
	if (os && *os)
		snprintf(buf, sizeof(buf), "%s (thread %u)", gmp_oneline(os, one, sizeof(one)), h->tid);
	else
		snprintf(buf, sizeof(buf), "thread %u", h->tid);
	name_event(p, "thread_name", 1, h->tid, buf);
	h->named = 1;
}

/* NVTX mark k: an instant on its thread's track, with the live bytes then on each device its group is shown on. */
static void mark(struct pr *p, size_t k, size_t g)
{
	const struct gmp_mark *m = &p->t->marks[k];
	struct gmp_jw *jw = open_event(p, "i", gmp_trace__str(p->t, m->name, NULL));
	GMP_JW_KEY(jw, "tid");
	gmp_jw__u64(jw, m->thread);
	GMP_JW_KEY(jw, "ts");
	gmp_jw__milli(jw, m->host_ns);
	GMP_JW_KEY(jw, "s");
	gmp_jw__str(jw, "t");
	GMP_JW_KEY(jw, "cat");
	gmp_jw__str(jw, "nvtx_mark");
	GMP_JW_KEY(jw, "args");
	gmp_jw__obj(jw);
	for (size_t d = 0; d < p->mm->ndev; d++) {
		char key[48], b[32];
		if (!gmp_mmem__shown(p->mm, g, d))
			continue;
		snprintf(key, sizeof(key), "live on device %u", p->r->devices[d].device);
		gmp_jw__kstr(jw, key, gmp_human_bytes(p->mm->live[k * p->mm->ndev + d], b, sizeof(b)));
	}
	gmp_jw__obj_end(jw);
	gmp_jw__obj_end(jw);
}

int gmp_perfetto__ranges(struct gmp_perfetto_doc *d, const struct gmp_result *r, uint32_t pid)
{
	const struct gmp_trace *t = r->trace;
	if (!d->host || (!t->ev_range && !t->nmarks))
		return 0;
	struct gmp_mmem mm;
	struct pr p = { d, t, pid, r, &mm };
	struct threads ts = { 0 };
	gmp_u64map__init(&ts.of);
	int err = gmp_mmem__build(r, &mm);
	name_event(&p, "process_name", 0, 0, t->ev_range ? "host: NVTX ranges" : "host: NVTX marks");
	for (size_t i = 0; i < t->nev && t->ev_range && !err; i++) {
		const struct gmp_event *e = &t->ev[i];
		if (gmp_event__in_kernel(e))
			continue; /* read back later, on another thread: its launch's ranges */
		struct thread_ranges *h = thread_at(&ts, e->thread);
		if (!h) {
			err = -ENOMEM;
			break;
		}
		const uint32_t *names;
		size_t n = gmp_trace__range_path(t, t->ev_range[i], &names), k = 0;
		while (k < n && k < h->depth && h->open[k].name == names[k])
			k++;
		if (n)
			name_track(&p, h);
		close_from(&p, h, k, e->host_ns);
		for (; h->depth < n; h->depth++)
			h->open[h->depth] = (struct open_range){ names[h->depth], e->host_ns, e->host_ns };
		for (size_t j = 0; j < h->depth; j++)
			h->open[j].last = e->host_ns;
	}
	for (size_t i = 0; i < ts.nth; i++)
		close_from(&p, &ts.th[i], 0, UINT64_MAX);
	for (size_t i = 0; i < t->nmarks && !err; i++) {
		const struct gmp_mark *m = &t->marks[i];
		if (!m->host_ns)
			continue; /* a script's mark with no time: nowhere on this axis */
		struct thread_ranges *h = thread_at(&ts, m->thread);
		if (!h) {
			err = -ENOMEM;
			break;
		}
		name_track(&p, h);
		mark(&p, i, mm.of[i]);
	}
	free(ts.th);
	gmp_u64map__release(&ts.of);
	gmp_mmem__release(&mm);
	return err;
}
