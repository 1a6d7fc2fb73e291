#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench-gpu: the overhead of gmprof on a GPU machine, side by side in
# one run.  Every program in benchmarks/cuda/ runs
#   native          the program alone
#   object          gmprof run --mode object (deferred harvesting: no
#                   serialization of the program's streams)
#   object-launch   the same with GMPROF_HARVEST=launch (hit flags read
#                   after every launch: the program's work is serialized)
#   object-l1       object with GMPROF_PATCH_LOADS=l1 (the patches test hit
#                   words through the SM's L1 instead of at the L2)
#   object-hints    object with GMPROF_PATCH_HINTS=1 (each instruction tries
#                   the table entry it found last before searching)
#   object-quiet    object with GMPROF_API_CALLBACKS=needed (the callbacks
#                   of runtime and driver calls that make no GPU work
#                   turned off)
#   object-empty    object with GMPROF_PATCH_EMPTY=1 (every access calls an
#                   empty callback: the Sanitizer's own cost and gmprof's
#                   host work, without gmprof's device patches; no findings)
#   object-outside  object with --capture profiler-api and
#                   GMPROF_PATCH_AT=load: the programs never call
#                   cudaProfilerStart, so every launch is outside the capture
#                   range (what a user pays outside it with modules patched
#                   at load: the patches called with no launch data, no call
#                   paths; no findings)
#   object-outside-at-launch  object-outside with GMPROF_PATCH_AT=launch (the
#                   default under a capture range since 2026-11-30): no
#                   module is patched, since none has a monitored launch
#   intra           gmprof run --mode intra, every kernel monitored
#   intra-l1        intra with GMPROF_PATCH_LOADS=l1
#   memcheck        compute-sanitizer --tool memcheck --leak-check full
#   alloc           gmprof run --mode alloc (no device patches: peaks and
#                   leaks only)
# PROGRAMS names the programs to run (default: every one in benchmarks/cuda/).
# CONFIGS names the configurations to run (default: all of them); KEEP=1
# adds to the times of the previous call instead of starting again, so that
# one lease can measure in several calls under its per-call limit:
#   CONFIGS="native alloc object object-launch memcheck" make bench-gpu
#   KEEP=1 CONFIGS="native object-l1 object-hints intra" make bench-gpu
#   KEEP=1 CONFIGS="native intra-l1 object-empty object-outside object-outside-at-launch" make bench-gpu
# SCALE=k runs every program with BENCH_SCALE=k: each kernel repeats its
# memory work k times within its launch (benchmarks/cuda/bench.h; the same
# CUDA calls and findings, gpu-check step 9), so that the fixed cost of a
# run (loading the Sanitizer, patching modules) weighs as it would in a
# longer program; the results file's name ends in -scaleK then.  At k = 1
# the programs take 0.35 to 0.6 s natively on an H100, mostly CUDA starting.
# gmprof's configurations record the profile (--top 0: since 2026-11-23,
# seventh session, neither the collector at the program's exit nor gmprof
# run analyzes it then; the analysis is `gmprof report`, timed on the CPU by
# make bench).
# RUNS times each (default 5), the configurations interleaved run by run so
# that drift on the machine touches them alike; the table reports medians,
# the ratio to native per program, and the median and geometric mean of the
# ratios across programs (benchmarks/overhead.awk).  It also measures the
# native peak of the unfixed and the -DFIXED build of each program (the
# "bench: native peak" line of bench.h), and gmprof's own device memory in
# each of its configurations (the profiles' collector_device_peak), and where
# the first run of each spent its time on the host (collector_time): what is
# left of the time above native is the patched kernels' and the Sanitizer's
# own.  The table goes to standard output
# and to benchmarks/results/<date>-<device>.md.
# Goals: object <= 1.15x median; intra <= 2.5x median; object at least 5x
# faster than memcheck.
set -eu
BUILD=${BUILD:-build}
NVCC=${NVCC:-nvcc}
RUNS=${RUNS:-5}
PROGRAMS=${PROGRAMS:-$(ls benchmarks/cuda/*.cu | sed 's|.*/||; s|\.cu$||')}
ALL_CONFIGS="native alloc object object-launch object-l1 object-hints object-quiet object-empty object-outside object-outside-at-launch intra intra-l1 memcheck"
CONFIGS=${CONFIGS:-$ALL_CONFIGS}
for c in $CONFIGS; do
	case " $ALL_CONFIGS " in *" $c "*) ;; *)
		echo "gmprof: CONFIGS: unknown configuration '$c' (known: $ALL_CONFIGS)" >&2
		exit 2 ;;
	esac
