# SPDX-License-Identifier: MIT
# Threads: a host program with 8 threads issuing CUDA calls at once through
# the test double, under ThreadSanitizer (collector, double and program all
# instrumented).  TSan must report nothing, and every event must appear
# once, with the right thread and stream: each thread replays the same
# script on streams and objects of its own (thread k's objects live at
# k << 40), so per thread its events must be the script's, in order, on
# streams no other thread uses.  One difference is allowed: cudaFree
# synchronizes the device, and the collector records that sync unless the
# last event of the whole program already was one -- with threads, whether
# it was depends on the interleaving, so repeated syncs count as one.
# Three runs, for the interleavings; the second has every thread make
# calls that do no GPU work around each event (GMP_DOUBLE_QUERIES) with
# GMPROF_API_CALLBACKS=needed, whose callbacks the flusher thread turns off
# while the threads call; the third delivers the work as CUDA graph
# launches (GMP_DOUBLE_GRAPH=1: the collector keeps each thread's open
# graph launch apart).  Each must record the same events.
. tests/cli/lib.sh
T=$(cd "$(dirname "$GMPROF")/../tsan" 2>/dev/null && pwd)
if [ -z "$T" ] || [ ! -x "$T/double/fake_app" ]; then notok "ThreadSanitizer build missing (make test builds it)"; finish; fi
S=tests/scripts/simple_multi_copy.jsonl
echo "stands in for the device patches" >"$TMPDIR/patches.fatbin"
# The script's events as the collector records them, for one thread.
"$GMPROF" convert -o "$TMPDIR/one.gmprof" "$S" 2>/dev/null
"$GMPROF" dump "$TMPDIR/one.gmprof" 2>/dev/null | grep '"op"' | grep -v '"op":"end"\|"op":"meta"' | sed 's/.*"op":"\([a-z_]*\)".*/\1/' >"$TMPDIR/one.ops"
per=$(wc -l <"$TMPDIR/one.ops")
for run in 1 2 3; do
	rm -f "$TMPDIR/t.gmprof"
	env GMPROF_COLLECTOR="$T/libgmprof.so" GMPROF_SANITIZER_LIB="$T/double/libsanitizer-public.so" \
		GMPROF_DOUBLE="$T/double/libsanitizer-public.so" GMPROF_PATCH="$TMPDIR/patches.fatbin" GMPROF_SUMMARY=0 \
		GMPROF_OUTPUT="$TMPDIR/t.gmprof" TSAN_OPTIONS="halt_on_error=0 exitcode=66" \
		GMP_DOUBLE_GRAPH=$([ "$run" = 3 ] && echo 1 || echo 0) \
		GMPROF_API_CALLBACKS=$([ "$run" = 2 ] && echo needed || echo all) \
		GMP_DOUBLE_QUERIES=$([ "$run" = 2 ] && echo 3 || echo 0) \
		"$T/double/fake_app" --threads 8 "$S" >/dev/null 2>"$TMPDIR/tsan"
	rc=$?
	n=$(grep -c "WARNING: ThreadSanitizer" "$TMPDIR/tsan")
	[ "$rc" -eq 0 ] && [ "$n" -eq 0 ] && ok "run $run: 8 threads, no ThreadSanitizer report" || { notok "run $run: exit $rc, $n TSan reports"; head -30 "$TMPDIR/tsan"; }
	"$GMPROF" dump "$TMPDIR/t.gmprof" 2>/dev/null | grep '"op"' | grep -v '"op":"end"\|"op":"meta"' >"$TMPDIR/t.ev"
	total=$(wc -l <"$TMPDIR/t.ev")
	[ "$total" -ge $((per * 8)) ] && ok "run $run: $total events >= 8 x $per" || notok "run $run: $total events, want $((8 * per))"
	# Per host thread: its ops in order, one address space (k << 40) and its own streams.
	awk -v dir="$TMPDIR" '
		{ match($0, /"thread":[0-9]+/); th = substr($0, RSTART + 9, RLENGTH - 9)
		  match($0, /"op":"[a-z_]+"/); op = substr($0, RSTART + 6, RLENGTH - 7)
		  print op > (dir "/th." th ".ops")
		  if (match($0, /"addr":"0x[0-9a-f]+"/)) { a = substr($0, RSTART + 10, RLENGTH - 11)
		    hi = substr(a, 1, length(a) - 10); if (!(th in space)) space[th] = hi
		    else if (space[th] != hi) bad = bad "thread " th " touches two address spaces; " }
		  if (match($0, /"stream":[0-9]+/)) { s = substr($0, RSTART + 9, RLENGTH - 9)
		    if ((s in owner) && owner[s] != th) bad = bad "stream " s " used by two threads; "
		    owner[s] = th }
		  threads[th] = 1 }
		END { n = 0; for (t in threads) n++; print n > (dir "/nthreads"); printf "%s", bad > (dir "/bad") }' "$TMPDIR/t.ev"
	[ "$(cat "$TMPDIR/nthreads")" -eq 8 ] && ok "run $run: events from 8 host threads" || notok "run $run: events from $(cat "$TMPDIR/nthreads") host threads"
	[ ! -s "$TMPDIR/bad" ] && ok "run $run: no stream or object shared across threads" || notok "run $run: $(cat "$TMPDIR/bad")"
	same=0
	for f in "$TMPDIR"/th.*.ops; do
		awk '$0 != "sync" || prev != "sync"; { prev = $0 }' "$f" >"$f.c"
		awk '$0 != "sync" || prev != "sync"; { prev = $0 }' "$TMPDIR/one.ops" >"$TMPDIR/one.c"
		cmp -s "$f.c" "$TMPDIR/one.c" && same=$((same + 1))
	done
	[ "$same" -eq 8 ] && ok "run $run: each thread's events are the script's, once, in order" || notok "run $run: $same of 8 threads match the script"
	rm -f "$TMPDIR"/th.*.ops "$TMPDIR"/th.*.ops.c
