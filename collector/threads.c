// SPDX-License-Identifier: MIT
/*
 * Host threads: each one's id, and its name in the profile (META
 * thread.TID.name: Perfetto names the thread's track by it).  A name a
 * program gives a thread through NVTX (nvtxNameOsThreadA/W, by OS thread
 * id, from any thread) is kept here, the first THREAD_NAMES threads', so
 * that the thread's first event records it rather than the OS's, and is
 * recorded at once, which wins where the thread has had its first event.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <wchar.h>

#include "collector.h"
#include "nvtx_abi.h"

#define THREAD_NAMES 1024

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* the names' table; never taken around gmp_col.lock */
static struct {
	uint32_t tid;
	char name[GMP_NVTX_NAME_MAX];
} thread_names[THREAD_NAMES];
static size_t nthread_names;
static int warned_threads;

/*
 * The calling thread's id, asked of the kernel once per thread rather than
 * once per event.  A forked child records nothing (inject.c), so the id
 * its one thread inherits is never used.
 */
uint32_t rec_tid(void)
{
	static _Thread_local uint32_t tid;
	if (!tid)
		tid = (uint32_t)syscall(SYS_gettid);
	return tid;
}

/* META thread.TID.name: the name of thread tid; gmp_col.lock held. */
static void record_name(uint32_t tid, const char *name)
{
	char key[40];
	snprintf(key, sizeof(key), "thread.%" PRIu32 ".name", tid);
	rec_meta(key, name);
}

/* Thread tid named name (clean UTF-8) through NVTX: kept, and recorded now. */
static void name_thread(uint32_t tid, const char *name)
{
	size_t i = 0;
	pthread_mutex_lock(&lock);
	while (i < nthread_names && thread_names[i].tid != tid)
		i++;
	int full = i == THREAD_NAMES && !warned_threads++;
	if (i < THREAD_NAMES) {
		thread_names[i].tid = tid;
		snprintf(thread_names[i].name, sizeof(thread_names[i].name), "%s", name);
		nthread_names += i == nthread_names;
	}
	pthread_mutex_unlock(&lock);
	if (full)
		rec_say("more than %d threads named with nvtxNameOsThread: later ones keep the OS's names", THREAD_NAMES);
	pthread_mutex_lock(&gmp_col.lock);
	record_name(tid, name); /* where the profile is open; a later one is a later META, which wins */
	pthread_mutex_unlock(&gmp_col.lock);
}

void nvtx_name_os_thread_a(uint32_t tid, const char *name)
{
	char buf[GMP_NVTX_NAME_MAX];
	if (name && nvtx_name(GMP_NVTX_MESSAGE_ASCII, name, buf, sizeof(buf)) && *buf)
		name_thread(tid, buf);
}

void nvtx_name_os_thread_w(uint32_t tid, const wchar_t *name)
{
	char buf[GMP_NVTX_NAME_MAX];
	if (name && nvtx_name(GMP_NVTX_MESSAGE_UNICODE, name, buf, sizeof(buf)) && *buf)
		name_thread(tid, buf);
}

int nvtx_thread_name(uint32_t tid, char *buf, size_t n)
{
	int found = 0;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < nthread_names && !found; i++)
		if (thread_names[i].tid == tid) {
			snprintf(buf, n, "%s", thread_names[i].name);
			found = 1;
		}
	pthread_mutex_unlock(&lock);
	return found;
}

/*
 * At a thread's first event: its name, as the program gave it through NVTX
 * (nvtxNameOsThread) or else as the OS has it (what the program or its
 * runtime set with pthread_setname_np or prctl: "pt_autograd_0"; the
 * program's name for its first thread), as META thread.TID.name.
 */
void rec_thread_named(uint32_t tid)
{
	static _Thread_local int named;
	if (named)
		return;
	named = 1;
	char os[17] = "", clean[GMP_NVTX_NAME_MAX];
	if (!nvtx_thread_name(tid, clean, sizeof(clean)) && /* the program named it through NVTX, or the OS's */
	    (prctl(PR_GET_NAME, os, 0, 0, 0) || !os[0] || !nvtx_name(GMP_NVTX_MESSAGE_ASCII, os, clean, sizeof(clean))))
		return;
	record_name(tid, clean);
}

void threads_in_child(void)
{
	pthread_mutex_init(&lock, NULL);
}
