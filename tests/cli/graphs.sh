# SPDX-License-Identifier: MIT
# CUDA graphs, through the Sanitizer test double (GMP_DOUBLE_GRAPH=1,
# tests/double/double_graph.h): the same work launched as graphs' nodes,
# which the driver runs on streams of its own while the program waits for
# the stream it launched the graph into, must be recorded as the same
# calls on that stream.  Every test script, one of stream-ordered
# allocations and frees (memory nodes) on two streams, and the event models
# of the GPU tests of graphs (tests/gpu/graphs.cu, graph_capture.cu) give the same
# findings as the script and the same events as the work delivered as
# plain calls; a graph's upload runs nothing, and no copy node blocks.
# Not yet seen on a GPU (docs/sanitizer-api.md): make gpu-check runs those two.
. tests/cli/lib.sh
B=${BUILD:-build}/test
FAKE=$B/double/fake_app
use_double "$PWD/$B"
strip_script() { sed -E '/"op":"pools"/d; /"kind":"pool_region"/!s/,"label":"[^"]*"//; s/,"at":"[^"]*"//' "$1"; }
# A profile's events as a script, without what differs from run to run.
# A graph launch's number on its kernel nodes' events (detector/graphs.c) is left out too.
# Pool states are the driver's, not calls: a graph's memory nodes draw from its own pool, not asked about.
events_of() { "$GMPROF" dump "$1" | grep -v '"op":"\(meta\|pools\)"' | sed -E 's/,"thread":[0-9]+//; s/,"time_ns":[0-9]+//; s/,"returned_ns":[0-9]+//; s/,"graph":[0-9]+//'; }

