// SPDX-License-Identifier: MIT
/*
 * Call paths of a profile as source lines: each PC goes to its module
 * through the profile's module map (load bias included), then to DWARF
 * (with inlined frames) or the symbol table.  Every unique PC is looked up
 * once.  Frames of the CUDA runtime and driver, the Sanitizer and gmprof
 * itself are trimmed; so is the C library's start-up at the bottom.
 */
#define _GNU_SOURCE
#include "symbolize.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "demangle.h"
#include "dwarf.h"
#include "frameworks.h"
#include "strtab.h"
#include "symtab.h"
#include "u64map.h"
#include "util.h"

#define INLINE_MAX 8

struct mod {
	const struct gmp_module *m;
	int state;               /* 0 not opened, 1 open, -1 unavailable */
	int why;                 /* unavailable: a gmp_mod_problem */
	int hidden;              /* CUDA, Sanitizer, gmprof or libc start-up */
	uint64_t looked, lined;  /* its PCs looked up (not hidden), and those with a source line */
	struct gmp_dwarf *dw;
	struct gmp_symtab *st;
	const char *path;        /* the file used */
};

/* One looked-up PC: frames[off .. off+n) in the frame pool. */
struct gmp_symbolizer {
	const struct gmp_trace *t;
	char *symdir;
	struct mod *mods;        /* sorted by base */
	size_t nmods;
	struct gmp_u64map cache; /* pc -> index into looks */
	struct look {
		uint32_t off, n;
		int hidden;
	} *looks;
	size_t nlooks, looks_cap;
	struct gmp_frame *pool;
	size_t npool, pool_cap;
	struct gmp_strtab *names; /* demangled names and paths */
	char at[4096];
	const char *const *alloc_fns; /* --alloc-fn globs: allocation wrappers, not sites */
	size_t nalloc_fns;
};

void gmp_symbolizer__alloc_fns(struct gmp_symbolizer *s, const char *const *globs, size_t n)
{
	s->alloc_fns = globs;
	s->nalloc_fns = n;
}

int gmp_symbolizer__is_alloc_fn(const struct gmp_symbolizer *s, const char *function)
{
	for (size_t i = 0; function && i < s->nalloc_fns; i++)
		if (fnmatch(s->alloc_fns[i], function, 0) == 0)
			return 1;
	return 0;
}

static int cmp_mod(const void *a, const void *b)
{
	const struct mod *x = a, *y = b;
	return (x->m->base > y->m->base) - (x->m->base < y->m->base);
}

static int hidden_module(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	static const char *const prefixes[] = { "libcuda.", "libcudart", "libgmprof",
						"libsanitizer", "libcupti", "libc.so", "ld-linux",
						NULL };
	for (int i = 0; prefixes[i]; i++)
		if (strncmp(b, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	return 0;
}

int gmp_symbolizer__new(const struct gmp_trace *t, const char *symdir,
			struct gmp_symbolizer **out)
{
	struct gmp_symbolizer *s = calloc(1, sizeof(*s));
	if (!s || !(s->names = gmp_strtab__new()) ||
	    !(s->mods = calloc(t->nmods ? t->nmods : 1, sizeof(*s->mods))) ||
	    (symdir && !(s->symdir = strdup(symdir)))) {
		gmp_symbolizer__free(s);
		return -ENOMEM;
	}
	s->t = t;
	gmp_u64map__init(&s->cache);
	for (size_t i = 0; i < t->nmods; i++) {
		s->mods[i].m = &t->mods[i];
		s->mods[i].hidden = hidden_module(gmp_trace__str(t, t->mods[i].path, NULL));
	}
	s->nmods = t->nmods;
	if (s->nmods > 1)
		qsort(s->mods, s->nmods, sizeof(*s->mods), cmp_mod);
	*out = s;
	return 0;
}

void gmp_symbolizer__free(struct gmp_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nmods; i++) {
		gmp_dwarf__close(s->mods[i].dw);
		gmp_symtab__close(s->mods[i].st);
	}
	free(s->mods);
	free(s->looks);
	free(s->pool);
	free(s->symdir);
	gmp_u64map__release(&s->cache);
	gmp_strtab__free(s->names);
	free(s);
}

static struct mod *module_of(struct gmp_symbolizer *s, uint64_t pc)
{
	size_t lo = 0, hi = s->nmods;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->mods[mid].m->base <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && pc < s->mods[lo - 1].m->base + s->mods[lo - 1].m->size)
		return &s->mods[lo - 1];
	return NULL;
}

