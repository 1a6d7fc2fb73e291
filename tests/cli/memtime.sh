# SPDX-License-Identifier: MIT
# Memory over time by the host's clock: each finding's waiting time, at
# least and at most, and each device's bytes live on average and the share
# of them that waited, in the text report, JSON, Markdown and HTML (not in
# replay, whose findings depend on the calls' order alone);
# nothing of it for inputs without host times; the same numbers from a
# recorded profile, its dump and the dump converted back (the dump keeps
# which copies were asynchronous).
. tests/cli/lib.sh
S=tests/scripts/figure2_timed.jsonl
expect_exit 0 "report" -- "$GMPROF" report "$S"
grep -q '^Memory over time (the host.s clock: 12.0 us from the first call to the last; ' "$TMPDIR/out" &&
	ok "the section and the run's length" || notok "the section: $(grep -A3 '^Memory over' "$TMPDIR/out")"
grep -q '^  device 0: 862.3 KiB live on average (peak 1.0 MiB); 49.9% to 99.7% of it waiting:$' "$TMPDIR/out" &&
	ok "bytes live on average, and the share waiting at least and at most" ||
	notok "the device line: $(grep -A2 '^Memory over' "$TMPDIR/out")"
grep -q '^    before a first use 49.5% to 69.3%, between uses 0.5% to 0.6%, after the last use 0.0% to 29.8%$' "$TMPDIR/out" &&
	ok "each kind of waiting" || notok "each kind: $(grep -A3 '^Memory over' "$TMPDIR/out")"
grep -q '^     distance 5, 4 APIs between, waited 5.0 us to 7.0 us for its first use; saves' "$TMPDIR/out" &&
	ok "an early allocation's wait" || notok "early: $(grep -A1 'early_allocation: B' "$TMPDIR/out")"
grep -q '^     1 idle range, the longest with 6 APIs between, idle 6.0 us to 8.0 us; ' "$TMPDIR/out" &&
	ok "an idle range's length" || notok "idle: $(grep -A1 'temporary_idleness: C' "$TMPDIR/out")"
grep -q '^     distance 3, 2 APIs between, held up to 3.0 us after its last use; ' "$TMPDIR/out" &&
	ok "a late deallocation's wait, from nothing at least" || notok "late: $(grep -A1 'late_deallocation: B' "$TMPDIR/out")"
grep -q '^     never freed, held up to 1.0 us from its last use to the run.s end; ' "$TMPDIR/out" &&
	ok "a leak's wait until the run's end" || notok "leak: $(grep -A1 'memory_leak: C' "$TMPDIR/out")"


expect_exit 0 "report --format json" -- "$GMPROF" report --format json "$S"
grep -q '"memory_over_time":{"run_ns":12000,"devices":\[{"device":0,"average_live_bytes":883029,"byte_seconds":10.596352,"waiting_min_byte_seconds":5.292032,"waiting_max_byte_seconds":10.559488,' "$TMPDIR/out" &&
	ok "JSON: memory_over_time" || notok "JSON: $(grep -o '"memory_over_time":{[^]]*' "$TMPDIR/out")"
grep -q '"kind_max_byte_seconds":{"before_first_use":7.340032,"between_uses":0.065536,"after_last_use":3.153920,"never_used":0.000000},"untimed_objects":0,"unknown_waiting_objects":0}' "$TMPDIR/out" &&
	ok "JSON: each kind's most" || notok "JSON kinds: $(grep -o '"kind_max_byte_seconds":{[^}]*}' "$TMPDIR/out")"
grep -q '"waited_min_ns":6000,"waited_max_ns":8000,"longest_idle_min_ns":6000,"longest_idle_max_ns":8000' "$TMPDIR/out" &&
	ok "JSON: a finding's wait" || notok "JSON finding: $(grep -o '"waited_[^}]*' "$TMPDIR/out" | head -3)"
[ "$(grep -o '"waited_min_ns":[0-9]*,"waited_max_ns":[0-9]*' "$TMPDIR/out" | tr '\n' ' ')" = \
	'"waited_min_ns":5000,"waited_max_ns":7000 "waited_min_ns":6000,"waited_max_ns":8000 "waited_min_ns":0,"waited_max_ns":3000 "waited_min_ns":0,"waited_max_ns":1000 ' ] &&
	ok "JSON: every finding's wait" || notok "JSON: $(grep -o '"waited_[a-z]*_ns":[0-9]*' "$TMPDIR/out" | tr '\n' ' ')"
