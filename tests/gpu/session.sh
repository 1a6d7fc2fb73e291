#!/bin/sh
# SPDX-License-Identifier: MIT
# One lease of a GPU machine, in one command: what the machine has, the
# build, make gpu-check, the recorded profiles and (STEPS=...bench) the
# overhead benchmark.  Every step's log goes to $1 (default build/session),
# in at most eight files, so that a harness with a file limit brings them
# all back.  Steps run under timeouts and the script goes on past a failed
# one: a lease is too short to stop at the first failure.
#   sh tests/gpu/session.sh OUTDIR        STEPS="env build check hang record bench run"
# A lease is 15 minutes of device time in all (the machine's start, a
# minute or two, and its idle time included), 10 minutes a call.  The
# machine has no network: run `make deps-offline` here first and carry
# .deps.  What fits, in order: one call of the default steps (on
# 2026-11-27 the build took 20 s on 16 cores, and gpu-check 75 s of
# programs plus its LIMIT for each that hangs: GPU_TEST_LIMIT=30 and
# FALLBACK_TRIES=1 keep a bad run under 4 minutes), then, on the same warm
# machine (it goes back after 30 s idle: make the second call at once, or
# give it back), one bench call (RUNS=3 of the four columns below took
# 135 s):
#   GPU_TEST_LIMIT=30 FALLBACK_TRIES=1 CHECK_TIMEOUT=300 sh tests/gpu/session.sh $OUT/s   (timeout_s 400)
#   STEPS=bench RUNS=3 CONFIGS="native object intra memcheck" sh tests/gpu/session.sh $OUT/b
# and give the machine back.  2026-11-27 ran those four; next, the columns
# not yet measured, those that decide issue 8's object goal first:
#   BENCH_TIMEOUT=440 STEPS=bench RUNS=3 CONFIGS="native alloc object object-empty object-hints object-l1 object-quiet intra" sh tests/gpu/session.sh $OUT/b
# (about 35 s a column at 2026-11-27's times, intra's about 60, so about 310 s: timeout_s 480;
# intra: since the thirty-eighth session its maps come back through pinned
# host memory, and its "Sanitizer calls" beside 2026-11-27's (simple_multi_copy
# 483 ms, laghos_state 199 ms) say what that saved;
# object: since the thirty-ninth session object mode's own function leaves
# the per-instruction records out and searches in 32 bits (on sm_90 14
# local stores where 43): access_cost's object row beside 2026-11-27's
# 3.59 ns per warp instruction, and its object-plain row, say what that saved;
# object-l1: hit words tested through the L1, the other way past the one
# L2 line every warp reading an array asks for; alloc: gmprof's host work without device patches; object-quiet: the
# callbacks of calls that make no GPU work turned off, GMPROF_API_CALLBACKS=needed,
# with api_cost's row beside object's; object-empty: the
# Sanitizer's call per access without gmprof's; object-hints: the cheaper
# steady state of per-instruction records; many_allocs' 80 ms above native
# that were not gmprof's host time are 160k patched accesses at most, about
# 0.6 ms: alloc and object-empty tell where the rest goes), then
# object-outside, object-outside-at-launch and intra-l1; and gpu-check once under
# CUDA_MODULE_LOADING=LAZY (gmprof run keeps the user's setting), which
# says whether gmprof run can stop asking for eager loading.  In gpu-check's
# log, for CUDA graphs (since 2026-11-27's lease): graph_capture passing as
# ".merged" (the detector merged its launches: nodes' accesses still mix)
# or as expected (nodes kept apart), and what GMPROF_GRAPH_NODE_DATA=function
# gave; graph_loop (launches back to back): as expected, or which of its
# launches were merged or counted not monitored (the report's "graphs" line); GMPROF_PATCH_AT=launch on multithread and streams_events (patched
# from the driver's launch call since the deadlock); pool_cache (since
# 2026-11-27, second session): its report lines (what the stream-ordered
# pool cached at the failure, the most it held) and the layout facts of
# memoryPool and Sanitizer_ResourceMempoolData; cuda_array (since
# 2026-11-27, third session): the leaked table alone (a second object of
# the same memory would mean the Sanitizer reports an array's memory as an
# allocation too), its report lines (both arrays at their formats' sizes)
# and the layout facts of Sanitizer_ResourceArrayData; since the thirtieth
# session (patch ABI 7) every launch's hit list is in pinned host memory
# by default: if programs' findings differ and their fallback tries pass
# with device-lists alone, the lists do not come back from host memory
# (make GMPROF_FALLBACK=device-lists the default until that is mended);
# step 5's GMPROF_API_CALLBACKS=needed lines: what it turned off, and how
# many calls came after; since the thirty-first session a launch buffer's
# headers are uploaded 8 at a time and each launch's patches read a slot
# of its own: findings that differ and pass with launch-headers alone
# mean a slot's address or epoch is wrong on the GPU, and bench's
# "Sanitizer calls" column for object mode says what it saved per launch
# (many_allocs: 23.8 ms for 1000 launches on 2026-11-27, before the hit
# lists moved to host memory too); since the thirty-seventh session each
# call that synchronized has a RETURNED record: idle_time's
# "waits bounded by its syncs' returns" line says whether the Sanitizer's
# sync callbacks come between the call's enter and exit (if it fails with
# the plain .waits passing, they do not: the returns are missing); since
# the fortieth session, tma (a kernel reading a only through a tensor map
# encoded by cuTensorMapEncodeTiled from cudaGetDriverEntryPointByVersion):
# a redundant allocation of b over a means the collector did not see the
# encode or the map among the launch's parameters (rerun it with
# GMPROF_LOG_CALLBACKS=1 to see which driver calls came; its META
# tensor_maps line, checked against tma.meta, says which: encoded=0, the
# encode's callback did not come; launches=0, the parameters were not found);
# since the forty-eighth session, NVTX domains: nvtx_ranges exits 1 ("the
# trainer domain's first range is not at its level 0", or "a pop ... did
# not give -1") where the real NVTX library does not route
# nvtxDomainCreateA and each domain's pops to the collector, and its .meta
# wants nvtx.domain.0.name trainer; capture_nvtx: --capture 'nvtx:epoch
# [23]' over epochs named with snprintf (its report's capture line: 3 of 5
# launches monitored); since the forty-ninth session, ipc (a parent shares
# two buffers with the child it starts, through cudaIpcGetMemHandle): the
# child's profile (ipc.child.gmprof) wants both as imported objects, out
# of its peak; "its child process wrote no profile" means the child did
# not inherit the collector; "the Sanitizer reported no allocation for
# cudaIpcOpenMemHandle" in ipc.log, that the collector recorded the mapped
# buffers from the driver's address ranges (write that down in
# docs/sanitizer-api.md); a child with findings on them and a peak of 12
# MiB, that the Sanitizer reported them outside cudaIpcOpenMemHandle
# (GMPROF_LOG_CALLBACKS=1 in the parent's environment shows where the
# child's callbacks came).
# The calls below are for a longer lease.
# The bench step passes CONFIGS and KEEP to make bench-gpu, so that the
# overhead benchmark's ten configurations can be spread over calls that
# each fit the machine's per-call limit (the same machine, kept warm; the
# programs are built by the first). At the H100 run's times (5 runs), about
# 250, 290 and 190 s (the third about 400 s with object-empty,
# object-outside and object-outside-at-launch, an object column's time each
# at most), intra mode's two
# columns alone about 125 s each:
#   STEPS=bench RUNS=5 CONFIGS="native alloc object object-launch memcheck" sh tests/gpu/session.sh OUT
#   STEPS=bench RUNS=5 KEEP=1 CONFIGS="native object-l1 object-hints intra" sh tests/gpu/session.sh OUT
#   STEPS=bench RUNS=5 KEEP=1 CONFIGS="native intra-l1 object-empty object-outside object-outside-at-launch" sh tests/gpu/session.sh OUT
# SCALE and PROGRAMS pass through too: with time left on a lease, a longer
# run of a few programs (each kernel's memory work repeated; a fresh table,
# not KEEP=1), e.g. about 3 minutes at the H100 run's times:
#   STEPS=bench RUNS=3 SCALE=4 PROGRAMS="darknet_layer laghos_state gram_schmidt bicg xsbench_lookup" CONFIGS="native object intra" sh tests/gpu/session.sh OUT
set -u
O=${1:-build/session}
STEPS=${STEPS:-env build check record}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export PATH="$PATH:$CUDA_HOME/bin"
mkdir -p "$O"
has() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
step() { echo "== $1 ($(date -u +%H:%M:%S))"; }

