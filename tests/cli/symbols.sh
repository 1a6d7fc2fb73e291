# SPDX-License-Identifier: MIT
# Source lines from DWARF: a C program built with -g here (two files, static
# and inline functions, -O0 and -O2), symbolized by `gmprof addr2line` and
# by binutils addr2line on every function start and many addresses inside
# functions: the outputs must be identical.  Then a profile recorded
# through the test double shows its call path as function (file:line) with
# the runtime's frames trimmed.
. tests/cli/lib.sh
if ! command -v addr2line >/dev/null || ! command -v cc >/dev/null; then
	echo "ok - skipped: binutils addr2line or cc missing"; exit 0
fi
cat >"$TMPDIR/a.c" <<'C'
#include <stdio.h>
int helper(int x);
static int twice(int x) { return 2 * x; }
static inline int add(int a, int b) { return a + b; }
int main(int argc, char **argv)
{
	(void)argv;
	int s = 0;
	for (int i = 0; i < argc * 10; i++)
		s = add(s, twice(helper(i)));
	printf("%d\n", s);
	return 0;
}
C
cat >"$TMPDIR/b.c" <<'C'
static int sq(int x) { return x * x; }
int helper(int x)
{
	int y = sq(x);
	if (y > 100)
		return y - 1;
	return y + 1;
}
C
for opt in O0 O2; do
	cc -g -$opt -fPIE -pie -o "$TMPDIR/prog-$opt" "$TMPDIR/a.c" "$TMPDIR/b.c" || { notok "build -$opt"; continue; }
	# Every text address from the first function's start to the last one's end, step 1..7.
	nm -n "$TMPDIR/prog-$opt" | awk '$2 ~ /^[tT]$/ { print $1 }' >"$TMPDIR/funcs"
	lo=$((0x$(head -1 "$TMPDIR/funcs"))); hi=$((0x$(tail -1 "$TMPDIR/funcs") + 64))
	awk -v a="$lo" -v b="$hi" 'BEGIN { s = 1; for (x = a; x < b; x += s) { printf "%x\n", x; s = s % 7 + 1 } }' >"$TMPDIR/addrs"
	cat "$TMPDIR/funcs" >>"$TMPDIR/addrs"
	n=$(wc -l <"$TMPDIR/addrs")
	addr2line -f -e "$TMPDIR/prog-$opt" <"$TMPDIR/addrs" >"$TMPDIR/want"
	"$GMPROF" addr2line -f -e "$TMPDIR/prog-$opt" <"$TMPDIR/addrs" >"$TMPDIR/got" 2>"$TMPDIR/err"
	if cmp -s "$TMPDIR/want" "$TMPDIR/got"; then ok "addr2line -f, -$opt: $n addresses as binutils"; else
		notok "addr2line -f, -$opt: $n addresses as binutils"; diff "$TMPDIR/want" "$TMPDIR/got" | head -10; fi
	addr2line -e "$TMPDIR/prog-$opt" $(head -50 "$TMPDIR/addrs") >"$TMPDIR/want"
	"$GMPROF" addr2line -e "$TMPDIR/prog-$opt" $(head -50 "$TMPDIR/addrs") >"$TMPDIR/got"
	cmp -s "$TMPDIR/want" "$TMPDIR/got" && ok "addr2line with addresses as arguments, -$opt" || notok "addr2line with addresses as arguments, -$opt"
done
"$GMPROF" addr2line -e "$TMPDIR/prog-O0" $(nm "$TMPDIR/prog-O0" | awk '$3 == "helper" { print $1 }') | grep -q "b.c:3" \
	&& ok "helper's start is b.c:3" || notok "helper's start is b.c:3"
