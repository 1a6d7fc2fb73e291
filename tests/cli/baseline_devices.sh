# SPDX-License-Identifier: MIT
# Baselines of version 3: each input's peak on each device, so that a peak
# that grows on one device fails the gate even while another device's is
# larger, and an MPI job's ranks are each checked against their own (by
# file name).  One input against a baseline of one input matches by device
# alone (main.gmprof against pr.gmprof).
. tests/cli/lib.sh
# Device 0 holds 8 KiB at its peak, device 1 16 KiB; the grown run adds
# 4 KiB on device 0 at a.cu:5, its peak still under device 1's.
cat >"$TMPDIR/two.jsonl" <<'J'
{"op":"alloc","addr":"0x10000","size":8192,"label":"a","at":"a.cu:1","device":0}
{"op":"alloc","addr":"0x20000","size":16384,"label":"b","at":"a.cu:2","device":1}
{"op":"kernel","name":"k","read":["0x10000","0x20000"],"at":"a.cu:3"}
{"op":"free","addr":"0x10000","at":"a.cu:4"}
{"op":"free","addr":"0x20000","at":"a.cu:4"}
{"op":"end"}
J
sed 's|^{"op":"kernel"|{"op":"alloc","addr":"0x30000","size":4096,"label":"c","at":"a.cu:5","device":0}\n{"op":"kernel"|; s|"read":\["0x10000","0x20000"\]|"read":["0x10000","0x20000","0x30000"]|; s|^{"op":"end"}|{"op":"free","addr":"0x30000","at":"a.cu:4"}\n{"op":"end"}|' \
	"$TMPDIR/two.jsonl" >"$TMPDIR/grown.jsonl"
expect_exit 0 "baseline of a run on two devices" -- "$GMPROF" baseline -o "$TMPDIR/two.base.json" "$TMPDIR/two.jsonl"
B=$TMPDIR/two.base.json
[ "$(grep -c '"input": "two.jsonl",' "$B")" -eq 2 ] && grep -q '^  "peak_bytes": 16384,' "$B" &&
	tr -d ' \n' <"$B" | grep -q '"device":0,"peak_bytes":8192,"peak_sites":\[{"site":"a.cu:1","bytes":8192,"key":"[0-9a-f]\{16\}"}\]' &&
	tr -d ' \n' <"$B" | grep -q '"device":1,"peak_bytes":16384,"peak_sites":\[{"site":"a.cu:2","bytes":16384,"key":"[0-9a-f]\{16\}"}\]' &&
	ok "  ... a peak per device, with its sites; the largest at the top" || notok "  ... $(cat "$B")"

expect_exit 0 "the same run passes" -- "$GMPROF" check --baseline "$B" "$TMPDIR/two.jsonl"
grep -qx 'PASS baseline:peak: 2 devices, none past the baseline' "$TMPDIR/out" &&
	grep -qx '  ok device 0: 8.0 KiB against 8.0 KiB in the baseline (allowed up to 8.0 KiB)' "$TMPDIR/out" &&
	grep -qx '  ok device 1: 16.0 KiB against 16.0 KiB in the baseline (allowed up to 16.0 KiB)' "$TMPDIR/out" &&
	ok "  ... a line per device" || notok "  ... $(cat "$TMPDIR/out")"

# The largest peak did not move; device 0's did.
expect_exit 1 "device 0 grew under device 1's peak: fails" -- "$GMPROF" check --baseline "$B" --sarif "$TMPDIR/g.sarif" \
	--markdown "$TMPDIR/g.md" "$TMPDIR/grown.jsonl"
grep -qx 'FAIL baseline:peak: 1 of 2 devices past the baseline' "$TMPDIR/out" &&
	grep -qx '  FAIL device 0: 12.0 KiB against 8.0 KiB in the baseline (allowed up to 8.0 KiB)' "$TMPDIR/out" &&
	grep -qx '  ok device 1: 16.0 KiB against 16.0 KiB in the baseline (allowed up to 16.0 KiB)' "$TMPDIR/out" &&
	ok "  ... that device named" || notok "  ... $(grep -A6 baseline:peak "$TMPDIR/out")"