done
want() { case " $CONFIGS " in *" $1 "*) return 0 ;; esac; return 1; }
SCALE=${SCALE:-1}
case $SCALE in *[!0-9]* | 0*) scale_ok=0 ;; *) scale_ok=1 ;; esac
if [ $scale_ok = 0 ] || [ ${#SCALE} -gt 6 ] || [ "$SCALE" -gt 100000 ]; then
	echo "gmprof: SCALE must be a whole number from 1 to 100000, not '$SCALE'" >&2
	exit 2
fi
export BENCH_SCALE=$SCALE
G=$BUILD/rel/gmprof
T=$BUILD/rel/gmprof-bench
OUT=$BUILD/bench-gpu
kept=$(cat "$OUT/scale" 2>/dev/null || echo 1) # the SCALE of the times kept
if [ "${KEEP:-0}" = 1 ] && [ "$kept" != "$SCALE" ]; then
	echo "gmprof: KEEP=1 adds to times taken at SCALE=$kept, not $SCALE: give that SCALE, or leave KEEP out to start again" >&2
	exit 2
fi
SAN=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/compute-sanitizer/compute-sanitizer)}
if ! why=$(sh tests/gpu/have-gpu.sh 2>&1); then
	why=${why#gmprof: }
	echo "gmprof: make bench-gpu needs a GPU: ${why%%;*}" >&2
	exit 2
fi
[ -x "$SAN" ] || { echo "gmprof: compute-sanitizer not found (set COMPUTE_SANITIZER): the memcheck column needs it" >&2; exit 2; }
mkdir -p "$OUT"
if [ "${KEEP:-0}" != 1 ]; then
	echo "$SCALE" >"$OUT/scale"
	: >"$OUT/times"
	: >"$OUT/micro"
	: >"$OUT/own"
	: >"$OUT/self"
fi
: >"$OUT/peaks"

# Built once per lease, all at once: a later call (KEEP=1) reuses what is newer than its sources.
fresh() { [ -x "$1" ] && [ "$1" -nt "$2" ] && [ "$1" -nt benchmarks/cuda/bench.h ]; }
for p in $PROGRAMS; do
	src=benchmarks/cuda/$p.cu
	fresh "$OUT/$p" "$src" || "$NVCC" -O2 -g -lineinfo -Xcompiler -rdynamic -o "$OUT/$p" "$src" &
	if grep -q "ifn*def FIXED" "$src" && ! fresh "$OUT/$p.fixed" "$src"; then
		"$NVCC" -O2 -g -lineinfo -Xcompiler -rdynamic -DFIXED -o "$OUT/$p.fixed" "$src" &
	fi
done
wait
for p in $PROGRAMS; do
	src=benchmarks/cuda/$p.cu
	fresh "$OUT/$p" "$src" && { ! grep -q "ifn*def FIXED" "$src" || fresh "$OUT/$p.fixed" "$src"; } || {
		echo "gmprof: $src does not build (see the compiler's messages above)" >&2
		exit 1
	}
done

# One timed run: program config seconds, appended to $OUT/times.
timed() { # program config command...
	p=$1 c=$2
	shift 2
	set -- $("$T" -r 1 -- "$@" 2>>"$OUT/$p.$c.log") || {
		echo "gmprof: $p ($c) failed; see $OUT/$p.$c.log" >&2
		exit 1
	}
	echo "$p $c $1" >>"$OUT/times"
	# gmprof's own device memory and host time in that run (the profile's META), for the tables: once.
	[ "$r" = 1 ] || return 0
	case $c in alloc | object* | intra*)
		"$G" dump "$OUT/$p.gmprof" >"$OUT/$p.$c.meta" 2>/dev/null || :
		own=$(sed -n 's/^{"op":"meta","key":"collector_device_peak","value":"\([0-9]*\)"}$/\1/p' "$OUT/$p.$c.meta")
		[ -z "$own" ] || echo "$p $c $own" >>"$OUT/own"
		self=$(sed -n 's/^{"op":"meta","key":"collector_time","value":"\([^"]*\)"}$/\1/p' "$OUT/$p.$c.meta")
		api=$(sed -n 's/^{"op":"meta","key":"api_callbacks","value":"\([0-9]*\)"}$/\1/p' "$OUT/$p.$c.meta")
		[ -z "$self" ] || echo "$p $c $1 $self${api:+ api_callbacks=-/$api}" >>"$OUT/self" ;;
	esac
}