# replay prints the findings alone, which depend on the order of the calls, not on their times.
for f in text json; do
	expect_exit 0 "replay --format $f" -- "$GMPROF" replay --format $f "$S"
	! grep -q 'waited\|held \|idle [0-9]' "$TMPDIR/out" && ok "replay --format $f: no times" || notok "replay --format $f: times"
done

expect_exit 0 "report --format markdown" -- "$GMPROF" report --format markdown "$S"
grep -q '^| 0 | 862.3 KiB | 1.0 MiB | 49.9% to 99.7% | 49.5% to 69.3% | 0.5% to 0.6% | 0.0% to 29.8% | 0.0% |$' "$TMPDIR/out" &&
	ok "Markdown: the table's row" || notok "Markdown: $(grep -A6 '^### Memory over' "$TMPDIR/out")"
grep -q 'allocate it just before KERNEL k3 (stream 0, #4) (waited 5.0 us to 7.0 us for its first use) |$' "$TMPDIR/out" &&
	ok "Markdown: a finding's wait beside its fix" || notok "Markdown finding: $(grep 'early_allocation' "$TMPDIR/out")"
expect_exit 0 "html" -- "$GMPROF" html -o "$TMPDIR/t.html" "$S"
grep -q '<h2>Memory over time</h2>' "$TMPDIR/t.html" && grep -q '<td class="n">49.9% to 99.7%</td>' "$TMPDIR/t.html" &&
	grep -q '<br>waited 5.0 us to 7.0 us for its first use' "$TMPDIR/t.html" &&
	ok "HTML: the table and the findings' waits" || notok "HTML: $(grep -A3 'Memory over time' "$TMPDIR/t.html" | head -5)"

# Without host times: nothing of it.
for cmd in "report" "report --format json" "report --format markdown" "html -o -"; do
	expect_exit 0 "$cmd, no host times" -- "$GMPROF" $cmd tests/scripts/figure2.jsonl
	! grep -q -i 'memory over time\|memory_over_time\|waited' "$TMPDIR/out" &&
		ok "$cmd: nothing of it without host times" || notok "$cmd without host times: $(grep -i 'waited\|over time' "$TMPDIR/out" | head -2)"
done

# A recorded profile: its dump keeps the asynchronous copies, and the numbers.
P=tests/data/gpu/simple_multi_copy.gmprof
expect_exit 0 "dump a recorded profile" -- "$GMPROF" dump -o "$TMPDIR/smc.jsonl" "$P"
[ "$(grep -c '"op":"memcpy".*"async":true' "$TMPDIR/smc.jsonl")" -gt 0 ] && ok "the dump says which copies were asynchronous" ||
	notok "no async copies in the dump"
expect_exit 0 "convert the dump back" -- "$GMPROF" convert -o "$TMPDIR/smc.gmprof" "$TMPDIR/smc.jsonl"
for f in "$P" "$TMPDIR/smc.jsonl" "$TMPDIR/smc.gmprof"; do
	"$GMPROF" report "$f" | sed -n '/^Memory over time/,/^$/p' >"$TMPDIR/mt.$(basename "$f")"
	"$GMPROF" report "$f" | grep -o '\(waited\|held\|idle\) [^;]*' >>"$TMPDIR/mt.$(basename "$f")"
done
[ -s "$TMPDIR/mt.simple_multi_copy.gmprof" ] && cmp -s "$TMPDIR/mt.simple_multi_copy.gmprof" "$TMPDIR/mt.smc.jsonl" &&
	cmp -s "$TMPDIR/mt.smc.jsonl" "$TMPDIR/mt.smc.gmprof" && ok "profile, dump and converted dump: the same waits" ||
	notok "the waits differ: $(diff "$TMPDIR/mt.simple_multi_copy.gmprof" "$TMPDIR/mt.smc.jsonl" | head -5)"
# Kernels that the host issued long before it waited for them: a wide range, said as one.
expect_exit 0 "report three_mm" -- "$GMPROF" report tests/data/gpu/three_mm.gmprof
grep -q '^     distance 6, 5 APIs between, held up to 4.77 s after its last use; ' "$TMPDIR/out" &&
	ok "three_mm: held up to the 4.77 s the GPU took" || notok "three_mm: $(grep -m2 'after its last use' "$TMPDIR/out")"