expect_exit 2 "addr2line on a missing file" -- "$GMPROF" addr2line -e "$TMPDIR/none" 0x10
expect_stderr_line "none" "  ... said in one line"
# An address that is none, on standard input: the lines before it answered, then one sentence
# quoting at most 40 characters of it, however long the line.
long=0x$(head -c 100000 /dev/zero | tr '\0' 1)
printf '0x10\nzz\n0x20\n' >"$TMPDIR/bad.in"
expect_exit 2 "addr2line, a line that is no address" -- sh -c '"$1" addr2line -e "$2" <"$3"' sh "$GMPROF" "$TMPDIR/prog-O0" "$TMPDIR/bad.in"
[ "$(wc -l <"$TMPDIR/out")" -eq 1 ] && ok "  ... the line before it answered" || notok "  ... answered: $(cat "$TMPDIR/out")"
expect_stderr_line "^gmprof: 'zz' is not a hexadecimal address$" "  ... then one sentence"
printf '%s\n' "$long" >"$TMPDIR/long.in"
expect_exit 2 "addr2line, an address of 100000 digits" -- sh -c '"$1" addr2line -e "$2" <"$3"' sh "$GMPROF" "$TMPDIR/prog-O0" "$TMPDIR/long.in"
expect_stderr_line "^gmprof: '0x11111111111111111111111111111111111111\.\.\.' is not a hexadecimal address$" "  ... a sentence of 40 characters of it"
expect_exit 2 "addr2line, such an argument" -- "$GMPROF" addr2line -e "$TMPDIR/prog-O0" "$long"
expect_stderr_line "'0x11111111111111111111111111111111111111\.\.\.' is not a hexadecimal address" "  ... likewise"

# A recorded call path: the allocation site is the line of fake_app.c that
# calls into the (double's) CUDA runtime, and no runtime frame shows.
B=$(cd "$(dirname "$GMPROF")" && pwd)
if [ -x "$B/double/fake_app" ]; then
	line=$(grep -n 'd.replay(script, 0, 0)' tests/double/fake_app.c | cut -d: -f1)
	env GMPROF_COLLECTOR="$B/libgmprof.so" GMPROF_SANITIZER_LIB="$B/double/libsanitizer-public.so" \
		GMPROF_DOUBLE="$B/double/libsanitizer-public.so" GMPROF_PATCH="$B/double/patches.fatbin" \
		GMPROF_SUMMARY=0 GMPROF_OUTPUT="$TMPDIR/f3.gmprof" "$B/double/fake_app" tests/scripts/figure3.jsonl
	"$GMPROF" report "$TMPDIR/f3.gmprof" >"$TMPDIR/report" 2>&1
	grep -q "allocated by ALLOC (stream 1, #1) at .*fake_app.c:$line\$" "$TMPDIR/report" && ok "report: allocation site fake_app.c:$line" || notok "report: allocation site fake_app.c:$line: $(grep -m1 'allocated by' "$TMPDIR/report")"
	grep -q "^       main (.*fake_app.c:$line)\$" "$TMPDIR/report" && ok "report: call path as function (file:line)" || notok "report: call path as function (file:line)"
	if grep -Eq "sanitizer|libgmprof|_start|__libc" "$TMPDIR/report"; then notok "report: runtime frames trimmed"; else ok "report: runtime frames trimmed"; fi
	"$GMPROF" perfetto --time host -o "$TMPDIR/f3.json" "$TMPDIR/f3.gmprof" 2>"$TMPDIR/err"
	"$B/tools/trace_check" "$TMPDIR/f3.json" --expect-flows >/dev/null 2>&1 && ok "host-time trace of a recorded profile passes the checker" || notok "host-time trace of a recorded profile passes the checker"
	grep -q "fake_app.c:$line" "$TMPDIR/f3.json" && ok "trace: lifetimes named by allocation site" || notok "trace: lifetimes named by allocation site"
fi
# --alloc-fn: a wrapper's callers are the allocation sites (the benchmark's bench_malloc).
P=tests/data/gpu/simple_multi_copy.gmprof
"$GMPROF" report --symbols tests/data/gpu/bin "$P" >"$TMPDIR/plain.txt" 2>&1
grep -q 'allocated by ALLOC (stream 0, #1) at .*/benchmarks/cuda/bench.h:55$' "$TMPDIR/plain.txt" &&
	ok "without --alloc-fn: the wrapper is the site" || notok "without --alloc-fn: $(grep -m1 'allocated by' "$TMPDIR/plain.txt")"
expect_exit 0 "report --alloc-fn" -- "$GMPROF" report --symbols tests/data/gpu/bin --alloc-fn 'bench_malloc*' "$P"
grep -q 'allocated by ALLOC (stream 0, #1) at .*/benchmarks/cuda/simple_multi_copy.cu:40$' "$TMPDIR/out" &&
	ok "--alloc-fn: the wrapper's caller is the site" || notok "--alloc-fn: $(grep -m1 'allocated by' "$TMPDIR/out")"
