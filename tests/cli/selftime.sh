# SPDX-License-Identifier: MIT
# The collector's record of its own time (META collector_time), through the
# Sanitizer test double made slow on purpose: each stream sync and each
# module patched takes a set time, and the record must put that time in the
# right part (waiting for streams, patching), count the syncs the double
# saw, and keep every part inside the callbacks, the start and the exit that
# hold it, and those inside the run.  Then the report's header lines and
# JSON, a profile without the record, and a malformed one.
. tests/cli/lib.sh
B=${BUILD:-build}/test
FAKE=$B/double/fake_app
use_double "$PWD/$B"

SYNC_MS=60
PATCH_MS=300
SLACK_US=250000 # a sleep may overshoot; a part that took another's time would pass it
cat >"$TMPDIR/five.jsonl" <<'J'
{"op":"alloc","addr":"0x10000","size":4096}
{"op":"alloc","addr":"0x20000","size":4096}
{"op":"kernel","name":"k","write":["0x10000"]}
{"op":"kernel","name":"k","read":["0x10000"],"write":["0x20000"]}
{"op":"kernel","name":"k","read":["0x20000"]}
{"op":"kernel","name":"k","read":["0x10000"]}
{"op":"kernel","name":"k","read":["0x20000"]}
{"op":"free","addr":"0x10000"}
{"op":"free","addr":"0x20000"}
{"op":"end"}
J
G=$GMPROF
OUT_DIR=$TMPDIR
. tests/gpu/expect.sh # self_time_of, self_time_sane: make gpu-check checks real runs with them
# part NAME FIELD PROFILE: microseconds (FIELD 1) or count (FIELD 2) of a part of the record.
part() {
	self_time_of "$3" | awk -v p="$1" -v f="$2" '$1 == p { print $(f + 1) }'
}

# Harvested after each launch: one stream sync per launch, each SYNC_MS long.
rm -f "$TMPDIR/slow.gmprof"
expect_exit 0 "slow double: the program runs" -- env GMP_DOUBLE_STATS=1 GMP_DOUBLE_SYNC_MS=$SYNC_MS \
	GMP_DOUBLE_PATCH_MS=$PATCH_MS GMPROF_HARVEST=launch GMPROF_OUTPUT="$TMPDIR/slow.gmprof" "$FAKE" "$TMPDIR/five.jsonl"
syncs=$(sed -n 's/^double: \([0-9]*\) stream syncs,.*/\1/p' "$TMPDIR/err")
P=$TMPDIR/slow.gmprof
for k in wall start callbacks exit lock patch calls wait stack; do
	eval "${k}_us=\$(part $k 1 \"\$P\") ${k}_n=\$(part $k 2 \"\$P\")"
done
[ -n "$wall_us" ] && [ -n "$stack_n" ] && ok "the profile records the collector's time, every part" ||
	notok "the profile records the collector's time: $("$GMPROF" dump "$P" | grep collector_time)"
[ "$syncs" -ge 5 ] && [ "$wait_n" -eq "$syncs" ] && ok "stream waits counted as the double saw them ($syncs)" ||
	notok "stream waits counted: $wait_n, the double saw $syncs"
[ "$wait_us" -ge $((syncs * SYNC_MS * 1000)) ] && [ "$wait_us" -lt $((syncs * SYNC_MS * 1000 + SLACK_US)) ] &&
	ok "the syncs' time is the waits' (${wait_us} us for $syncs of $SYNC_MS ms)" ||
	notok "the syncs' time is the waits': $wait_us us for $syncs of $SYNC_MS ms"
[ "$patch_n" -eq 1 ] && [ "$patch_us" -ge $((PATCH_MS * 1000)) ] && [ "$patch_us" -lt $((PATCH_MS * 1000 + SLACK_US)) ] &&
	ok "the module's patching is patching (${patch_us} us)" ||
	notok "the module's patching: $patch_n modules, $patch_us us for $PATCH_MS ms"
[ "$stack_n" -ge 9 ] && ok "a call path per API unwound and counted ($stack_n)" || notok "call paths counted: $stack_n"
[ "$start_n" -eq 1 ] && [ "$exit_n" -eq 1 ] && [ "$callbacks_n" -ge 9 ] &&
	ok "one start, one exit, a callback per API at least" ||
	notok "start $start_n, exit $exit_n, callbacks $callbacks_n"
self_time_sane "$P" object && ok "self_time_sane (make gpu-check's check) takes it" || notok "self_time_sane refuses it"

