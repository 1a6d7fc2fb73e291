# SPDX-License-Identifier: MIT
# cudaDeviceReset in the middle of a run (the test double's
# GMP_DOUBLE_RESET_AT): what the context's teardown frees was leaked by the
# program, as memcheck's leak check counts it; the program's own frees
# after it are recorded, though the next context may come with the handle
# of the one torn down (the collector once dropped every later free).
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
use_double "$B"
frees() { "$GMPROF" dump "$1" | grep -c '"op":"free"'; }
# A is left to the reset; B, at another address, is allocated, used and freed after it.
cat >"$TMPDIR/two.jsonl" <<'J'
{"op":"alloc","addr":"0x10000","size":4096,"label":"A"}
{"op":"kernel","name":"k","write":["0x10000"]}
{"op":"alloc","addr":"0x20000","size":8192,"label":"B"}
{"op":"kernel","name":"k","write":["0x20000"]}
{"op":"kernel","name":"k2","read":["0x20000"]}
{"op":"free","addr":"0x20000"}
J
expect_exit 0 "a reset before the third call, the next context with the same handle" -- \
	env GMP_DOUBLE_RESET_AT=2 GMPROF_OUTPUT="$TMPDIR/two.gmprof" "$B/double/fake_app" "$TMPDIR/two.jsonl"
[ ! -s "$TMPDIR/err" ] && ok "  ... not a word" || notok "  ... stderr: $(cat "$TMPDIR/err")"
[ "$(frees "$TMPDIR/two.gmprof")" = 1 ] && ok "  ... one free recorded: the program's, after the reset" ||
	notok "  ... frees: $("$GMPROF" dump "$TMPDIR/two.gmprof" | grep '"free"')"
expect_exit 0 "replay" -- "$GMPROF" replay --format json "$TMPDIR/two.gmprof"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
leaks = [f["size"] for f in d["findings"] if f["pattern"] == "memory_leak"]
sys.exit(0 if leaks == [4096] else 1)' "$TMPDIR/out" 2>/dev/null &&
	ok "  ... what the reset freed is the one leak (4096 bytes), the object freed after it none" ||
	notok "  ... findings: $(head -c 600 "$TMPDIR/out")"
# The same addresses again: the object after the reset takes A's memory.
sed 's/0x20000/0x10000/g' "$TMPDIR/two.jsonl" >"$TMPDIR/same.jsonl"
expect_exit 0 "a reset, then an allocation at the address the reset freed" -- \
	env GMP_DOUBLE_RESET_AT=2 GMPROF_OUTPUT="$TMPDIR/same.gmprof" "$B/double/fake_app" "$TMPDIR/same.jsonl"
[ "$(frees "$TMPDIR/same.gmprof")" = 2 ] && ok "  ... two frees: A ended where its memory is reused (known-limits), B's own" ||
	notok "  ... frees: $("$GMPROF" dump "$TMPDIR/same.gmprof" | grep '"free"')"
grep -q "overlaps an object gmprof thought live (a free it did not see, or memory a context's teardown released)" "$TMPDIR/err" &&
	ok "  ... and says why it may be" || notok "  ... stderr: $(cat "$TMPDIR/err")"
expect_exit 0 "replay" -- "$GMPROF" replay --format json "$TMPDIR/same.gmprof"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if not [f for f in d["findings"] if f["pattern"] == "memory_leak"] else 1)' "$TMPDIR/out" 2>/dev/null &&
	ok "  ... no leak: B's free is the program's" || notok "  ... findings: $(head -c 600 "$TMPDIR/out")"
finish