cat >"$TMPDIR/memnodes.jsonl" <<'J'
# Stream-ordered allocations and frees on two streams (cudaGraphAddMemAllocNode
# and MemFreeNode, or cudaMallocAsync captured), with a set, copies, kernels
# and an event between the streams.
{"op":"alloc","addr":"0x100000","size":65536,"kind":"async","stream":1}
{"op":"alloc","addr":"0x200000","size":65536,"kind":"async","stream":1}
{"op":"memset","addr":"0x100000","size":65536,"stream":1}
{"op":"kernel","name":"produce","read":["0x100000"],"write":["0x200000"],"stream":1}
{"op":"free","addr":"0x100000","stream":1}
{"op":"event_record","event":1,"stream":1}
{"op":"event_wait","event":1,"stream":2}
{"op":"alloc","addr":"0x300000","size":131072,"kind":"async","stream":2}
{"op":"kernel","name":"consume","read":["0x200000"],"write":["0x300000"],"stream":2}
{"op":"memcpy","src":"0x300000","size":131072,"stream":2}
{"op":"alloc","addr":"0x400000","size":4096,"kind":"async","stream":2}
{"op":"free","addr":"0x300000","stream":2}
{"op":"sync","stream":2}
{"op":"kernel","name":"late","read":["0x200000"],"stream":1}
{"op":"sync"}
{"op":"free","addr":"0x200000"}
{"op":"end"}
J
for s in tests/scripts/*.jsonl "$TMPDIR/memnodes.jsonl" tests/gpu/graphs.jsonl tests/gpu/graph_capture.jsonl \
	tests/gpu/graph_loop.jsonl tests/gpu/graph_repeat.jsonl; do
	name=$(basename "$s" .jsonl)
	mode=object
	grep -q '"touch"' "$s" && mode=intra
	strip_script "$s" >"$TMPDIR/$name.plain.jsonl"
	"$GMPROF" replay --format json --pretty "$TMPDIR/$name.plain.jsonl" | grep -v '"at": ' >"$TMPDIR/want.json"
	rm -f "$TMPDIR/$name.calls.gmprof" "$TMPDIR/$name.graph.gmprof"
	env GMPROF_MODE=$mode GMPROF_OUTPUT="$TMPDIR/$name.calls.gmprof" "$FAKE" "$s" 2>/dev/null
	expect_exit 0 "$name as graphs ($mode mode)" -- env GMP_DOUBLE_GRAPH=1 GMPROF_GRAPH_NODE_DATA=launch GMPROF_MODE=$mode \
		GMPROF_OUTPUT="$TMPDIR/$name.graph.gmprof" "$FAKE" "$s"
	"$GMPROF" replay --format json --pretty "$TMPDIR/$name.graph.gmprof" 2>"$TMPDIR/err" | grep -v '"at": ' >"$TMPDIR/got.json"
	diff -u "$TMPDIR/want.json" "$TMPDIR/got.json" >"$TMPDIR/diff" &&
		ok "  ... the script's findings" || { notok "  ... the script's findings"; head -30 "$TMPDIR/diff"; }
	events_of "$TMPDIR/$name.calls.gmprof" >"$TMPDIR/calls.events"
	events_of "$TMPDIR/$name.graph.gmprof" >"$TMPDIR/graph.events"
	diff -u "$TMPDIR/calls.events" "$TMPDIR/graph.events" >"$TMPDIR/diff" &&
		ok "  ... the events of the same work as calls" || { notok "  ... the events of the same work as calls"; head -30 "$TMPDIR/diff"; }
	# Kernel nodes given their buffers per function, the default (the double aborts if one is
	# left set for a later launch outside a graph): the same findings.
	rm -f "$TMPDIR/$name.fn.gmprof"
	env GMP_DOUBLE_GRAPH=1 GMPROF_MODE=$mode GMP_DOUBLE_PATCHES=1 \
		GMPROF_OUTPUT="$TMPDIR/$name.fn.gmprof" "$FAKE" "$s" 2>"$TMPDIR/err" &&
		[ "$(grep -c 'callback data of function .* set$' "$TMPDIR/err")" -ge 1 ] &&
		[ "$(grep -c 'callback data of function .* taken back$' "$TMPDIR/err")" -ge 1 ] &&
		"$GMPROF" replay --format json --pretty "$TMPDIR/$name.fn.gmprof" 2>/dev/null | grep -v '"at": ' |
		diff -u "$TMPDIR/want.json" - >"$TMPDIR/diff" &&
		ok "  ... per function (the default): set per function, taken back after, the same findings" ||
		{ notok "  ... per function (the default)"; head -30 "$TMPDIR/err" "$TMPDIR/diff"; }
done
# Graph launches of two or more kernel nodes, given their buffers per launch
# (GMPROF_GRAPH_NODE_DATA=launch): the profile counts
# them (graph_capture's two launches of fill and add), and every report cautions on their
# accesses (on an H100 such nodes' accesses mixed); per function, or as plain calls, no caution.
"$GMPROF" report "$TMPDIR/graph_capture.graph.gmprof" >"$TMPDIR/gc.txt" 2>&1
"$GMPROF" html -o "$TMPDIR/gc.html" "$TMPDIR/graph_capture.graph.gmprof" 2>/dev/null
"$GMPROF" report --format markdown "$TMPDIR/graph_capture.graph.gmprof" >"$TMPDIR/gc.md" 2>/dev/null
grep -q '^  graphs   2 graph launches ran two or more kernel nodes, each given its buffer per launch; every one of them reported accesses of its own, taken as reported' "$TMPDIR/gc.txt" &&
	grep -q '<dt>graphs</dt><dd>2 graph launches ran two or more kernel nodes' "$TMPDIR/gc.html" &&
	grep -q '^| graphs | 2 graph launches ran two or more kernel nodes' "$TMPDIR/gc.md" &&
	ok "graph launches of several kernel nodes: counted, and each report says so" ||
	notok "graphs caution: $(grep -i graphs "$TMPDIR/gc.txt" "$TMPDIR/gc.md"; "$GMPROF" dump "$TMPDIR/graph_capture.graph.gmprof" | grep graph_shared)"
# Each kernel node's event carries its graph launch's number: graph_capture's two launches of fill and add.
[ "$("$GMPROF" dump "$TMPDIR/graph_capture.graph.gmprof" | sed -n 's/.*"op":"kernel".*"graph":\([0-9]*\).*/\1/p' | tr '\n' ' ')" = "1 1 2 2 " ] &&
	[ "$("$GMPROF" dump "$TMPDIR/graph_capture.calls.gmprof" | grep -c '"graph":')" = 0 ] &&
	ok "kernel nodes numbered by their graph launch (1 1 2 2), plain launches not" ||
	notok "graph numbers: $("$GMPROF" dump "$TMPDIR/graph_capture.graph.gmprof" | grep '"op":"kernel"')"

