// SPDX-License-Identifier: MIT
/*
 * The device patches' warp code (gpu_patch/gmprof_patch.cu) built for the
 * CPU, 32 threads standing in for a warp's lanes (warp_emu.h), against the
 * same accesses made lane by lane through gpu_patch/patch_logic.h, which
 * the other unit tests and the Sanitizer test double check.  Random warps
 * over a table of objects with gaps between some: coalesced, strided,
 * broadcast and scattered addresses, partial warps, reads, writes,
 * atomics and prefetches, accesses straddling two objects or a gap, in
 * object mode, intra mode (bitmaps and counters at several granularities)
 * and stream mode, with and without per-instruction records (starting as
 * earlier launches left them).  After every warp instruction the hit
 * flags, the set of bits the hit list holds (each exactly once), the
 * bitmaps, the counters and the stream records must be the same both
 * ways, and every record that claims bits for the launch must be true.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

extern "C" {
#include <cmocka.h>
}

#include "warp_emu.h"
#include "gmprof_patch.cu"

struct emu_warp emu_warp;
thread_local uint32_t emu_lane;

/* What the lanes of one warp instruction do; the main thread sets it, the lanes read it. */
static struct {
	pthread_barrier_t start, done;  /* the 32 lanes and the main thread */
	struct gmp_patch_launch *l;
	uint64_t pc;                    /* the instruction's: per-instruction hints key on it */
	int records;                    /* the lanes call gmp_patch_global_access_records (GMPROF_PATCH_HINTS=1) */
	int object;                     /* else gmp_patch_global_access_object (object mode's), when set */
	uint64_t addr[32];
	uint32_t size[32], flags[32];
	int quit;
} job;

static void *lane_main(void *arg)
{
	emu_lane = (uint32_t)(uintptr_t)arg;
	for (;;) {
		pthread_barrier_wait(&job.start);
		if (job.quit)
			return NULL;
		if (emu_warp.active >> emu_lane & 1)
			(job.records  ? gmp_patch_global_access_records
			 : job.object ? gmp_patch_global_access_object
				      : gmp_patch_global_access)(
				job.l, job.pc, (void *)(uintptr_t)job.addr[emu_lane], job.size[emu_lane], job.flags[emu_lane],
				NULL);
		pthread_barrier_wait(&job.done);
	}
}

static pthread_t lanes[32];

static int setup(void **state)
{
	(void)state;
	if (pthread_barrier_init(&job.start, NULL, 33) || pthread_barrier_init(&job.done, NULL, 33) ||
	    pthread_barrier_init(&emu_warp.meet, NULL, 32))
		return -1;
	for (uintptr_t i = 0; i < 32; i++)
		if (pthread_create(&lanes[i], NULL, lane_main, (void *)i))
			return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	job.quit = 1;
	pthread_barrier_wait(&job.start);
	for (int i = 0; i < 32; i++)
		pthread_join(lanes[i], NULL);
	pthread_barrier_destroy(&job.start);
	pthread_barrier_destroy(&job.done);
	pthread_barrier_destroy(&emu_warp.meet);
	return 0;
}

