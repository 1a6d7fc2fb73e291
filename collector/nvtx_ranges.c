// SPDX-License-Identifier: MIT
/*
 * NVTX ranges: the phase of the program in which each GPU call was made.
 * The program's NVTX library loads the collector as its tool, as for the
 * memory extension, and the core initializer below fills the range slots
 * of each NVTX instance (every library that includes NVTX has its own).
 *
 * Two kinds of range.  nvtxRangePush/Pop (and their domain versions) nest
 * on one thread: a thread keeps its stack of open ranges in thread-local
 * memory, with no lock, each with its NVTX domain (nvtx_domains.c): every
 * domain has a stack of its own, so a pop ends its domain's innermost
 * range, which need not be the thread's (a library's range begun before
 * the program's ends, and the program's is still open).
 * nvtxRangeStart/End (and their domain versions) belong to the process:
 * open from their start until their end, which may come on another
 * thread, they hold every thread's calls in between; they are kept in one
 * list under a lock of their own.  A thread's calls
 * are made in both, listed in the order they began (a sequence number
 * each), so ranges of either kind that nest on one thread keep their
 * nesting.
 *
 * The profile hears of a thread's ranges only when the thread records
 * something and its stack or the process's ranges changed since its last
 * record (nvtx_sync_ranges, from rec_event): ranges around no GPU call
 * cost a push and a pop here and nothing in the profile, as frameworks
 * that push a range per operator need.  A range left and entered again
 * between two records (a loop's "step") is written as two records, the
 * ranges kept and then the whole path, so that the profile tells the two
 * times apart.
 */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "collector.h"
#include "nvtx_abi.h"

#define API __attribute__((visibility("default")))
#define RANGE_DEPTH 32  /* a path's ranges: deeper ones are counted, not named */
/*
 * Ranges named on a thread's stack: some past RANGE_DEPTH, so that a range
 * of another domain open for a while above them (each domain pops its own)
 * does not cost a name that comes within RANGE_DEPTH when it is popped.
 */
#define RANGE_KEPT 48
#define DOMAIN_DEPTH 256 /* the domains of the ranges this deep kept; a pop deeper ends the innermost */
#define RANGE_NAME GMP_NVTX_NAME_MAX
#define NO_TRACKING (-2) /* NVTX's level for a push or pop whose stack the tool does not keep */
#define OPEN_MAX 64     /* start/end ranges kept open at once; later ones are counted, not named */

static __thread struct {
	char name[RANGE_KEPT][RANGE_NAME];
	uint64_t seq[RANGE_KEPT]; /* when each began, among all ranges */
	uint64_t tok[RANGE_KEPT]; /* which push each is (pushes counts them) */
	uint64_t pushes;
	unsigned depth;           /* may exceed RANGE_KEPT */
	const void *dom[DOMAIN_DEPTH]; /* each range's domain (NULL: the default) */
	unsigned in_domains;      /* ranges kept in dom of a domain not the default */
	uint64_t gen, written;    /* changes made, and the one the profile has */
	uint64_t open_written;    /* the process's ranges' change the profile has for this thread */
	uint32_t last[RANGE_DEPTH]; /* the path last written (string ids) */
	uint64_t lasttok[RANGE_DEPTH]; /* and which push or begun range each was */
	size_t nlast;
	int started;              /* this thread has written its ranges */
} tr;
static int ranges_seen;       /* a thread wrote ranges: the others must say theirs (lock) */
static int warned_deep;
static uint64_t range_seq = 1; /* ranges begun by id or pushed since the first was (atomic) */

/* The process's ranges (nvtxRangeStart/End), in the order they began. */
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	uint64_t id, seq;
	char name[RANGE_NAME];
} open_r[OPEN_MAX];
static size_t nopen;
static uint64_t next_id, open_gen; /* next_id: the last id given (atomic); open_gen: changes to the list
				    (atomic, written under open_lock) */
static int warned_open;

/*
 * Whether domain dom's ranges and marks are recorded (nvtx_domains.c): the
 * default domain's, every framework's range per operator, without a call.
 */
