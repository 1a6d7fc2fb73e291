// SPDX-License-Identifier: MIT
/*
 * GMPROF_API_CALLBACKS=needed: the runtime and driver API callbacks of the
 * calls that make no GPU work (gmp_api__quiet: cudaGetDevice,
 * cudaGetLastError, cuCtxGetCurrent, ...) are turned off, one callback id
 * at a time, so that the Sanitizer stops calling gmprof around each of
 * them.
 *
 * The ids are the Sanitizer's own: the callback learns each id's function
 * by its name the first time the id comes, and no table of numbers has to
 * match the toolkit's.  From then on a quiet id's enter and exit are both
 * ignored (the name decides, the same for every thread), so the depth of
 * the thread's API calls stays right whether or not the Sanitizer has
 * stopped calling yet.  The flusher thread turns the ids off
 * (sanitizerEnableCallback) outside every callback and without the
 * collector's lock: the Sanitizer may wait there for callbacks in flight.
 * No id is turned off before two ids of its domain came with different
 * names; should one id come with two functions' names, ids are not per
 * function here: every id turned off is turned on again and every call is
 * taken, as with GMPROF_API_CALLBACKS=all.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "api_quiet.h"
#include "collector.h"

#define API_IDS 4096 /* ids classified per domain; a call with a larger id is always taken */
#define OFF_MAX 256  /* quiet ids remembered for turning on again and for META api_callbacks_off */

enum { UNSEEN, NEEDED, QUIET, QUIET_OFF, QUIET_FAILED };

struct id_state {
	uint8_t cls;      /* atomic: enum above */
	uint32_t hash;    /* of the name that first came with the id (FNV-1a) */
	const char *seen; /* that name's pointer, compared first: never read through */
};
static struct id_state ids[2][API_IDS]; /* [0] driver, [1] runtime */
static int pending;                     /* atomic: quiet ids not yet turned off */
static int mixed;                       /* atomic: an id came with two names */
static uint64_t late;                   /* atomic: calls of ids after they were turned off */
static int learnt[2];                   /* atomic: ids classified per domain */

