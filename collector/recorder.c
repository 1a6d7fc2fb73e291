// SPDX-License-Identifier: MIT
/*
 * The recorder: events into the profile (and into an in-memory trace for
 * the online detector), stream numbering, the
 * flusher thread that bounds what a SIGKILL can lose, and what happens at
 * the end: harvest, the online detector's run (online.c), closing.
 * Callers hold gmp_col.lock unless a comment says otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "alloc_api.h"
#include "collector.h"
#include "gmprof/version.h"
#include "objmap.h"
#include "patch_abi.h"
#include "pathpat.h"
#include "pyframes.h"

void rec_say(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "gmprof: %s\n", buf);
}

/* A write error ends recording, once, with one sentence; the program runs on. */
void rec_write_failed(int err)
{
	if (gmp_col.write_failed)
		return;
	gmp_col.write_failed = 1;
	rec_say("cannot write the profile '%s': %s; the program continues unprofiled",
		gmp_col.path, strerror(-err));
}

static int emit_module(void *ctx, const char *path, const char *build_id, uint64_t base,
		       uint64_t size, uint64_t bias)
{
	(void)ctx;
	int64_t p = gmp_writer__string(gmp_col.w, path, strlen(path));
	int64_t b = *build_id ? gmp_writer__string(gmp_col.w, build_id, strlen(build_id)) : 0;
	if (p < 0 || b < 0)
		return p < 0 ? (int)p : (int)b;
	struct gmp_module m = { .path = (uint32_t)p, .build_id = (uint32_t)b, .base = base,
				.size = size, .bias = bias };
	return gmp_writer__module(gmp_col.w, &m);
}

static void command_line(char *out, size_t n)
{
	out[0] = '\0';
	FILE *fp = fopen("/proc/self/cmdline", "re");
	if (!fp)
		return;
	size_t k = fread(out, 1, n - 1, fp);
	fclose(fp);
	out[k] = '\0';
	for (size_t i = 0; i + 1 < k; i++)
		if (out[i] == '\0')
			out[i] = ' ';
}

static void *flusher_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&gmp_col.lock);
	while (!gmp_col.stop) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		uint64_t ns = (uint64_t)ts.tv_nsec + (uint64_t)gmp_col.opts.flush_ms * 1000000u;
		ts.tv_sec += (time_t)(ns / 1000000000u);
		ts.tv_nsec = (long)(ns % 1000000000u);
		if (!api_off_pending())
			pthread_cond_timedwait(&gmp_col.wake, &gmp_col.lock, &ts);
		if (api_off_pending()) { /* without the lock: the Sanitizer may wait for callbacks in flight */
			pthread_mutex_unlock(&gmp_col.lock);
			api_off_apply();
			pthread_mutex_lock(&gmp_col.lock);
		}
		if (!gmp_col.stop && !gmp_col.closed && !gmp_col.write_failed && gmp_col.w) {
			int err = gmp_writer__flush(gmp_col.w);
			if (err)
				rec_write_failed(err);
		}
	}
	pthread_mutex_unlock(&gmp_col.lock);
	return NULL;
}

static const char *getenv_fn(const char *name)
{
	return getenv(name);
}

/*
 * Under gmprof run, the profile's absolute path goes on the run's list
 * (GMPROF_RUN_MANIFEST, a directory): a file of its own, named by host and
 * pid and created exclusively (which works across the hosts of a shared
 * file system, where appending to one file does not), so that gmprof run
 * reports every profile its program wrote: the ranks of an MPI job, the
 * children of a script.
 */
static char host[256] = "localhost"; /* this machine's name, as rec_open found it */