static inline int recorded(const void *dom)
{
	return dom ? nvtx_domain_recorded(dom) : __atomic_load_n(&nvtx_default_recorded, __ATOMIC_RELAXED);
}

/* The same, a named domain's range (mark 0) or mark counted on the way. */
static inline int kept(const void *dom, int mark)
{
	if (dom)
		nvtx_domain_count(dom, mark);
	return recorded(dom);
}

/* A range's or mark's name into buf: its domain's name and a colon first where GMPROF_NVTX_DOMAIN_NAMES asks. */
static void range_name(const void *dom, int32_t type, const void *message, char *buf)
{
	size_t pre = dom && gmp_col.opts.nvtx_domain_names ? nvtx_domain_prefix(dom, buf, RANGE_NAME / 2) : 0;
	const char *n = type == GMP_NVTX_MESSAGE_ASCII || type == GMP_NVTX_MESSAGE_UNICODE ||
					type == GMP_NVTX_MESSAGE_REGISTERED
				? nvtx_name((uint32_t)type, message, buf + pre, RANGE_NAME - pre) : NULL;
	if (!n || !*n)
		snprintf(buf + pre, RANGE_NAME - pre, "(unnamed)");
}

/* The level of a range at index k of the stack in its domain: how many of the domain's are below it. */
static int level(const void *dom, unsigned k)
{
	if (!tr.in_domains || k > DOMAIN_DEPTH)
		return (int)k; /* one domain only (the common case), or too deep to tell */
	int n = 0;
	for (unsigned i = 0; i < k; i++)
		n += tr.dom[i] == dom;
	return n;
}

static int push(const void *dom, int32_t type, const void *message)
{
	if (!kept(dom, 0))
		return NO_TRACKING; /* a domain left out (GMPROF_NVTX_DOMAIN_*): its stack is its own, not kept */
	unsigned d = tr.depth++;
	tr.gen++;
	if (d < DOMAIN_DEPTH) {
		tr.dom[d] = dom;
		tr.in_domains += dom != NULL;
	}
	if (d < RANGE_KEPT) {
		range_name(dom, type, message, tr.name[d]);
		tr.tok[d] = ++tr.pushes;
		/*
		 * Ordered among the process's ranges: until one is begun, a push
		 * is older than all of them, and takes no shared counter (a
		 * framework pushes a range per operator, from several threads).
		 */
		tr.seq[d] = __atomic_load_n(&open_gen, __ATOMIC_RELAXED)
				    ? __atomic_fetch_add(&range_seq, 1, __ATOMIC_RELAXED) : 0;
	}
	return level(dom, d);
}

/* Takes the range at index k (named, k < RANGE_KEPT) out of the stack; the ranges above it move down. */
static void take_out(unsigned k)
{
	unsigned top = tr.depth - 1, named = tr.depth < RANGE_KEPT ? tr.depth : RANGE_KEPT;
	size_t m = named - 1 - k;
	memmove(tr.name[k], tr.name[k + 1], m * sizeof(tr.name[0]));
	memmove(&tr.seq[k], &tr.seq[k + 1], m * sizeof(tr.seq[0]));
	memmove(&tr.tok[k], &tr.tok[k + 1], m * sizeof(tr.tok[0]));
	if (top >= RANGE_KEPT) {
		/* The first range past those named comes into them: its name was not kept. */
		snprintf(tr.name[RANGE_KEPT - 1], RANGE_NAME, "(unnamed)");
		tr.tok[RANGE_KEPT - 1] = ++tr.pushes;
		tr.seq[RANGE_KEPT - 1] = __atomic_load_n(&open_gen, __ATOMIC_RELAXED)
						 ? __atomic_fetch_add(&range_seq, 1, __ATOMIC_RELAXED) : 0;
	}
}

