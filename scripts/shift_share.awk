# shift_share.awk: the shift-share decomposition of compare.sh -d (which
# see, and docs/compare.md): the change of the mean latency per call
# between a baseline and each other directory, split into the part from
# the shift between delivery paths and the part from each path's own cost;
# and, where idle_reentry measured beside the storm, the change of its
# re-entry phases next to it.
# Input: per directory the assignment d=INDEX (0: the baseline), then
# src=storm and ipistorm/2 or ipistorm/3 iteration files with per-path figures
# (witness=1 timing=1), then, beside a storm, src=phase and idle_reentry's
# iteration files of the same runs; every file name is a path, never an
# assignment. Variables: fmt (text, csv or json), alpha, bench (the
# directories' bench). From the environment: CMP_LABELS and CMP_DIRS, one
# per line in the order of d. Exit 2 on bad input (error on stderr,
# nothing on stdout), else 0: a decomposition is no verdict.
#
# Per directory, over its runs r and paths p: the calls n[p] = sum_r
# n[r,p], the share s[p] = n[p] / N, the path's mean m[p] = sum_r n[r,p]
# m[r,p] / n[p], the mean per call M = sum_p s[p] m[p]. With midpoint
# weights sbar = (s0 + s1) / 2, mbar = (m0 + m1) / 2, the change is
#   M1 - M0 = sum_p (s1 - s0) mbar[p] + sum_p sbar[p] (m1 - m0)
# exactly (an identity: (s1 m1 - s0 m0) = ds mbar + sbar dm per path), the
# first sum the shift part, the second the cost parts. A path without calls
# on one side takes the other side's mean there (its dm is 0: all of its
# change is shift).
#
# The phases (tick, flush, sched, total) the same way: per directory the
# re-entries n[q] = sum_r n[r,q] and the mean per re-entry m[q] = sum_r
# n[r,q] m[r,q] / n[q] of idle_reentry's total.<q>_n and total.<q>_mean_ns;
# against the baseline the change of m[q] and the Mann-Whitney p of the
# per-run means. A phase a run lacks (no tick_* where tick_nohz_idle_exit
# is missing, or in format idle_reentry/1) is undefined for its directory.

function err(msg) {
	if (!failed) print "compare.sh: " msg >"/dev/stderr"
	failed = 1
}
# pvals(d, p): SP and MP, the p of d's per-run shares and per-run means of
# path p against the baseline's (runs without a call on p have no mean).
function pvals(d, p,    i, n1, n2) {
	n1 = n2 = 0
	for (i = 1; i <= runs[0]; i++) B[++n1] = rn[0, i, p] / rN[0, i]
	for (i = 1; i <= runs[d]; i++) X[++n2] = rn[d, i, p] / rN[d, i]
	SP = mwu(n1, n2)
	n1 = n2 = 0
	for (i = 1; i <= runs[0]; i++) if (rn[0, i, p] > 0) B[++n1] = rm[0, i, p]
	for (i = 1; i <= runs[d]; i++) if (rn[d, i, p] > 0) X[++n2] = rm[d, i, p]
	MP = mwu(n1, n2)
}

# ppval(d, q): the p of d's per-run means of phase q against the
# baseline's (runs without a re-entry have no mean).
function ppval(d, q,    i, n1, n2) {
	n1 = n2 = 0
	for (i = 1; i <= pruns[0]; i++) if (prn[0, i, q] > 0) B[++n1] = prm[0, i, q]
	for (i = 1; i <= pruns[d]; i++) if (prn[d, i, q] > 0) X[++n2] = prm[d, i, q]
	return mwu(n1, n2)
}

function num(x) { return x == "" ? "" : sprintf("%.6f", x) }
function pnum(x) { return x == "" ? "" : sprintf("%.4g", x) }
function na(x, f) { return x == "" ? "n/a" : sprintf(f, x) }
function jnum(x) { return x == "" ? "null" : x }
function csvq(s) { gsub(/"/, "\"\"", s); return "\"" s "\"" }