static const char *intern(struct gmp_symbolizer *s, const char *str)
{
	if (!str)
		return NULL;
	uint32_t id = gmp_strtab__intern(s->names, str, strlen(str));
	return id ? gmp_strtab__get(s->names, id, NULL) : str;
}

/* Opens the module's file: as recorded, else under --symbols by its name; checks the build-id. */
static void open_module(struct gmp_symbolizer *s, struct mod *md)
{
	md->state = -1;
	md->why = GMP_MOD_MISSING;
	const char *rec = gmp_trace__str(s->t, md->m->path, NULL);
	const char *want_id = gmp_trace__str(s->t, md->m->build_id, NULL);
	char cand[2][4096];
	int nc = 0;
	if (s->symdir) {
		const char *b = strrchr(rec, '/');
		if (snprintf(cand[nc], sizeof(cand[nc]), "%s/%s", s->symdir, b ? b + 1 : rec) <
		    (int)sizeof(cand[nc]))
			nc++;
	}
	snprintf(cand[nc++], sizeof(cand[0]), "%s", rec);
	for (int i = 0; i < nc; i++) {
		struct gmp_symtab *st;
		int err = gmp_symtab__open(cand[i], &st);
		if (err) {
			if (err != -ENOENT && md->why == GMP_MOD_MISSING)
				md->why = GMP_MOD_UNREADABLE;
			continue;
		}
		if (*want_id && *gmp_symtab__build_id(st) && strcmp(want_id, gmp_symtab__build_id(st))) {
			gmp_symtab__close(st); /* another build of that file */
			md->why = GMP_MOD_OTHER_BUILD;
			continue;
		}
		md->st = st;
		md->path = intern(s, cand[i]);
		int derr = gmp_dwarf__open(cand[i], &md->dw);
		if (derr)
			md->dw = NULL;
		md->state = 1;
		md->why = derr == -EIO ? GMP_MOD_BAD_DWARF : 0; /* said only if none of its frames gets a line */
		return;
	}
}

/* NULL when it cannot be interned (out of memory): the frame is left out. */
static const char *intern_n(struct gmp_symbolizer *s, const char *str, size_t len)
{
	uint32_t id = gmp_strtab__intern(s->names, str, len);
	return id ? gmp_strtab__get(s->names, id, NULL) : NULL;
}

/*
 * A Python frame (collector/pyframes.c): bit 63 set, the line in bits 32 to
 * 62, the STRING id of "function<TAB>file" in the low 32 bits.  0 when it
 * cannot be stored.
 */
static int python_frame(struct gmp_symbolizer *s, uint64_t pc, struct gmp_frame *f)
{
	size_t len;
	const char *str = gmp_trace__str(s->t, (uint32_t)pc, &len);
	const char *tab = memchr(str, '\t', len);
	size_t fn = tab ? (size_t)(tab - str) : len; /* no tab (not the collector's): a function alone */
	*f = (struct gmp_frame){ .line = (uint32_t)(pc >> 32) & 0x7fffffff, .pc = pc, .offset = pc,
				 .function = fn ? intern_n(s, str, fn) : "??" };
	if (!f->function)
		return 0;
	return !tab || len == fn + 1 || (f->file = intern_n(s, tab + 1, len - fn - 1)) != NULL;
}