grep -qx '  reached on device 0 at ALLOC (stream 0, #2) at a.cu:5' "$TMPDIR/out" &&
	grep -qx '  grew at a.cu:5: +4.0 KiB (0 B in the baseline, 4.0 KiB now)' "$TMPDIR/out" &&
	[ "$(grep -c 'grew at' "$TMPDIR/out")" -eq 1 ] && ok "  ... where it was reached and the site that grew there" ||
	notok "  ... $(grep -A6 baseline:peak "$TMPDIR/out")"
[ "$(grep -c '"ruleId": "peak_growth"' "$TMPDIR/g.sarif")" -eq 1 ] &&
	grep -A40 '"ruleId": "peak_growth"' "$TMPDIR/g.sarif" | tr -d ' \n' |
	grep -q 'peakondevice0grewto12.0KiB,pastthebaseline.s8.0KiB.*"uri":"a.cu".*"startLine":5.*"device":0' &&
	ok "  ... SARIF: one peak_growth result, on device 0 at a.cu:5" || notok "  ... SARIF: $(grep -A20 peak_growth "$TMPDIR/g.sarif")"
grep -q '^| \*\*FAIL\*\* | `baseline:peak` | 1 of 2 devices past the baseline |$' "$TMPDIR/g.md" &&
	grep -q '^  FAIL device 0: 12.0 KiB' "$TMPDIR/g.md" && ok "  ... Markdown: the row, the devices folded below" ||
	notok "  ... Markdown: $(grep -A8 'baseline:peak' "$TMPDIR/g.md")"
# (--patterns memory_leak: the grown run's other findings are new, and would fail it anyway)
expect_exit 0 "  ... within --tolerance 4KiB" -- "$GMPROF" check --patterns memory_leak --baseline "$B" --tolerance 4KiB \
	"$TMPDIR/grown.jsonl"
grep -qx '  ok device 0: 12.0 KiB against 8.0 KiB in the baseline (allowed up to 12.0 KiB)' "$TMPDIR/out" &&
	ok "  ... the tolerance on each device's own peak" || notok "  ... $(grep -A3 baseline:peak "$TMPDIR/out")"
expect_exit 1 "  ... past --tolerance 49%" -- "$GMPROF" check --patterns memory_leak --baseline "$B" --tolerance 49% \
	"$TMPDIR/grown.jsonl"

# One input against a baseline of one input: the names may differ.
cp "$TMPDIR/grown.jsonl" "$TMPDIR/pr.jsonl"
expect_exit 1 "another name, one input: matched by device" -- "$GMPROF" check --baseline "$B" "$TMPDIR/pr.jsonl"
grep -qx '  FAIL device 0: 12.0 KiB against 8.0 KiB in the baseline (allowed up to 8.0 KiB)' "$TMPDIR/out" &&
	ok "  ... compared, and device 0 fails" || notok "  ... $(grep -A3 baseline:peak "$TMPDIR/out")"

# A device the baseline run did not use fails, saying so.
sed 's/"device":1/"device":2/' "$TMPDIR/two.jsonl" >"$TMPDIR/dev2.jsonl"
expect_exit 1 "a device the baseline has no peak of" -- "$GMPROF" check --baseline "$B" "$TMPDIR/dev2.jsonl"
grep -qx '  FAIL device 2: 16.0 KiB, and the baseline has no peak on device 2 to compare' "$TMPDIR/out" &&
	ok "  ... named" || notok "  ... $(grep -A3 baseline:peak "$TMPDIR/out")"

# Ranks: each input against the peaks of the input of its file name, wherever it lies.
mkdir -p "$TMPDIR/main" "$TMPDIR/pr"
sed 's/"device":1/"device":0/; s/"size":16384/"size":2048/' "$TMPDIR/two.jsonl" >"$TMPDIR/main/prof.0.jsonl"
sed 's/"device":0/"device":1/' "$TMPDIR/main/prof.0.jsonl" >"$TMPDIR/main/prof.1.jsonl"
expect_exit 0 "baseline of two ranks" -- "$GMPROF" baseline -o "$TMPDIR/ranks.json" "$TMPDIR/main/prof.0.jsonl" "$TMPDIR/main/prof.1.jsonl"
tr -d ' \n' <"$TMPDIR/ranks.json" | grep -q '"input":"prof.0.jsonl","device":0,"peak_bytes":10240' &&
	tr -d ' \n' <"$TMPDIR/ranks.json" | grep -q '"input":"prof.1.jsonl","device":1,"peak_bytes":10240' &&
	ok "  ... each rank's peak under its file name" || notok "  ... $(cat "$TMPDIR/ranks.json")"