# Kernel nodes given their buffers per launch (GMPROF_GRAPH_NODE_DATA=launch), whose
# accesses mix, as on an H100 and an H200 (GMP_DOUBLE_GRAPH_MIX=1: the nodes of a
# graph launch all begin, then all run into the callback data set last, then all end):
# graph_capture's fill reports nothing and add both kernels' accesses.  The detector merges
# each such launch (every kernel node makes every access of any), which gives the findings
# of tests/gpu/graph_capture.merged (make gpu-check accepts them for such a run), and every
# report says so.
rm -f "$TMPDIR/mix.gmprof"
expect_exit 0 "graph_capture, kernel nodes' accesses mixed" -- env GMP_DOUBLE_GRAPH=1 GMP_DOUBLE_GRAPH_MIX=1 GMPROF_GRAPH_NODE_DATA=launch \
	GMPROF_OUTPUT="$TMPDIR/mix.gmprof" "$FAKE" tests/gpu/graph_capture.jsonl
"$GMPROF" dump "$TMPDIR/mix.gmprof" | grep '"op":"kernel"' | sed -E 's/,"thread":[0-9]+,"time_ns":[0-9]+//' >"$TMPDIR/mix.k"
cat >"$TMPDIR/mix.want" <<'J'
{"op":"kernel","name":"fill","graph":1,"stream":1}
{"op":"kernel","name":"add","graph":1,"read":["0x20000000"],"write":["0x10000000","0x20000000"],"stream":1}
{"op":"kernel","name":"fill","graph":2,"stream":1}
{"op":"kernel","name":"add","graph":2,"read":["0x20000000"],"write":["0x10000000","0x20000000"],"stream":1}
J
diff -u "$TMPDIR/mix.want" "$TMPDIR/mix.k" >"$TMPDIR/diff" && ok "  ... fill reported nothing, add both" ||
	{ notok "  ... the kernels' accesses"; cat "$TMPDIR/diff"; }
G=$GMPROF OUT_DIR=$TMPDIR
. tests/gpu/expect.sh
check mix "$TMPDIR/mix.gmprof" tests/gpu/graph_capture.merged && ok "  ... merged: the findings of graph_capture.merged" ||
	{ notok "  ... merged findings"; cat "$TMPDIR/mix.diff"; }
! check mix.exact "$TMPDIR/mix.gmprof" tests/gpu/graph_capture.expect &&
	ok "  ... which are not graph_capture.expect's (the early allocation of the buffer fill writes is missed)" ||
	notok "  ... the merged findings are the exact ones: the test shows nothing"
"$GMPROF" report "$TMPDIR/mix.gmprof" >"$TMPDIR/mix.txt" 2>&1
"$GMPROF" report --format json "$TMPDIR/mix.gmprof" >"$TMPDIR/mix.json" 2>&1
grep -q "^  graphs   2 graph launches had a kernel node that reported no access while another reported some (on an H100 kernel nodes launched together reported into one node's buffer): each kernel node of such a launch counts as making every access any of them made" "$TMPDIR/mix.txt" &&
	grep -q '"graph_launches_merged": *2' "$TMPDIR/mix.json" && grep -q '"graph_shared_launches": *2' "$TMPDIR/mix.json" &&
	"$GMPROF" perfetto -o "$TMPDIR/mix.trace.json" "$TMPDIR/mix.gmprof" 2>/dev/null &&
	[ "$(grep -o '"name":"fill"[^}]*"args":{[^}]*"graph":[0-9]*' "$TMPDIR/mix.trace.json" | sed 's/.*"graph"://' | tr '\n' ' ')" = "1 2 " ] &&
	ok "  ... the report and its JSON say which launches were merged; the trace gives each kernel node its launch" ||
	notok "  ... merged launches: $(grep graphs "$TMPDIR/mix.txt"; grep graph_ "$TMPDIR/mix.json")"
# gmprof check says so, in a check that never fails (its log, JUnit and Markdown); not for
# launches taken as reported.
"$GMPROF" check --fail-on early_allocation --junit "$TMPDIR/mix.xml" "$TMPDIR/mix.gmprof" >"$TMPDIR/check.log" 2>&1
grep -q "^PASS graphs: 2 graph launches had a kernel node that reported no access" "$TMPDIR/check.log" &&
	grep -q '^PASS pattern:early_allocation: 0 findings' "$TMPDIR/check.log" && grep -q 'name="graphs"' "$TMPDIR/mix.xml" &&
	! "$GMPROF" check --fail-on early_allocation "$TMPDIR/graph_capture.graph.gmprof" 2>&1 | grep -q '^PASS graphs' &&
	ok "  ... gmprof check says which launches were merged (the early allocation is not found then)" ||
	notok "  ... check: $(cat "$TMPDIR/check.log")"
