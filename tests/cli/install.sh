# SPDX-License-Identifier: MIT
# gmprof run as installed (make install: bin/gmprof, lib/gmprof/libgmprof.so
# and the device patches beside it) and as built (the collector beside
# gmprof): it finds its collector, and the collector its patches, with no
# GMPROF_COLLECTOR or GMPROF_PATCH; the Sanitizer library comes from
# GMPROF_SANITIZER_LIB, as gmprof's own message says to set it.
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
SCRIPT=$PWD/tests/scripts/figure2.jsonl
unset GMPROF_COLLECTOR GMPROF_PATCH GMPROF_SANITIZER_LIB NVTX_INJECTION64_PATH
export GMPROF_CUDA_DRIVER=$B/double/libcuda-fake.so GMPROF_DOUBLE=$B/double/libsanitizer-public.so
mkdir -p "$TMPDIR/usr/bin" "$TMPDIR/usr/lib/gmprof" "$TMPDIR/alone"
cp "$GMPROF" "$TMPDIR/usr/bin/gmprof"
cp "$B/libgmprof.so" "$TMPDIR/usr/lib/gmprof/libgmprof.so"
cp "$B/double/patches.fatbin" "$TMPDIR/usr/lib/gmprof/gmprof_patch.fatbin"
expect_exit 0 "installed: gmprof run with GMPROF_SANITIZER_LIB set" -- env GMPROF_SANITIZER_LIB="$GMPROF_DOUBLE" \
	"$TMPDIR/usr/bin/gmprof" run --top 0 -o "$TMPDIR/i.gmprof" -- "$B/double/fake_app" "$SCRIPT"
same_findings "$TMPDIR/i.gmprof" "$SCRIPT" && ok "  ... the collector from ../lib/gmprof, its patches beside it: the script's findings" ||
	notok "  ... findings: $(cat "$TMPDIR/err")"
if [ ! -e /usr/local/cuda/compute-sanitizer/libsanitizer-public.so ]; then # the last place looked in
	expect_exit 2 "installed, no Sanitizer library anywhere" -- env CUDA_HOME="$TMPDIR/alone" PATH=/usr/bin:/bin \
		"$TMPDIR/usr/bin/gmprof" run -o "$TMPDIR/n.gmprof" -- "$B/double/fake_app" "$SCRIPT"
	expect_stderr_line "no Compute Sanitizer library found .*: set GMPROF_SANITIZER_LIB to its path, or give --sanitizer-lib PATH$" \
		"  ... one sentence, naming both ways to give it"
	[ ! -e "$TMPDIR/n.gmprof" ] && ok "  ... before the program runs: no profile" || notok "  ... a profile was written"
fi
# Found with nothing set: beside a compute-sanitizer on PATH, through the
# link a package puts in a bin directory; and in $CUDA_HOME/compute-sanitizer.
mkdir -p "$TMPDIR/cuda/compute-sanitizer" "$TMPDIR/links"
printf '#!/bin/sh\nexit 0\n' >"$TMPDIR/cuda/compute-sanitizer/compute-sanitizer"
chmod +x "$TMPDIR/cuda/compute-sanitizer/compute-sanitizer"
ln -s "$GMPROF_DOUBLE" "$TMPDIR/cuda/compute-sanitizer/libsanitizer-public.so"
ln -s "$TMPDIR/cuda/compute-sanitizer/compute-sanitizer" "$TMPDIR/links/compute-sanitizer"
expect_exit 0 "installed: the Sanitizer library beside compute-sanitizer on PATH (a link to it)" -- \
	env CUDA_HOME="$TMPDIR/alone" PATH="$TMPDIR/links:/usr/bin:/bin" \
	"$TMPDIR/usr/bin/gmprof" run --top 0 -o "$TMPDIR/p.gmprof" -- "$B/double/fake_app" "$SCRIPT"
same_findings "$TMPDIR/p.gmprof" "$SCRIPT" && ok "  ... the script's findings" || notok "  ... findings: $(cat "$TMPDIR/err")"
expect_exit 0 "installed: the Sanitizer library in \$CUDA_HOME/compute-sanitizer" -- \
	env CUDA_HOME="$TMPDIR/cuda" PATH=/usr/bin:/bin \
	"$TMPDIR/usr/bin/gmprof" run --top 0 -o "$TMPDIR/h.gmprof" -- "$B/double/fake_app" "$SCRIPT"
same_findings "$TMPDIR/h.gmprof" "$SCRIPT" && ok "  ... the script's findings" || notok "  ... findings: $(cat "$TMPDIR/err")"
expect_exit 0 "as built: the collector beside gmprof" -- env GMPROF_PATCH="$B/double/patches.fatbin" \
	"$GMPROF" run --top 0 --sanitizer-lib "$GMPROF_DOUBLE" -o "$TMPDIR/b.gmprof" -- "$B/double/fake_app" "$SCRIPT"
same_findings "$TMPDIR/b.gmprof" "$SCRIPT" && ok "  ... the script's findings" || notok "  ... findings: $(cat "$TMPDIR/err")"
cp "$GMPROF" "$TMPDIR/alone/gmprof"
expect_exit 2 "no collector beside gmprof nor in ../lib/gmprof" -- \
	"$TMPDIR/alone/gmprof" run --sanitizer-lib "$GMPROF_DOUBLE" -o "$TMPDIR/a.gmprof" -- "$B/double/fake_app" "$SCRIPT"
expect_stderr_line "the collector libgmprof.so is not beside gmprof nor in ../lib/gmprof" "  ... one sentence"
finish
