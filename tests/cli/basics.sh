# SPDX-License-Identifier: MIT
# The gmprof command: help, version, unknown commands and options, bad input.
. tests/cli/lib.sh
S=tests/scripts

expect_exit 0 "gmprof --help exits 0" -- "$GMPROF" --help
grep -q "^Usage: gmprof COMMAND" "$TMPDIR/out" && ok "help goes to stdout" || notok "help goes to stdout"
expect_exit 0 "gmprof --version" -- "$GMPROF" --version
grep -q "^gmprof [0-9]" "$TMPDIR/out" && ok "version line" || notok "version line"
expect_exit 2 "unknown command exits 2" -- "$GMPROF" frobnicate
expect_stderr_line "unknown command 'frobnicate'" "unknown command: one line"
expect_exit 2 "no command exits 2" -- "$GMPROF"
for cmd in replay dump convert; do
	expect_exit 0 "$cmd --help" -- "$GMPROF" $cmd --help
	grep -q "^EXAMPLES" "$TMPDIR/out" && ok "$cmd help has examples" || notok "$cmd help has examples"
	expect_exit 2 "$cmd unknown option" -- "$GMPROF" $cmd --bogus x
	expect_stderr_line "unknown option '--bogus'" "$cmd unknown option: one line"
done
# Help text is printed as is: no printf escapes may show through.
for cmd in run report perfetto html check baseline diff replay dump convert addr2line; do
	"$GMPROF" $cmd --help >"$TMPDIR/help" 2>&1 || notok "$cmd --help exits 0"
	if grep -qE '[A-Za-z0-9]%%' "$TMPDIR/help"; then notok "$cmd help shows a literal %%"; else ok "$cmd help has no literal %%"; fi
done
expect_exit 2 "convert -o -" -- "$GMPROF" convert -o - $S/figure2.jsonl
expect_stderr_line "a profile is written to a file, not to standard output" "convert -o -: one line"
[ ! -e ./- ] && ok "  ... and writes no file named '-'" || { notok "convert -o - wrote a file named '-'"; rm -f ./-; }
expect_exit 2 "convert without -o" -- "$GMPROF" convert $S/figure2.jsonl
expect_stderr_line "^gmprof convert: -o PROFILE is required" "  ... one line"
expect_exit 2 "convert of two inputs" -- "$GMPROF" convert -o "$TMPDIR/two.gmprof" $S/figure2.jsonl $S/figure3.jsonl
expect_stderr_line "^gmprof convert: expected one INPUT, got 2" "  ... one line"
expect_exit 2 "convert into a directory that does not exist" -- "$GMPROF" convert -o "$TMPDIR/no/such/c.gmprof" $S/figure2.jsonl
expect_stderr_line "^gmprof: cannot create '$TMPDIR/no/such/c.gmprof'" "  ... one line"
[ ! -e "$TMPDIR/two.gmprof" ] && ok "  ... nothing written" || notok "  ... convert of two inputs wrote a profile"
expect_exit 2 "replay without input" -- "$GMPROF" replay
expect_exit 2 "replay bad threshold" -- "$GMPROF" replay --idle-apis -3 $S/figure2.jsonl
expect_stderr_line "bad value '-3'" "bad threshold: one line"
expect_exit 2 "replay bad pattern list" -- "$GMPROF" replay --patterns nope $S/figure2.jsonl
# --min-size: findings on smaller objects left out, and said so; they fail no check.
expect_exit 0 "replay --min-size 1MiB" -- "$GMPROF" replay --min-size 1MiB $S/figure3.jsonl
grep -q '^10 findings, ranked' "$TMPDIR/out" && ! grep -q 'left out' "$TMPDIR/out" &&
	ok "  ... the 1 MiB objects' findings kept" || notok "  ... $(grep findings "$TMPDIR/out")"
expect_exit 0 "replay --min-size 1048577" -- "$GMPROF" replay --min-size 1048577 $S/figure3.jsonl
grep -q '^10 findings on objects under 1.0 MiB left out (--min-size)$' "$TMPDIR/out" && grep -q '^no findings$' "$TMPDIR/out" &&
	ok "  ... left out, and said so" || notok "  ... $(cat "$TMPDIR/out")"
expect_exit 0 "report --min-size" -- "$GMPROF" report --min-size 2MiB $S/figure3.jsonl
grep -q '^Findings: 0 (10 more on objects under 2.0 MiB: --min-size), ' "$TMPDIR/out" &&
	ok "  ... the report says so too" || notok "  ... $(grep Findings "$TMPDIR/out")"
expect_exit 1 "check --fail-on all" -- "$GMPROF" check --fail-on all $S/figure3.jsonl
"$GMPROF" html -o "$TMPDIR/min.html" --min-size 2MiB $S/figure3.jsonl &&
	grep -q '<dt>findings</dt><dd>0 (10 more on objects under 2.0 MiB: <code>--min-size</code>)</dd>' "$TMPDIR/min.html" &&
	"$GMPROF" report --format markdown --min-size 2MiB $S/figure3.jsonl | grep -q '^(10 more on objects under 2.0 MiB: `--min-size`)$' &&
	ok "  ... and so do the HTML and Markdown reports" || notok "  ... the HTML or Markdown report does not say so"
