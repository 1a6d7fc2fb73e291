# SPDX-License-Identifier: MIT
# Tensor maps (the test double's GMP_DOUBLE_TENSORMAP: cuTensorMapEncodeTiled
# over the object at an address right after its allocation, the map passed
# by value to each launch, inside a struct parameter or an extra array's
# packed buffer): a kernel copies through the tensor memory accelerator,
# which calls no device patch, so the collector reads each driver launch
# call's parameters for the maps it saw encoded and takes the launch to
# read their objects.  Unseen, those reads made the object look free for
# another object to reuse (a redundant allocation).
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
use_double "$B"
# A read by k through a tensor map only (lib.sh).
unseen_read_script "$TMPDIR/tma.jsonl"
kernels() { "$GMPROF" dump "$1" 2>/dev/null | grep '"op":"kernel"' | sed -E 's/,"thread".*//' | tr '\n' ' '; }
READS='{"op":"kernel","name":"k","read":["0x10000"],"write":["0x20000"] {"op":"kernel","name":"k2","write":["0x20000"] '
NONE='{"op":"kernel","name":"k","write":["0x20000"] {"op":"kernel","name":"k2","write":["0x20000"] '
run_on() { # SCRIPT NAME PROFILE ENV...: the collector's run of a script
	_s=$1 _n=$2 _p=$3
	shift 3
	expect_exit 0 "$_n" -- env GMPROF_OUTPUT="$_p" "$@" "$B/double/fake_app" "$_s"
}
run() { run_on "$TMPDIR/tma.jsonl" "$@"; } # NAME PROFILE ENV...: of the script above
run "no tensor map" "$TMPDIR/none.gmprof"
"$GMPROF" replay "$TMPDIR/none.gmprof" | grep -q "redundant_allocation: obj#2" &&
	ok "  ... B may reuse A's memory (k does not read A)" || notok "  ... $("$GMPROF" replay "$TMPDIR/none.gmprof")"
# lazy: the module loads at its first use (GMP_DOUBLE_LAZY=module, as under
# CUDA_MODULE_LOADING=LAZY), here inside the collector's own query of the
# launched function's parameters, whose callbacks it takes for its own: on
# an H200 (2026-11-30) such a module was never patched and the launch not
# monitored; the collector keeps such a load and patches it after the query.
for how in struct extra replace handles lazy lazy-handles; do
	case $how in
	struct) set -- ;;
	extra) set -- GMP_DOUBLE_TENSORMAP_EXTRA=1 ;;
	replace) set -- GMP_DOUBLE_TENSORMAP_API=replace ;;
	handles) set -- FAKE_CUDA_KERNEL_HANDLES=1 ;;
	lazy) set -- GMP_DOUBLE_LAZY=module ;;
	lazy-handles) set -- GMP_DOUBLE_LAZY=module FAKE_CUDA_KERNEL_HANDLES=1 ;;
	esac
	run "a tensor map over A ($how)" "$TMPDIR/$how.gmprof" GMP_DOUBLE_TENSORMAP=0x10000 "$@"
	[ ! -s "$TMPDIR/err" ] && ok "  ... not a word" || notok "  ... stderr: $(cat "$TMPDIR/err")"
	[ "$(kernels "$TMPDIR/$how.gmprof")" = "$READS" ] &&
		ok "  ... k reads A through it, k2 (after A's free) does not" ||
		notok "  ... kernels: $(kernels "$TMPDIR/$how.gmprof")"
	expect_exit 0 "  ... replay" -- "$GMPROF" replay "$TMPDIR/$how.gmprof"
	grep -q redundant_allocation "$TMPDIR/out" && notok "  ... $(cat "$TMPDIR/out")" || ok "  ... B may not reuse A's memory"
done
run "the map passed to k2 alone" "$TMPDIR/k2.gmprof" GMP_DOUBLE_TENSORMAP=0x10000 GMP_DOUBLE_TENSORMAP_KERNEL=k2
[ "$(kernels "$TMPDIR/k2.gmprof")" = "$NONE" ] && ok "  ... k reads nothing of A, nor k2 (A is freed by then)" ||
	notok "  ... kernels: $(kernels "$TMPDIR/k2.gmprof")"
