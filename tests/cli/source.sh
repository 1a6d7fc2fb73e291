# SPDX-License-Identifier: MIT
# Source lines beside findings (report text and Markdown, html): the line a
# site names, read only from files under the working directory or a
# --source-dir, found by the path's trailing components when the build
# happened elsewhere (or the recorded path lies outside them: another
# checkout); never a file outside (a symbolic link out included),
# nor one past 8 MiB; control characters shown as '?', long lines cut.
. tests/cli/lib.sh
W=$TMPDIR/work
mkdir -p "$W/src" "$TMPDIR/elsewhere/src" "$TMPDIR/elsewhere/lib"
printf '%s\n' '// model' '#include <cuda_runtime.h>' '    float *w; cudaMalloc(&w, 4096);' \
	'	cudaMalloc(&x, n);  ' '' 'k<<<1, 1>>>(w); /* first use */' >"$W/src/model.cu"
printf 'cudaMalloc(&esc, n); \033[31mred\001\n%0300d\n' 0 >"$W/src/odd.cu"
sed 's/4096);/8192); \/\/ elsewhere/' "$W/src/model.cu" >"$TMPDIR/elsewhere/src/model.cu"
printf '%s\n' 'cudaMalloc(&u, n); // util' >"$TMPDIR/elsewhere/lib/util.cu"
cp "$W/src/model.cu" "$W/model.cu"
ln -s /etc/passwd "$W/src/passwd.cu"
mkfifo "$W/src/fifo.cu"
yes 'cudaMalloc(&big, n);' | head -c 9000000 >"$W/src/big.cu"
# script AT...: objects allocated at each AT (after a pad), each first used by a
# kernel at src/model.cu:6 once the pad's kernel has run: early allocations
script() {
	echo '{"op":"alloc","addr":"0xf00000","size":4096,"at":"pad.cu:1"}'
	i=0
	for at in "$@"; do
		i=$((i + 1))
		printf '{"op":"alloc","addr":"0x%x00000","size":4096,"at":"%s"}\n' "$i" "$at"
	done
	echo '{"op":"kernel","name":"pad","write":["0xf00000"],"at":"pad.cu:2"}'
	i=0
	for at in "$@"; do
		i=$((i + 1))
		printf '{"op":"kernel","name":"k","read":["0x%x00000"],"at":"src/model.cu:6"}\n' "$i"
	done
}
lines() { grep '^       | ' "$TMPDIR/out" | sort -u | tr '\n' '~'; }
run_in() { # DIR ARGS...: gmprof report there (a report that hangs fails)
	d=$1
	shift
	(cd "$d" && timeout 60 "$GMPROF" report "$@") >"$TMPDIR/out" 2>"$TMPDIR/err"
}
shows() { grep -qxF "       | $1" "$TMPDIR/out"; }

script "src/model.cu:3" >"$W/a.jsonl"
run_in "$W" a.jsonl && shows 'float *w; cudaMalloc(&w, 4096);' &&
	ok "a relative site under the working directory: its line, without indentation" ||
	notok "relative site: $(cat "$TMPDIR/out" "$TMPDIR/err" | grep -v '^ *$' | head -20)"
shows 'k<<<1, 1>>>(w); /* first use */' && ok "  ... and the line of the use the fix moves it to" ||
	notok "  ... no line for the first use"
sed -n '/^Peaks$/,/^$/p' "$TMPDIR/out" | grep -A1 'src/model.cu:3$' | grep -qxF '      | float *w; cudaMalloc(&w, 4096);' &&
	ok "  ... and under the object at the peak" || notok "  ... peak: $(sed -n '/^Peaks$/,/^$/p' "$TMPDIR/out")"
run_in "$W" --no-source a.jsonl && ! grep -q '^       | ' "$TMPDIR/out" && ok "--no-source: none" ||
	notok "--no-source: $(grep '^       | ' "$TMPDIR/out")"
run_in "$W" --format json a.jsonl && ! grep -q 'cudaMalloc(&w' "$TMPDIR/out" && ok "JSON has none" || notok "JSON has lines"

