#!/bin/sh
# SPDX-License-Identifier: MIT
# Scale of the collector (test double, no GPU): 1M and 10M API events with
# 100k long-lived objects replayed through the collector, against the same
# replay with no collector (--bare), in one run.  The collector's memory is
# the difference of peak RSS; with the online analysis capped
# (GMPROF_ONLINE_EVENTS, 2M by default) and off, it must stay bounded.
# Also the analyzer on the 10M profile the collector wrote.
set -eu
BUILD=${BUILD:-build}
R=$BUILD/rel
SIZES=${SIZES:-"1000000 10000000"}
W=$(mktemp -d "${TMPDIR:-/tmp}/gmprof-scale.XXXXXX")
trap 'rm -rf "$W"' EXIT
echo "stands in for the device patches" >"$W/patches.fatbin"
export GMPROF_COLLECTOR="$PWD/$R/libgmprof.so" GMPROF_SANITIZER_LIB="$PWD/$R/double/libsanitizer-public.so"
export GMPROF_DOUBLE="$GMPROF_SANITIZER_LIB" GMPROF_PATCH="$W/patches.fatbin" GMPROF_SUMMARY=0
echo "| collector scale (test double, 100k live objects) | events | seconds | peak RSS, MiB | collector's share, MiB | B/event |"
echo "|---|---|---|---|---|---|"
for n in $SIZES; do
	"$R/gmprof-gen" -n "$n" --objects 100000 -o "$W/in.gmprof"
	set -- $("$R/gmprof-bench" -r 1 -- "$R/double/fake_app" --bare "$W/in.gmprof")
	bare_t=$1 bare_k=$2
	for online in 1 0; do
		rm -f "$W/out.gmprof"
		set -- $(env GMPROF_ONLINE=$online GMPROF_OUTPUT="$W/out.gmprof" "$R/gmprof-bench" -r 1 -- "$R/double/fake_app" "$W/in.gmprof")
		awk -v n="$n" -v t="$1" -v k="$2" -v bk="$bare_k" -v on="$online" 'BEGIN {
			printf "| %s | %d | %.2f | %.0f | %.0f | %.1f |\n", on ? "online analysis on (capped at 2M events)" : "online analysis off",
				n, t, k / 1024, (k - bk) / 1024, (k - bk) * 1024 / n }'
	done
	printf "| (the replay alone, no collector) | %d | %.2f | %.0f | - | - |\n" "$n" "$bare_t" "$(echo "$bare_k" | awk '{ print $1 / 1024 }')"
	set -- $("$R/gmprof-bench" -r 1 -- "$R/gmprof" replay --top 10 "$W/out.gmprof")
	awk -v n="$n" -v t="$1" -v k="$2" 'BEGIN { printf "| analyzer: gmprof replay of that profile | %d | %.2f | %.0f | - | %.1f |\n", n, t, k / 1024, k * 1024 / n }'
done
