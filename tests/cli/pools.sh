# SPDX-License-Identifier: MIT
# Stream-ordered memory pools (cudaMallocAsync's): what they hold reserved
# on the device beside the objects in them.  The collector asks the driver
# (cuMemPoolGetAttribute: the test double's pools, each of which reserves in 2 MiB
# chunks, keeps what is freed, and at a sync gives back what it does not
# use past GMP_DOUBLE_POOL_THRESHOLD) right after an allocation ran out of
# memory, at the end of each synchronizing call and at exit; each answer
# that changed is a POOLS record.  The reports say what the pools cached
# at a failure and the most they held.
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
FAKE=$B/double/fake_app
use_double "$B"
S=tests/scripts/pool_cache.jsonl
# A profile's pools lines and failures, in the order dump writes them (no thread, time or site).
pool_lines() {
	"$GMPROF" dump "$1" 2>/dev/null | grep -v '^{"op":"meta"' | grep -n '"op":"\(pools\|alloc_failed\)"' |
		sed -E 's/,"(thread|time_ns|at)":[^,}]*//g'
}

# A release threshold above what the pool reserves: it keeps the activations freed back to it.
rm -f "$TMPDIR/keep.gmprof"
expect_exit 0 "a program whose pool keeps what it freed" -- \
	env GMP_DOUBLE_POOL_THRESHOLD=4294967296 GMPROF_OUTPUT="$TMPDIR/keep.gmprof" GMPROF_SUMMARY=1 \
	FAKE_CUDA_FREE=402653184 FAKE_CUDA_TOTAL=2147483648 "$FAKE" "$S"
grep -q '^==gmprof== OUT OF MEMORY: cudaMalloc of 1.0 GiB on device 0 (384.0 MiB free of 2.0 GiB) with 256.0 MiB live and 768.0 MiB cached by stream-ordered pools' "$TMPDIR/err" &&
	ok "the exit summary says what the pools cached at the failure" || notok "the exit summary: $(grep OUT "$TMPDIR/err")"
pool_lines "$TMPDIR/keep.gmprof" >"$TMPDIR/got"
# After the stream sync (asked at its call's end), after the device sync, and at the
# failure (a memset later: the same numbers, at the failure's own moment): 768 MiB
# reserved, none of it in use.
cat >"$TMPDIR/want" <<'W'
8:{"op":"pools","reserved":805306368,"used":268435456,"used_high":805306368,"release_threshold":4294967296}
12:{"op":"pools","reserved":805306368,"used":0,"used_high":805306368,"release_threshold":4294967296}
14:{"op":"alloc_failed","size":1073741824,"api":"cudaMalloc","device_free":402653184,"device_total":2147483648}
15:{"op":"pools","reserved":805306368,"used":0,"used_high":805306368,"release_threshold":4294967296}
W
diff -u "$TMPDIR/want" "$TMPDIR/got" >"$TMPDIR/diff" &&
	ok "recorded: the pool's state when it changed and at the failure, in place among the events" ||
	{ notok "recorded pool states"; cat "$TMPDIR/diff"; }
"$GMPROF" report "$TMPDIR/keep.gmprof" >"$TMPDIR/rep" 2>/dev/null
grep -q '^    cached by stream-ordered memory pools: 768.0 MiB (reserved on the device, in no object); their release threshold, 4.0 GiB, keeps it past a sync: cudaMemPoolTrimTo or a lower threshold gives it back$' "$TMPDIR/rep" &&
	ok "report: what the pools cached at the failure, and why" || notok "report: the pools' cache at the failure: $(grep -A6 'ran out' "$TMPDIR/rep")"
grep -q '^  device 0: stream-ordered memory pool reserved at most 768.0 MiB, of which at most 768.0 MiB in use; release threshold 4.0 GiB (what a sync leaves them)$' "$TMPDIR/rep" &&
	ok "report: the most the pool held" || notok "report: the most the pool held: $(grep -i pool "$TMPDIR/rep")"
