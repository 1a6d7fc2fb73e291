# SPDX-License-Identifier: MIT
# GMPROF_CAPTURE (gmprof run --capture): only the launches in a range are
# monitored, between the program's cudaProfilerStart and cudaProfilerStop,
# inside an NVTX range of a name, or by their numbers; the others are recorded with their
# accesses unknown ("monitored": false), without call paths, and each
# counts as a use of every object live when it was issued.  Through the
# test double (GMP_DOUBLE_PROFILER makes its program call the profiler API
# before the events it names).  With GMPROF_PATCH_AT=launch, modules are
# patched at their first monitored launch.
. tests/cli/lib.sh
B=${BUILD:-build}/test
FAKE=$B/double/fake_app
use_double "$PWD/$B"

# w is written by init (outside the range), read by step (inside) and by
# last (outside); tmp lives inside the range only.
cat >"$TMPDIR/c.jsonl" <<'J'
{"op":"alloc","addr":"0x100000","size":4096}
{"op":"kernel","name":"init","write":["0x100000"]}
{"op":"alloc","addr":"0x200000","size":4096}
{"op":"kernel","name":"step","read":["0x100000"],"write":["0x200000"]}
{"op":"kernel","name":"step2","read":["0x200000"]}
{"op":"free","addr":"0x200000"}
{"op":"kernel","name":"last","read":["0x100000"]}
{"op":"free","addr":"0x100000"}
{"op":"end"}
J
cp "$TMPDIR/c.jsonl" "$TMPDIR/plain.jsonl"
# collect NAME [ENV...]: the profile of c.jsonl, its kernels, its report.
collect() {
	name=$1
	shift
	env "$@" GMPROF_FORCE=1 GMPROF_OUTPUT="$TMPDIR/$name.gmprof" "$FAKE" "$TMPDIR/c.jsonl" >/dev/null 2>"$TMPDIR/$name.err"
	kernels_of "$TMPDIR/$name.gmprof" >"$TMPDIR/$name.kernels"
	"$GMPROF" report "$TMPDIR/$name.gmprof" >"$TMPDIR/$name.report" 2>"$TMPDIR/$name.report.err"
}
paths() { sed -n 's/.*call paths [0-9.]* ms (\([0-9]*\) paths).*/\1/p' "$TMPDIR/$1.report"; }

collect all
[ "$(grep -c '"monitored":false' "$TMPDIR/all.kernels")" -eq 0 ] && grep -q '"step2","read":\["0x200000"\]' "$TMPDIR/all.kernels" &&
	ok "without a capture range every launch is monitored" || notok "all: $(cat "$TMPDIR/all.kernels")"

collect prof GMPROF_CAPTURE=profiler-api GMP_DOUBLE_PROFILER=2,6
printf '%s\n' '{"op":"kernel","name":"init","monitored":false}' \
	'{"op":"kernel","name":"step","read":["0x100000"],"write":["0x200000"]}' \
	'{"op":"kernel","name":"step2","read":["0x200000"]}' \
	'{"op":"kernel","name":"last","monitored":false}' | diff - "$TMPDIR/prof.kernels" >"$TMPDIR/diff" &&
	ok "profiler-api: the launches between cudaProfilerStart and cudaProfilerStop are monitored, exactly" ||
	{ notok "profiler-api: the launches"; cat "$TMPDIR/diff"; }
"$GMPROF" dump "$TMPDIR/prof.gmprof" | grep -q '"key":"capture","value":"profiler-api"' &&
	ok "  ... the profile says its capture range" || notok "  ... the profile says its capture range"
grep -q '^  capture  2 of 4 kernel launches monitored (GMPROF_CAPTURE=profiler-api); the 2 outside the range count as a use of every object live when they were issued$' "$TMPDIR/prof.report" &&
	ok "  ... the report says how many launches were monitored" || notok "  ... the report: $(grep capture "$TMPDIR/prof.report")"
"$GMPROF" html --force -o "$TMPDIR/prof.html" "$TMPDIR/prof.gmprof" 2>/dev/null &&
	grep -q '<dt>capture</dt><dd>2 of 4 kernel launches monitored' "$TMPDIR/prof.html" &&
	"$GMPROF" report --format markdown "$TMPDIR/prof.gmprof" 2>/dev/null | grep -q '^| capture | 2 of 4 kernel launches monitored' &&
	ok "  ... and its HTML and Markdown" || notok "  ... the HTML or Markdown report"
