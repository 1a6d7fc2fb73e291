# SPDX-License-Identifier: MIT
# Fixing findings together (gmprof report): each device's peak with all its
# findings fixed at once, and with --fit the fewest findings that bring
# the peak to a target (a bounded search, which says when it stopped at
# its bound); in text and in JSON.
. tests/cli/lib.sh
S=tests/scripts/oom.jsonl
expect_exit 0 "report" -- "$GMPROF" report "$S"
grep -q '^  device 0: with all 10 of its findings that free memory fixed, the peak is 1.2 GiB (now 1.4 GiB)$' "$TMPDIR/out" &&
	ok "the peak with every finding fixed" || notok "the peak with every finding fixed: $(grep -A2 '^Fixing' "$TMPDIR/out")"
! grep -q 'to fit in' "$TMPDIR/out" && ok "no plan without --fit" || notok "no plan without --fit"
expect_exit 0 "report, with a redundant allocation" -- "$GMPROF" report tests/scripts/figure3.jsonl
grep -q '^  device 0: not counting its 1 redundant allocation (sharing a buffer changes what the other fixes of both objects do)$' "$TMPDIR/out" &&
	ok "redundant allocations are left out, and said so" || notok "redundant allocations: $(grep -A3 '^Fixing' "$TMPDIR/out")"
expect_exit 0 "report --fit 1300MiB" -- "$GMPROF" report --fit 1300MiB "$S"
grep -q '^  device 0: to fit in 1.3 GiB, fix findings 3, 7, 10, 6: the peak is then 1.2 GiB$' "$TMPDIR/out" &&
	ok "--fit: the findings that reach it, in the order chosen" || notok "--fit: $(grep -A2 '^Fixing' "$TMPDIR/out")"
expect_exit 0 "report --fit 1GiB" -- "$GMPROF" report --fit 1GiB "$S"
grep -q '^  device 0: even fixing all of them leaves the peak above 1.0 GiB$' "$TMPDIR/out" &&
	ok "--fit below what fixing everything reaches: said so" || notok "--fit 1GiB: $(grep -A2 '^Fixing' "$TMPDIR/out")"
expect_exit 0 "report --fit 2GiB" -- "$GMPROF" report --fit 2GiB "$S"
grep -q '^  device 0: the peak is within 2.0 GiB already$' "$TMPDIR/out" && ok "--fit above the peak: nothing to fix" || notok "--fit 2GiB"
expect_exit 0 "report --format json --fit" -- "$GMPROF" report --format json --fit 1300MiB "$S"
grep -q '"plans":\[{"device":0,"findings":10,"redundant_left_out":0,"peak_bytes":1543503872,"peak_all_fixed_bytes":1342177280,"fit_bytes":1363148800,"fit_findings":\[2,6,9,5\],"peak_fit_bytes":1342177280,"fit_fewest":true}\]' "$TMPDIR/out" &&
	ok "JSON: plans, the findings by index" || notok "JSON: $(grep -o '"plans":[^]]*]' "$TMPDIR/out")"
expect_exit 0 "report --format json --fit, unreachable" -- "$GMPROF" report --format json --fit 1GiB "$S"
grep -q '"fit_findings":null' "$TMPDIR/out" && ok "JSON: an unreachable target's findings are null" || notok "JSON: unreachable"
# Seventy buffers, each freed only at the end: reaching a small budget takes more fixes than a plan holds.
i=0; : >"$TMPDIR/many.jsonl"
while [ $i -lt 70 ]; do
	printf '{"op":"alloc","addr":%d,"size":4096}\n{"op":"kernel","name":"k","write":[%d]}\n' $((65536 * (i + 1))) $((65536 * (i + 1))) >>"$TMPDIR/many.jsonl"
	i=$((i + 1))
done
i=0; while [ $i -lt 70 ]; do printf '{"op":"free","addr":%d}\n' $((65536 * (i + 1))) >>"$TMPDIR/many.jsonl"; i=$((i + 1)); done
expect_exit 0 "report --fit, more than 64 fixes" -- "$GMPROF" report --fit 16KiB "$TMPDIR/many.jsonl"
grep -q '^  device 0: fitting in 16.0 KiB takes more than 64 of them$' "$TMPDIR/out" &&
	ok "a budget that takes more than 64 fixes: said so" || notok "more than 64: $(grep -A3 '^Fixing' "$TMPDIR/out")"