# gmprof diff: each device's bytes live on average in both runs, where both have host times.
sed 's/"size":1048576,"label":"B"/"size":524288,"label":"B"/' "$S" >"$TMPDIR/half.jsonl"
expect_exit 0 "diff" -- "$GMPROF" diff "$S" "$TMPDIR/half.jsonl"
grep -q '^  live on average, device 0: 862.3 KiB -> 435.7 KiB (-426.7 KiB, -49.5%)$' "$TMPDIR/out" &&
	ok "diff: bytes live on average, before and after" || notok "diff: $(head -6 "$TMPDIR/out")"
expect_exit 0 "diff --format json" -- "$GMPROF" diff --format json "$S" "$TMPDIR/half.jsonl"
grep -q '"average_live_before":883029,"average_live_after":446123' "$TMPDIR/out" && ok "diff JSON: average_live_before and _after" ||
	notok "diff JSON: $(grep -o '"average_live[^,]*,[^,]*' "$TMPDIR/out")"
expect_exit 0 "diff --format markdown" -- "$GMPROF" diff --format markdown "$S" "$TMPDIR/half.jsonl"
grep -q '^| live on average, device 0 | 862.3 KiB | 435.7 KiB | -426.7 KiB, -49.5% |$' "$TMPDIR/out" && ok "diff Markdown: the row" ||
	notok "diff Markdown: $(grep 'live' "$TMPDIR/out")"
expect_exit 0 "diff, one run without host times" -- "$GMPROF" diff "$S" tests/scripts/figure2.jsonl
! grep -q 'live on average' "$TMPDIR/out" && ok "diff: nothing of it where a run has no host times" || notok "diff without times"

# A leak never used: held unused until the run's end.
printf '{"op":"alloc","addr":"0x1000","size":4096,"time_ns":100}\n{"op":"alloc","addr":"0x9000","size":64,"time_ns":200}\n{"op":"kernel","name":"k","write":["0x9000"],"time_ns":300}\n{"op":"free","addr":"0x9000","time_ns":1100}\n' >"$TMPDIR/unused.jsonl"
expect_exit 0 "report, a leak never used" -- "$GMPROF" report "$TMPDIR/unused.jsonl"
grep -q '^     never freed, held 1.0 us unused to the run.s end; ' "$TMPDIR/out" && grep -q '^    never used 98.6%$' "$TMPDIR/out" &&
	ok "a leak never used waits as never used" || notok "a leak never used: $(grep -A1 'memory_leak\|^  device' "$TMPDIR/out")"

# make gpu-check's check of idle_time.cu's waits, on its event model: it holds, and fails when it should.
G=$GMPROF OUT_DIR=$TMPDIR
. tests/gpu/expect.sh
waits_check idle tests/gpu/idle_time.jsonl tests/gpu/idle_time.waits && ok "gpu-check's waits hold on idle_time's model" ||
	notok "idle_time's waits: $(cat "$TMPDIR/idle.waits.diff")"
for w in "temporary_idleness obj#1 310 1000" "temporary_idleness obj#1 290 300" "late_deallocation obj#2 1600 9999" "memory_leak obj#1 0 9999"; do
	echo "$w" >"$TMPDIR/w.waits"
	if waits_check w tests/gpu/idle_time.jsonl "$TMPDIR/w.waits"; then notok "waits '$w' should fail"; else ok "waits '$w' fail: $(cat "$TMPDIR/w.waits.diff")"; fi
done

# "async" must be true or false.
printf '{"op":"alloc","addr":"0x1000","size":64}\n{"op":"memset","addr":"0x1000","size":64,"async":1}\n' >"$TMPDIR/bad.jsonl"
expect_exit 2 "a bad async" -- "$GMPROF" replay "$TMPDIR/bad.jsonl"
expect_stderr_line "bad.jsonl:2: field 'async' must be true or false" "a bad async: one sentence naming the line"
printf '{"op":"alloc","addr":"0x1000","size":64}\n{"op":"kernel","name":"k","async":true}\n' >"$TMPDIR/bad.jsonl"
expect_exit 2 "async on a kernel" -- "$GMPROF" replay "$TMPDIR/bad.jsonl"
finish