"$GMPROF" report --format json "$TMPDIR/prof.gmprof" 2>/dev/null |
	grep -q '"launches_without_access_sets":2,"capture":"profiler-api","launches":4' &&
	ok "  ... and its JSON, with the launches left out" || notok "  ... the report's JSON"
[ ! -s "$TMPDIR/prof.report.err" ] && ok "  ... and warns of nothing (they were left out on purpose)" ||
	notok "  ... warns: $(cat "$TMPDIR/prof.report.err")"
[ "$(paths prof)" -eq "$(($(paths all) - 2))" ] && ok "  ... the launches outside it have no call path" ||
	notok "  ... call paths: $(paths prof) with the range, $(paths all) without"
"$GMPROF" perfetto -o "$TMPDIR/prof.json" "$TMPDIR/prof.gmprof" 2>/dev/null
[ "$(grep -o '"cat":"KERNEL","args":{[^}]*"monitored":false' "$TMPDIR/prof.json" | wc -l)" -eq 2 ] &&
	ok "  ... the Perfetto trace marks them" || notok "  ... the trace: $(grep -o '"monitored":false' "$TMPDIR/prof.json" | wc -l) marked"
# Outside the range, w is used by init and last as far as gmprof knows: no
# unused, early or late allocation of it; with those launches monitored
# and touching nothing (the dump, edited), w is early.
"$GMPROF" replay "$TMPDIR/prof.gmprof" >"$TMPDIR/prof.replay" 2>&1
! grep -q 'obj#1' "$TMPDIR/prof.replay" && ok "  ... no finding on an object the unmonitored launches may have used" ||
	notok "  ... findings: $(cat "$TMPDIR/prof.replay")"
"$GMPROF" dump "$TMPDIR/prof.gmprof" | sed 's/"monitored":false/"read":[]/' >"$TMPDIR/edited.jsonl"
"$GMPROF" replay "$TMPDIR/edited.jsonl" | grep -q 'early_allocation: obj#1' &&
	ok "  ... which the same launches monitored would have been (the control)" ||
	notok "  ... the control: $("$GMPROF" replay "$TMPDIR/edited.jsonl" 2>&1)"
"$GMPROF" dump "$TMPDIR/prof.gmprof" >"$TMPDIR/prof.jsonl"
"$GMPROF" replay "$TMPDIR/prof.jsonl" 2>&1 | sed 1d >"$TMPDIR/from-dump"
sed 1d "$TMPDIR/prof.replay" | cmp -s - "$TMPDIR/from-dump" && grep -q 'findings\?' "$TMPDIR/from-dump" &&
	ok "  ... the dump replays to the same findings" || notok "  ... the dump replays to other findings"

# Never started: nothing is monitored; a start with no stop: to the end.
collect never GMPROF_CAPTURE=profiler-api
[ "$(grep -c '"monitored":false' "$TMPDIR/never.kernels")" -eq 4 ] &&
	ok "profiler-api: no launch is monitored before the program's first cudaProfilerStart" ||
	notok "never started: $(cat "$TMPDIR/never.kernels")"
grep -q '^  capture  none of the 4 kernel launches was monitored (GMPROF_CAPTURE=profiler-api): none was made between cudaProfilerStart and cudaProfilerStop, so no finding rests on what a kernel accessed$' "$TMPDIR/never.report" &&
	ok "  ... and the report says so" || notok "  ... the report: $(grep capture "$TMPDIR/never.report")"
collect open GMPROF_CAPTURE=profiler-api GMP_DOUBLE_PROFILER=3
[ "$(grep -c '"monitored":false' "$TMPDIR/open.kernels")" -eq 1 ] && grep -q '"last","read"' "$TMPDIR/open.kernels" &&
	ok "  ... and every one after a start that is never stopped" || notok "open: $(cat "$TMPDIR/open.kernels")"

