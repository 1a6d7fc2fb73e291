#!/bin/sh
# SPDX-License-Identifier: MIT
# Seeds for the DWARF reader's fuzz target, built here rather than kept as
# binaries: one small program by gcc and clang, DWARF 4 and 5, -O0 and -O2
# (inlined calls), compressed sections; linked without the C library and
# with little padding, so each is a few KiB and its code lies below 0x800.
# Usage: seeds.sh DIR (made if needed).  Exit 2 with one line when no
# compiler builds them.
set -u
dir=$1
mkdir -p "$dir" || exit 2
src=$(mktemp -d) || exit 2
trap 'rm -rf "$src"' EXIT
cat >"$src/a.c" <<'C'
static inline int add(int a, int b) { return a + b; }
static int twice(int x) { return 2 * x; }
struct s { int v[4]; };
int helper(struct s *p, int i) { return add(p->v[i & 3], twice(i)); }
int main(int argc, char **argv)
{
	struct s x = { { 1, 2, 3, 4 } };
	(void)argv;
	int r = 0;
	for (int i = 0; i < argc * 8; i++)
		r += helper(&x, i);
	return r & 1;
}
C
n=0
for cc in cc clang; do
	command -v "$cc" >/dev/null || continue
	for flags in "-O0 -g" "-O2 -g -gdwarf-4" "-O2 -g -gdwarf-5" "-O1 -g -gz"; do
		n=$((n + 1))
		# shellcheck disable=SC2086 # flags are words
		"$cc" $flags -fdebug-prefix-map="$src"=/src -nostartfiles -nostdlib -Wl,-e,main \
			-Wl,-z,noseparate-code -Wl,--build-id=none -Wl,-z,norelro -o "$dir/seed$n" "$src/a.c" 2>/dev/null ||
			rm -f "$dir/seed$n"
	done
done
if [ -z "$(ls "$dir")" ]; then
	echo "tests/fuzz/seeds.sh: no compiler built the DWARF seeds (cc or clang)" >&2
	exit 2
fi
