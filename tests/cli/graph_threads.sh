# SPDX-License-Identifier: MIT
# Per-function callback data of graphs' kernel nodes (GMPROF_GRAPH_NODE_DATA=function,
# the default) when two threads launch the same kernel: the data is the
# process's, so a graph node must not take it while another thread's graph
# launch holds it or another thread issues a launch of that kernel, and a
# launch begun while another thread's graph launch holds it is counted and
# said.  The test double's GMP_DOUBLE_GRAPH_CROSS makes the two threads'
# first kernels meet deterministically (tests/double/double_graph.h) and
# says on stderr when a kernel read callback data another thread's graph
# launch set.
. tests/cli/lib.sh
B=${BUILD:-build}/test
FAKE=$B/double/fake_app
use_double "$PWD/$B"
crossed_read='read the callback data another thread'

cat >"$TMPDIR/step.jsonl" <<'J'
{"op":"alloc","addr":"0x100000","size":4096}
{"op":"alloc","addr":"0x200000","size":4096}
{"op":"kernel","name":"step","read":["0x100000"],"write":["0x200000"],"stream":1}
{"op":"sync"}
{"op":"free","addr":"0x100000"}
{"op":"free","addr":"0x200000"}
J
# run NAME CROSS [ENV...]: both threads replay step.jsonl, their first kernels meeting as CROSS says.
run() {
	_n=$1 _c=$2
	shift 2
	rm -f "$TMPDIR/$_n.gmprof"
	expect_exit 0 "$_n: two threads, GMP_DOUBLE_GRAPH_CROSS=$_c" -- env GMP_DOUBLE_GRAPH=1 GMP_DOUBLE_GRAPH_CROSS="$_c" \
		GMPROF_OUTPUT="$TMPDIR/$_n.gmprof" "$@" "$FAKE" --threads 2 "$TMPDIR/step.jsonl"
}
meta() { "$GMPROF" dump "$TMPDIR/$1.gmprof" | grep -o "\"key\":\"$2\",\"value\":\"[^\"]*\"" | sed 's/.*"value":"//; s/"$//'; }
# The kernel events' accesses, one line per thread's kernel (each thread's objects at its own addresses).
accesses() { "$GMPROF" dump "$TMPDIR/$1.gmprof" | grep '"op":"kernel"' | grep -o '"read":[^]]*],"write":[^]]*]' | sort; }
# no_read_across OK-TEXT: no kernel of the last run read callback data another thread's graph launch set.
no_read_across() {
	if grep -q "$crossed_read" "$TMPDIR/err"; then notok "  ... a kernel read another thread's data: $(head -3 "$TMPDIR/err")"
	else ok "  ... $1"; fi
}
# own_accesses NAME OK-TEXT: each thread's kernel of run NAME has the accesses of the plain calls.
own_accesses() {
	accesses "$1" >"$TMPDIR/got"
	diff -u "$TMPDIR/want" "$TMPDIR/got" >"$TMPDIR/diff" && ok "  ... $2" || { notok "  ... $2"; cat "$TMPDIR/diff"; }
}

# The plain calls: what every run below must give when nothing crossed.
rm -f "$TMPDIR/calls.gmprof"
env GMPROF_OUTPUT="$TMPDIR/calls.gmprof" "$FAKE" --threads 2 "$TMPDIR/step.jsonl" 2>/dev/null
accesses calls >"$TMPDIR/want"
[ "$(wc -l <"$TMPDIR/want")" -eq 2 ] && ok "the plain calls: two kernels with their accesses" ||
	notok "the plain calls: $(cat "$TMPDIR/want")"

# Thread 2's graph node begins while thread 1's holds the kernel's data: it
# gets its buffer per launch, so thread 1's node keeps its own.
run graph graph
no_read_across "no kernel read the data another thread's graph launch set"
own_accesses graph "each thread's node its own accesses"
[ "$(meta graph graph_data_crossed)" = 1 ] && [ -z "$(meta graph graph_data_crossed_bare)" ] &&
	ok "  ... META: one launch crossed, with a buffer of its own" ||
	notok "  ... META: crossed '$(meta graph graph_data_crossed)' bare '$(meta graph graph_data_crossed_bare)'"
