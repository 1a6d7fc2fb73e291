#!/bin/sh
# SPDX-License-Identifier: MIT
# make gpu-check: on a machine with a GPU, check the collector against the
# real Compute Sanitizer.
#  1. The toolkit's Sanitizer headers agree with gmprof's own declarations
#     on every size, offset and constant the collector uses.
#  2. Each program in tests/gpu/ runs under `gmprof run`, and its findings
#     equal the .expect file beside it, exactly: a line "PATTERN OBJECT"
#     per finding, or "PATTERN *N" for N findings of a pattern; where a
#     .failures file is beside it, the allocations that ran out of memory
#     are those it lists ("API KIND" each, in order); where a .report
#     file is, each of its lines appears in `gmprof report`'s output; where
#     a .meta file is, the profile has each META it lists ("KEY VALUE"); where
#     a .marks file is, the profile's NVTX marks are those it lists, in order; where
#     a .launches file is, as many kernel launches' accesses name its objects as
#     each line says ("OBJ[,OBJ...] COUNT", or "none COUNT": launches with none); where
#     a .touched file is, the launches with intra touches recorded are those it
#     says ("touches" or "none" a launch, in order); a .env file holds settings
#     (VAR=VALUE, split on spaces) for each of its runs; where
#     a .waits file is, each finding it names waited (by the host's clock)
#     at least and at most as long as it says ("PATTERN OBJECT MIN_MS MAX_MS"),
#     and where a .returned.waits file is, as it says too (ranges that only
#     the syncs' returns, the collector's RETURNED records, make that narrow);
#     a .nvcc file holds the flags its build needs besides the others;
#     where a .child.expect file is, the profile the program's child process
#     wrote (NAME.child.gmprof: the program names it) has those findings, and
#     the lines of a .child.report file are in its report.
#     A program that runs past GPU_TEST_LIMIT seconds (60) fails; SKIP="a b"
#     leaves programs out.  One whose findings differ runs again with the
#     Sanitizer's callbacks logged, and under GMPROF_FALLBACK, to say which
#     mechanism not yet run on a GPU the difference comes from (a graph
#     program's, also with GMPROF_GRAPH_NODE_DATA=function).  A graph
#     program whose graph launches the detector merged (a kernel node
#     reported no access while another reported some: which node made which
#     access is unknown, detector/graphs.c) may equal its .merged file
#     instead, the findings of each node making every access of its launch.
#  3. The benchmark programs in benchmarks/cuda/ (when present) likewise.
#  4. Two of them again with lazy module loading; seven runs with modules
#     patched at their first monitored launch (GMPROF_PATCH_AT=launch), three
#     of them unpatched after each capture range too (GMPROF_PATCH_AT=range).
#  5. Six of them again with GMPROF_PATCH_LOADS=l1 (and GMPROF_PATCH_HINTS=1,
#     and GMPROF_API_CALLBACKS=needed: the callbacks it turned off named in
#     the profile, none of them called after).
#  6. --kernels-from on two of them.
#  7. Six of them in alloc mode: object mode's peaks, the expected leaks.
#  8. The collector's record of its own time in every profile of 2 and 3,
#     and the device's name, memory and CUDA version as nvidia-smi gives them.
#  9. The benchmark programs again at BENCH_SCALE=2 (make bench-gpu SCALE):
#     the same findings, and in intra mode each touch counted twice as often.
# 10. Device patches without code for this GPU: the program runs, the
#     collector says they did not load, and a pattern gate fails (monitored).
# Profiles are left in $OUT_DIR (build/gpu) for `make gpu-record`.
set -u
BUILD=${BUILD:-build}
NVCC=${NVCC:-nvcc}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
OUT_DIR=$BUILD/gpu
LIMIT=${GPU_TEST_LIMIT:-60} # seconds per program under gmprof: a hang fails, not stalls (the slowest, three_mm, took 6.3 s in object mode on an H100, twice that at BENCH_SCALE=2)
G=$BUILD/rel/gmprof
mkdir -p "$OUT_DIR"
pass=0
fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

