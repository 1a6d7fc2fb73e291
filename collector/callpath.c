// SPDX-License-Identifier: MIT
/* Call-path capture with libunwind, and the module map from dl_iterate_phdr. */
#define _GNU_SOURCE
#include "callpath.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#define MAX_SKIP 64

struct range {
	uint64_t start, end;
};

struct gmp_callpath {
	pthread_rwlock_t lock;     /* guards skip[] against a refresh */
	struct range skip[MAX_SKIP];
	size_t nskip;
	unsigned long long adds, subs; /* dl_iterate_phdr's counters at the last refresh */
	uint64_t *reported;        /* module bases already reported */
	size_t nreported, reported_cap;
};

/* Modules whose frames sit between the application and its CUDA call. */
static int skipped(const char *path, const char *self)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	static const char *const prefixes[] = { "libgmprof", "libsanitizer", "libcuda.",
						"libcudart", "libcupti", NULL };
	if (self && strcmp(path, self) == 0)
		return 1;
	for (int i = 0; prefixes[i]; i++)
		if (strncmp(base, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	return 0;
}

static void extent(const struct dl_phdr_info *info, uint64_t *lo, uint64_t *hi)
{
	*lo = UINT64_MAX;
	*hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uint64_t a = info->dlpi_addr + ph->p_vaddr, b = a + ph->p_memsz;
		if (a < *lo)
			*lo = a;
		if (b > *hi)
			*hi = b;
	}
}

struct holder {
	uint64_t addr, lo, hi;
};

static int holder_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct holder *h = data;
	uint64_t lo, hi;
	extent(info, &lo, &hi);
	if (h->addr < lo || h->addr >= hi)
		return 0;
	h->lo = lo;
	h->hi = hi;
	return 1;
}

int gmp_callpath__extent_of(uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	struct holder h = { .addr = addr };
	if (!dl_iterate_phdr(holder_cb, &h))
		return -ENOENT;
	*lo = h.lo;
	*hi = h.hi;
	return 0;
}

struct refresh_ctx {
	struct gmp_callpath *cp;
	const char *self;
};

static int refresh_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct refresh_ctx *r = data;
	struct gmp_callpath *cp = r->cp;
	cp->adds = info->dlpi_adds;
	cp->subs = info->dlpi_subs;
	if (!info->dlpi_name || !*info->dlpi_name || !skipped(info->dlpi_name, r->self))
		return 0;
	if (cp->nskip < MAX_SKIP) {
		uint64_t lo, hi;
		extent(info, &lo, &hi);
		if (lo < hi)
			cp->skip[cp->nskip++] = (struct range){ lo, hi };
	}
	return 0;
}

static const char *self_path(void)
{
	Dl_info di;
	if (dladdr((void *)&gmp_callpath__new, &di) && di.dli_fname)
		return di.dli_fname;
	return NULL;
}

static void refresh(struct gmp_callpath *cp)
{
	struct refresh_ctx r = { cp, self_path() };
	pthread_rwlock_wrlock(&cp->lock);
	cp->nskip = 0;
	dl_iterate_phdr(refresh_cb, &r);
	pthread_rwlock_unlock(&cp->lock);
}

int gmp_callpath__new(struct gmp_callpath **out)
{
	struct gmp_callpath *cp = calloc(1, sizeof(*cp));
	if (!cp)
		return -ENOMEM;
	if (pthread_rwlock_init(&cp->lock, NULL)) {
		free(cp);
		return -ENOMEM;
	}
	refresh(cp);
	*out = cp;
	return 0;
}

void gmp_callpath__free(struct gmp_callpath *cp)
{
	if (!cp)
		return;
	pthread_rwlock_destroy(&cp->lock);
	free(cp->reported);
	free(cp);
}

static int in_skip(const struct gmp_callpath *cp, uint64_t pc)
{
	for (size_t i = 0; i < cp->nskip; i++)
		if (pc >= cp->skip[i].start && pc < cp->skip[i].end)
			return 1;
	return 0;
}

#ifdef GMP_UNWIND_STEP
/*
 * The ThreadSanitizer build walks frame by frame: unw_backtrace keeps a
 * per-thread cache whose destructor runs after TSan has dropped the
 * thread's state, which crashes TSan's runtime (not a race of ours).
 */