cp "$TMPDIR/main/prof.0.jsonl" "$TMPDIR/pr/prof.0.jsonl"
sed 's/"size":2048/"size":4096/' "$TMPDIR/main/prof.1.jsonl" >"$TMPDIR/pr/prof.1.jsonl"
expect_exit 1 "rank 1 grew: it fails, rank 0 passes" -- "$GMPROF" check --baseline "$TMPDIR/ranks.json" \
	"$TMPDIR/pr/prof.0.jsonl" "$TMPDIR/pr/prof.1.jsonl"
grep -q "^PASS $TMPDIR/pr/prof.0.jsonl: baseline:peak: 10.0 KiB against 10.0 KiB in the baseline" "$TMPDIR/out" &&
	grep -q "^FAIL $TMPDIR/pr/prof.1.jsonl: baseline:peak: 12.0 KiB against 10.0 KiB in the baseline" "$TMPDIR/out" &&
	ok "  ... each against its own" || notok "  ... $(grep baseline:peak "$TMPDIR/out")"
cp "$TMPDIR/pr/prof.1.jsonl" "$TMPDIR/pr/prof.7.jsonl"
expect_exit 1 "a rank the baseline does not have" -- "$GMPROF" check --baseline "$TMPDIR/ranks.json" \
	"$TMPDIR/pr/prof.0.jsonl" "$TMPDIR/pr/prof.7.jsonl"
grep -q "^FAIL $TMPDIR/pr/prof.7.jsonl: baseline:peak: 12.0 KiB, and the baseline has no peak of prof.7.jsonl on device 1 to compare" \
	"$TMPDIR/out" && ok "  ... named, not compared with another's" || notok "  ... $(grep baseline:peak "$TMPDIR/out")"
expect_exit 2 "a baseline of two inputs of one file name" -- "$GMPROF" baseline "$TMPDIR/main/prof.0.jsonl" "$TMPDIR/pr/prof.0.jsonl"
expect_stderr_line "two inputs are named 'prof.0.jsonl'" "  ... refused in one sentence"

# Pools with NVTX regions: the pool's size stays, the bytes in use grow.
sed 's/"size":4096,"kind":"pool_region","label":"scratch"/"size":1024,"kind":"pool_region","label":"scratch"/' \
	tests/scripts/pool_regions.jsonl >"$TMPDIR/smaller.jsonl"
expect_exit 0 "baseline of a run whose pool has regions" -- "$GMPROF" baseline -o "$TMPDIR/pool.base.json" "$TMPDIR/smaller.jsonl"
tr -d ' \n' <"$TMPDIR/pool.base.json" | grep -q '"device":0,"peak_bytes":[0-9]*,"inuse_peak_bytes":132096,' &&
	ok "  ... its peak of bytes in use kept" || notok "  ... $(head -12 "$TMPDIR/pool.base.json")"
expect_exit 1 "the bytes in use grew, the pool did not" -- "$GMPROF" check --baseline "$TMPDIR/pool.base.json" \
	--patterns memory_leak tests/scripts/pool_regions.jsonl
grep -q '^PASS baseline:peak: ' "$TMPDIR/out" &&
	grep -qx 'FAIL baseline:in_use: 132.0 KiB in use against 129.0 KiB in the baseline (allowed up to 129.0 KiB)' "$TMPDIR/out" &&
	ok "  ... baseline:in_use fails, baseline:peak passes" || notok "  ... $(grep baseline: "$TMPDIR/out")"
expect_exit 0 "  ... within --tolerance 3KiB" -- "$GMPROF" check --baseline "$TMPDIR/pool.base.json" --tolerance 3KiB \
	--patterns memory_leak tests/scripts/pool_regions.jsonl
"$GMPROF" check --baseline "$B" "$TMPDIR/two.jsonl" | grep -q 'baseline:in_use' && notok "no baseline:in_use without regions" ||
	ok "no baseline:in_use without regions"

