# SPDX-License-Identifier: MIT
# Texture objects over linear memory (the test double's GMP_DOUBLE_TEXTURE:
# cudaCreateTextureObject, or cuTexObjectCreate, over the object at an
# address, right after its allocation, destroyed right before its free):
# kernels read it through the texture unit, which the device patches do
# not see, so every kernel launched while the texture exists is taken to
# read the object.  Unseen, those reads made the object look free for
# another object to reuse (a redundant allocation), and, in intra mode, a
# partly touched object overallocated.
. tests/cli/lib.sh
B=$(cd "$(dirname "$GMPROF")" && pwd)
use_double "$B"
# A read by k through a texture only (lib.sh).
unseen_read_script "$TMPDIR/tex.jsonl"
kernels() { "$GMPROF" dump "$1" | grep '"op":"kernel"' | sed -E 's/,"thread".*//'; }
run() { # NAME PROFILE ENV...: the collector's run of the script
	_n=$1 _p=$2
	shift 2
	expect_exit 0 "$_n" -- env GMPROF_OUTPUT="$_p" "$@" "$B/double/fake_app" "$TMPDIR/tex.jsonl"
}
run "no texture" "$TMPDIR/none.gmprof"
"$GMPROF" replay "$TMPDIR/none.gmprof" | grep -q "redundant_allocation: obj#2" &&
	ok "  ... B may reuse A's memory (k does not read A)" || notok "  ... $("$GMPROF" replay "$TMPDIR/none.gmprof")"
for api in runtime driver; do
	run "a texture over A ($api API)" "$TMPDIR/$api.gmprof" GMP_DOUBLE_TEXTURE=0x10000 GMP_DOUBLE_TEXTURE_API=$api
	[ ! -s "$TMPDIR/err" ] && ok "  ... not a word" || notok "  ... stderr: $(cat "$TMPDIR/err")"
	[ "$(kernels "$TMPDIR/$api.gmprof" | tr '\n' ' ')" = '{"op":"kernel","name":"k","read":["0x10000"],"write":["0x20000"] {"op":"kernel","name":"k2","write":["0x20000"] ' ] &&
		ok "  ... k reads A, k2 (after the texture and A are gone) does not" ||
		notok "  ... kernels: $(kernels "$TMPDIR/$api.gmprof")"
	expect_exit 0 "  ... replay" -- "$GMPROF" replay "$TMPDIR/$api.gmprof"
	grep -q redundant_allocation "$TMPDIR/out" && notok "  ... $(cat "$TMPDIR/out")" || ok "  ... B may not reuse A's memory"
done
run "a texture over a CUDA array (resource type 0)" "$TMPDIR/array.gmprof" GMP_DOUBLE_TEXTURE=0x10000 \
	GMP_DOUBLE_TEXTURE_TYPE=0
[ "$(kernels "$TMPDIR/array.gmprof" | head -1)" = '{"op":"kernel","name":"k","write":["0x20000"]' ] &&
	ok "  ... no read of A added" || notok "  ... kernels: $(kernels "$TMPDIR/array.gmprof")"
run "a texture the program never destroys" "$TMPDIR/kept.gmprof" GMP_DOUBLE_TEXTURE=0x10000 GMP_DOUBLE_TEXTURE_KEEP=1
[ "$(kernels "$TMPDIR/kept.gmprof" | tr '\n' ' ')" = '{"op":"kernel","name":"k","read":["0x10000"],"write":["0x20000"] {"op":"kernel","name":"k2","write":["0x20000"] ' ] &&
	ok "  ... k reads A; k2, after A's free, does not" || notok "  ... kernels: $(kernels "$TMPDIR/kept.gmprof")"
expect_exit 0 "  ... replay" -- "$GMPROF" replay "$TMPDIR/kept.gmprof"
# The texture over B, destroyed before A's free: k reads B through it, k2 (after) does not.
run "a texture over B destroyed before A's free" "$TMPDIR/ended.gmprof" GMP_DOUBLE_TEXTURE=0x20000 \
	GMP_DOUBLE_TEXTURE_END=0x10000
[ "$(kernels "$TMPDIR/ended.gmprof" | tr '\n' ' ')" = '{"op":"kernel","name":"k","read":["0x20000"],"write":["0x20000"] {"op":"kernel","name":"k2","write":["0x20000"] ' ] &&
	ok "  ... k reads B too; k2, after the texture is gone, only writes it" ||
	notok "  ... kernels: $(kernels "$TMPDIR/ended.gmprof")"

# cudaDeviceReset: the texture goes with its context (A, leaked by the reset, stays live).
cat >"$TMPDIR/reset.jsonl" <<'J'
{"op":"alloc","addr":"0x10000","size":4096}
{"op":"alloc","addr":"0x20000","size":4096}
{"op":"kernel","name":"k","write":["0x20000"]}
{"op":"alloc","addr":"0x30000","size":4096}
{"op":"kernel","name":"k2","write":["0x30000"]}
{"op":"free","addr":"0x30000"}
J
expect_exit 0 "a texture over A, then a reset" -- env GMPROF_OUTPUT="$TMPDIR/reset.gmprof" GMP_DOUBLE_TEXTURE=0x10000 \
	GMP_DOUBLE_TEXTURE_KEEP=1 GMP_DOUBLE_RESET_AT=3 "$B/double/fake_app" "$TMPDIR/reset.jsonl"
[ "$(kernels "$TMPDIR/reset.gmprof" | tr '\n' ' ')" = '{"op":"kernel","name":"k","read":["0x10000"],"write":["0x20000"] {"op":"kernel","name":"k2","write":["0x30000"] ' ] &&
	ok "  ... k reads A; k2, in the next context, does not" || notok "  ... kernels: $(kernels "$TMPDIR/reset.gmprof")"

# Intra mode: k touches a sixteenth of A itself; k2 reads it through the texture.
cat >"$TMPDIR/tex.jsonl" <<'J'
{"op":"alloc","addr":"0x10000","size":65536}
{"op":"alloc","addr":"0x40000","size":4096}
{"op":"kernel","name":"k","touch":[{"addr":"0x10000","size":4096,"rw":"w"}]}
{"op":"kernel","name":"k2","touch":[{"addr":"0x40000","size":4096,"rw":"w"}]}
{"op":"memcpy","src":"0x40000","size":4096}
{"op":"sync"}
{"op":"free","addr":"0x10000"}
{"op":"free","addr":"0x40000"}
J
run "intra mode, no texture" "$TMPDIR/intra.gmprof" GMPROF_MODE=intra
"$GMPROF" replay "$TMPDIR/intra.gmprof" | grep -q "overallocation: obj#1" &&
	ok "  ... A overallocated" || notok "  ... $("$GMPROF" replay "$TMPDIR/intra.gmprof")"
run "intra mode, a texture over A" "$TMPDIR/intra_tex.gmprof" GMPROF_MODE=intra GMP_DOUBLE_TEXTURE=0x10000
expect_exit 0 "  ... replay" -- "$GMPROF" replay "$TMPDIR/intra_tex.gmprof"
grep -q "overallocation" "$TMPDIR/out" && notok "  ... $(cat "$TMPDIR/out")" ||
	ok "  ... A's bytes are not all known: no overallocation"
finish
