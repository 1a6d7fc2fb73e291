# SPDX-License-Identifier: MIT
# Sanitizer calls of the collector that fail (a device short of memory, a
# failing context): the test double fails the Nth allocation, upload or set
# (GMP_DOUBLE_FAIL).  The launch that needed it runs unmonitored, its access
# set unknown; the collector says so once; every other launch is monitored
# with its exact accesses; the program's exit status is its own, and the
# profile analyzes, counting the unmonitored launch as a use of every live
# object.  In intra mode a read-back that fails (download) loses the
# launch's access set or its touches: one of the two, said the same way.
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
use_double "$B"
{
	echo '{"op":"alloc","addr":"0x1000","size":4096,"label":"a"}'
	echo '{"op":"alloc","addr":"0x10000","size":4096,"label":"b"}'
	for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "{\"op\":\"kernel\",\"name\":\"k$i\",\"read\":[\"0x1000\"],\"write\":[\"0x10000\"]}"; done
	echo '{"op":"sync"}'
	echo '{"op":"free","addr":"0x1000"}'
	echo '{"op":"free","addr":"0x10000"}'
} >"$TMPDIR/s.jsonl"
for f in alloc:1 alloc:2 alloc:3 upload:1 upload:2 upload:3 set:1 set:2; do
	rm -f "$TMPDIR/f.gmprof"
	expect_exit 0 "GMP_DOUBLE_FAIL=$f: the program runs to its end" -- \
		env GMP_DOUBLE_FAIL=$f GMPROF_OUTPUT="$TMPDIR/f.gmprof" "$B/double/fake_app" "$TMPDIR/s.jsonl"
	expect_stderr_line "^gmprof: [a-z ]* failed ([a-z ]*); some kernel launches stay unmonitored$" "  ... said once, in one line"
	"$GMPROF" dump "$TMPDIR/f.gmprof" 2>/dev/null | grep '^{"op":"kernel"' | sed -E 's/,"(thread|time_ns|at)":[^,}]*//g' >"$TMPDIR/k"
	[ "$(grep -c '"monitored":false' "$TMPDIR/k")" = 1 ] &&
		[ "$(grep -c '"read":\["0x1000"\],"write":\["0x10000"\]}$' "$TMPDIR/k")" = 11 ] &&
		ok "  ... one launch unmonitored, the other 11 with their exact accesses" || notok "  ... launches: $(cat "$TMPDIR/k")"
	expect_exit 0 "  ... the profile analyzes" -- "$GMPROF" replay "$TMPDIR/f.gmprof"
	expect_stderr_line "warning: 1 kernel launches in .* have no recorded access sets; each counts as a use of every object live" \
		"  ... and says the launch counts as a use of every live object"
done
# Intra mode reads back each launch's counts, then the maps of the objects it hit.
S=tests/scripts/intra_patterns.jsonl
for n in 1 2 3 4 5 6; do
	rm -f "$TMPDIR/f.gmprof"
	expect_exit 0 "intra mode, GMP_DOUBLE_FAIL=download:$n: the program runs to its end" -- \
		env GMP_DOUBLE_FAIL=download:$n GMPROF_MODE=intra GMPROF_OUTPUT="$TMPDIR/f.gmprof" "$B/double/fake_app" "$S"
	expect_stderr_line "^gmprof: reading \(a launch's counts\|intra maps\) failed ([a-z ]*); some kernel launches stay unmonitored$" \
		"  ... said once, in one line"
	expect_exit 0 "  ... the profile analyzes" -- "$GMPROF" replay "$TMPDIR/f.gmprof"
	expect_stderr_line "warning: 1 \(kernel launches in .* have no recorded access sets\|intra-mode kernel launches in .* have no recorded touches\)" \
		"  ... and says what one launch lost"
	"$GMPROF" dump "$TMPDIR/f.gmprof" 2>/dev/null | grep -c '"touch":' >"$TMPDIR/nt"
	[ "$(cat "$TMPDIR/nt")" = 5 ] && ok "  ... the other 5 launches keep their touches" || notok "  ... launches with touches: $(cat "$TMPDIR/nt")"
	expect_exit 1 "  ... a gate on an intra-object pattern fails" -- "$GMPROF" check --fail-on structured_access,overallocation "$TMPDIR/f.gmprof"
	grep -q "^FAIL monitored: 1 \(of 6 kernel launches have no recorded accesses\|intra-mode kernel launches have no recorded touches\)" "$TMPDIR/out" &&
		ok "  ... on the monitored check" || notok "  ... check: $(cat "$TMPDIR/out")"
done
# The device patches do not load (a fatbin without code for the GPU), or a module's patching fails.
for f in patches:1 module:1; do
	rm -f "$TMPDIR/f.gmprof"
	expect_exit 0 "GMP_DOUBLE_FAIL=$f: the program runs to its end" -- \
		env GMP_DOUBLE_FAIL=$f GMPROF_OUTPUT="$TMPDIR/f.gmprof" "$B/double/fake_app" "$TMPDIR/s.jsonl"
	expect_stderr_line "^gmprof: \(cannot load the device patches '.*' (.*); kernels are not monitored\|sanitizerPatchModule failed (.*); some kernel launches stay unmonitored\)$" \
		"  ... said in one line"
	[ "$("$GMPROF" dump "$TMPDIR/f.gmprof" 2>/dev/null | grep -c '"monitored":false')" = 12 ] &&
		ok "  ... no launch monitored" || notok "  ... launches monitored"
	expect_exit 1 "  ... check --fail-on dead_write fails it" -- "$GMPROF" check --fail-on dead_write "$TMPDIR/f.gmprof"
	grep -q "^FAIL monitored: 12 of 12 kernel launches have no recorded accesses" "$TMPDIR/out" &&
		ok "  ... on the monitored check, not by passing a gate that saw nothing" || notok "  ... check: $(cat "$TMPDIR/out")"
	expect_exit 0 "  ... unless --allow-incomplete" -- "$GMPROF" check --allow-incomplete --fail-on dead_write "$TMPDIR/f.gmprof"
done
finish