# The default, per function: the same kernel nodes kept apart (as on an H200,
# 2026-11-30, where per launch they mixed): graph_capture.expect's findings, no caution.
rm -f "$TMPDIR/mixfn.gmprof"
env GMP_DOUBLE_GRAPH=1 GMP_DOUBLE_GRAPH_MIX=1 GMPROF_OUTPUT="$TMPDIR/mixfn.gmprof" "$FAKE" tests/gpu/graph_capture.jsonl 2>/dev/null
check mixfn "$TMPDIR/mixfn.gmprof" tests/gpu/graph_capture.expect &&
	! "$GMPROF" report "$TMPDIR/mixfn.gmprof" 2>&1 | grep -q '^  graphs ' &&
	ok "  ... per function, the default: the nodes kept apart, graph_capture.expect's findings, no caution" ||
	{ notok "  ... per function, the default"; cat "$TMPDIR/mixfn.diff"; "$GMPROF" report "$TMPDIR/mixfn.gmprof" 2>&1 | grep graphs; }
# A kernel that runs as two nodes of one graph launch, per function (the
# default): its nodes share its buffer, so the first reports nothing (the
# double runs the launch's nodes after all have begun, GMP_DOUBLE_GRAPH_MIX=1,
# each into its function's data set last).  The profile says the buffers
# were per function (META graph_node_data), and the detector merges only
# that kernel's nodes: g keeps its own write of C, so B (written by f) may
# reuse C's memory, and C's last use is g.  Per launch every node of the
# launch is merged, and neither is found.
cat >"$TMPDIR/twice.jsonl" <<'J'
{"op":"alloc","addr":"0x100000","size":1048576}
{"op":"alloc","addr":"0x200000","size":1048576}
{"op":"alloc","addr":"0x300000","size":1048576}
{"op":"kernel","name":"g","write":["0x300000"],"stream":1}
{"op":"kernel","name":"f","read":["0x100000"],"stream":1}
{"op":"kernel","name":"f","write":["0x200000"],"stream":1}
{"op":"sync","stream":1}
{"op":"kernel","name":"h","read":["0x200000"]}
{"op":"kernel","name":"h","read":["0x200000"]}
{"op":"free","addr":"0x300000"}
{"op":"free","addr":"0x100000"}
{"op":"free","addr":"0x200000"}
{"op":"end"}
J
for data in function launch; do
	rm -f "$TMPDIR/twice.$data.gmprof"
	env GMP_DOUBLE_GRAPH=1 GMP_DOUBLE_GRAPH_MIX=1 GMPROF_GRAPH_NODE_DATA=$data GMPROF_OUTPUT="$TMPDIR/twice.$data.gmprof" \
		"$FAKE" "$TMPDIR/twice.jsonl" 2>/dev/null
	"$GMPROF" replay "$TMPDIR/twice.$data.gmprof" >"$TMPDIR/twice.$data.txt" 2>/dev/null
	"$GMPROF" report "$TMPDIR/twice.$data.gmprof" >"$TMPDIR/twice.$data.rep" 2>/dev/null
done
"$GMPROF" dump "$TMPDIR/twice.function.gmprof" | grep -q '"key":"graph_node_data","value":"function"' &&
	! "$GMPROF" dump "$TMPDIR/twice.launch.gmprof" | grep -q 'graph_node_data' &&
	grep -q '^  [0-9]*\. redundant_allocation: obj#2 ' "$TMPDIR/twice.function.txt" &&
	grep -A1 'late_deallocation: obj#3' "$TMPDIR/twice.function.txt" | grep -q 'KERNEL g (stream 1, #1) -> FREE' &&
	ok "a kernel twice in a launch, per function: only its nodes merged, the other kernel's accesses kept" ||
	{ notok "a kernel twice in a launch, per function"; cat "$TMPDIR/twice.function.txt"; }
! grep -q 'redundant_allocation' "$TMPDIR/twice.launch.txt" &&
	grep -A1 'late_deallocation: obj#3' "$TMPDIR/twice.launch.txt" | grep -q 'KERNEL f (stream 1, #3) -> FREE' &&
	ok "  ... per launch: the whole launch merged, g's write of C made by f too" ||
	{ notok "  ... per launch"; cat "$TMPDIR/twice.launch.txt"; }
