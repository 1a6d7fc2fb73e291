// SPDX-License-Identifier: MIT
/*
 * Stream-ordered memory pools (cudaMallocAsync, cudaMallocFromPoolAsync).
 * A pool reserves device memory and hands out pieces of it; a freed piece
 * goes back to the pool, which keeps it reserved until a synchronization
 * trims the pool down to its release threshold (0 by default: all that is
 * free; a framework may set it to keep everything).  So the device can be
 * fuller than the live objects say, and an allocation elsewhere can run
 * out of memory that a pool holds and nothing uses.  The Sanitizer reports
 * the pieces (the objects), not the reservations; the driver answers for
 * those (cuMemPoolGetAttribute).
 *
 * The collector remembers each pool an allocation came from, and asks
 * the driver what the pools of a device hold: right after an allocation
 * ran out of memory on it (oom.c), at the end of each synchronizing call
 * (when pools exist: the driver trims them there), and at exit.  Each
 * answer that changed is a POOLS record (docs/profile-format.md), after
 * the events before it.  The driver is asked with no collector lock held
 * (callers set the re-entry guard), as for the free memory at a failure.
 */
#define _GNU_SOURCE
#include <string.h>

#include "alloc_api.h"
#include "collector.h"

#define POOLS_MAX 64   /* pools remembered; more are not asked about (said once) */
#define DEVICES_MAX 64 /* devices whose last state is kept */

struct pool {
	CUmemoryPool pool; /* NULL: the device's current pool (the allocation did not name one) */
	uint32_t device;
};

/* Guarded by gmp_col.lock, but for `any`. */
static struct pool pools[POOLS_MAX];
static size_t npools;
static int any, warned;
static struct gmp_pool_state last[DEVICES_MAX]; /* the last recorded per device, `before` the events then */

void pools_note(CUmemoryPool pool, uint32_t device)
{
	for (size_t i = 0; i < npools; i++)
		if (pools[i].pool == pool && pools[i].device == device)
			return;
	if (npools == POOLS_MAX) {
		if (!warned++)
			rec_say("more than %d stream-ordered memory pools: what the later ones hold is not recorded",
				POOLS_MAX);
		return;
	}
	pools[npools++] = (struct pool){ pool, device };
	__atomic_store_n(&any, 1, __ATOMIC_RELEASE);
}

void pools_forget(CUmemoryPool pool, uint32_t device, int whole_device)
{
	size_t k = 0;
	for (size_t i = 0; i < npools; i++)
		if (!(whole_device ? pools[i].device == device : pools[i].pool == pool))
			pools[k++] = pools[i];
	npools = k;
}

int pools_any(void)
{
	return __atomic_load_n(&any, __ATOMIC_ACQUIRE);
}

/* Adds what pool holds to s (its device's state): 0, or -1 when the driver did not answer. */
static int add_pool(CUmemoryPool pool, struct gmp_pool_state *s)
{
	uint64_t v[5];
	static const int attrs[5] = { GMP_POOL_ATTR_RESERVED_MEM_CURRENT, GMP_POOL_ATTR_USED_MEM_CURRENT,
				      GMP_POOL_ATTR_RESERVED_MEM_HIGH, GMP_POOL_ATTR_USED_MEM_HIGH,
				      GMP_POOL_ATTR_RELEASE_THRESHOLD };
	for (int a = 0; a < 5; a++)
		if (drv_pool_attr(pool, attrs[a], &v[a]))
			return -1;
	/* The four sizes are read one by one: a pool that grew in between is read as consistent. */
	if (v[2] < v[0])
		v[2] = v[0];
	if (v[3] < v[1])
		v[3] = v[1];
	if (v[1] > v[0] || v[3] > v[2])
		return -1; /* not what the driver documents: leave the pool out */
	s->reserved += v[0];
	s->used += v[1];
	s->reserved_high += v[2];
	s->used_high += v[3];
	if (v[4] > s->threshold)
		s->threshold = v[4];
	s->pools++;
	return 0;
}

size_t pools_sample(uint32_t device, struct gmp_pool_state *s, size_t n)
{
	struct pool copy[POOLS_MAX];
	pthread_mutex_lock(&gmp_col.lock);
	size_t m = npools;
	memcpy(copy, pools, m * sizeof(copy[0]));
	pthread_mutex_unlock(&gmp_col.lock);
	CUmemoryPool asked[POOLS_MAX];
	size_t nasked = 0, ns = 0;
	for (size_t i = 0; i < m; i++) {
		if (device != UINT32_MAX && copy[i].device != device)
			continue;
		CUmemoryPool p = copy[i].pool;
		if (!p && drv_device_pool(copy[i].device, &p))
			continue;
		int seen = 0; /* a pool named and also the device's current one: once */
		for (size_t k = 0; k < nasked && !seen; k++)
			seen = asked[k] == p;
		if (seen)
			continue;
		asked[nasked++] = p;
		size_t d = 0;
		while (d < ns && s[d].device != copy[i].device)
			d++;
		if (d == ns) {
			if (ns == n)
				continue;
			s[ns++] = (struct gmp_pool_state){ .device = copy[i].device };
		}
		add_pool(p, &s[d]);
	}
	size_t k = 0; /* devices none of whose pools answered are left out */
	for (size_t d = 0; d < ns; d++)
		if (s[d].pools)
			s[k++] = s[d];
	return k;
}

static int same(const struct gmp_pool_state *a, const struct gmp_pool_state *b)
{
	return a->pools == b->pools && a->reserved == b->reserved && a->used == b->used &&
	       a->reserved_high == b->reserved_high && a->used_high == b->used_high &&
	       a->threshold == b->threshold;
}

void pools_record(const struct gmp_pool_state *s, size_t n, int always)
{
	for (size_t i = 0; i < n && gmp_col.w && !gmp_col.write_failed && !gmp_col.closed; i++) {
		struct gmp_pool_state *l = s[i].device < DEVICES_MAX ? &last[s[i].device] : NULL;
		uint64_t nev = gmp_writer__events(gmp_col.w);
		/* Unchanged: not again, unless asked for a new moment (a failure's, after events since). */
		if (l && same(l, &s[i]) && (!always || l->before == nev))
			continue;
		int err = gmp_writer__pools(gmp_col.w, &s[i]);
		if (err) {
			rec_write_failed(err);
			return;
		}
		if (l) {
			*l = s[i];
			l->before = nev;
		}
		if (gmp_col.trace) {
			struct gmp_pool_state t = s[i];
			t.before = gmp_col.trace->nev;
			if (gmp_trace__add_pool_state(gmp_col.trace, &t))
				rec_online_lost();
		}
	}
}

void cb_pools(void)
{
	if (!pools_any())
		return;
	uint64_t t0 = st_now();
	struct gmp_pool_state s[16];
	int was = cb_guard();
	size_t n = pools_sample(UINT32_MAX, s, sizeof(s) / sizeof(s[0]));
	cb_unguard(was);
	st_lock(t0);
	pools_record(s, n, 0);
	st_since(GMP_ST_CALLBACKS, t0);
	pthread_mutex_unlock(&gmp_col.lock);
}
