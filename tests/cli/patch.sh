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
for sym in gmp_patch_global_access gmp_patch_global_access_object gmp_patch_memcpy_async gmp_patch_device_malloc gmp_patch_device_free; do
	grep -q "$sym" "$F" && ok "fatbin holds $sym" || notok "fatbin holds $sym"
done
for a in $("$NVCC" --list-gpu-code | sed -n 's/^sm_//p'); do
	grep -q "sm_$a" "$F" && ok "fatbin has SASS for sm_$a" || notok "fatbin has SASS for sm_$a"
done
finish