grep -q "^  graphs   2 graph launches had a kernel node that reported no access while another reported some (the nodes of one kernel share its buffer): such a node counts as making every access its kernel's other nodes made" "$TMPDIR/twice.function.rep" &&
	grep -q "^  graphs   2 graph launches had a kernel node that reported no access while another reported some (on an H100" "$TMPDIR/twice.launch.rep" &&
	ok "  ... each report's graphs line says which way it merged" ||
	notok "  ... graphs lines: $(grep graphs "$TMPDIR/twice.function.rep" "$TMPDIR/twice.launch.rep")"

# tests/gpu/graph_repeat.cu, the same on a GPU: its kernel pass runs as two
# nodes of the graph.  Mixed as above, per function its findings are still
# graph_repeat.expect's (the nodes of pass merged, fill's write of c kept);
# per launch the redundant allocation and the idleness are lost.
for data in function launch; do
	rm -f "$TMPDIR/repeat.$data.gmprof"
	env GMP_DOUBLE_GRAPH=1 GMP_DOUBLE_GRAPH_MIX=1 GMPROF_GRAPH_NODE_DATA=$data GMPROF_OUTPUT="$TMPDIR/repeat.$data.gmprof" \
		"$FAKE" tests/gpu/graph_repeat.jsonl 2>/dev/null
done
check repeat "$TMPDIR/repeat.function.gmprof" tests/gpu/graph_repeat.expect &&
	[ "$("$GMPROF" dump "$TMPDIR/repeat.function.gmprof" | grep -c '"name":"pass","graph":1,"stream":1,')" = 1 ] &&
	! check repeat.launch "$TMPDIR/repeat.launch.gmprof" tests/gpu/graph_repeat.expect &&
	ok "graph_repeat mixed: per function its expected findings, per launch not" ||
	{ notok "graph_repeat mixed"; cat "$TMPDIR/repeat.diff"; "$GMPROF" dump "$TMPDIR/repeat.function.gmprof" | grep kernel; }

# Per function, a kernel none of whose nodes reported an access, beside one
# that did: its nodes share the whole launch's accesses (C's last use is
# then the second f, not g).
cat >"$TMPDIR/allempty.jsonl" <<'J'
{"op":"meta","key":"graph_node_data","value":"function"}
{"op":"alloc","addr":"0x300000","size":1048576}
{"op":"kernel","name":"g","graph":1,"write":["0x300000"]}
{"op":"kernel","name":"f","graph":1}
{"op":"kernel","name":"f","graph":1}
{"op":"kernel","name":"k"}
{"op":"kernel","name":"k"}
{"op":"free","addr":"0x300000"}
{"op":"end"}
J
"$GMPROF" replay "$TMPDIR/allempty.jsonl" 2>/dev/null | grep -A1 'late_deallocation: obj#1' | grep -q 'KERNEL f (stream 0, #3) -> FREE' &&
	ok "  ... a kernel whose nodes all reported nothing shares its launch's accesses" ||
	notok "  ... a kernel whose nodes all reported nothing: $("$GMPROF" replay "$TMPDIR/allempty.jsonl" 2>&1)"

# The collector ends each kernel node's launch at its own END (BEGIN, BEGIN, END, END), and
# collects it at a sync of the stream the graph was launched into: the device memory it holds
# does not grow with the graph launches of a loop.
loop() { echo '{"op":"alloc","addr":"0x10000000","size":1048576}'; echo '{"op":"alloc","addr":"0x20000000","size":1048576}'
	i=0; while [ $i -lt "$1" ]; do i=$((i + 1))
		echo '{"op":"kernel","name":"k1","write":["0x10000000"],"stream":1}'
		echo '{"op":"kernel","name":"k2","read":["0x10000000"],"write":["0x20000000"],"stream":1}'
		echo '{"op":"sync","stream":1}'; done
	echo '{"op":"free","addr":"0x10000000"}'; echo '{"op":"free","addr":"0x20000000"}'; }
held_by() { "$GMPROF" dump "$1" | sed -n 's/.*"key":"collector_device_peak","value":"\([0-9]*\)".*/\1/p'; }
for n in 2 40; do
	loop $n >"$TMPDIR/loop$n.jsonl"
	rm -f "$TMPDIR/loop$n.gmprof"
	env GMP_DOUBLE_GRAPH=1 GMP_DOUBLE_GRAPH_MIX=1 GMPROF_GRAPH_NODE_DATA=launch GMPROF_OUTPUT="$TMPDIR/loop$n.gmprof" \
		"$FAKE" "$TMPDIR/loop$n.jsonl" 2>/dev/null
