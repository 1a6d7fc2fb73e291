# SPDX-License-Identifier: MIT
# The device patches build wherever nvcc exists, for every architecture it
# supports, with the callbacks the collector patches in.
. tests/cli/lib.sh
if [ -z "${NVCC:-}" ]; then
	ok "no nvcc here: the patch build is skipped (make prints one line)"
	finish
fi
F=${BUILD:-build}/rel/gmprof_patch.fatbin
[ -s "$F" ] && ok "fatbin built" || notok "fatbin built ($F)"
# Every device function the collector may patch in.
syms=$(grep -o '"gmp_patch_[a-z_]*"' collector/patching.c | tr -d '"' | sort -u)
[ "$(echo "$syms" | wc -l)" -ge 10 ] && ok "collector/patching.c names $(echo "$syms" | wc -l) device functions" ||
	notok "device functions named in collector/patching.c: $syms"
for sym in $syms; do
	grep -q "$sym" "$F" && ok "fatbin holds $sym" || notok "fatbin holds $sym"
done
for a in $("$NVCC" --list-gpu-code | sed -n 's/^sm_//p'); do
	grep -q "sm_$a" "$F" && ok "fatbin has SASS for sm_$a" || notok "fatbin has SASS for sm_$a"
done
finish
