# SPDX-License-Identifier: MIT
# gmprof's own DWARF reader (analyzer/dwarf_read.c) against libdwarf, the
# reference it replaces for speed (GMPROF_DWARF_READER=libdwarf), and
# against binutils: the same function, file, line, discriminator and
# inline chain for every address, on binaries from several producers and
# layouts: DWARF 4 and 5, gcc and clang (which uses strx, addrx and
# rnglistx forms), -O0 and -O2, C++ (linkage names, specifications,
# namespaces, templates), compressed sections, a separate debug file found
# by .gnu_debuglink, split DWARF (which the own reader declines: libdwarf
# answers), the nvcc-built benchmark program, and gmprof itself.
. tests/cli/lib.sh
if ! command -v addr2line >/dev/null || ! command -v cc >/dev/null; then
	echo "ok - skipped: binutils addr2line or cc missing"; exit 0
fi
cat >"$TMPDIR/a.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
int helper(int x);
static int twice(int x) { return 2 * x; }
static inline int add(int a, int b) { return a + b; }
__attribute__((cold, noinline)) static void fail(int s) { fprintf(stderr, "%d\n", s); abort(); }
int main(int argc, char **argv)
{
	(void)argv;
	int s = 0;
	for (int i = 0; i < argc * 10; i++) {
		if (i & 1)
			s = add(s, twice(helper(i)));
		else
			s -= helper(i) / 3;
	}
	if (s == 12345)
		fail(s);
	printf("%d\n", s);
	return 0;
}
C
cat >"$TMPDIR/b.c" <<'C'
static int sq(int x) { return x * x; }
static inline int cube(int x) { return sq(x) * x; }
int helper(int x)
{
	int y = sq(x);
	for (int i = 0; i < x; i++)
		y += (i & 3) ? cube(i) : sq(i);
	if (y > 100)
		return y - 1;
	return y + 1;
}
C
cat >"$TMPDIR/c.cc" <<'C'
#include <cstdio>
#include <vector>
namespace ns {
template <typename T> struct Acc {
	T sum{};
	void add(T v) { sum += v * 2; }
	T get() const { return sum; }
};
struct S {
	int run(int n);
};
int S::run(int n)
{
	Acc<long> a;
	std::vector<int> v(n);
	for (int i = 0; i < n; i++)
		v[i] = i;
	for (int x : v)
		a.add(x);
	return (int)a.get();
}
}
int main(int argc, char **)
{
	ns::S s;
	std::printf("%d\n", s.run(argc * 100));
	return 0;
}
C
# Every text address from the first function to the last, step 1..7, and each start.
addresses() {
	nm -n "$1" | awk '$2 ~ /^[tT]$/ { print $1 }' >"$TMPDIR/funcs"
	lo=$((0x$(head -1 "$TMPDIR/funcs"))); hi=$((0x$(tail -1 "$TMPDIR/funcs") + 64))
	awk -v a="$lo" -v b="$hi" -v m="${2:-3}" 'BEGIN { s = 1; for (x = a; x < b; x += s) { printf "%x\n", x; s = s % m + 1 } }' >"$TMPDIR/addrs"
	cat "$TMPDIR/funcs" >>"$TMPDIR/addrs"
}
# NAME BINARY [binutils]: own reader = libdwarf (-f -i -C); with "binutils", also = binutils -f.
compare() {
	addresses "$2" "${STEP:-3}"
	n=$(wc -l <"$TMPDIR/addrs")
	GMPROF_DWARF_READER=${OWN:-gmprof} "$GMPROF" addr2line -f -i -C -e "$2" <"$TMPDIR/addrs" >"$TMPDIR/own" 2>"$TMPDIR/err"
	GMPROF_DWARF_READER=libdwarf "$GMPROF" addr2line -f -i -C -e "$2" <"$TMPDIR/addrs" >"$TMPDIR/ref" 2>>"$TMPDIR/err"
	if [ -s "$TMPDIR/own" ] && cmp -s "$TMPDIR/own" "$TMPDIR/ref"; then
		ok "$1: own reader = libdwarf on $n addresses (-f -i -C)"
	else
		notok "$1: own reader = libdwarf on $n addresses"; diff "$TMPDIR/ref" "$TMPDIR/own" | head -8; cat "$TMPDIR/err"
	fi
	[ "${3:-}" = binutils ] || return 0
	for f in -f "-f -i" "-f -i -C"; do
		addr2line $f -e "$2" <"$TMPDIR/addrs" >"$TMPDIR/want"
		"$GMPROF" addr2line $f -e "$2" <"$TMPDIR/addrs" >"$TMPDIR/got"
		if cmp -s "$TMPDIR/want" "$TMPDIR/got"; then ok "$1: = binutils addr2line $f"; else
			notok "$1: = binutils addr2line $f"; diff "$TMPDIR/want" "$TMPDIR/got" | head -8; fi
	done
}
build() { # NAME COMPILER FLAGS...
	name=$1; shift
	if "$@" -o "$TMPDIR/$name" >"$TMPDIR/build.log" 2>&1; then return 0; fi
	echo "ok - skipped $name: the compiler refused it ($(head -1 "$TMPDIR/build.log"))"
	return 1
}
C_SRC="$TMPDIR/a.c $TMPDIR/b.c"
for v in 4 5; do
	for opt in O0 O2; do
		build gcc-dwarf$v-$opt cc -g -gdwarf-$v -$opt -fPIE -pie $C_SRC && compare "gcc DWARF $v -$opt" "$TMPDIR/gcc-dwarf$v-$opt" binutils
	done