done
[ -n "$(held_by "$TMPDIR/loop2.gmprof")" ] && [ "$(held_by "$TMPDIR/loop2.gmprof")" = "$(held_by "$TMPDIR/loop40.gmprof")" ] &&
	ok "  ... 40 graph launches hold no more device memory than 2" ||
	notok "  ... device memory held: $(held_by "$TMPDIR/loop2.gmprof") for 2 launches, $(held_by "$TMPDIR/loop40.gmprof") for 40"

# Kernels that run later than their callbacks, into the data set last (GMP_DOUBLE_GRAPH_MIX=2: a
# kernel runs only when the program waits for it): two graph launches with a plain allocation
# between them, then a sync. The first launch's nodes report nothing (their accesses went into the
# second's last buffer): counted unknown; the second is merged. Every finding is one the same
# work reports unmixed (none made up here), the early allocation of the output is not (missed).
cat >"$TMPDIR/x2.jsonl" <<'J'
{"op":"alloc","addr":"0x10000000","size":1048576}
{"op":"alloc","addr":"0x20000000","size":1048576}
{"op":"kernel","name":"fill","write":["0x20000000"],"stream":1}
{"op":"kernel","name":"add","read":["0x20000000"],"write":["0x10000000"],"stream":1}
{"op":"alloc","addr":"0x30000000","size":1048576}
{"op":"kernel","name":"fill","write":["0x20000000"],"stream":1}
{"op":"kernel","name":"add","read":["0x20000000"],"write":["0x10000000"],"stream":1}
{"op":"sync","stream":1}
{"op":"memcpy","src":"0x10000000","size":1048576}
{"op":"free","addr":"0x30000000"}
{"op":"free","addr":"0x20000000"}
{"op":"free","addr":"0x10000000"}
{"op":"end"}
J
for m in 0 2; do
	rm -f "$TMPDIR/x2.$m.gmprof"
	env GMP_DOUBLE_GRAPH=1 GMP_DOUBLE_GRAPH_MIX=$m GMPROF_GRAPH_NODE_DATA=launch GMPROF_OUTPUT="$TMPDIR/x2.$m.gmprof" \
		"$FAKE" "$TMPDIR/x2.jsonl" 2>/dev/null
	findings "$TMPDIR/x2.$m.gmprof" >"$TMPDIR/x2.$m.f"
done
"$GMPROF" dump "$TMPDIR/x2.2.gmprof" | grep '"op":"kernel"' | sed -E 's/,"thread":[0-9]+,"time_ns":[0-9]+//' >"$TMPDIR/x2.k"
"$GMPROF" report "$TMPDIR/x2.2.gmprof" >"$TMPDIR/x2.txt" 2>&1
[ "$(grep -c '"graph":1,"stream":1}$' "$TMPDIR/x2.k")" = 2 ] &&
	grep -q '"graph":2,"read":\["0x20000000"\],"write":\["0x10000000","0x20000000"\]' "$TMPDIR/x2.k" &&
	grep -q "^  graphs   1 graph launch had a kernel node that reported no access while another reported some.*; 1 graph launch reported no access at all" "$TMPDIR/x2.txt" &&
	[ -s "$TMPDIR/x2.2.f" ] && [ -z "$(comm -23 "$TMPDIR/x2.2.f" "$TMPDIR/x2.0.f")" ] &&
	grep -q "early_allocation obj#1" "$TMPDIR/x2.0.f" && ! grep -q "early_allocation obj#1" "$TMPDIR/x2.2.f" &&
	ok "kernels run after a later launch set its data: that launch merged, the first's nodes unknown; no finding made up" ||
	notok "late kernels: $(cat "$TMPDIR/x2.k" "$TMPDIR/x2.0.f" "$TMPDIR/x2.2.f"; grep graphs "$TMPDIR/x2.txt")"

