#!/bin/sh
# SPDX-License-Identifier: MIT
# The CPU benchmarks (make bench): replay throughput and memory per event
# at 1M and 10M events, from binary profiles and from event scripts, on a
# typical workload (temporaries from a pool, as behind a caching
# allocator) and a stress workload (every temporary a fresh allocation:
# many findings).  Then the collector's own cost per event with many live
# objects, through the Sanitizer test double (which also does, on the CPU,
# what the GPU would: the patches' work, copies and memsets).  One run
# prints one table; compare within it, never across machines.  Last, the
# device patches' instruction counts (benchmarks/patch_sass.py).  Goals: >= 2M events/s from a
# profile, >= 500k/s from a script, <= 200 B/event, 10M/1M time ~ 10.
set -eu
BUILD=${BUILD:-build}
B=$BUILD/rel
RUNS=${RUNS:-3}
SIZES=${SIZES:-"1000000 10000000"}
W=$(mktemp -d "${TMPDIR:-/tmp}/gmprof-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT

row() { # label events seconds rss_kib
	awk -v l="$1" -v n="$2" -v s="$3" -v k="$4" 'BEGIN {
		printf "| %-34s | %9d | %7.3f | %10.0f | %7.1f |\n", l, n, s, n / s, k * 1024 / n }'
}

echo "gmprof CPU benchmarks: $(date -u +%Y-%m-%d), $(nproc) cores, median of $RUNS runs"
echo
echo "| replay (gmprof replay --top 10)     |    events | seconds |   events/s | B/event |"
echo "|------------------------------------|-----------|---------|------------|---------|"
for mode in pool fresh; do
	flag=""; [ "$mode" = pool ] && flag="--pool"
	for n in $SIZES; do
		"$B/gmprof-gen" $flag -n "$n" -o "$W/$mode-$n.gmprof"
		set -- $("$B/gmprof-bench" -r "$RUNS" -- "$B/gmprof" replay --top 10 "$W/$mode-$n.gmprof")
		row "$mode workload, profile" "$n" "$1" "$2"
		echo "$mode profile $n $1" >>"$W/times"
		if [ "$mode" = pool ]; then
			"$B/gmprof-gen" $flag -n "$n" --script -o "$W/$mode-$n.jsonl"
			set -- $("$B/gmprof-bench" -r "$RUNS" -- "$B/gmprof" replay --top 10 "$W/$mode-$n.jsonl")
			row "$mode workload, event script" "$n" "$1" "$2"
			echo "$mode script $n $1" >>"$W/times"
			rm -f "$W/$mode-$n.jsonl"
		fi
		rm -f "$W/$mode-$n.gmprof"
	done
done
# The legacy default stream's order (blocking streams, a download on stream 0 each step): beside the pool row.
n=1000000
"$B/gmprof-gen" --pool --legacy -n "$n" -o "$W/legacy-$n.gmprof"
set -- $("$B/gmprof-bench" -r "$RUNS" -- "$B/gmprof" replay --top 10 "$W/legacy-$n.gmprof")
row "pool workload, legacy, profile" "$n" "$1" "$2"
rm -f "$W/legacy-$n.gmprof"
echo
echo "Scaling (time at the largest size / time at the smallest, ideal = size ratio):"
awk '{ key = $1 " " $2; if (!(key in lo) || $3 < lon[key]) { lon[key] = $3; lo[key] = $4 }
       if (!(key in hi) || $3 > hin[key]) { hin[key] = $3; hi[key] = $4 } }
     END { for (k in lo) if (hin[k] > lon[k])
		printf "  %-14s %5.2fx for %gx the events\n", k, hi[k] / lo[k], hin[k] / lon[k] }' "$W/times" | sort

echo
echo "| trace writer (gmprof perfetto -o -, pool workload)   |    events | seconds | API events/s | trace events/s | MB written |"
echo "|------------------------------------------------------|-----------|---------|--------------|----------------|------------|"
for n in 1000000; do
	"$B/gmprof-gen" --pool -n "$n" -o "$W/trace-$n.gmprof"
	for lean in "" --lean; do
		"$B/gmprof" perfetto $lean --stats -o - "$W/trace-$n.gmprof" 2>"$W/stats" | wc -c >"$W/bytes"
		label="1M API events, every access a child slice and flow"
		[ -z "$lean" ] || label="1M API events, --lean (objects in the args)"
		# "gmprof perfetto: N API events, M trace events in S s: ..."
		awk -v mb="$(cat "$W/bytes")" -v l="$label" '{ api = $3; tr = $6; sec = $10 }
			END { printf "| %-52s | %9d | %7.3f | %12.0f | %14.0f | %10.1f |\n", l, api, sec, api / sec, tr / sec, mb / 1e6 }' "$W/stats"
	done
	rm -f "$W/trace-$n.gmprof"