done
build clang-dwarf5 clang -g -gdwarf-5 -O2 $C_SRC && compare "clang DWARF 5 -O2" "$TMPDIR/clang-dwarf5" binutils
build clang-dwarf4 clang -g -gdwarf-4 -O1 $C_SRC && compare "clang DWARF 4 -O1" "$TMPDIR/clang-dwarf4" binutils
if command -v g++ >/dev/null; then
	build gxx g++ -g -O2 "$TMPDIR/c.cc" && compare "g++ -O2 (C++)" "$TMPDIR/gxx" binutils
	build gxx-sections g++ -g -O2 -ffunction-sections "$TMPDIR/c.cc" && compare "g++ -ffunction-sections" "$TMPDIR/gxx-sections"
fi
build gcc-gz cc -g -O2 -gz $C_SRC && compare "compressed DWARF sections (-gz)" "$TMPDIR/gcc-gz" binutils
# A separate debug file, found through .gnu_debuglink beside the stripped program.
if build gcc-sep cc -g -O2 $C_SRC; then
	mkdir -p "$TMPDIR/sep"
	objcopy --only-keep-debug "$TMPDIR/gcc-sep" "$TMPDIR/sep/gcc-sep.debug" &&
		objcopy --strip-debug --add-gnu-debuglink="$TMPDIR/sep/gcc-sep.debug" "$TMPDIR/gcc-sep" "$TMPDIR/sep/prog" &&
		compare "stripped, debug file by .gnu_debuglink" "$TMPDIR/sep/prog"
	a=$(nm "$TMPDIR/gcc-sep" | awk '$3 == "helper" { print $1 }')
	[ -n "$a" ] && [ "$("$GMPROF" addr2line -f -e "$TMPDIR/sep/prog" "$a")" = "$("$GMPROF" addr2line -f -e "$TMPDIR/gcc-sep" "$a")" ] &&
		"$GMPROF" addr2line -e "$TMPDIR/sep/prog" "$a" | grep -q "b.c:[0-9]" &&
		ok "  ... the debug file's lines are used" || notok "  ... the debug file's lines are used"
fi
# Split DWARF: the own reader declines it, libdwarf answers (and the result is still binutils').
if build gcc-split cc -g -gsplit-dwarf -O2 -gdwarf-5 $C_SRC; then
	expect_exit 2 "split DWARF: the own reader alone declines it" -- env GMPROF_DWARF_READER=gmprof "$GMPROF" addr2line -e "$TMPDIR/gcc-split" 0
	expect_stderr_line "cannot read the DWARF of '.*gcc-split': gmprof's own reader does not read what it uses (split DWARF" \
		"  ... in one sentence that says why"
	OWN=auto compare "split DWARF (libdwarf reads it)" "$TMPDIR/gcc-split"
	# A damaged unit header after a skeleton unit: the file is damaged, not libdwarf's to read
	# (libdwarf 20210528 crashed on such files); the own reader reads every header before it declines.
	info=$(readelf -S -W "$TMPDIR/gcc-split" | awk '$2 == ".debug_info" { print $5 }')
	last=$(readelf --debug-dump=info "$TMPDIR/gcc-split" 2>/dev/null |
		awk '/Compilation Unit @ offset/ { o = $5; sub(/:$/, "", o) } /Unit Type: *DW_UT_skeleton/ && o != "0x0" { s = o } END { print s }')
	if [ -n "$info" ] && [ -n "$last" ]; then
		cp "$TMPDIR/gcc-split" "$TMPDIR/split-dmg"
		printf '\360\377\377\177' | dd of="$TMPDIR/split-dmg" bs=1 seek=$((0x$info + last)) conv=notrunc 2>/dev/null
		expect_exit 2 "split DWARF with a damaged unit header after a skeleton: refused" -- \
			env GMPROF_DWARF_READER=gmprof "$GMPROF" addr2line -e "$TMPDIR/split-dmg" 0
		expect_stderr_line "cannot read the DWARF of '.*split-dmg': its debug information is damaged" \
			"  ... as damaged, by the own reader, not declined to libdwarf"
	else
		notok "split DWARF: no second skeleton unit found to damage (.debug_info at '$info', '$last')"
	fi