if has env; then
	step env
	{
		date -u
		uname -a
		cat /etc/os-release 2>/dev/null | head -3
		nvidia-smi 2>&1 | head -20
		nvcc --version 2>&1 | tail -2
		cc --version 2>&1 | head -1
		ls "$CUDA_HOME"/compute-sanitizer 2>&1
		"$CUDA_HOME"/compute-sanitizer/compute-sanitizer --version 2>&1
		nproc
	} >"$O/env.txt" 2>&1
	# The toolkit's Sanitizer headers travel back for reading (not for the tree).
	tar czf "$O/san-include.tgz" -C "$CUDA_HOME/compute-sanitizer" include 2>>"$O/env.txt"
	tail -3 "$O/env.txt"
fi
if has build; then
	step build
	timeout 400 make -j"$(nproc)" all >"$O/build.log" 2>&1
	echo "build rc=$?"
	tail -5 "$O/build.log"
fi
if has check; then
	step gpu-check
	timeout "${CHECK_TIMEOUT:-360}" make gpu-check >"$O/check.log" 2>&1
	echo "gpu-check rc=$?"
	# What failed first (the whole log comes back in $O): a long run of ok lines would hide it.
	grep -A4 -E '^(FAIL|gmprof)' "$O/check.log" | head -60
	echo "$(grep -c '^ok' "$O/check.log") ok; $(tail -1 "$O/check.log")"
