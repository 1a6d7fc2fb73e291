// SPDX-License-Identifier: MIT
/*
 * libgmprof.so's entry points.  The CUDA driver loads it through
 * CUDA_INJECTION64_PATH and calls InitializeInjection(); LD_PRELOAD loads
 * it before main and its constructor runs.  Either way the collector
 * subscribes to the Compute Sanitizer exactly once.  At exit (and when a
 * context is torn down) it harvests, analyzes and closes the profile; on
 * a fatal signal it flushes what it has.  If anything is missing it says
 * so in one sentence and lets the program run unprofiled, or stops it
 * (GMPROF_ON_ERROR=fail).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector.h"

struct gmp_collector gmp_col = { .lock = PTHREAD_MUTEX_INITIALIZER,
				  .patch_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP, .last_device_sync = -1,
				  .unpatched = PTHREAD_COND_INITIALIZER,
				  .patch_done = PTHREAD_COND_INITIALIZER };

int InitializeInjection(void);

static int started;           /* 0 not yet, 1 running or given up */
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT,
				     SIGTERM, SIGINT, SIGHUP, SIGQUIT };
#define NSIG_FATAL (sizeof(fatal_signals) / sizeof(fatal_signals[0]))
static struct sigaction old_actions[NSIG_FATAL];

/* A dying program: write what is buffered, then die as it would have. */
static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	rec_flush_now();
	for (size_t i = 0; i < NSIG_FATAL; i++) {
		if (fatal_signals[i] != sig)
			continue;
		struct sigaction *old = &old_actions[i];
		if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction) {
			old->sa_sigaction(sig, si, uc);
			return;
		}
		if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
			old->sa_handler(sig);
			return;
		}
		if (old->sa_handler == SIG_IGN)
			return;
		sigaction(sig, old, NULL);
		raise(sig);
		return;
	}
}

static void install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fatal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSIG_FATAL; i++)
		sigaction(fatal_signals[i], &sa, &old_actions[i]);
}

static void at_exit(void)
{
	if (!gmp_col.active)
		return;
	cb_pools(); /* the pools' most, when the driver still answers (their contexts not destroyed) */
	rec_close(1);
	gmp_col.active = 0;
}

/* A forked child that does not exec must not write into its parent's profile. */
static void in_child(void)
{
	gmp_col.active = 0;
	gmp_col.flusher_running = 0;
	if (gmp_col.w) {
		gmp_writer__abandon(gmp_col.w);
		gmp_col.w = NULL;
	}
	gmp_col.closed = 1;
	pthread_mutex_init(&gmp_col.lock, NULL);
	nvtx_ranges_in_child(); /* a data loader's worker may begin and end ranges */
	nvtx_strings_in_child(); /* and register names */
	nvtx_domains_in_child(); /* and make domains */
	threads_in_child();     /* and name threads */
}

/*
 * The fatbin beside the collector: beside the name it was loaded by, or,
 * where that is a symbolic link (CUDA_INJECTION64_PATH=/usr/lib/libgmprof.so
 * pointing into an install), beside the file itself.  dir gets the
 * directory last looked in, for the message when neither has it.
 */
static int patch_beside(const char *lib, char *out, size_t n, char *dir, size_t dn)
{
	const char *slash = strrchr(lib, '/');
	snprintf(dir, dn, "%.*s", slash ? (int)(slash - lib) : 1, slash ? lib : ".");
	int len = snprintf(out, n, "%s/gmprof_patch.fatbin", dir);
	return len < 0 || (size_t)len >= n || access(out, R_OK) ? -ENOENT : 0;
}

static int default_patch(char *out, size_t n, char *dir, size_t dn)
{
	Dl_info di;
	snprintf(dir, dn, "(unknown)");
	if (!dladdr((void *)&InitializeInjection, &di) || !di.dli_fname)
		return -ENOENT;
	if (!patch_beside(di.dli_fname, out, n, dir, dn))
		return 0;
	char *real = realpath(di.dli_fname, NULL);
	int rc = -ENOENT;
	if (real && strcmp(real, di.dli_fname) != 0)
		rc = patch_beside(real, out, n, dir, dn);
	free(real);
	return rc;
}