script "src/model.cu:4" "src/model.cu:5" "src/model.cu:99" "src/model.cu:x" >"$W/b.jsonl"
run_in "$W" b.jsonl && [ "$(lines)" = "       | cudaMalloc(&x, n);~       | k<<<1, 1>>>(w); /* first use */~" ] &&
	ok "tabs and trailing blanks trimmed; a blank line, a line past the end, no line number: nothing" ||
	notok "lines: $(lines)"

script "/build/host/proj/src/model.cu:3" >"$W/c.jsonl"
script "/build/host/model.cu:3" >"$W/c2.jsonl"
run_in "$W" c.jsonl && shows 'float *w; cudaMalloc(&w, 4096);' && run_in "$W" c2.jsonl &&
	! shows 'float *w; cudaMalloc(&w, 4096);' &&
	ok "a build elsewhere: found by its directory and name under the working directory, not by its name alone" ||
	notok "elsewhere: $(lines)"

script "src/odd.cu:1" "src/odd.cu:2" >"$W/d.jsonl"
run_in "$W" d.jsonl && shows 'cudaMalloc(&esc, n); ?[31mred?' &&
	grep -q "^       | 0\{100\}\.\.\.\$" "$TMPDIR/out" &&
	ok "control characters as '?', a long line cut at 100 columns" || notok "odd: $(grep '^       | ' "$TMPDIR/out")"

script "src/passwd.cu:1" "src/big.cu:1" "src/fifo.cu:1" "$TMPDIR/elsewhere/lib/util.cu:1" >"$W/e.jsonl"
run_in "$W" e.jsonl && [ "$(lines)" = "       | k<<<1, 1>>>(w); /* first use */~" ] &&
	grep -qx "note: source lines of 2 files outside the working directory are not shown (--source-dir DIR shows those under DIR)" \
		"$TMPDIR/out" &&
	ok "a link out of the tree, a file past 8 MiB, a FIFO (not waited for), a file elsewhere: not read, the outside ones counted" ||
	notok "outside: $(lines) $(grep '^note' "$TMPDIR/out")"
run_in "$W" --source-dir "$TMPDIR/elsewhere" e.jsonl && shows 'cudaMalloc(&u, n); // util' &&
	grep -q '^note: source lines of 1 file outside' "$TMPDIR/out" &&
	ok "--source-dir: files under it are read" || notok "--source-dir: $(lines) $(grep '^note' "$TMPDIR/out")"
script "/other/tree/model.cu:3" >"$W/f.jsonl"
run_in "$W" --source-dir "$TMPDIR/elsewhere/src" f.jsonl && shows 'float *w; cudaMalloc(&w, 8192); // elsewhere' &&
	ok "  ... where a name alone is enough" || notok "  ... name alone: $(lines)"
script "$TMPDIR/elsewhere/src/model.cu:3" >"$W/g.jsonl"
run_in "$W" g.jsonl && shows 'float *w; cudaMalloc(&w, 4096);' && ! grep -q '^note' "$TMPDIR/out" &&
	ok "a recorded path outside (another checkout): the file its directory and name find inside is read instead" ||
	notok "another checkout: $(lines) $(grep '^note' "$TMPDIR/out")"

expect_exit 2 "--source-dir that does not exist" -- "$GMPROF" report --source-dir "$TMPDIR/none" "$W/a.jsonl"
expect_stderr_line "report: --source-dir '.*none': No such file or directory" "  ... one sentence"
expect_exit 2 "--source-dir that is a file" -- "$GMPROF" html --source-dir "$W/model.cu" "$W/a.jsonl"
expect_stderr_line "html: --source-dir '.*model.cu': not a directory" "  ... one sentence"

run_in "$W" --format markdown a.jsonl &&
	grep -qF '`src/model.cu:3`<br>`float *w; cudaMalloc(&w, 4096);`' "$TMPDIR/out" &&
	ok "Markdown: the allocating line under its site" || notok "Markdown: $(grep 'model.cu:3' "$TMPDIR/out")"
grep -qE '^\| `obj#2` \| 4\.0 KiB \| `src/model\.cu:3`<br>`float \*w; cudaMalloc\(&w, 4096\);` \|$' "$TMPDIR/out" &&
	ok "  ... and in the table of what was live at the peak" || notok "  ... peak table: $(grep '^| `obj' "$TMPDIR/out")"