static int pop(const void *dom)
{
	if (!recorded(dom))
		return NO_TRACKING; /* as push: not kept */
	if (!tr.depth)
		return -1; /* NVTX's answer to a pop with nothing pushed */
	unsigned top = tr.depth - 1, k = top;
	if (top < DOMAIN_DEPTH) {
		/* The domain's innermost range: the thread's unless another domain's was pushed since. */
		while (k > 0 && tr.dom[k] != dom)
			k--;
		if (tr.dom[k] != dom)
			return -1; /* none of this domain's is open */
		int lv = level(dom, k);
		tr.in_domains -= dom != NULL;
		if (k < top) {
			memmove(&tr.dom[k], &tr.dom[k + 1], (top - k) * sizeof(tr.dom[0]));
			if (k < RANGE_KEPT)
				take_out(k);
		}
		tr.gen++;
		tr.depth--;
		return lv;
	}
	tr.gen++; /* deeper than the domains kept: the innermost, whichever domain it is in */
	return (int)--tr.depth;
}

static int pop_default(void)
{
	return pop(NULL);
}

static int known_attr(const struct gmp_nvtx_event_attr *a)
{
	return a && a->size >= offsetof(struct gmp_nvtx_event_attr, message) + sizeof(a->message);
}

static int range_push_a(const char *message)
{
	return push(NULL, GMP_NVTX_MESSAGE_ASCII, message);
}

static int range_push_w(const wchar_t *message)
{
	return push(NULL, GMP_NVTX_MESSAGE_UNICODE, message);
}

static int range_push_ex(const struct gmp_nvtx_event_attr *a)
{
	return push(NULL, known_attr(a) ? a->message_type : 0, known_attr(a) ? a->message : NULL);
}

static int domain_range_push_ex(void *domain, const struct gmp_nvtx_event_attr *a)
{
	return push(domain, known_attr(a) ? a->message_type : 0, known_attr(a) ? a->message : NULL);
}

static int domain_range_pop(void *domain)
{
	return pop(domain);
}

/*
 * A mark (nvtxMarkA, W, Ex and the domain's): a MARK record of the calling
 * thread at this moment, before its next event (Perfetto's host axis shows
 * it, the reports the live bytes at it), and the same in the online trace.
 * Its ranges are not written: a mark makes no GPU call.
 */
static void mark(const void *dom, int32_t type, const void *message)
{
	if (!kept(dom, 1))
		return; /* a domain left out (GMPROF_NVTX_DOMAIN_*) */
	char name[RANGE_NAME];
	range_name(dom, type, message, name);
	uint32_t tid = rec_tid();
	pthread_mutex_lock(&gmp_col.lock);
	if (gmp_col.active && !gmp_col.closed && !gmp_col.write_failed) {
		rec_thread_named(tid);
		uint64_t now = rec_now();
		int64_t id = gmp_writer__string(gmp_col.w, name, strlen(name));
		int rc = id < 0 ? (int)id : gmp_writer__mark(gmp_col.w, tid, now, (uint32_t)id);
		if (rc)
			rec_write_failed(rc);
		else
			rec_online_mark(tid, now, name); /* the exit summary's marks that grew */
	}
	pthread_mutex_unlock(&gmp_col.lock);
}

static void mark_a(const char *message)
{
	mark(NULL, GMP_NVTX_MESSAGE_ASCII, message);
}

static void mark_w(const wchar_t *message)
{
	mark(NULL, GMP_NVTX_MESSAGE_UNICODE, message);
}

static void mark_ex(const struct gmp_nvtx_event_attr *a)
{
	mark(NULL, known_attr(a) ? a->message_type : 0, known_attr(a) ? a->message : NULL);
}

static void domain_mark_ex(void *domain, const struct gmp_nvtx_event_attr *a)
{
	mark(domain, known_attr(a) ? a->message_type : 0, known_attr(a) ? a->message : NULL);
}

