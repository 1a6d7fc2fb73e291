# SPDX-License-Identifier: MIT
# The device patches' machine code, counted by benchmarks/patch_sass.py
# (static: no GPU): the empty callback, the per-access cost benchmark's
# baseline, saves no register; the records function, the steady state kept
# small on purpose (GMPROF_PATCH_HINTS), stays within 8 stores; and the
# script refuses an architecture whose encoding it cannot read.
. tests/cli/lib.sh
if [ -z "${NVCC:-}" ] || ! command -v python3 >/dev/null; then
	ok "no nvcc or no python3 here: the patches' machine code is not counted"
	finish
fi
NVCC=$NVCC python3 benchmarks/patch_sass.py sm_90 >"$TMPDIR/t" 2>"$TMPDIR/e"
rc=$?
if [ "$rc" -eq 2 ] && grep -q 'do not read as this script expects' "$TMPDIR/e"; then
	ok "skipped: this toolkit's sm_90 opcodes do not read as patch_sass.py expects ($(cat "$TMPDIR/e"))"
	finish
fi
[ "$rc" -eq 0 ] && ok "sm_90 counted" || notok "sm_90 counted (exit $rc): $(cat "$TMPDIR/e")"
# | arch | function | instructions | STL | LDL | STL before the first branch | LDL before the return |
col() { awk -F' *[|] *' -v f="$1" -v c="$2" '$3 == f { print $c }' "$TMPDIR/t"; }
[ "$(col gmp_patch_global_access_empty 5)" = 0 ] && [ "$(col gmp_patch_global_access_empty 6)" = 0 ] &&
	ok "the empty callback saves no register" || notok "the empty callback: $(grep empty "$TMPDIR/t")"
stl=$(col gmp_patch_global_access_records 5)
[ -n "$stl" ] && [ "$stl" -le 8 ] && ok "the records function: $stl stores (at most 8)" ||
	notok "the records function: $(grep records "$TMPDIR/t")"
all=$(col gmp_patch_global_access 5)
entry=$(col gmp_patch_global_access 7)
[ -n "$all" ] && [ -n "$entry" ] && [ "$entry" -gt 0 ] && [ "$entry" -lt "$all" ] &&
	ok "the default callback: $entry of its $all stores on every call" || notok "the default callback: $(grep 'access |' "$TMPDIR/t")"
NVCC=$NVCC python3 benchmarks/patch_sass.py sm_100 >/dev/null 2>"$TMPDIR/e"
rc=$?
if [ "$rc" -eq 0 ]; then
	ok "sm_100 reads too (the script's refusal is not exercised)"
else
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMPDIR/e")" -eq 1 ] && grep -q '^patch_sass: the opcodes of sm_100 do not read' "$TMPDIR/e" &&
		ok "an architecture it cannot read: one sentence, status 2" || notok "sm_100: exit $rc: $(cat "$TMPDIR/e")"
fi
finish
