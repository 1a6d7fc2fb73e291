# SPDX-License-Identifier: MIT
# A short libFuzzer run of each reader (profile, event script, baseline) on
# its seed corpus, and every seed replayed; `make fuzz` runs them long.
# Skipped with one line where clang (libFuzzer) is unavailable.
. tests/cli/lib.sh
if [ -z "${FUZZ:-}" ] || [ ! -x "$FUZZ/fuzz_profile" ]; then
	echo "ok - skipped: clang with libFuzzer is not installed (apt-get install clang)"
	exit 0
fi
for t in profile script baseline; do
	mkdir -p "$TMPDIR/corpus-$t"
	if "$FUZZ/fuzz_$t" "$TMPDIR/corpus-$t" "tests/fuzz/corpus/$t" -runs="${FUZZ_SMOKE_RUNS:-30000}" -max_len=16384 \
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