/* A process's range begins: its id, for the end (never 0; ids are the process's, whatever the domain). */
static uint64_t start(const void *dom, int32_t type, const void *message)
{
	if (!kept(dom, 0)) /* a domain left out (GMPROF_NVTX_DOMAIN_*): an id, and no range */
		return __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
	char name[RANGE_NAME];
	range_name(dom, type, message, name);
	uint64_t seq = __atomic_fetch_add(&range_seq, 1, __ATOMIC_RELAXED);
	int say = 0;
	pthread_mutex_lock(&open_lock);
	uint64_t id = __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
	if (nopen < OPEN_MAX) {
		open_r[nopen].id = id;
		open_r[nopen].seq = seq;
		memcpy(open_r[nopen].name, name, sizeof(name));
		nopen++;
		__atomic_add_fetch(&open_gen, 1, __ATOMIC_RELEASE);
	} else {
		say = !warned_open++;
	}
	pthread_mutex_unlock(&open_lock);
	if (say)
		rec_say("more than %d NVTX ranges started with nvtxRangeStart are open at once: "
			"the later ones are not recorded", OPEN_MAX);
	return id;
}

static void end(uint64_t id)
{
	pthread_mutex_lock(&open_lock);
	for (size_t i = 0; i < nopen; i++)
		if (open_r[i].id == id) {
			memmove(&open_r[i], &open_r[i + 1], (nopen - i - 1) * sizeof(open_r[0]));
			nopen--;
			__atomic_add_fetch(&open_gen, 1, __ATOMIC_RELEASE);
			break;
		}
	pthread_mutex_unlock(&open_lock); /* an id never started, or not kept: nothing to end */
}

static uint64_t range_start_a(const char *message)
{
	return start(NULL, GMP_NVTX_MESSAGE_ASCII, message);
}

static uint64_t range_start_w(const wchar_t *message)
{
	return start(NULL, GMP_NVTX_MESSAGE_UNICODE, message);
}

static uint64_t range_start_ex(const struct gmp_nvtx_event_attr *a)
{
	return start(NULL, known_attr(a) ? a->message_type : 0, known_attr(a) ? a->message : NULL);
}

static uint64_t domain_range_start_ex(void *domain, const struct gmp_nvtx_event_attr *a)
{
	return start(domain, known_attr(a) ? a->message_type : 0, known_attr(a) ? a->message : NULL);
}

static void domain_range_end(void *domain, uint64_t id)
{
	(void)domain;
	end(id);
}

/*
 * This thread's path: its stack and the process's ranges, in the order
 * they began, the outermost RANGE_DEPTH; copies of the process's names go
 * to buf, and which push or begun range each is to tok (a begun range's
 * id with the top bit set).  Sets *all to how many ranges it is in.
 */
static size_t path_of(const char **names, uint64_t *tok, char (*buf)[RANGE_NAME], uint64_t *gen, size_t *all)
{
	uint64_t seq[RANGE_DEPTH], id[RANGE_DEPTH];
	size_t nc = 0, total = 0;
	if (*gen) {
		pthread_mutex_lock(&open_lock);
		for (; nc < nopen && nc < RANGE_DEPTH; nc++) {
			memcpy(buf[nc], open_r[nc].name, RANGE_NAME);
			seq[nc] = open_r[nc].seq;
			id[nc] = open_r[nc].id | 1ull << 63;
		}
		total = nopen;
		*gen = open_gen;
		pthread_mutex_unlock(&open_lock);
	}
	size_t nt = tr.depth < RANGE_DEPTH ? tr.depth : RANGE_DEPTH, i = 0, j = 0, n = 0;
	for (; n < RANGE_DEPTH && (i < nt || j < nc); n++) {
		int mine = j == nc || (i < nt && tr.seq[i] < seq[j]);
		tok[n] = mine ? tr.tok[i] : id[j];
		names[n] = mine ? tr.name[i++] : buf[j++];
	}
	*all = total + tr.depth;
	return n;
}