done
# Intra mode from 8 threads: maps blocks in flight and reused across threads.
rm -f "$TMPDIR/i.gmprof"
env GMPROF_COLLECTOR="$T/libgmprof.so" GMPROF_SANITIZER_LIB="$T/double/libsanitizer-public.so" \
	GMPROF_DOUBLE="$T/double/libsanitizer-public.so" GMPROF_PATCH="$TMPDIR/patches.fatbin" GMPROF_SUMMARY=0 \
	GMPROF_MODE=intra GMPROF_OUTPUT="$TMPDIR/i.gmprof" TSAN_OPTIONS="halt_on_error=0 exitcode=66" \
	"$T/double/fake_app" --threads 8 tests/scripts/intra_patterns.jsonl >/dev/null 2>"$TMPDIR/tsan"
rc=$?
n=$(grep -c "WARNING: ThreadSanitizer" "$TMPDIR/tsan")
[ "$rc" -eq 0 ] && [ "$n" -eq 0 ] && ok "intra mode: 8 threads, no ThreadSanitizer report" || { notok "intra mode: exit $rc, $n TSan reports"; head -30 "$TMPDIR/tsan"; }
"$GMPROF" replay "$TMPDIR/i.gmprof" >/dev/null 2>"$TMPDIR/err" && ok "intra mode: the profile replays" || notok "intra mode: $(cat "$TMPDIR/err")"
# Intra maps of 96 KiB a launch, from 8 threads freeing while others
# collect: each read takes the pinned staging buffer when it is free and
# parses there, or goes to memory of its own when another thread holds it
# (lbuf.c dev_stage_take, harvest.c).
maps_rounds 3 "$TMPDIR/staged.jsonl"
rm -f "$TMPDIR/s.gmprof"
env GMPROF_COLLECTOR="$T/libgmprof.so" GMPROF_SANITIZER_LIB="$T/double/libsanitizer-public.so" \
	GMPROF_DOUBLE="$T/double/libsanitizer-public.so" GMPROF_PATCH="$TMPDIR/patches.fatbin" GMPROF_SUMMARY=0 \
	GMPROF_MODE=intra GMP_DOUBLE_FREE_SYNCS=1 GMPROF_OUTPUT="$TMPDIR/s.gmprof" TSAN_OPTIONS="halt_on_error=0 exitcode=66" \
	"$T/double/fake_app" --threads 8 "$TMPDIR/staged.jsonl" >/dev/null 2>"$TMPDIR/tsan"