fi
# The nvcc-built benchmark program (gcc 13, DWARF 5).  Its line tables'
# file 0 (the .cudafe1.cpp) and file 1 (bench.h) differ, and DWARF 5
# numbers files from 0: libdwarf 20210528 and binutils 2.40 name the
# .cudafe1.cpp for rows that readelf decodes as bench.h; gmprof's reader
# names bench.h.  So the readers are compared on function names, and the
# lines are checked against readelf.
B=tests/data/gpu/bin/simple_multi_copy
STEP=3 addresses "$B" 3
GMPROF_DWARF_READER=gmprof "$GMPROF" addr2line -f -i -C -e "$B" <"$TMPDIR/addrs" | awk 'NR % 2' >"$TMPDIR/own"
GMPROF_DWARF_READER=libdwarf "$GMPROF" addr2line -f -i -C -e "$B" <"$TMPDIR/addrs" | awk 'NR % 2' >"$TMPDIR/ref"
[ -s "$TMPDIR/own" ] && cmp -s "$TMPDIR/own" "$TMPDIR/ref" &&
	ok "nvcc-built simple_multi_copy: own reader = libdwarf on the functions of $(wc -l <"$TMPDIR/addrs") addresses" ||
	{ notok "nvcc-built simple_multi_copy: own reader = libdwarf on functions"; diff "$TMPDIR/ref" "$TMPDIR/own" | head -5; }
# (Of rows at one address, the last is the one a lookup finds.)
readelf --debug-dump=decodedline "$B" 2>/dev/null |
	awk '$3 ~ /^0x/ { if ($3 == a) n--; a = $3; f[++n] = $1; l[n] = $2; x[n] = $3 }
	     END { for (i = 1; i <= n; i++) if (f[i] == "bench.h") print x[i], l[i] }' | head -200 >"$TMPDIR/rows"
if [ -s "$TMPDIR/rows" ]; then
	awk '{ print $1 }' "$TMPDIR/rows" | "$GMPROF" addr2line -e "$B" | sed 's|.*/||; s/ (discriminator [0-9]*)//' >"$TMPDIR/got"
	awk '{ print "bench.h:" $2 }' "$TMPDIR/rows" | diff - "$TMPDIR/got" >"$TMPDIR/diff" &&
		ok "nvcc-built simple_multi_copy: $(wc -l <"$TMPDIR/rows") rows of bench.h as readelf decodes them" ||
		{ notok "nvcc-built simple_multi_copy: rows of bench.h as readelf decodes them"; head -5 "$TMPDIR/diff"; }