"$GMPROF" replay --format json --pretty "$TMPDIR/keep.gmprof" >"$TMPDIR/keep.json" 2>/dev/null
grep -q '"pool_reserved_bytes": 805306368' "$TMPDIR/keep.json" && grep -q '"pool_used_bytes": 0' "$TMPDIR/keep.json" &&
	grep -q '"reserved_high_bytes": 805306368' "$TMPDIR/keep.json" &&
	grep -q '"release_threshold_bytes": 4294967296' "$TMPDIR/keep.json" &&
	ok "json: the failure's pool bytes and the device's pools" || notok "json: pools: $(grep pool "$TMPDIR/keep.json")"
"$GMPROF" html -o "$TMPDIR/keep.html" "$TMPDIR/keep.gmprof" 2>/dev/null
grep -q '<td class="n">256.0 MiB in 1 object; 768.0 MiB cached by pools</td>' "$TMPDIR/keep.html" &&
	ok "html: what the pools cached beside what was live" || notok "html: $(grep -o '[^>]*cached by pools' "$TMPDIR/keep.html")"
"$GMPROF" report --format markdown "$TMPDIR/keep.gmprof" >"$TMPDIR/keep.md" 2>/dev/null
grep -q '^| pools | device 0: stream-ordered memory pool reserved at most 768.0 MiB, of which at most 768.0 MiB in use; release threshold 4.0 GiB (what a sync leaves them) |$' "$TMPDIR/keep.md" &&
	grep -q '^  cached by stream-ordered memory pools: 768.0 MiB' "$TMPDIR/keep.md" &&
	ok "markdown: the pool's row, and its cache under the failure" || notok "markdown: $(grep -i pool "$TMPDIR/keep.md")"
grep -q '<dt>pools</dt><dd>device 0: stream-ordered memory pool reserved at most 768.0 MiB, of which at most 768.0 MiB in use; release threshold 4.0 GiB (what a sync leaves them)</dd>' "$TMPDIR/keep.html" &&
	ok "html: the most the pool held, in the run's summary" || notok "html summary: $(grep -o '<dt>pools</dt>[^/]*' "$TMPDIR/keep.html")"

# The driver gives a pool's cache back when an allocation runs out of memory,
# and the pools' counters lag: on an H200 (2026-11-30) they still read 1 GiB
# cached in the failed call's exit callback, while the device's free memory
# had it back.  A reading above what the device held beside the objects is
# not told as cached (768 MiB here, of the 512 MiB in use with 256 MiB live).
rm -f "$TMPDIR/stale.gmprof"
expect_exit 0 "a failure whose pool counters lag behind the device's free memory" -- \
	env GMP_DOUBLE_POOL_THRESHOLD=4294967296 GMPROF_OUTPUT="$TMPDIR/stale.gmprof" GMPROF_SUMMARY=1 \
	FAKE_CUDA_FREE=1610612736 FAKE_CUDA_TOTAL=2147483648 "$FAKE" "$S"
grep -q '^==gmprof== OUT OF MEMORY: cudaMalloc of 1.0 GiB on device 0 (1.5 GiB free of 2.0 GiB) with 256.0 MiB live' "$TMPDIR/err" &&
	! grep -q 'cached by stream-ordered pools' "$TMPDIR/err" && ok "  ... the exit summary tells no cache" ||
	notok "  ... the exit summary: $(grep OUT "$TMPDIR/err")"
"$GMPROF" report "$TMPDIR/stale.gmprof" >"$TMPDIR/rep" 2>/dev/null
grep -q "^    stream-ordered memory pools: their counters still said 768.0 MiB cached, but the device's free memory had it back (the driver gives their cache back when an allocation fails): not in the way$" "$TMPDIR/rep" &&
	! grep -q 'cached by stream-ordered memory pools' "$TMPDIR/rep" &&
	ok "  ... the report says the counters lagged, and no cache in the way" ||
	notok "  ... report: $(grep -A6 'ran out' "$TMPDIR/rep")"