rc=$?
n=$(grep -c "WARNING: ThreadSanitizer" "$TMPDIR/tsan")
[ "$rc" -eq 0 ] && [ "$n" -eq 0 ] && ok "intra maps through the pinned buffer: 8 threads, no ThreadSanitizer report" ||
	{ notok "intra maps through the pinned buffer: exit $rc, $n TSan reports"; head -30 "$TMPDIR/tsan"; }
n=$(touched_launches "$TMPDIR/s.gmprof")
[ "$n" = 96 ] && ok "  ... every launch of the 8 threads with its touch (96)" || notok "  ... $n launches with their touch, not 96"
# Tensor maps with 8 threads: thread 1 encodes one over its first object, and
# the double passes it to every thread's launches, also after thread 1 freed
# that object (a use after free, which the collector must not record as a
# read of no object: the profile must replay).
cat >"$TMPDIR/tma.jsonl" <<'J'
{"op":"alloc","addr":"0x10000","size":4096}
{"op":"alloc","addr":"0x20000","size":4096}
{"op":"kernel","name":"k","write":["0x20000"]}
{"op":"free","addr":"0x10000"}
{"op":"kernel","name":"k","write":["0x20000"]}
{"op":"kernel","name":"k","write":["0x20000"]}
{"op":"free","addr":"0x20000"}
J
rm -f "$TMPDIR/m.gmprof"
env GMPROF_COLLECTOR="$T/libgmprof.so" GMPROF_SANITIZER_LIB="$T/double/libsanitizer-public.so" \
	GMPROF_DOUBLE="$T/double/libsanitizer-public.so" GMPROF_PATCH="$TMPDIR/patches.fatbin" GMPROF_SUMMARY=0 \
	GMP_DOUBLE_TENSORMAP=0x10000010000 GMPROF_OUTPUT="$TMPDIR/m.gmprof" TSAN_OPTIONS="halt_on_error=0 exitcode=66" \
	"$T/double/fake_app" --threads 8 "$TMPDIR/tma.jsonl" >/dev/null 2>"$TMPDIR/tsan"
rc=$?
n=$(grep -c "WARNING: ThreadSanitizer" "$TMPDIR/tsan")
[ "$rc" -eq 0 ] && [ "$n" -eq 0 ] && ok "tensor maps: 8 threads, no ThreadSanitizer report" ||
	{ notok "tensor maps: exit $rc, $n TSan reports"; head -30 "$TMPDIR/tsan"; }
r=$("$GMPROF" dump "$TMPDIR/m.gmprof" | grep -c '"read":\["0x10000010000"\]')
[ "$r" -ge 1 ] && ok "  ... launches read thread 1's object through its map ($r)" || notok "  ... no launch reads it"
"$GMPROF" replay "$TMPDIR/m.gmprof" >/dev/null 2>"$TMPDIR/err" && ok "  ... the profile replays" ||
	notok "  ... $(cat "$TMPDIR/err")"
