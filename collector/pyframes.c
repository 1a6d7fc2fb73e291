// SPDX-License-Identifier: MIT
/*
 * Python frames in call paths.  When the program is a CPython process (its
 * interpreter's C API is in the global symbol scope: the python executable
 * or a libpython it links) and the thread making a CUDA call holds the GIL,
 * the Python functions and lines it is in take the place of the
 * interpreter's own native frames in the call path.  Each is a PC with bit
 * 63 set: bits 32 to 62 its line, the low 32 bits the STRING id of
 * "function<TAB>file" (docs/profile-format.md, STACK).  Reading the frames
 * runs no Python code: the cyclic garbage collector is off meanwhile, so no
 * finalizer can call into CUDA from inside a callback, and a pending Python
 * exception is kept as it was.  CPython 3.10 or later (PyGC_Disable);
 * anything older, or a thread without the GIL (ctypes calls release it),
 * gets native frames alone.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "callpath.h"
#include "pyframes.h"

typedef void *obj;

static struct {
	int (*initialized)(void);
	int (*gil_check)(void);
	obj (*this_tstate)(void);
	obj (*current_tstate)(void); /* NULL where the interpreter exports neither name */
	obj (*tstate_frame)(obj);
	obj (*frame_code)(obj);
	int (*frame_line)(obj);
	obj (*frame_back)(obj);
	obj (*getattr)(obj, const char *);
	const char *(*utf8)(obj);
	void (*incref)(obj);
	void (*decref)(obj);
	int (*gc_disable)(void);
	int (*gc_enable)(void);
	void (*err_clear)(void);
	void (*err_fetch)(obj *, obj *, obj *);
	void (*err_restore)(obj, obj, obj);
	uint64_t lo, hi; /* the interpreter's module: its native frames are replaced */
	int ok;
} py;

static pthread_once_t once = PTHREAD_ONCE_INIT;

#define SYM(field, name) (*(void **)&py.field = dlsym(RTLD_DEFAULT, name))

static void load(void)
{
	if (!SYM(initialized, "Py_IsInitialized") || !SYM(gil_check, "PyGILState_Check") ||
	    !SYM(this_tstate, "PyGILState_GetThisThreadState") ||
	    !SYM(tstate_frame, "PyThreadState_GetFrame") || !SYM(frame_code, "PyFrame_GetCode") ||
	    !SYM(frame_line, "PyFrame_GetLineNumber") || !SYM(frame_back, "PyFrame_GetBack") ||
	    !SYM(getattr, "PyObject_GetAttrString") || !SYM(utf8, "PyUnicode_AsUTF8") ||
	    !SYM(incref, "Py_IncRef") || !SYM(decref, "Py_DecRef") || !SYM(gc_disable, "PyGC_Disable") ||
	    !SYM(gc_enable, "PyGC_Enable") || !SYM(err_clear, "PyErr_Clear") || !SYM(err_fetch, "PyErr_Fetch") ||
	    !SYM(err_restore, "PyErr_Restore"))
		return;
	if (!SYM(current_tstate, "PyThreadState_GetUnchecked")) /* 3.13 */
		SYM(current_tstate, "_PyThreadState_UncheckedGet");
	py.ok = !gmp_callpath__extent_of((uint64_t)(uintptr_t)*(void **)&py.gil_check, &py.lo, &py.hi);
}

/* "function<TAB>file" of code into buf, or 0 when its names cannot be read. */
static int names(obj code, char *buf, size_t n)
{
	obj fn = py.getattr(code, "co_qualname"); /* 3.11 on: Class.method */
	if (!fn) {
		py.err_clear();
		fn = py.getattr(code, "co_name");
	}
	obj file = fn ? py.getattr(code, "co_filename") : NULL;
	const char *a = file ? py.utf8(fn) : NULL, *b = a ? py.utf8(file) : NULL;
	int w = b ? snprintf(buf, n, "%s\t%s", a, b) : -1;
	if (fn)
		py.decref(fn);
	if (file)
		py.decref(file);
	if (!b)
		py.err_clear(); /* a name that could not be read: no frame, no exception left */
	return w > 0 && (size_t)w < n;
}

/*
 * Each code object's STRING id, found once: the names are read and interned
 * at its first frame.  The cache holds a reference to the code objects it
 * keeps, so that none is freed and another takes its address; when full,
 * names are read each time.
 */
#define CACHE_SLOTS 8192 /* a power of 2; filled to three quarters at most */
static struct slot {
	obj code;
	uint32_t id;
} cache[CACHE_SLOTS];
static size_t cached;

/* 0: its names could not be read or stored. */
static uint32_t code_id(obj code, gmp_pyframes_intern_fn intern, void *ctx)
{
	size_t i = ((uintptr_t)code >> 4) * 0x9e3779b97f4a7c15ull >> 51; /* 13 bits */
	for (; cache[i].code; i = (i + 1) & (CACHE_SLOTS - 1))
		if (cache[i].code == code)
			return cache[i].id;
	char buf[1024];
	int64_t got = names(code, buf, sizeof(buf)) ? intern(ctx, buf) : 0;
	uint32_t id = got > 0 && got <= UINT32_MAX ? (uint32_t)got : 0;
	if (id && cached < CACHE_SLOTS / 4 * 3) {
		py.incref(code);
		cache[i] = (struct slot){ code, id };
		cached++;
	}
	return id;
}

size_t gmp_pyframes__splice(uint64_t *pcs, size_t n, size_t max, gmp_pyframes_intern_fn intern,
			    void *ctx)
{
	pthread_once(&once, load);
	if (!py.ok || max < 2 || !py.initialized() || !py.gil_check())
		return n; /* not Python, or this thread may not touch its objects */
	/* This thread's state, and the one running: they are the same only while it holds the GIL
	   (PyGILState_Check answers 1 for any thread once subinterpreters exist). */
	obj ts = py.this_tstate();
	if (!ts || (py.current_tstate && py.current_tstate() != ts))
		return n;
	size_t k = 0; /* where the interpreter's native frames begin */
	while (k < n && !(pcs[k] >= py.lo && pcs[k] < py.hi))
		k++;
	if (k > max / 2)
		k = max / 2; /* keep room for the Python frames: they are the program's */
	obj et, ev, etb;
	py.err_fetch(&et, &ev, &etb);
	int gc = py.gc_disable();
	size_t m = k;
	obj f = py.tstate_frame(ts);
	while (f && m < max) {
		obj code = py.frame_code(f);
		int line = py.frame_line(f);
		uint32_t id = code ? code_id(code, intern, ctx) : 0;
		if (code)
			py.decref(code);
		if (id)
			pcs[m++] = 1ull << 63 | (uint64_t)(line > 0 ? line & 0x7fffffff : 0) << 32 | id;
		obj back = py.frame_back(f);
		py.decref(f);
		f = back;
	}
	if (f)
		py.decref(f); /* the outer frames past GMPROF_DEPTH */
	if (gc)
		py.gc_enable();
	py.err_restore(et, ev, etb);
	return m > k ? m : n; /* no frame read: the native call path as it was */
}
