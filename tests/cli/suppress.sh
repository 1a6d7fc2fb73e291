# SPDX-License-Identifier: MIT
# Suppressions (--suppressions FILE): rules PATTERN:GLOB take matching
# findings out of reports, traces, gates and baselines; a bad file is one
# sentence and exit 2.
. tests/cli/lib.sh
S=tests/scripts
P=tests/data/gpu/simple_multi_copy.gmprof
SYM=tests/data/gpu/bin
count() { grep -c '^  [0-9]*\. ' "$TMPDIR/out"; }

# Event scripts: rules match the allocation's `at` and its file.
printf '# the leak of C is a vendor library'"'"'s\nmemory_leak:fig2.cu:10\n' >"$TMPDIR/leak.sup"
expect_exit 0 "replay with a suppressions file" -- "$GMPROF" replay --suppressions "$TMPDIR/leak.sup" $S/figure2.jsonl
[ "$(count)" -eq 3 ] && ok "one of four findings left out" || notok "findings left: $(count)"
grep -q 'memory_leak' "$TMPDIR/out" && notok "the leak is gone" || ok "the leak is gone"
grep -q 'temporary_idleness: C' "$TMPDIR/out" && ok "C's other pattern stays" || notok "C's other pattern stays"
expect_exit 1 "check --fail-on memory_leak fails without the rule" -- "$GMPROF" check --fail-on memory_leak $S/figure2.jsonl
expect_exit 0 "  ... and passes with it" -- "$GMPROF" check --fail-on memory_leak --suppressions "$TMPDIR/leak.sup" $S/figure2.jsonl
grep -q '^PASS suppressions: 1 finding suppressed by .*leak.sup$' "$TMPDIR/out" && ok "check says how many it left out" ||
	notok "check: $(grep suppress "$TMPDIR/out")"
grep -q '^  .*leak.sup:2: fig2.cu:10: 1$' "$TMPDIR/out" && ok "check counts per rule" || notok "per rule: $(cat "$TMPDIR/out")"
expect_exit 0 "--max-leak counts no suppressed leak" -- "$GMPROF" check --max-leak 0 --suppressions "$TMPDIR/leak.sup" $S/figure2.jsonl
expect_exit 1 "  ... and fails without the rule" -- "$GMPROF" check --max-leak 0 $S/figure2.jsonl
printf '*:fig2.cu\n' >"$TMPDIR/file.sup"
expect_exit 0 "a file glob" -- "$GMPROF" replay --suppressions "$TMPDIR/file.sup" $S/figure2.jsonl
grep -q '^0 findings\|no findings' "$TMPDIR/out" && ok "  ... leaves out every finding allocated there" || notok "file glob: $(head -3 "$TMPDIR/out")"
# Intra-object findings: the kernel matches too.
printf 'non_uniform_access_frequency:gram_*\n' >"$TMPDIR/k.sup"
expect_exit 0 "a kernel glob" -- "$GMPROF" replay --suppressions "$TMPDIR/k.sup" $S/intra_patterns.jsonl
grep -q non_uniform "$TMPDIR/out" && notok "  ... leaves out the kernel's finding" || ok "  ... leaves out the kernel's finding"
[ "$(count)" -eq 6 ] && ok "  ... and only it" || notok "kernel glob: $(count) left"

# A recorded profile: rules match the frames of the symbolized call path.
printf 'early_allocation:bench_malloc*   # the wrapper: a comment after the rule\n' >"$TMPDIR/fn.sup"
expect_exit 0 "report: a function glob" -- "$GMPROF" report --symbols $SYM --suppressions "$TMPDIR/fn.sup" $P
grep -q '^Findings: 9 (2 more suppressed by .*fn.sup)' "$TMPDIR/out" && ok "  ... the report says 2 were left out" ||
	notok "report: $(grep Findings "$TMPDIR/out")"
grep -q 'early_allocation' "$TMPDIR/out" && notok "  ... no early allocation left" || ok "  ... no early allocation left"
printf '*:simple_multi_copy\n' >"$TMPDIR/mod.sup"
expect_exit 0 "a module name" -- "$GMPROF" report --symbols $SYM --suppressions "$TMPDIR/mod.sup" $P
grep -q '^Findings: 0 (11 more suppressed' "$TMPDIR/out" && ok "  ... matches every frame in the program" || notok "module: $(grep Findings "$TMPDIR/out")"
printf '*:*simple_multi_copy.cu:4[02]\n' >"$TMPDIR/line.sup"
expect_exit 0 "file:line of an outer frame" -- "$GMPROF" report --symbols $SYM --suppressions "$TMPDIR/line.sup" $P
grep -q '^Findings: 0 (11 more' "$TMPDIR/out" && ok "  ... matches (main's lines 40 and 42 allocate everything)" || notok "line: $(grep Findings "$TMPDIR/out")"
# Outputs and baselines leave them out too.
"$GMPROF" baseline --symbols $SYM --suppressions "$TMPDIR/fn.sup" $P >"$TMPDIR/b.json" &&
	[ "$(grep -c '"fingerprint"' "$TMPDIR/b.json")" -eq 9 ] && ok "baseline: 9 fingerprints" || notok "baseline fingerprints"
expect_exit 0 "check against that baseline, with the same rules" -- "$GMPROF" check --symbols $SYM \
	--suppressions "$TMPDIR/fn.sup" --baseline "$TMPDIR/b.json" --junit "$TMPDIR/j.xml" $P
grep -q 'name="suppressions"' "$TMPDIR/j.xml" && ok "JUnit: a suppressions test case" || notok "JUnit: no suppressions test case"
expect_exit 0 "perfetto with suppressions" -- "$GMPROF" perfetto --suppressions "$TMPDIR/fn.sup" --symbols $SYM -o "$TMPDIR/t.json" $P
n=$(grep -o '"early_allocation' "$TMPDIR/t.json" | wc -l)
[ "$n" -eq 0 ] && ok "  ... the trace has no early allocation" || notok "trace: $n early allocations"

# Bad files: one sentence naming the file and line, exit 2.
printf 'memory_leak:x\nbogus:y\n' >"$TMPDIR/bad.sup"
expect_exit 2 "an unknown pattern" -- "$GMPROF" report --suppressions "$TMPDIR/bad.sup" $S/figure2.jsonl
expect_stderr_line "bad.sup:2: unknown pattern 'bogus'" "  ... one sentence with its line"
printf 'memory_leak\n' >"$TMPDIR/bad2.sup"
expect_exit 2 "a rule without a glob" -- "$GMPROF" check --suppressions "$TMPDIR/bad2.sup" $S/figure2.jsonl
expect_stderr_line "bad2.sup:1: expected PATTERN:GLOB, got 'memory_leak'" "  ... one sentence"
expect_exit 2 "a missing file" -- "$GMPROF" replay --suppressions "$TMPDIR/none.sup" $S/figure2.jsonl
expect_stderr_line "cannot open suppressions '.*none.sup': No such file or directory" "  ... one sentence"
finish
