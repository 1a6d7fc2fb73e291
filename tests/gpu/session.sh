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
# and give the machine back.  2026-11-30 (an H200; its results file)
# ran gpu-check (115 of 115 after that day's fixes) and every bench column
# but object-launch, 3 runs each, in two calls: object mode 1.22x and
# 1.11x native at the median, the empty callback 1.15x.  Next, to settle
# issue 8's object goal inside the noise, the same columns with 5 runs on
# one warm machine, interleaved (about 60 s a column at 5 runs):
#   BENCH_TIMEOUT=440 STEPS=bench RUNS=5 CONFIGS="native object object-empty alloc" sh tests/gpu/session.sh $OUT/b
# (timeout_s 480; bench.tgz is over the 16 MiB a file that comes back, so
# bench.log is the record).  What gpu-check's log still says something
# new about: a program whose findings differ runs again under
# GMPROF_FALLBACK (which mechanism to blame); graph programs say whether
# their launches merged (the report's "graphs" line: per function, the
# default since 2026-11-30, none did there; graph_repeat, new since, runs
# one kernel as two nodes: its "graphs" line says whether they shared a
# buffer and were merged alone); ipc.log's "the Sanitizer
# reported no allocation for cudaIpcOpenMemHandle" would mean the
# collector fell back to the driver's address ranges (none on the H200);
# GMPROF_PATCH_AT=launch on multithread (illegal instructions there before
# 2026-11-30's fix: one thread patches a context at a time);
# graph_threads (new since: one thread's graph launches and another's plain
# launches of one kernel; its .launches check says whether every launch
# reported its own object, and its "graphs" line how many crossed);
# intra_khist (new too: intra maps only for what a kernel touched before,
# under GMPROF_MAPS_MB=1; its .touched check names the launch without
# touches); ipc_handles (new too: IPC through a pool's pointer and a
# shared mapping; its child's report line says whether both imports were
# reported); capture, capture_nvtx and capture_ranges (since the
# fifty-second session a capture range patches modules at their first
# monitored launch by default: capture and capture_ranges passed so in
# step 4b on the H200, capture_nvtx has not run so); graphs, graph_loop
# and graph_capture in step 4b (new: a graph launch's driver call patches
# every module before the graph runs; each log says which way).  And once,
# CUDA_MODULE_LOADING=LAZY in the environment of a whole gpu-check call
# (on 2026-11-30 all but tma passed so; since then a module loaded inside
# the collector's own driver query is patched after it): if tma passes too,
# gmprof run can stop asking for eager loading.
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