# --kernels-from a profile whose peaks fell outside its capture range: nothing to choose, and why.
expect_exit 2 "gmprof run --kernels-from a profile that monitored no launch" -- env GMPROF_CUDA_DRIVER="$PWD/$B/double/libcuda-fake.so" \
	"$GMPROF" run --sanitizer-lib "$GMPROF_DOUBLE" --kernels-from "$TMPDIR/never.gmprof" -o "$TMPDIR/kf.gmprof" -- "$FAKE" "$TMPDIR/c.jsonl"
expect_stderr_line "touched what was live at its peaks (it monitored only the launches of its capture range, GMPROF_CAPTURE=profiler-api)" "  ... says it monitored only its capture range"

# launches:FIRST-LAST: the program's launches by number, from 1.
collect nth GMPROF_CAPTURE=launches:2-3
cmp -s "$TMPDIR/prof.kernels" "$TMPDIR/nth.kernels" && ok "launches:2-3: the second and third launches are monitored, exactly" ||
	{ notok "launches:2-3"; diff "$TMPDIR/prof.kernels" "$TMPDIR/nth.kernels"; }
collect summary GMPROF_CAPTURE=launches:2-3 GMPROF_SUMMARY=1 GMPROF_ONLINE=1
grep -q '^==gmprof== capture (GMPROF_CAPTURE=launches:2-3): 2 of 4 kernel launches monitored$' "$TMPDIR/summary.err" &&
	ok "  ... the collector's summary at exit says how many were monitored" || notok "  ... the summary: $(cat "$TMPDIR/summary.err")"
collect tail GMPROF_CAPTURE=launches:4-
[ "$(grep -c '"monitored":false' "$TMPDIR/tail.kernels")" -eq 3 ] && grep -q '"last","read"' "$TMPDIR/tail.kernels" &&
	ok "launches:4-: from the fourth to the end" || notok "launches:4-: $(cat "$TMPDIR/tail.kernels")"
collect past GMPROF_CAPTURE=launches:10-20
grep -q '^  capture  none of the 4 kernel launches was monitored (GMPROF_CAPTURE=launches:10-20): the program made fewer launches than the range.s first' "$TMPDIR/past.report" &&
	ok "  ... past the program's launches: none, and the report says why" || notok "launches:10-20: $(grep capture "$TMPDIR/past.report")"
for v in launches:0-2 launches:3-2 launches:2 "launches: 2-3" launches:2-3x launches:-3; do
	env GMPROF_CAPTURE="$v" GMPROF_OUTPUT="$TMPDIR/badl.gmprof" "$FAKE" "$TMPDIR/c.jsonl" >/dev/null 2>"$TMPDIR/err"
	expect_stderr_line "GMPROF_CAPTURE='$v' is not valid: expected all, profiler-api, nvtx:NAME" "GMPROF_CAPTURE='$v' refused in one sentence"
done

# gmprof run --capture: the summary says how many launches it monitored.
expect_exit 0 "gmprof run --capture profiler-api" -- env GMPROF_CUDA_DRIVER="$PWD/$B/double/libcuda-fake.so" \
	GMP_DOUBLE_PROFILER=2,6 "$GMPROF" run --sanitizer-lib "$GMPROF_DOUBLE" --capture profiler-api \
	-o "$TMPDIR/run.gmprof" -- "$FAKE" "$TMPDIR/c.jsonl"
grep -q '^  capture  2 of 4 kernel launches monitored (GMPROF_CAPTURE=profiler-api)' "$TMPDIR/out" &&
	ok "  ... its summary says how many launches were monitored" || notok "  ... its summary: $(cat "$TMPDIR/out")"