fi
if has hang; then
	# A program that hangs under gmprof: every thread's stack after HANG_WAIT s.
	step "hang ${HANG:-multithread}"
	src=$(ls tests/gpu/"${HANG:-multithread}".cu benchmarks/cuda/"${HANG:-multithread}".cu 2>/dev/null | head -1)
	mkdir -p build/gpu
	nvcc -O2 -g -lineinfo -Xcompiler -rdynamic -o build/gpu/hang "$src" -lpthread
	timeout 120 build/rel/gmprof run --force --top 0 -o build/gpu/hang.gmprof -- build/gpu/hang \
		>"$O/hang.txt" 2>&1 &
	sleep "${HANG_WAIT:-20}"
	pid=$(pgrep -n -x hang)
	echo "pid=$pid" >>"$O/hang.txt"
	if [ -n "$pid" ]; then
		timeout 90 cuda-gdb -p "$pid" -batch -ex "info threads" -ex "thread apply all bt" \
			>>"$O/hang.txt" 2>&1
		kill -9 "$pid"
	fi
	wait
	grep -c . "$O/hang.txt"
fi
if has record; then
	step record
	tar czf "$O/gpu.tgz" build/gpu 2>/dev/null
	ls -la "$O/gpu.tgz"
fi
if has bench; then
	step bench-gpu
	timeout "${BENCH_TIMEOUT:-400}" make bench-gpu RUNS="${RUNS:-3}" >"$O/bench.log" 2>&1
	echo "bench-gpu rc=$?"
	tar czf "$O/bench.tgz" build/bench-gpu benchmarks/results 2>/dev/null
	tail -30 "$O/bench.log"
fi
if has run; then
	step "make run"
	timeout 120 make run >"$O/run.log" 2>&1
	echo "make run rc=$?"
	head -12 "$O/run.log"
fi
step done
