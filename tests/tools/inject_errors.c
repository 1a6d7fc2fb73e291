// SPDX-License-Identifier: MIT
/*
 * inject_errors.so: an LD_PRELOAD shim that makes open, write, fsync,
 * rename (and link) and malloc fail on demand, for failure-injection tests.
 *
 *   GMP_INJECT="write:3"        the 3rd counted write fails (EIO) ...
 *   GMP_INJECT="write:3+"       ... and every one after it
 *   several at once: "open:1,fsync:1+"
 *   GMP_INJECT_PATH=SUBSTR      open/rename/link count only paths holding SUBSTR;
 *                               write/fsync count only fds opened that way
 *                               (without it: every fd above 2)
 *   GMP_INJECT_CALLER=SUBSTR    malloc counts only calls from an object whose
 *                               path holds SUBSTR (e.g. libgmprof)
 *
 * stdio streams: their fflush and fclose count as writes (glibc's stdio
 * writes through an internal write that a shim cannot replace).
 *
 * Errors: open EACCES, write ENOSPC, fsync EIO, rename/link EXDEV->EIO, malloc
 * ENOMEM (NULL).  Each injected failure is logged to stderr only when
 * GMP_INJECT_LOG is set, so tests can count the program's own messages.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { F_OPEN, F_WRITE, F_FSYNC, F_RENAME, F_MALLOC, F_N };
static const char *const names[F_N] = { "open", "write", "fsync", "rename", "malloc" };

static struct {
	long at;       /* the call that fails (1-based); 0: never */
	int onward;    /* and every later one */
	long count;
} rule[F_N];

static int ready, in_init;
static const char *path_sub, *caller_sub;
static char tracked[4096];   /* fds opened on a matching path */

static int (*real_openat)(int, const char *, int, ...);
static FILE *(*real_fopen)(const char *, const char *);
static int (*real_mkostemp)(char *, int);
static ssize_t (*real_write)(int, const void *, size_t);
static int (*real_fflush)(FILE *);
static int (*real_fclose)(FILE *);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_rename)(const char *, const char *);
static int (*real_renameat)(int, const char *, int, const char *);
static int (*real_link)(const char *, const char *);
static int (*real_linkat)(int, const char *, int, const char *, int);
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);

/* dlsym may allocate before real_calloc is known: serve it from here. */
static char boot[8192];
static size_t boot_used;

static void init(void)
{
	if (ready || in_init)
		return;
	in_init = 1;
	real_malloc = dlsym(RTLD_NEXT, "malloc");
	real_calloc = dlsym(RTLD_NEXT, "calloc");
	real_realloc = dlsym(RTLD_NEXT, "realloc");
	real_free = dlsym(RTLD_NEXT, "free");
	real_openat = dlsym(RTLD_NEXT, "openat");
	real_fopen = dlsym(RTLD_NEXT, "fopen");
	real_mkostemp = dlsym(RTLD_NEXT, "mkostemp");
	real_write = dlsym(RTLD_NEXT, "write");
	real_fflush = dlsym(RTLD_NEXT, "fflush");
	real_fclose = dlsym(RTLD_NEXT, "fclose");
	real_fsync = dlsym(RTLD_NEXT, "fsync");
	real_fdatasync = dlsym(RTLD_NEXT, "fdatasync");
	real_rename = dlsym(RTLD_NEXT, "rename");
	real_renameat = dlsym(RTLD_NEXT, "renameat");
	real_link = dlsym(RTLD_NEXT, "link");
	real_linkat = dlsym(RTLD_NEXT, "linkat");
	const char *spec = getenv("GMP_INJECT");
	path_sub = getenv("GMP_INJECT_PATH");
	caller_sub = getenv("GMP_INJECT_CALLER");
	for (const char *p = spec; p && *p;) {
		for (int f = 0; f < F_N; f++) {
			size_t n = strlen(names[f]);
			if (!strncmp(p, names[f], n) && p[n] == ':') {
				char *end;
				rule[f].at = strtol(p + n + 1, &end, 10);
				rule[f].onward = *end == '+';
				break;
			}
		}
		p = strchr(p, ',');
		if (p)
			p++;
	}
	in_init = 0;
	ready = 1;
}