# A map kept by the program (cached by its pointer, as libraries do) over
# memory freed and allocated again: it reads the object there at the launch.
cat >"$TMPDIR/again.jsonl" <<'J'
{"op":"alloc","addr":"0x10000","size":4096}
{"op":"alloc","addr":"0x20000","size":4096}
{"op":"memcpy","dst":"0x10000","size":4096}
{"op":"kernel","name":"k","write":["0x20000"]}
{"op":"sync"}
{"op":"free","addr":"0x10000"}
{"op":"alloc","addr":"0x10000","size":2048}
{"op":"memcpy","dst":"0x10000","size":2048}
{"op":"kernel","name":"k2","write":["0x20000"]}
{"op":"memcpy","src":"0x20000","size":4096}
{"op":"sync"}
{"op":"free","addr":"0x10000"}
{"op":"free","addr":"0x20000"}
J
AGAIN='{"op":"kernel","name":"k","read":["0x10000"],"write":["0x20000"] {"op":"kernel","name":"k2","read":["0x10000"],"write":["0x20000"] '
for how in cached encoded; do
	[ $how = cached ] && set -- "the first object's map" GMP_DOUBLE_TENSORMAP_CACHE=1 || set -- "each object's map"
	_how=$1
	shift
	expect_exit 0 "a map over memory allocated again ($how)" -- env GMPROF_OUTPUT="$TMPDIR/again-$how.gmprof" \
		GMP_DOUBLE_TENSORMAP=0x10000 "$@" "$B/double/fake_app" "$TMPDIR/again.jsonl"
	[ "$(kernels "$TMPDIR/again-$how.gmprof")" = "$AGAIN" ] &&
		ok "  ... k reads the first object, k2 the second (through $_how)" ||
		notok "  ... kernels: $(kernels "$TMPDIR/again-$how.gmprof")"
done
expect_exit 0 "  ... replay" -- "$GMPROF" replay "$TMPDIR/again-cached.gmprof"
grep -A1 "late_deallocation: obj#3" "$TMPDIR/out" | grep -q "KERNEL k2 .* -> FREE" &&
	ok "  ... the second object's last use is k2, not its upload" || notok "  ... $(cat "$TMPDIR/out")"
run "intra mode" "$TMPDIR/intra.gmprof" GMP_DOUBLE_TENSORMAP=0x10000 GMPROF_MODE=intra
"$GMPROF" dump "$TMPDIR/intra.gmprof" | grep '"name":"k",' | grep -q '"read":\["0x10000"\]' &&
	! "$GMPROF" dump "$TMPDIR/intra.gmprof" | grep '"name":"k",' | grep -q '"addr":"0x10000"' &&
	ok "  ... k reads A, with no touch of its bytes (not known)" ||
	notok "  ... $("$GMPROF" dump "$TMPDIR/intra.gmprof" | grep '"op":"kernel"')"
run "alloc mode" "$TMPDIR/alloc.gmprof" GMP_DOUBLE_TENSORMAP=0x10000 GMPROF_MODE=alloc
"$GMPROF" dump "$TMPDIR/alloc.gmprof" | grep -q '"read"' && notok "  ... $(kernels "$TMPDIR/alloc.gmprof")" ||
	ok "  ... no kernel's accesses recorded"
run "GMPROF_LOG_CALLBACKS=1" "$TMPDIR/log.gmprof" GMP_DOUBLE_TENSORMAP=0x10000 GMPROF_LOG_CALLBACKS=1
grep -q "^gmprof: api cuTensorMapEncodeTiled$" "$TMPDIR/err" &&
	grep -q "^gmprof: api cuLaunch[A-Za-z_]*: 1 object read through tensor maps$" "$TMPDIR/err" &&
	grep -q "^gmprof: api cuLaunch[A-Za-z_]*: 0 objects read through tensor maps$" "$TMPDIR/err" &&
	ok "  ... says the encode, and what each launch call read (k: 1 object, k2: none)" ||
	notok "  ... $(grep -i "tensor" "$TMPDIR/err")"
# A driver from before CUDA 12.4 cannot say where a kernel's parameters
# lie: said once, the launches read nothing through the map.
expect_exit 0 "a driver without cuFuncGetParamInfo" -- env GMPROF_OUTPUT="$TMPDIR/old.gmprof" GMP_DOUBLE_TENSORMAP=0x10000 \
	"$B/double/fake_app_old" "$TMPDIR/tma.jsonl"