"$GMPROF" check --max-leak 0 "$TMPDIR/stale.gmprof" >"$TMPDIR/out" 2>&1
"$GMPROF" html -o "$TMPDIR/stale.html" "$TMPDIR/stale.gmprof" 2>/dev/null
grep -q '^FAIL out_of_memory: ' "$TMPDIR/out" && ! grep -q 'cached by stream-ordered pools' "$TMPDIR/out" &&
	grep -q '<td class="n">256.0 MiB in 1 object</td>' "$TMPDIR/stale.html" &&
	ok "  ... nor does check or the html" || notok "  ... check or html: $(grep out_of_memory "$TMPDIR/out"; grep -o '[^>]*cached by pools' "$TMPDIR/stale.html")"

# Diff against a run without pools: what the pools held, before and after.

# The default threshold, 0: each sync gives back what the pool does not use.
rm -f "$TMPDIR/trim.gmprof" "$TMPDIR/unnamed.gmprof"
expect_exit 0 "a program whose pool is trimmed at each sync" -- \
	env GMPROF_OUTPUT="$TMPDIR/trim.gmprof" FAKE_CUDA_FREE=402653184 FAKE_CUDA_TOTAL=2147483648 "$FAKE" "$S"
pool_lines "$TMPDIR/trim.gmprof" >"$TMPDIR/got"
cat >"$TMPDIR/want" <<'W'
8:{"op":"pools","reserved":268435456,"used":268435456,"reserved_high":805306368,"used_high":805306368}
12:{"op":"pools","reserved":0,"used":0,"reserved_high":805306368,"used_high":805306368}
14:{"op":"alloc_failed","size":1073741824,"api":"cudaMalloc","device_free":402653184,"device_total":2147483648}
15:{"op":"pools","reserved":0,"used":0,"reserved_high":805306368,"used_high":805306368}
W
diff -u "$TMPDIR/want" "$TMPDIR/got" >"$TMPDIR/diff" && ok "trimmed: the state after each sync" ||
	{ notok "trimmed pool states"; cat "$TMPDIR/diff"; }
"$GMPROF" report "$TMPDIR/trim.gmprof" >"$TMPDIR/rep" 2>/dev/null
! grep -q 'cached by' "$TMPDIR/rep" && grep -q '^  device 0: stream-ordered memory pool reserved at most 768.0 MiB, of which at most 768.0 MiB in use$' "$TMPDIR/rep" &&
	ok "report: nothing cached at the failure, no threshold to name" || notok "report, trimmed: $(grep -i pool "$TMPDIR/rep")"
# Allocations that name no pool come from the device's current one (cuDeviceGetMemPool).
expect_exit 0 "allocations that name no pool" -- \
	env GMP_DOUBLE_POOL_UNNAMED=1 GMPROF_OUTPUT="$TMPDIR/unnamed.gmprof" FAKE_CUDA_FREE=402653184 FAKE_CUDA_TOTAL=2147483648 "$FAKE" "$S"
pool_lines "$TMPDIR/unnamed.gmprof" >"$TMPDIR/got2"
cmp -s "$TMPDIR/got" "$TMPDIR/got2" && ok "unnamed: the device's current pool asked instead, the same states" ||
	{ notok "unnamed pool"; diff -u "$TMPDIR/got" "$TMPDIR/got2"; }

# Two pools on a device (the current one and one the program made, every
# second allocation from each): what they hold is summed, each pool's 2 MiB
# chunk counted; one pool that allocations both name and leave unnamed
# (the device's current one) counted once.
printf '%s\n' '{"op":"alloc","addr":"0x1000000","size":4096,"kind":"async","stream":1}' \
	'{"op":"alloc","addr":"0x2000000","size":4096,"kind":"async","stream":1}' '{"op":"sync"}' \
	'{"op":"free","addr":"0x1000000","stream":1}' '{"op":"free","addr":"0x2000000","stream":1}' \
	'{"op":"sync"}' >"$TMPDIR/twopools.jsonl"
