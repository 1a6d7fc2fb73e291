# SPDX-License-Identifier: MIT
# gmprof diff BEFORE AFTER: peaks per device and findings fixed and new,
# matched by fingerprint across runs and input formats.
. tests/cli/lib.sh
S=tests/scripts
P=tests/data/gpu/simple_multi_copy.gmprof
# Figure 2 after a fix (figure2_fixed.jsonl): B allocated after A is freed and freed after its last
# use; and a new buffer D that nothing uses or frees.
expect_exit 0 "diff of a fix" -- "$GMPROF" diff $S/figure2.jsonl $S/figure2_fixed.jsonl
grep -q '^  findings: 4 -> 4 (2 fixed, 2 new, 2 in both)$' "$TMPDIR/out" && ok "counts fixed, new and kept" ||
	notok "counts: $(grep findings: "$TMPDIR/out")"
sed -n '/^Fixed/,/^$/p' "$TMPDIR/out" | grep -c '^  [a-z_]*: B ' | grep -qx 2 && ok "B's early and late findings are fixed" ||
	notok "fixed: $(sed -n '/^Fixed/,/^$/p' "$TMPDIR/out")"
sed -n '/^New/,$p' "$TMPDIR/out" | grep -q '^  unused_allocation: D ' && ok "D's unused allocation is new" || notok "new: $(sed -n '/^New/,$p' "$TMPDIR/out")"
grep -q '^  peak, device 0: 1.0 MiB -> 1.0 MiB (-4.0 KiB, -0.4%)$' "$TMPDIR/out" && ok "the peak, before and after" ||
	notok "peak: $(grep peak "$TMPDIR/out")"
grep -q '^  leaked: 8.0 KiB -> 10.0 KiB$' "$TMPDIR/out" && ok "leaked bytes, before and after" || notok "leaked: $(grep leaked "$TMPDIR/out")"
expect_exit 0 "diff as JSON" -- "$GMPROF" diff --format json $S/figure2.jsonl $S/figure2_fixed.jsonl
grep -q '"peak_before":1060864,"peak_after":1056768' "$TMPDIR/out" && grep -q '"fixed":\[{"fingerprint":"[0-9a-f]*","pattern":"early_allocation","object":"B"' "$TMPDIR/out" &&
	ok "JSON: peaks and findings" || notok "JSON: $(head -c 400 "$TMPDIR/out")"
# The same run compared with itself, and across formats: nothing changes.
expect_exit 0 "a recorded profile against itself" -- "$GMPROF" diff --symbols tests/data/gpu/bin "$P" "$P"
grep -q '(0 fixed, 0 new, 11 in both)' "$TMPDIR/out" && ok "  ... nothing fixed, nothing new" || notok "self: $(grep findings: "$TMPDIR/out")"
"$GMPROF" convert -o "$TMPDIR/f2.gmprof" $S/figure2.jsonl
expect_exit 0 "a script against its profile" -- "$GMPROF" diff $S/figure2.jsonl "$TMPDIR/f2.gmprof"
grep -q '(0 fixed, 0 new, 4 in both)' "$TMPDIR/out" && ok "  ... fingerprints survive the conversion" || notok "convert: $(grep findings: "$TMPDIR/out")"
# Repeated fingerprints count as a multiset: two leaks at one site, then one.
printf '%s\n' '{"op":"alloc","addr":"0x1000","size":64,"at":"loop.cu:5"}' '{"op":"alloc","addr":"0x2000","size":64,"at":"loop.cu:5"}' >"$TMPDIR/two.jsonl"
printf '%s\n' '{"op":"alloc","addr":"0x1000","size":64,"at":"loop.cu:5"}' >"$TMPDIR/one.jsonl"
expect_exit 0 "a repeated site" -- "$GMPROF" diff --patterns memory_leak "$TMPDIR/two.jsonl" "$TMPDIR/one.jsonl"
grep -q '(1 fixed, 0 new, 1 in both)' "$TMPDIR/out" && ok "  ... one of two leaks fixed" || notok "multiset: $(grep findings: "$TMPDIR/out")"
# Suppressions apply to both runs.
printf 'unused_allocation:fig2.cu:30\n' >"$TMPDIR/d.sup"
expect_exit 0 "with suppressions" -- "$GMPROF" diff --suppressions "$TMPDIR/d.sup" $S/figure2.jsonl $S/figure2_fixed.jsonl
grep -q '(2 fixed, 1 new, 2 in both)' "$TMPDIR/out" && ok "  ... the suppressed finding is not new" || notok "suppressed: $(grep findings: "$TMPDIR/out")"
# Pools with regions: the peak in use too.
sed 's/"size":4096,"kind":"pool_region","label":"scratch"/"size":1024,"kind":"pool_region","label":"scratch"/' \
	tests/scripts/pool_regions.jsonl >"$TMPDIR/smaller.jsonl"
