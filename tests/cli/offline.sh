# SPDX-License-Identifier: MIT
# make deps-offline: the dependencies unpacked into .deps/root are what a
# copy of the tree builds and runs against (include path, link path and run
# path), for machines without network.  Needs apt-get download to work here.
. tests/cli/lib.sh
if ! command -v apt-get >/dev/null || ! command -v dpkg-deb >/dev/null; then
	ok "no apt-get or dpkg-deb here: deps-offline is not tested"
	finish
fi
T=$TMPDIR/tree
mkdir -p "$T"
git ls-files -z --cached --others --exclude-standard | xargs -0 sh -c 'for f; do mkdir -p "$0/$(dirname "$f")" && cp -p "$f" "$0/$f"; done' "$T"
if ! (cd "$T" && make -s deps-offline) >"$TMPDIR/deps.log" 2>&1; then
	if grep -q "could not download" "$TMPDIR/deps.log"; then
		ok "apt-get cannot download here (offline?): deps-offline is not tested"
		finish
	fi
	notok "make deps-offline"
	cat "$TMPDIR/deps.log"
	finish
fi
ok "make deps-offline"
# Each header the build includes resolves to the unpacked copy.
flags=$(cd "$T" && make -s --eval='deps-cflags: ; @echo $(DEP_CFLAGS)' deps-cflags)
for h in libdwarf/libdwarf.h cjson/cJSON.h libunwind.h cmocka.h gelf.h; do
	printf '#include <stdarg.h>\n#include <stddef.h>\n#include <setjmp.h>\n#include <stdint.h>\n#include <%s>\n' "$h" |
		cc $flags -H -E -x c - 2>&1 >/dev/null | grep "^\. .*/$h\$" | grep -q "^\. $T/.deps/root/" &&
		ok "$h comes from .deps" || notok "$h comes from .deps"
done
(cd "$T" && make -s BUILD=build build/rel/gmprof build/rel/libgmprof.so) >"$TMPDIR/build.log" 2>&1 &&
	ok "the tree builds with .deps" || { notok "the tree builds with .deps"; cat "$TMPDIR/build.log"; finish; }
readelf -d "$T/build/rel/gmprof" | grep -q "RUNPATH.*$T/.deps/root/usr/lib" &&
	ok "gmprof's run path names .deps" || notok "gmprof's run path names .deps"
ldd "$T/build/rel/gmprof" | grep -q "libdwarf.so.1 => $T/.deps/root/usr/lib" &&
	ok "gmprof loads libdwarf from .deps" || notok "gmprof loads libdwarf from .deps"
ldd "$T/build/rel/libgmprof.so" | grep -q "libunwind.so.8 => $T/.deps/root/usr/lib" &&
	ok "the collector loads libunwind from .deps" || notok "the collector loads libunwind from .deps"
"$T/build/rel/gmprof" replay tests/scripts/simple_multi_copy.jsonl >"$TMPDIR/out.txt" 2>&1 &&
	grep -q "findings" "$TMPDIR/out.txt" && ok "that gmprof replays a script" || notok "that gmprof replays a script"
finish