if [ -f "${CUDA_HOME:-/usr/local/cuda}/include/nvtx3/nvToolsExtMem.h" ]; then
	# The same program with NVTX ranges: step inside "iter" (inside "train"), step2 in "train" only.
	awk '/"step"/ { print "{\"op\":\"range_push\",\"name\":\"train\"}"; print "{\"op\":\"range_push\",\"name\":\"iter\"}" }
		{ print } /"step"/ { print "{\"op\":\"range_pop\"}" } /"step2"/ { print "{\"op\":\"range_pop\"}" }' \
		"$TMPDIR/c.jsonl" >"$TMPDIR/n.jsonl"
	cp "$TMPDIR/n.jsonl" "$TMPDIR/c.jsonl"
	collect nvtx GMPROF_CAPTURE=nvtx:iter
	[ "$(grep -c '"monitored":false' "$TMPDIR/nvtx.kernels")" -eq 3 ] && grep -q '"step","read"' "$TMPDIR/nvtx.kernels" &&
		ok "nvtx:iter: only the launches made inside an NVTX range iter are monitored" ||
		notok "nvtx: $(cat "$TMPDIR/nvtx.kernels")"
	collect nvtx-id GMPROF_CAPTURE=nvtx:iter GMP_DOUBLE_NVTX_RANGES=elsewhere
	cmp -s "$TMPDIR/nvtx.kernels" "$TMPDIR/nvtx-id.kernels" &&
		ok "nvtx:iter: also a range begun and ended by id on other threads (nvtxRangeStart/End)" ||
		notok "nvtx by id: $(cat "$TMPDIR/nvtx-id.kernels")"
	collect outer GMPROF_CAPTURE=nvtx:train
	[ "$(grep -c '"monitored":false' "$TMPDIR/outer.kernels")" -eq 2 ] &&
		ok "nvtx:train: at any depth of the thread's ranges" || notok "nvtx train: $(cat "$TMPDIR/outer.kernels")"
	# NAME is a glob: 'i?e*' is iter; 'x*' matches no range, so nothing is monitored.
	collect glob 'GMPROF_CAPTURE=nvtx:i?e*'
	cmp -s "$TMPDIR/nvtx.kernels" "$TMPDIR/glob.kernels" && ok "nvtx:i?e*: the glob matches iter" ||
		notok "nvtx glob: $(cat "$TMPDIR/glob.kernels")"
	collect none 'GMPROF_CAPTURE=nvtx:x*'
	[ "$(grep -c '"monitored":false' "$TMPDIR/none.kernels")" -eq 4 ] && ok "nvtx:x*: no range matches, none monitored" ||
		notok "nvtx none: $(cat "$TMPDIR/none.kernels")"
else
	echo "ok - skipped: the NVTX capture range (no nvtx3 headers: the test double has no NVTX)"
fi

# GMPROF_PATCH_AT=launch: a module is patched at its first monitored launch,
# so the kernels before the range run unpatched (the double counts the
# kernels that ran before their module was patched, and the patches), and
# what is monitored is exactly what it is when modules are patched at load.
patched() { sed -n 's/^double: .*, \([0-9]*\) kernels ran unpatched, \([0-9]*\) module patches, \([0-9]*\) module unpatches$/\1 \2 \3/p' "$TMPDIR/$1.err"; }
collect at-load GMPROF_CAPTURE=profiler-api GMP_DOUBLE_PROFILER=2,6 GMP_DOUBLE_STATS=3 GMPROF_PATCH_AT=load
collect at-launch GMPROF_CAPTURE=profiler-api GMP_DOUBLE_PROFILER=2,6 GMP_DOUBLE_STATS=3 GMPROF_PATCH_AT=launch
[ "$(patched at-load)" = "0 1 0" ] && [ "$(patched at-launch)" = "1 1 0" ] &&
	ok "GMPROF_PATCH_AT=launch: the module is patched at the range's first launch, the kernel before it runs unpatched" ||
	notok "GMPROF_PATCH_AT: at load '$(patched at-load)', at launch '$(patched at-launch)'"
# Unset, it is launch under a capture range (kernels outside it then run as they are), load without one.
collect at-default GMPROF_CAPTURE=profiler-api GMP_DOUBLE_PROFILER=2,6 GMP_DOUBLE_STATS=3
collect all-default GMP_DOUBLE_STATS=3
[ "$(patched at-default)" = "1 1 0" ] && [ "$(patched all-default)" = "0 1 0" ] &&
	cmp -s "$TMPDIR/at-load.kernels" "$TMPDIR/at-default.kernels" &&
	ok "GMPROF_PATCH_AT unset: launch under a capture range, the same launches monitored; load without a range" ||
	notok "GMPROF_PATCH_AT unset: with a range '$(patched at-default)', without '$(patched all-default)'"