/* Writes that this thread's calls are made inside the n ranges names (ids, the profile's). */
static int write_path(uint32_t tid, const uint32_t *ids, const char *const *names, size_t n)
{
	int err = gmp_writer__ranges(gmp_col.w, tid, ids, n);
	if (err) {
		rec_write_failed(err);
		return err;
	}
	if (gmp_col.trace) {
		/* The online trace: its own string ids, the same place among its events. */
		int64_t path = 0;
		uint32_t tids[RANGE_DEPTH];
		for (size_t i = 0; i < n && path >= 0; i++)
			if (!(tids[i] = gmp_trace__intern_cstr(gmp_col.trace, names[i])))
				path = -1;
		if (path == 0)
			path = gmp_trace__add_range_path(gmp_col.trace, tids, n);
		if (path < 0 || gmp_trace__add_range_change(gmp_col.trace, gmp_col.trace->nev, tid,
							    (uint32_t)path))
			rec_online_lost();
	}
	return 0;
}

void nvtx_sync_ranges(void)
{
	uint64_t og = __atomic_load_n(&open_gen, __ATOMIC_ACQUIRE);
	if (tr.gen == tr.written && og == tr.open_written && (tr.started || !ranges_seen))
		return;
	const char *names[RANGE_DEPTH];
	char buf[RANGE_DEPTH][RANGE_NAME];
	uint64_t tok[RANGE_DEPTH];
	uint32_t ids[RANGE_DEPTH], tid = rec_tid();
	size_t all, n = path_of(names, tok, buf, &og, &all);
	if (all > RANGE_DEPTH && !warned_deep++)
		rec_say("NVTX ranges nest deeper than %d: the deeper ones are not recorded", RANGE_DEPTH);
	for (size_t i = 0; i < n; i++) {
		int64_t id = gmp_writer__string(gmp_col.w, names[i], strlen(names[i]));
		if (id < 0) {
			rec_write_failed((int)id);
			return;
		}
		ids[i] = (uint32_t)id;
	}
	tr.written = tr.gen;
	tr.open_written = og;
	/* The ranges still open since the last record (kept), and those of the same names (same). */
	size_t kept = 0, same;
	while (kept < n && kept < tr.nlast && ids[kept] == tr.last[kept] && tok[kept] == tr.lasttok[kept])
		kept++;
	for (same = kept; same < n && same < tr.nlast && ids[same] == tr.last[same];)
		same++;
	if (tr.started && kept == n && n == tr.nlast)
		return; /* another thread's range began and ended: this one's path is as it was */
	/*
	 * A range left and entered again since (a loop's "step"): first the
	 * ranges kept, so that the profile tells the two times apart.
	 */
	if (tr.started && same > kept && write_path(tid, ids, names, kept))
		return;
	if (write_path(tid, ids, names, n))
		return;
	memcpy(tr.last, ids, n * sizeof(ids[0]));
	memcpy(tr.lasttok, tok, n * sizeof(tok[0]));
	tr.nlast = n;
	tr.started = ranges_seen = 1;
}

int nvtx_in_range(const char *name)
{
	int glob = strpbrk(name, "*?[\\") != NULL; /* a plain name: compared, as before globs (every launch) */
	for (unsigned i = 0; i < tr.depth && i < RANGE_DEPTH; i++)
		if (glob ? !fnmatch(name, tr.name[i], 0) : !strcmp(name, tr.name[i]))
			return 1;
	if (!__atomic_load_n(&open_gen, __ATOMIC_ACQUIRE))
		return 0;
	int in = 0;
	pthread_mutex_lock(&open_lock);
	for (size_t i = 0; i < nopen && !in; i++)
		in = glob ? !fnmatch(name, open_r[i].name, 0) : !strcmp(name, open_r[i].name);
	pthread_mutex_unlock(&open_lock);
	return in;
}