/* Looks pc up (a return address: the call is the byte before). */
static struct look *lookup(struct gmp_symbolizer *s, uint64_t pc)
{
	uint32_t *hit = gmp_u64map__get(&s->cache, pc);
	if (hit)
		return &s->looks[*hit];
	if (GMP_GROW(s->looks, s->looks_cap, s->nlooks + 1) ||
	    GMP_GROW(s->pool, s->pool_cap, s->npool + INLINE_MAX))
		return NULL;
	struct look *lk = &s->looks[s->nlooks];
	*lk = (struct look){ .off = (uint32_t)s->npool, .n = 1 };
	if (pc >> 63) {
		if (!python_frame(s, pc, &s->pool[s->npool]))
			return NULL;
		s->npool++;
		return gmp_u64map__slot(&s->cache, pc, (uint32_t)s->nlooks, NULL) ? &s->looks[s->nlooks++] : NULL;
	}
	struct mod *md = module_of(s, pc);
	struct gmp_frame *f = &s->pool[s->npool];
	struct gmp_srcloc loc[INLINE_MAX];
	int n = 0;
	if (md) {
		lk->hidden = md->hidden;
		if (!md->state)
			open_module(s, md);
		uint64_t addr = pc - 1 - md->m->bias;
		if (md->state > 0 && md->dw)
			n = gmp_dwarf__lookup(md->dw, addr, loc, INLINE_MAX);
		const char *symfile = NULL;
		const char *sym = md->state > 0 ? gmp_symtab__find(md->st, addr, &symfile) : NULL;
		if (!n) {
			memset(loc, 0, sizeof(loc[0]));
			loc[0].file = symfile && *symfile ? symfile : NULL;
			n = 1;
		}
		if (!loc[0].function)
			loc[0].function = sym;
		if (!md->hidden) {
			md->looked++;
			md->lined += loc[0].file && loc[0].line;
		}
	} else {
		memset(loc, 0, sizeof(loc[0]));
		n = 1;
	}
	for (int i = 0; i < n; i++) {
		char *plain = gmp_demangle(loc[i].function);
		f[i] = (struct gmp_frame){
			.function = intern(s, plain ? plain : loc[i].function), .file = intern(s, loc[i].file),
			.line = loc[i].line, .pc = pc, .inlined = i + 1 < n,
			.offset = md ? pc - 1 - md->m->bias : pc,
			.module = md ? gmp_trace__str(s->t, md->m->path, NULL) : NULL };
		free(plain);
	}
	/*
	 * The C runtime's start-up frames say nothing about the program, nor
	 * do the internals of the CUDA runtime that nvcc links in statically
	 * (functions named libcudart_static_<hash>; its API entry points, such
	 * as cudaMalloc, stay).
	 */
	if (loc[n - 1].function && (!strcmp(loc[n - 1].function, "_start") ||
				    !strncmp(loc[n - 1].function, "__libc_start", 12) ||
				    !strncmp(loc[n - 1].function, "libcudart_static_", 17)))
		lk->hidden = 1;
	lk->n = (uint32_t)n;
	s->npool += (size_t)n;
	if (!gmp_u64map__slot(&s->cache, pc, (uint32_t)s->nlooks, NULL))
		return NULL;
	s->nlooks++;
	return lk;
}

size_t gmp_symbolizer__stack(struct gmp_symbolizer *s, uint32_t stack, struct gmp_frame *out,
			     size_t max)
{
	const uint64_t *pcs;
	size_t n = gmp_trace__stack(s->t, stack, &pcs), k = 0;
	for (size_t i = 0; i < n && k < max; i++) {
		struct look *lk = lookup(s, pcs[i]);
		if (!lk)
			break;
		if (lk->hidden)
			continue;
		for (uint32_t j = 0; j < lk->n && k < max; j++)
			out[k++] = s->pool[lk->off + j];
	}
	return k;
}

