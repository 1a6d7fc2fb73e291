#!/bin/sh
# SPDX-License-Identifier: MIT
# gmprof addr2line against binutils addr2line on the same addresses, in one
# run: a generated C program (FILES files of FUNCS functions, -g -O2) and
# N random addresses inside its functions.  SHAPE picks the functions'
# bodies: "loop" (a loop around an inlined helper) or "branchy" (a loop
# with a branch around an inlined helper): binutils is much slower on the
# second, so both are measured.  Prints one table row and checks
# that both give the same file:line for every address.
# Goal: at least 5x faster.
set -eu
BUILD=${BUILD:-build}
G=$BUILD/rel/gmprof
FILES=${FILES:-40}
FUNCS=${FUNCS:-250}
SHAPE=${SHAPE:-loop}
N=${N:-200000}
W=$(mktemp -d "${TMPDIR:-/tmp}/gmprof-a2l.XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$W"' EXIT
[ -z "${KEEP:-}" ] || echo "kept $W" >&2
i=0
while [ $i -lt "$FILES" ]; do
	awk -v f=$i -v n="$FUNCS" -v shape="$SHAPE" 'BEGIN {
		printf "#include <stdlib.h>\n"
		for (k = 0; k < n; k++) {
			printf "static inline int in_%d_%d(int x) { return x * %d + (x >> 3); }\n", f, k, k + 3
			if (shape == "branchy") {
				printf "int fn_%d_%d(int *a, int x)\n{\n\tint s = 0;\n", f, k
				printf "\tfor (int i = 0; i < x; i++) {\n\t\tif (a[i] & 1)\n\t\t\ts += in_%d_%d(a[i]);\n", f, k
				printf "\t\telse\n\t\t\ts -= a[i] / 3;\n\t}\n\treturn s;\n}\n"
			} else {
				printf "int fn_%d_%d(int *a, int x)\n{\n\tint s = 0;\n", f, k
				printf "\tfor (int i = 0; i < x; i++)\n\t\ts += in_%d_%d(a[i]) ^ (s >> 3);\n", f, k
				printf "\tif (s > %d)\n\t\ts -= rand();\n\treturn s;\n}\n", k * 7
			}
		}
	}' >"$W/f$i.c"
	i=$((i + 1))
done
printf 'int fn_0_0(int *, int);\nint main(int c, char **v) { (void)v; return fn_0_0(&c, 1); }\n' >"$W/main.c"
(cd "$W" && cc -g -O2 -fPIE -pie -o app ./*.c)
# N addresses drawn inside the functions, reproducibly.
nm -n -S "$W/app" | awk '$3 ~ /^[tT]$/ && $2 != "" { print $1, $2 }' >"$W/funcs"
awk -v n="$N" 'function hex(s,  i, v, c) { v = 0; s = tolower(s)
		for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c } return v }
	{ a[NR] = hex($1); z[NR] = hex($2) }
	END { srand(42); for (k = 0; k < n; k++) { j = int(rand() * NR) + 1; printf "%x\n", a[j] + int(rand() * z[j]) } }' \
	"$W/funcs" >"$W/addrs"
size=$(wc -c <"$W/app")
set -- $("$BUILD/rel/gmprof-bench" -r 3 -i "$W/addrs" -- addr2line -f -e "$W/app")
bt=$1
set -- $("$BUILD/rel/gmprof-bench" -r 3 -i "$W/addrs" -- "$G" addr2line -f -e "$W/app")
gt=$1
addr2line -f -e "$W/app" <"$W/addrs" >"$W/want"
"$G" addr2line -f -e "$W/app" <"$W/addrs" >"$W/got"
same=$(cmp -s "$W/want" "$W/got" && echo identical || echo DIFFERENT)
awk -v shape="$SHAPE" -v n="$N" -v sz="$size" -v b="$bt" -v g="$gt" -v same="$same" -v f="$FILES" -v k="$FUNCS" 'BEGIN {
	printf "| addr2line, %s functions, %d addresses, %.1f MB -g -O2 binary (%d functions) | binutils %.3f s | gmprof %.3f s | %.1fx | output %s |\n",
		shape, n, sz / 1e6, f * k, b, g, b / g, same }'
[ "$same" = identical ]