# The detector's rule, on scripts: a launch whose every node reported accesses of its own is
# taken as reported; another node's access to an object not live at a node counts for none.
cat >"$TMPDIR/own.jsonl" <<'J'
{"op":"alloc","addr":"0x1000","size":4096}
{"op":"alloc","addr":"0x3000","size":4096}
{"op":"kernel","name":"a","graph":1,"write":["0x1000"]}
{"op":"kernel","name":"b","graph":1,"read":["0x1000"]}
{"op":"alloc","addr":"0x5000","size":4096}
{"op":"kernel","name":"c","graph":1,"write":["0x3000"]}
{"op":"kernel","name":"d","graph":2,"write":["0x3000"]}
{"op":"kernel","name":"e","graph":2}
{"op":"kernel","name":"f","graph":3,"write":["0x5000"]}
{"op":"free","addr":"0x5000"}
{"op":"kernel","name":"g","graph":3}
{"op":"free","addr":"0x1000"}
{"op":"free","addr":"0x3000"}
{"op":"end"}
J
# same_findings SCRIPT WANT: the two scripts' findings documents are the same (SCRIPT's in
# $TMPDIR/got.json, the differences in $TMPDIR/diff).
same_findings() {
	"$GMPROF" replay --format json "$1" >"$TMPDIR/got.json" 2>"$TMPDIR/err" &&
		"$GMPROF" replay --format json "$2" >"$TMPDIR/want.json" &&
		diff -u "$TMPDIR/want.json" "$TMPDIR/got.json" >"$TMPDIR/diff"
}
# What the merge makes of it: e writes what d does; g nothing (f's object is freed before it).
sed -E 's/,"graph":[0-9]+//; s/"name":"e"/"name":"e","write":["0x3000"]/' "$TMPDIR/own.jsonl" >"$TMPDIR/want.jsonl"
same_findings "$TMPDIR/own.jsonl" "$TMPDIR/want.jsonl" && grep -q late_deallocation "$TMPDIR/got.json" &&
	ok "detector: a launch with an empty node merged, its nodes' accesses on the objects live at each" ||
	{ notok "detector: merged findings"; cat "$TMPDIR/err" "$TMPDIR/diff"; }
"$GMPROF" report --format json "$TMPDIR/own.jsonl" 2>/dev/null | grep -q '"graph_launches_merged": *2' &&
	ok "  ... two of three graph launches merged; the third, whose nodes each reported accesses, as reported" ||
	notok "  ... merged launches: $("$GMPROF" report --format json "$TMPDIR/own.jsonl" 2>&1 | grep graph_)"
"$GMPROF" dump "$TMPDIR/own.jsonl" | grep -c '"graph":' | grep -qx 7 &&
	"$GMPROF" convert -o "$TMPDIR/own.gmprof" "$TMPDIR/own.jsonl" &&
	"$GMPROF" dump "$TMPDIR/own.gmprof" | grep '"op":"kernel"' | sed -E 's/,"thread":[0-9]+//' >"$TMPDIR/own.k" &&
	[ "$(sed -n 's/.*"graph":\([0-9]*\).*/\1/p' "$TMPDIR/own.k" | tr '\n' ' ')" = "1 1 1 2 2 3 3 " ] &&
	ok "  ... a kernel's graph launch: read from a script, written to a profile and back" ||
	notok "  ... graph numbers round trip: $(cat "$TMPDIR/own.k")"
# A graph launch none of whose kernel nodes reported an access reported them elsewhere (a later
# launch may replace its nodes' buffers before its kernels run): its nodes are launches whose
# accesses are unknown, as if not monitored; the reports say so, and gmprof check.
cat >"$TMPDIR/lost.jsonl" <<'J'
{"op":"alloc","addr":"0x1000","size":4096}
{"op":"alloc","addr":"0x3000","size":4096}
{"op":"kernel","name":"k1","graph":1,"stream":1}
{"op":"kernel","name":"k2","graph":1,"stream":1}
{"op":"kernel","name":"k3","graph":2,"write":["0x3000"],"stream":1}
{"op":"sync"}
{"op":"free","addr":"0x1000"}
{"op":"free","addr":"0x3000"}
{"op":"end"}
J
sed -E 's/"graph":1,/"monitored":false,/; s/,"graph":[0-9]+//' "$TMPDIR/lost.jsonl" >"$TMPDIR/lostwant.jsonl"
same_findings "$TMPDIR/lost.jsonl" "$TMPDIR/lostwant.jsonl" && ! grep -q unused_allocation "$TMPDIR/got.json" &&
	ok "detector: a graph launch that reported no access at all: its nodes' accesses unknown (not monitored)" ||
	{ notok "detector: an empty graph launch"; cat "$TMPDIR/err" "$TMPDIR/diff"; }
