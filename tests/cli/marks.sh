# SPDX-License-Identifier: MIT
# NVTX marks (nvtxMarkA, nvtxMarkW, nvtxMarkEx, nvtxDomainMarkEx): a moment
# a host thread names, "epoch 3".  The collector, NVTX's tool, records each
# as a MARK record before the thread's next event; event scripts carry them
# as "mark" lines; Perfetto's host axis shows each as an instant on its
# thread's track.  The test double makes a script's marks by the five calls
# in turn (the domain's by a string and by a registered string).
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
FAKE=$B/double/fake_app
use_double "$B"
TC=$B/tools/trace_check
if [ ! -f "${CUDA_HOME:-/usr/local/cuda}/include/nvtx3/nvToolsExt.h" ]; then
	notok "the toolkit's nvtx3 headers are missing: the double cannot mark"
	finish
fi
marks() { # PROFILE: its marks as "NAME@EVENTS_BEFORE", one line
	"$GMPROF" dump "$1" 2>/dev/null | awk '/"op":"mark"/ { match($0, /"name":"[^"]*"/); printf "%s@%d ", substr($0, RSTART + 8, RLENGTH - 9), n; next }
		/"op":"(meta|stream|end|range_push|range_pop|alloc_failed|pools)"/ || !/"op"/ { next } { n++ }'
}
cat >"$TMPDIR/m.jsonl" <<'J'
{"op":"mark","name":"start"}
{"op":"alloc","addr":"0x1000","size":4096}
{"op":"mark","name":"epoch 1"}
{"op":"range_push","name":"step"}
{"op":"mark","name":"epoch 1 begins"}
{"op":"kernel","name":"k","write":["0x1000"]}
{"op":"range_pop"}
{"op":"mark","name":"epoch 2"}
{"op":"kernel","name":"k","read":["0x1000"]}
{"op":"free","addr":"0x1000"}
{"op":"mark","name":"done"}
J
want="start@0 epoch 1@1 epoch 1 begins@1 epoch 2@2 done@4 "
# A script's marks: read, and written back where they stood.
expect_exit 0 "convert a script with marks" -- "$GMPROF" convert -o "$TMPDIR/s.gmprof" "$TMPDIR/m.jsonl"
[ "$(marks "$TMPDIR/s.gmprof")" = "$want" ] && ok "  ... each before the event it came before" || notok "  ... $(marks "$TMPDIR/s.gmprof")"
"$GMPROF" dump "$TMPDIR/s.gmprof" >"$TMPDIR/s.jsonl" 2>/dev/null
grep -q '^{"op":"mark","name":"epoch 1 begins"}$' "$TMPDIR/s.jsonl" && ok "  ... dumped as mark lines" || notok "  ... $(grep mark "$TMPDIR/s.jsonl")"
expect_exit 0 "replay" -- "$GMPROF" replay "$TMPDIR/m.jsonl"
grep -q "m.jsonl: 4 events, 4 GPU APIs," "$TMPDIR/out" && ok "  ... marks are no events" || notok "  ... $(head -1 "$TMPDIR/out")"
printf '{"op":"mark"}\n' >"$TMPDIR/bad1.jsonl"
expect_exit 2 "a mark with no name is refused" -- "$GMPROF" replay "$TMPDIR/bad1.jsonl"
expect_stderr_line "bad1.jsonl:1: missing required field 'name'" "  ... in one line naming the field"
printf '{"op":"mark","name":"x","size":4}\n' >"$TMPDIR/bad2.jsonl"
expect_exit 2 "a mark with a field of another op is refused" -- "$GMPROF" replay "$TMPDIR/bad2.jsonl"
expect_stderr_line "unknown field 'size' for op 'mark'" "  ... in one line naming it"

# Through the collector: the same marks, made by the five NVTX calls.
rm -f "$TMPDIR/c.gmprof"
expect_exit 0 "marks through NVTX" -- env GMPROF_OUTPUT="$TMPDIR/c.gmprof" "$FAKE" "$TMPDIR/m.jsonl"
[ "$(marks "$TMPDIR/c.gmprof")" = "$want" ] && ok "  ... each recorded before the event it came before" || notok "  ... $(marks "$TMPDIR/c.gmprof")"
"$GMPROF" dump "$TMPDIR/c.gmprof" 2>/dev/null | awk '
	/"op":"mark"|"op":"(alloc|free|kernel)"/ { if (!match($0, /"thread":[0-9]+/)) { bad = bad " no thread:" $0; next }
		th = substr($0, RSTART + 9, RLENGTH - 9); if (t0 != "" && th != t0) bad = bad " two threads"; t0 = th
		if (!match($0, /"time_ns":[0-9]+/)) { bad = bad " no time:" $0; next }
		ns = substr($0, RSTART + 10, RLENGTH - 10) + 0; if (ns < last) bad = bad " time goes back at " $0; last = ns }
	END { print bad }' >"$TMPDIR/bad"