expect_exit 0 "regions: a smaller scratch tensor" -- "$GMPROF" diff tests/scripts/pool_regions.jsonl "$TMPDIR/smaller.jsonl"
grep -q '^  in use, device 0: 132.0 KiB -> 129.0 KiB (-3.0 KiB, -2.3%)$' "$TMPDIR/out" && ok "  ... the peak in use, before and after" ||
	notok "  ... $(grep 'in use' "$TMPDIR/out")"
"$GMPROF" diff $S/figure2.jsonl $S/figure2_fixed.jsonl | grep -q 'in use' &&
	notok "  ... no such line without regions" || ok "  ... no such line without regions"
expect_exit 0 "regions as JSON" -- "$GMPROF" diff --format json tests/scripts/pool_regions.jsonl "$TMPDIR/smaller.jsonl"
grep -q '"inuse_peak_before":135168,"inuse_peak_after":132096' "$TMPDIR/out" && ok "  ... JSON has both" || notok "  ... JSON: $(head -c 300 "$TMPDIR/out")"
# Bad usage and input: one sentence, exit 2.
expect_exit 2 "one input" -- "$GMPROF" diff $S/figure2.jsonl
expect_stderr_line "expected BEFORE and AFTER, got 1 input" "  ... one sentence"
expect_exit 2 "a missing AFTER" -- "$GMPROF" diff $S/figure2.jsonl "$TMPDIR/none.jsonl"
expect_stderr_line "cannot open '.*none.jsonl'" "  ... one sentence"
expect_exit 2 "a bad format" -- "$GMPROF" diff --format xml $S/figure2.jsonl $S/figure2.jsonl
# Where a peak grew: its bytes by allocation site in both runs, the largest
# changes first; a site in one run only counts as 0 in the other.
sites() { awk -v n="$1" -v s1="$2" -v s3="$3" 'BEGIN { for (i = 0; i < n; i++)
		printf "{\"op\":\"alloc\",\"addr\":\"0x%x\",\"size\":%d,\"at\":\"%s\"}\n", 65536 + i * 65536, i % 3 == 0 ? s1 : 4096,
			i % 3 == 0 ? "net.cu:40" : i % 3 == 1 ? "net.cu:52" : s3
	print "{\"op\":\"kernel\",\"name\":\"k\",\"read\":[\"0x10000\"]}"
	for (i = 0; i < n; i++) printf "{\"op\":\"free\",\"addr\":\"0x%x\"}\n", 65536 + i * 65536 }'; }
sites 30 8192 util.cu:9 >"$TMPDIR/s1.jsonl"
sites 36 16384 data.cu:7 >"$TMPDIR/s2.jsonl"
"$GMPROF" diff "$TMPDIR/s1.jsonl" "$TMPDIR/s2.jsonl" | sed -n '/at the peak, by allocation site/,/^  leaked/p' >"$TMPDIR/sites.got"
printf '%s\n' "    at the peak, by allocation site (the largest changes first):" \
	"      +112.0 KiB  net.cu:40: 80.0 KiB in 10 objects -> 192.0 KiB in 12" \
	"      +48.0 KiB   data.cu:7: 0 B in 0 objects -> 48.0 KiB in 12" \
	"      -40.0 KiB   util.cu:9: 40.0 KiB in 10 objects -> 0 B in 0" \
	"      +8.0 KiB    net.cu:52: 40.0 KiB in 10 objects -> 48.0 KiB in 12" \
	"  leaked: 0 B -> 0 B" >"$TMPDIR/sites.want"