# Capture ranges with 8 threads: each thread's replay calls cudaProfilerStart and cudaProfilerStop
# (GMP_DOUBLE_PROFILER), which turn monitoring on and off for all, with the
# module patched at load and (GMPROF_PATCH_AT=launch) by whichever thread
# makes the range's first launch (or, as graph launches, GMP_DOUBLE_GRAPH=1,
# whichever thread's graph launch call comes first patches every module);
# then launches by number.
for run in profiler-api,load profiler-api,launch profiler-api,launch,graph launches:10-200,load; do
	cap=${run%%,*} at=${run#*,}
	graph=0
	[ "${at#*,}" = graph ] && graph=1 at=${at%,*}
	rm -f "$TMPDIR/c.gmprof"
	env GMPROF_COLLECTOR="$T/libgmprof.so" GMPROF_SANITIZER_LIB="$T/double/libsanitizer-public.so" \
		GMPROF_DOUBLE="$T/double/libsanitizer-public.so" GMPROF_PATCH="$TMPDIR/patches.fatbin" GMPROF_SUMMARY=0 \
		GMP_DOUBLE_GRAPH=$graph \
		GMPROF_CAPTURE=$cap GMPROF_PATCH_AT=$at GMP_DOUBLE_PROFILER=5,30,40,60 GMPROF_OUTPUT="$TMPDIR/c.gmprof" \
		TSAN_OPTIONS="halt_on_error=0 exitcode=66" "$T/double/fake_app" --threads 8 "$S" >/dev/null 2>"$TMPDIR/tsan"
	rc=$?
	n=$(grep -c "WARNING: ThreadSanitizer" "$TMPDIR/tsan")
	[ "$rc" -eq 0 ] && [ "$n" -eq 0 ] && ok "capture $run: 8 threads, no ThreadSanitizer report" || { notok "capture $run: exit $rc, $n TSan reports"; head -30 "$TMPDIR/tsan"; }
	"$GMPROF" report "$TMPDIR/c.gmprof" 2>"$TMPDIR/err" | grep -q "^  capture  [1-9][0-9]* of 48 kernel launches monitored" &&
		ok "capture $run: some of the 48 launches monitored, and the profile reports" || notok "capture $run: $(cat "$TMPDIR/err")"
	[ "$graph" = 0 ] || { [ "$(grep -c '^gmprof: GMPROF_PATCH_AT=launch: a CUDA graph launch is monitored, so every module' "$TMPDIR/tsan")" = 1 ] &&
		ok "capture $run: every module patched by one graph launch call, said once" || notok "capture $run: $(grep gmprof: "$TMPDIR/tsan")"; }
done
# GMPROF_PATCH_AT=range with 8 threads: the module unpatched at context
# syncs after a range, while other threads launch, and patched again by
# the next range's first launch.  The double aborts if it is unpatched
# while a kernel may still run (one no sync covered) or a kernel starts
# meanwhile.  Each thread: 30 rounds of two kernels and a context sync.
awk 'BEGIN { print "{\"op\":\"alloc\",\"addr\":\"0x100000\",\"size\":4096}"
	for (i = 0; i < 30; i++) { print "{\"op\":\"kernel\",\"name\":\"r\",\"read\":[\"0x100000\"]}"
		print "{\"op\":\"kernel\",\"name\":\"w\",\"write\":[\"0x100000\"]}"; print "{\"op\":\"sync\"}" }
	print "{\"op\":\"free\",\"addr\":\"0x100000\"}"; print "{\"op\":\"end\"}" }' >"$TMPDIR/rounds.jsonl"
unp=0
for run in 1 2 3; do
	rm -f "$TMPDIR/u.gmprof"
	env GMPROF_COLLECTOR="$T/libgmprof.so" GMPROF_SANITIZER_LIB="$T/double/libsanitizer-public.so" \
		GMPROF_DOUBLE="$T/double/libsanitizer-public.so" GMPROF_PATCH="$TMPDIR/patches.fatbin" GMPROF_SUMMARY=0 \
		GMPROF_CAPTURE=profiler-api GMPROF_PATCH_AT=range GMP_DOUBLE_PROFILER=4,20,31,50,61,80 GMP_DOUBLE_STATS=3 GMP_DOUBLE_PATCH_MS=2 \
		GMPROF_OUTPUT="$TMPDIR/u.gmprof" TSAN_OPTIONS="halt_on_error=0 exitcode=66" \
		"$T/double/fake_app" --threads 8 "$TMPDIR/rounds.jsonl" >/dev/null 2>"$TMPDIR/tsan"
	rc=$?
	n=$(grep -c "WARNING: ThreadSanitizer" "$TMPDIR/tsan")
	[ "$rc" -eq 0 ] && [ "$n" -eq 0 ] && ok "unpatching after ranges, run $run: 8 threads, no abort, no ThreadSanitizer report" ||
		{ notok "unpatching after ranges, run $run: exit $rc, $n TSan reports"; grep -v '^double: ' "$TMPDIR/tsan" | head -30; }
	u=$(sed -n 's/^double: .*, \([0-9]*\) module unpatches$/\1/p' "$TMPDIR/tsan")
	unp=$((unp + ${u:-0}))
	"$GMPROF" dump "$TMPDIR/u.gmprof" 2>/dev/null | grep -q "\"key\":\"module_unpatches\",\"value\":\"${u:-none}\"" ||
		notok "unpatching after ranges, run $run: the double counted ${u:-no} unpatches, the profile says otherwise"
