# SPDX-License-Identifier: MIT
# A Python program's call paths (collector/pyframes.c): a program written in
# Python (tests/double/python_app.py) has the Sanitizer test double replay
# an allocation from a Python method while holding the GIL, and another
# after releasing it.  The first's call path holds its Python functions and
# lines in place of the interpreter's frames, and its site is a line of the
# program (not of a library between it and CUDA); the second's has native
# frames alone; GMPROF_PYTHON=0 turns it off; gmprof convert keeps the
# frames; GMPROF_DEPTH bounds them.
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
PY=$(command -v python3 || :)
if [ -z "$PY" ] || ! "$PY" -c 'import ctypes, sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
	ok "skipped: no python3 of version 3.10 or later here (make test installs it as root)"
	finish
fi
use_double "$B"
# The test build's libraries need their AddressSanitizer runtime first in the process.
ASAN_RT=$(ldd "$B/libgmprof.so" | awk '/libasan/ { print $3 }')
pyrun() { # OUTPUT [VAR=VALUE...]: the app under the collector; its profile in OUTPUT
	out=$1
	shift
	env "$@" GMPROF_OUTPUT="$out" LD_PRELOAD="$ASAN_RT" ASAN_OPTIONS=detect_leaks=0 \
		"$PY" tests/double/python_app.py "$TMPDIR/held.jsonl" "$TMPDIR/released.jsonl" >"$TMPDIR/py.out" 2>&1
}
printf '%s\n' '{"op":"alloc","addr":"0x10000","size":4096}' '{"op":"free","addr":"0x10000"}' >"$TMPDIR/held.jsonl"
printf '%s\n' '{"op":"alloc","addr":"0x20000","size":8192}' '{"op":"free","addr":"0x20000"}' >"$TMPDIR/released.jsonl"
A=tests/double/python_app.py
L_REPLAY=$(grep -n 'if api.gmp_double_replay(script.encode()' "$A" | cut -d: -f1)
L_BUILD=$(grep -n 'replay(held, script, 0, 0)' "$A" | cut -d: -f1)
L_VIA=$(grep -n 'via.call(held.gmp_double_replay' "$A" | cut -d: -f1)
L_MAIN=$(grep -n 'Model().build(held' "$A" | cut -d: -f1)
# The call path printed under a finding of the object of SIZE bytes (4.0 KiB, 8.0 KiB).
path_of() { # REPORT SIZE
	awk -v s="($2)" 'index($0, s) && /unused_allocation/ { on = 1; next } on && /^  [0-9]+\./ { on = 0 } on' "$1"
}

if pyrun "$TMPDIR/p.gmprof" && "$GMPROF" report "$TMPDIR/p.gmprof" >"$TMPDIR/r" 2>&1; then
	ok "the Python program runs under the collector, and its profile is reported"
else
	notok "the Python program under the collector: $(cat "$TMPDIR/py.out" "$TMPDIR/r" | head -20)"
fi
path_of "$TMPDIR/r" "4.0 KiB" >"$TMPDIR/held.path"
path_of "$TMPDIR/r" "8.0 KiB" >"$TMPDIR/released.path"
grep -q "allocated by ALLOC (stream 0, #1) at .*/$A:$L_REPLAY\$" "$TMPDIR/held.path" &&
	ok "GIL held: the allocation's site is the program's Python line ($A:$L_REPLAY)" ||
	notok "GIL held: the site: $(grep 'allocated by' "$TMPDIR/held.path")"
grep -E "^       (replay|Model.build|main|<module>) \(" "$TMPDIR/held.path" | sed 's/ (.*:\([0-9]*\))$/ \1/' |
	tr -s ' ' | tr '\n' ';' >"$TMPDIR/frames"
[ "$(cat "$TMPDIR/frames")" = " replay $L_REPLAY; Model.build $L_BUILD; main $L_MAIN; <module> $(wc -l <"$A");" ] &&
	ok "  ... its call path: replay, Model.build, main, <module>, innermost first, with their lines" ||
	notok "  ... its call path's Python frames: $(cat "$TMPDIR/frames")"
