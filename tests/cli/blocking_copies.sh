# SPDX-License-Identifier: MIT
# Blocking copies and sets (cudaMemcpy, cudaMemset, isAsync 0): the collector
# records them without "async", and a blocking copy as a wait of its stream
# too (it returns when the stream's earlier work and the copy are done),
# which orders later work after it; an Async call is recorded as such and
# waits for nothing, as does a blocking copy between two device buffers
# (cudaMemcpy does not wait for a copy from device to device).  The test double delivers a script's copies and sets
# as they are written (GMP_DOUBLE_SYNC_COPIES=1).
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
use_double "$B"
cat >"$TMPDIR/c.jsonl" <<'J'
{"op":"alloc","addr":"0x1000","size":4096,"stream":1}
{"op":"alloc","addr":"0x3000","size":4096,"stream":1}
{"op":"memcpy","dst":"0x1000","size":4096,"stream":1}
{"op":"memcpy","dst":"0x1000","size":4096,"stream":1,"async":true}
{"op":"memset","addr":"0x1000","size":4096,"stream":1}
{"op":"memcpy","src":"0x1000","size":4096,"stream":1}
{"op":"memcpy","dst":"0x3000","src":"0x1000","size":4096,"stream":1}
{"op":"kernel","name":"k","read":["0x1000"],"stream":1}
{"op":"free","addr":"0x1000"}
{"op":"free","addr":"0x3000"}
J
events() { "$GMPROF" dump "$1" | grep -v '^{"op":"meta"' | grep -v '^#' | sed -E 's/,"(thread|time_ns|returned_ns|at)":[^,}]*//g'; }
expect_exit 0 "a run with blocking and asynchronous copies" -- \
	env GMP_DOUBLE_SYNC_COPIES=1 GMPROF_OUTPUT="$TMPDIR/c.gmprof" "$B/double/fake_app" "$TMPDIR/c.jsonl"
events "$TMPDIR/c.gmprof" >"$TMPDIR/got"
cat >"$TMPDIR/want" <<'J'
{"op":"alloc","addr":"0x1000","size":4096,"stream":1}
{"op":"alloc","addr":"0x3000","size":4096,"stream":1}
{"op":"memcpy","dst":"0x1000","size":4096,"stream":1}
{"op":"sync","stream":1}
{"op":"memcpy","dst":"0x1000","size":4096,"async":true,"stream":1}
{"op":"memset","addr":"0x1000","size":4096,"value":0,"stream":1}
{"op":"memcpy","src":"0x1000","size":4096,"stream":1}
{"op":"sync","stream":1}
{"op":"memcpy","dst":"0x3000","src":"0x1000","size":4096,"stream":1}
{"op":"kernel","name":"k","read":["0x1000"],"stream":1}
{"op":"free","addr":"0x1000"}
{"op":"free","addr":"0x3000"}
{"op":"end"}
J
diff -u "$TMPDIR/want" "$TMPDIR/got" >"$TMPDIR/diff" &&
	ok "  ... each blocking copy with the host a wait of its stream after it; the set, the Async copy and the device-to-device copy none; async as called" ||
	{ notok "  ... the events"; cat "$TMPDIR/diff"; }
# The same calls made Async (the double's default): no waits, every one async.
expect_exit 0 "the same run, every call Async" -- env GMPROF_OUTPUT="$TMPDIR/a.gmprof" "$B/double/fake_app" "$TMPDIR/c.jsonl"
events "$TMPDIR/a.gmprof" >"$TMPDIR/got"
! grep -q '"op":"sync"' "$TMPDIR/got" && [ "$(grep -c '"async":true' "$TMPDIR/got")" = 5 ] &&
	ok "  ... no waits, and all five copies and sets async" || notok "  ... Async: $(cat "$TMPDIR/got")"
# A blocking copy from a module's variable (cudaMemcpyFromSymbol after each launch): no copy of an
# object, but the host's wait for its stream all the same.
expect_exit 0 "a run that reads a variable of the module after its launch" -- \
	env GMP_DOUBLE_SYMBOL_COPIES=1 GMPROF_OUTPUT="$TMPDIR/s.gmprof" "$B/double/fake_app" "$TMPDIR/c.jsonl"
events "$TMPDIR/s.gmprof" | grep -A1 '"op":"kernel"' >"$TMPDIR/got"
printf '%s\n' '{"op":"kernel","name":"k","read":["0x1000"],"stream":1}' '{"op":"sync","stream":1}' | cmp -s - "$TMPDIR/got" &&
	[ "$(events "$TMPDIR/s.gmprof" | grep -c '"op":"memcpy"')" = 4 ] &&
	ok "  ... a wait of the launch's stream after it, and no copy event of its own" || notok "  ... $(events "$TMPDIR/s.gmprof")"
finish
