# SPDX-License-Identifier: MIT
# Launch headers uploaded a ring at a time: a launch buffer whose hit list
# is in pinned host memory (the patches then never write its header) gets
# the headers of its next 8 launches in one upload, each with its own
# epoch, and a launch whose header is one of them uploads nothing; the
# patches get that slot's address.  GMPROF_FALLBACK=launch-headers uploads
# each launch's header before it, as do buffers whose list is on the
# device (GMPROF_FALLBACK=device-lists: the patches count in the header).
# Every launch must still report its own reads and writes: the double's
# new device memory reads as a first launch's stamp with both bits set,
# and each launch below touches other objects than the one before it, so a
# launch given another's epoch reports what it did not touch.  (The live
# set changing between launches: tests/cli/collector.sh's table reuse
# script, 20 launches' headers in 4 uploads, 20 with the fallback.)
. tests/cli/lib.sh
B=${BUILD:-build}/test
FAKE=$B/double/fake_app
use_double "$PWD/$B"

# Three objects; 40 launches, each collected at a sync before the next (one
# buffer, launch after launch): launch i reads object i % 3 and writes the next.
# (With touch=1 the same accesses as intra mode records them: 256 bytes each, by address.)
steady='function a(k) { return sprintf("\"0x%x\"", 65536 + k * 4096) }
	function acc(k, rw) { return "{\"addr\":" a(k) ",\"size\":256,\"rw\":\"" rw "\"}" }
	BEGIN { for (k = 0; k < 3; k++) print "{\"op\":\"alloc\",\"addr\":" a(k) ",\"size\":4096}"
		for (i = 0; i < 40; i++) {
			if (touch)
				print "{\"op\":\"kernel\",\"name\":\"k\",\"touch\":[" (i % 3 < 2 ? acc(i % 3, "r") "," acc(i % 3 + 1, "w") : acc(0, "w") "," acc(2, "r")) "]}"
			else
				print "{\"op\":\"kernel\",\"name\":\"k\",\"read\":[" a(i % 3) "],\"write\":[" a((i + 1) % 3) "]}"
			print "{\"op\":\"sync\"}" }
		for (k = 0; k < 3; k++) print "{\"op\":\"free\",\"addr\":" a(k) "}"
		print "{\"op\":\"end\"}" }'
awk -v touch=0 "$steady" >"$TMPDIR/steady.jsonl"
awk -v touch=1 "$steady" >"$TMPDIR/touch.jsonl"

# The double's host-to-device copies and sets: "COPIES SETS".
counts() {
	sed -n 's/^double: [0-9]* stream syncs, \([0-9]*\) host-to-device copies of .*, \([0-9]*\) sets of [0-9]* bytes$/\1 \2/p' "$TMPDIR/err"
}

# NAME WANT ENV...: the steady program under ENV uploads WANT copies (the
# object table once, then the headers) and reports every launch exactly.
steady() {
	name=$1 want=$2
	shift 2
	rm -f "$TMPDIR/s.gmprof"
	expect_exit 0 "$name: the program runs" -- env GMP_DOUBLE_STATS=2 "$@" GMPROF_OUTPUT="$TMPDIR/s.gmprof" \
		"$FAKE" "$TMPDIR/steady.jsonl"
	got=$(counts)
	[ "$got" = "$want" ] && ok "$name: host-to-device copies and sets '$want'" || notok "$name: copies and sets '$got', want '$want': $(cat "$TMPDIR/err")"
	same_kernels "$name: every launch's reads and writes exact" "$TMPDIR/s.gmprof" "$TMPDIR/steady.jsonl" 40
}
# The table, then 40 headers in 5 uploads (epochs 0-7, 8-15, ...); the hit words cleared once.
steady "ring" "6 1" GMPROF_FALLBACK=
steady "GMPROF_FALLBACK=launch-headers" "41 1" GMPROF_FALLBACK=launch-headers
steady "GMPROF_FALLBACK=device-lists" "41 1" GMPROF_FALLBACK=device-lists
# Cleared every 4th launch (GMPROF_HIT_EPOCHS=3): epochs 0-3 again and
# again, all in the first upload's slots: one upload of headers in all.
steady "ring, epochs from 0 every 4th launch" "2 10" GMPROF_HIT_EPOCHS=3
# The same with the list on the device: its header counts the list, so each
# launch uploads its own, even where it is the header the last launch had
# (epoch 0 each time when the words are cleared before every launch).
steady "device-lists, epochs from 0 every 4th launch" "41 10" GMPROF_HIT_EPOCHS=3 GMPROF_FALLBACK=device-lists
steady "device-lists, cleared before every launch" "41 40" GMPROF_FALLBACK=device-lists,hit-epochs
steady "ring, cleared before every launch" "2 40" GMPROF_FALLBACK=hit-epochs
# Per-instruction records live beside the headers, cleared with the hit words.
steady "ring, with per-instruction records" "6 1" GMPROF_PATCH_HINTS=1
"$GMPROF" report "$TMPDIR/s.gmprof" >/dev/null && rm -f "$TMPDIR/s.gmprof" &&
	env GMPROF_FALLBACK=launch-headers GMPROF_OUTPUT="$TMPDIR/s.gmprof" "$FAKE" "$TMPDIR/steady.jsonl" 2>/dev/null &&
	"$GMPROF" report "$TMPDIR/s.gmprof" | grep -q '^  fallback launch-headers$' &&
	ok "GMPROF_FALLBACK=launch-headers: the report says so" || notok "GMPROF_FALLBACK=launch-headers: the report says so"

# Intra mode: each launch's header alone in its buffer's first slot, where
# the collector reads it back (its maps are new each launch anyway).
rm -f "$TMPDIR/i.gmprof"
expect_exit 0 "intra mode: the program runs" -- env GMPROF_MODE=intra GMPROF_OUTPUT="$TMPDIR/i.gmprof" \
	"$FAKE" "$TMPDIR/touch.jsonl"
same_kernels "intra mode: every launch's touches exact" "$TMPDIR/i.gmprof" "$TMPDIR/touch.jsonl" 40 touches
finish