r=1
while [ $r -le "$RUNS" ]; do
	for p in $PROGRAMS; do
		prof=$OUT/$p.gmprof
		! want native || timed "$p" native "$OUT/$p"
		! want alloc || timed "$p" alloc "$G" run --mode alloc --force --top 0 -o "$prof" -- "$OUT/$p"
		! want object || timed "$p" object "$G" run --mode object --force --top 0 -o "$prof" -- "$OUT/$p"
		! want object-launch || timed "$p" object-launch env GMPROF_HARVEST=launch \
			"$G" run --mode object --force --top 0 -o "$prof" -- "$OUT/$p"
		! want object-l1 || timed "$p" object-l1 env GMPROF_PATCH_LOADS=l1 \
			"$G" run --mode object --force --top 0 -o "$prof" -- "$OUT/$p"
		! want object-hints || timed "$p" object-hints env GMPROF_PATCH_HINTS=1 \
			"$G" run --mode object --force --top 0 -o "$prof" -- "$OUT/$p"
		! want object-quiet || timed "$p" object-quiet env GMPROF_API_CALLBACKS=needed \
			"$G" run --mode object --force --top 0 -o "$prof" -- "$OUT/$p"
		! want object-empty || timed "$p" object-empty env GMPROF_PATCH_EMPTY=1 \
			"$G" run --mode object --force --top 0 -o "$prof" -- "$OUT/$p"
		! want object-outside || timed "$p" object-outside env GMPROF_PATCH_AT=load \
			"$G" run --mode object --capture profiler-api --force --top 0 -o "$prof" -- "$OUT/$p"
		! want object-outside-at-launch || timed "$p" object-outside-at-launch env GMPROF_PATCH_AT=launch \
			"$G" run --mode object --capture profiler-api --force --top 0 -o "$prof" -- "$OUT/$p"
		! want intra || timed "$p" intra "$G" run --mode intra --force --top 0 -o "$prof" -- "$OUT/$p"
		! want intra-l1 || timed "$p" intra-l1 env GMPROF_PATCH_LOADS=l1 \
			"$G" run --mode intra --force --top 0 -o "$prof" -- "$OUT/$p"
		! want memcheck || timed "$p" memcheck "$SAN" --tool memcheck --leak-check full "$OUT/$p"
	done
	r=$((r + 1))
done