cmp -s "$TMPDIR/at-load.kernels" "$TMPDIR/at-launch.kernels" && cmp -s "$TMPDIR/prof.kernels" "$TMPDIR/at-launch.kernels" &&
	ok "  ... the same launches monitored, with the same accesses" || notok "  ... the launches differ: $(diff "$TMPDIR/at-load.kernels" "$TMPDIR/at-launch.kernels")"
# Launch calls that name kernel handles (as the runtime may since CUDA 12): the module
# through cuKernelGetFunction's function, the same patching and launches.
collect at-launch-kh GMPROF_CAPTURE=profiler-api GMP_DOUBLE_PROFILER=2,6 GMP_DOUBLE_STATS=3 GMPROF_PATCH_AT=launch \
	FAKE_CUDA_KERNEL_HANDLES=1
[ "$(patched at-launch-kh)" = "1 1 0" ] && cmp -s "$TMPDIR/at-launch.kernels" "$TMPDIR/at-launch-kh.kernels" &&
	ok "  ... kernel handles in the launch calls: the module found through their functions" ||
	notok "  ... kernel handles: '$(patched at-launch-kh)' $(diff "$TMPDIR/at-launch.kernels" "$TMPDIR/at-launch-kh.kernels")"
# Each driver call a launch can come through names the function in its own place (cuLaunchKernelEx's after
# the launch's configuration): the same module patched at the same launch, the same launches monitored.
for api in cuLaunchKernelEx cuLaunchKernelEx_ptsz cuLaunchCooperativeKernel cuLaunchKernel_ptsz; do
	collect "at-$api" GMPROF_CAPTURE=profiler-api GMP_DOUBLE_PROFILER=2,6 GMP_DOUBLE_STATS=3 GMPROF_PATCH_AT=launch \
		GMP_DOUBLE_LAUNCH_API=$api
	[ "$(patched "at-$api")" = "1 1 0" ] && cmp -s "$TMPDIR/at-launch.kernels" "$TMPDIR/at-$api.kernels" &&
		ok "  ... launches through $api: the module patched at the range's first, the same launches monitored" ||
		notok "  ... $api: '$(patched "at-$api")' $(diff "$TMPDIR/at-launch.kernels" "$TMPDIR/at-$api.kernels")"
done
collect never-at-launch GMPROF_CAPTURE=profiler-api GMP_DOUBLE_STATS=3 GMPROF_PATCH_AT=launch
[ "$(patched never-at-launch)" = "4 0 0" ] && ok "  ... a range never started: no module patched, every kernel unpatched" ||
	notok "  ... never started: '$(patched never-at-launch)'"
collect all-at-launch GMP_DOUBLE_STATS=3 GMPROF_PATCH_AT=launch
[ "$(patched all-at-launch)" = "0 1 0" ] && cmp -s "$TMPDIR/all.kernels" "$TMPDIR/all-at-launch.kernels" &&
	ok "  ... without a range: patched at the first launch, every launch monitored as at load" ||
	notok "  ... without a range: '$(patched all-at-launch)'"

# A module is patched before its first monitored launch, as the driver's
# launch call begins, never from the launch's callback (on an H100 that
# deadlocked; the double aborts on it).  Where no launch call announced the
# kernel (a driver without cuFuncGetModule, as GMP_DOUBLE_DRIVER_LAUNCH=0
# has it), that launch runs unmonitored and unpatched, the module is
# patched as the program's call returns, and the next launch is monitored;
# it is said once.
cp "$TMPDIR/plain.jsonl" "$TMPDIR/c.jsonl" # without the NVTX ranges added above
collect late GMPROF_CAPTURE=profiler-api GMP_DOUBLE_PROFILER=2,6 GMP_DOUBLE_STATS=3 GMPROF_PATCH_AT=launch GMP_DOUBLE_DRIVER_LAUNCH=0
[ "$(patched late)" = "2 1 0" ] && [ "$(grep -c '"monitored":false' "$TMPDIR/late.kernels")" -eq 3 ] &&
	grep -q '"step","monitored":false' "$TMPDIR/late.kernels" && grep -q '"step2","read":\["0x200000"\]' "$TMPDIR/late.kernels" &&
	ok "GMPROF_PATCH_AT=launch, no launch call: the range's first launch unmonitored, the module patched after its call" ||
	notok "no launch call: '$(patched late)' $(cat "$TMPDIR/late.kernels" "$TMPDIR/late.err")"