static const char *getenv_fn(const char *name)
{
	return getenv(name);
}

/* One sentence, then unprofiled -- or stop, when the user asked for that. */
static void give_up(const char *what)
{
	rec_say("%s; %s", what,
		gmp_col.opts.fail ? "stopping (GMPROF_ON_ERROR=fail)" : "the program runs unprofiled");
	if (gmp_col.opts.fail)
		exit(2);
}

/*
 * Profiling given up after rec_open made the profile (not yet in gmprof
 * run's list): it holds nothing of the run, so it goes rather than read as
 * a run that died at its start.  A file that was there before is
 * untouched, as rec_open made none then (it replaces one only under
 * GMPROF_FORCE, whose old profile is gone anyway); so is what is not a
 * regular file (GMPROF_FORCE=1 GMPROF_OUTPUT=/dev/full).
 */
static void discard_profile(void)
{
	pthread_mutex_lock(&gmp_col.lock);
	int made = gmp_col.w != NULL;
	gmp_col.write_failed = 1; /* nothing more goes into it, nor is said of it: give_up says why */
	pthread_mutex_unlock(&gmp_col.lock);
	if (!made)
		return;
	rec_close(0);
	struct stat st;
	if (lstat(gmp_col.path, &st) || !S_ISREG(st.st_mode))
		return;
	if (unlink(gmp_col.path) && errno != ENOENT)
		rec_say("cannot remove the profile '%s', which holds nothing of the run: %s", gmp_col.path,
			strerror(errno));
}