[ "$(grep -c "tensor maps are in use, but the driver does not say where a kernel's parameters lie (cuFuncGetParamInfo, CUDA 12.4): kernels' reads through the maps are not recorded" "$TMPDIR/err")" = 1 ] &&
	[ "$(wc -l <"$TMPDIR/err")" -eq 1 ] && ok "  ... said once, in one line" || notok "  ... stderr: $(cat "$TMPDIR/err")"
[ "$(kernels "$TMPDIR/old.gmprof")" = "$NONE" ] && ok "  ... no launch reads A" || notok "  ... kernels: $(kernels "$TMPDIR/old.gmprof")"
# What the profile says of the run's tensor maps (META tensor_maps: maps
# encoded, launches that read through them, graph kernel nodes launched
# while maps were known, whose parameters the collector does not read).
meta_tm() { "$GMPROF" dump "$1" 2>/dev/null | sed -n 's/.*"key":"tensor_maps","value":"\([^"]*\)".*/\1/p'; }
[ "$(meta_tm "$TMPDIR/struct.gmprof")" = "encoded=1 launches=1 graph_nodes=0" ] &&
	ok "META tensor_maps: 1 map encoded, 1 launch read through it" || notok "META tensor_maps: $(meta_tm "$TMPDIR/struct.gmprof")"
[ -z "$(meta_tm "$TMPDIR/none.gmprof")" ] && [ -z "$(meta_tm "$TMPDIR/alloc.gmprof")" ] &&
	ok "  ... none without a map, nor in alloc mode" || notok "  ... $(meta_tm "$TMPDIR/none.gmprof") $(meta_tm "$TMPDIR/alloc.gmprof")"
expect_exit 0 "  ... replay" -- "$GMPROF" replay "$TMPDIR/struct.gmprof"
[ ! -s "$TMPDIR/err" ] && ok "  ... no warning" || notok "  ... stderr: $(cat "$TMPDIR/err")"
run "the work as CUDA graphs' kernel nodes" "$TMPDIR/graph.gmprof" GMP_DOUBLE_TENSORMAP=0x10000 GMP_DOUBLE_GRAPH=1
[ "$(meta_tm "$TMPDIR/graph.gmprof")" = "encoded=1 launches=0 graph_nodes=2" ] &&
	ok "  ... META tensor_maps: k and k2 ran as graph nodes, their parameters not read" ||
	notok "  ... META tensor_maps: $(meta_tm "$TMPDIR/graph.gmprof")"
"$GMPROF" report "$TMPDIR/struct.gmprof" 2>/dev/null | grep -qx "  note     the host encoded 1 tensor map, and 1 kernel launch read objects through them (copies the device patches do not see)" &&
	"$GMPROF" report "$TMPDIR/graph.gmprof" 2>/dev/null | grep -q "^  note     the host encoded 1 tensor map, and 0 kernel launches read objects through them (copies the device patches do not see); 2 kernel node launches of CUDA graphs ran while maps were known: what they read through maps is not seen$" &&
	! "$GMPROF" report "$TMPDIR/none.gmprof" 2>/dev/null | grep -q "tensor map" &&
	ok "  ... the report's header says what the maps did (none without a map)" ||
	notok "  ... report: $("$GMPROF" report "$TMPDIR/graph.gmprof" 2>/dev/null | grep "tensor map")"
run "  ... outside a capture range" "$TMPDIR/graph-out.gmprof" GMP_DOUBLE_TENSORMAP=0x10000 GMP_DOUBLE_GRAPH=1 \
	GMPROF_CAPTURE=launches:100-
[ "$(meta_tm "$TMPDIR/graph-out.gmprof")" = "encoded=1 launches=0 graph_nodes=0" ] &&
	ok "  ... none counted: unmonitored launches count as a use of every live object already" ||
	notok "  ... META tensor_maps: $(meta_tm "$TMPDIR/graph-out.gmprof")"