[ "$(grep -c 'GMPROF_PATCH_AT=launch: a kernel was launched with no launch call to patch its module before' "$TMPDIR/late.err")" = 1 ] &&
	ok "  ... said once" || notok "  ... said: $(cat "$TMPDIR/late.err")"
# The same under the default for a range: said as the default, with the way to monitor it.
collect late-default GMPROF_CAPTURE=profiler-api GMP_DOUBLE_PROFILER=2,6 GMP_DOUBLE_STATS=3 GMP_DOUBLE_DRIVER_LAUNCH=0
[ "$(grep -c '"monitored":false' "$TMPDIR/late-default.kernels")" -eq 3 ] &&
	grep -q '^gmprof: GMPROF_PATCH_AT=launch (the default under a capture range): a kernel was launched with no launch call .*after it (GMPROF_PATCH_AT=load monitors it, at the cost of patched kernels outside the range)$' \
		"$TMPDIR/late-default.err" &&
	ok "GMPROF_PATCH_AT unset, no launch call: its first launch unmonitored, said with GMPROF_PATCH_AT=load" ||
	notok "late-default: $(cat "$TMPDIR/late-default.kernels" "$TMPDIR/late-default.err")"
# A graph launch's call (cuGraphLaunch) names no kernel: one that will be monitored first patches
# every module the context loaded, so its nodes are monitored from its first launch, as at load
# (said once); one outside the range patches nothing.
collect graph-load GMPROF_CAPTURE=profiler-api GMP_DOUBLE_PROFILER=2,6 GMP_DOUBLE_STATS=3 GMPROF_PATCH_AT=load GMP_DOUBLE_GRAPH=1
for at in launch default; do
	collect "graph-$at" GMPROF_CAPTURE=profiler-api GMP_DOUBLE_PROFILER=2,6 GMP_DOUBLE_STATS=3 GMP_DOUBLE_GRAPH=1 \
		$([ $at = launch ] && echo GMPROF_PATCH_AT=launch)
	[ "$(patched "graph-$at")" = "1 1 0" ] && cmp -s "$TMPDIR/graph-load.kernels" "$TMPDIR/graph-$at.kernels" &&
		[ "$(grep -c '"monitored":false' "$TMPDIR/graph-$at.kernels")" -eq 1 ] &&
		ok "graphs, GMPROF_PATCH_AT $([ $at = launch ] && echo =launch || echo unset): patched at the range's first graph launch, the same launches monitored as at load" ||
		notok "graphs, $at: '$(patched "graph-$at")' $(diff "$TMPDIR/graph-load.kernels" "$TMPDIR/graph-$at.kernels")"
	[ "$(grep -c '^gmprof: GMPROF_PATCH_AT=launch: a CUDA graph launch is monitored, so every module the program loaded is patched before it' "$TMPDIR/graph-$at.err")" = 1 ] &&
		! grep -q 'no launch call' "$TMPDIR/graph-$at.err" && ok "  ... said once" || notok "  ... said: $(cat "$TMPDIR/graph-$at.err")"
done
# A module unloaded and loaded again at the same handle inside the range is no longer patched:
# its next monitored launch patches it again (the double's kernels report nothing unpatched).
for at in launch load; do
	collect "reload-$at" GMPROF_CAPTURE=profiler-api GMP_DOUBLE_PROFILER=2,6 GMP_DOUBLE_STATS=3 GMPROF_PATCH_AT=$at \
		GMP_DOUBLE_RELOAD_AT=5
	[ "$(patched "reload-$at")" = "$([ $at = launch ] && echo 1 || echo 0) 2 0" ] &&
		cmp -s "$TMPDIR/at-launch.kernels" "$TMPDIR/reload-$at.kernels" &&
		ok "a module loaded again at its handle, GMPROF_PATCH_AT=$at: patched again, the same launches and accesses" ||
		notok "reload, $at: '$(patched "reload-$at")' $(diff "$TMPDIR/at-launch.kernels" "$TMPDIR/reload-$at.kernels")"