"$GMPROF" report "$TMPDIR/graph.gmprof" >"$TMPDIR/report"
grep -q "graphs   1 launch of a kernel began while another thread's graph launch held the kernel's buffer as its data.*it had a buffer of its own" "$TMPDIR/report" &&
	ok "  ... the report's graphs line says so" || { notok "  ... the report's graphs line"; grep graphs "$TMPDIR/report"; }
"$GMPROF" check "$TMPDIR/graph.gmprof" >"$TMPDIR/check"
grep -q "graphs" "$TMPDIR/check" && notok "  ... check: a graphs line where every launch had its own buffer" ||
	ok "  ... check: no graphs line where every launch had its own buffer"

# Thread 2's plain launch begins first; thread 1's node begins while it is
# being issued: the node gets its buffer per launch, so thread 2's kernel,
# outside the capture range (no data of its own), reads none of the node's.
# (Capture ranges here patch modules at load: under the default for a range,
# GMPROF_PATCH_AT=launch, a graph launch's call patches them only when the
# launch to come is in the range, and here another thread's plain launch,
# begun first, may not be counted yet when it asks; these cases need the
# node monitored.)
run issuing issuing GMPROF_CAPTURE=launches:2-2 GMPROF_PATCH_AT=load
no_read_across "no kernel read the data another thread's graph launch set"
[ -z "$(meta issuing graph_data_crossed)" ] && ok "  ... nothing crossed: no META graph_data_crossed" ||
	notok "  ... META graph_data_crossed '$(meta issuing graph_data_crossed)'"
"$GMPROF" dump "$TMPDIR/issuing.gmprof" | grep '"op":"kernel"' | grep -c '"read"' | grep -qx 1 &&
	ok "  ... the node's accesses recorded (the launch outside the range has none)" ||
	notok "  ... the node's accesses: $("$GMPROF" dump "$TMPDIR/issuing.gmprof" | grep '"op":"kernel"')"

# Thread 2's plain launch begins while thread 1's node holds the kernel's
# data, with a buffer of its own: counted, and nothing read across.
run plain plain
no_read_across "the launch read its own buffer"
own_accesses plain "each thread's kernel its own accesses"
[ "$(meta plain graph_data_crossed)" = 1 ] && ok "  ... META graph_data_crossed 1" ||
	notok "  ... META graph_data_crossed '$(meta plain graph_data_crossed)'"

# The same launch outside the capture range has no buffer of its own: if the
# Sanitizer gives it the function's (as the double does), the graph node
# counts its accesses; the profile counts it, the report and check say so.
run bare plain GMPROF_CAPTURE=launches:1-1 GMPROF_PATCH_AT=load
grep -q "$crossed_read" "$TMPDIR/err" && ok "  ... the double's launch read the node's buffer (what is counted)" ||
	notok "  ... the double's launch read the node's buffer: $err"
[ "$(meta bare graph_data_crossed)" = 1 ] && [ "$(meta bare graph_data_crossed_bare)" = 1 ] &&
	ok "  ... META: one launch crossed, unmonitored" ||
	notok "  ... META: crossed '$(meta bare graph_data_crossed)' bare '$(meta bare graph_data_crossed_bare)'"
"$GMPROF" report "$TMPDIR/bare.gmprof" >"$TMPDIR/report"
grep -q "1 of them had no buffer of its own (unmonitored), so if the Sanitizer gave it that one, the graph's node counts its accesses as its own (GMPROF_GRAPH_NODE_DATA=launch rules that out, but merges a graph launch's kernel nodes" "$TMPDIR/report" &&
	ok "  ... the report's graphs line says what it may mean and the way around it" ||
	{ notok "  ... the report's graphs line"; grep graphs "$TMPDIR/report"; }
"$GMPROF" report --format json "$TMPDIR/bare.gmprof" >"$TMPDIR/bare.json"
grep -q '"graph_data_crossed": *1' "$TMPDIR/bare.json" && grep -q '"graph_data_crossed_unmonitored": *1' "$TMPDIR/bare.json" &&
	ok "  ... JSON graph_data_crossed and graph_data_crossed_unmonitored" || notok "  ... JSON counts"