done
[ "$unp" -gt 0 ] && ok "unpatching after ranges: $unp unpatches in 3 runs" || notok "unpatching after ranges: never unpatched in 3 runs"
[ "$("$GMPROF" dump "$TMPDIR/c.gmprof" 2>/dev/null | grep -c '"monitored":false')" -eq 9 ] &&
	ok "capture launches:10-200: the 9 launches before the tenth are not monitored" || notok "capture launches:10-200: unmonitored launches"
# GMPROF_PATCH_AT=launch with 8 threads whose first launches come at once:
# one thread patches the module and the others wait for it.  On an H200
# each patched it again while the first one's kernels ran, which hit an
# illegal instruction; the double aborts on such a patching (and the slow
# patching, GMP_DOUBLE_PATCH_MS, makes the threads meet there).
for run in 1 2; do
	rm -f "$TMPDIR/l.gmprof"
	env GMPROF_COLLECTOR="$T/libgmprof.so" GMPROF_SANITIZER_LIB="$T/double/libsanitizer-public.so" \
		GMPROF_DOUBLE="$T/double/libsanitizer-public.so" GMPROF_PATCH="$TMPDIR/patches.fatbin" GMPROF_SUMMARY=0 \
		GMPROF_PATCH_AT=launch GMP_DOUBLE_STATS=3 GMP_DOUBLE_PATCH_MS=20 GMPROF_OUTPUT="$TMPDIR/l.gmprof" \
		TSAN_OPTIONS="halt_on_error=0 exitcode=66" "$T/double/fake_app" --threads 8 "$S" >/dev/null 2>"$TMPDIR/tsan"
	rc=$?
	n=$(grep -c "WARNING: ThreadSanitizer" "$TMPDIR/tsan")
	p=$(sed -n 's/^double: .*, \([0-9]*\) module patches, [0-9]* module unpatches$/\1/p' "$TMPDIR/tsan")
	[ "$rc" -eq 0 ] && [ "$n" -eq 0 ] && [ "$p" = 1 ] &&
		ok "patched at the first launch, run $run: 8 threads, the module patched once, no ThreadSanitizer report" ||
		{ notok "patched at the first launch, run $run: exit $rc, $n TSan reports, ${p:-no} patches"; grep -v '^double: ' "$TMPDIR/tsan" | head -30; }
	m=$("$GMPROF" dump "$TMPDIR/l.gmprof" 2>/dev/null | grep -c '"monitored":false')
	[ "$m" -eq 0 ] && ok "  ... every launch monitored" || notok "  ... $m launches not monitored"