[ -z "$(cat "$TMPDIR/bad")" ] && ok "  ... on the replaying thread, in time order with its events" || notok "  ...$(cat "$TMPDIR/bad")"
expect_exit 0 "perfetto, host axis" -- "$GMPROF" perfetto --time host -o "$TMPDIR/c.json" "$TMPDIR/c.gmprof"
n=$(grep -c '"ph":"i","name":"[^"]*","pid":[0-9]*,"tid":[0-9]*,"ts":[0-9.]*,"s":"t","cat":"nvtx_mark"' "$TMPDIR/c.json")
[ "$n" -eq 5 ] && ok "  ... the 5 marks as instants on a thread's track" || notok "  ... $n instants: $(grep '"ph":"i"' "$TMPDIR/c.json")"
tid=$(sed -n 's/.*"ph":"i","name":"epoch 2","pid":[0-9]*,"tid":\([0-9]*\).*/\1/p' "$TMPDIR/c.json")
grep -q "\"ph\":\"X\",\"name\":\"step\",\"pid\":[0-9]*,\"tid\":$tid," "$TMPDIR/c.json" &&
	ok "  ... on the track of the thread's ranges" || notok "  ... epoch 2 on thread $tid, the step range elsewhere"
"$TC" "$TMPDIR/c.json" >"$TMPDIR/tc" 2>&1 && ok "  ... a valid trace" || notok "  ... $(cat "$TMPDIR/tc")"
expect_exit 0 "perfetto, topological axis" -- "$GMPROF" perfetto -o "$TMPDIR/t.json" "$TMPDIR/c.gmprof"
! grep -q '"cat":"nvtx_mark"' "$TMPDIR/t.json" && ok "  ... no marks: its levels follow no thread's clock" || notok "  ... marks on the topological axis"
# Marks without ranges: a process of their own, the thread's track named.
grep -v '"op":"range_p' "$TMPDIR/m.jsonl" >"$TMPDIR/n.jsonl"
rm -f "$TMPDIR/n.gmprof"
env GMPROF_OUTPUT="$TMPDIR/n.gmprof" "$FAKE" "$TMPDIR/n.jsonl" 2>/dev/null
"$GMPROF" perfetto --time host -o "$TMPDIR/n.json" "$TMPDIR/n.gmprof" 2>"$TMPDIR/err"
grep -q '"name":"process_name","pid":[0-9]*,"args":{"name":"host: NVTX marks"}' "$TMPDIR/n.json" &&
	grep -q '"ph":"M","name":"thread_name","pid":[0-9]*,"tid":[0-9]*,"args":{"name":"fake_app (thread [0-9]*)"}' "$TMPDIR/n.json" &&
	[ "$(grep -c '"cat":"nvtx_mark"' "$TMPDIR/n.json")" -eq 5 ] && "$TC" "$TMPDIR/n.json" >/dev/null 2>&1 &&
	ok "marks without ranges: their own process, the thread named" ||
	notok "marks without ranges: $(cat "$TMPDIR/err") $(grep -E 'process_name|thread_name|nvtx_mark' "$TMPDIR/n.json")"
# From 2 threads: each thread's marks, on its own track.
rm -f "$TMPDIR/2.gmprof"
expect_exit 0 "two threads marking" -- env GMPROF_OUTPUT="$TMPDIR/2.gmprof" "$FAKE" --threads 2 "$TMPDIR/m.jsonl"
"$GMPROF" dump "$TMPDIR/2.gmprof" 2>/dev/null | grep '"op":"mark"' | sed 's/.*"thread":\([0-9]*\).*/\1/' | sort | uniq -c |
	awk '{ print $1 }' | tr '\n' ' ' >"$TMPDIR/per"
[ "$(cat "$TMPDIR/per")" = "5 5 " ] && ok "  ... 5 marks from each thread" || notok "  ... per thread: $(cat "$TMPDIR/per")"
# Not NVTX's tool: no marks.
rm -f "$TMPDIR/x.gmprof"
expect_exit 0 "without NVTX's tool" -- env -u NVTX_INJECTION64_PATH GMPROF_OUTPUT="$TMPDIR/x.gmprof" "$FAKE" "$TMPDIR/n.jsonl"
[ -z "$(marks "$TMPDIR/x.gmprof")" ] && ok "  ... no marks" || notok "  ... $(marks "$TMPDIR/x.gmprof")"
finish