# Pools with regions on two devices: each device's bytes in use against its own.
cat >"$TMPDIR/pools2.jsonl" <<'J'
{"op":"alloc","addr":"0x100000","size":1048576,"label":"pool0","at":"alloc.cu:10","device":0}
{"op":"alloc","addr":"0x100000","size":4096,"kind":"pool_region","label":"r0","at":"model.cu:20","device":0}
{"op":"alloc","addr":"0x1000000","size":1048576,"label":"pool1","at":"alloc.cu:10","device":1}
{"op":"alloc","addr":"0x1000000","size":8192,"kind":"pool_region","label":"r1","at":"model.cu:21","device":1}
{"op":"kernel","name":"k0","write":["0x100000"],"at":"model.cu:22","device":0}
{"op":"kernel","name":"k1","write":["0x1000000"],"at":"model.cu:23","device":1}
{"op":"sync","at":"model.cu:24"}
{"op":"free","addr":"0x100000","at":"model.cu:25"}
{"op":"free","addr":"0x1000000","at":"model.cu:26"}
{"op":"free","addr":"0x100000","at":"alloc.cu:40"}
{"op":"free","addr":"0x1000000","at":"alloc.cu:40"}
{"op":"end"}
J
expect_exit 0 "baseline of pools with regions on two devices" -- "$GMPROF" baseline -o "$TMPDIR/pools2.base.json" "$TMPDIR/pools2.jsonl"
expect_exit 0 "  ... the same run passes" -- "$GMPROF" check --baseline "$TMPDIR/pools2.base.json" "$TMPDIR/pools2.jsonl"
grep -qx "PASS baseline:in_use: 2 devices' peaks in use, none past the baseline" "$TMPDIR/out" &&
	grep -qx '  ok device 1: 8.0 KiB in use against 8.0 KiB in the baseline (allowed up to 8.0 KiB)' "$TMPDIR/out" &&
	ok "  ... a line per device" || notok "  ... $(grep -A2 baseline:in_use "$TMPDIR/out")"
sed 's/"size":8192/"size":16384/' "$TMPDIR/pools2.jsonl" >"$TMPDIR/pools2.grown.jsonl"
expect_exit 1 "  ... device 1's bytes in use grew, its pool did not" -- "$GMPROF" check --baseline "$TMPDIR/pools2.base.json" \
	"$TMPDIR/pools2.grown.jsonl"
grep -q '^PASS baseline:peak: ' "$TMPDIR/out" &&
	grep -qx "FAIL baseline:in_use: 1 of 2 devices' peaks in use past the baseline" "$TMPDIR/out" &&
	grep -qx '  ok device 0: 4.0 KiB in use against 4.0 KiB in the baseline (allowed up to 4.0 KiB)' "$TMPDIR/out" &&
	grep -qx '  FAIL device 1: 16.0 KiB in use against 8.0 KiB in the baseline (allowed up to 8.0 KiB)' "$TMPDIR/out" &&
	ok "  ... that device named, the other passing" || notok "  ... $(grep -A2 baseline: "$TMPDIR/out")"

# Many ranks: each finds its own peak among 20000 (the reader sorts them, a check searches).
awk 'BEGIN { printf "{\"gmprof_baseline\":3,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":["
	for (i = 19999; i >= 0; i--) printf "%s{\"input\":\"prof.%d.jsonl\",\"device\":0,\"peak_bytes\":%d,\"peak_sites\":[]}", i < 19999 ? "," : "", i, i == 777 ? 1048576 : 8388608
	printf "],\"findings\":[]}\n" }' >"$TMPDIR/many.json"
cp tests/scripts/figure2.jsonl "$TMPDIR/prof.777.jsonl"
cp tests/scripts/figure2.jsonl "$TMPDIR/prof.778.jsonl"
expect_exit 1 "20000 ranks in the baseline: rank 777 grew by 12 KiB" -- "$GMPROF" check --patterns memory_leak \
	--baseline "$TMPDIR/many.json" "$TMPDIR/prof.777.jsonl" "$TMPDIR/prof.778.jsonl"