/* One warp instruction: the active lanes run the patch together. */
static void run_warp(struct gmp_patch_launch *l, uint32_t active)
{
	job.l = l;
	emu_warp.active = active;
	pthread_barrier_destroy(&emu_warp.meet);
	assert_int_equal(pthread_barrier_init(&emu_warp.meet, NULL, (unsigned)__builtin_popcount(active)), 0);
	pthread_barrier_wait(&job.start);
	pthread_barrier_wait(&job.done);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A launch's state, one per way of running it: table, flags, list, maps, records. */
struct state {
	std::vector<uint64_t> table;      /* the base: struct gmp_patch_table, starts, ends */
	std::vector<uint64_t> recent;     /* the recent table, likewise */
	std::vector<uint64_t> launch;     /* struct gmp_patch_launch + the hit list, 8-byte aligned */
	std::vector<uint32_t> hits;
	std::vector<gmp_patch_intra_obj> io;
	std::vector<std::vector<uint32_t>> bitmaps, counters;
	std::vector<gmp_patch_record> records;
	std::vector<uint64_t> hints;      /* GMPROF_PATCH_HINTS: earlier launches' records to start with */
	std::vector<uint32_t> host;       /* the hit list in pinned host memory (list_host), or empty */

	struct gmp_patch_launch *l()
	{
		return reinterpret_cast<struct gmp_patch_launch *>(launch.data());
	}

	/*
	 * split (nonzero: a seed) puts about a third of the objects in the
	 * recent table, half of those over a tombstone of the base at their
	 * start (patch_abi.h); the entries are the base's, then the recent
	 * table's, as a launch numbers them.
	 */
	state(const std::vector<uint64_t> &start, const std::vector<uint64_t> &end, uint32_t mode,
	      uint32_t gs, uint32_t cs, uint64_t hint_seed, uint64_t split, uint64_t stale, bool host_list = false)
	{
		std::vector<uint64_t> bs, be, rs, re;
		for (size_t i = 0; i < start.size(); i++) {
			if (split && rnd(&split) % 3 == 0) {
				rs.push_back(start[i]);
				re.push_back(end[i]);
				if (rnd(&split) % 2) { /* a tombstone: the base's end set to its start */
					bs.push_back(start[i]);
					be.push_back(start[i]);
				}
			} else {
				bs.push_back(start[i]);
				be.push_back(end[i]);
			}
		}
		size_t nb = bs.size(), nr = rs.size(), n = nb + nr;
		table.assign(2 + 2 * nb, 0);
		table[0] = nb;
		std::copy(bs.begin(), bs.end(), table.begin() + 2);
		std::copy(be.begin(), be.end(), table.begin() + 2 + nb);
		recent.assign(2 + 2 * nr, 0);
		recent[0] = nr;
		std::copy(rs.begin(), rs.end(), recent.begin() + 2);
		std::copy(re.begin(), re.end(), recent.begin() + 2 + nr);
		std::vector<uint64_t> es(bs), ee(be); /* each entry's bounds */
		es.insert(es.end(), rs.begin(), rs.end());
		ee.insert(ee.end(), re.begin(), re.end());
		uint32_t cap = (uint32_t)(2 * n);
		launch.assign((sizeof(struct gmp_patch_launch) + 4 * cap) / 8 + 1, 0);
		hits.assign(n, 0);
		uint32_t epoch = 0;
		if (stale) { /* the buffer's earlier launches left their stamps and bits (patch_abi.h) */
			epoch = 1 + (uint32_t)(rnd(&stale) % 1000);
			for (uint32_t &h : hits)
				h = GMP_HIT_STAMP(epoch - 1 - rnd(&stale) % epoch) << 2 | (uint32_t)(rnd(&stale) % 4);
		}
		records.assign(4096, gmp_patch_record{});
		struct gmp_patch_launch *p = l();
		p->table = (uint64_t)(uintptr_t)table.data();
		p->base_n = (uint32_t)nb;
		if (nr)
			p->recent = (uint64_t)(uintptr_t)recent.data();
		p->hits = (uint64_t)(uintptr_t)hits.data();
		p->mode = mode;
		p->gran_shift = gs;
		p->cgran_shift = cs;
		p->list_cap = cap;
		p->epoch = epoch;
		if (host_list) { /* struct gmp_patch_host_list, then the items (left as garbage) */
			host.assign(2 + cap, 7);
			host[0] = host[1] = 0;
			p->list_host = (uint64_t)(uintptr_t)host.data();
		}
		if (hint_seed) {
			/*
			 * Records as earlier launches of the buffer left them (or cleared,
			 * epoch 0): any entry, some past the last, older stamps, any bits.
			 */
			hints.resize(GMP_HINTS);
			for (uint64_t &h : hints)
				h = epoch ? rnd(&hint_seed) % (n + 3) |
						    (uint64_t)(GMP_HIT_STAMP(rnd(&hint_seed) % epoch) << 2 | (uint32_t)(rnd(&hint_seed) % 4)) << 32
					  : 0;
			p->hints = (uint64_t)(uintptr_t)hints.data();
		}
		if (mode & GMP_MODE_INTRA_GPU) {
			bitmaps.resize(n);
			counters.resize(n);
			io.resize(n);
			for (size_t i = 0; i < n; i++) {
				uint64_t size = ee[i] - es[i];
				bitmaps[i].assign(((size + (1u << gs) - 1) >> gs) / 32 + 1, 0);
				counters[i].assign(((size + (1u << cs) - 1) >> cs) + 1, 0);
				io[i] = gmp_patch_intra_obj{ es[i], size, (uint64_t)(uintptr_t)bitmaps[i].data(),
							     (uint64_t)(uintptr_t)counters[i].data() };
			}
			p->intra = (uint64_t)(uintptr_t)io.data();
		}
		if (mode & GMP_MODE_INTRA_STREAM) {
			p->records = (uint64_t)(uintptr_t)records.data();
			p->record_cap = (uint32_t)records.size();
		}
	}

	/* Per entry, the bits its hit word holds for this launch. */
	std::vector<uint32_t> decoded()
	{
		std::vector<uint32_t> bits(hits.size());
		for (size_t i = 0; i < hits.size(); i++)
			bits[i] = gmp_patch_hit_of(hits[i], l()->epoch);
		return bits;
	}

	/* Whether every record that claims bits for this launch is true: its entry's hit word holds them. */
	bool records_true()
	{
		for (uint64_t h : hints) {
			uint32_t claim = gmp_patch_claims(l(), h, (uint32_t)h);
			if (claim && ((uint32_t)h >= hits.size() || (claim & ~gmp_patch_hit_of(hits[(uint32_t)h], l()->epoch))))
				return false;
		}
		return true;
	}

	/* Per entry, the bits its hit list items hold; fails when a bit is listed twice. */
	std::vector<uint32_t> listed()
	{
		std::vector<uint32_t> bits(hits.size(), 0);
		const uint32_t *list = gmp_patch_list(l()), count = *gmp_patch_list_count(l());
		assert_true(count <= l()->list_cap);
		assert_true(host.empty() || l()->list_count == 0); /* the list and its count are in one place */
		for (uint32_t k = 0; k < count; k++) {
			uint32_t i = list[k] >> GMP_LIST_SHIFT, b = list[k] & 3u;
			assert_true(i < hits.size());
			assert_int_not_equal(b, 0);
			assert_int_equal(bits[i] & b, 0); /* each bit once */
			bits[i] |= b;
		}
		return bits;
	}

	std::vector<gmp_patch_record> streamed()
	{
		std::vector<gmp_patch_record> v(records.begin(), records.begin() + l()->record_count);
		std::sort(v.begin(), v.end(), [](const gmp_patch_record &a, const gmp_patch_record &b) {
			return a.addr != b.addr ? a.addr < b.addr : a.size != b.size ? a.size < b.size : a.flags < b.flags;
		});
		return v;
	}
};

static void same(state &w, state &r, const char *what, int step)
{
	if (w.hits != r.hits || w.listed() != r.listed() || w.listed() != w.decoded() || !w.records_true() || w.bitmaps != r.bitmaps ||
	    w.counters != r.counters || w.l()->record_count != r.l()->record_count) {
		fprintf(stderr, "%s: warp and lanes differ after instruction %d\n", what, step);
		fail();
	}
	std::vector<gmp_patch_record> a = w.streamed(), b = r.streamed();
	assert_int_equal(a.size(), b.size());
	for (size_t i = 0; i < a.size(); i++)
		assert_true(a[i].addr == b[i].addr && a[i].size == b[i].size && a[i].flags == b[i].flags);
}

/* One warp instruction (job's) run both ways, the warp on w and its active lanes one by one on r; then compared. */
static void both(state &w, state &r, uint32_t active, const char *what, int step)
{
	run_warp(w.l(), active);
	for (int i = 0; i < 32; i++)
		if (active >> i & 1)
			gmp_patch_access(r.l(), job.pc, job.addr[i], job.size[i], job.flags[i]);
	assert_int_equal(emu_warp.misuse, 0);
	same(w, r, what, step);
}

/* Every lane of the next instruction reads or writes the 4 bytes after the previous lane's, from base. */
static void coalesced(uint64_t base, uint32_t flags)
{
	for (uint32_t i = 0; i < 32; i++) {
		job.addr[i] = base + 4 * i;
		job.size[i] = 4;
		job.flags[i] = flags;
	}
}

/* Lane addresses and sizes of one instruction, in one of the shapes kernels have. */
static void shape(uint64_t *s, uint64_t lo, uint64_t hi, uint64_t *addr, uint32_t *size)
{
	static const uint32_t sizes[] = { 1, 2, 4, 4, 4, 8, 8, 16 };
	uint32_t elt = sizes[rnd(s) % 8];
	uint64_t base = lo + (rnd(s) % (hi - lo)) / elt * elt;
	switch (rnd(s) % 5) {
	case 0: /* coalesced: consecutive elements, maybe running into the next object or a gap */
	case 1:
		for (int i = 0; i < 32; i++)
			addr[i] = base + (uint64_t)i * elt;
		break;
	case 2: /* strided */
		for (int i = 0; i < 32; i++)
			addr[i] = base + (uint64_t)i * (64 << (rnd(s) % 2));
		break;
	case 3: /* one address for the whole warp */
		for (int i = 0; i < 32; i++)
			addr[i] = base;
		break;
	default: /* scattered, some outside every object */
		for (int i = 0; i < 32; i++)
			addr[i] = lo - 64 + rnd(s) % (hi - lo + 128);
	}
	for (int i = 0; i < 32; i++)
		size[i] = rnd(s) % 50 ? elt : rnd(s) % 2 ? 0 : 3; /* now and then empty or odd */
}

static uint32_t flags_of(uint64_t *s)
{
	switch (rnd(s) % 20) {
	case 0: return GMP_SAN_ACCESS_PREFETCH | GMP_SAN_ACCESS_READ;
	case 1:
	case 2: return GMP_SAN_ACCESS_READ | GMP_SAN_ACCESS_WRITE | GMP_SAN_ACCESS_ATOMSYS;
	default: return rnd(s) % 3 ? GMP_SAN_ACCESS_READ : GMP_SAN_ACCESS_WRITE;
	}
}

static void check_mode(uint32_t mode, uint32_t gs, uint32_t cs, const char *what, uint64_t seed)
{
	uint64_t s = seed;
	for (int round = 0; round < 12; round++) {
		/* Six objects, some adjacent, some with a gap after them. */
		std::vector<uint64_t> start, end;
		uint64_t at = 0x10000;
		for (int i = 0; i < 6; i++) {
			uint64_t size = 64 + (rnd(&s) % 64) * 16;
			start.push_back(at);
			end.push_back(at + size);
			at += size + (rnd(&s) % 2 ? 0 : 64 + (rnd(&s) % 8) * 8);
		}
		uint32_t m = mode | (rnd(&s) % 2 ? GMP_MODE_L1_TESTS : 0);
		uint64_t hint_seed = rnd(&s) % 2 ? rnd(&s) | 1 : 0, split = rnd(&s) % 2 ? rnd(&s) | 1 : 0;
		uint64_t stale = rnd(&s) % 2 ? rnd(&s) | 1 : 0; /* a buffer with earlier launches' stamps */
		job.records = hint_seed && rnd(&s) % 4; /* records: mostly the collector's entry for them */
		/* Object mode's own function, in object mode, half the time (a launch there is never intra). */
		job.object = !(mode & (GMP_MODE_INTRA_GPU | GMP_MODE_INTRA_STREAM)) && rnd(&s) % 2;
		bool host_list = rnd(&s) % 2; /* the warp way's list in pinned host memory, half the time */
		state w(start, end, m, gs, cs, hint_seed, split, stale, host_list), r(start, end, m, gs, cs, 0, split, stale);
		const std::vector<uint64_t> hints_before = w.hints;
		for (int step = 0; step < 40; step++) {
			uint32_t size[32], flags = flags_of(&s);
			shape(&s, start.front(), end.back(), job.addr, size);
			uint32_t active = rnd(&s) % 4 ? 0xffffffffu : (uint32_t)rnd(&s) | 1u << (rnd(&s) % 32);
			for (int i = 0; i < 32; i++) {
				job.size[i] = size[i];
				job.flags[i] = rnd(&s) % 8 ? flags : flags_of(&s); /* mostly one kind per instruction */
			}
			job.pc = (rnd(&s) % 6) << 4; /* a few instructions, run again and again */
			both(w, r, active, what, step);
			/* Object mode's function is patched only where launches keep no records: it leaves them be. */
			if (job.object && !job.records)
				assert_true(w.hints == hints_before);
		}
	}
}

/*
 * One instruction reading an object, again, then writing it, again, then
 * an atomic: its record claims the read first, so the second read sets
 * nothing, the first write still sets its bit, and the record ends
 * claiming both, for the entry it found.
 */
static void records(void **)
{
	const std::vector<uint64_t> start = { 0x10000, 0x20000 }, end = { 0x10400, 0x20400 };
	const uint32_t kinds[] = { GMP_SAN_ACCESS_READ, GMP_SAN_ACCESS_READ, GMP_SAN_ACCESS_WRITE, GMP_SAN_ACCESS_WRITE,
				   GMP_SAN_ACCESS_READ | GMP_SAN_ACCESS_WRITE | GMP_SAN_ACCESS_ATOMSYS };
	for (uint32_t way = 0; way < 4; way++) {
		const uint32_t mode = GMP_MODE_OBJECT | (way & 1 ? GMP_MODE_L1_TESTS : 0);
		job.records = way >> 1; /* both entries: the records' own and the plain one */
		job.object = 0;
		state w(start, end, mode, 2, 6, 1, 0, 0), r(start, end, mode, 2, 6, 0, 0, 0);
		job.pc = 0x40;
		for (int k = 0; k < 5; k++) {
			coalesced(0x20000, kinds[k]);
			both(w, r, 0xffffffffu, "records: one instruction reading and writing one object", k);
		}
		assert_int_equal(w.decoded()[1], GMP_HIT_READ | GMP_HIT_WRITE);
		const uint64_t rec = w.hints[GMP_HINT_SLOT(job.pc)];
		assert_int_equal((uint32_t)rec, 1);
		assert_int_equal(gmp_patch_claims(w.l(), rec, 1), GMP_HIT_READ | GMP_HIT_WRITE);
	}
}

/*
 * A record claiming entry 0's read, then the same instruction with one
 * lane's access running past entry 0's end into entry 1: the warp must not
 * take the record's word for that lane (entry 1 gets its read).
 */
static void records_straddle(void **)
{
	const std::vector<uint64_t> start = { 0x10000, 0x10400 }, end = { 0x10400, 0x10800 };
	for (int plain = 0; plain < 2; plain++) {
		job.records = !plain;
		job.object = 0;
		state w(start, end, GMP_MODE_OBJECT, 2, 6, 1, 0, 0), r(start, end, GMP_MODE_OBJECT, 2, 6, 0, 0, 0);
		job.pc = 0x80;
		for (int k = 0; k < 2; k++) {
			coalesced(0x10300, GMP_SAN_ACCESS_READ);
			if (k)
				job.addr[31] = 0x103fe; /* two bytes in entry 0, two in entry 1 */
			both(w, r, 0xffffffffu, "records: a lane's access past the record's entry", k);
		}
		assert_int_equal(w.decoded()[1], GMP_HIT_READ);
	}
}

/*
 * Object mode's own function (gmp_patch_global_access_object) is patched
 * only where no launch keeps records (GMPROF_PATCH_HINTS off), so it
 * leaves them out: given a launch with records, it neither trusts nor
 * writes them, and sets what the lanes set.
 */
static void object_function_no_records(void **)
{
	const std::vector<uint64_t> start = { 0x10000, 0x20000 }, end = { 0x10400, 0x20400 };
	job.records = 0;
	job.object = 1;
	state w(start, end, GMP_MODE_OBJECT, 2, 6, 1, 0, 7), r(start, end, GMP_MODE_OBJECT, 2, 6, 0, 0, 7);
	const std::vector<uint64_t> before = w.hints;
	job.pc = 0x40;
	for (int k = 0; k < 4; k++) {
		coalesced(k % 2 ? 0x20000 : 0x10000, k < 2 ? GMP_SAN_ACCESS_READ : GMP_SAN_ACCESS_WRITE);
		both(w, r, 0xffffffffu, "object mode's function with records in the launch", k);
	}
	assert_true(w.hints == before);
	assert_int_equal(w.decoded()[0], GMP_HIT_READ | GMP_HIT_WRITE);
	job.object = 0;
}

static void object_mode(void **state)
{
	(void)state;
	check_mode(GMP_MODE_OBJECT, GMP_GRAN_SHIFT_DEFAULT, GMP_CGRAN_SHIFT_DEFAULT, "object mode", 0x9e3779b97f4a7c15ull);
}

static void intra_mode(void **state)
{
	(void)state;
	check_mode(GMP_MODE_OBJECT | GMP_MODE_INTRA_GPU, 2, 6, "intra mode, 4-byte bits, 64-byte counters", 0x1234567ull);
	check_mode(GMP_MODE_OBJECT | GMP_MODE_INTRA_GPU, 0, 4, "intra mode, 1-byte bits, 16-byte counters", 0xabcdefull);
	check_mode(GMP_MODE_OBJECT | GMP_MODE_INTRA_GPU, 3, 3, "intra mode, 8-byte bits and counters", 0x777ull);
}

static void stream_mode(void **state)
{
	(void)state;
	check_mode(GMP_MODE_OBJECT | GMP_MODE_INTRA_STREAM, 2, 6, "stream mode", 0x5151ull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(records),
		cmocka_unit_test(records_straddle),
		cmocka_unit_test(object_function_no_records),
		cmocka_unit_test(object_mode),
		cmocka_unit_test(intra_mode),
		cmocka_unit_test(stream_mode),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