void nvtx_ranges_in_child(void)
{
	pthread_mutex_init(&open_lock, NULL);
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
	nvtx_domains_init();
	static const int core[] = { GMP_NVTX_CBID_CORE_RANGE_PUSH_EX,  GMP_NVTX_CBID_CORE_RANGE_PUSH_A,
				    GMP_NVTX_CBID_CORE_RANGE_PUSH_W,   GMP_NVTX_CBID_CORE_RANGE_POP,
				    GMP_NVTX_CBID_CORE_RANGE_START_EX, GMP_NVTX_CBID_CORE_RANGE_START_A,
				    GMP_NVTX_CBID_CORE_RANGE_START_W,  GMP_NVTX_CBID_CORE_RANGE_END,
				    GMP_NVTX_CBID_CORE_NAME_OS_THREAD_A, GMP_NVTX_CBID_CORE_NAME_OS_THREAD_W,
				    GMP_NVTX_CBID_CORE_MARK_EX, GMP_NVTX_CBID_CORE_MARK_A, GMP_NVTX_CBID_CORE_MARK_W };
	const gmp_nvtx_fn core_fns[] = { (gmp_nvtx_fn)range_push_ex,  (gmp_nvtx_fn)range_push_a,
					 (gmp_nvtx_fn)range_push_w,   (gmp_nvtx_fn)pop_default,
					 (gmp_nvtx_fn)range_start_ex, (gmp_nvtx_fn)range_start_a,
					 (gmp_nvtx_fn)range_start_w,  (gmp_nvtx_fn)end,
					 (gmp_nvtx_fn)nvtx_name_os_thread_a, /* threads' names */
					 (gmp_nvtx_fn)nvtx_name_os_thread_w,
					 (gmp_nvtx_fn)mark_ex, (gmp_nvtx_fn)mark_a, (gmp_nvtx_fn)mark_w };
	static const int core2[] = { GMP_NVTX_CBID_CORE2_DOMAIN_RANGE_PUSH_EX, GMP_NVTX_CBID_CORE2_DOMAIN_RANGE_POP,
				     GMP_NVTX_CBID_CORE2_DOMAIN_RANGE_START_EX, GMP_NVTX_CBID_CORE2_DOMAIN_RANGE_END,
				     GMP_NVTX_CBID_CORE2_DOMAIN_REGISTER_STRING_A,
				     GMP_NVTX_CBID_CORE2_DOMAIN_REGISTER_STRING_W, GMP_NVTX_CBID_CORE2_DOMAIN_MARK_EX,
				     GMP_NVTX_CBID_CORE2_DOMAIN_CREATE_A, GMP_NVTX_CBID_CORE2_DOMAIN_CREATE_W,
				     GMP_NVTX_CBID_CORE2_DOMAIN_DESTROY };
	const gmp_nvtx_fn core2_fns[] = { (gmp_nvtx_fn)domain_range_push_ex, (gmp_nvtx_fn)domain_range_pop,
					  (gmp_nvtx_fn)domain_range_start_ex, (gmp_nvtx_fn)domain_range_end,
					  (gmp_nvtx_fn)nvtx_register_a, /* names given by handle */
					  (gmp_nvtx_fn)nvtx_register_w, (gmp_nvtx_fn)domain_mark_ex,
					  (gmp_nvtx_fn)nvtx_domain_create_a, /* domains: a stack each */
					  (gmp_nvtx_fn)nvtx_domain_create_w, (gmp_nvtx_fn)nvtx_domain_destroy };
	static const int cuda[] = { GMP_NVTX_CBID_CUDA_NAME_STREAM_A, GMP_NVTX_CBID_CUDA_NAME_STREAM_W };
	static const int cudart[] = { GMP_NVTX_CBID_CUDART_NAME_STREAM_A, GMP_NVTX_CBID_CUDART_NAME_STREAM_W };
	const gmp_nvtx_fn stream_fns[] = { (gmp_nvtx_fn)nvtx_name_stream_a, (gmp_nvtx_fn)nvtx_name_stream_w };
#define FILL(module, ids, fns)                                                           \
	_Static_assert(sizeof(ids) / sizeof(ids[0]) == sizeof(fns) / sizeof(fns[0]), "a function per id"); \
	fill(cb, module, ids, fns, sizeof(ids) / sizeof(ids[0]))
	FILL(GMP_NVTX_CB_MODULE_CORE, core, core_fns);
	FILL(GMP_NVTX_CB_MODULE_CORE2, core2, core2_fns);
	FILL(GMP_NVTX_CB_MODULE_CUDA, cuda, stream_fns); /* streams' names */
	FILL(GMP_NVTX_CB_MODULE_CUDART, cudart, stream_fns);
#undef FILL
	return 1;
}