BEGIN {
	MWU_EXACT = 40
	FORMAT = "ipistorm-shift-share/2"
	NP = split("no_ipi ipi queued", PATH, " ")
	nd = split(ENVIRON["CMP_LABELS"], dl0, "\n")
	split(ENVIRON["CMP_DIRS"], dd0, "\n")
	for (i = 1; i <= nd; i++) { dlabel[i - 1] = dl0[i]; ddir[i - 1] = dd0[i] }
	for (p = 1; p <= NP; p++) {
		want["total.lat_" PATH[p] "_n"] = p
		wmean["total.lat_" PATH[p] "_mean_ns"] = p
	}
	# total last: its re-entries, pn[e, NQ], are every re-entry
	NQ = split("tick flush sched total", PHASE, " ")
	for (q = 1; q <= NQ; q++) {
		pwant["total." PHASE[q] "_n"] = q
		pwmean["total." PHASE[q] "_mean_ns"] = q
	}
}
FNR == 1 && src == "phase" { r = ++pruns[d]; pfile[d, r] = FILENAME }
FNR == 1 && src != "phase" { r = ++runs[d]; file[d, r] = FILENAME }
src == "phase" {
	eq = index($0, "=")
	if (!eq) next
	k = substr($0, 1, eq - 1)
	v = substr($0, eq + 1)
	if (k == "format") {
		# Format 1's total_* starts at the queue flush, later ones at
		# leaving the polling loop (format 3 changed fast_pct only).
		if (pfmt == "") { pfmt = v; pfmtfile = FILENAME }
		else if ((v == "idle_reentry/1") != (pfmt == "idle_reentry/1"))
			err(FILENAME " is " v ", " pfmtfile " " pfmt ": their total_* phases start at different points")
		next
	}
	if (!(k in pwant) && !(k in pwmean)) next
	if (v !~ /^[0-9]+$/) { err(FILENAME ": " k "='" v "' is not a count of ns or re-entries"); next }
	if (!bounded(v)) { err(FILENAME ": " k "=" v " " BOUNDED); next }
	if ((d, r, k) in pseen) { err(FILENAME ": " k " appears twice"); next }
	pseen[d, r, k] = 1
	if (k in pwant) prn[d, r, pwant[k]] = v + 0
	else prm[d, r, pwmean[k]] = v + 0
	next
}
{
	eq = index($0, "=")
	if (!eq) next
	k = substr($0, 1, eq - 1)
	if (!(k in want) && !(k in wmean)) next
	v = substr($0, eq + 1)
	if (v !~ /^[0-9]+$/) { err(FILENAME ": " k "='" v "' is not a count of ns or calls"); next }
	if (!bounded(v)) { err(FILENAME ": " k "=" v " " BOUNDED); next }
	if ((d, r, k) in seen) { err(FILENAME ": " k " appears twice"); next }
	seen[d, r, k] = 1
	if (k in want) rn[d, r, want[k]] = v + 0
	else rm[d, r, wmean[k]] = v + 0
}
END {
	if (failed) exit 2
	phases = pruns[0] > 0
	for (e = 0; e < nd; e++) {
		if (!runs[e]) { err(ddir[e] ": no storm result to decompose"); exit 2 }
		if (phases && pruns[e] != runs[e]) {
			err(ddir[e] ": " runs[e] " storm results but " pruns[e] " idle_reentry results")
			exit 2
		}
	}
	for (e = 0; e < nd; e++)
		for (r = 1; r <= runs[e]; r++) {
			rN[e, r] = 0
			for (p = 1; p <= NP; p++) {
				k = "total.lat_" PATH[p] "_n"
				if (!((e, r, k) in seen)) {
					err(file[e, r] ": no " k " (per-path figures need ipistorm/2 or later with witness=1 timing=1)")
					exit 2
				}
				if (rn[e, r, p] > 0 && !((e, r, "total.lat_" PATH[p] "_mean_ns") in seen)) {
					err(file[e, r] ": no total.lat_" PATH[p] "_mean_ns beside its calls")
					exit 2
				}
				rN[e, r] += rn[e, r, p]
			}
			if (!rN[e, r]) { err(file[e, r] ": no call timed in any path"); exit 2 }
		}
	# the directories' aggregates
	for (e = 0; e < nd; e++) {
		N[e] = 0
		for (p = 1; p <= NP; p++) {
			n[e, p] = sw[e, p] = 0
			for (r = 1; r <= runs[e]; r++) {
				n[e, p] += rn[e, r, p]
				sw[e, p] += rn[e, r, p] * rm[e, r, p]
			}
			N[e] += n[e, p]
		}
		M[e] = 0
		for (p = 1; p <= NP; p++) {
			s[e, p] = n[e, p] / N[e]
			m[e, p] = n[e, p] ? sw[e, p] / n[e, p] : ""
			if (n[e, p]) M[e] += s[e, p] * m[e, p]
		}
	}
	# the phases: defined for a directory where every run has them
	for (e = 0; e < nd; e++)
		for (q = 1; q <= NQ; q++) {
			pn[e, q] = psw[e, q] = 0; have = 0
			for (r = 1; r <= pruns[e]; r++) {
				k = "total." PHASE[q] "_n"
				if (!((e, r, k) in pseen)) continue
				have++
				if (prn[e, r, q] > 0 && !((e, r, "total." PHASE[q] "_mean_ns") in pseen)) {
					err(pfile[e, r] ": no total." PHASE[q] "_mean_ns beside its re-entries")
					exit 2
				}
				pn[e, q] += prn[e, r, q]
				psw[e, q] += prn[e, r, q] * prm[e, r, q]
			}
			if (have < pruns[e] || !pruns[e]) pn[e, q] = ""
			pm[e, q] = pn[e, q] != "" && pn[e, q] > 0 ? psw[e, q] / pn[e, q] : ""
		}
	for (e = 1; e < nd; e++) {
		shift[e] = cost[e] = 0
		for (p = 1; p <= NP; p++) {
			a = m[0, p]; b = m[e, p]
			if (a == "" && b == "") { ds[e, p] = dc[e, p] = 0; continue }
			if (a == "") a = b
			if (b == "") b = a
			ds[e, p] = (s[e, p] - s[0, p]) * (a + b) / 2
			dc[e, p] = (s[0, p] + s[e, p]) / 2 * (b - a)
			shift[e] += ds[e, p]; cost[e] += dc[e, p]
		}
	}
	if (fmt == "csv") csv()
	else if (fmt == "json") json()
	else text()
	exit 0
}