# 1. Header agreement.
SAN_INC=$CUDA_HOME/compute-sanitizer/include
if [ -f "$SAN_INC/sanitizer.h" ]; then
	if cc -std=c11 -D_DEFAULT_SOURCE -DGMP_HAVE_SANITIZER_HEADERS -I"$CUDA_HOME/include" -I"$SAN_INC" \
		-Icollector -Itests/gpu -o "$OUT_DIR/layout_toolkit" tests/gpu/layout.c 2>"$OUT_DIR/layout.err"; then
		"$OUT_DIR/layout_toolkit" >"$OUT_DIR/layout.toolkit"
		if diff -u tests/gpu/layout.expected "$OUT_DIR/layout.toolkit" >"$OUT_DIR/layout.diff"; then
			ok "toolkit headers agree with gmprof's declarations ($(wc -l <tests/gpu/layout.expected) facts)"
		else
			bad "toolkit headers differ from gmprof's declarations:"; cat "$OUT_DIR/layout.diff"
		fi
	else
		bad "layout check does not build against the toolkit headers:"; cat "$OUT_DIR/layout.err"
	fi
else
	bad "no Compute Sanitizer headers in $SAN_INC: cannot check the declarations"
fi

# 2./3. Programs with expected findings.
. tests/gpu/expect.sh
mode_of() { # DIR/NAME: the mode its program runs in, from NAME.mode (object when there is none)
	if [ -f "$1.mode" ]; then cat "$1.mode"; else echo object; fi
}
# A program whose findings differ: which of the mechanisms not yet run on a
# GPU (GMPROF_FALLBACK) it comes from.  All of them replaced first; when
# that gives the expected findings, each alone, to name the one.  For the
# first FALLBACK_TRIES (3) such programs: one fault can fail them all, and
# the check must fit a lease.
tries=${FALLBACK_TRIES:-3}
fallbacks() { # NAME MODE EXPECT
	[ "$tries" -gt 0 ] || return
	tries=$((tries - 1))
	for fb in all hit-list two-tables table-reuse hit-epochs object-callback device-lists launch-headers pinned-reads; do
		# shellcheck disable=SC2086
		timeout "$LIMIT" env $penv GMPROF_FALLBACK=$fb "$G" run --mode "$2" --capture "$capture" --force --top 0 \
			-o "$OUT_DIR/$1.fb.gmprof" -- "$OUT_DIR/$1" >"$OUT_DIR/$1.fb.log" 2>&1
		if check "$1.fb" "$OUT_DIR/$1.fb.gmprof" "$3"; then
			echo "  findings as expected with GMPROF_FALLBACK=$fb"
		else
			echo "  findings differ with GMPROF_FALLBACK=$fb too"
			[ "$fb" = all ] && return
		fi
	done
}
# A graph program: its kernel nodes given their buffers per function instead
# of per launch (GMPROF_GRAPH_NODE_DATA=function); says whether that gives
# the exact findings (for docs/sanitizer-api.md, CUDA graphs).
graph_fn() { # NAME MODE EXPECT
	"$G" report "$OUT_DIR/$1.gmprof" 2>/dev/null | grep '^  graphs ' | sed 's/^ */  report: /'
	# shellcheck disable=SC2086
	timeout "$LIMIT" env $penv GMPROF_GRAPH_NODE_DATA=function "$G" run --mode "$2" --force --top 0 \
		-o "$OUT_DIR/$1.gfn.gmprof" -- "$OUT_DIR/$1" >"$OUT_DIR/$1.gfn.log" 2>&1
	if check "$1.gfn" "$OUT_DIR/$1.gfn.gmprof" "$3"; then
		echo "  findings as expected with GMPROF_GRAPH_NODE_DATA=function"
	else
		echo "  findings differ with GMPROF_GRAPH_NODE_DATA=function too:"; sed 's/^/    /' "$OUT_DIR/$1.gfn.diff"
	fi
}
# Every program is built first, all at once: serially their builds took
# about a minute of a lease.
for src in tests/gpu/*.cu benchmarks/cuda/*.cu; do
	name=$(basename "$src" .cu)
	[ -f "$(dirname "$src")/$name.expect" ] || continue
	rm -f "$OUT_DIR/$name" "$OUT_DIR/$name.build.rc"
	# shellcheck disable=SC2046 # NAME.nvcc: the flags a program needs besides these (split on purpose)
	{ "$NVCC" -O2 -g -lineinfo -Xcompiler -rdynamic -o "$OUT_DIR/$name" "$src" -lpthread \
		$(cat "$(dirname "$src")/$name.nvcc" 2>/dev/null) >"$OUT_DIR/$name.build" 2>&1
	  echo $? >"$OUT_DIR/$name.build.rc"; } &
done
wait
for src in tests/gpu/*.cu benchmarks/cuda/*.cu; do
	[ -f "$src" ] || continue
	name=$(basename "$src" .cu)
	dir=$(dirname "$src")
	exp="$dir/$name.expect"
	[ -f "$exp" ] || continue
	mode=$(mode_of "$dir/$name")
	capture=all # a capture range, from NAME.capture
	[ -f "$dir/$name.capture" ] && capture=$(cat "$dir/$name.capture")
	if [ "$(cat "$OUT_DIR/$name.build.rc" 2>/dev/null)" != 0 ]; then
		bad "$name: does not build"; cat "$OUT_DIR/$name.build"; continue
	fi
	case " ${SKIP:-} " in *" $name "*) echo "skip $name (SKIP)"; continue ;; esac
	penv=$(cat "$dir/$name.env" 2>/dev/null) # NAME.env: VAR=VALUE settings for each of its runs here
	lim=$LIMIT # a program of what gmprof has not yet run on a GPU says how long it may take (NAME.limit)
	[ -f "$dir/$name.limit" ] && lim=$(cat "$dir/$name.limit")
	# shellcheck disable=SC2086 # penv: settings, split on purpose
	timeout "$lim" env $penv "$G" run --mode "$mode" --capture "$capture" --force --top 0 -o "$OUT_DIR/$name.gmprof" \
		-- "$OUT_DIR/$name" >"$OUT_DIR/$name.log" 2>&1
	rc=$?
	if [ $rc = 124 ]; then
		bad "$name: did not finish in $lim s under gmprof (a hang?)"; cat "$OUT_DIR/$name.log"; continue
	elif [ $rc != 0 ]; then
		bad "$name: the program failed under gmprof (status $rc)"; cat "$OUT_DIR/$name.log"; continue
	fi
	if [ -f "$dir/$name.failures" ]; then
		# Allocations that ran out of memory: "API KIND" per failure, in order.
		"$G" dump "$OUT_DIR/$name.gmprof" 2>/dev/null | grep '"op":"alloc_failed"' |
			sed -E 's/.*"size":([0-9]+)(,"kind":"([a-z_]+)")?,"api":"([A-Za-z0-9_]+)".*/\4 \3/; s/ $/ device/' \
			>"$OUT_DIR/$name.failures.got"
		if diff -u "$dir/$name.failures" "$OUT_DIR/$name.failures.got" >"$OUT_DIR/$name.failures.diff"; then
			ok "$name: failed allocations recorded as expected"
		else
			bad "$name: failed allocations"; cat "$OUT_DIR/$name.failures.diff"
		fi
		# oom.cu asks for twice the device's memory: the driver, asked at the failure, says how much that is.
		line=$("$G" dump "$OUT_DIR/$name.gmprof" 2>/dev/null | grep -m1 '"op":"alloc_failed"')
		size=$(echo "$line" | sed -n 's/.*"size":\([0-9]*\).*/\1/p')
		total=$(echo "$line" | sed -n 's/.*"device_total":\([0-9]*\).*/\1/p')
		if [ "$name" = oom ]; then
			if [ -n "$total" ] && [ "$size" = "$((2 * total))" ]; then
				ok "$name: the device's memory recorded at the failure (half the request)"
			else
				bad "$name: the device's memory at the failure: $line"
			fi
		fi
	fi
	if [ -f "$dir/$name.report" ]; then
		"$G" report "$OUT_DIR/$name.gmprof" >"$OUT_DIR/$name.report.got" 2>&1
		missing=$(while IFS= read -r l; do grep -qF -- "$l" "$OUT_DIR/$name.report.got" || echo "$l"; done <"$dir/$name.report")
		if [ -z "$missing" ]; then
			ok "$name: the report says what it should"
		else
			bad "$name: the report lacks: $missing"
		fi
	fi
	if [ -f "$dir/$name.child.expect" ]; then # its child process's profile (ipc.cu)
		if [ ! -f "$OUT_DIR/$name.child.gmprof" ]; then
			bad "$name: its child process wrote no profile"
		elif check "$name.child" "$OUT_DIR/$name.child.gmprof" "$dir/$name.child.expect"; then
			ok "$name: its child's findings as expected"
		else
			bad "$name: its child's findings:"; cat "$OUT_DIR/$name.child.diff"
		fi
		if [ -f "$dir/$name.child.report" ]; then
			"$G" report "$OUT_DIR/$name.child.gmprof" >"$OUT_DIR/$name.child.report.got" 2>&1
			missing=$(while IFS= read -r l; do grep -qF -- "$l" "$OUT_DIR/$name.child.report.got" || echo "$l"; done \
				<"$dir/$name.child.report")
			[ -z "$missing" ] && ok "$name: its child's report says what it should" ||
				bad "$name: its child's report lacks: $missing"
		fi
	fi
	if [ -f "$dir/$name.meta" ]; then # META values the collector must write: "KEY VALUE" lines
		"$G" dump "$OUT_DIR/$name.gmprof" >"$OUT_DIR/$name.meta.got" 2>/dev/null
		missing=$(while read -r k v; do
			grep -qF "\"key\":\"$k\",\"value\":\"$v\"" "$OUT_DIR/$name.meta.got" || echo "$k $v"
		done <"$dir/$name.meta")
		if [ -z "$missing" ]; then
			ok "$name: the profile's META as expected"
		else
			bad "$name: META lacks: $missing (has: $(grep -F "$(cut -d' ' -f1 "$dir/$name.meta" | head -1)" "$OUT_DIR/$name.meta.got"))"
		fi
	fi
	if [ -f "$dir/$name.touched" ]; then # per launch, in order: "touches" where intra touches were recorded, or "none"
		touched_of "$OUT_DIR/$name.gmprof" >"$OUT_DIR/$name.touched.got"
		if diff -u "$dir/$name.touched" "$OUT_DIR/$name.touched.got" >"$OUT_DIR/$name.touched.diff"; then
			ok "$name: the launches with intra touches as expected"
		else
			bad "$name: launches with intra touches:"; cat "$OUT_DIR/$name.touched.diff"
		fi
	fi
	if [ -f "$dir/$name.launches" ]; then # "OBJ[,OBJ...] COUNT": launches whose accesses name those objects
		if launches_check "$name" "$OUT_DIR/$name.gmprof" "$dir/$name.launches"; then
			ok "$name: each launch's accesses as expected ($(grep -c . "$OUT_DIR/$name.launches.got") launches)"
		else
			bad "$name: launches' accesses:"; cat "$OUT_DIR/$name.launches.diff"
		fi
		"$G" report "$OUT_DIR/$name.gmprof" 2>/dev/null | grep '^  graphs ' | sed 's/^ */  report: /'
	fi
	if [ -f "$dir/$name.marks" ]; then # the NVTX marks the profile must hold, in order: a name a line
		"$G" dump "$OUT_DIR/$name.gmprof" 2>/dev/null | sed -n 's/^{"op":"mark","name":"\([^"]*\)".*/\1/p' >"$OUT_DIR/$name.marks.got"
		if diff -u "$dir/$name.marks" "$OUT_DIR/$name.marks.got" >"$OUT_DIR/$name.marks.diff"; then
			ok "$name: its NVTX marks recorded"
		else
			bad "$name: NVTX marks:"; cat "$OUT_DIR/$name.marks.diff"
		fi
	fi
	if [ -f "$dir/$name.waits" ]; then
		if waits_check "$name" "$OUT_DIR/$name.gmprof" "$dir/$name.waits"; then
			ok "$name: its findings waited as long as the program made them"
		else
			bad "$name: waits by the host's clock:"; cat "$OUT_DIR/$name.waits.diff"
		fi
	fi
	# How many of its syncs got a return (a query's sync has none: it is stamped at its call's end already).
	"$G" dump "$OUT_DIR/$name.gmprof" 2>/dev/null | awk -v n="$name" '/"op":"sync"/ { s++; r += /"returned_ns"/ }
		END { if (s) printf "  %s: %d of %d syncs with a return\n", n, r, s }'
	if [ -f "$dir/$name.returned.waits" ]; then # tighter: bounded where each sync returned (RETURNED records)
		if waits_check "$name" "$OUT_DIR/$name.gmprof" "$dir/$name.returned.waits"; then
			ok "$name: its findings' waits bounded by its syncs' returns"
		else
			bad "$name: waits by the syncs' returns:"; cat "$OUT_DIR/$name.waits.diff"
		fi
	fi
	merged=$("$G" report --format json "$OUT_DIR/$name.gmprof" 2>/dev/null |
		sed -n 's/.*"graph_launches_merged": *\([0-9]*\).*/\1/p' | head -1)
	if check "$name" "$OUT_DIR/$name.gmprof" "$exp"; then
		ok "$name ($mode): findings as expected"
	elif [ -n "$merged" ] && [ -f "$dir/$name.merged" ] &&
		check "$name.merged" "$OUT_DIR/$name.gmprof" "$dir/$name.merged"; then
		# A graph launch's kernel nodes reported into one buffer: the detector merged them (detector/graphs.c).
		ok "$name ($mode): findings as expected of $merged graph launches whose kernel nodes' accesses mixed, merged ($name.merged)"
		graph_fn "$name" "$mode" "$exp"
	else
		bad "$name ($mode):"; cat "$OUT_DIR/$name.diff"
		# What the Sanitizer delivered, to see why (memory callbacks first).
		# shellcheck disable=SC2086
		timeout "$LIMIT" env $penv GMPROF_LOG_CALLBACKS=1 "$G" run --mode "$mode" --force --top 0 \
			-o "$OUT_DIR/$name.log.gmprof" -- "$OUT_DIR/$name" 2>&1 | grep -E '^gmprof: (callback|api) ' \
			>"$OUT_DIR/$name.callbacks"
		echo "  $(wc -l <"$OUT_DIR/$name.callbacks") callbacks; those with memory data, and graphs':"
		grep -E ' address | graph stream | node type |^gmprof: api ' "$OUT_DIR/$name.callbacks" | head -40 | sed 's/^/  /'
		fallbacks "$name" "$mode" "$exp"
		case $name in graph*) graph_fn "$name" "$mode" "$exp" ;; esac
	fi