grep -q "^FAIL $TMPDIR/prof.777.jsonl: baseline:peak: 1.0 MiB (1060864 bytes) against 1.0 MiB in the baseline (allowed up to 1.0 MiB (1048576 bytes))\$" "$TMPDIR/out" &&
	grep -q "^PASS $TMPDIR/prof.778.jsonl: baseline:peak: 1.0 MiB against 8.0 MiB in the baseline" "$TMPDIR/out" &&
	ok "  ... each against its own, the bytes shown where the sizes read alike" || notok "  ... $(grep baseline:peak "$TMPDIR/out")"

# --baseline takes the run itself too (a profile or an event script): the same lines as its baseline file.
for base in "$TMPDIR/two.jsonl" tests/data/gpu/simple_multi_copy.gmprof; do
	"$GMPROF" baseline -o "$TMPDIR/of-run.json" --force "$base" 2>/dev/null
	for against in "$TMPDIR/grown.jsonl" tests/data/gpu/simple_multi_copy.gmprof; do
		# (notes aside: a run as the baseline is symbolized, and says which binaries have no lines)
		"$GMPROF" check --baseline "$TMPDIR/of-run.json" "$against" >"$TMPDIR/file.txt" 2>"$TMPDIR/file.err"
		a=$?
		"$GMPROF" check --baseline "$base" "$against" >"$TMPDIR/run.txt" 2>"$TMPDIR/run.err"
		b=$?
		grep -v ': note: ' "$TMPDIR/file.err" >>"$TMPDIR/file.txt"
		grep -v ': note: ' "$TMPDIR/run.err" >>"$TMPDIR/run.txt"
		[ "$a" -eq "$b" ] && cmp -s "$TMPDIR/file.txt" "$TMPDIR/run.txt" &&
			ok "--baseline $(basename "$base") against $(basename "$against"): as its baseline file (exit $a)" ||
			notok "--baseline $(basename "$base") against $(basename "$against"): $(diff "$TMPDIR/file.txt" "$TMPDIR/run.txt" | head -5)"
	done
done
printf '{"op":"bogus"}\n' >"$TMPDIR/bogus.jsonl"
expect_exit 2 "--baseline: a run that cannot be read" -- "$GMPROF" check --baseline "$TMPDIR/bogus.jsonl" "$TMPDIR/two.jsonl"
expect_stderr_line "bogus.jsonl:1: unknown op 'bogus'" "  ... said in one line"
expect_exit 2 "--baseline: a missing file" -- "$GMPROF" check --baseline "$TMPDIR/none.gmprof" "$TMPDIR/two.jsonl"
expect_stderr_line "cannot open baseline" "  ... said in one line"