static int fail(int f)
{
	if (!rule[f].at)
		return 0;
	long n = ++rule[f].count;
	int hit = n == rule[f].at || (rule[f].onward && n > rule[f].at);
	if (hit && getenv("GMP_INJECT_LOG")) {
		char msg[64];
		int k = snprintf(msg, sizeof(msg), "inject_errors: %s #%ld fails\n", names[f], n);
		if (real_write && k > 0)
			real_write(2, msg, (size_t)k);
	}
	return hit;
}

static int path_counts(const char *path)
{
	return !path_sub || (path && strstr(path, path_sub));
}

static int fd_counts(int fd)
{
	if (fd <= 2)
		return 0;
	if (!path_sub)
		return 1;
	return fd < (int)sizeof(tracked) && tracked[fd];
}

/* Whether this call (counted when counts) fails; sets errno when it does. */
static int injected(int f, int counts, int err)
{
	if (!counts || !fail(f))
		return 0;
	errno = err;
	return 1;
}

static void track(int fd, const char *path)
{
	if (fd >= 0 && fd < (int)sizeof(tracked))
		tracked[fd] = path_sub && path && strstr(path, path_sub);
}

/* open and openat both end here (open is openat at the working directory). */
static int open_at(int dir, const char *path, int flags, mode_t mode)
{
	if (injected(F_OPEN, path_counts(path), EACCES))
		return -1;
	int fd = real_openat(dir, path, flags, mode);
	track(fd, path);
	return fd;
}

/* The mode argument exists only when the file may be created. */
#define OPEN_MODE(flags, mode)                                  \
	do {                                                    \
		if ((flags) & (O_CREAT | O_TMPFILE)) {          \
			va_list ap;                             \
			va_start(ap, flags);                    \
			mode = (mode_t)va_arg(ap, int);         \
			va_end(ap);                             \
		}                                               \
	} while (0)

int open(const char *path, int flags, ...)
{
	init();
	mode_t mode = 0;
	OPEN_MODE(flags, mode);
	return open_at(AT_FDCWD, path, flags, mode);
}
int open64(const char *path, int flags, ...) __attribute__((alias("open")));

int openat(int dir, const char *path, int flags, ...)
{
	init();
	mode_t mode = 0;
	OPEN_MODE(flags, mode);
	return open_at(dir, path, flags, mode);
}
int openat64(int dir, const char *path, int flags, ...) __attribute__((alias("openat")));

int mkostemp(char *tmpl, int flags)
{
	init();
	if (injected(F_OPEN, path_counts(tmpl), EACCES))
		return -1;
	int fd = real_mkostemp(tmpl, flags);
	track(fd, tmpl);
	return fd;
}

int mkstemp(char *tmpl)
{
	return mkostemp(tmpl, 0);
}

FILE *fopen(const char *path, const char *mode)
{
	init();
	if (injected(F_OPEN, path_counts(path), EACCES))
		return NULL;
	FILE *fp = real_fopen(path, mode);
	if (fp)
		track(fileno(fp), path);
	return fp;
}
FILE *fopen64(const char *path, const char *mode) __attribute__((alias("fopen")));

ssize_t write(int fd, const void *buf, size_t n)
{
	init();
	if (injected(F_WRITE, fd_counts(fd), ENOSPC))
		return -1;
	return real_write(fd, buf, n);
}

/* stdio writes through glibc's internal write: fail its flush and close instead. */
int fflush(FILE *fp)
{
	init();
	if (fp && fd_counts(fileno(fp)) && fail(F_WRITE)) {
		errno = ENOSPC;
		return EOF;
	}
	return real_fflush(fp);
}