void rec_list_for_run(void)
{
	const char *m = gmp_col.opts.run_manifest;
	char line[PATH_MAX + 1], entry[PATH_MAX];
	if (!m[0])
		return;
	if (!realpath(gmp_col.path, line) || strchr(line, '\n')) {
		rec_say("gmprof run cannot list the profile '%s' (%s); run 'gmprof report' on it",
			gmp_col.path, strchr(gmp_col.path, '\n') ? "a newline in its path" : strerror(errno));
		return;
	}
	size_t len = strlen(line);
	line[len++] = '\n';
	int fd = -1;
	if (snprintf(entry, sizeof(entry), "%s/%s.%ld", m, host, (long)getpid()) < (int)sizeof(entry))
		fd = open(entry, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	ssize_t wrote = fd < 0 ? -1 : write(fd, line, len);
	int e = wrote < 0 ? errno : 0; /* open's or write's */
	if (fd >= 0 && close(fd) != 0 && wrote == (ssize_t)len)
		wrote = -1, e = errno;
	if (wrote != (ssize_t)len)
		rec_say("cannot add the profile '%s' to gmprof run's list '%s' (%s); run 'gmprof report' on it",
			gmp_col.path, m, wrote < 0 && e ? strerror(e) : "a short write");
}

int rec_open(char *err, size_t errn)
{
	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = '\0';
	if (gmp_path__expand(gmp_col.opts.output, getpid(), host, getenv_fn, gmp_col.path,
			     sizeof(gmp_col.path), err, errn))
		return -EINVAL;
	int rc = gmp_writer__create(gmp_col.path, gmp_col.opts.force, 1 << 16, &gmp_col.w);
	if (rc) {
		if (rc == -EEXIST)
			snprintf(err, errn, "refusing to overwrite '%s' or to follow a symlink there (set GMPROF_FORCE=1 to replace a file)",
				 gmp_col.path);
		else
			snprintf(err, errn, "cannot create the profile '%s': %s", gmp_col.path,
				 strerror(-rc));
		return rc;
	}
	snprintf(err, errn, "cannot start the profile '%s': %s", gmp_col.path, strerror(ENOMEM));
	if (gmp_col.opts.online && !(gmp_col.trace = gmp_trace__new()))
		return -ENOMEM;
	char cmd[4096], num[64], fb[128];
	command_line(cmd, sizeof(cmd));
	snprintf(num, sizeof(num), "%ld", (long)getpid());
	if (gmp_writer__meta(gmp_col.w, "command", cmd) || gmp_writer__meta(gmp_col.w, "pid", num) ||
	    gmp_writer__meta(gmp_col.w, "host", host) ||
	    gmp_writer__meta(gmp_col.w, "gmprof", GMPROF_VERSION) ||
	    gmp_writer__meta(gmp_col.w, "mode", gmp_mode__name(gmp_col.opts.mode)) ||
	    gmp_writer__meta(gmp_col.w, "harvest", gmp_col.opts.harvest ? "launch" : "deferred") ||
	    gmp_writer__meta(gmp_col.w, "sanitizer", gmp_col.san.path) ||
	    (gmp_col.opts.capture &&
	     gmp_writer__meta(gmp_col.w, "capture", gmp_col.opts.capture_value)) ||
	    (gmp_col.opts.fallback &&
	     gmp_writer__meta(gmp_col.w, "fallback", gmp_opts__fallback_names(gmp_col.opts.fallback, fb, sizeof(fb))))) {
		snprintf(err, errn, "cannot write the profile '%s'", gmp_col.path);
		return -EIO;
	}
	snprintf(num, sizeof(num), "%lld", (long long)time(NULL));
	gmp_writer__meta(gmp_col.w, "start_time", num);
	if ((rc = gmp_callpath__new(&gmp_col.cp)))
		return rc;
	gmp_col.pcs = calloc(gmp_col.opts.depth, sizeof(*gmp_col.pcs));
	if (!gmp_col.pcs)
		return -ENOMEM;
	if ((rc = gmp_callpath__modules(gmp_col.cp, emit_module, NULL)) ||
	    (rc = gmp_writer__flush(gmp_col.w))) {
		snprintf(err, errn, "cannot write the profile '%s': %s", gmp_col.path, strerror(-rc));
		return rc;
	}
	gmp_col.t0_ns = st_now();
	pthread_cond_init(&gmp_col.wake, NULL);
	if (pthread_create(&gmp_col.flusher, NULL, flusher_main, NULL) == 0)
		gmp_col.flusher_running = 1;
	return 0;
}


static int64_t intern_w(const char *s)
{
	return s ? gmp_writer__string(gmp_col.w, s, strlen(s)) : 0;
}

uint64_t rec_now(void)
{
	return st_now() - gmp_col.t0_ns;
}

static int64_t intern_ctx(void *ctx, const char *s)
{
	(void)ctx;
	return intern_w(s);
}

/*
 * The call path of the thread's current API call, unwound once however many
 * events the call makes (cudaFree's sync and free): one call, one path.
 */
static _Thread_local struct { const struct gmp_writer *w; uint64_t call; int64_t st; } stack_kept;

int64_t rec_stack(void)
{
	uint64_t call = cb_api_call();
	if (call && stack_kept.call == call && stack_kept.w == gmp_col.w)
		return stack_kept.st;
	uint64_t t0 = st_now();
	if (gmp_callpath__stale(gmp_col.cp))
		gmp_callpath__modules(gmp_col.cp, emit_module, NULL); /* a dlopen since */
	size_t n = gmp_callpath__capture(gmp_col.cp, gmp_col.pcs, gmp_col.opts.depth);
	if (gmp_col.opts.python) /* a Python program's functions and lines, pyframes.c */
		n = gmp_pyframes__splice(gmp_col.pcs, n, gmp_col.opts.depth, intern_ctx, NULL);
	st_since(GMP_ST_STACK, t0);
	int64_t st = n ? gmp_writer__stack(gmp_col.w, gmp_col.pcs, n) : 0;
	if (st < 0) {
		rec_write_failed((int)st);
		return st;
	}
	stack_kept.w = gmp_col.w;
	stack_kept.call = call;
	stack_kept.st = st;
	return st;
}



int64_t rec_event(struct gmp_event *e, const char *name, int stack)
{
	if (!gmp_col.active || gmp_col.closed || gmp_col.write_failed)
		return -1;
	e->thread = rec_tid();
	rec_thread_named(e->thread);
	e->host_ns = rec_now();
	struct gmp_event we = *e;
	int64_t nm = intern_w(name);
	if (nm < 0) {
		rec_write_failed((int)nm);
		return -1;
	}
	we.name = (uint32_t)nm;
	if (stack) {
		int64_t st = rec_stack();
		if (st < 0)
			return -1;
		we.stack = (uint32_t)st;
	}
	nvtx_sync_ranges(); /* the NVTX ranges it is made in, when they changed */
	if (gmp_col.write_failed)
		return -1;
	int64_t idx = gmp_writer__event(gmp_col.w, &we);
	if (idx < 0) {
		rec_write_failed((int)idx);
		return -1;
	}
	e->stack = we.stack; /* the profile's id: in-kernel heap ops reuse their launch's */
	gmp_col.last_device_sync = e->op == GMP_OP_SYNC &&
				   !(e->flags & (GMP_EF_SYNC_STREAM | GMP_EF_SYNC_EVENT))
					   ? (int64_t)e->device : -1;
	if (gmp_col.trace && gmp_col.trace->nev >= gmp_col.opts.online_events)
		rec_online_capped("events"); /* bounded memory: past the cap the profile alone carries the run */
	rec_online_add(e, name, idx);
	return idx;
}

void rec_meta(const char *key, const char *value)
{
	if (gmp_col.w && !gmp_col.closed && !gmp_col.write_failed) {
		int rc = gmp_writer__meta(gmp_col.w, key, value);
		if (rc < 0)
			rec_write_failed(rc);
	}
	/* The online analysis reads what the profile says (failed_allocations_unrecorded, ...). */
	if (gmp_col.trace && gmp_trace__set_meta(gmp_col.trace, key, value))
		rec_online_lost();
}

void rec_device_desc(uint32_t device, const struct gmp_device_desc *d)
{
	if (d->cuda[0] && !gmp_col.cuda_described) {
		rec_meta("cuda", d->cuda);
		gmp_col.cuda_described = 1;
	}
	if (device >= 64 * sizeof(gmp_col.described) / sizeof(gmp_col.described[0]) ||
	    (gmp_col.described[device / 64] >> (device % 64) & 1))
		return; /* a device past 255 goes undescribed: reports then say nothing of its capacity */
	gmp_col.described[device / 64] |= 1ull << (device % 64);
	char key[48], v[24];
	if (d->name[0]) {
		snprintf(key, sizeof(key), "device.%u.name", device);
		rec_meta(key, d->name);
	}
	if (d->cc_major) {
		snprintf(key, sizeof(key), "device.%u.cc", device);
		snprintf(v, sizeof(v), "%d.%d", d->cc_major, d->cc_minor);
		rec_meta(key, v);
	}
	if (d->memory) {
		snprintf(key, sizeof(key), "device.%u.memory", device);
		snprintf(v, sizeof(v), "%" PRIu64, d->memory);
		rec_meta(key, v);
		/* The summary at exit gives each peak as a share of it. */
		if (gmp_col.trace && gmp_trace__set_meta(gmp_col.trace, key, v))
			rec_online_lost();
	}
}

void rec_exported(uint64_t ev)
{
	if (!gmp_col.active || gmp_col.closed || gmp_col.write_failed)
		return;
	int rc = gmp_writer__exported(gmp_col.w, ev);
	if (rc < 0) {
		rec_write_failed(rc);
		return;
	}
	struct gmp_trace *t = gmp_col.trace;
	if (t && ev < t->nev && gmp_mem_kind__device_bytes(t->ev[ev].kind))
		t->ev[ev].flags |= GMP_EF_EXPORTED;
}

void rec_label(uint64_t ev, const char *label)
{
	if (!gmp_col.active || gmp_col.closed || gmp_col.write_failed)
		return;
	int64_t id = intern_w(label);
	int rc = id < 0 ? (int)id : gmp_writer__label(gmp_col.w, ev, (uint32_t)id);
	if (rc < 0) {
		rec_write_failed(rc);
		return;
	}
	struct gmp_trace *t = gmp_col.trace;
	if (!t || ev >= t->nev)
		return;
	uint32_t tid = gmp_trace__intern_cstr(t, label);
	if (!tid) {
		rec_online_lost();
		return;
	}
	t->ev[ev].name = tid;
	t->ev[ev].flags |= GMP_EF_HAS_LABEL;
}

/* One in-kernel alloc or free of launch kev, with the launch's thread, stack and time. */
static int heap_event(const struct gmp_event *k, uint64_t kev, uint8_t op, uint64_t addr,
		      uint64_t size)
{
	struct gmp_event e = { .op = op, .kind = op == GMP_OP_ALLOC ? GMP_MEM_DEVICE_HEAP : 0,
			       .flags = GMP_EF_IN_KERNEL, .device = k->device, .stream = k->stream,
			       .thread = k->thread, .stack = k->stack, .host_ns = k->host_ns,
			       .addr = addr, .size = size, .value = kev };
	int64_t idx = gmp_writer__event(gmp_col.w, &e);
	if (idx < 0) {
		rec_write_failed((int)idx);
		return -1;
	}
	rec_online_add(&e, NULL, idx);
	return 0;
}

void rec_heap(const struct gmp_event *k, uint64_t kev, const struct gmp_patch_heap_record *h,
	      size_t n, uint64_t lost)
{
	if (!gmp_col.active || gmp_col.closed || gmp_col.write_failed)
		return;
	if (!gmp_col.heap && !(gmp_col.heap = gmp_objmap__new())) {
		rec_write_failed(-ENOMEM); /* a heap object left out would mislead: stop instead */
		return;
	}
	gmp_col.heap_lost += lost;
	for (size_t i = 0; i < n; i++) {
		uint64_t start, end;
		if (!h[i].size) {
			if (!gmp_objmap__floor(gmp_col.heap, h[i].ptr, &start, &end, NULL) ||
			    start != h[i].ptr) {
				continue; /* its malloc's record was lost (and counted) */
			}
			gmp_objmap__remove(gmp_col.heap, start);
			if (heap_event(k, kev, GMP_OP_FREE, start, 0))
				return;
			continue;
		}
		end = h[i].ptr + h[i].size;
		if (end < h[i].ptr)
			end = UINT64_MAX;
		/* Live heap objects it overlaps were freed by a free() whose record was lost. */
		while (gmp_objmap__overlap(gmp_col.heap, h[i].ptr, end) != UINT32_MAX) {
			if (!gmp_objmap__floor(gmp_col.heap, end - 1, &start, NULL, NULL))
				break;
			gmp_objmap__remove(gmp_col.heap, start);
			if (heap_event(k, kev, GMP_OP_FREE, start, 0))
				return;
		}
		if (gmp_objmap__insert(gmp_col.heap, h[i].ptr, end, 0)) {
			rec_write_failed(-ENOMEM);
			return;
		}
		if (heap_event(k, kev, GMP_OP_ALLOC, h[i].ptr, end - h[i].ptr))
			return;
	}
}

int rec_accesses(uint64_t ev, const struct gmp_access *acc, size_t n)
{
	if (gmp_col.closed || gmp_col.write_failed)
		return -1;
	int err = gmp_writer__accesses(gmp_col.w, ev, acc, n);
	if (err) {
		rec_write_failed(err);
		return err;
	}
	if (gmp_col.trace)
		gmp_trace__set_accesses(gmp_col.trace, ev, acc, n);
	return 0;
}

int rec_touches(uint64_t ev, const struct gmp_touch *t, size_t n)
{
	if (gmp_col.closed || gmp_col.write_failed)
		return -1;
	int err = gmp_writer__touches(gmp_col.w, ev, t, n);
	if (err) {
		rec_write_failed(err);
		return err;
	}
	if (gmp_col.trace)
		gmp_trace__set_touches(gmp_col.trace, ev, t, n);
	return 0;
}

/* Writes a STREAM record; a later one of the same number replaces the first (format/trace.c). */
static void stream_record(uint32_t number, uint32_t device, uint64_t handle, uint32_t flags)
{
	struct gmp_stream_info si = { .number = number, .device = device, .handle = handle, .flags = flags };
	if (!gmp_col.write_failed && gmp_writer__stream(gmp_col.w, &si))
		rec_write_failed(-EIO);
	uint32_t *b = gmp_u64map__slot(&gmp_col.blocking, number, 0, NULL);
	if (b)
		*b = (uint32_t)gmp_stream__blocking(flags);
}

int rec_stream_blocking(uint32_t n)
{
	const uint32_t *b = n ? gmp_u64map__get(&gmp_col.blocking, n) : NULL;
	return b && *b;
}

/* The map slot of a stream handle: per-thread default streams are keyed by thread. */
static uint32_t *stream_slot(uint64_t handle, int *is_new)
{
	uint64_t key = handle;
	if (handle == 2) /* CU_STREAM_PER_THREAD: one default stream per thread */
		key = 2 | (uint64_t)rec_tid() << 8;
	uint32_t *slot = gmp_u64map__slot(&gmp_col.streams, key, 0, is_new);
	if (!slot)
		rec_write_failed(-ENOMEM); /* a wrong stream would mislead: stop instead */
	return slot;
}

uint32_t rec_stream(uint64_t handle)
{
	return rec_stream_in(handle, cb_api_name);
}

uint32_t rec_stream_in(uint64_t handle, const char *call)
{
	/* NULL in a per-thread call (cudaLaunchKernel_ptsz, cudaMemcpy_ptds): the thread's default stream. */
	if (handle == 0 && gmp_api__per_thread(call))
		handle = 2;
	/* The legacy default stream (NULL or CU_STREAM_LEGACY) is 0. */
	if (handle == 0 || handle == 1)
		return 0;
	int is_new;
	uint32_t *slot = stream_slot(handle, &is_new);
	if (!slot)
		return 0;
	if (is_new) {
		*slot = ++gmp_col.next_stream;
		/* A per-thread default stream is blocking: it and the legacy stream wait for each other. */
		stream_record(*slot, 0, handle, handle == 2 ? GMP_STREAM_KNOWN : 0);
	}
	return *slot;
}

void rec_stream_created(uint64_t handle, uint32_t device)
{
	int is_new;
	uint32_t *slot = handle > 2 ? stream_slot(handle, &is_new) : NULL;
	if (!slot)
		return;
	*slot = ++gmp_col.next_stream; /* a handle made again is another stream */
	stream_record(*slot, device, handle, 0);
}

void rec_stream_flags(uint64_t handle, uint32_t device, uint32_t flags)
{
	uint32_t number = handle > 2 ? rec_stream(handle) : 0;
	if (number)
		stream_record(number, device, handle, flags);
}

void rec_context(CUcontext ctx, uint32_t device)
{
	uint32_t *slot = gmp_u64map__slot(&gmp_col.ctx_device, (uint64_t)(uintptr_t)ctx, device, NULL);
	if (slot)
		*slot = device;
	else
		rec_write_failed(-ENOMEM);
}

uint32_t rec_device(CUcontext ctx)
{
	uint32_t *d = gmp_u64map__get(&gmp_col.ctx_device, (uint64_t)(uintptr_t)ctx);
	return d ? *d : 0;
}

void rec_flush_now(void)
{
	/*
	 * Called from a fatal-signal handler.  The flusher thread may hold the
	 * lock for a moment: wait for it, boundedly (if this very thread holds
	 * it -- a crash inside the collector -- waiting cannot help).
	 */
	int locked = 0;
	for (int i = 0; i < 2000 && !locked; i++) {
		locked = pthread_mutex_trylock(&gmp_col.lock) == 0;
		if (!locked) {
			struct timespec ms = { 0, 1000000 };
			nanosleep(&ms, NULL);
		}
	}
	if (!locked)
		return;
	if (gmp_col.w && !gmp_col.closed && !gmp_col.write_failed)
		gmp_writer__flush(gmp_col.w);
	pthread_mutex_unlock(&gmp_col.lock);
}

void rec_close(int clean)
{
	uint64_t t_exit = st_now();
	st_lock(t_exit);
	if (gmp_col.closed || gmp_col.closing || !gmp_col.w) {
		pthread_mutex_unlock(&gmp_col.lock);
		return;
	}
	gmp_col.closing = 1; /* dev_finish releases the lock while it waits */
	if (clean)
		dev_finish();
	nvtx_domains_meta(); /* which NVTX domains made ranges or marks, and which were left out */
	if (gmp_col.heap_lost && gmp_col.w && !gmp_col.write_failed) {
		char n[32];
		snprintf(n, sizeof(n), "%" PRIu64, gmp_col.heap_lost);
		rec_meta("device_heap_lost", n);
		rec_say("%s malloc()/free() calls inside kernels were not recorded (a launch made more "
			"than GMPROF_HEAP_RECORDS=%u); device-heap objects in the profile are incomplete",
			n, gmp_col.opts.heap_records);
	}
	oom_close();
	tmap_close();
	gmp_objmap__free(gmp_col.heap);
	gmp_col.heap = NULL;
	nvtx_release();
	if (clean && gmp_col.trace && !gmp_col.write_failed)
		rec_online();
	st_record(t_exit);
	gmp_col.closed = 1;
	int err = gmp_writer__close(gmp_col.w, clean && !gmp_col.write_failed);
	gmp_col.w = NULL;
	if (err && !gmp_col.write_failed)
		rec_write_failed(err);
	gmp_col.stop = 1;
	pthread_cond_signal(&gmp_col.wake);
	int join = gmp_col.flusher_running;
	gmp_col.flusher_running = 0;
	pthread_mutex_unlock(&gmp_col.lock);
	if (join)
		pthread_join(gmp_col.flusher, NULL);
}
