# SPDX-License-Identifier: MIT
# Where the collector finds its device patches when GMPROF_PATCH is unset:
# gmprof_patch.fatbin beside libgmprof.so, under the name the program loaded
# it by or, where that is a symbolic link, beside the file it points to.
# Without them (or with a GMPROF_PATCH that cannot be read) it says so in
# one sentence naming where it looked and runs the program unprofiled, or
# stops it with GMPROF_ON_ERROR=fail; alloc mode needs no patches.
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
use_double "$B"
unset GMPROF_PATCH
S=tests/scripts/figure2.jsonl
# Labels and source locations do not travel through Sanitizer callbacks; replay's first line names its input.
sed -E 's/,"label":"[^"]*"//; s/,"at":"[^"]*"//' "$S" >"$TMPDIR/s.jsonl"
"$GMPROF" replay "$TMPDIR/s.jsonl" 2>&1 | tail -n +2 >"$TMPDIR/want"
mkdir -p "$TMPDIR/lib" "$TMPDIR/link"
cp "$B/libgmprof.so" "$TMPDIR/lib/libgmprof.so"

run_with() { # COLLECTOR NAME [ENV...]: the fake program run with that collector (NVTX's too: one copy loaded)
	_c=$1 _n=$2; shift 2
	rm -f "$TMPDIR/p.gmprof"
	expect_exit "${WANT:-0}" "$_n" -- env GMPROF_COLLECTOR="$_c" NVTX_INJECTION64_PATH="$_c" GMPROF_OUTPUT="$TMPDIR/p.gmprof" "$@" \
		"$B/double/fake_app" "$S"
}
profiled() { # NAME: the run wrote a profile with the script's findings
	"$GMPROF" replay "$TMPDIR/p.gmprof" >"$TMPDIR/got.all" 2>&1 && tail -n +2 "$TMPDIR/got.all" >"$TMPDIR/got" &&
		[ "$(wc -l <"$TMPDIR/want")" -gt 5 ] && cmp -s "$TMPDIR/want" "$TMPDIR/got" &&
		ok "$1" || notok "$1: $(head -5 "$TMPDIR/got.all")"
}

run_with "$TMPDIR/lib/libgmprof.so" "no fatbin beside the collector: the program runs"
expect_stderr_line "^gmprof: the device patches 'gmprof_patch.fatbin' are not beside libgmprof.so in '$TMPDIR/lib' (set GMPROF_PATCH to the file, or GMPROF_MODE=alloc, which patches no kernel); the program runs unprofiled$" \
	"  ... one sentence names the directory and the ways out"
[ ! -e "$TMPDIR/p.gmprof" ] && ok "  ... unprofiled: no profile" || notok "  ... unprofiled: a profile was written"
WANT=2 run_with "$TMPDIR/lib/libgmprof.so" "  ... GMPROF_ON_ERROR=fail stops it with status 2" GMPROF_ON_ERROR=fail
expect_stderr_line "not beside libgmprof.so in .*; stopping (GMPROF_ON_ERROR=fail)$" "  ... saying why"

run_with "$TMPDIR/lib/libgmprof.so" "no fatbin, alloc mode: the program runs" GMPROF_MODE=alloc
[ ! -s "$TMPDIR/err" ] && ok "  ... without a word" || notok "  ... said: $(cat "$TMPDIR/err")"
"$GMPROF" report "$TMPDIR/p.gmprof" >/dev/null 2>&1 && ok "  ... and its profile reads" || notok "  ... its profile does not read"

cp "$B/double/patches.fatbin" "$TMPDIR/lib/gmprof_patch.fatbin"
run_with "$TMPDIR/lib/libgmprof.so" "the fatbin beside the collector: the program runs"
[ ! -s "$TMPDIR/err" ] && ok "  ... without a word" || notok "  ... said: $(cat "$TMPDIR/err")"
profiled "  ... profiled, with the script's findings"

ln -s "$TMPDIR/lib/libgmprof.so" "$TMPDIR/link/libgmprof.so"
run_with "$TMPDIR/link/libgmprof.so" "loaded through a symbolic link: the fatbin beside the file it points to"
[ ! -s "$TMPDIR/err" ] && profiled "  ... profiled, with the script's findings" || notok "  ... said: $(cat "$TMPDIR/err")"
mv "$TMPDIR/lib/gmprof_patch.fatbin" "$TMPDIR/link/gmprof_patch.fatbin"
run_with "$TMPDIR/link/libgmprof.so" "  ... or beside the link itself"
[ ! -s "$TMPDIR/err" ] && profiled "  ... profiled, with the script's findings" || notok "  ... said: $(cat "$TMPDIR/err")"
rm "$TMPDIR/link/gmprof_patch.fatbin"
run_with "$TMPDIR/link/libgmprof.so" "through a link, neither has it: the program runs"
expect_stderr_line "not beside libgmprof.so in '$TMPDIR/lib' " "  ... the sentence names the link's target's directory, the last looked in"

run_with "$TMPDIR/lib/libgmprof.so" "GMPROF_PATCH names no file: the program runs" GMPROF_PATCH="$TMPDIR/none.fatbin"
expect_stderr_line "^gmprof: the device patches '$TMPDIR/none.fatbin' cannot be read (GMPROF_PATCH); the program runs unprofiled$" \
	"  ... one sentence names the file"
WANT=2 run_with "$TMPDIR/lib/libgmprof.so" "  ... GMPROF_ON_ERROR=fail stops it with status 2" GMPROF_ON_ERROR=fail GMPROF_PATCH="$TMPDIR/none.fatbin"
finish