[ -s "$TMPDIR/held.path" ] && ! grep -q "_PyEval_EvalFrame\|PyEval_EvalCode" "$TMPDIR/held.path" &&
	ok "  ... in place of the interpreter's native frames" ||
	notok "  ... the interpreter's native frames are still there"
grep -q "^       PyCFuncPtr_call\|^       ffi_call" "$TMPDIR/held.path" &&
	ok "  ... after the native frames between the call and the interpreter (ctypes)" ||
	notok "  ... the native frames before the interpreter: $(head -12 "$TMPDIR/held.path")"
if [ -s "$TMPDIR/released.path" ] && ! grep -q "$A" "$TMPDIR/released.path"; then
	ok "GIL released: native frames alone"
else
	notok "GIL released: $(cat "$TMPDIR/released.path" | head -20)"
fi
# A profile rewritten keeps the frames (their strings numbered anew).
"$GMPROF" convert -o "$TMPDIR/c.gmprof" "$TMPDIR/p.gmprof" 2>"$TMPDIR/err" &&
	"$GMPROF" report "$TMPDIR/c.gmprof" 2>&1 | sed 1d >"$TMPDIR/rc" && sed 1d "$TMPDIR/r" | cmp -s - "$TMPDIR/rc" &&
	ok "gmprof convert of the profile: the same report" || notok "gmprof convert: $(diff "$TMPDIR/r" "$TMPDIR/rc" | head)"

# A library between the program and CUDA: the site is the program's line that called it.
mkdir -p "$TMPDIR/lib/python3/site-packages"
printf 'def call(f, *args):\n    return f(*args)\n' >"$TMPDIR/lib/python3/site-packages/via.py"
pyrun "$TMPDIR/v.gmprof" PYTHON_APP_VIA="$TMPDIR/lib/python3/site-packages" && "$GMPROF" report "$TMPDIR/v.gmprof" >"$TMPDIR/r" 2>&1
path_of "$TMPDIR/r" "4.0 KiB" >"$TMPDIR/via.path"
grep -q "^       call (.*/site-packages/via.py:2)\$" "$TMPDIR/via.path" &&
	grep -q "allocated by ALLOC (stream 0, #1) at .*/$A:$L_VIA\$" "$TMPDIR/via.path" &&
	ok "through a package's function: in the call path, and the site is the program's line that called it" ||
	notok "through a package: $(head -14 "$TMPDIR/via.path")"

# GMPROF_PYTHON=0: native frames alone, the interpreter's included.
pyrun "$TMPDIR/n.gmprof" GMPROF_PYTHON=0 && "$GMPROF" report "$TMPDIR/n.gmprof" >"$TMPDIR/r" 2>&1
path_of "$TMPDIR/r" "4.0 KiB" >"$TMPDIR/off.path"
if [ -s "$TMPDIR/off.path" ] && ! grep -q "$A" "$TMPDIR/off.path"; then
	ok "GMPROF_PYTHON=0: no Python frames"
else
	notok "GMPROF_PYTHON=0: $(head -20 "$TMPDIR/off.path")"
fi
# GMPROF_DEPTH=6: at most three native frames before the interpreter, then the Python ones.
pyrun "$TMPDIR/d.gmprof" GMPROF_DEPTH=6 && "$GMPROF" report "$TMPDIR/d.gmprof" >"$TMPDIR/r" 2>&1
path_of "$TMPDIR/r" "4.0 KiB" | grep '^       [^| ]' >"$TMPDIR/depth.path"
[ "$(wc -l <"$TMPDIR/depth.path")" -le 6 ] && [ "$(grep -c "$A" "$TMPDIR/depth.path")" -ge 3 ] &&
	ok "GMPROF_DEPTH=6: six frames at most, the Python ones kept" || notok "GMPROF_DEPTH=6: $(cat "$TMPDIR/depth.path")"
finish