# pchange(e, q): the change of phase q's mean, "" when undefined.
function pchange(e, q) { return pm[e, q] != "" && pm[0, q] != "" ? pm[e, q] - pm[0, q] : "" }
function ppct(e, q,    c) {
	c = pchange(e, q)
	return c != "" && pm[0, q] ? 100 * c / pm[0, q] : ""
}

function text(    e, p, q, P) {
	printf "Shift-share decomposition of the mean latency per call (ns), against %s (%s)\n", dlabel[0], ddir[0]
	if (phases)
		printf "from the storms beside idle_reentry, its re-entry phases next to it\n"
	printf "%s: %d runs, %d calls, mean %.1f ns per call\n", dlabel[0], runs[0], N[0], M[0]
	for (p = 1; p <= NP; p++)
		printf "  %-7s share %6.2f %%  mean %s ns\n", PATH[p], 100 * s[0, p], na(m[0, p], "%.1f")
	if (phases) {
		printf "  idle_reentry: %s re-entries, mean per re-entry", na(pn[0, NQ], "%d")
		for (q = 1; q <= NQ; q++) printf "%s %s %s ns", (q > 1 ? "," : ""), PHASE[q], na(pm[0, q], "%.1f")
		printf "\n"
	}
	for (e = 1; e < nd; e++) {
		printf "\n%s (%s): %d runs, %d calls, mean %.1f ns per call\n", dlabel[e], ddir[e], runs[e], N[e], M[e]
		printf "  change %+.1f ns = shift %+.1f ns + cost %+.1f ns\n", M[e] - M[0], shift[e], cost[e]
		printf "  %-7s %-21s %-12s %-19s %-11s %-10s\n", "path", "share (MWU-p)", "shift ns", "mean ns (MWU-p)", "cost ns", "% of change: shift / cost"
		for (p = 1; p <= NP; p++) {
			pvals(e, p)
			printf "  %-7s %6.2f %% (%-9s) %+-12.1f %-8s (%-8s) %+-11.1f %s\n", PATH[p], 100 * s[e, p], na(SP, "%.4g"),
				ds[e, p], na(m[e, p], "%.1f"), na(MP, "%.4g"), dc[e, p],
				M[e] != M[0] ? sprintf("%+.1f %% / %+.1f %%", 100 * ds[e, p] / (M[e] - M[0]), 100 * dc[e, p] / (M[e] - M[0])) : "n/a"
		}
		if (!phases) continue
		printf "  idle_reentry beside the storm: %s re-entries, mean ns per re-entry\n", na(pn[e, NQ], "%d")
		printf "  %-7s %-12s %-12s %-12s %-9s %s\n", "phase", "base mean", "mean", "change", "change %", "MWU-p"
		for (q = 1; q <= NQ; q++) {
			P = ppval(e, q)
			printf "  %-7s %-12s %-12s %-12s %-9s %s\n", PHASE[q], na(pm[0, q], "%.1f"), na(pm[e, q], "%.1f"),
				na(pchange(e, q), "%+.1f"), na(ppct(e, q), "%+.2f"), na(P, "%.4g")
		}
	}
	printf "\nshift = sum over paths of (share change) x (mean of both path means); cost = sum of\n"
	printf "(mean of both shares) x (path mean change): the two add up to the change exactly.\n"
	printf "MWU-p: Mann-Whitney U of the per-run shares and path means against %s (n/a below 2 runs a side).\n", dlabel[0]
	if (phases) {
		printf "Phases: idle_reentry's tick, flush and sched add up to total per re-entry (their means to\n"
		printf "within rounding); MWU-p of the per-run phase means against %s.\n", dlabel[0]
	}
}