static int walk(void **buf, int max)
{
	unw_context_t uc;
	unw_cursor_t c;
	if (unw_getcontext(&uc) || unw_init_local(&c, &uc))
		return 0;
	int n = 0;
	do {
		unw_word_t ip;
		if (unw_get_reg(&c, UNW_REG_IP, &ip))
			break;
		buf[n++] = (void *)(uintptr_t)ip;
	} while (n < max && unw_step(&c) > 0);
	return n;
}
#else
static int walk(void **buf, int max)
{
	return unw_backtrace(buf, max);
}
#endif

size_t gmp_callpath__capture(struct gmp_callpath *cp, uint64_t *pcs, size_t max)
{
	void *buf[320];
	int n = walk(buf, (int)(sizeof(buf) / sizeof(buf[0])));
	if (n <= 0)
		return 0;
	pthread_rwlock_rdlock(&cp->lock);
	int k = 0;
	while (k < n && in_skip(cp, (uint64_t)(uintptr_t)buf[k]))
		k++;
	pthread_rwlock_unlock(&cp->lock);
	size_t m = 0;
	for (; k < n && m < max; k++)
		pcs[m++] = (uint64_t)(uintptr_t)buf[k];
	return m;
}

static int counters_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	unsigned long long *c = data;
	c[0] = info->dlpi_adds;
	c[1] = info->dlpi_subs;
	return 1; /* the first module is enough */
}

int gmp_callpath__stale(struct gmp_callpath *cp)
{
	unsigned long long c[2] = { 0, 0 };
	dl_iterate_phdr(counters_cb, c);
	return c[0] != cp->adds || c[1] != cp->subs;
}

/* The hex build-id from the module's PT_NOTE segments, or "". */
static void build_id(const struct dl_phdr_info *info, char *out, size_t n)
{
	out[0] = '\0';
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		const uint8_t *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			const uint8_t *name = p + sizeof(*nh);
			const uint8_t *desc = name + ((nh->n_namesz + 3) & ~3u);
			const uint8_t *next = desc + ((nh->n_descsz + 3) & ~3u);
			if (next > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0) {
				size_t k = 0;
				for (uint32_t j = 0; j < nh->n_descsz && k + 3 < n; j++)
					k += (size_t)snprintf(out + k, n - k, "%02x", desc[j]);
				return;
			}
			p = next;
		}
	}
}

struct mod_ctx {
	struct gmp_callpath *cp;
	gmp_module_fn fn;
	void *ctx;
	int err;
};

static int seen(const struct gmp_callpath *cp, uint64_t base)
{
	for (size_t i = 0; i < cp->nreported; i++)
		if (cp->reported[i] == base)
			return 1;
	return 0;
}

static int modules_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct mod_ctx *m = data;
	char path[4096];
	const char *name = info->dlpi_name;
	if (!name || !*name) {
		/* The main program. */
		ssize_t k = readlink("/proc/self/exe", path, sizeof(path) - 1);
		if (k <= 0)
			return 0;
		path[k] = '\0';
		name = path;
	} else if (name[0] != '/') {
		return 0; /* the vDSO and other modules with no file */
	}
	uint64_t lo, hi;
	extent(info, &lo, &hi);
	if (lo >= hi || seen(m->cp, lo))
		return 0;
	struct gmp_callpath *cp = m->cp;
	if (cp->nreported == cp->reported_cap) {
		size_t cap = cp->reported_cap ? cp->reported_cap * 2 : 64;
		uint64_t *r = realloc(cp->reported, cap * sizeof(*r));
		if (!r) {
			m->err = -ENOMEM;
			return 1;
		}
		cp->reported = r;
		cp->reported_cap = cap;
	}
	cp->reported[cp->nreported++] = lo;
	char bid[96];
	build_id(info, bid, sizeof(bid));
	m->err = m->fn(m->ctx, name, bid, lo, hi - lo, (uint64_t)info->dlpi_addr);
	return m->err ? 1 : 0;
}

int gmp_callpath__modules(struct gmp_callpath *cp, gmp_module_fn fn, void *ctx)
{
	refresh(cp);
	struct mod_ctx m = { cp, fn, ctx, 0 };
	dl_iterate_phdr(modules_cb, &m);
	return m.err;
}