cmp -s "$TMPDIR/sites.got" "$TMPDIR/sites.want" && ok "diff: the peak's change by allocation site, the largest first" ||
	notok "diff: by site: $(cat "$TMPDIR/sites.got")"
"$GMPROF" diff --format json "$TMPDIR/s1.jsonl" "$TMPDIR/s2.jsonl" | grep -q '"peak_sites":\[{"site":"net.cu:40","bytes_before":81920,"bytes_after":196608,"objects_before":10,"objects_after":12},' &&
	ok "diff JSON: peak_sites, the largest change first" || notok "diff JSON: peak_sites"
"$GMPROF" diff "$TMPDIR/s1.jsonl" "$TMPDIR/s1.jsonl" | grep -q "by allocation site" && notok "diff: no site lines when nothing changed" ||
	ok "diff: no site lines when nothing changed"
# By NVTX range: each range's peak and what outlived it, matched by path; unchanged ranges left out.
sed 's/"size":268435456,"label":"grads"/"size":536870912,"label":"grads"/' $S/nvtx_ranges.jsonl >"$TMPDIR/grads.jsonl"
expect_exit 0 "diff of two runs with NVTX ranges" -- "$GMPROF" diff $S/nvtx_ranges.jsonl "$TMPDIR/grads.jsonl"
sed -n '/by NVTX range/,/^  leaked/p' "$TMPDIR/out" >"$TMPDIR/ranges.got"
printf '%s\n' "    by NVTX range (the largest changes first):" \
	"      +256.0 MiB  step: peak 1.2 GiB -> 1.5 GiB" \
	"      +256.0 MiB  step > backward: peak 1.2 GiB -> 1.5 GiB, outlived it 256.0 MiB -> 512.0 MiB" \
	"      +256.0 MiB  step > optimizer: peak 1.0 GiB -> 1.2 GiB" \
	"  leaked: 0 B -> 0 B" >"$TMPDIR/ranges.want"
cmp -s "$TMPDIR/ranges.got" "$TMPDIR/ranges.want" && ok "diff: the ranges whose peak or outlived bytes changed" ||
	notok "diff: by range: $(cat "$TMPDIR/ranges.got")"
expect_exit 0 "diff --format markdown with NVTX ranges" -- "$GMPROF" diff --format markdown $S/nvtx_ranges.jsonl "$TMPDIR/grads.jsonl"
grep -q '^| +256.0 MiB | `step > backward` | 1.2 GiB | 1.5 GiB | 256.0 MiB | 512.0 MiB | 0 B | 0 B |$' "$TMPDIR/out" &&
	! grep -q '`setup`' "$TMPDIR/out" && ok "diff markdown: by NVTX range" || notok "diff markdown: $(grep -A6 'by NVTX range' "$TMPDIR/out")"
expect_exit 0 "diff --format json with NVTX ranges" -- "$GMPROF" diff --format json $S/nvtx_ranges.jsonl "$TMPDIR/grads.jsonl"
grep -q '{"path":"setup","peak_before":805306368,"outlived_before":805306368,"grew_before":0,"peak_after":805306368,"outlived_after":805306368,"grew_after":0}' "$TMPDIR/out" &&
	grep -q '"ranges":\[{"path":"step","peak_before":1342177280,"outlived_before":0,"grew_before":0,"peak_after":1610612736,"outlived_after":0,"grew_after":0},' "$TMPDIR/out" &&
	ok "diff JSON: every range, the largest change first" || notok "diff JSON: $(grep -o '"ranges":.*' "$TMPDIR/out" | head -c 400)"
"$GMPROF" diff $S/nvtx_ranges.jsonl $S/nvtx_ranges.jsonl | grep -q "by NVTX range" && notok "diff: no range lines when nothing changed" ||
	ok "diff: no range lines when nothing changed"
