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
strip_script() { sed -E '/"kind":"pool_region"/!s/,"label":"[^"]*"//; s/,"at":"[^"]*"//' "$1"; }
# A profile's events as a script, without what differs from run to run.
events_of() { "$GMPROF" dump "$1" | grep -v '"op":"meta"' | sed -E 's/,"thread":[0-9]+//; s/,"time_ns":[0-9]+//'; }

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
for s in tests/scripts/*.jsonl "$TMPDIR/memnodes.jsonl" tests/gpu/graphs.jsonl tests/gpu/graph_capture.jsonl; do
	name=$(basename "$s" .jsonl)
	mode=object
	grep -q '"touch"' "$s" && mode=intra
	strip_script "$s" >"$TMPDIR/$name.plain.jsonl"
	"$GMPROF" replay --format json --pretty "$TMPDIR/$name.plain.jsonl" | grep -v '"at": ' >"$TMPDIR/want.json"
	rm -f "$TMPDIR/$name.calls.gmprof" "$TMPDIR/$name.graph.gmprof"
	env GMPROF_MODE=$mode GMPROF_OUTPUT="$TMPDIR/$name.calls.gmprof" "$FAKE" "$s" 2>/dev/null
	expect_exit 0 "$name as graphs ($mode mode)" -- env GMP_DOUBLE_GRAPH=1 GMPROF_MODE=$mode \
		GMPROF_OUTPUT="$TMPDIR/$name.graph.gmprof" "$FAKE" "$s"
	"$GMPROF" replay --format json --pretty "$TMPDIR/$name.graph.gmprof" 2>"$TMPDIR/err" | grep -v '"at": ' >"$TMPDIR/got.json"
	diff -u "$TMPDIR/want.json" "$TMPDIR/got.json" >"$TMPDIR/diff" &&
		ok "  ... the script's findings" || { notok "  ... the script's findings"; head -30 "$TMPDIR/diff"; }
	events_of "$TMPDIR/$name.calls.gmprof" >"$TMPDIR/calls.events"
	events_of "$TMPDIR/$name.graph.gmprof" >"$TMPDIR/graph.events"
	diff -u "$TMPDIR/calls.events" "$TMPDIR/graph.events" >"$TMPDIR/diff" &&
		ok "  ... the events of the same work as calls" || { notok "  ... the events of the same work as calls"; head -30 "$TMPDIR/diff"; }
	# Kernel nodes given their buffers per function (the double aborts if one is left set for
	# a later launch outside a graph): the same findings.
	rm -f "$TMPDIR/$name.fn.gmprof"
	env GMP_DOUBLE_GRAPH=1 GMPROF_GRAPH_NODE_DATA=function GMPROF_MODE=$mode GMP_DOUBLE_PATCHES=1 \
		GMPROF_OUTPUT="$TMPDIR/$name.fn.gmprof" "$FAKE" "$s" 2>"$TMPDIR/err" &&
		[ "$(grep -c 'callback data of function .* set$' "$TMPDIR/err")" -ge 1 ] &&
		[ "$(grep -c 'callback data of function .* taken back$' "$TMPDIR/err")" -ge 1 ] &&
		"$GMPROF" replay --format json --pretty "$TMPDIR/$name.fn.gmprof" 2>/dev/null | grep -v '"at": ' |
		diff -u "$TMPDIR/want.json" - >"$TMPDIR/diff" &&
		ok "  ... GMPROF_GRAPH_NODE_DATA=function: set per function, taken back after, the same findings" ||
		{ notok "  ... GMPROF_GRAPH_NODE_DATA=function"; head -30 "$TMPDIR/err" "$TMPDIR/diff"; }
done
# Graph launches of two or more kernel nodes, given their buffers per launch: the profile counts
# them (graph_capture's two launches of fill and add), and every report cautions on their
# accesses (on an H100 such nodes' accesses mixed); per function, or as plain calls, no caution.
"$GMPROF" report "$TMPDIR/graph_capture.graph.gmprof" >"$TMPDIR/gc.txt" 2>&1
"$GMPROF" html -o "$TMPDIR/gc.html" "$TMPDIR/graph_capture.graph.gmprof" 2>/dev/null
"$GMPROF" report --format markdown "$TMPDIR/graph_capture.graph.gmprof" >"$TMPDIR/gc.md" 2>/dev/null
grep -q '^  graphs   2 graph launches ran two or more kernel nodes: on an H100 the accesses' "$TMPDIR/gc.txt" &&
	grep -q '<dt>graphs</dt><dd>2 graph launches ran two or more kernel nodes' "$TMPDIR/gc.html" &&
	grep -q '^| graphs | 2 graph launches ran two or more kernel nodes' "$TMPDIR/gc.md" &&
	ok "graph launches of several kernel nodes: counted, and each report cautions" ||
	notok "graphs caution: $(grep -i graphs "$TMPDIR/gc.txt" "$TMPDIR/gc.md"; "$GMPROF" dump "$TMPDIR/graph_capture.graph.gmprof" | grep graph_shared)"
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
