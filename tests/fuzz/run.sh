#!/bin/sh
# SPDX-License-Identifier: MIT
# make fuzz: runs each libFuzzer target for FUZZ_TIME seconds (or
# FUZZ_RUNS executions) on its seed corpus (tests/fuzz/corpus/TARGET, read
# only, or for dwarf the ELF files tests/fuzz/seeds.sh builds; new inputs
# go to $FUZZ/corpus-TARGET) and prints, per target, the
# executions reached and whether it crashed.  A crash leaves its input as
# $FUZZ/crash-TARGET-*: turn it into a regression test.
set -u
FUZZ=${FUZZ:-build/fuzz}
FUZZ_TIME=${FUZZ_TIME:-300}
status=0
for t in "$@"; do
	mkdir -p "$FUZZ/corpus-$t"
	seeds=tests/fuzz/corpus/$t
	if [ "$t" = dwarf ]; then
		# ELF seeds are built, not kept (tests/fuzz/seeds.sh).
		seeds=$FUZZ/seeds-dwarf
		sh tests/fuzz/seeds.sh "$seeds" || { status=2; continue; }
	fi
	limit="-max_total_time=$FUZZ_TIME"
	[ -n "${FUZZ_RUNS:-}" ] && limit="-runs=$FUZZ_RUNS"
	"$FUZZ/fuzz_$t" "$FUZZ/corpus-$t" "$seeds" $limit -max_len=65536 \
		-artifact_prefix="$FUZZ/crash-$t-" -print_final_stats=1 >"$FUZZ/log-$t" 2>&1
	rc=$?
	runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 executions in \2 s/p' "$FUZZ/log-$t")
	if [ "$rc" -eq 0 ]; then
		echo "fuzz $t: ${runs:-?}, no crash"
	else
		echo "fuzz $t: CRASH (exit $rc); see $FUZZ/log-$t and $FUZZ/crash-$t-*"
		grep -m3 -E "ERROR|runtime error|SUMMARY" "$FUZZ/log-$t"
		status=1
	fi
done
exit $status