grep -q ' at [^ ]*bench.h:55$' "$TMPDIR/out" && notok "--alloc-fn: the wrapper is never a site" || ok "--alloc-fn: the wrapper is never a site"
expect_exit 0 "an --alloc-fn that matches nothing" -- "$GMPROF" report --symbols tests/data/gpu/bin --alloc-fn 'nothing_*' "$P"
cmp -s "$TMPDIR/out" "$TMPDIR/plain.txt" && ok "  ... changes nothing" || notok "  ... changes nothing"
set --
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17; do set -- "$@" --alloc-fn "f$i"; done
expect_exit 2 "seventeen --alloc-fn" -- "$GMPROF" report "$@" "$P"
expect_stderr_line "at most 16 --alloc-fn options" "  ... one sentence"
# Modules whose frames get no source line are named, with why: a profile's
# binary that is not found, another build, not an ELF file, built without -g.
note='no source lines for frames in [^ ]*/simple_multi_copy'
expect_exit 0 "report, its binary not found" -- "$GMPROF" report --top 1 "$P"
grep -q "^note: $note (not found; --symbols DIR looks for it in DIR by its file name): findings allocated there name no site" "$TMPDIR/out" &&
	ok "  ... the report says so, and how to point at it" || notok "  ... the report says so: $(grep -i 'note' "$TMPDIR/out")"
[ -s "$TMPDIR/err" ] && notok "  ... nothing on stderr: $err" || ok "  ... nothing on stderr"
expect_exit 0 "report --symbols" -- "$GMPROF" report --top 1 --symbols tests/data/gpu/bin "$P"
grep -q 'no source lines' "$TMPDIR/out" "$TMPDIR/err" && notok "  ... no note once it is found" || ok "  ... no note once it is found"
expect_exit 0 "report of two inputs, its binary not found" -- "$GMPROF" report --top 1 "$P" "$P"
[ "$(grep -c "$note" "$TMPDIR/out")" = 1 ] && ok "  ... one note for both" || notok "  ... one note for both: $(grep -c "$note" "$TMPDIR/out")"
expect_exit 0 "report --format json, its binary not found" -- "$GMPROF" report --format json "$P"
expect_stderr_line "^gmprof report: note: $note (not found" "  ... the note on stderr"
grep -q 'no source lines' "$TMPDIR/out" && notok "  ... not in the JSON" || ok "  ... not in the JSON"
expect_exit 1 "check, its binary not found" -- "$GMPROF" check --fail-on dead_write "$P"
expect_stderr_line "^gmprof check: note: $note (not found" "  ... the note on stderr"
mkdir -p "$TMPDIR/other" "$TMPDIR/notelf" "$TMPDIR/nolines"
cp "$GMPROF" "$TMPDIR/other/simple_multi_copy" # an ELF file of another build-id
echo 'not a program' >"$TMPDIR/notelf/simple_multi_copy"
if command -v strip >/dev/null; then
	strip --strip-debug -o "$TMPDIR/nolines/simple_multi_copy" tests/data/gpu/bin/simple_multi_copy
	expect_exit 0 "report --symbols, a binary without its debug information" -- "$GMPROF" report --top 1 --symbols "$TMPDIR/nolines" "$P"
	grep -q "^note: $note (it has no line information: build it with -g)" "$TMPDIR/out" &&
		ok "  ... says it has no line information" || notok "  ... says it has no line information: $(grep -i note "$TMPDIR/out")"
	grep -q '^       main (/.*simple_multi_copy+0x' "$TMPDIR/out" && ok "  ... while its functions are named" || notok "  ... while its functions are named"