expect_exit 0 "check --fail-on all --min-size 2MiB" -- "$GMPROF" check --fail-on all --min-size 2MiB $S/figure3.jsonl
expect_exit 0 "  ... --max-leak counts the leaks it reports (as with suppressions)" -- \
	"$GMPROF" check --max-leak 0 --min-size 1GiB $S/pool_leaked.jsonl
expect_exit 2 "bad --min-size" -- "$GMPROF" report --min-size big $S/figure3.jsonl
expect_stderr_line "bad value 'big'" "  ... one line"
expect_exit 2 "replay bad format" -- "$GMPROF" replay --format xml $S/figure2.jsonl

# Bad input: one sentence, exit 2.
expect_exit 2 "missing file" -- "$GMPROF" replay "$TMPDIR/nope.jsonl"
expect_stderr_line "cannot open '.*nope.jsonl': No such file or directory" "missing file: one line"
printf '{"op":"alloc","addr":1,"size":1}\n{"op":"bad"}\n' >"$TMPDIR/bad.jsonl"
expect_exit 2 "bad script line" -- "$GMPROF" replay "$TMPDIR/bad.jsonl"
expect_stderr_line "bad.jsonl:2: unknown op 'bad'" "bad script: file, line and reason"
printf '{"op":"free","addr":"0x10"}\n' >"$TMPDIR/free.jsonl"
expect_exit 2 "free of nothing" -- "$GMPROF" replay "$TMPDIR/free.jsonl"
expect_stderr_line "free.jsonl:1: free of 0x10, which belongs to no live object" "free of nothing: one line"
head -c 100 /dev/urandom | tr '\000' '\001' >"$TMPDIR/junk"
printf '\000\001\002' >>"$TMPDIR/junk"
expect_exit 2 "binary junk" -- "$GMPROF" replay "$TMPDIR/junk"
expect_stderr_line "neither a gmprof profile nor an event script" "binary junk: one line"
printf '# Build notes\n\nmake all\n' >"$TMPDIR/notes.txt"
expect_exit 2 "a text file" -- "$GMPROF" check --max-peak 1GiB "$TMPDIR/notes.txt"
expect_stderr_line "notes.txt:3: not JSON: the file is neither a gmprof profile nor an event script" "a text file: one line says it is neither"
expect_exit 2 "directory" -- "$GMPROF" replay "$TMPDIR"
expect_stderr_line "is a directory" "directory: one line"
# An empty file is no run: a gate must not pass a profile that a failed copy left empty.
: >"$TMPDIR/empty.gmprof"
expect_exit 2 "empty file: check refuses it" -- "$GMPROF" check --max-peak 1GiB "$TMPDIR/empty.gmprof"
expect_stderr_line "'.*empty.gmprof' is empty (0 bytes): neither a profile nor an event script" "empty file: one line"
expect_exit 2 "empty standard input" -- sh -c '"$1" replay - </dev/null' sh "$GMPROF"
expect_stderr_line "'<stdin>' is empty (0 bytes)" "empty standard input: one line"
printf '# a comment, no op\n' >"$TMPDIR/comment.jsonl"
expect_exit 0 "a script of a comment alone is a run that did nothing" -- "$GMPROF" replay "$TMPDIR/comment.jsonl"