function csv(    e, p, q) {
	print "format,record,label,dir,path,runs,calls,share,mean_ns,base_share,base_mean_ns,change_ns,shift_ns,cost_ns,share_mwu_p,mean_mwu_p,phase,base_calls,change_pct"
	for (e = 1; e < nd; e++) {
		printf "%s,total,%s,%s,,%d,%d,,%s,,%s,%s,%s,%s,,,,%d,\n", FORMAT, csvq(dlabel[e]), csvq(ddir[e]),
			runs[e], N[e], num(M[e]), num(M[0]), num(M[e] - M[0]), num(shift[e]), num(cost[e]), N[0]
		for (p = 1; p <= NP; p++) {
			pvals(e, p)
			printf "%s,path,%s,%s,%s,%d,%d,%s,%s,%s,%s,,%s,%s,%s,%s,,%d,\n", FORMAT, csvq(dlabel[e]), csvq(ddir[e]),
				PATH[p], runs[e], n[e, p], num(s[e, p]), num(m[e, p]), num(s[0, p]), num(m[0, p]),
				num(ds[e, p]), num(dc[e, p]), pnum(SP), pnum(MP), n[0, p]
		}
		if (!phases) continue
		for (q = 1; q <= NQ; q++)
			printf "%s,phase,%s,%s,,%d,%s,,%s,,%s,%s,,,,%s,%s,%s,%s\n", FORMAT, csvq(dlabel[e]), csvq(ddir[e]),
				pruns[e], pn[e, q], num(pm[e, q]), num(pm[0, q]), num(pchange(e, q)), pnum(ppval(e, q)),
				PHASE[q], pn[0, q], num(ppct(e, q))
	}
}

function jphases(e,    q, o) {
	o = ""
	if (!phases) return "[]"
	for (q = 1; q <= NQ; q++) {
		o = o sprintf("%s{\"phase\": \"%s\", \"runs\": %d, \"reentries\": %s, \"mean_ns\": %s", (q > 1 ? ", " : ""),
			PHASE[q], pruns[e], jnum(pn[e, q]), jnum(num(pm[e, q])))
		if (e > 0)
			o = o sprintf(", \"base_mean_ns\": %s, \"change_ns\": %s, \"change_pct\": %s, \"mwu_p\": %s",
				jnum(num(pm[0, q])), jnum(num(pchange(e, q))), jnum(num(ppct(e, q))), jnum(pnum(ppval(e, q))))
		o = o "}"
	}
	return "[" o "]"
}

function json(    e, p) {
	printf "{\"format\": \"%s\", \"bench\": %s, \"alpha\": %s, \"baseline\": {\"label\": %s, \"dir\": %s, \"runs\": %d, \"calls\": %d, \"mean_ns\": %s, \"paths\": [",
		FORMAT, js(bench), alpha, js(dlabel[0]), js(ddir[0]), runs[0], N[0], num(M[0])
	for (p = 1; p <= NP; p++)
		printf "%s{\"path\": \"%s\", \"calls\": %d, \"share\": %s, \"mean_ns\": %s}", (p > 1 ? ", " : ""),
			PATH[p], n[0, p], num(s[0, p]), jnum(num(m[0, p]))
	printf "], \"phases\": %s}, \"comparisons\": [", jphases(0)
	for (e = 1; e < nd; e++) {
		printf "%s{\"label\": %s, \"dir\": %s, \"runs\": %d, \"calls\": %d, \"mean_ns\": %s, \"change_ns\": %s, \"shift_ns\": %s, \"cost_ns\": %s, \"paths\": [",
			(e > 1 ? ", " : ""), js(dlabel[e]), js(ddir[e]), runs[e], N[e], num(M[e]), num(M[e] - M[0]),
			num(shift[e]), num(cost[e])
		for (p = 1; p <= NP; p++) {
			pvals(e, p)
			printf "%s{\"path\": \"%s\", \"calls\": %d, \"share\": %s, \"mean_ns\": %s, \"shift_ns\": %s, \"cost_ns\": %s, \"share_mwu_p\": %s, \"mean_mwu_p\": %s}",
				(p > 1 ? ", " : ""), PATH[p], n[e, p], num(s[e, p]), jnum(num(m[e, p])), num(ds[e, p]), num(dc[e, p]),
				jnum(pnum(SP)), jnum(pnum(MP))
		}
		printf "], \"phases\": %s}", jphases(e)
	}
	print "]}"
}