# cudaFree waits for the device (GMP_DOUBLE_FREE_SYNCS): the collector records
# that wait as a sync, then the free, both in the one call, so their call
# path is unwound once: 9 calls, 11 events, 9 unwinds.
rm -f "$TMPDIR/frees.gmprof"
expect_exit 0 "frees that wait for the device: the program runs" -- env GMP_DOUBLE_FREE_SYNCS=1 \
	GMPROF_OUTPUT="$TMPDIR/frees.gmprof" "$FAKE" "$TMPDIR/five.jsonl"
nsync=$("$GMPROF" dump "$TMPDIR/frees.gmprof" | grep -c '"op":"sync"')
unwound=$(part stack 2 "$TMPDIR/frees.gmprof")
[ "$nsync" -eq 2 ] && [ "$unwound" = 9 ] && ok "a call's sync and free share one unwinding (9 for 11 events)" ||
	notok "a call's sync and free: $nsync syncs recorded, $unwound call paths unwound (want 2 and 9)"
# The API calls' callbacks, which the record's "callbacks" leaves out (META api_callbacks): an
# enter and an exit for each of the double's API calls, one or more per event.
api=$("$GMPROF" dump "$P" | sed -n 's/.*"key":"api_callbacks","value":"\([0-9]*\)".*/\1/p')
events=$(grep -c '"op"' "$TMPDIR/five.jsonl")
[ -n "$api" ] && [ $((api % 2)) = 0 ] && [ "$api" -ge $((2 * events)) ] &&
	ok "the API calls' callbacks counted apart ($api for $events events)" || notok "api_callbacks: '$api' for $events events"
inner=$((lock_us + patch_us + calls_us + wait_us + stack_us))
outer=$((start_us + callbacks_us + exit_us))
[ "$inner" -le "$outer" ] && [ "$outer" -le "$wall_us" ] &&
	ok "the parts lie inside the callbacks, start and exit ($inner <= $outer us), and those inside the run ($wall_us us)" ||
	notok "the parts lie inside: $inner, $outer, $wall_us us"

expect_exit 0 "report: the slow profile" -- "$GMPROF" report "$P"
grep -q "^  time     gmprof on the host: .* of the .* it was loaded (starting .* ms, in $callbacks_n callbacks .* ms, at exit .* ms)$" \
	"$TMPDIR/out" && ok "report: the header says what gmprof spent, and where" ||
	notok "report: the header's time line: $(grep -A1 '^  time' "$TMPDIR/out")"
grep -q "^           of which patching [0-9.]* ms (1 module), waiting for streams [0-9.]* ms ($syncs syncs), other Sanitizer calls" \
	"$TMPDIR/out" && ok "report: the parts follow, with their counts" ||
	notok "report: the parts: $(grep -A1 '^  time' "$TMPDIR/out")"
expect_exit 0 "report --format json: the slow profile" -- "$GMPROF" report --format json "$P"
got=$(tr -d ' \n' <"$TMPDIR/out" | grep -o '"collector_time":{"wall":{"us":[0-9]*,"count":1}' | grep -o '[0-9]*,' | tr -d ,)
[ "$got" = "$wall_us" ] && ok "report --format json: collector_time, in microseconds as recorded" ||
	notok "report --format json: collector_time.wall.us '$got', recorded $wall_us"

# Alloc mode patches nothing: no patching in the record, none in the header.
rm -f "$TMPDIR/alloc.gmprof"
expect_exit 0 "alloc mode: the program runs" -- env GMPROF_MODE=alloc GMP_DOUBLE_PATCH_MS=$PATCH_MS \
	GMPROF_OUTPUT="$TMPDIR/alloc.gmprof" "$FAKE" "$TMPDIR/five.jsonl"
[ "$(part patch 2 "$TMPDIR/alloc.gmprof")" = 0 ] && [ "$(part wait 2 "$TMPDIR/alloc.gmprof")" = 0 ] &&
	ok "alloc mode: no module patched, no stream waited for" || notok "alloc mode: $("$GMPROF" dump "$TMPDIR/alloc.gmprof" | grep collector_time)"
self_time_sane "$TMPDIR/alloc.gmprof" alloc && ! self_time_sane "$TMPDIR/alloc.gmprof" object &&
	ok "self_time_sane: alloc mode's record, which patched nothing, is not object mode's" ||
	notok "self_time_sane on alloc mode's record"
"$GMPROF" dump "$P" | sed 's/"wall=[0-9]*/"wall=1/' >"$TMPDIR/cut.jsonl"
"$GMPROF" convert --force -o "$TMPDIR/cut.gmprof" "$TMPDIR/cut.jsonl"
self_time_sane "$TMPDIR/cut.gmprof" object && notok "self_time_sane takes parts longer than the run" ||
	ok "self_time_sane: parts longer than the run are refused"