"$GMPROF" report "$TMPDIR/lost.jsonl" 2>&1 | grep -q "^  graphs   1 graph launch reported no access at all: its kernel nodes count as a use of every object live" &&
	"$GMPROF" report --format json "$TMPDIR/lost.jsonl" | grep -q '"graph_launches_unknown": *1' &&
	"$GMPROF" check "$TMPDIR/lost.jsonl" | grep -q '^PASS graphs: 1 graph launch reported no access at all' &&
	ok "  ... the report, its JSON and gmprof check say so" ||
	notok "  ... said: $("$GMPROF" report "$TMPDIR/lost.jsonl" 2>&1 | grep graphs)"
echo '{"op":"kernel","name":"k","graph":0}' >"$TMPDIR/zero.jsonl"
expect_exit 2 "  ... a graph launch numbered 0 is refused" -- "$GMPROF" replay "$TMPDIR/zero.jsonl"
expect_stderr_line "zero.jsonl:1: field 'graph' numbers a graph launch from 1" "  ... in one line naming the field"

! "$GMPROF" report "$TMPDIR/graph_capture.fn.gmprof" 2>&1 | grep -q '^  graphs ' &&
	! "$GMPROF" report "$TMPDIR/graph_capture.calls.gmprof" 2>&1 | grep -q '^  graphs ' &&
	ok "  ... none with GMPROF_GRAPH_NODE_DATA=function, nor for the same work as calls" ||
	notok "  ... a caution where none is due"
# The memory nodes' profile, read directly: its streams are the program's
# two, and its allocations are stream-ordered ones on them.
events_of "$TMPDIR/memnodes.graph.gmprof" >"$TMPDIR/m.events"
[ "$(grep -o '"stream":[0-9]*' "$TMPDIR/m.events" | sort -u | tr '\n' ' ')" = '"stream":1 "stream":2 ' ] &&
	ok "memory nodes: no stream but the two the program made" || notok "memory nodes: streams: $(grep -o '"stream":[0-9]*' "$TMPDIR/m.events" | sort | uniq -c | tr '\n' ' ')"
[ "$(grep -c '"op":"alloc".*"kind":"async"' "$TMPDIR/m.events")" = 4 ] &&
	ok "memory nodes: four stream-ordered allocations" || notok "memory nodes: allocations: $(grep '"op":"alloc"' "$TMPDIR/m.events")"
# A merged launch whose only work is a node's in-kernel malloc(): the union of its
# accesses is empty (found by make fuzz: the detector used an unallocated array).
printf '%s\n' '{"op":"kernel","name":"a","graph":1,"stream":1}' \
	'{"op":"alloc","addr":"0x7f0010000","size":16384,"kind":"device_heap","stream":1}' \
	'{"op":"kernel","name":"b","graph":1,"stream":1}' '{"op":"sync"}' >"$TMPDIR/heaponly.jsonl"
expect_exit 0 "a graph launch whose only work is in-kernel malloc()" -- "$GMPROF" report "$TMPDIR/heaponly.jsonl"
[ ! -s "$TMPDIR/err" ] && grep -q '^  graphs  *1 graph launch had a kernel node that reported no access' "$TMPDIR/out" &&
	ok "  merged, an empty union, nothing said on stderr" || notok "  heap-only launch: $err $(grep graphs "$TMPDIR/out")"
# What gpu-check prints of a program whose findings differ: each graph
# callback with the streams its data names, and the calls that make,
# capture or launch a graph.
env GMP_DOUBLE_GRAPH=1 GMPROF_LOG_CALLBACKS=1 GMPROF_OUTPUT="$TMPDIR/log.gmprof" "$FAKE" "$TMPDIR/memnodes.jsonl" 2>"$TMPDIR/log"
grep -q '^gmprof: callback 10/6 in cudaGraphLaunch graph stream 0x[0-9a-f]* upload 0$' "$TMPDIR/log" &&
	grep -q '^gmprof: callback 10/4 in cudaGraphLaunch node type 10 upload 0 address 0x100000 size 65536 stream 0x' "$TMPDIR/log" &&
	grep -q '^gmprof: callback 10/4 in cudaGraphLaunch node type 0 upload 0 stream 0x[0-9a-f]* api stream 0x[0-9a-f]* launch 0x[0-9a-f]* function 0x' "$TMPDIR/log" &&
	grep -q '^gmprof: api cudaGraphLaunch$' "$TMPDIR/log" &&
	ok "GMPROF_LOG_CALLBACKS=1: graph launches and nodes with their streams (a kernel node's launch handle too)" || notok "logged: $(grep 'callback 10/' "$TMPDIR/log" | head -5)"
finish