"$GMPROF" report --format json "$TMPDIR/graph.gmprof" 2>/dev/null | grep -q '"tensor_maps":{"encoded":1,"launches":0,"graph_nodes":2}' &&
	"$GMPROF" report --format markdown "$TMPDIR/graph.gmprof" 2>/dev/null | grep -q '^| tensor maps | the host encoded 1 tensor map, and 0 kernel launches' &&
	"$GMPROF" html -o "$TMPDIR/graph.html" "$TMPDIR/graph.gmprof" 2>/dev/null &&
	grep -q '<dt>tensor maps</dt><dd>the host encoded 1 tensor map, and 0 kernel launches' "$TMPDIR/graph.html" &&
	ok "  ... and so do the JSON, Markdown and HTML reports" ||
	notok "  ... JSON: $("$GMPROF" report --format json "$TMPDIR/graph.gmprof" 2>/dev/null | grep -o '"tensor_maps":[^}]*}')"
expect_exit 0 "  ... gmprof check" -- "$GMPROF" check "$TMPDIR/graph.gmprof"
grep -qx "PASS tensor_maps: 2 kernel node launches of CUDA graphs ran while the program had tensor maps: what they read through the maps is not seen, so findings on those objects may be wrong" "$TMPDIR/out" &&
	! "$GMPROF" check "$TMPDIR/struct.gmprof" 2>/dev/null | grep -q tensor_maps &&
	ok "  ... says so in a check that never fails (none without graph nodes)" || notok "  ... check: $(cat "$TMPDIR/out")"
expect_exit 0 "  ... replay" -- "$GMPROF" replay "$TMPDIR/graph.gmprof"
expect_stderr_line "^gmprof: warning: 2 kernel node launches of CUDA graphs in '.*/graph.gmprof' ran while the program had tensor maps: the collector does not read graph nodes' parameters, so what they read through tensor maps is not seen" \
	"  ... which warns that the kernel nodes' reads through tensor maps are not seen"
# The driver is asked where a function's parameters lie once: four launches of k (unseen_read_script's
# k four times, no k2), parameters 0, 1 and the one past its last (fake_app's count).
sed -e '/"name":"k",/{p;p;p}' -e '/"name":"k2"/d' "$TMPDIR/tma.jsonl" >"$TMPDIR/four.jsonl"
K4='{"op":"kernel","name":"k","read":["0x10000"],"write":["0x20000"] '
K4="$K4$K4$K4$K4"
K4NONE='{"op":"kernel","name":"k","write":["0x20000"] '
K4NONE="$K4NONE$K4NONE$K4NONE$K4NONE"
four() { # NAME PROFILE ENV...: the collector's run of four.jsonl with a map over A
	_n=$1 _p=$2
	shift 2
	run_on "$TMPDIR/four.jsonl" "$_n" "$_p" GMP_DOUBLE_TENSORMAP=0x10000 "$@"
}
four "four launches of k through the map" "$TMPDIR/four.gmprof" FAKE_CUDA_STATS=1
[ "$(kernels "$TMPDIR/four.gmprof")" = "$K4" ] && ok "  ... each reads A" || notok "  ... kernels: $(kernels "$TMPDIR/four.gmprof")"
[ "$(cat "$TMPDIR/err")" = "fake cuda: 3 cuFuncGetParamInfo calls" ] &&
	ok "  ... the driver asked where k's parameters lie once (3 calls: two parameters and the end)" ||
	notok "  ... stderr: $(cat "$TMPDIR/err")"
# More maps than the collector keeps (4096, the latest): the oldest are
# dropped, and said; the ring's slots taken again keep the others found.
four "4095 maps more after A's" "$TMPDIR/keep.gmprof" GMP_DOUBLE_TENSORMAP_OTHERS=4095
[ "$(kernels "$TMPDIR/keep.gmprof")" = "$K4" ] && [ "$(meta_tm "$TMPDIR/keep.gmprof")" = "encoded=4096 launches=4 graph_nodes=0" ] &&
	ok "  ... A's map still kept: each launch reads A, no map dropped" ||
	notok "  ... META $(meta_tm "$TMPDIR/keep.gmprof"), kernels: $(kernels "$TMPDIR/keep.gmprof")"