static struct {
	pthread_mutex_t lock;
	size_t n;
	struct { uint8_t dom; uint16_t id; char name[64]; } e[OFF_MAX];
} quiet_ids = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint32_t fnv(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static Sanitizer_CallbackDomain domain_of(int d)
{
	return d ? SANITIZER_CB_DOMAIN_RUNTIME_API : SANITIZER_CB_DOMAIN_DRIVER_API;
}

/* Work for the flusher thread: it turns ids off (or on) as soon as it wakes. */
static void wake_flusher(void)
{
	__atomic_add_fetch(&pending, 1, __ATOMIC_RELEASE);
	pthread_cond_signal(&gmp_col.wake); /* lost if it is flushing: it looks at pending before it waits */
}

static void remember(int d, Sanitizer_CallbackId cbid, const char *name)
{
	pthread_mutex_lock(&quiet_ids.lock);
	if (quiet_ids.n < OFF_MAX) {
		quiet_ids.e[quiet_ids.n].dom = (uint8_t)d;
		quiet_ids.e[quiet_ids.n].id = (uint16_t)cbid;
		snprintf(quiet_ids.e[quiet_ids.n].name, sizeof(quiet_ids.e[0].name), "%s", name);
		quiet_ids.n++;
		if (__atomic_load_n(&learnt[d], __ATOMIC_ACQUIRE) >= 2)
			wake_flusher();
	}
	pthread_mutex_unlock(&quiet_ids.lock);
}

static void ids_mixed(Sanitizer_CallbackId cbid, const char *name)
{
	if (__atomic_exchange_n(&mixed, 1, __ATOMIC_ACQ_REL))
		return;
	rec_say("the Sanitizer gave API callback id %u to %s and to another function: its ids are not per "
		"function, so GMPROF_API_CALLBACKS=needed takes every API callback from now on", (unsigned)cbid, name);
	wake_flusher(); /* it turns the ids on again */
}

/* The id's class, learnt from the name on its first call. */
static uint8_t classify(struct id_state *s, int d, Sanitizer_CallbackId cbid, const char *name)
{
	uint8_t want = gmp_api__quiet(name) ? QUIET : NEEDED;
	uint32_t h = fnv(name) | 1, none = 0;
	/* The name's hash before the class: a thread that sees the class sees the hash. */
	__atomic_compare_exchange_n(&s->hash, &none, h, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	__atomic_store_n(&s->seen, name, __ATOMIC_RELAXED);
	uint8_t expect = UNSEEN;
	if (!__atomic_compare_exchange_n(&s->cls, &expect, want, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return expect;
	if (__atomic_add_fetch(&learnt[d], 1, __ATOMIC_ACQ_REL) == 2)
		wake_flusher(); /* ids of the domain's quiet calls seen before may go now */
	if (want == QUIET)
		remember(d, cbid, name);
	return want;
}

int api_off_ignored(Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid, const Sanitizer_CallbackData *cd)
{
	const char *name = cd->functionName;
	if (cbid >= API_IDS || !name || __atomic_load_n(&mixed, __ATOMIC_RELAXED))
		return 0;
	int d = domain == SANITIZER_CB_DOMAIN_RUNTIME_API;
	struct id_state *s = &ids[d][cbid];
	uint8_t c = __atomic_load_n(&s->cls, __ATOMIC_ACQUIRE);
	if (c == UNSEEN)
		c = classify(s, d, cbid, name);
	/* The same id with another name: the string's pointer first, its hash where the pointer differs. */
	if (__atomic_load_n(&s->seen, __ATOMIC_RELAXED) != name) {
		if (__atomic_load_n(&s->hash, __ATOMIC_RELAXED) != (fnv(name) | 1)) {
			ids_mixed(cbid, name);
			return 0;
		}
		__atomic_store_n(&s->seen, name, __ATOMIC_RELAXED);
	}
	if (c == QUIET_OFF && cd->callbackSite == SANITIZER_API_ENTER) /* turned off, and called still */
		__atomic_add_fetch(&late, 1, __ATOMIC_RELAXED);
	return c >= QUIET;
}

int api_off_pending(void)
{
	return __atomic_load_n(&pending, __ATOMIC_ACQUIRE) != 0;
}

void api_off_apply(void)
{
	if (!__atomic_exchange_n(&pending, 0, __ATOMIC_ACQ_REL))
		return;
	int on = __atomic_load_n(&mixed, __ATOMIC_ACQUIRE);
	pthread_mutex_lock(&quiet_ids.lock);
	for (size_t i = 0; i < quiet_ids.n; i++) {
		struct id_state *s = &ids[quiet_ids.e[i].dom][quiet_ids.e[i].id];
		uint8_t c = __atomic_load_n(&s->cls, __ATOMIC_ACQUIRE);
		if (on ? c != QUIET_OFF : c != QUIET)
			continue;
		if (!on && __atomic_load_n(&learnt[quiet_ids.e[i].dom], __ATOMIC_ACQUIRE) < 2)
			continue; /* one id seen in its domain: not yet shown to be per function (the second wakes us) */
		SanitizerResult r = gmp_col.san.EnableCallback(on, gmp_col.sub, domain_of(quiet_ids.e[i].dom),
							       quiet_ids.e[i].id);
		if (r != SANITIZER_SUCCESS) {
			static int said;
			if (!said++)
				rec_say("cannot turn %s the API callbacks of %s (%s): they are taken",
					on ? "on" : "off", quiet_ids.e[i].name, gmp_san__strerror(&gmp_col.san, r));
		}
		__atomic_store_n(&s->cls, on ? NEEDED : r == SANITIZER_SUCCESS ? QUIET_OFF : QUIET_FAILED,
				 __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&quiet_ids.lock);
}

/*
 * META api_callbacks_off: the functions whose callbacks were turned off
 * ("none" when none was), and api_callbacks_late: calls of them that
 * still entered the callback after that (one in flight as its id was
 * turned off may; more say the Sanitizer did not do what it answered).
 */
void api_off_meta(void)
{
	char buf[1024] = "";
	size_t len = 0, off = 0;
	pthread_mutex_lock(&quiet_ids.lock);
	for (size_t i = 0; i < quiet_ids.n; i++) {
		uint8_t c = __atomic_load_n(&ids[quiet_ids.e[i].dom][quiet_ids.e[i].id].cls, __ATOMIC_ACQUIRE);
		if (c != QUIET_OFF)
			continue;
		const char *name = quiet_ids.e[i].name;
		if (len + strlen(name) + 5 < sizeof(buf)) /* room for ",..." after it */
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", off ? "," : "", name);
		else if (len >= 3 && len + 4 < sizeof(buf) && strcmp(buf + len - 3, "..."))
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, ",...");
		off++;
	}
	pthread_mutex_unlock(&quiet_ids.lock);
	rec_meta("api_callbacks_off", off ? buf : "none");
	char n[32];
	snprintf(n, sizeof(n), "%llu", (unsigned long long)__atomic_load_n(&late, __ATOMIC_RELAXED));
	rec_meta("api_callbacks_late", n);
}