# The per-access cost: the microbenchmark's kernel time under each patch.
FIRST_TOUCH=${FIRST_TOUCH:-67108864} # floats of the one-pass run (256 MiB)
GATHER=${GATHER:-64}                  # arrays of the gather run
"$NVCC" -O2 -o "$OUT/access_cost" benchmarks/micro/access_cost.cu
run_micro() { # PROGRAM CONFIG command...: the program's "PROGRAM: COUNT MS" line as "CONFIG COUNT MS" in micro
	m=$1 c=$2
	shift 2
	"$@" >"$OUT/$m.$c.out" 2>>"$OUT/$m.$c.log" || {
		echo "gmprof: $m ($c) failed; see $OUT/$m.$c.log" >&2
		exit 1
	}
	awk -v m="$m:" -v c="$c" '$1 == m { print c, $2, $3 }' "$OUT/$m.$c.out" >>"$OUT/micro"
}
micro() { run_micro access_cost "$@"; }
r=1
while [ $r -le "$RUNS" ]; do
	prof=$OUT/access_cost.gmprof
	! want native || micro native "$OUT/access_cost"
	! want object || micro empty env GMPROF_PATCH_EMPTY=1 "$G" run --force --top 0 -o "$prof" -- "$OUT/access_cost"
	! want object || micro object "$G" run --mode object --force --top 0 -o "$prof" -- "$OUT/access_cost"
	# Object mode with what changed since the 2026-11-23 measurement undone, one each: the plain
	# device callback (intra code compiled in), and the hit words cleared before every launch.
	! want object || micro object-plain env GMPROF_FALLBACK=object-callback \
		"$G" run --mode object --force --top 0 -o "$prof" -- "$OUT/access_cost"
	! want object || micro object-epochs env GMPROF_FALLBACK=hit-epochs \
		"$G" run --mode object --force --top 0 -o "$prof" -- "$OUT/access_cost"
	! want object-l1 || micro object-l1 env GMPROF_PATCH_LOADS=l1 \
		"$G" run --mode object --force --top 0 -o "$prof" -- "$OUT/access_cost"
	! want object-hints || micro object-hints env GMPROF_PATCH_HINTS=1 \
		"$G" run --mode object --force --top 0 -o "$prof" -- "$OUT/access_cost"
	! want intra || micro intra "$G" run --mode intra --force --top 0 -o "$prof" -- "$OUT/access_cost"
	! want intra-l1 || micro intra-l1 env GMPROF_PATCH_LOADS=l1 \
		"$G" run --mode intra --force --top 0 -o "$prof" -- "$OUT/access_cost"
	# One pass over a large array: every load is the first touch of its bytes in intra mode.
	! want native || micro native-first "$OUT/access_cost" $FIRST_TOUCH 1
	! want intra || micro intra-first "$G" run --mode intra --force --top 0 -o "$prof" -- "$OUT/access_cost" $FIRST_TOUCH 1
	# Gather: consecutive warps in different arrays, per-instruction records' worst case.
	! want native || micro native-gather "$OUT/access_cost" 4194304 64 $GATHER
	! want object || micro object-gather "$G" run --mode object --force --top 0 -o "$prof" -- \
		"$OUT/access_cost" 4194304 64 $GATHER
	! want object-hints || micro object-hints-gather env GMPROF_PATCH_HINTS=1 \
		"$G" run --mode object --force --top 0 -o "$prof" -- "$OUT/access_cost" 4194304 64 $GATHER
	r=$((r + 1))
done

# The host cost of a runtime call that does no GPU work (benchmarks/micro/api_cost.cu): natively,
# in alloc mode (the CI gate's) and in object mode; lines "api-CONFIG CALLS LOOP_MS" in micro.
"$NVCC" -O2 -o "$OUT/api_cost" benchmarks/micro/api_cost.cu
api() { c=$1; shift; run_micro api_cost "api-$c" "$@"; } # config command...
r=1
while [ $r -le "$RUNS" ]; do
	prof=$OUT/api_cost.gmprof
	! want native || api native "$OUT/api_cost"
	! want alloc || api alloc "$G" run --mode alloc --force --top 0 -o "$prof" -- "$OUT/api_cost"
	! want object || api object "$G" run --mode object --force --top 0 -o "$prof" -- "$OUT/api_cost"
	! want object-quiet || api object-quiet env GMPROF_API_CALLBACKS=needed \
		"$G" run --mode object --force --top 0 -o "$prof" -- "$OUT/api_cost"
	r=$((r + 1))
done

# Native peaks, unfixed and fixed.
for p in $PROGRAMS; do
	for v in "" .fixed; do
		[ -x "$OUT/$p$v" ] || continue
		"$OUT/$p$v" >/dev/null 2>"$OUT/$p$v.peak"
		awk -v p="$p" -v v="${v:-.unfixed}" '/^bench: native peak / { print p, substr(v, 2), $4 }' \
			"$OUT/$p$v.peak" >>"$OUT/peaks"
	done
