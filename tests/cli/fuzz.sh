# SPDX-License-Identifier: MIT
# A short libFuzzer run of each reader (profile, event script, baseline,
# and gmprof's own DWARF reader on ELF files) on its seed corpus, and every
# seed replayed; `make fuzz` runs them long.  The DWARF seeds are built here
# (tests/fuzz/seeds.sh), and each must give gmprof addr2line a line of its
# source, or the run would fuzz the reader's refusals alone.  Skipped with
# one line where clang (libFuzzer) is unavailable.
. tests/cli/lib.sh
if [ -z "${FUZZ:-}" ] || [ ! -x "$FUZZ/fuzz_profile" ]; then
	echo "ok - skipped: clang with libFuzzer is not installed (apt-get install clang)"
	exit 0
fi
if sh tests/fuzz/seeds.sh "$TMPDIR/seeds-dwarf"; then
	bad=
	for s in "$TMPDIR"/seeds-dwarf/*; do
		a=$(readelf -sW "$s" | awk '$8 == "main" { print $2 }')
		"$GMPROF" addr2line -f -e "$s" "0x$a" 2>&1 | grep -q '^/src/a\.c:[0-9]' || bad="$bad ${s##*/}"
	done
	[ -z "$bad" ] && ok "dwarf seeds: gmprof reads a line of a.c in each of $(ls "$TMPDIR/seeds-dwarf" | wc -l)" ||
		notok "dwarf seeds without a line:$bad"
else
	notok "dwarf seeds built"
fi
for t in profile script baseline dwarf; do
	seeds=tests/fuzz/corpus/$t
	[ "$t" = dwarf ] && seeds=$TMPDIR/seeds-dwarf
	mkdir -p "$TMPDIR/corpus-$t"
	if "$FUZZ/fuzz_$t" "$TMPDIR/corpus-$t" "$seeds" -runs="${FUZZ_SMOKE_RUNS:-30000}" -max_len=16384 \
		-artifact_prefix="$TMPDIR/crash-$t-" >"$TMPDIR/log-$t" 2>&1; then
		ok "fuzz smoke: $t ($(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$TMPDIR/log-$t") executions, no crash)"
	else
		notok "fuzz smoke: $t"; grep -m5 -E "ERROR|runtime error|SUMMARY" "$TMPDIR/log-$t"
	fi
	# Regression inputs: every file under tests/fuzz/regress/TARGET must pass.
	if [ -d "tests/fuzz/regress/$t" ]; then
		if "$FUZZ/fuzz_$t" tests/fuzz/regress/"$t"/* >"$TMPDIR/reg-$t" 2>&1; then ok "fuzz regressions: $t"; else notok "fuzz regressions: $t"; tail -5 "$TMPDIR/reg-$t"; fi
	fi
done
finish