# Output files: never overwritten without --force, never half-written.
expect_exit 0 "replay -o" -- "$GMPROF" replay -o "$TMPDIR/r.txt" $S/figure2.jsonl
expect_exit 2 "replay -o refuses to overwrite" -- "$GMPROF" replay -o "$TMPDIR/r.txt" $S/figure2.jsonl
expect_stderr_line "refusing to overwrite '.*r.txt' (use --force)\$" "overwrite refusal: one line, no errno text"
"$GMPROF" dump $S/figure2.jsonl >/dev/null 2>&1
expect_exit 2 "dump -o refuses to overwrite" -- "$GMPROF" dump -o "$TMPDIR/r.txt" $S/figure2.jsonl
expect_stderr_line "refusing to overwrite '.*r.txt' (use --force)\$" "dump: the same sentence"
expect_exit 0 "replay -o --force" -- "$GMPROF" replay --force -o "$TMPDIR/r.txt" $S/figure2.jsonl
expect_exit 0 "convert -o" -- "$GMPROF" convert -o "$TMPDIR/c.gmprof" $S/figure3.jsonl
cp "$TMPDIR/c.gmprof" "$TMPDIR/c.keep"
expect_exit 2 "convert -o refuses to overwrite a profile" -- "$GMPROF" convert -o "$TMPDIR/c.gmprof" $S/figure2.jsonl
expect_stderr_line "refusing to overwrite '.*c.gmprof' or to follow a symlink there (use --force to replace a file)\$" "  ... in one line"
cmp -s "$TMPDIR/c.gmprof" "$TMPDIR/c.keep" && ok "  ... the profile there intact" || notok "  ... the profile there changed"
expect_exit 0 "convert --force replaces it" -- "$GMPROF" convert --force -o "$TMPDIR/c.gmprof" $S/figure2.jsonl
"$GMPROF" dump "$TMPDIR/c.gmprof" 2>/dev/null | grep -q '"label":"B"' && ok "  ... with the new run" || notok "  ... not with the new run"
expect_exit 2 "unwritable output" -- "$GMPROF" replay -o /proc/gmprof-nope/x $S/figure2.jsonl
expect_stderr_line "cannot create '/proc/gmprof-nope/x'" "unwritable output: one line"
[ ! -e /proc/gmprof-nope/x ] && ok "nothing left behind" || notok "nothing left behind"
# Outputs that are no file to replace are written in place, as '>' writes
# them: a device node (made here, so that a regression replaces it, not
# the machine's /dev/null), a FIFO another program reads, and the
# descriptors /dev/stdout and /dev/fd/N name.  --force or not.
if [ "$(id -u)" = 0 ] && mknod "$TMPDIR/null" c 1 3 2>/dev/null && mknod "$TMPDIR/full" c 1 7 2>/dev/null; then
	expect_exit 0 "-o a device (null), no --force needed" -- "$GMPROF" replay -o "$TMPDIR/null" $S/figure2.jsonl
	expect_exit 0 "-o a device with --force" -- "$GMPROF" replay --force -o "$TMPDIR/null" $S/figure2.jsonl
	[ -c "$TMPDIR/null" ] && ok "  ... the device is still a device" || notok "  ... the device was replaced: $(ls -l "$TMPDIR/null")"
	expect_exit 2 "-o a full device" -- "$GMPROF" report --force -o "$TMPDIR/full" $S/figure2.jsonl
	expect_stderr_line "cannot write '.*/full': No space left on device" "  ... one line"
	[ -c "$TMPDIR/full" ] && ok "  ... still a device" || notok "  ... the device was replaced"
else
	ok "skipped: device nodes need root"
fi
if [ -c /dev/full ]; then
	expect_exit 2 "standard output full" -- sh -c '"$1" replay "$2" >/dev/full' sh "$GMPROF" $S/figure2.jsonl
	expect_stderr_line "^gmprof: cannot write to standard output: No space left on device\$" "  ... one line"
	expect_exit 2 "check's log lost to a full standard output is an error, not a pass" -- \
		sh -c '"$1" check --max-peak 1GiB "$2" >/dev/full' sh "$GMPROF" $S/figure2.jsonl
	expect_stderr_line "^gmprof check: cannot write the log to standard output: No space left on device\$" "  ... one line"
	expect_exit 2 "dump into a full standard output" -- sh -c '"$1" dump "$2" >/dev/full' sh "$GMPROF" $S/figure2.jsonl
	expect_stderr_line "^gmprof: cannot write to standard output: No space left on device\$" "  ... one line"
	expect_exit 2 "dump -o a full device" -- "$GMPROF" dump -o /dev/full $S/figure2.jsonl
	expect_stderr_line "^gmprof: cannot write '/dev/full': No space left on device\$" "  ... one line"
fi
expect_exit 2 "dump into a missing directory" -- "$GMPROF" dump -o "$TMPDIR/no/such/x.jsonl" $S/figure2.jsonl
expect_stderr_line "^gmprof: cannot create '.*/no/such/x.jsonl': No such file or directory\$" "  ... one line"
expect_exit 2 "dump -o with no value" -- "$GMPROF" dump -o
expect_stderr_line "^gmprof dump: option '-o' needs a value" "  ... one line"
mkfifo "$TMPDIR/pipe"
cat "$TMPDIR/pipe" >"$TMPDIR/piped" &
expect_exit 0 "-o a FIFO" -- "$GMPROF" replay -o "$TMPDIR/pipe" $S/figure2.jsonl
wait
[ -p "$TMPDIR/pipe" ] && grep -q '^device 0: peak 1.0 MiB' "$TMPDIR/piped" &&
	ok "  ... the reader got the findings, the FIFO stays" || notok "  ... through the FIFO: $(cat "$TMPDIR/piped")"
expect_exit 0 "-o /dev/stdout" -- "$GMPROF" replay -o /dev/stdout $S/figure2.jsonl
grep -q '^device 0: peak 1.0 MiB' "$TMPDIR/out" && [ -L /dev/stdout ] && ok "  ... on standard output" || notok "  ... on standard output"
expect_exit 0 "-o /dev/fd/3" -- sh -c '"$1" replay -o /dev/fd/3 "$2" 3>"$3"' sh "$GMPROF" $S/figure2.jsonl "$TMPDIR/fd3"
grep -q '^device 0: peak 1.0 MiB' "$TMPDIR/fd3" && ok "  ... into descriptor 3" || notok "  ... into descriptor 3"
expect_exit 2 "-o /dev/fd/9, not open" -- "$GMPROF" replay -o /dev/fd/9 $S/figure2.jsonl
expect_stderr_line "cannot create '/dev/fd/9': Bad file descriptor" "  ... one line"
finish
