# SPDX-License-Identifier: MIT
# Hit words cleared once per launch buffer, not before every launch (patch
# ABI 5): each launch of a buffer stamps the words it sets with its epoch,
# and a word stamped by an earlier launch holds no hit of this one.  Through
# the test double, whose new device memory reads as a first launch's stamp
# with both bits set (so a buffer used uncleared reports every object hit):
# buffers reused from the pool launch after launch give every launch's exact
# reads and writes, from the hit list and from the hit words alike (epochs
# past 0 decoded), with one clearing per buffer; GMPROF_FALLBACK=hit-epochs
# clears before every launch, as before, with the same results.  Each
# also with per-instruction records (GMPROF_PATCH_HINTS=1).
. tests/cli/lib.sh
B=${BUILD:-build}/test
FAKE=$B/double/fake_app
use_double "$PWD/$B"

# 700 live objects; 24 launches, a sync after every second one (the next
# two take the buffers it collected), alternating: "few" reads 3 objects
# (its hit list), "most" reads 600 and writes 600 (1200 first touches, past
# the list's 1024: its hit words are read).  Each launch touches other
# objects than the one before it in the same buffer.
awk 'function a(k) { return sprintf("\"0x%x\"", 65536 + k * 4096) }
	function ids(from, to,   k, s, in_) { for (k = from; k < to; k++) in_[k % 700] = 1
		for (k = 0; k < 700; k++) if (k in in_) s = s (s == "" ? "" : ",") a(k); return s }
	BEGIN { for (k = 0; k < 700; k++) print "{\"op\":\"alloc\",\"addr\":" a(k) ",\"size\":4096}"
		for (r = 0; r < 12; r++) {
			print "{\"op\":\"kernel\",\"name\":\"few\",\"read\":[" ids(10 * r, 10 * r + 3) "]}"
			print "{\"op\":\"kernel\",\"name\":\"most\",\"read\":[" ids(50 * r, 50 * r + 600) "],\"write\":[" ids(50 * r + 100, 50 * r + 700) "]}"
			print "{\"op\":\"sync\"}" }
		for (k = 0; k < 700; k++) print "{\"op\":\"free\",\"addr\":" a(k) "}"
		print "{\"op\":\"end\"}" }' >"$TMPDIR/rounds.jsonl"

sets() { sed -n 's/^double: .*, \([0-9]*\) sets of \([0-9]*\) bytes$/\1/p' "$TMPDIR/err"; }
# hints: with per-instruction records (GMPROF_PATCH_HINTS=1), kept and
# cleared with the hit words; the double aborts a launch that starts with a
# record of its own stamp (its new memory reads as such records too), and
# each access of the script is an instruction of its own.
for fb in "" hit-list hints; do
	name=${fb:-default}
	hints=0
	[ "$fb" = hints ] && fb= hints=1
	rm -f "$TMPDIR/$name.gmprof"
	expect_exit 0 "$name: the program runs" -- env GMP_DOUBLE_STATS=2 GMPROF_FALLBACK=$fb GMPROF_PATCH_HINTS=$hints \
		GMPROF_OUTPUT="$TMPDIR/$name.gmprof" "$FAKE" "$TMPDIR/rounds.jsonl"
	n=$(sets)
	[ -n "$n" ] && [ "$n" -ge 1 ] && [ "$n" -le 2 ] && ok "$name: hit words cleared once per buffer ($n sets for 24 launches)" ||
		notok "$name: sets: $(cat "$TMPDIR/err")"
	same_kernels "$name: every launch's reads and writes exact, buffers reused" "$TMPDIR/$name.gmprof" "$TMPDIR/rounds.jsonl" 24
done