(cd "$W" && "$GMPROF" html a.jsonl) >"$TMPDIR/page.html" &&
	grep -qF '<code>src/model.cu:3</code><br><code>float *w; cudaMalloc(&amp;w, 4096);</code>' "$TMPDIR/page.html" &&
	ok "html: the same, escaped" || notok "html: $(grep -o '<code>src/model[^/]*/code>.\{0,80\}' "$TMPDIR/page.html")"
(cd "$W" && "$GMPROF" html e.jsonl) >"$TMPDIR/page.html" &&
	grep -qx "<li>source lines of 2 files outside the working directory are not shown (--source-dir DIR shows those under DIR)</li>" \
		"$TMPDIR/page.html" && ok "  ... its notes count the files outside" || notok "  ... notes: $(grep '<li>' "$TMPDIR/page.html")"

# A recorded profile, symbolized: the lines of the benchmark it ran, as the file has them now.
"$GMPROF" report --top 1 --symbols tests/data/gpu/bin --alloc-fn 'bench_malloc*' tests/data/gpu/simple_multi_copy.gmprof \
	>"$TMPDIR/out" 2>"$TMPDIR/err"
line=$(grep -m1 '^     allocated by ' "$TMPDIR/out" | sed -n 's/.*simple_multi_copy\.cu:\([0-9]*\)$/\1/p')
want=$(sed -n "${line:-0}p" benchmarks/cuda/simple_multi_copy.cu | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
[ -n "$line" ] && [ -n "$want" ] && grep -A1 -m1 '^     allocated by ' "$TMPDIR/out" | grep -qxF "       | $want" &&
	ok "the recorded profile: line $line of the benchmark under its allocation" ||
	notok "recorded: line '$line', want '$want': $(grep -A1 -m1 '^     allocated by ' "$TMPDIR/out")"
# gmprof check: the allocating line under each finding it lists, in its
# text, JUnit and Markdown; --no-source none; a file outside said on stderr.
C="check --fail-on dead_write,late_deallocation --symbols tests/data/gpu/bin tests/data/gpu/simple_multi_copy.gmprof"
want=$(sed -n 55p benchmarks/cuda/bench.h | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
expect_exit 1 "check: findings with their source lines" -- "$GMPROF" $C --junit "$TMPDIR/j.xml" --markdown "$TMPDIR/c.md"
[ "$(grep -c '^  [a-z_]*: obj#[0-9]* .* allocated at .*bench.h:55 \[' "$TMPDIR/out")" = 5 ] &&
	[ "$(grep -A1 '^  [a-z_]*: obj#' "$TMPDIR/out" | grep -cxF "      | $want")" = 5 ] &&
	ok "  ... each of the 5 findings has line 55 of bench.h under it" || notok "  ... source lines: $(cat "$TMPDIR/out")"
grep -qF "      | ${want%%<*}&lt;" "$TMPDIR/j.xml" && ok "  ... in the JUnit report (escaped)" || notok "  ... in the JUnit report"
grep -qF "      | $want" "$TMPDIR/c.md" && ok "  ... in the Markdown" || notok "  ... in the Markdown"
grep -v "^gmprof check: note: 4 objects with findings were allocated at .*bench.h:55 in bench_malloc<int>" "$TMPDIR/err" | grep -q . &&
	notok "  ... nothing on stderr but the wrapper's note: $err" || ok "  ... nothing on stderr but the wrapper's note"
expect_exit 1 "check --no-source" -- "$GMPROF" $C --no-source
grep -q '^      | ' "$TMPDIR/out" && notok "  ... no source lines" || ok "  ... no source lines"
expect_exit 1 "check from another directory" -- sh -c 'cd "$1" && "$2" check --fail-on dead_write --symbols "$3/tests/data/gpu/bin" "$3/tests/data/gpu/simple_multi_copy.gmprof"' sh "$W" "$GMPROF" "$PWD"
grep -q '^      | ' "$TMPDIR/out" && notok "  ... no source lines from outside it" || ok "  ... no source lines from outside it"
grep -q "^gmprof check: note: source lines of 1 file outside the working directory are not shown (--source-dir DIR" "$TMPDIR/err" &&
	ok "  ... and a note says so" || notok "  ... and a note says so: $err"
expect_exit 2 "check --source-dir that does not exist" -- "$GMPROF" $C --source-dir "$TMPDIR/none"
expect_stderr_line "source-dir" "  ... one sentence"
finish