expect_exit 0 "  ... check passes, with a graphs line" -- "$GMPROF" check "$TMPDIR/bare.gmprof"
grep -q "PASS graphs: 1 launch of a kernel began" "$TMPDIR/out" && ok "  ... check: the graphs line" ||
	notok "  ... check: the graphs line: $(cat "$TMPDIR/out")"

# Per launch (GMPROF_GRAPH_NODE_DATA=launch) no function's data is set: nothing to cross.
run launch plain GMPROF_CAPTURE=launches:1-1 GMPROF_GRAPH_NODE_DATA=launch GMPROF_PATCH_AT=load
no_read_across "nothing read across"
[ -z "$(meta launch graph_data_crossed)" ] && [ -z "$(meta launch graph_node_data)" ] &&
	ok "  ... no META graph_data_crossed or graph_node_data" || notok "  ... META says '$(meta launch graph_data_crossed)'"

# Two threads' graph launches of the same kernels, many times over, with no
# meeting arranged: however they interleave, no node reads another's data.
cat >"$TMPDIR/loop.jsonl" <<'J'
{"op":"alloc","addr":"0x100000","size":4096}
{"op":"alloc","addr":"0x200000","size":4096}
J
for i in $(seq 1 200); do
	echo '{"op":"kernel","name":"a","read":["0x100000"],"write":["0x200000"],"stream":1}'
	echo '{"op":"kernel","name":"b","read":["0x200000"],"write":["0x100000"],"stream":1}'
	echo '{"op":"sync","stream":1}'
done >>"$TMPDIR/loop.jsonl"
rm -f "$TMPDIR/loop.gmprof"
expect_exit 0 "four threads, 200 graph launches each of the same two kernels" -- env GMP_DOUBLE_GRAPH=1 \
	GMPROF_OUTPUT="$TMPDIR/loop.gmprof" "$FAKE" --threads 4 "$TMPDIR/loop.jsonl"
no_read_across "no kernel read another thread's data"
"$GMPROF" dump "$TMPDIR/loop.gmprof" | grep '"op":"kernel"' | grep -c '"read"' | grep -qx 1600 &&
	ok "  ... every one of the 1600 kernel nodes with its accesses" ||
	notok "  ... kernel nodes with accesses: $("$GMPROF" dump "$TMPDIR/loop.gmprof" | grep '"op":"kernel"' | grep -c '"read"')"
# The same under ThreadSanitizer: the functions held and issued are the process's.
T=$(cd "$(dirname "$GMPROF")/../tsan" 2>/dev/null && pwd)
if [ -z "$T" ] || [ ! -x "$T/double/fake_app" ]; then notok "ThreadSanitizer build missing (make test builds it)"; finish; fi
rm -f "$TMPDIR/tsan.gmprof"
env GMPROF_COLLECTOR="$T/libgmprof.so" GMPROF_SANITIZER_LIB="$T/double/libsanitizer-public.so" \
	GMPROF_DOUBLE="$T/double/libsanitizer-public.so" GMPROF_OUTPUT="$TMPDIR/tsan.gmprof" NVTX_INJECTION64_PATH="$T/libgmprof.so" \
	TSAN_OPTIONS="halt_on_error=0 exitcode=66" GMP_DOUBLE_GRAPH=1 "$T/double/fake_app" --threads 4 "$TMPDIR/loop.jsonl" \
	>/dev/null 2>"$TMPDIR/tsan"
rc=$?
n=$(grep -c "WARNING: ThreadSanitizer" "$TMPDIR/tsan")
[ "$rc" -eq 0 ] && [ "$n" -eq 0 ] && ! grep -q "$crossed_read" "$TMPDIR/tsan" &&
	ok "ThreadSanitizer: four threads' graph launches, no report, nothing read across" ||
	{ notok "ThreadSanitizer: exit $rc, $n reports"; head -30 "$TMPDIR/tsan"; }
finish