done

device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
toolkit=$("$NVCC" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')
slug=$(echo "$device" | tr 'A-Z ' 'a-z-' | tr -cd 'a-z0-9-')
suffix=
[ "$SCALE" = 1 ] || suffix=-scale$SCALE
res=benchmarks/results/$(date -u +%Y-%m-%d)-$slug$suffix.md
{
	echo "# GPU overhead, $(date -u +%Y-%m-%d), $device"
	echo
	echo "Driver $driver, CUDA toolkit $toolkit, $(nproc) CPU cores; median of $RUNS runs, configurations interleaved."
	echo
	[ "$SCALE" = 1 ] || { echo "Every program run with \`BENCH_SCALE=$SCALE\`: each kernel repeats its memory work $SCALE times within its launch (the same CUDA calls and findings)."; echo; }
	echo "Commands, per program P (built with \`$NVCC -O2 -g -lineinfo -Xcompiler -rdynamic\`):"
	echo
	echo "- native: \`P\`"
	echo "- alloc: \`gmprof run --mode alloc --force --top 0 -o P.gmprof -- P\` (no device patches)"
	echo "- object: \`gmprof run --mode object --force --top 0 -o P.gmprof -- P\`"
	echo "- object-launch: the same with \`GMPROF_HARVEST=launch\`"
	echo "- intra: \`gmprof run --mode intra --force --top 0 -o P.gmprof -- P\` (every kernel)"
	echo "- object-l1, intra-l1: object and intra with \`GMPROF_PATCH_LOADS=l1\` (hit and bitmap words tested through the L1)"
	echo "- object-hints: object with \`GMPROF_PATCH_HINTS=1\` (each instruction tries the table entry it found last)"
	echo "- object-quiet: object with \`GMPROF_API_CALLBACKS=needed\` (the callbacks of runtime and driver calls that make no GPU work turned off)"
	echo "- object-empty: object with \`GMPROF_PATCH_EMPTY=1\` (every access calls an empty callback: the Sanitizer's cost and gmprof's host work, not its device patches)"
	echo "- object-outside: object with \`--capture profiler-api\` and \`GMPROF_PATCH_AT=load\` (the programs never call cudaProfilerStart: every launch outside the capture range, its patches called with no launch data)"
	echo "- object-outside-at-launch: object-outside with \`GMPROF_PATCH_AT=launch\`, the default under a capture range (no module patched: none has a monitored launch)"
	echo "- memcheck: \`compute-sanitizer --tool memcheck --leak-check full P\`"
	echo
	echo "- access_cost: \`benchmarks/micro/access_cost\` natively, with \`GMPROF_PATCH_EMPTY=1 gmprof run\`, and under object and intra mode"
	echo "  (object mode also with \`GMPROF_FALLBACK=object-callback\` and with \`GMPROF_FALLBACK=hit-epochs\`)"
	echo "  (4M floats, 64 passes); first touch: \`access_cost $FIRST_TOUCH 1\` natively and in intra mode;"
	echo "  gather: \`access_cost 4194304 64 $GATHER\` (warp w in array w % $GATHER) natively, in object mode and with GMPROF_PATCH_HINTS=1"
	echo "- api_cost: \`benchmarks/micro/api_cost\` (250000 rounds of cudaGetDevice, cudaGetLastError, cudaStreamQuery,"
	echo "  cudaEventQuery) natively and under gmprof in alloc and object mode (and object-quiet)"
	echo
	awk -f benchmarks/overhead.awk "$OUT/times" "$OUT/peaks" "$OUT/micro" "$OUT/own" "$OUT/self"
	# Every run's time, in the lines benchmarks/overhead.awk reads: for analyses its tables do not make.
	echo
	echo "## Raw times"
	echo
	echo "Each run, in order (PROGRAM CONFIG SECONDS), then access_cost's and api_cost's (CONFIG UNITS MS):"
	echo
	echo '```'
	cat "$OUT/times" "$OUT/micro"
	echo '```'
} | tee "$res"
echo "written to $res"