fi
expect_exit 0 "perfetto --symbols, another build under the name" -- "$GMPROF" perfetto -o "$TMPDIR/o.json" --symbols "$TMPDIR/other" "$P"
expect_stderr_line "^gmprof perfetto: note: $note (the file there is another build, its build-id differs" "  ... says it is another build"
expect_exit 0 "flamegraph --symbols, a file that is not ELF under the name" -- "$GMPROF" flamegraph -o "$TMPDIR/o.folded" --symbols "$TMPDIR/notelf" "$P"
expect_stderr_line "^gmprof flamegraph: note: $note (not a readable ELF file)" "  ... says it is not an ELF file"
# A binary whose DWARF is damaged (a form no DWARF version defines) is
# refused by gmprof's reader and not handed to libdwarf, which freed memory
# twice on it and aborted the report.
mkdir -p "$TMPDIR/damaged" && cp tests/fuzz/regress/dwarf/unknown-form-libdwarf-double-free "$TMPDIR/damaged/simple_multi_copy"
expect_exit 0 "report --symbols, a binary whose DWARF is damaged" -- "$GMPROF" report --top 1 --symbols "$TMPDIR/damaged" "$P"
grep -q "^note: $note (its debug information is damaged, and was not read)" "$TMPDIR/out" &&
	ok "  ... says it is damaged" || notok "  ... says it is damaged: $(grep -i note "$TMPDIR/out")"
expect_exit 2 "addr2line on it" -- "$GMPROF" addr2line -e "$TMPDIR/damaged/simple_multi_copy" 0x230
expect_stderr_line "^gmprof: cannot read the DWARF of '.*simple_multi_copy': its debug information is damaged$" "  ... one sentence"
# Likewise a unit that names a split-DWARF file (which the own reader declines to libdwarf)
# beside a .debug_rnglists section that points at the ELF header: libdwarf freed memory twice on it.
expect_exit 2 "addr2line on split DWARF with damaged range lists" -- \
	"$GMPROF" addr2line -e tests/fuzz/regress/dwarf/split-rnglists-libdwarf-double-free 0x100
expect_stderr_line "cannot read the DWARF of '.*split-rnglists-libdwarf-double-free': its debug information is damaged$" \
	"  ... refused as damaged, not handed to libdwarf"
# A mistyped --symbols would read as every binary "not found" there; an
# empty --alloc-fn matches nothing: both are usage errors.
for c in report check baseline diff flamegraph perfetto html; do
	expect_exit 2 "$c --symbols, no such directory" -- "$GMPROF" $c --symbols "$TMPDIR/no-such-dir" "$P" "$P"
	expect_stderr_line "^gmprof $c: --symbols '.*no-such-dir': No such file or directory" "  ... one line"
done
expect_exit 2 "report --symbols, a file" -- "$GMPROF" report --symbols "$P" "$P"
expect_stderr_line "^gmprof report: --symbols '.*': not a directory" "  ... one line"
expect_exit 2 "report --alloc-fn ''" -- "$GMPROF" report --alloc-fn '' "$P"
expect_stderr_line "^gmprof report: --alloc-fn needs a function's name or a glob" "  ... one line"
# A profile names its binaries, and --symbols DIR finds them by name: a FIFO
# there (or a device) is passed over unread, not waited on for ever.
mkdir -p "$TMPDIR/fifo" && mkfifo "$TMPDIR/fifo/simple_multi_copy"
expect_exit 0 "report --symbols, a FIFO under the name" -- timeout 60 "$GMPROF" report --top 1 --symbols "$TMPDIR/fifo" "$P"
grep -q "^note: $note (not a readable ELF file)" "$TMPDIR/out" &&
	ok "  ... says it is not a readable ELF file" || notok "  ... says it is not a readable ELF file: $(grep -i note "$TMPDIR/out")"