for hints in 0 1; do
	rm -f "$TMPDIR/fb.gmprof"
	expect_exit 0 "GMPROF_FALLBACK=hit-epochs (hints $hints): the program runs" -- env GMP_DOUBLE_STATS=2 \
		GMPROF_FALLBACK=hit-epochs GMPROF_PATCH_HINTS=$hints GMPROF_OUTPUT="$TMPDIR/fb.gmprof" "$FAKE" "$TMPDIR/rounds.jsonl"
	[ "$(sets)" = 24 ] && ok "GMPROF_FALLBACK=hit-epochs (hints $hints): cleared before every launch (24 sets)" ||
		notok "hit-epochs sets: $(cat "$TMPDIR/err")"
	same_kernels "GMPROF_FALLBACK=hit-epochs (hints $hints): the same reads and writes" "$TMPDIR/fb.gmprof" "$TMPDIR/rounds.jsonl" 24
done
"$GMPROF" report "$TMPDIR/fb.gmprof" | grep -q '^  fallback hit-epochs$' && ok "GMPROF_FALLBACK=hit-epochs: the report says so" ||
	notok "GMPROF_FALLBACK=hit-epochs: the report says so"

# Clearing again (GMPROF_HIT_EPOCHS=1: every second launch of a buffer, where
# it would be when the stamps repeat): all the buffer's words, not only the
# clearing launch's.  One buffer, launch after launch: 300 entries, all read
# (stamped by epoch 1); 250 objects freed, and a launch of 50 entries clears;
# 250 others allocated, and the next launch (epoch 1 again) reads two of
# them, whose words the 300-entry launch had stamped with the same epoch.
awk 'function a(k) { return sprintf("\"0x%x\"", 65536 + k * 4096) }
	function b(k) { return sprintf("\"0x%x\"", 16777216 + k * 4096) }
	function kernel(list) { print "{\"op\":\"kernel\",\"name\":\"k\",\"read\":[" list "]}"; print "{\"op\":\"sync\"}" }
	BEGIN { for (k = 0; k < 300; k++) print "{\"op\":\"alloc\",\"addr\":" a(k) ",\"size\":4096}"
		kernel(a(0))
		for (k = 0; k < 300; k++) all = all (k ? "," : "") a(k)
		kernel(all)
		for (k = 50; k < 300; k++) print "{\"op\":\"free\",\"addr\":" a(k) "}"
		kernel(a(0))
		for (k = 0; k < 250; k++) print "{\"op\":\"alloc\",\"addr\":" b(k) ",\"size\":4096}"
		kernel(b(100) "," b(200))
		for (k = 0; k < 50; k++) print "{\"op\":\"free\",\"addr\":" a(k) "}"
		for (k = 0; k < 250; k++) print "{\"op\":\"free\",\"addr\":" b(k) "}"
		print "{\"op\":\"end\"}" }' >"$TMPDIR/wrap.jsonl"
for fb in "" hit-list hints; do
	name=wrap${fb:+-$fb}
	hints=0
	[ "$fb" = hints ] && fb= hints=1
	rm -f "$TMPDIR/$name.gmprof"
	expect_exit 0 "$name: the program runs" -- env GMP_DOUBLE_STATS=2 GMPROF_HIT_EPOCHS=1 GMPROF_FALLBACK=$fb \
		GMPROF_PATCH_HINTS=$hints GMPROF_OUTPUT="$TMPDIR/$name.gmprof" "$FAKE" "$TMPDIR/wrap.jsonl"
	[ "$(sets)" = 2 ] && ok "$name: cleared when new and again at its third launch" || notok "$name: sets: $(cat "$TMPDIR/err")"
	same_kernels "$name: every launch's reads exact across the clearing" "$TMPDIR/$name.gmprof" "$TMPDIR/wrap.jsonl" 4
done
expect_exit 0 "GMPROF_HIT_EPOCHS=0: the program runs unprofiled" -- env GMPROF_HIT_EPOCHS=0 \
	GMPROF_OUTPUT="$TMPDIR/zero.gmprof" "$FAKE" "$TMPDIR/wrap.jsonl"
expect_stderr_line "^gmprof: GMPROF_HIT_EPOCHS" "GMPROF_HIT_EPOCHS=0 is refused in one line"
finish