# The reader: version 3 alone has peaks, each one of an input and device.
bad() { # NAME JSON REASON
	printf '%s' "$2" >"$TMPDIR/bad.json"
	expect_exit 2 "bad baseline: $1" -- "$GMPROF" check --baseline "$TMPDIR/bad.json" "$TMPDIR/two.jsonl"
	expect_stderr_line "bad baseline.*$3" "  ... said in one line"
}
P='{"input":"a.gmprof","device":0,"peak_bytes":1,"peak_sites":[]}'
bad "peaks in version 2" "{\"gmprof_baseline\":2,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[$P],\"findings\":[]}" "only a baseline of version 3"
bad "version 3 without peaks" '{"gmprof_baseline":3,"peak_bytes":1,"leaked_bytes":0,"findings":[]}' "version 3 or later has \"peaks\""
bad "two peaks of one input and device" "{\"gmprof_baseline\":3,\"peak_bytes\":1,\"leaked_bytes\":0,\"peaks\":[$P,$P],\"findings\":[]}" "two peaks of one input and device"
bad "an input with a directory" '{"gmprof_baseline":3,"peak_bytes":1,"leaked_bytes":0,"peaks":[{"input":"d/a","device":0,"peak_bytes":1,"peak_sites":[]}],"findings":[]}' "file name (no directory)"
bad "a peak without sites" '{"gmprof_baseline":3,"peak_bytes":1,"leaked_bytes":0,"peaks":[{"input":"a","device":0,"peak_bytes":1}],"findings":[]}' "needs its \"peak_sites\""
bad "an in-use peak of 0" '{"gmprof_baseline":3,"peak_bytes":1,"leaked_bytes":0,"peaks":[{"input":"a","device":0,"peak_bytes":1,"inuse_peak_bytes":0,"peak_sites":[]}],"findings":[]}' "must be a positive integer"
bad "version 10" '{"gmprof_baseline":10,"peak_bytes":1,"leaked_bytes":0,"findings":[]}' "version 1 to 9"
bad "version 8 without nvtx_names" '{"gmprof_baseline":8,"peak_bytes":1,"leaked_bytes":0,"peaks":[],"findings":[]}' "version 8 has \"nvtx_names\", and one before 8 none"
bad "nvtx_names in version 7" '{"gmprof_baseline":7,"nvtx_names":{"numbers":true},"peak_bytes":1,"leaked_bytes":0,"peaks":[],"findings":[]}' "version 8 has \"nvtx_names\", and one before 8 none"
bad "version 9 without nvtx_domains_left_out" '{"gmprof_baseline":9,"peak_bytes":1,"leaked_bytes":0,"peaks":[],"findings":[]}' "version 9, and only one, has \"nvtx_domains_left_out\""
bad "nvtx_domains_left_out in version 8" '{"gmprof_baseline":8,"nvtx_names":{"numbers":true},"nvtx_domains_left_out":["NCCL"],"peak_bytes":1,"leaked_bytes":0,"peaks":[],"findings":[]}' "version 9, and only one, has \"nvtx_domains_left_out\""
bad "no domain left out" '{"gmprof_baseline":9,"nvtx_domains_left_out":[],"peak_bytes":1,"leaked_bytes":0,"peaks":[],"findings":[]}' "an array of 1 to 264 names"
bad "a domain left out twice" '{"gmprof_baseline":9,"nvtx_domains_left_out":["NCCL","NCCL"],"peak_bytes":1,"leaked_bytes":0,"peaks":[],"findings":[]}' "names a domain twice"
bad "a domain without a name" '{"gmprof_baseline":9,"nvtx_domains_left_out":[""],"peak_bytes":1,"leaked_bytes":0,"peaks":[],"findings":[]}' "must hold NVTX domains' names"
bad "version 4 without peaks" '{"gmprof_baseline":4,"peak_bytes":1,"leaked_bytes":0,"findings":[]}' "version 3 or later has \"peaks\""
# Every other check of the reader, each in a baseline otherwise valid (version 4, or 1 and 2 where
# only they can say it): a hand-edited baseline is refused with the sentence that names its fault.
v4() { # PEAK-FIELDS FINDINGS [TOP-FIELDS]
	printf '{"gmprof_baseline":4,"peak_bytes":1,"leaked_bytes":0,"fingerprints":2%s,"peaks":[{"input":"a","device":0,"peak_bytes":1%s}],"findings":[%s]}' \
		"${3:-}" "$1" "$2"
}
F='"fingerprint":"0123456789abcdef"'
bad "cut short" '{"gmprof_baseline":4,"peak_bytes":' "not valid JSON"
bad "an array" '["gmprof_baseline"]' "not a JSON object"
bad "an unknown key" "$(v4 ',"peak_sites":[]' '' ',"peak":1')" "unknown key 'peak'"
bad "version 1 with sites" '{"gmprof_baseline":1,"peak_bytes":1,"leaked_bytes":0,"peak_sites":[],"findings":[]}' "version 1 has no \"peak_sites\""
bad "a negative peak" '{"gmprof_baseline":2,"peak_bytes":-1,"leaked_bytes":0,"findings":[]}' "\"peak_bytes\" must be a non-negative integer"
bad "a fractional leak" '{"gmprof_baseline":2,"peak_bytes":1,"leaked_bytes":0.5,"findings":[]}' "\"leaked_bytes\" must be a non-negative integer"
bad "a numeric input" '{"gmprof_baseline":2,"input":3,"peak_bytes":1,"leaked_bytes":0,"findings":[]}' "\"input\" must be a string"
bad "findings not a list" '{"gmprof_baseline":2,"peak_bytes":1,"leaked_bytes":0,"findings":{}}' "\"findings\" must be an array"
bad "version 2's sites not a list" '{"gmprof_baseline":2,"peak_bytes":1,"leaked_bytes":0,"peak_sites":{},"findings":[]}' "\"peak_sites\" must be an array"
bad "peaks not a list" '{"gmprof_baseline":4,"peak_bytes":1,"leaked_bytes":0,"peaks":{},"findings":[]}' "\"peaks\" must be an array"
bad "a peak not an object" '{"gmprof_baseline":4,"peak_bytes":1,"leaked_bytes":0,"peaks":[1],"findings":[]}' "every peak must be an object"
bad "a peak of device -1" '{"gmprof_baseline":4,"peak_bytes":1,"leaked_bytes":0,"peaks":[{"input":"a","device":-1,"peak_bytes":1,"peak_sites":[]}],"findings":[]}' "\"device\" must be a device number"
bad "a peak's bytes as text" '{"gmprof_baseline":4,"peak_bytes":1,"leaked_bytes":0,"peaks":[{"input":"a","device":0,"peak_bytes":"1","peak_sites":[]}],"findings":[]}' "a peak's \"peak_bytes\" must be a non-negative integer"
bad "a pool high of 0" "$(v4 ',"pool_reserved_high_bytes":0,"peak_sites":[]' '')" "\"pool_reserved_high_bytes\" must be a positive integer"
bad "a site not an object" "$(v4 ',"peak_sites":[1]' '')" "every peak site must be an object"
bad "a site without bytes" "$(v4 ',"peak_sites":[{"site":"a.cu:1"}]' '')" "needs a \"site\" string and \"bytes\""
bad "a site's key in capitals" "$(v4 ',"peak_sites":[{"site":"a.cu:1","bytes":1,"key":"0123456789ABCDEF"}]' '')" "\"key\" must be 16 lower-case hex digits"
bad "ranges not a list" "$(v4 ',"peak_sites":[],"range_peaks":{}' '')" "\"range_peaks\" must be an array"
bad "a range not an object" "$(v4 ',"peak_sites":[],"range_peaks":["step"]' '')" "every range peak must be an object"
bad "a range without a name" "$(v4 ',"peak_sites":[],"range_peaks":[{"range":"","peak_bytes":1}]' '')" "needs a \"range\" (a non-empty string)"
bad "a range twice" "$(v4 ',"peak_sites":[],"range_peaks":[{"range":"a","peak_bytes":1},{"range":"a","peak_bytes":2}]' '')" "a range is in a peak's \"range_peaks\" twice"
bad "ranges in version 3" '{"gmprof_baseline":3,"peak_bytes":1,"leaked_bytes":0,"peaks":[{"input":"a","device":0,"peak_bytes":1,"peak_sites":[],"range_peaks":[]}],"findings":[]}' "unknown key 'range_peaks'"
bad "fingerprints of scheme 1" "$(v4 ',"peak_sites":[]' '' | sed 's/"fingerprints":2/"fingerprints":1/')" "\"fingerprints\" must be 2"
bad "findings of an earlier scheme" '{"gmprof_baseline":2,"peak_bytes":1,"leaked_bytes":0,"findings":[{"fingerprint":"0123456789abcdef"}]}' "write it again with gmprof baseline"
bad "a finding not an object" "$(v4 ',"peak_sites":[]' '7')" "every finding must be an object"
bad "a short fingerprint" "$(v4 ',"peak_sites":[]' '{"fingerprint":"0123"}')" "\"fingerprint\" must be 16 lower-case hex digits"
bad "an unknown pattern" "$(v4 ',"peak_sites":[]' "{$F,\"pattern\":\"leak\"}")" "\"pattern\" must name a pattern"
bad "a numeric object" "$(v4 ',"peak_sites":[]' "{$F,\"object\":1}")" "\"object\" must be a string"
bad "a negative saving" "$(v4 ',"peak_sites":[]' "{$F,\"saving_bytes\":-5}")" "\"saving_bytes\" must be a non-negative integer"
v4 ',"peak_sites":[{"site":"a.cu:1","bytes":1,"key":"0123456789abcdef"}],"range_peaks":[{"range":"a","peak_bytes":1}]' \
	"{$F,\"pattern\":\"memory_leak\",\"object\":\"x\",\"saving_bytes\":5}" >"$TMPDIR/good.json"
"$GMPROF" check --baseline "$TMPDIR/good.json" "$TMPDIR/two.jsonl" >/dev/null 2>"$TMPDIR/err"
! grep -q "bad baseline" "$TMPDIR/err" && ok "the same baseline with every field right is read" ||
	notok "the valid baseline: $(cat "$TMPDIR/err")"
finish