rm -f "$TMPDIR/twopools.gmprof" "$TMPDIR/samepool.gmprof"
expect_exit 0 "a program with two pools" -- \
	env GMP_DOUBLE_POOLS=2 GMPROF_OUTPUT="$TMPDIR/twopools.gmprof" "$FAKE" "$TMPDIR/twopools.jsonl"
cat >"$TMPDIR/want" <<'W'
5:{"op":"pools","reserved":4194304,"used":8192,"pools":2}
9:{"op":"pools","reserved":0,"used":0,"reserved_high":4194304,"used_high":8192,"pools":2}
W
pool_lines "$TMPDIR/twopools.gmprof" >"$TMPDIR/got"
diff -u "$TMPDIR/want" "$TMPDIR/got" >"$TMPDIR/diff" && ok "two pools: their bytes summed, both counted" ||
	{ notok "two pools"; cat "$TMPDIR/diff"; }
"$GMPROF" report "$TMPDIR/twopools.gmprof" >"$TMPDIR/rep" 2>/dev/null
grep -q '^  device 0: stream-ordered memory pools reserved at most 4.0 MiB, of which at most 8.0 KiB in use$' "$TMPDIR/rep" &&
	ok "report: the pools, in the plural" || notok "report, two pools: $(grep -i pool "$TMPDIR/rep")"
expect_exit 0 "a program that names its device's pool half the time" -- \
	env GMP_DOUBLE_POOL_UNNAMED=2 GMPROF_OUTPUT="$TMPDIR/samepool.gmprof" "$FAKE" "$TMPDIR/twopools.jsonl"
[ "$(pool_lines "$TMPDIR/samepool.gmprof" | head -1)" = '5:{"op":"pools","reserved":2097152,"used":8192}' ] &&
	ok "the current pool, named and not: one pool, asked once" || notok "one pool named and not: $(pool_lines "$TMPDIR/samepool.gmprof")"

# At exit the driver is asked once more while the pool's context lives; a
# destroyed context's pools are never asked about again.
printf '%s\n' '{"op":"alloc","addr":"0x1000","size":4096,"kind":"async","stream":1}' \
	'{"op":"free","addr":"0x1000","stream":1}' >"$TMPDIR/exit.jsonl"
rm -f "$TMPDIR/exit.gmprof" "$TMPDIR/gone.gmprof"
expect_exit 0 "exit with the context alive" -- env GMPROF_OUTPUT="$TMPDIR/exit.gmprof" "$FAKE" --no-teardown "$TMPDIR/exit.jsonl"
[ "$(pool_lines "$TMPDIR/exit.gmprof")" = '4:{"op":"pools","reserved":2097152,"used":0,"used_high":4096}' ] &&
	ok "at exit: what the pool still holds (2 MiB, unused: no sync trimmed it)" || notok "at exit: $(pool_lines "$TMPDIR/exit.gmprof")"
expect_exit 0 "exit after the context went" -- env GMPROF_OUTPUT="$TMPDIR/gone.gmprof" "$FAKE" "$TMPDIR/exit.jsonl"
[ -z "$(pool_lines "$TMPDIR/gone.gmprof")" ] && ok "after teardown: the pool is not asked about" ||
	notok "after teardown: $(pool_lines "$TMPDIR/gone.gmprof")"

# No stream-ordered allocation: the driver is not asked, nothing is written.
rm -f "$TMPDIR/none.gmprof"
expect_exit 0 "a program without pools" -- env GMPROF_OUTPUT="$TMPDIR/none.gmprof" FAKE_CUDA_FREE=402653184 \
	FAKE_CUDA_TOTAL=2147483648 "$FAKE" tests/scripts/oom.jsonl
"$GMPROF" report "$TMPDIR/none.gmprof" >"$TMPDIR/rep" 2>/dev/null
[ -z "$(pool_lines "$TMPDIR/none.gmprof" | grep pools)" ] && ! grep -qi 'stream-ordered' "$TMPDIR/rep" &&
	ok "no pools: no record, no line" || notok "no pools: $(grep -i pool "$TMPDIR/rep")"