static void start(void)
{
	char err[2 * PATH_MAX + 256], dir[PATH_MAX];
	gmp_col.self_t0 = st_now();
	/* Read GMPROF_ON_ERROR first: it decides what a bad option means. */
	const char *on_error = getenv("GMPROF_ON_ERROR");
	gmp_col.opts.fail = on_error && strcmp(on_error, "fail") == 0;
	if (gmp_opts__parse(&gmp_col.opts, getenv_fn, err, sizeof(err))) {
		give_up(err);
		return;
	}
	if (gmp_col.opts.patch_empty)
		rec_say("GMPROF_PATCH_EMPTY is set: kernels call an empty callback and record no "
			"access, so the findings mean nothing (a benchmark baseline)");
	if (gmp_col.opts.patch_at == GMP_PATCH_AT_RANGE && gmp_col.opts.capture != GMP_CAPTURE_PROFILER &&
	    gmp_col.opts.capture != GMP_CAPTURE_LAUNCHES)
		rec_say("GMPROF_PATCH_AT=range unpatches modules only after a profiler-api or launches: capture "
			"range (GMPROF_CAPTURE); here they are patched at their first monitored launch and stay so");
	if (gmp_san__load(&gmp_col.san, gmp_col.opts.sanitizer_lib, err, sizeof(err))) {
		give_up(err);
		return;
	}
	if (gmp_col.opts.graph_fn_data && !gmp_col.san.SetCallbackData)
		rec_say("GMPROF_GRAPH_NODE_DATA=function: the Compute Sanitizer library '%s' lacks "
			"sanitizerSetCallbackData; graphs' kernel nodes get their buffers per launch", gmp_col.san.path);
	if (gmp_col.opts.mode == GMP_COLLECT_ALLOC) {
		/* No device patches: kernels run as they are, their access sets unknown. */
	} else if (gmp_col.opts.patch[0]) {
		snprintf(gmp_col.patch_path, sizeof(gmp_col.patch_path), "%s", gmp_col.opts.patch);
		if (access(gmp_col.patch_path, R_OK)) {
			snprintf(err, sizeof(err), "the device patches '%s' cannot be read (GMPROF_PATCH)",
				 gmp_col.patch_path);
			give_up(err);
			return;
		}
	} else if (default_patch(gmp_col.patch_path, sizeof(gmp_col.patch_path), dir, sizeof(dir))) {
		snprintf(err, sizeof(err),
			 "the device patches 'gmprof_patch.fatbin' are not beside libgmprof.so in '%s' (set "
			 "GMPROF_PATCH to the file, or GMPROF_MODE=alloc, which patches no kernel)", dir);
		give_up(err);
		return;
	}
	if (gmp_kfilter__new(&gmp_col.kf, gmp_col.opts.kernel_sample, gmp_col.opts.kernels, err,
			     sizeof(err))) {
		give_up(err);
		return;
	}
	pthread_mutex_lock(&gmp_col.lock);
	int rc = rec_open(err, sizeof(err));
	pthread_mutex_unlock(&gmp_col.lock);
	if (rc) {
		discard_profile();
		give_up(err);
		return;
	}
	SanitizerResult r = gmp_col.san.Subscribe(&gmp_col.sub, gmp_sanitizer_callback, NULL);
	if (r != SANITIZER_SUCCESS) {
		snprintf(err, sizeof(err), "cannot subscribe to the Compute Sanitizer (%s)%s",
			 gmp_san__strerror(&gmp_col.san, r),
			 r == SANITIZER_ERROR_MAX_LIMIT_REACHED
				 ? ": another tool (compute-sanitizer, a profiler) already did"
			 : r == SANITIZER_ERROR_NOT_INITIALIZED
				 ? ": the driver and the Sanitizer library do not match"
				 : "");
		discard_profile();
		give_up(err);
		return;
	}
	/* Every domain or no profile: without one (events', say) the profile would be wrong, and silently. */
	static const struct {
		Sanitizer_CallbackDomain domain;
		const char *name;
	} domains[] = {
		{ SANITIZER_CB_DOMAIN_RESOURCE, "resource" }, { SANITIZER_CB_DOMAIN_LAUNCH, "launch" },
		{ SANITIZER_CB_DOMAIN_MEMCPY, "memcpy" }, { SANITIZER_CB_DOMAIN_MEMSET, "memset" },
		{ SANITIZER_CB_DOMAIN_SYNCHRONIZE, "synchronize" }, { SANITIZER_CB_DOMAIN_EVENTS, "events" },
		{ SANITIZER_CB_DOMAIN_GRAPHS, "graphs" }, { SANITIZER_CB_DOMAIN_RUNTIME_API, "runtime API" },
		{ SANITIZER_CB_DOMAIN_DRIVER_API, "driver API" },
	};
	for (size_t i = 0; i < sizeof(domains) / sizeof(domains[0]); i++) {
		r = gmp_col.san.EnableDomain(1, gmp_col.sub, domains[i].domain);
		if (r != SANITIZER_SUCCESS) {
			snprintf(err, sizeof(err), "cannot enable the Compute Sanitizer's %s callbacks (%s)",
				 domains[i].name, gmp_san__strerror(&gmp_col.san, r));
			gmp_col.san.Unsubscribe(gmp_col.sub);
			discard_profile();
			give_up(err);
			return;
		}
	}
	pthread_mutex_lock(&gmp_col.lock);
	rec_list_for_run(); /* a profile that will hold the run: for gmprof run to report */
	pthread_mutex_unlock(&gmp_col.lock);
	if (gmp_col.opts.api_needed && !gmp_col.san.EnableCallback) {
		rec_say("the Compute Sanitizer library has no sanitizerEnableCallback: GMPROF_API_CALLBACKS=needed takes every API callback");
		gmp_col.opts.api_needed = 0;
	}
	gmp_col.active = 1;
	install_signals();
	pthread_atfork(NULL, NULL, in_child);
	atexit(at_exit);
	pthread_mutex_lock(&gmp_col.lock);
	st_since(GMP_ST_START, gmp_col.self_t0);
	pthread_mutex_unlock(&gmp_col.lock);
}

static void start_once(void)
{
	pthread_mutex_lock(&start_lock);
	if (!started) {
		started = 1;
		start();
	}
	pthread_mutex_unlock(&start_lock);
}

/* Called by the CUDA driver when loaded through CUDA_INJECTION64_PATH. */
__attribute__((visibility("default"))) int InitializeInjection(void)
{
	start_once();
	return 1;
}

/* LD_PRELOAD (or CUDA_INJECTION64_PATH: the driver's dlopen runs this first). */
__attribute__((constructor)) static void gmprof_ctor(void)
{
	start_once();
}
