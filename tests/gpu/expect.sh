# SPDX-License-Identifier: MIT
# Findings against a program's .expect file, shared by make gpu-check
# (tests/gpu/run.sh) and the recorded-profile tests (tests/cli/recorded.sh),
# with the devices' peaks (peaks_of: also tests/cli/alloc_mode.sh), the
# collector's record of its own time (self_time_of, self_time_sane: also
# tests/cli/selftime.sh) and intra mode's touches of two runs at different
# BENCH_SCALE (touches_of, scaled: also tests/cli/recorded.sh), and how long
# findings' memory waited by the host's clock (waits_of, waits_check: also
# tests/cli/gpu_build.sh, on the event models).
# Needs $G (gmprof) and $OUT_DIR.  An .expect file holds a line
# "PATTERN OBJECT" per finding, or "PATTERN *N" for N findings of a pattern.
findings() { # profile -> "pattern object" lines, sorted
	"$G" replay --format json --pretty "$1" | awk '
		/"pattern": / { gsub(/[",]/, "", $2); p = $2 }
		/"object": / && p != "" { gsub(/[",]/, "", $2); print p, $2; p = "" }' | sort
}
check() { # name profile expect: 0 when equal; the differences in $OUT_DIR/name.diff
	findings "$2" >"$OUT_DIR/$1.got"
	awk 'NR == FNR { if ($2 ~ /^\*/) want[$1] = substr($2, 2); else pair[$1 " " $2]++; next }
	     { if ($1 in want) have[$1]++; else got[$1 " " $2]++ }
	     END {
		bad = 0
		for (k in pair) if (got[k] != pair[k]) { print "missing or repeated: " k; bad = 1 }
		for (k in got) if (!(k in pair)) { print "unexpected: " k; bad = 1 }
		for (k in want) if (have[k] + 0 != want[k] + 0) { print k ": " have[k] + 0 " findings, want " want[k]; bad = 1 }
		exit bad }' "$3" "$OUT_DIR/$1.got" >"$OUT_DIR/$1.diff"
}
peaks_of() { # profile -> its devices' peaks and what was live at each, a line per value
	"$G" replay --format json --pretty "$1" 2>/dev/null | awk '/^  "devices": \[/ { d = 1 } /^  \]/ { d = 0 }
		d && /"(device|peak_bytes|inuse_peak_bytes|bytes|size)": / { gsub(/[ ,]/, ""); print }'
}
self_time_of() { # profile -> "part microseconds count" lines of its META collector_time
	"$G" dump "$1" 2>/dev/null | sed -n 's/^{"op":"meta","key":"collector_time","value":"\(.*\)"}$/\1/p' |
		tr ' ' '\n' | awk -F'[=/]' 'NF == 3 { print $1, $2, $3 }'
}
self_time_sane() { # profile mode: 0 when every part is there, the parts lie inside the callbacks,
	# start and exit that hold them, those inside the run, and a mode that patches patched a module
	self_time_of "$1" | awk -v mode="$2" '{ us[$1] = $2; n[$1] = $3; k++ }
		END { inner = us["lock"] + us["patch"] + us["calls"] + us["wait"] + us["stack"]
		      outer = us["start"] + us["callbacks"] + us["exit"]
		      exit !(k >= 9 && inner <= outer && outer <= us["wall"] && n["start"] == 1 && n["exit"] == 1 &&
			     (mode == "alloc" || n["patch"] >= 1)) }'
}
touches_of() { # profile -> "launch object offset size rw count" per touch of its launches, in
	# order; an address as the newest allocation holding it (its ordinal) and the offset into it
	"$G" dump "$1" 2>/dev/null | awk '
		function hex(h,  i, v) { v = 0; h = tolower(h)
			for (i = 3; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
			return v }
		function field(t, name) { if (!match(t, "\"" name "\":\"?[0-9a-fx]+")) return ""
			return substr(t, RSTART + length(name) + 3, RLENGTH - length(name) - 3) }
		/^\{"op":"alloc"/ { n++; base[n] = hex(substr(field($0, "addr"), 2)); size[n] = field($0, "size") + 0 }
		/^\{"op":"kernel"/ { k++; rest = $0
			while (match(rest, /\{"addr":"0x[0-9a-fA-F]+"[^}]*\}/)) {
				t = substr(rest, RSTART, RLENGTH); rest = substr(rest, RSTART + RLENGTH)
				a = hex(substr(field(t, "addr"), 2))
				for (o = n; o > 0 && !(a >= base[o] && a < base[o] + size[o]); o--) ;
				rw = t; sub(/.*"rw":"/, "", rw); sub(/".*/, "", rw)
				c = field(t, "count"); if (c == "") c = 1 # absent: once
				printf "%d %d %.0f %s %s %s\n", k, o, o ? a - base[o] : a, field(t, "size"), rw, c } }'
}
scaled() { # profile profile_k k: 0 when the second's touches are the first's with k times the
	# counts (and there are some); the differences in $OUT_DIR/scaled.diff
	touches_of "$1" | awk -v k="$3" '{ $6 = $6 * k; print }' >"$OUT_DIR/scaled.want"
	touches_of "$2" >"$OUT_DIR/scaled.got"
	diff "$OUT_DIR/scaled.want" "$OUT_DIR/scaled.got" >"$OUT_DIR/scaled.diff" && [ -s "$OUT_DIR/scaled.want" ]
}
waits_of() { # profile -> "pattern object min_ns max_ns" for each finding with a wait by the host's clock
	"$G" report --format json --pretty "$1" 2>/dev/null | awk '
		/"pattern": / { gsub(/[",]/, "", $2); p = $2 }
		/"object": / { gsub(/[",]/, "", $2); o = $2 }
		/"waited_min_ns": / { gsub(/,/, "", $2); lo = $2 }
		/"waited_max_ns": / { gsub(/,/, "", $2); print p, o, lo, $2 }'
}
waits_check() { # name profile waits: 0 when each "PATTERN OBJECT MIN_MS MAX_MS" line's finding waited
	# at least MIN_MS and at most MAX_MS; the differences in $OUT_DIR/name.waits.diff
	waits_of "$2" >"$OUT_DIR/$1.waits.got"
	awk 'NR == FNR { got[$1 " " $2] = $3 " " $4; next }
	     { k = $1 " " $2
	       if (!(k in got)) { print "no wait for " k; bad = 1; next }
	       split(got[k], v, " ")
	       if (v[1] < $3 * 1e6 || v[2] > $4 * 1e6) {
		       printf "%s: waited %.1f to %.1f ms, want at least %s and at most %s\n", k, v[1] / 1e6, v[2] / 1e6, $3, $4
		       bad = 1 } }
	     END { exit bad }' "$OUT_DIR/$1.waits.got" "$3" >"$OUT_DIR/$1.waits.diff"
}
launches_of() { # profile -> per kernel launch, the objects its accesses name ("obj#N" by allocation order), or "none"
	"$G" dump "$1" 2>/dev/null | awk '
		function ids(t, key,  s, r) { s = ""
			if (!match(t, "\"" key "\":\\[[^]]*\\]")) return s
			r = substr(t, RSTART, RLENGTH)
			while (match(r, /"0x[0-9a-fA-F]+"/)) { s = s " " substr(r, RSTART + 1, RLENGTH - 2); r = substr(r, RSTART + RLENGTH) }
			return s }
		/^\{"op":"alloc"/ { n++; match($0, /"addr":"0x[0-9a-fA-F]+"/); obj[substr($0, RSTART + 8, RLENGTH - 9)] = n }
		/^\{"op":"kernel"/ { split(ids($0, "read") ids($0, "write"), a, " "); delete seen; line = ""
			for (i in a) if (a[i] in obj && !(obj[a[i]] in seen)) { seen[obj[a[i]]] = 1; line = line " obj#" obj[a[i]] }
			print line == "" ? "none" : substr(line, 2) }'
}
launches_check() { # name profile launches: 0 when each "OBJ[,OBJ...] COUNT" line (or "none COUNT") counts the
	# launches whose accesses name every one of those objects (none: no object); the differences in $OUT_DIR/name.launches.diff
	launches_of "$2" >"$OUT_DIR/$1.launches.got"
	awk 'NR == FNR { l[++k] = $0; next }
	     { want = $2; split($1, o, ","); have = 0
	       for (i = 1; i <= k; i++) {
		       if ($1 == "none") { have += l[i] == "none"; continue }
		       all = 1; split(l[i], g, " "); delete in_l; for (j in g) in_l[g[j]] = 1
		       for (j in o) if (!(o[j] in in_l)) all = 0
		       have += all }
	       if (have != want) { printf "%s: %d launches, want %d\n", $1, have, want; bad = 1 } }
	     END { exit bad }' "$OUT_DIR/$1.launches.got" "$3" >"$OUT_DIR/$1.launches.diff"
}
touched_of() { # profile -> per kernel launch, "touches" where intra-mode touches were recorded, else "none"
	"$G" dump "$1" 2>/dev/null | awk '/^\{"op":"kernel"/ { print /"touch":/ ? "touches" : "none" }'
}