"$GMPROF" diff --format json $S/figure2.jsonl $S/nvtx_ranges.jsonl | grep -q '{"path":"setup","peak_before":null,"outlived_before":null,"grew_before":null,"peak_after":805306368,"outlived_after":805306368,"grew_after":0}' &&
	ok "diff JSON: a range of one run has null in the other" || notok "diff JSON: one run's ranges"
# A loop fixed to free each step's buffer in its step: its growth from one
# time to the next is gone, and the diff says so beside the peak and what
# outlived it.
expect_exit 0 "diff of a loop and its fix" -- "$GMPROF" diff $S/nvtx_loop.jsonl $S/nvtx_loop_fixed.jsonl
grep -qx '      -12.0 KiB   step: peak 13.0 KiB -> 5.0 KiB, outlived it 12.0 KiB -> 0 B, its last time began 8.0 KiB -> 0 B above its first' "$TMPDIR/out" &&
	ok "  ... the step's growth from its first time to its last, gone" || notok "  ... $(grep -A2 'by NVTX range' "$TMPDIR/out")"
"$GMPROF" diff --format json $S/nvtx_loop.jsonl $S/nvtx_loop_fixed.jsonl | grep -q '"grew_before":8192,"peak_after":5120,"outlived_after":0,"grew_after":0' &&
	ok "  ... JSON: grew_before and grew_after" || notok "  ... JSON: $("$GMPROF" diff --format json $S/nvtx_loop.jsonl $S/nvtx_loop_fixed.jsonl | grep -o '"ranges":[^]]*')"
grep -q 'live as its last time began' "$TMPDIR/out" && notok "  ... a kept line where the growth went away" ||
	ok "  ... no kept line where the growth went away"
# The other way (a change that makes the step keep its buffer): under the range, where what it keeps comes from.
expect_exit 0 "diff of a loop that came to keep memory" -- "$GMPROF" diff $S/nvtx_loop_fixed.jsonl $S/nvtx_loop.jsonl
grep -A1 '^      +12.0 KiB   step: ' "$TMPDIR/out" | tail -1 |
	grep -qx '                  live as its last time began, allocated since its first: 8.0 KiB in 2 objects, from kept1 (4.0 KiB in 1), kept2 (4.0 KiB in 1)' &&
	ok "  ... what the step keeps now, by allocation site" || notok "  ... $(grep -A3 'by NVTX range' "$TMPDIR/out")"
expect_exit 0 "  ... markdown" -- "$GMPROF" diff --format markdown $S/nvtx_loop_fixed.jsonl $S/nvtx_loop.jsonl
grep -qx '`step` after: live as its last time began, allocated since its first: 8.0 KiB in 2 objects, from kept1 (4.0 KiB in 1), kept2 (4.0 KiB in 1)' \
	"$TMPDIR/out" && ok "  ... a line under the table" || notok "  ... $(grep -A8 'by NVTX range' "$TMPDIR/out")"
"$GMPROF" diff --format json $S/nvtx_loop_fixed.jsonl $S/nvtx_loop.jsonl | grep -q '"grew_after":8192,"kept_after":{"bytes":8192,"objects":2,"sites":\[{"object":"kept1","bytes":4096,"objects":1},{"object":"kept2","bytes":4096,"objects":1}\]}}' &&
	ok "  ... JSON: kept_after" || notok "  ... JSON: $("$GMPROF" diff --format json $S/nvtx_loop_fixed.jsonl $S/nvtx_loop.jsonl | grep -o '"ranges":.*')"
"$GMPROF" diff --format json $S/nvtx_loop.jsonl $S/nvtx_loop_fixed.jsonl | grep -q 'kept_after' && notok "  ... JSON: kept_after where the growth went away" ||
	ok "  ... JSON: none where the growth went away"
"$GMPROF" diff --format markdown $S/nvtx_loop.jsonl $S/nvtx_loop_fixed.jsonl | grep -q 'live as its last time began' &&
	notok "  ... markdown: a line where the growth went away" || ok "  ... markdown: none where the growth went away"
finish