fi
STEP=61 compare "gmprof itself" "$GMPROF"
# Damaged DWARF: bytes of the debug sections overwritten at random.  The own
# reader must answer or fail with one sentence (exit 0 or 2), never crash or
# read out of bounds (this is the sanitizer build in make test).
if build dmg cc -g -O2 -gdwarf-5 $C_SRC; then
	readelf -S -W "$TMPDIR/dmg" | awk '$2 ~ /^\.debug_(info|abbrev|line|rnglists|str_offsets|addr)$/ { print $5, $6 }' |
		while read -r off len; do echo $((0x$off)) $((0x$len)); done >"$TMPDIR/secs"
	nm "$TMPDIR/dmg" | awk '$2 ~ /^[tT]$/ { print $1 }' >"$TMPDIR/dmg.addrs"
	bad=0 changed=0
	seed=${DWARF_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
	for i in $(seq 1 80); do
		cp "$TMPDIR/dmg" "$TMPDIR/dmg.$i"
		awk -v seed="$seed" -v i="$i" 'BEGIN { srand(seed + i) }
			{ off[NR] = $1; len[NR] = $2 }
			END { for (k = 0; k < 1 + int(rand() * 8); k++) { s = 1 + int(rand() * NR)
				printf "%d %d\n", off[s] + int(rand() * len[s]), int(rand() * 256) } }' "$TMPDIR/secs" |
		while read -r at byte; do
			printf "$(printf '\\%03o' "$byte")" | dd of="$TMPDIR/dmg.$i" bs=1 seek="$at" conv=notrunc 2>/dev/null
		done
		cmp -s "$TMPDIR/dmg" "$TMPDIR/dmg.$i" || changed=$((changed + 1))
		GMPROF_DWARF_READER=gmprof "$GMPROF" addr2line -f -i -e "$TMPDIR/dmg.$i" <"$TMPDIR/dmg.addrs" >/dev/null 2>"$TMPDIR/dmg.err"
		rc=$?
		if { [ $rc -ne 0 ] && [ $rc -ne 2 ]; } || grep -q "runtime error\|AddressSanitizer" "$TMPDIR/dmg.err"; then
			bad=$((bad + 1)); cp "$TMPDIR/dmg.$i" "$TMPDIR/dmg.crash"; head -3 "$TMPDIR/dmg.err"
		fi
		rm -f "$TMPDIR/dmg.$i"
	done
	[ $bad -eq 0 ] && [ $changed -ge 70 ] && ok "$changed damaged copies: answered or refused, never a crash (DWARF_SEED=$seed)" ||
		notok "$bad of $changed damaged copies crashed the reader (DWARF_SEED=$seed reproduces)"
fi
# Compilation units load on two threads (gmp_dwarf__preload): the
# ThreadSanitizer build of gmprof symbolizes gmprof itself without a report.
T=$(cd "$(dirname "$GMPROF")/../tsan" 2>/dev/null && pwd)
if [ -n "$T" ] && [ -x "$T/gmprof" ]; then
	STEP=61 addresses "$GMPROF" 61
	TSAN_OPTIONS="halt_on_error=0 exitcode=66" "$T/gmprof" addr2line -f -i -e "$GMPROF" <"$TMPDIR/addrs" >"$TMPDIR/tsan.out" 2>"$TMPDIR/tsan"
	rc=$?
	GMPROF_DWARF_READER=libdwarf "$GMPROF" addr2line -f -i -e "$GMPROF" <"$TMPDIR/addrs" >"$TMPDIR/tsan.ref"
	if [ $rc -ne 0 ] || grep -q "WARNING: ThreadSanitizer" "$TMPDIR/tsan"; then
		notok "two loading threads: exit $rc, or a ThreadSanitizer report"; head -20 "$TMPDIR/tsan"
	elif ! cmp -s "$TMPDIR/tsan.out" "$TMPDIR/tsan.ref"; then
		notok "two loading threads: answers other than libdwarf's"; diff "$TMPDIR/tsan.out" "$TMPDIR/tsan.ref" | head -8
	else
		ok "two loading threads: no ThreadSanitizer report, the same answers"
	fi
fi
# A program that writes one address and waits for its answer gets it before the next.
if build inter cc -g -O0 $C_SRC && mkfifo "$TMPDIR/in"; then
	"$GMPROF" addr2line -e "$TMPDIR/inter" <"$TMPDIR/in" >"$TMPDIR/answers" 2>&1 &
	pid=$!
	exec 3>"$TMPDIR/in"
	got=0
	for want in 1 2; do
		nm "$TMPDIR/inter" | awk '$3 == "main" { print $1 }' >&3
		i=0
		while [ "$(wc -l <"$TMPDIR/answers")" -lt "$want" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
		[ "$(wc -l <"$TMPDIR/answers")" -eq "$want" ] && got=$((got + 1))
	done
	exec 3>&-
	wait "$pid"
	[ "$got" -eq 2 ] && grep -q "a.c:" "$TMPDIR/answers" && ok "addr2line answers each address as it arrives" ||
		notok "addr2line answers each address as it arrives: $(cat "$TMPDIR/answers")"
fi
finish