/*
 * A file of the CUDA toolkit or the system, or one nvcc generated, not the
 * program's own: a kernel launch's innermost frames with a line are the
 * runtime's inlined launch helper (crt/device_functions.h) and nvcc's
 * launch stub (a temporary *.cudafe1.stub.c), which say nothing to the user;
 * the frame after the stub is the kernel's host wrapper, at the kernel's
 * definition: the launch's site is the frame after that.
 */
static int toolkit_file(const char *f)
{
	return strncmp(f, "/usr/include/", 13) == 0 || strstr(f, "/include/crt/") ||
	       strstr(f, ".cudafe1.") ||
	       (strstr(f, "/targets/") && strstr(f, "/include/")) || strstr(f, "/cuda/include/");
}

/* Python's own library or an installed package: a framework's code, not the program's. */
static int python_library(const char *f)
{
	return strstr(f, "/site-packages/") || strstr(f, "/dist-packages/") || strstr(f, "/lib/python3") ||
	       f[0] == '<'; /* <frozen ...>, <string> */
}

/*
 * A Python program's site is a line of its Python code, even where an
 * extension's native frames (with lines) lie between it and the call: the
 * innermost Python frame with a line outside the libraries, else the
 * innermost with a line; NULL when there is none.
 */
static const struct gmp_frame *python_site(const struct gmp_frame *frames, size_t n)
{
	const struct gmp_frame *pick = NULL;
	for (size_t i = 0; i < n; i++) {
		if (!(frames[i].pc >> 63) || !frames[i].file || !frames[i].line)
			continue;
		if (!pick || (python_library(pick->file) && !python_library(frames[i].file)))
			pick = &frames[i];
	}
	return pick;
}

/* The site among frames[0..n) (gmp_symbolizer__site), or NULL. */
static const struct gmp_frame *site_frame(struct gmp_symbolizer *s, const struct gmp_frame *frames, size_t n)
{
	const struct gmp_frame *py = python_site(frames, n), *pick = py;
	int wrapper = 0; /* the frame after nvcc's launch stub: the kernel's host wrapper */
	for (size_t i = 0; i < n && !py; i++) {
		int stub = (frames[i].function && !strncmp(frames[i].function, "__device_stub_", 14)) ||
			   (frames[i].file && strstr(frames[i].file, ".cudafe1.stub."));
		int skip = wrapper && !stub;
		wrapper = stub;
		if (!frames[i].file || !frames[i].line)
			continue;
		if (!pick)
			pick = &frames[i]; /* only toolkit frames: the innermost one */
		if (!stub && !skip && !toolkit_file(frames[i].file) &&
		    !gmp_symbolizer__is_alloc_fn(s, frames[i].function)) {
			pick = &frames[i];
			break;
		}
	}
	return pick;
}

const char *gmp_symbolizer__site(struct gmp_symbolizer *s, uint32_t stack, struct gmp_frame *f)
{
	struct gmp_frame frames[32];
	size_t n = gmp_symbolizer__stack(s, stack, frames, 32);
	const struct gmp_frame *pick = site_frame(s, frames, n);
	if (!pick)
		return NULL;
	if (f)
		*f = *pick;
	snprintf(s->at, sizeof(s->at), "%s:%u", pick->file, pick->line);
	return s->at;
}

int gmp_symbolizer__caller(struct gmp_symbolizer *s, uint32_t stack, struct gmp_frame *site, struct gmp_frame *caller)
{
	struct gmp_frame frames[32];
	size_t n = gmp_symbolizer__stack(s, stack, frames, 32);
	const struct gmp_frame *pick = site_frame(s, frames, n);
	if (!pick || (pick->pc >> 63) || !pick->function)
		return 0;
	for (const struct gmp_frame *c = pick + 1; c < frames + n; c++) {
		if (c->pc >> 63)
			return 0; /* a Python frame: the program's own, not a wrapper's caller */
		if (c->file && c->line) {
			*site = *pick;
			*caller = *c;
			return 1;
		}
	}
	return 0;
}