# Perfetto: a counter of what the pools held reserved, at each recorded state.
"$GMPROF" perfetto -o "$TMPDIR/keep.trace.json" "$TMPDIR/keep.gmprof" 2>/dev/null
[ "$(grep -o '"ph":"C","name":"pools reserved","pid":1,"ts":[0-9.]*,"args":{"bytes":[0-9]*}' "$TMPDIR/keep.trace.json" | sed 's/.*"bytes"://; s/}//' | tr '\n' ' ')" = '805306368 805306368 805306368 ' ] &&
	grep -q '"pool_reserved_bytes":805306368' "$TMPDIR/keep.trace.json" &&
	ok "perfetto: a pools counter, and the failure's pool bytes in its args" || notok "perfetto: $(grep -o '"name":"pools reserved"[^}]*}' "$TMPDIR/keep.trace.json")"

# gmprof check: the failure with what the pools cached, and a "pools" line that never fails.
expect_exit 1 "check: a run that ran out of memory fails" -- "$GMPROF" check "$TMPDIR/keep.gmprof"
grep -q '^FAIL out_of_memory: .*, with 256.0 MiB live and 768.0 MiB cached by stream-ordered pools; ' "$TMPDIR/out" &&
	grep -q '^PASS pools: device 0: stream-ordered memory pool reserved at most 768.0 MiB, of which at most 768.0 MiB in use; release threshold 4.0 GiB' "$TMPDIR/out" &&
	ok "check: what the pools cached at the failure, and the most they held" || notok "check: $(cat "$TMPDIR/out")"
expect_exit 0 "check --allow-oom" -- "$GMPROF" check --allow-oom "$TMPDIR/keep.gmprof"
expect_exit 0 "check: a run without pools" -- "$GMPROF" check --allow-oom "$TMPDIR/none.gmprof"
! grep -q 'pools' "$TMPDIR/out" && ok "check: no pools, no pools line" || notok "check without pools: $(cat "$TMPDIR/out")"

# A baseline keeps the most the pools reserved; check --baseline fails a run whose pools grew past it.
expect_exit 0 "baseline of the trimmed run" -- "$GMPROF" baseline -o "$TMPDIR/base.json" --force "$TMPDIR/trim.gmprof"
grep -q '"pool_reserved_high_bytes": 805306368' "$TMPDIR/base.json" && ok "baseline: the pools' most" ||
	notok "baseline: $(grep pool "$TMPDIR/base.json")"
sed 's/"pool_reserved_high_bytes": 805306368/"pool_reserved_high_bytes": 536870912/' "$TMPDIR/base.json" >"$TMPDIR/base2.json"
expect_exit 1 "check --baseline: the pools reserved more than the baseline's" -- \
	"$GMPROF" check --allow-oom --baseline "$TMPDIR/base2.json" --tolerance 10% "$TMPDIR/trim.gmprof"
grep -q '^FAIL baseline:pools: 768.0 MiB reserved by stream-ordered pools against 512.0 MiB in the baseline (allowed up to 563.2 MiB)$' "$TMPDIR/out" &&
	grep -q '^PASS baseline:peak' "$TMPDIR/out" && ok "  baseline:pools fails, the peak passes" || notok "  baseline:pools: $(cat "$TMPDIR/out")"
expect_exit 0 "check --baseline: the same pools" -- "$GMPROF" check --allow-oom --baseline "$TMPDIR/base.json" "$TMPDIR/trim.gmprof"
grep -q '^PASS baseline:pools: 768.0 MiB reserved by stream-ordered pools against 768.0 MiB in the baseline' "$TMPDIR/out" &&
	ok "  baseline:pools passes" || notok "  baseline:pools passes: $(grep pools "$TMPDIR/out")"

# gmprof diff: what the pools held at most, before and after (0 in a run without them).
"$GMPROF" diff "$TMPDIR/keep.gmprof" "$TMPDIR/none.gmprof" >"$TMPDIR/diff.txt" 2>/dev/null
grep -q '^  stream-ordered pools reserved at most, device 0: 768.0 MiB -> 0 B (' "$TMPDIR/diff.txt" &&
	ok "diff: the pools' most, before and after" || notok "diff: $(grep -i pool "$TMPDIR/diff.txt")"