done
collect graph-never GMPROF_CAPTURE=profiler-api GMP_DOUBLE_STATS=3 GMP_DOUBLE_GRAPH=1
[ "$(patched graph-never)" = "4 0 0" ] && ! grep -q 'CUDA graph' "$TMPDIR/graph-never.err" &&
	ok "graphs outside a range never started: no module patched, nothing said" ||
	notok "graph-never: '$(patched graph-never)' $(cat "$TMPDIR/graph-never.err")"

# GMPROF_PATCH_AT=range: as launch, and once the range is over, a context
# sync that covered every launch unpatches the module (the double aborts if
# a kernel may still be running then, or starts meanwhile); the range's
# next launch patches it again.  r.jsonl: a range over step, a sync (inside
# it: nothing unpatched) and step2, a sync, after (unpatched), a range over
# again, last (outside it, but the module patched: no sync since), a sync.
cat >"$TMPDIR/r.jsonl" <<'J'
{"op":"alloc","addr":"0x100000","size":4096}
{"op":"kernel","name":"init","write":["0x100000"]}
{"op":"alloc","addr":"0x200000","size":4096}
{"op":"kernel","name":"step","read":["0x100000"],"write":["0x200000"]}
{"op":"sync"}
{"op":"kernel","name":"step2","read":["0x200000"]}
{"op":"sync"}
{"op":"kernel","name":"after","read":["0x100000"]}
{"op":"sync"}
{"op":"kernel","name":"again","read":["0x200000"],"write":["0x100000"]}
{"op":"free","addr":"0x200000"}
{"op":"kernel","name":"last","read":["0x100000"]}
{"op":"sync"}
{"op":"free","addr":"0x100000"}
{"op":"end"}
J
cp "$TMPDIR/r.jsonl" "$TMPDIR/c.jsonl"
for at in load launch range; do
	collect "r-$at" GMPROF_CAPTURE=profiler-api GMP_DOUBLE_PROFILER=2,6,9,10 GMP_DOUBLE_STATS=3 GMPROF_PATCH_AT=$at \
		GMPROF_SUMMARY=1 GMPROF_ONLINE=1 GMP_DOUBLE_PATCH_MS=20
done
[ "$(patched r-load)" = "0 1 0" ] && [ "$(patched r-launch)" = "1 1 0" ] && [ "$(patched r-range)" = "2 2 2" ] &&
	ok "GMPROF_PATCH_AT=range: unpatched at the sync after each range, patched again by the next range's launch" ||
	notok "GMPROF_PATCH_AT=range: load '$(patched r-load)', launch '$(patched r-launch)', range '$(patched r-range)'"
[ "$(grep -c '"monitored":false' "$TMPDIR/r-range.kernels")" -eq 3 ] &&
	cmp -s "$TMPDIR/r-load.kernels" "$TMPDIR/r-range.kernels" && grep -q '"again","read":\["0x200000"\],"write":\["0x100000"\]' "$TMPDIR/r-range.kernels" &&
	ok "  ... the same launches monitored as at load, with the same accesses (the range's after patching again too)" ||
	notok "  ... the launches differ: $(diff "$TMPDIR/r-load.kernels" "$TMPDIR/r-range.kernels")"
grep -q '^==gmprof== capture (GMPROF_CAPTURE=profiler-api): 3 of 6 kernel launches monitored; 2 module unpatches after it$' "$TMPDIR/r-range.err" &&
	! grep -q 'unpatches after it' "$TMPDIR/r-launch.err" &&
	"$GMPROF" dump "$TMPDIR/r-range.gmprof" | grep -q '"key":"module_unpatches","value":"2"' &&
	ok "  ... the summary and the profile say how many times a module was unpatched" ||
	notok "  ... the summary: $(grep capture "$TMPDIR/r-range.err")"
grep -q '^  capture  3 of 6 kernel launches monitored (GMPROF_CAPTURE=profiler-api); the 3 outside the range count as a use of every object live when they were issued; kernels ran unpatched after it (2 module unpatches, GMPROF_PATCH_AT=range)$' "$TMPDIR/r-range.report" &&
	grep -q '^  capture  3 of 6 kernel launches monitored (GMPROF_CAPTURE=profiler-api); the 3 outside the range count as a use of every object live when they were issued$' "$TMPDIR/r-launch.report" &&
	ok "  ... and so does the report" || notok "  ... the report: $(grep capture "$TMPDIR/r-range.report")"