done
echo
echo "Pool: a kernel launch in every 2 events, no allocation between most; fresh: one in 4, most after an allocation;"
echo "reuse: 20000 rounds of an object, at random, freed and allocated again at its address (as the driver reuses them), then read."
echo
echo "| collector (the Sanitizer test double for a GPU)      | live objects |    events | seconds | the replay alone, s |"
echo "|------------------------------------------------------|--------------|-----------|---------|---------------------|"
printf 'stands in for the device patches\n' >"$W/patches.fatbin"
for shape in "pool 10000 400000" "pool 100000 400000" "fresh 100000 200000" "reuse 100000 160200"; do
	set -- $shape
	mode=$1 objs=$2 n=$3 flag=""
	[ "$mode" = pool ] && flag="--pool"
	if [ "$mode" = reuse ]; then
		awk -v objs="$objs" 'BEGIN { srand(3); for (k = 0; k < objs; k++) printf "{\"op\":\"alloc\",\"addr\":\"0x%x\",\"size\":4096}\n", 268435456 + k * 8192
			for (i = 0; i < 20000; i++) { k = int(rand() * objs); a = 268435456 + k * 8192
				printf "{\"op\":\"free\",\"addr\":\"0x%x\"}\n{\"op\":\"alloc\",\"addr\":\"0x%x\",\"size\":4096}\n", a, a
				printf "{\"op\":\"kernel\",\"name\":\"k\",\"read\":[\"0x%x\"]}\n", a
				if (i % 100 == 99) print "{\"op\":\"sync\"}" } }' >"$W/col.gmprof" # a script: fake_app reads both
	else
		"$B/gmprof-gen" $flag --objects "$objs" -n "$n" -o "$W/col.gmprof"
	fi
	bare=$(GMPROF_DOUBLE="$PWD/$B/double/libsanitizer-public.so" GMPROF_SANITIZER_LIB="$PWD/$B/double/libsanitizer-public.so" \
		"$B/gmprof-bench" -r "$RUNS" -- "$B/double/fake_app" --bare "$W/col.gmprof" | cut -d' ' -f1)
	t=$(GMPROF_COLLECTOR="$PWD/$B/libgmprof.so" GMPROF_DOUBLE="$PWD/$B/double/libsanitizer-public.so" \
		GMPROF_SANITIZER_LIB="$PWD/$B/double/libsanitizer-public.so" GMPROF_PATCH="$W/patches.fatbin" \
		GMPROF_SUMMARY=0 GMPROF_ONLINE=0 GMPROF_FORCE=1 GMPROF_OUTPUT="$W/out.gmprof" \
		"$B/gmprof-bench" -r "$RUNS" -- "$B/double/fake_app" "$W/col.gmprof" | cut -d' ' -f1)
	label="$mode workload"
	printf '| %-52s | %12d | %9d | %7.3f | %19.3f |\n' "$label" "$objs" "$n" "$t" "$bare"
	rm -f "$W/col.gmprof" "$W/out.gmprof"
done
echo
# NVTX ranges through NVTX's loader: its stubs (no tool), and the collector as its tool
# (benchmarks/nvtx_cost.c: a framework's range per operator; GPU calls none, so nothing is written).
if [ -x "$B/tools/nvtx_cost" ]; then
	echo "| NVTX push and pop, ns a pair (nvtx_cost)             | no tool | collector | collector, library left out |"
	echo "|------------------------------------------------------|---------|-----------|-----------------------------|"
	"$B/tools/nvtx_cost" >"$W/nvtx.none"
	for ex in "" library; do
		env GMPROF_COLLECTOR="$PWD/$B/libgmprof.so" NVTX_INJECTION64_PATH="$PWD/$B/libgmprof.so" \
			GMPROF_DOUBLE="$PWD/$B/double/libsanitizer-public.so" \
			GMPROF_SANITIZER_LIB="$PWD/$B/double/libsanitizer-public.so" GMPROF_PATCH="$W/patches.fatbin" \
			GMPROF_SUMMARY=0 GMPROF_ONLINE=0 GMPROF_FORCE=1 GMPROF_OUTPUT="$W/nvtx.gmprof" \
			${ex:+GMPROF_NVTX_DOMAIN_EXCLUDE=$ex} "$B/tools/nvtx_cost" >"$W/nvtx.col$ex"
	done
	for shape in "default:the default domain, 4 deep" "under:the same, a library's range open beneath" \
		"domain:in the library's own domain"; do
		k=${shape%%:*}
		printf '| %-52s | %7s | %9s | %27s |\n' "${shape#*:}" "$(awk -v k="$k" '$1 == k { print $2 }' "$W/nvtx.none")" \
			"$(awk -v k="$k" '$1 == k { print $2 }' "$W/nvtx.col")" "$(awk -v k="$k" '$1 == k { print $2 }' "$W/nvtx.collibrary")"
	done
	rm -f "$W/nvtx.gmprof"
else
	echo "(no nvtx3 headers in \$CUDA_HOME/include: NVTX's cost not measured)"
fi
echo
echo "addr2line against binutils (goal: at least 5x faster, identical output):"
echo
SHAPE=loop BUILD=$BUILD sh benchmarks/addr2line.sh
SHAPE=branchy BUILD=$BUILD sh benchmarks/addr2line.sh
echo
echo "The device patches' machine code (static counts; the stores and loads a call pays before any"
echo "branch are the registers it saves for the patched kernel, on every call):"
echo
if command -v python3 >/dev/null && [ -x "${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}" ]; then
	python3 benchmarks/patch_sass.py || echo "(patch_sass.py could not count them; its line above says why)"
else
	echo "(python3 or nvcc missing: not counted)"
fi