const char *gmp_symbolizer__at(void *ctx, uint32_t stack)
{
	return ctx ? gmp_symbolizer__site(ctx, stack, NULL) : NULL;
}

const char *gmp_frame__format(const struct gmp_frame *f, char *buf, size_t n)
{
	const char *fn = f->function ? f->function : "??";
	if (f->file)
		snprintf(buf, n, "%s (%s:%u)%s", fn, f->file, f->line, f->inlined ? " [inlined]" : "");
	else if (f->module)
		snprintf(buf, n, "%s (%s+0x%llx)", fn, f->module, (unsigned long long)f->offset);
	else
		snprintf(buf, n, "%s (0x%llx)", fn, (unsigned long long)f->pc);
	return buf;
}

/*
 * A library of the system's packages: its frames have no lines unless its
 * debug files are installed, and are the program's sites seldom enough
 * that a note on them would be noise (one from another machine's
 * distribution is another build).
 */
static int system_path(const char *p)
{
	return (!strncmp(p, "/usr/", 5) && strncmp(p, "/usr/local/", 11)) || !strncmp(p, "/lib", 4);
}

int gmp_symbolizer__problem(const struct gmp_symbolizer *s, size_t *i, const char **path)
{
	for (; *i < s->nmods; (*i)++) {
		const struct mod *md = &s->mods[*i];
		const char *p = gmp_trace__str(s->t, md->m->path, NULL);
		if (!md->looked || md->lined || system_path(p))
			continue;
		int why = md->state < 0 || md->why ? md->why : GMP_MOD_NO_LINES;
		if (why) {
			*path = p;
			(*i)++;
			return why;
		}
	}
	return 0;
}

const char *gmp_mod_problem__text(int why)
{
	switch (why) {
	case GMP_MOD_MISSING:
		return "not found; --symbols DIR looks for it in DIR by its file name";
	case GMP_MOD_OTHER_BUILD:
		return "the file there is another build, its build-id differs; --symbols DIR looks in DIR for the one that ran";
	case GMP_MOD_UNREADABLE:
		return "not a readable ELF file";
	case GMP_MOD_NO_LINES:
		return "it has no line information: build it with -g";
	case GMP_MOD_BAD_DWARF:
		return "its debug information is damaged, and was not read";
	}
	return "unknown";
}

void gmp_symnotes__add(struct gmp_symnotes *notes, const struct gmp_symbolizer *sym)
{
	const char *path;
	int why;
	for (size_t i = 0; sym && (why = gmp_symbolizer__problem(sym, &i, &path));) {
		size_t k = 0;
		while (k < notes->n && strcmp(notes->v[k].path, path))
			k++;
		if (k < notes->n)
			continue;
		if (notes->n == GMP_SYMNOTES_MAX) {
			notes->more = 1;
			continue;
		}
		snprintf(notes->v[notes->n].path, sizeof(notes->v[0].path), "%s", path);
		notes->v[notes->n++].why = why;
	}
}

int gmp_symnotes__any(const struct gmp_symnotes *notes)
{
	int fw = 0;
	for (size_t k = 0; k < GMP_FWNOTES_MAX; k++)
		fw |= notes->fw[k].allocations != 0;
	return notes->n || notes->more || notes->nw || notes->wrappers_lost || fw || notes->tma.launches;
}

void gmp_symnotes__print(const struct gmp_symnotes *notes, FILE *fp, const char *prefix)
{
	for (size_t k = 0; k < notes->n; k++)
		fprintf(fp, "%snote: no source lines for frames in %s (%s): findings allocated there "
			"name no site, and their fingerprints do not tell such sites apart\n",
			prefix, notes->v[k].path, gmp_mod_problem__text(notes->v[k].why));
	if (notes->more)
		fprintf(fp, "%snote: nor for frames in other modules\n", prefix);
	gmp_wrapnotes__print(notes, fp, prefix);
	gmp_fwnotes__print(notes, fp, prefix);
	gmp_tmanotes__print(notes, fp, prefix);
}