done
# NVTX pool regions from 8 threads at once (NVTX calls take the collector's lock too).
# nvtx_tsan NAME SCRIPT WHAT [VAR=VALUE...]: the double on 8 threads under ThreadSanitizer,
# NVTX's tool the collector, into $TMPDIR/NAME.gmprof; no report, or notok naming WHAT.
nvtx_tsan() {
	_name=$1 _script=$2 _what=$3
	shift 3
	rm -f "$TMPDIR/$_name.gmprof"
	env GMPROF_COLLECTOR="$T/libgmprof.so" GMPROF_SANITIZER_LIB="$T/double/libsanitizer-public.so" \
		GMPROF_DOUBLE="$T/double/libsanitizer-public.so" GMPROF_PATCH="$TMPDIR/patches.fatbin" GMPROF_SUMMARY=0 \
		NVTX_INJECTION64_PATH="$T/libgmprof.so" GMPROF_OUTPUT="$TMPDIR/$_name.gmprof" "$@" \
		TSAN_OPTIONS="halt_on_error=0 exitcode=66" "$T/double/fake_app" --threads 8 "$_script" >/dev/null 2>"$TMPDIR/tsan"
	_rc=$?
	_n=$(grep -c "WARNING: ThreadSanitizer" "$TMPDIR/tsan")
	[ "$_rc" -eq 0 ] && [ "$_n" -eq 0 ] && ok "$_what: 8 threads, no ThreadSanitizer report" ||
		{ notok "$_what: exit $_rc, $_n TSan reports"; head -30 "$TMPDIR/tsan"; }
}
if [ -f "${CUDA_HOME:-/usr/local/cuda}/include/nvtx3/nvToolsExtMem.h" ]; then
	nvtx_tsan r tests/scripts/pool_regions.jsonl "NVTX regions"
	r=$("$GMPROF" dump "$TMPDIR/r.gmprof" 2>/dev/null | grep -c '"kind":"pool_region"')
	[ "$r" -eq 24 ] && ok "NVTX regions: 8 x 3 regions recorded" || notok "NVTX regions: $r regions recorded, want 24"
	"$GMPROF" replay "$TMPDIR/r.gmprof" >/dev/null 2>"$TMPDIR/err" && ok "NVTX regions: the profile replays" ||
		notok "NVTX regions: $(cat "$TMPDIR/err")"
	# NVTX ranges from 8 threads: pushed on each, and begun and ended by id
	# (nvtxRangeStart/End: the process's, in every thread's path; so how deep
	# "step" is nested depends on how the threads met: it need not be a root).
	nvtx_tsan n tests/scripts/nvtx_ranges.jsonl "NVTX ranges pushed and begun by id" GMP_DOUBLE_NVTX_RANGES=mixed
	"$GMPROF" report "$TMPDIR/n.gmprof" >"$TMPDIR/n.rep" 2>"$TMPDIR/err" &&
		sed -n '/^Memory by NVTX range on device 0$/,/^$/p' "$TMPDIR/n.rep" >"$TMPDIR/n.table" &&
		grep -q '^ *step  *[0-9.]* GiB' "$TMPDIR/n.table" &&
		ok "NVTX ranges: the report has the script's ranges" ||
		notok "NVTX ranges: $(cat "$TMPDIR/err") $(grep -A12 'NVTX range' "$TMPDIR/n.rep")"
	# Names registered from 8 threads at once (the same names: one entry each), pushed by handle,
	# and each thread named through NVTX.
	nvtx_tsan g tests/scripts/nvtx_ranges.jsonl "NVTX names registered, threads named" GMP_DOUBLE_NVTX_RANGES=registered \
		GMP_DOUBLE_NVTX_THREAD_NAMES=1
	[ "$("$GMPROF" dump "$TMPDIR/g.gmprof" 2>/dev/null | grep -c '"key":"thread\.[0-9]*\.name","value":"nvtx-worker-[1-8]"')" -eq 8 ] &&
		ok "  ... 8 threads named" || notok "  ... $("$GMPROF" dump "$TMPDIR/g.gmprof" 2>/dev/null | grep '"key":"thread')"
	"$GMPROF" report "$TMPDIR/g.gmprof" 2>/dev/null | grep -q '^  step  *[0-9.]* GiB' && ok "  ... the ranges named" ||
		notok "  ... $("$GMPROF" report "$TMPDIR/g.gmprof" 2>&1 | grep -A12 'NVTX range')"
	# NVTX marks from 8 threads at once (tests/cli/marks.sh), the five calls in turn.
	grep -v '"op":"end"' tests/fuzz/corpus/script/marks.jsonl | sed 's/,"thread":[0-9]*//' >"$TMPDIR/marks.jsonl"
	nvtx_tsan mk "$TMPDIR/marks.jsonl" "NVTX marks"
	[ "$("$GMPROF" dump "$TMPDIR/mk.gmprof" 2>/dev/null | grep -c '"op":"mark"')" -eq 40 ] && ok "  ... 8 x 5 marks recorded" ||
		notok "  ... $("$GMPROF" dump "$TMPDIR/mk.gmprof" 2>/dev/null | grep -c '"op":"mark"') marks"
	# Streams named through NVTX from 8 threads at once (tests/cli/stream_names.sh).
	nvtx_tsan sn "$S" "streams named" GMP_DOUBLE_NVTX_STREAM_NAMES=1
	[ "$("$GMPROF" dump "$TMPDIR/sn.gmprof" 2>/dev/null | grep -c '"key":"stream\.[0-9]*\.name","value":"nvtx-stream-[1-8]0[12]"')" -eq 16 ] &&
		ok "  ... 16 streams named" || notok "  ... $("$GMPROF" dump "$TMPDIR/sn.gmprof" 2>/dev/null | grep '"key":"stream')"
fi
finish