"$GMPROF" report "$TMPDIR/alloc.gmprof" >"$TMPDIR/out" 2>&1
grep -q '^  time     gmprof on the host' "$TMPDIR/out" && ! grep -q 'patching' "$TMPDIR/out" &&
	ok "alloc mode: the header has the time line, without patching" || notok "alloc mode header: $(grep -A1 '^  time' "$TMPDIR/out")"

# A profile recorded before the collector kept its time: no line, no key.
OLD=tests/data/gpu/simple_multi_copy.gmprof
"$GMPROF" report "$OLD" >"$TMPDIR/out" 2>&1
"$GMPROF" report --format json "$OLD" >"$TMPDIR/json" 2>&1
! grep -q '^  time ' "$TMPDIR/out" && ! grep -q collector_time "$TMPDIR/json" &&
	ok "an older profile: no time line, no collector_time" || notok "an older profile shows a time"

# The header's words from a fixed record (an event script carries META too).
cat >"$TMPDIR/fixed.jsonl" <<'J'
{"op":"meta","key":"collector_time","value":"wall=412003/1 start=1200/1 callbacks=81002/342 exit=10000/1 lock=12/350 patch=31000/2 calls=20000/180 wait=15000/20 stack=4000/300 later_part=7/7"}
{"op":"alloc","addr":"0x10000","size":4096}
{"op":"free","addr":"0x10000"}
{"op":"end"}
J
expect_exit 0 "report: a script with a fixed record" -- "$GMPROF" report "$TMPDIR/fixed.jsonl"
cat >"$TMPDIR/want" <<'T'
  time     gmprof on the host: 92.2 ms of the 412.0 ms it was loaded (starting 1.2 ms, in 342 callbacks 81.0 ms, at exit 10.0 ms)
           of which patching 31.0 ms (2 modules), waiting for streams 15.0 ms (20 syncs), other Sanitizer calls 20.0 ms (180 times), call paths 4.0 ms (300 paths), waiting for its lock 0.0 ms (350 times)
T
grep -A1 '^  time' "$TMPDIR/out" >"$TMPDIR/got"
cmp -s "$TMPDIR/want" "$TMPDIR/got" && ok "report: the fixed record's two lines, a part it does not know skipped" ||
	{ notok "report: the fixed record's two lines"; diff "$TMPDIR/want" "$TMPDIR/got"; }

words="gmprof on the host: 92.2 ms of the 412.0 ms it was loaded (starting 1.2 ms, in 342 callbacks 81.0 ms, at exit 10.0 ms); of which patching 31.0 ms (2 modules), waiting for streams 15.0 ms (20 syncs), other Sanitizer calls 20.0 ms (180 times), call paths 4.0 ms (300 paths), waiting for its lock 0.0 ms (350 times)"
"$GMPROF" report --format markdown "$TMPDIR/fixed.jsonl" >"$TMPDIR/md" 2>&1
grep -qxF "| time | $words |" "$TMPDIR/md" && ok "report --format markdown: the run table's time row" ||
	notok "report --format markdown: $(grep '^| time' "$TMPDIR/md")"
"$GMPROF" html --force -o "$TMPDIR/fixed.html" "$TMPDIR/fixed.jsonl" 2>"$TMPDIR/err"
grep -qF "<dt>time</dt><dd>$words</dd>" "$TMPDIR/fixed.html" && ok "html: the run's time entry" ||
	notok "html: $(grep -o '<dt>time</dt><dd>[^<]*</dd>' "$TMPDIR/fixed.html") $(cat "$TMPDIR/err")"

sed 's/wall=412003\/1/wall=412003/' "$TMPDIR/fixed.jsonl" >"$TMPDIR/bad.jsonl"
expect_exit 0 "report: a malformed record is no error" -- "$GMPROF" report "$TMPDIR/bad.jsonl"
grep -q "^  note     the collector's record of its own time (META collector_time) is malformed; not shown$" "$TMPDIR/out" &&
	! grep -q '^  time ' "$TMPDIR/out" && ok "report: a malformed record is said so, not shown" ||
	notok "report: a malformed record: $(sed -n 1,12p "$TMPDIR/out")"
"$GMPROF" report --format markdown "$TMPDIR/bad.jsonl" >"$TMPDIR/md" 2>&1
"$GMPROF" html --force -o "$TMPDIR/bad.html" "$TMPDIR/bad.jsonl" 2>&1
grep -q '^| time | the collector.s record of its own time .* is malformed; not shown |$' "$TMPDIR/md" &&
	grep -q '<dt>time</dt><dd>the collector&#39;s record of its own time (META collector_time) is malformed; not shown</dd>' "$TMPDIR/bad.html" &&
	ok "markdown and html: a malformed record is said so" || notok "markdown and html, malformed: $(grep '^| time' "$TMPDIR/md")"
finish
