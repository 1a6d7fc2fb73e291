# SPDX-License-Identifier: MIT
# The tables of make bench-gpu (benchmarks/overhead.sh), from two files:
#   times: "PROGRAM CONFIG SECONDS", one line per run
#   peaks: "PROGRAM unfixed|fixed BYTES", the native peak of each build
#   micro (optional): "CONFIG WARP_INSTRUCTIONS KERNEL_MS", one line per run
#     of benchmarks/micro/access_cost (native, empty, object, object-plain,
#     object-epochs, object-l1, object-hints, intra, intra-l1; native-first
#     and intra-first: one pass,
#     first touches; native-gather, object-gather, object-hints-gather: warps
#     in different arrays); and "api-CONFIG CALLS LOOP_MS" lines of
#     benchmarks/micro/api_cost (api-native, api-alloc, api-object,
#     api-object-quiet)
#   own (optional): "PROGRAM CONFIG BYTES", gmprof's own device memory in a
#     run (the profile's META collector_device_peak); the largest is shown
#   self (optional): "PROGRAM CONFIG SECONDS COLLECTOR_TIME...", a run's
#     time and the profile's META collector_time (format/selftime.h): where
#     gmprof's host time went, and what is left above native (the patched
#     kernels, the Sanitizer's own work); and api_callbacks=-/N, the
#     profile's META api_callbacks (the Sanitizer's calls of the collector
#     for API calls, which collector_time's "callbacks" count leaves out)
# Per program: the median time of each configuration and its ratio to
# native; across programs: the median and the geometric mean of the ratios;
# then the goals, met or not, and the native peak reductions.  A
# configuration has a column only when some program ran it.
# A goal on a configuration's median ratio, judged; beside it the same from each configuration's
# fastest run (the estimate least moved by a noisy machine), and whether that one agrees.
function goal(c, what, limit,    m, f) {
	if (!(c in col)) return
	m = med[col[c]]; f = median(fratios[col[c]])
	printf "- %s <= %sx native: %.2fx, %s (fastest runs: %.2fx, %s)\n", what, limit, m, (m <= limit ? "met" : "NOT met"),
	       f, ((m <= limit) == (f <= limit) ? (f <= limit ? "met too" : "NOT met either") : \
	       (f <= limit ? "met: the verdict is within the noise" : "NOT met: the verdict is within the noise"))
}
function minof(list,    n, v, i, m) {
	n = split(list, v, " ")
	m = v[1] + 0
	for (i = 2; i <= n; i++) if (v[i] + 0 < m) m = v[i] + 0
	return m
}
# How far apart one program's runs of one configuration were: (slowest - fastest) / median; -1 for one run.
function spread(list,    n, v, i, hi, lo) {
	n = split(list, v, " ")
	if (n < 2) return -1
	lo = hi = v[1] + 0
	for (i = 2; i <= n; i++) { if (v[i] + 0 < lo) lo = v[i] + 0; if (v[i] + 0 > hi) hi = v[i] + 0 }
	return median(list) > 0 ? (hi - lo) / median(list) : -1
}
function median(list,    n, v, i, j, t) {
	n = split(list, v, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
# A cost table's rows: one per configuration of cfgs (space-separated) that ran, labelled by labels
# ("|"-separated), with its median time and the ns per unit (warps[]: instructions or calls) above base.
function cost_rows(cfgs, labels, base, fmt,    n, cf, lb, c, m) {
	n = split(cfgs, cf, " ")
	split(labels, lb, "|")
	for (c = 1; c <= n; c++) {
		if (!(cf[c] in ms)) continue
		m = median(ms[cf[c]])
		printf "| %s | %.3f | " fmt " |\n", lb[c], m, (warps[cf[c]] > 0 ? (m - base) * 1e6 / warps[cf[c]] : 0)
	}
}
FNR == NR {
	if (NF != 3 || $3 !~ /^[0-9.]+$/) { print "overhead.awk: bad time line: " $0 > "/dev/stderr"; bad = 1; exit 2 }
	if (!($1 in seen)) { seen[$1] = 1; prog[++np] = $1 }
	t[$1, $2] = t[$1, $2] " " $3
	ran[$2] = 1
	next
}
FILENAME == ARGV[4] {
	if (NF != 3) { print "overhead.awk: bad own-memory line: " $0 > "/dev/stderr"; bad = 1; exit 2 }
	if ($3 + 0 > own[$1, $2] + 0) own[$1, $2] = $3
	if (!($2 in owncfg)) { owncfg[$2] = 1; ocfg[++nocfg] = $2 }
	next
}
FILENAME == ARGV[5] {
	if (NF < 4 || $3 !~ /^[0-9.]+$/) { print "overhead.awk: bad collector-time line: " $0 > "/dev/stderr"; bad = 1; exit 2 }
	srun[$1, $2] = $3
	for (f = 4; f <= NF; f++) {
		if (split($f, kv, /[=\/]/) != 3) { print "overhead.awk: bad collector-time part: " $f > "/dev/stderr"; bad = 1; exit 2 }
		sus[$1, $2, kv[1]] = kv[2]
		scnt[$1, $2, kv[1]] = kv[3]
	}
	if (!($2 in selfcfg)) { selfcfg[$2] = 1; scfg[++nscfg] = $2 }
	next
}
FILENAME == ARGV[3] {
	if (NF != 3) { print "overhead.awk: bad micro line: " $0 > "/dev/stderr"; bad = 1; exit 2 }
	ms[$1] = ms[$1] " " $3; warps[$1] = $2
	next
}
{ peak[$1, $2] = $3; if (!($1 in pseen)) { pseen[$1] = 1; pprog[++npp] = $1 } }
END {
	if (bad) exit 2
	na = split("alloc object object-launch object-l1 object-hints object-quiet object-empty object-outside object-outside-at-launch intra intra-l1 memcheck", all, " ")
	nc = 0
	for (c = 1; c <= na; c++)
		if (all[c] in ran) { cfg[++nc] = all[c]; col[all[c]] = nc }
	printf "| program | native s |"
	for (c = 1; c <= nc; c++) printf " %s s | %s x |", cfg[c], cfg[c]
	printf " memcheck / object |\n|---|---|"
	for (c = 1; c <= nc; c++) printf "---|---|"
	printf "---|\n"
	for (i = 1; i <= np; i++) {
		p = prog[i]
		if (!((p, "native") in t)) { print "overhead.awk: no native time for " p > "/dev/stderr"; exit 2 }
		nat = median(t[p, "native"])
		obj = mc = emp = 0
		printf "| %s | %.3f |", p, nat
		for (c = 1; c <= nc; c++) {
			if (!((p, cfg[c]) in t)) { printf " - | - |"; continue }
			m = median(t[p, cfg[c]])
			r = nat > 0 ? m / nat : 0
			ratios[c] = ratios[c] " " r
			fratios[c] = fratios[c] " " (minof(t[p, "native"]) > 0 ? minof(t[p, cfg[c]]) / minof(t[p, "native"]) : 0)
			if ((s = spread(t[p, cfg[c]])) >= 0) spreads[c] = spreads[c] " " s
			logsum[c] += log(r > 0 ? r : 1e-9); cnt[c]++
			printf " %.3f | %.2f |", m, r
			if (cfg[c] == "object") obj = m
			if (cfg[c] == "object-empty") emp = m
			if (cfg[c] == "memcheck") mc = m
		}
		if (obj > nat && emp > 0) {
			# gmprof's device patches' share of object mode's time above native.
			share = share " " (obj - emp) / (obj - nat)
			nshare++
		}
		if (obj > nat && mc > nat) # what each adds to the program's own time
			over = over " " (mc - nat) / (obj - nat)
		if (obj > 0 && mc > 0) {
			f = mc / obj
			faster = faster " " f
			printf " %.1f |\n", f
		} else
			printf " - |\n"

	}
	for (k = 1; k <= 2; k++) {
		printf "| **%s** | |", (k == 1 ? "median" : "geometric mean")
		for (c = 1; c <= nc; c++) {
			if (!cnt[c]) { printf " | - |"; continue }
			printf " | %.2f |", (k == 1 ? median(ratios[c]) : exp(logsum[c] / cnt[c]))
			med[c] = median(ratios[c])
		}
		printf " %s |\n", (k == 1 && faster != "" ? sprintf("%.1f", median(faster)) : "")
	}
	# The noise: each program's slowest run minus its fastest, over their median.
	for (i = 1; i <= np; i++)
		if ((s = spread(t[prog[i], "native"])) >= 0) nspread = nspread " " s
	if (nspread != "") {
		printf "\nSpread of the runs (slowest minus fastest, over the median; the median across programs): native %.0f%%", 100 * median(nspread)
		for (c = 1; c <= nc; c++)
			if (spreads[c] != "") printf ", %s %.0f%%", cfg[c], 100 * median(spreads[c])
		printf "\n"
	}
	print ""
	print "Goals (medians across programs):"
	goal("alloc", "alloc mode (no device patches)", 1.05)
	goal("object", "object level", 1.15)
	goal("object-l1", "object level, GMPROF_PATCH_LOADS=l1", 1.15)
	goal("object-hints", "object level, GMPROF_PATCH_HINTS=1", 1.15)
	goal("object-quiet", "object level, GMPROF_API_CALLBACKS=needed", 1.15)
	goal("intra", "intra-object, every kernel,", 2.5)
	goal("intra-l1", "intra-object, every kernel, GMPROF_PATCH_LOADS=l1,", 2.5)
	if (faster != "")
		printf "- object level >= 5x faster than memcheck: %.1fx, %s\n", median(faster), (median(faster) >= 5 ? "met" : "NOT met")
	if (faster != "" && ("memcheck" in col)) {
		# Run times can be 5x apart only where memcheck takes over 5x native: say what the goal asks
		# at the measured memcheck, and how the two compare in the time each adds.
		mcm = med[col["memcheck"]]
		printf "  (memcheck took %.2fx native at the median, so 5x faster would take object level under %.2fx native", mcm, mcm / 5
		if (over != "")
			printf "; the time memcheck adds to the program's is %.1fx what object level adds (median)", median(over)
		printf ")\n"
	}
	if (nshare)
		printf "\nObject mode's time above native that gmprof's device patches add to an empty callback (object minus\nobject-empty, over object minus native): median %.0f%% over %d programs; the rest is the Sanitizer's\nown and gmprof's host work.\n", 100 * median(share), nshare
	if ("native" in ms) {
		print ""
		print "Per-access cost (benchmarks/micro/access_cost: the kernel's time by CUDA events, median;"
		print "ns per warp-level global memory instruction above native):"
		print ""
		print "| patch | kernel ms | ns per warp instruction |"
		print "|---|---|---|"
		base = median(ms["native"])
		printf "| none (native) | %.3f | - |\n", base
		cost_rows("empty object object-plain object-epochs object-l1 object-hints intra intra-l1",
			  "empty callback|first-touch flags (object)|" \
			  "first-touch flags, the plain callback (GMPROF_FALLBACK=object-callback)|" \
			  "first-touch flags, hit words cleared every launch (GMPROF_FALLBACK=hit-epochs)|" \
			  "first-touch flags, tested through the L1 (object-l1)|" \
			  "first-touch flags, per-instruction hints (object-hints)|" \
			  "warp-aggregated counters (intra)|warp-aggregated counters, tested through the L1 (intra-l1)",
			  base, "%.3f")
		# One pass: every load the first touch of its bytes (against the one-pass native run).
		if (("native-first" in ms) && ("intra-first" in ms)) {
			base1 = median(ms["native-first"])
			printf "| none (native), one pass | %.3f | - |\n", base1
			cost_rows("intra-first", "intra, one pass: every load a first touch", base1, "%.3f")
		}
		# Gather: consecutive warps in different arrays (against the gather native run).
		if ("native-gather" in ms) {
			baseg = median(ms["native-gather"])
			printf "| none (native), gather: each warp in another array | %.3f | - |\n", baseg
			cost_rows("object-gather object-hints-gather",
				  "first-touch flags, gather (object)|first-touch flags, per-instruction hints, gather (object-hints)",
				  baseg, "%.3f")
		}
	}
	if ("api-native" in ms) {
		print ""
		print "Per-call cost of a runtime call that does no GPU work (benchmarks/micro/api_cost: the loop's"
		print "wall time, median; ns per call above native):"
		print ""
		print "| run | loop ms | ns per call |"
		print "|---|---|---|"
		basea = median(ms["api-native"])
		printf "| native | %.3f | - |\n", basea
		cost_rows("api-alloc api-object api-object-quiet",
			  "gmprof, alloc mode|gmprof, object mode|gmprof, object mode, GMPROF_API_CALLBACKS=needed", basea, "%.1f")
	}
	if (nocfg) {
		print ""
		print "gmprof's own device memory (the most it held in a run; not in the programs' peaks), MiB:"
		print ""
		printf "| program |"
		for (c = 1; c <= nocfg; c++) printf " %s |", ocfg[c]
		printf "\n|---|"
		for (c = 1; c <= nocfg; c++) printf "---|"
		printf "\n"
		for (i = 1; i <= np; i++) {
			printf "| %s |", prog[i]
			for (c = 1; c <= nocfg; c++)
				printf ((prog[i], ocfg[c]) in own ? " %.1f |" : " - |"), own[prog[i], ocfg[c]] / 1048576
			printf "\n"
		}
	}
	if (nscfg) {
		print ""
		print "Where the time above native went, ms (the first run of each; gmprof's host time from the"
		print "profile's collector_time; \"rest\" is its host time in none of the parts named, \"device\" the"
		print "time above native that is not gmprof's host time: the patched kernels, the Sanitizer's own work;"
		print "\"callbacks\" the Sanitizer's calls of gmprof, API calls' included, in thousands):"
		print ""
		print "| program | config | above native | gmprof host | patching | stream waits | Sanitizer calls | call paths | lock | rest | device | callbacks |"
		print "|---|---|---|---|---|---|---|---|---|---|---|---|"
		split("patch wait calls stack lock", part, " ")
		for (i = 1; i <= np; i++) {
			p = prog[i]
			for (c = 1; c <= nscfg; c++) {
				k = scfg[c]
				if (!((p, k) in srun)) continue
				above = (srun[p, k] - median(t[p, "native"])) * 1000
				host = (sus[p, k, "start"] + sus[p, k, "callbacks"] + sus[p, k, "exit"]) / 1000
				named = 0
				printf "| %s | %s | %.1f | %.1f |", p, k, above, host
				for (j = 1; j <= 5; j++) {
					v = sus[p, k, part[j]] / 1000
					named += v
					printf " %.1f |", v
				}
				printf " %.1f | %.1f | %.1f |\n", host - named, above - host,
				       (scnt[p, k, "callbacks"] + scnt[p, k, "api_callbacks"]) / 1000
			}
		}
	}
	if (!npp) exit 0
	print ""
	print "| program | native peak, unfixed | native peak, -DFIXED | reduction |"
	print "|---|---|---|---|"
	for (i = 1; i <= npp; i++) {
		p = pprog[i]
		u = peak[p, "unfixed"]; x = peak[p, "fixed"]
		if (x == "") { printf "| %s | %d | (no fixed version) | - |\n", p, u; continue }
		printf "| %s | %d | %d | %.1f%% |\n", p, u, x, (u > 0 ? 100 * (u - x) / u : 0)
	}
}