"$GMPROF" diff --format json --pretty "$TMPDIR/none.gmprof" "$TMPDIR/keep.gmprof" >"$TMPDIR/diff.json" 2>/dev/null
grep -q '"pool_reserved_high_before": 0' "$TMPDIR/diff.json" && grep -q '"pool_reserved_high_after": 805306368' "$TMPDIR/diff.json" &&
	ok "diff json: pool_reserved_high_before and _after" || notok "diff json: $(grep pool "$TMPDIR/diff.json")"
"$GMPROF" diff "$TMPDIR/none.gmprof" "$TMPDIR/none.gmprof" >"$TMPDIR/diff.txt" 2>/dev/null
! grep -q 'stream-ordered' "$TMPDIR/diff.txt" && ok "diff: no pools in either run, no line" || notok "diff without pools: $(grep -i pool "$TMPDIR/diff.txt")"

# Scripts carry the same: dumped, converted and read back, the same lines and reports.
"$GMPROF" dump "$TMPDIR/keep.gmprof" >"$TMPDIR/keep.jsonl" 2>/dev/null
expect_exit 0 "convert a script with pool states" -- "$GMPROF" convert "$TMPDIR/keep.jsonl" -o "$TMPDIR/back.gmprof" --force
"$GMPROF" dump "$TMPDIR/back.gmprof" >"$TMPDIR/back.jsonl" 2>/dev/null
diff -u "$TMPDIR/keep.jsonl" "$TMPDIR/back.jsonl" >"$TMPDIR/diff" && ok "pool states: script, profile, script" ||
	{ notok "pool states round trip"; head -20 "$TMPDIR/diff"; }
"$GMPROF" replay "$TMPDIR/keep.jsonl" >"$TMPDIR/rep" 2>/dev/null
grep -q '^  cached by stream-ordered memory pools: 768.0 MiB' "$TMPDIR/rep" &&
	grep -q '^device 0: stream-ordered memory pool reserved at most 768.0 MiB' "$TMPDIR/rep" &&
	ok "replay: the pools' lines" || notok "replay: $(grep -i pool "$TMPDIR/rep")"
# Pools on two devices: one pools line, a line per device under it.
cat >"$TMPDIR/two.jsonl" <<'J'
{"op":"alloc","addr":"0x1000000","size":4096,"kind":"async","device":0}
{"op":"pools","reserved":33554432,"used":4096,"device":0}
{"op":"alloc","addr":"0x9000000","size":8192,"kind":"async","device":1}
{"op":"pools","reserved":67108864,"used":8192,"device":1}
{"op":"free","addr":"0x1000000"}
{"op":"free","addr":"0x9000000","device":1}
J
expect_exit 0 "check: pools on two devices" -- "$GMPROF" check --max-leak 0 "$TMPDIR/two.jsonl"
grep -q '^PASS pools: device 0: stream-ordered memory pool reserved at most 32.0 MiB, of which at most 4.0 KiB in use$' "$TMPDIR/out" &&
	grep -q '^  device 1: stream-ordered memory pool reserved at most 64.0 MiB, of which at most 8.0 KiB in use$' "$TMPDIR/out" &&
	ok "  ... the second device's pools on a line of their own" || notok "  ... $(cat "$TMPDIR/out")"
# A pool line that contradicts itself is refused in one sentence.
printf '%s\n' '{"op":"alloc","addr":"0x1000","size":4096,"kind":"async"}' \
	'{"op":"pools","reserved":4096,"used":8192}' >"$TMPDIR/bad.jsonl"
expect_exit 2 "a pool with more in use than reserved" -- "$GMPROF" replay "$TMPDIR/bad.jsonl"
expect_stderr_line "bad.jsonl:2: a pool's bytes in use must not exceed its reserved bytes" "  refused in one line, naming the line"
finish
