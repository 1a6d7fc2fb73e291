#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the unit test binaries given as arguments (cmocka, TAP output) and
# the command-line cases in tests/cli/*.sh, then prints one closing line:
# "tests: N passed, N failed".
BUILD=${BUILD:-build}
GMPROF_SRC=$(pwd); export GMPROF_SRC
GMPROF=$(pwd)/$BUILD/test/gmprof; export GMPROF
CMOCKA_MESSAGE_OUTPUT=TAP; export CMOCKA_MESSAGE_OUTPUT
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}; export ASAN_OPTIONS
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}; export UBSAN_OPTIONS
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/gmprof-tests.XXXXXX"); export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT
pass=0
fail=0
log=$TMPDIR/log

for bin in "$@"; do
	name=$(basename "$bin")
	"$bin" >"$log" 2>&1
	rc=$?
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^not ok ' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	pass=$((pass + p))
	fail=$((fail + f))
	if [ "$f" -ne 0 ] || [ "$rc" -ne 0 ]; then
		echo "FAIL $name (exit $rc)"
		sed 's/^/    /' "$log"
	else
		echo "ok   $name: $p tests"
	fi
done

# What the checkout holds outside its build trees: a case that leaves a file
# there (a profile written to the working directory, say) fails, named.
tree() {
	find . \( -path ./build -o -path "./$BUILD" -o -path ./.git -o -path ./.deps \) -prune -o -type f -print | LC_ALL=C sort
}
tree >"$TMPDIR/tree"

for t in tests/cli/*.sh; do
	[ "$(basename "$t")" = lib.sh ] && continue
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	mkdir -p "$TMPDIR/$name"
	TMPDIR="$TMPDIR/$name" sh "$t" >"$log" 2>&1
	rc=$?
	tree >"$TMPDIR/tree.now"
	left=$(LC_ALL=C comm -13 "$TMPDIR/tree" "$TMPDIR/tree.now")
	if [ -n "$left" ]; then
		echo "not ok it left files in the checkout: $(echo $left)" >>"$log"
		rc=1
		mv "$TMPDIR/tree.now" "$TMPDIR/tree"
	fi
	if [ "$rc" -eq 0 ]; then
		n=$(grep -c '^ok ' "$log")
		[ "$n" -eq 0 ] && n=1
		pass=$((pass + n))
		echo "ok   cli/$name: $n checks"
	else
		n=$(grep -c '^ok ' "$log")
		pass=$((pass + n))
		fail=$((fail + 1))
		echo "FAIL cli/$name"
		sed 's/^/    /' "$log"
	fi
done

echo "tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