done
# 4. Lazy module loading (the CUDA default; gmprof run asks for eager loading
#    unless told): kernels loaded on first launch are patched when they load
#    and give the same findings.
for name in early_late streams_events; do
	[ -x "$OUT_DIR/$name" ] || continue
	timeout "$LIMIT" env CUDA_MODULE_LOADING=LAZY "$G" run --force --top 0 -o "$OUT_DIR/$name.lazy.gmprof" \
		-- "$OUT_DIR/$name" >"$OUT_DIR/$name.lazy.log" 2>&1
	if check "$name.lazy" "$OUT_DIR/$name.lazy.gmprof" "tests/gpu/$name.expect"; then
		ok "$name (lazy module loading): findings as expected"
	else
		bad "$name (lazy module loading):"; cat "$OUT_DIR/$name.lazy.diff" "$OUT_DIR/$name.lazy.log"
	fi
done
# 4b. Modules patched at their first monitored launch (GMPROF_PATCH_AT=launch):
#    the same findings, where the capture range starts after a kernel of
#    the module ran unpatched (capture), with lazy loading too, where
#    threads and streams launch (multithread, streams_events), and where
#    kernels are launched through cudaLaunchKernelEx and
#    cudaLaunchCooperativeKernel (launch_ex: the driver calls name the
#    function in other places than cuLaunchKernel does).
#    With GMPROF_PATCH_AT=range, modules are also unpatched at a device
#    sync after a range and patched again by the next range's first launch
#    (capture_ranges: two ranges, its profile counting two unpatches).
#    Graph programs: a graph launch's driver call (cuGraphLaunch) names no
#    kernel, so it patches every module the program loaded before the
#    graph runs (since the fifty-second session); their logs must say so,
#    and never that a kernel ran with no launch call to patch its module.
for run in capture,,launch capture,LAZY,launch multithread,,launch streams_events,,launch launch_ex,,launch \
	graphs,,launch graph_loop,,launch graph_capture,,launch \
	capture,,range capture_ranges,,range capture_ranges,LAZY,range; do
	name=${run%%,*} rest=${run#*,}
	lazy=${rest%,*} at=${rest#*,}
	[ -x "$OUT_DIR/$name" ] || continue
	capture=all
	[ -f "tests/gpu/$name.capture" ] && capture=$(cat "tests/gpu/$name.capture")
	tag=at-$at${lazy:+-lazy}
	timeout "$LIMIT" env GMPROF_PATCH_AT=$at ${lazy:+CUDA_MODULE_LOADING=LAZY} "$G" run --capture "$capture" \
		--force --top 0 -o "$OUT_DIR/$name.$tag.gmprof" -- "$OUT_DIR/$name" >"$OUT_DIR/$name.$tag.log" 2>&1
	if check "$name.$tag" "$OUT_DIR/$name.$tag.gmprof" "tests/gpu/$name.expect"; then
		ok "$name (GMPROF_PATCH_AT=$at${lazy:+, lazy loading}): findings as expected"
	else
		bad "$name (GMPROF_PATCH_AT=$at${lazy:+, lazy loading}):"; cat "$OUT_DIR/$name.$tag.diff" "$OUT_DIR/$name.$tag.log"
	fi
	case $name in graph*)
		if grep -q "a CUDA graph launch is monitored, so every module" "$OUT_DIR/$name.$tag.log" &&
			! grep -q "no launch call to patch its module" "$OUT_DIR/$name.$tag.log"; then
			ok "$name (GMPROF_PATCH_AT=$at): its graph launch call patched the modules before the graph ran"
		else
			bad "$name (GMPROF_PATCH_AT=$at): no cuGraphLaunch patching: $(grep gmprof: "$OUT_DIR/$name.$tag.log")"
		fi
	esac
	[ "$name,$at" = capture_ranges,range ] || continue
	u=$("$G" dump "$OUT_DIR/$name.$tag.gmprof" 2>/dev/null | sed -n 's/.*"key":"module_unpatches","value":"\([0-9]*\)".*/\1/p')
	[ "$u" = 2 ] && ok "$name (GMPROF_PATCH_AT=range${lazy:+, lazy loading}): unpatched after each range" ||
		bad "$name (GMPROF_PATCH_AT=range${lazy:+, lazy loading}): ${u:-no} module unpatches recorded, want 2"
done
# 5. Hit and bitmap words tested through the L1 (GMPROF_PATCH_LOADS=l1, the
#    overhead benchmark's object-l1 and intra-l1), and per-instruction hints
#    (GMPROF_PATCH_HINTS=1, object-hints), and the callbacks of calls that
#    make no GPU work turned off (GMPROF_API_CALLBACKS=needed, object-quiet):
#    the same findings; for the last, sanitizerEnableCallback from the
#    collector's flusher thread turned some off (META api_callbacks_off) and
#    the Sanitizer called them no more (api_callbacks_late: calls that
#    entered after; one in flight at the time may, a working switch leaves
#    no more than a few).
for src in tests/gpu/intra.cu tests/gpu/atomics.cu tests/gpu/dead_write.cu tests/gpu/early_late.cu \
	benchmarks/cuda/gram_schmidt.cu benchmarks/cuda/xsbench_lookup.cu; do
	name=$(basename "$src" .cu)
	dir=$(dirname "$src")
	[ -x "$OUT_DIR/$name" ] || continue
	mode=$(mode_of "$dir/$name")
	for v in "l1 GMPROF_PATCH_LOADS=l1" "hints GMPROF_PATCH_HINTS=1" "quiet GMPROF_API_CALLBACKS=needed"; do
		tag=${v%% *} setting=${v#* }
		timeout "$LIMIT" env "$setting" "$G" run --mode "$mode" --force --top 0 \
			-o "$OUT_DIR/$name.$tag.gmprof" -- "$OUT_DIR/$name" >"$OUT_DIR/$name.$tag.log" 2>&1
		if check "$name.$tag" "$OUT_DIR/$name.$tag.gmprof" "$dir/$name.expect"; then
			ok "$name ($mode, $setting): findings as expected"
		else
			bad "$name ($mode, $setting):"; cat "$OUT_DIR/$name.$tag.diff" "$OUT_DIR/$name.$tag.log"
		fi
		[ "$tag" = quiet ] || continue
		"$G" dump "$OUT_DIR/$name.$tag.gmprof" >"$OUT_DIR/$name.$tag.meta" 2>/dev/null
		off=$(sed -n 's/.*"key":"api_callbacks_off","value":"\([^"]*\)".*/\1/p' "$OUT_DIR/$name.$tag.meta")
		late=$(sed -n 's/.*"key":"api_callbacks_late","value":"\([0-9]*\)".*/\1/p' "$OUT_DIR/$name.$tag.meta")
		if [ -n "$off" ] && [ "$off" != none ] && [ -n "$late" ] && [ "$late" -le 4 ]; then
			ok "$name ($setting): callbacks turned off for $off ($late calls after)"
		else
			bad "$name ($setting): api_callbacks_off '${off:-absent}', api_callbacks_late '${late:-absent}'"
		fi
	done
done
# 6. --kernels-from: an object-mode run chooses the kernels that a second,
#    intra-mode run monitors, matched by their names as recorded (mangled):
#    the second run must say which and give those launches touches.
for src in tests/gpu/intra.cu benchmarks/cuda/xsbench_lookup.cu; do
	name=$(basename "$src" .cu)
	[ -x "$OUT_DIR/$name" ] || continue
	timeout "$LIMIT" "$G" run --force --top 0 -o "$OUT_DIR/$name.kfo.gmprof" -- "$OUT_DIR/$name" \
		>"$OUT_DIR/$name.kf.log" 2>&1
	timeout "$LIMIT" "$G" run --force --top 0 --kernels-from "$OUT_DIR/$name.kfo.gmprof" \
		-o "$OUT_DIR/$name.kf.gmprof" -- "$OUT_DIR/$name" >>"$OUT_DIR/$name.kf.log" 2>&1
	chosen=$(grep -c '^  .* of it)$' "$OUT_DIR/$name.kf.log")
	touched=$("$G" dump "$OUT_DIR/$name.kf.gmprof" 2>/dev/null | grep -c '"op":"kernel".*"touch"')
	if [ "$chosen" -ge 1 ] && [ "$touched" -ge 1 ]; then
		ok "$name (--kernels-from): $chosen kernels chosen, $touched launches with touches"
	else
		bad "$name (--kernels-from): $chosen kernels chosen, $touched launches with touches"; cat "$OUT_DIR/$name.kf.log"
	fi
done
# 7. Alloc mode (no device patches): the same peaks as object mode (and
#    what was live there), and the expected leaks alone.
for src in tests/gpu/leak.cu tests/gpu/early_late.cu tests/gpu/streams_events.cu tests/gpu/multithread.cu \
	benchmarks/cuda/simple_multi_copy.cu benchmarks/cuda/many_allocs.cu; do
	name=$(basename "$src" .cu)
	dir=$(dirname "$src")
	[ -x "$OUT_DIR/$name" ] && [ -f "$OUT_DIR/$name.gmprof" ] || continue
	timeout "$LIMIT" "$G" run --mode alloc --force --top 0 -o "$OUT_DIR/$name.alloc.gmprof" -- "$OUT_DIR/$name" \
		>"$OUT_DIR/$name.alloc.log" 2>&1
	grep '^memory_leak ' "$dir/$name.expect" >"$OUT_DIR/$name.alloc.expect"
	if check "$name.alloc" "$OUT_DIR/$name.alloc.gmprof" "$OUT_DIR/$name.alloc.expect" &&
		[ "$(peaks_of "$OUT_DIR/$name.alloc.gmprof")" = "$(peaks_of "$OUT_DIR/$name.gmprof")" ]; then
		ok "$name (alloc mode): object mode's peaks, the expected leaks alone"
	else
		bad "$name (alloc mode):"; cat "$OUT_DIR/$name.alloc.diff" "$OUT_DIR/$name.alloc.log"
		peaks_of "$OUT_DIR/$name.gmprof" >"$OUT_DIR/$name.peaks"
		peaks_of "$OUT_DIR/$name.alloc.gmprof" | diff "$OUT_DIR/$name.peaks" - | head -10
	fi
done
# 8. The collector's record of its own time (META collector_time) in each
#    program's profile of step 2: every part there, the parts inside the
#    callbacks, start and exit that hold them, those inside the run, and a
#    module patched.
#    And what the driver says of the device (META device.0.name,
#    device.0.memory, cuda; asked at the first context, outside the
#    collector's lock): the memory nvidia-smi gives (MiB) or at most 2%
#    less (the driver's total leaves out what it reserves: 81079 MiB of
#    nvidia-smi's 81559 on an H100), the name it gives, a CUDA version.
smi_mib=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits -i 0 2>/dev/null | tr -d ' ')
smi_name=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 2>/dev/null)
described() { # PROFILE: its device META as nvidia-smi describes the device (kept in PROFILE.desc)
	"$G" dump "$1" 2>/dev/null | grep '^{"op":"meta","key":"\(device\.0\.\|cuda"\)' >"$1.desc"
	_mem=$(sed -n 's/.*"key":"device.0.memory","value":"\([0-9]*\)".*/\1/p' "$1.desc")
	_name=$(sed -n 's/.*"key":"device.0.name","value":"\(.*\)"}$/\1/p' "$1.desc")
	[ -n "$_mem" ] && [ -n "$_name" ] && grep -q '"key":"cuda","value":"[0-9]*\.[0-9]*"' "$1.desc" &&
		{ [ -z "$smi_mib" ] || { [ "$((_mem / 1048576))" -le "$smi_mib" ] &&
			[ "$((_mem / 1048576 * 50))" -ge "$((smi_mib * 49))" ]; }; } &&
		{ [ -z "$smi_name" ] || [ "$_name" = "$smi_name" ]; }
}
insane=
undescribed=
checked=0
for src in tests/gpu/*.cu benchmarks/cuda/*.cu; do
	name=$(basename "$src" .cu)
	dir=$(dirname "$src")
	[ -f "$dir/$name.expect" ] && [ -f "$OUT_DIR/$name.gmprof" ] || continue
	mode=$(mode_of "$dir/$name")
	checked=$((checked + 1))
	self_time_sane "$OUT_DIR/$name.gmprof" "$mode" || insane="$insane $name"
	described "$OUT_DIR/$name.gmprof" || undescribed="$undescribed $name"
done
if [ -z "$insane" ]; then
	ok "the collector's own time recorded and consistent in $checked profiles"
else
	bad "the collector's own time is missing or inconsistent in:$insane"
	for name in $insane; do echo "  $name: $(self_time_of "$OUT_DIR/$name.gmprof" | tr '\n' ' ')"; done
fi
if [ -z "$undescribed" ]; then
	ok "the device's name, memory and CUDA version recorded in $checked profiles (nvidia-smi: ${smi_name:-?}, ${smi_mib:-?} MiB)"
else
	bad "the device is not described as nvidia-smi says (${smi_name:-?}, ${smi_mib:-?} MiB) in:$undescribed"
	for name in $undescribed; do echo "  $name: $(tr '\n' ' ' <"$OUT_DIR/$name.gmprof.desc")"; done
fi
# 9. BENCH_SCALE=2: each kernel of a benchmark program repeats its memory
#    work twice within its launch (benchmarks/cuda/bench.h), so the program
#    must give the findings of step 3 again, and an intra-mode program the
#    touches of step 3 with every count doubled: the repetitions reach
#    memory (the compiler merged none of them) and change nothing else.
for src in benchmarks/cuda/*.cu; do
	name=$(basename "$src" .cu)
	dir=$(dirname "$src")
	[ -f "$dir/$name.expect" ] && [ -f "$OUT_DIR/$name.gmprof" ] || continue
	mode=$(mode_of "$dir/$name")
	timeout "$LIMIT" env BENCH_SCALE=2 "$G" run --mode "$mode" --force --top 0 -o "$OUT_DIR/$name.x2.gmprof" \
		-- "$OUT_DIR/$name" >"$OUT_DIR/$name.x2.log" 2>&1
	if ! check "$name.x2" "$OUT_DIR/$name.x2.gmprof" "$dir/$name.expect"; then
		bad "$name (BENCH_SCALE=2):"; cat "$OUT_DIR/$name.x2.diff" "$OUT_DIR/$name.x2.log"
	elif [ "$mode" != intra ]; then
		ok "$name (BENCH_SCALE=2): findings as expected"
	elif scaled "$OUT_DIR/$name.gmprof" "$OUT_DIR/$name.x2.gmprof" 2; then
		ok "$name (BENCH_SCALE=2): findings as expected, every touch counted twice"
	else
		bad "$name (BENCH_SCALE=2): touches not those of step 3 counted twice:"; head -20 "$OUT_DIR/scaled.diff"
	fi
done
# 10. Device patches without code for this GPU (a fatbin of another
#     architecture's machine code alone, as an old install on a new GPU
#     has): the program runs to its end, the collector says in one line
#     that the patches did not load or a module could not be patched, its
#     launches have no access sets, and gmprof check --fail-on dead_write
#     fails on monitored rather than pass a run whose kernels it never saw.
#     UNCONFIRMED until this runs: which Sanitizer call refuses such a fatbin.
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader -i 0 2>/dev/null | tr -d ' .')
other=75
[ "$cap" = 75 ] && other=80
if [ -x "$OUT_DIR/early_late" ] && "$NVCC" --fatbin --compile-as-tools-patch -O3 -Igpu_patch \
	-gencode "arch=compute_$other,code=sm_$other" -o "$OUT_DIR/other_arch.fatbin" gpu_patch/gmprof_patch.cu \
	>"$OUT_DIR/other_arch.build" 2>&1; then
	timeout "$LIMIT" env GMPROF_PATCH="$OUT_DIR/other_arch.fatbin" "$G" run --force --top 0 \
		-o "$OUT_DIR/other_arch.gmprof" -- "$OUT_DIR/early_late" >"$OUT_DIR/other_arch.log" 2>&1
	rc=$?
	"$G" check --fail-on dead_write "$OUT_DIR/other_arch.gmprof" >"$OUT_DIR/other_arch.check" 2>&1
	crc=$?
	said=$(grep -o "cannot load the device patches\|sanitizerPatchModule failed\|patching global memory accesses failed" \
		"$OUT_DIR/other_arch.log")
	if [ $rc -eq 0 ] && [ "$(echo "$said" | grep -c .)" = 1 ] && [ $crc -eq 1 ] &&
		grep -q "^FAIL monitored: " "$OUT_DIR/other_arch.check"; then
		ok "patches for sm_$other on sm_${cap:-?}: said once ($said), the gate fails on monitored"
	else
		bad "patches for sm_$other on sm_${cap:-?} (run exit $rc, check exit $crc):"
		cat "$OUT_DIR/other_arch.log" "$OUT_DIR/other_arch.check" | head -20
	fi
else
	bad "step 10: no early_late from step 2, or the sm_$other patches do not build:"; head -5 "$OUT_DIR/other_arch.build" 2>/dev/null
fi
echo "gpu-check: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