expect_exit 2 "addr2line -e FIFO" -- timeout 60 "$GMPROF" addr2line -e "$TMPDIR/fifo/simple_multi_copy" 0x10
expect_stderr_line "is not an ELF file" "  ... one sentence"
expect_exit 0 "html, baseline and diff say it too" -- sh -c '"$1" html -o "$2/o.html" "$3" 2>"$2/e1" && "$1" baseline -o "$2/o.bl" "$3" 2>"$2/e2" && "$1" diff "$3" "$3" >/dev/null 2>"$2/e3"' sh "$GMPROF" "$TMPDIR" "$P"
for c in html:e1 baseline:e2 diff:e3; do
	grep -q "^gmprof ${c%%:*}: note: $note" "$TMPDIR/${c#*:}" && ok "  ... ${c%%:*}" || notok "  ... ${c%%:*}: $(cat "$TMPDIR/${c#*:}")"
done
grep -q "^<li>$note (not found; --symbols DIR looks for it in DIR by its file name)" "$TMPDIR/o.html" &&
	ok "  ... and the page says it in its notes" || notok "  ... the page's notes: $(grep -A3 '<h2>Notes' "$TMPDIR/o.html")"
expect_exit 0 "an event script has no modules, and no note" -- "$GMPROF" report tests/scripts/figure3.jsonl
grep -q 'no source lines' "$TMPDIR/out" "$TMPDIR/err" && notok "  ... none" || ok "  ... none"
# An allocation wrapper: bench_malloc<int>'s cudaMalloc line is the site of
# objects from two lines of main; the note names the --alloc-fn that makes
# those lines the sites, and following it leaves no note.
wrap="note: 4 objects with findings were allocated at [^ ]*/benchmarks/cuda/bench.h:55 in bench_malloc<int>, called from 2 lines: --alloc-fn 'bench_malloc<int>' makes those lines their sites"
expect_exit 0 "report of a program that allocates through a wrapper" -- "$GMPROF" report --top 1 --symbols tests/data/gpu/bin "$P"
grep -q "^$wrap\$" "$TMPDIR/out" && ok "  ... a note names the wrapper and the --alloc-fn to pass" || notok "  ... wrapper note: $(grep note "$TMPDIR/out")"
expect_exit 0 "html of a program that allocates through a wrapper" -- "$GMPROF" html -o "$TMPDIR/w.html" --symbols tests/data/gpu/bin "$P"
grep -q "^<li>4 objects with findings were allocated at [^ ]*/benchmarks/cuda/bench.h:55 in bench_malloc&lt;int&gt;, .*--alloc-fn &#39;bench_malloc&lt;int&gt;&#39; makes those lines their sites</li>\$" "$TMPDIR/w.html" &&
	ok "  ... the page's notes name it, escaped" || notok "  ... the page's notes: $(grep -A3 '<h2>Notes' "$TMPDIR/w.html")"
expect_exit 0 "html --alloc-fn as the note says" -- "$GMPROF" html -o "$TMPDIR/w2.html" --symbols tests/data/gpu/bin --alloc-fn 'bench_malloc<int>' "$P"
grep -q "<h2>Notes" "$TMPDIR/w2.html" && notok "  ... no notes section then" || ok "  ... no notes section then"
expect_exit 0 "report --alloc-fn as the note says" -- "$GMPROF" report --top 1 --symbols tests/data/gpu/bin --alloc-fn 'bench_malloc<int>' "$P"
grep -q 'note: .*objects with findings' "$TMPDIR/out" && notok "  ... no note then" || ok "  ... no note then"
grep -q 'allocated by ALLOC (stream 0, #[0-9]) at .*/simple_multi_copy.cu:4[02]$' "$TMPDIR/out" && ok "  ... and the callers' lines are the sites" || notok "  ... callers as sites: $(grep -m1 'allocated by' "$TMPDIR/out")"
expect_exit 1 "check says it on stderr" -- "$GMPROF" check --fail-on dead_write --symbols tests/data/gpu/bin "$P"
expect_stderr_line "^gmprof check: $wrap\$" "  ... in one line"
expect_exit 0 "report of two inputs through a wrapper" -- "$GMPROF" report --top 1 --symbols tests/data/gpu/bin "$P" "$P"
[ "$(grep -c 'objects with findings were allocated at' "$TMPDIR/out")" = 1 ] && grep -q '^note: 8 objects with findings' "$TMPDIR/out" &&
	ok "  ... one note, counting both inputs' objects" || notok "  ... one note: $(grep 'objects with findings' "$TMPDIR/out")"
expect_exit 0 "report of findings whose objects came from one line" -- "$GMPROF" report --patterns dead_write --symbols tests/data/gpu/bin "$P"
grep -q 'objects with findings' "$TMPDIR/out" && notok "  ... no wrapper there" || ok "  ... no wrapper there"
if [ -f "$TMPDIR/f3.gmprof" ]; then
	expect_exit 0 "report: objects allocated from one line have no wrapper" -- "$GMPROF" report "$TMPDIR/f3.gmprof"
	grep -q 'objects with findings' "$TMPDIR/out" && notok "  ... no note" || ok "  ... no note"
fi
finish