# A range by launch numbers ends for good: unpatched at the first sync after it.
collect r-nth GMPROF_CAPTURE=launches:2-3 GMP_DOUBLE_STATS=3 GMPROF_PATCH_AT=range
[ "$(patched r-nth)" = "4 1 1" ] && [ "$(grep -c '"monitored":false' "$TMPDIR/r-nth.kernels")" -eq 4 ] &&
	ok "  ... launches:2-3: patched at the second launch, unpatched at the sync after the third, the rest unpatched" ||
	notok "  ... launches:2-3: '$(patched r-nth)'"
# Without a range, or with NVTX ranges (each thread opens them again), nothing is unpatched.
collect r-all GMP_DOUBLE_STATS=3 GMPROF_PATCH_AT=range
[ "$(patched r-all)" = "0 1 0" ] && ok "  ... every launch monitored: the module stays patched" ||
	notok "  ... without a range: '$(patched r-all)'"
grep -q "GMPROF_PATCH_AT=range unpatches modules only after a profiler-api or launches: capture range" "$TMPDIR/r-all.err" &&
	! grep -q "unpatches modules only" "$TMPDIR/r-nth.err" &&
	ok "  ... and the collector says so when it starts, in one line" || notok "  ... no word of it: $(cat "$TMPDIR/r-all.err")"
# A stream sync covers one stream's work only: nothing is unpatched at it.
sed 's/{"op":"sync"}/{"op":"sync","stream":0}/' "$TMPDIR/r.jsonl" >"$TMPDIR/c.jsonl"
collect r-stream GMPROF_CAPTURE=profiler-api GMP_DOUBLE_PROFILER=2,6,9,10 GMP_DOUBLE_STATS=3 GMPROF_PATCH_AT=range
[ "$(patched r-stream)" = "1 1 0" ] && ok "  ... a stream sync unpatches nothing" || notok "  ... stream syncs: '$(patched r-stream)'"
# An unpatch that fails (GMP_DOUBLE_FAIL=unpatch:1): the module stays patched, the kernel after
# the range runs patched (one unpatched where there were two), and the next sync unpatches it.
cp "$TMPDIR/r.jsonl" "$TMPDIR/c.jsonl"
collect r-unpatch GMP_DOUBLE_FAIL=unpatch:1 GMPROF_CAPTURE=profiler-api GMP_DOUBLE_PROFILER=2,6,9,10 GMP_DOUBLE_STATS=3 \
	GMPROF_PATCH_AT=range
[ "$(patched r-unpatch)" = "1 2 2" ] && cmp -s "$TMPDIR/r-range.kernels" "$TMPDIR/r-unpatch.kernels" &&
	ok "  ... an unpatch that fails: tried again at the next sync, the same launches monitored" ||
	notok "  ... a failed unpatch: '$(patched r-unpatch)' $(diff "$TMPDIR/r-range.kernels" "$TMPDIR/r-unpatch.kernels")"
[ "$(grep -c 'gmprof: sanitizerUnpatchModule failed (.*); kernels after the capture range stay patched until a later synchronization unpatches them$' "$TMPDIR/r-unpatch.err")" = 1 ] &&
	ok "  ... said in one line" || notok "  ... said: $(cat "$TMPDIR/r-unpatch.err")"

# Bad values: one sentence each, before anything runs.
expect_exit 0 "a bad GMPROF_CAPTURE: the program still runs" -- env GMPROF_CAPTURE=nvtx: GMPROF_OUTPUT="$TMPDIR/bad.gmprof" "$FAKE" "$TMPDIR/c.jsonl"
expect_stderr_line "GMPROF_CAPTURE='nvtx:' is not valid: expected all, profiler-api, nvtx:NAME" "  ... unprofiled, and says why in one line"
expect_exit 2 "gmprof run --capture with a bad range" -- "$GMPROF" run --capture everything -- true
expect_stderr_line "bad value 'everything' for --capture: expected all, profiler-api, nvtx:NAME" "  ... one sentence"
expect_exit 2 "gmprof run --capture in alloc mode" -- "$GMPROF" run --mode alloc --capture profiler-api -- true
expect_stderr_line "--mode alloc monitors none" "  ... one sentence"
finish