expect_exit 0 "report --fit, 30 fixes" -- "$GMPROF" report --fit 170KiB "$TMPDIR/many.jsonl"
grep -q '^  device 0: to fit in 170.0 KiB, fix findings .* and [0-9]* more: the peak is then 1[0-9][0-9].0 KiB$' "$TMPDIR/out" &&
	ok "a plan of many fixes lists the first twelve" || notok "many fixes: $(grep -A3 '^Fixing' "$TMPDIR/out")"
# Three groups of buffers, each freed late: X live at the first of two moments, Y at the second,
# Z at both (sizes in 4 KiB: fourteen of each, X's first).  With a few calls between, the search
# for the fewest fixes ends; with 140k calls between (2^25 positions' work is about 230 sets), it
# stops at its bound and says so.
fitgen() { # PAD -> a script
	echo "5 3 9 4 16 15 16 13 7 4 16 1 13 14 1 15 9 8 4 11 1 1 1 1 13 7 14 1 8 15 16 8 12 8 8 15 10 1 14 4 6 10" |
	awk -v pad="$1" 'function alloc(s) { a += 1048576; printf "{\"op\":\"alloc\",\"addr\":%d,\"size\":%d}\n", a, s; return a }
	function use(x) { printf "{\"op\":\"kernel\",\"name\":\"k\",\"write\":[%d]}\n", x }
	function free(x) { printf "{\"op\":\"free\",\"addr\":%d}\n", x }
	{ d = alloc(4096); use(d)
		for (i = 0; i < 14; i++) { x[i] = alloc($(i + 1) * 4096); use(x[i]) }
		for (i = 0; i < 14; i++) { z[i] = alloc($(i + 15) * 4096); use(z[i]) }
		for (i = 0; i < pad; i++) use(d)
		for (i = 0; i < 14; i++) free(x[i])
		for (i = 0; i < 14; i++) { y[i] = alloc($(i + 29) * 4096); use(y[i]) }
		for (i = 0; i < pad; i++) use(d)
		for (i = 0; i < 14; i++) { free(y[i]); free(z[i]) }
		free(d) }'
}
for pad in 5 70000; do
	fitgen $pad >"$TMPDIR/fit$pad.jsonl"
	peak=$("$GMPROF" report --format json "$TMPDIR/fit$pad.jsonl" | sed -n 's/.*"plans":\[{[^}]*"peak_bytes":\([0-9]*\).*/\1/p')
	expect_exit 0 "report --fit 75% of the peak, $pad calls between" -- "$GMPROF" report --format json --fit $((peak * 3 / 4)) "$TMPDIR/fit$pad.jsonl"
	want=true; [ $pad = 5 ] || want=false
	grep -q "\"fit_fewest\":$want" "$TMPDIR/out" && ok "  ... JSON: fit_fewest $want" || notok "  ... JSON: $(grep -o '"plans":[^]]*]' "$TMPDIR/out")"
	"$GMPROF" report --fit $((peak * 3 / 4)) "$TMPDIR/fit$pad.jsonl" >"$TMPDIR/out"
	if [ $pad = 5 ]; then
		grep -q '^  device 0: to fit in .*: the peak is then [0-9.]* KiB$' "$TMPDIR/out" && ok "  ... text: the fewest, nothing more said" ||
			notok "  ... text: $(grep 'to fit' "$TMPDIR/out")"
	else
		grep -q '^  device 0: to fit in .*: the peak is then [0-9.]* KiB (the search for fewer fixes stopped at its bound: fewer may do)$' "$TMPDIR/out" &&
			ok "  ... text: the search stopped at its bound, said so" || notok "  ... text: $(grep 'to fit' "$TMPDIR/out")"
	fi
done
expect_exit 2 "a bad --fit" -- "$GMPROF" report --fit lots "$S"
expect_stderr_line "bad byte count or share 'lots' for --fit" "  ... said in one line"
expect_exit 2 "--fit 0" -- "$GMPROF" report --fit 0 "$S"
finish