four "4096 maps more after A's" "$TMPDIR/drop.gmprof" GMP_DOUBLE_TENSORMAP_OTHERS=4096
[ "$(kernels "$TMPDIR/drop.gmprof")" = "$K4NONE" ] && [ "$(meta_tm "$TMPDIR/drop.gmprof")" = "encoded=4097 launches=0 graph_nodes=0 forgotten=1" ] &&
	ok "  ... A's map dropped: no launch reads A, META says 1 forgotten" ||
	notok "  ... META $(meta_tm "$TMPDIR/drop.gmprof"), kernels: $(kernels "$TMPDIR/drop.gmprof")"
expect_exit 0 "  ... replay" -- "$GMPROF" replay "$TMPDIR/drop.gmprof"
expect_stderr_line "^gmprof: warning: the program in '.*/drop.gmprof' encoded more tensor maps than the collector keeps: it dropped the 1 oldest, so reads through them are not seen, and findings on those objects may be wrong$" \
	"  ... which warns of the dropped map"
"$GMPROF" report "$TMPDIR/drop.gmprof" 2>/dev/null | grep -q "^  note     the host encoded 4097 tensor maps, and 0 kernel launches read objects through them (copies the device patches do not see); the collector dropped the 1 oldest map (it keeps the latest): what launches read through them is not seen$" &&
	"$GMPROF" report --format json "$TMPDIR/drop.gmprof" 2>/dev/null | grep -q '"tensor_maps":{"encoded":4097,"launches":0,"graph_nodes":0,"forgotten":1}' &&
	! "$GMPROF" report --format json "$TMPDIR/keep.gmprof" 2>/dev/null | grep -q '"forgotten"' &&
	ok "  ... the text and JSON reports say so (none where nothing was dropped)" ||
	notok "  ... report: $("$GMPROF" report "$TMPDIR/drop.gmprof" 2>/dev/null | grep "tensor map")"
expect_exit 0 "  ... gmprof check" -- "$GMPROF" check "$TMPDIR/drop.gmprof"
grep -qx "PASS tensor_maps: the collector dropped the program's 1 oldest tensor map (it keeps the latest): what launches read through the maps is not seen, so findings on those objects may be wrong" "$TMPDIR/out" &&
	ok "  ... and a check that never fails" || notok "  ... check: $(cat "$TMPDIR/out")"
four "5000 maps before A's" "$TMPDIR/wrap.gmprof" GMP_DOUBLE_TENSORMAP_OTHERS=5000 GMP_DOUBLE_TENSORMAP_OTHERS_FIRST=1
[ "$(kernels "$TMPDIR/wrap.gmprof")" = "$K4" ] && [ "$(meta_tm "$TMPDIR/wrap.gmprof")" = "encoded=5001 launches=4 graph_nodes=0 forgotten=905" ] &&
	ok "  ... A's map, in a slot taken again, is found: each launch reads A; 905 dropped" ||
	notok "  ... META $(meta_tm "$TMPDIR/wrap.gmprof"), kernels: $(kernels "$TMPDIR/wrap.gmprof")"
# tests/gpu/tma.cu's event model, its kernel's read of a left to the map:
# the kernel reads a, and the profile has the META gpu-check wants of the
# program (tests/gpu/tma.meta).
sed 's/"read":\["0x100000"\],//' tests/gpu/tma.jsonl >"$TMPDIR/tma_gpu.jsonl"
expect_exit 0 "tests/gpu/tma.jsonl, a read only through the map" -- env GMPROF_OUTPUT="$TMPDIR/tma_gpu.gmprof" \
	GMP_DOUBLE_TENSORMAP=0x100000 "$B/double/fake_app" "$TMPDIR/tma_gpu.jsonl"
"$GMPROF" dump "$TMPDIR/tma_gpu.gmprof" 2>/dev/null | grep -q '"name":"tma_double","read":\["0x100000"\]' &&
	ok "  ... the kernel reads a" || notok "  ... $(kernels "$TMPDIR/tma_gpu.gmprof")"
[ "tensor_maps $(meta_tm "$TMPDIR/tma_gpu.gmprof")" = "$(cat tests/gpu/tma.meta)" ] &&
	ok "  ... META as tests/gpu/tma.meta says" || notok "  ... META tensor_maps $(meta_tm "$TMPDIR/tma_gpu.gmprof")"
finish