int fclose(FILE *fp)
{
	init();
	int fd = fp ? fileno(fp) : -1;
	int f = fd_counts(fd) && fail(F_WRITE);
	int rc = real_fclose(fp);
	if (fd >= 0 && fd < (int)sizeof(tracked))
		tracked[fd] = 0;
	if (f) {
		errno = ENOSPC;
		return EOF;
	}
	return rc;
}

int fsync(int fd)
{
	init();
	if (injected(F_FSYNC, fd_counts(fd), EIO))
		return -1;
	return real_fsync(fd);
}

int fdatasync(int fd)
{
	init();
	if (injected(F_FSYNC, fd_counts(fd), EIO))
		return -1;
	return real_fdatasync(fd);
}

int rename(const char *from, const char *to)
{
	init();
	if (injected(F_RENAME, path_counts(to), EIO))
		return -1;
	return real_rename(from, to);
}

int renameat(int fd1, const char *from, int fd2, const char *to)
{
	init();
	if (injected(F_RENAME, path_counts(to), EIO))
		return -1;
	return real_renameat(fd1, from, fd2, to);
}

int link(const char *from, const char *to)
{
	init();
	if (injected(F_RENAME, path_counts(to), EIO))
		return -1;
	return real_link(from, to);
}

int linkat(int fd1, const char *from, int fd2, const char *to, int flags)
{
	init();
	if (injected(F_RENAME, path_counts(to), EIO))
		return -1;
	return real_linkat(fd1, from, fd2, to, flags);
}

static int caller_counts(void *ret)
{
	if (!caller_sub)
		return 1;
	Dl_info info;
	return dladdr(ret, &info) && info.dli_fname && strstr(info.dli_fname, caller_sub);
}

static __thread int in_malloc;

/* With GMP_INJECT_LOG: where the failed allocation came from (object + offset). */
static void log_caller(void *ret)
{
	Dl_info info;
	char msg[512];
	if (!getenv("GMP_INJECT_LOG") || !dladdr(ret, &info) || !info.dli_fname)
		return;
	int k = snprintf(msg, sizeof(msg), "inject_errors: from %s+0x%lx\n", info.dli_fname,
			 (unsigned long)((char *)ret - (char *)info.dli_fbase));
	if (real_write && k > 0)
		real_write(2, msg, (size_t)k);
}

/* Whether this allocation (called from ret) is the one to fail. */
static int alloc_fails(void *ret)
{
	if (in_malloc || !rule[F_MALLOC].at)
		return 0;
	in_malloc = 1;
	int f = caller_counts(ret) && fail(F_MALLOC);
	if (f)
		log_caller(ret);
	in_malloc = 0;
	if (f)
		errno = ENOMEM;
	return f;
}

void *malloc(size_t n)
{
	if (!ready) {
		init();
		if (!real_malloc) {
			size_t k = (n + 15) & ~(size_t)15;
			if (boot_used + k > sizeof(boot))
				return NULL;
			boot_used += k;
			return boot + boot_used - k;
		}
	}
	if (alloc_fails(__builtin_return_address(0)))
		return NULL;
	return real_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	if (!real_calloc) {
		if (in_init || !ready) {
			/* dlsym's own allocation, before calloc is known. */
			size_t k = (n * size + 15) & ~(size_t)15;
			if (boot_used + k > sizeof(boot))
				return NULL;
			memset(boot + boot_used, 0, k);
			boot_used += k;
			return boot + boot_used - k;
		}
	}
	if (alloc_fails(__builtin_return_address(0)))
		return NULL;
	return real_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	init();
	if ((char *)p >= boot && (char *)p < boot + sizeof(boot)) {
		void *q = real_malloc(n);
		if (q)
			memcpy(q, p, n < sizeof(boot) ? n : sizeof(boot));
		return q;
	}
	if (alloc_fails(__builtin_return_address(0)))
		return NULL;
	return real_realloc(p, n);
}

void free(void *p)
{
	if (!p || ((char *)p >= boot && (char *)p < boot + sizeof(boot)))
		return;
	if (!real_free)
		init();
	if (real_free)
		real_free(p);
}
