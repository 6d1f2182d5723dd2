# compare-idle.awk: compare.sh's section of the idle states and frequency
# of the measured CPUs (run.sh's idle-iter-NNN.txt, format
# ipistorm-idle/1), loaded after compare.awk, whose arguments give each
# directory's idle files after src=idle (its results after src=), and
# which passes their lines to idle_line(). POSIX awk, as compare.awk.
#
# Per iteration, each cpuidle state's share of the CPU's idle time (its
# time delta over the sum of all its states'), and the effective
# frequency (aperf_mperf_khz, else cur_freq_khz); per CPU when the idle
# files hold 8 CPUs or fewer, else the measured CPUs together (their times
# summed, their frequencies averaged). Per directory the mean, sample SD,
# min, median and max over its iterations; two marks, pointers rather than
# tests:
#   differs  the mean is IDLE_DIFF points (frequency: FREQ_DIFF percent of
#            the baseline's) or more from the baseline's
#   split    sorted, the iterations have a gap of IDLE_SPLIT points
#            (frequency: FREQ_SPLIT percent of the directory's mean) or
#            more: two groups, a bimodal spread or an outlier
# Functions for compare.awk: idle_line() (each line of an idle file),
# idle_stats() (in its END, before the output), idle_text(), idle_csv(),
# idle_json().

BEGIN {
	IDLE_DIFF = 5; IDLE_SPLIT = 20; FREQ_DIFF = 5; FREQ_SPLIT = 10
	IDLE_CPUS = 8
}

function idle_line(    it, eq, k, v, ip, c, s) {
	if (FNR == 1) {
		ni[d]++
		if ($0 != "format=ipistorm-idle/1") err(FILENAME ": format is '" $0 "', want format=ipistorm-idle/1")
	}
	it = ni[d]
	eq = index($0, "=")
	if (!eq) return
	k = substr($0, 1, eq - 1); v = substr($0, eq + 1)
	if (k ~ /^cpu[0-9]+\.state[0-9]+\.(name|time)$/) {
		split(k, ip, ".")
		c = substr(ip[1], 4) + 0; s = substr(ip[2], 6) + 0
		if (ip[3] == "name") inm[d, it, c, s] = v
		else if (v ~ /^[0-9]+$/) {
			if (!bounded(v)) { err(FILENAME ": " k "=" v " " BOUNDED); return }
			itm[d, it, c, s] = v + 0
		}
		if (s + 1 > ins[d, it, c]) ins[d, it, c] = s + 1
		icpu[c] = 1
	} else if (k ~ /^cpu[0-9]+\.(aperf_mperf_khz|cur_freq_khz)$/ && v ~ /^[0-9]+(\.[0-9]+)?$/) {
		split(k, ip, ".")
		c = substr(ip[1], 4) + 0
		if (!bounded(v)) { err(FILENAME ": " k "=" v " " BOUNDED); return }
		ifq[d, it, c, ip[2]] = v + 0
		icpu[c] = 1
	}
}

# iadd(name, sortkey, cpu, state, kind, d, it, x): x is the value of the
# series name in directory d's iteration it.
function iadd(name, sortkey, cpu, state, kind, d, it, x,    i, j) {
	if (!(name in iser)) {
		iser[name] = ++nis
		isort[nis] = sortkey; iname[nis] = name
		icpuname[nis] = cpu; istate[nis] = state; ikind[nis] = kind
		# keep the series sorted by their keys
		for (i = nis; i > 1 && isort[i - 1] > sortkey; i--) {
			isort[i] = isort[i - 1]; iname[i] = iname[i - 1]; icpuname[i] = icpuname[i - 1]
			istate[i] = istate[i - 1]; ikind[i] = ikind[i - 1]; iser[iname[i]] = i
		}
		isort[i] = sortkey; iname[i] = name; icpuname[i] = cpu; istate[i] = state; ikind[i] = kind; iser[name] = i
	}
	ival[name, d, ++icnt[name, d]] = x; ivit[name, d, icnt[name, d]] = it
	if (x != 0) inonzero[name] = 1
}

function idle_stats(    c, ncpu, cl, g, ng, d, it, j, s, tot, t, t0, sn, nm, nstate, sidx, kk, kind, f, nf, name, i, n, sm, ss, dm, gap, lo, ml, mh) {
	ncpu = 0
	for (c in icpu) cl[++ncpu] = c + 0
	if (!ncpu) return
	# the CPUs in ascending order
	for (i = 2; i <= ncpu; i++)
		for (j = i; j > 1 && cl[j - 1] > cl[j]; j--) { c = cl[j]; cl[j] = cl[j - 1]; cl[j - 1] = c }
	if (ncpu <= IDLE_CPUS) {
		ng = ncpu
		for (g = 1; g <= ng; g++) { gname[g] = "cpu" cl[g]; gfirst[g] = gl[g] = g }
	} else {
		ng = 1; gname[1] = "all"; gfirst[1] = 1; gl[1] = ncpu
	}
	split("aperf_mperf_khz cur_freq_khz", kinds, " ")
	for (d = 0; d < nd; d++)
		for (it = 1; it <= ni[d]; it++)
			for (g = 1; g <= ng; g++) {
				# the time of each state, by name, over the CPUs of g
				split("", t); split("", sidx); nstate = 0; tot = 0
				for (j = gfirst[g]; j <= gl[g]; j++) {
					c = cl[j]
					for (s = 0; s < ins[d, it, c]; s++) {
						if (!((d, it, c, s) in inm)) continue
						nm = inm[d, it, c, s]
						if (!(nm in sidx)) { sidx[nm] = s; sn[++nstate] = nm; t[nm] = 0 }
						if ((d, it, c, s) in itm) { t[nm] += itm[d, it, c, s]; tot += itm[d, it, c, s] }
					}
				}
				# an iteration without idle time has no shares
				if (tot > 0)
					for (j = 1; j <= nstate; j++) {
						nm = sn[j]
						iadd(gname[g] "." nm ".residency_pct", sprintf("%04d 0 %04d %s", g, sidx[nm], nm), gname[g], nm, "residency_pct", d, it, 100 * t[nm] / tot)
					}
				for (kk = 1; kk <= 2; kk++) {
					kind = kinds[kk]; f = nf = 0
					for (j = gfirst[g]; j <= gl[g]; j++)
						if ((d, it, cl[j], kind) in ifq) { f += ifq[d, it, cl[j], kind]; nf++ }
					if (nf) iadd(gname[g] "." kind, sprintf("%04d 1 %04d %s", g, kk, kind), gname[g], "", kind, d, it, f / nf)
				}
			}
	# a state never entered, in any iteration, is left out
	j = 0
	for (i = 1; i <= nis; i++) {
		if (ikind[i] == "residency_pct" && !(iname[i] in inonzero)) continue
		j++
		isort[j] = isort[i]; iname[j] = iname[i]; icpuname[j] = icpuname[i]; istate[j] = istate[i]; ikind[j] = ikind[i]
	}
	nis = j
	for (i = 1; i <= nis; i++) {
		name = iname[i]
		for (d = 0; d < nd; d++) {
			n = icnt[name, d] + 0; imean[name, d] = isd[name, d] = imed[name, d] = imin[name, d] = imax[name, d] = ""
			idiff[name, d] = isplit[name, d] = 0
			if (!n) continue
			sm = 0
			for (j = 1; j <= n; j++) {
				SV[j] = ival[name, d, j]; sm += SV[j]
			}
			# sorted (insertion sort: a number of iterations)
			for (j = 2; j <= n; j++)
				for (s = j; s > 1 && SV[s - 1] > SV[s]; s--) { t0 = SV[s]; SV[s] = SV[s - 1]; SV[s - 1] = t0 }
			imean[name, d] = sm / n
			ss = 0
			for (j = 1; j <= n; j++) ss += sq(SV[j] - imean[name, d])
			isd[name, d] = n > 1 ? msqrt(ss / (n - 1)) : ""
			imin[name, d] = SV[1]; imax[name, d] = SV[n]
			imed[name, d] = n % 2 ? SV[(n + 1) / 2] : (SV[n / 2] + SV[n / 2 + 1]) / 2
			# the widest gap between two iterations
			gap = 0; lo = 0
			for (j = 1; j < n; j++) if (SV[j + 1] - SV[j] > gap) { gap = SV[j + 1] - SV[j]; lo = j }
			dm = ikind[i] == "residency_pct" ? IDLE_SPLIT : FREQ_SPLIT / 100 * imean[name, d]
			if (n >= 2 && gap > 0 && gap >= dm) {
				isplit[name, d] = 1
				isplo_n[name, d] = lo; isplo[name, d] = SV[lo]
				isphi_n[name, d] = n - lo; isphi[name, d] = SV[lo + 1]
				# the primary metric's mean in each group, where each
				# result has its idle file (iteration it is result it)
				isplo_m[name, d] = isphi_m[name, d] = ""
				if (pm && ni[d] == nfiles[d] && cnt[d, pm] == nfiles[d]) {
					ml = mh = 0
					for (j = 1; j <= n; j++)
						if (ival[name, d, j] <= SV[lo]) ml += val[d, pm, ivit[name, d, j]]
						else mh += val[d, pm, ivit[name, d, j]]
					isplo_m[name, d] = ml / lo; isphi_m[name, d] = mh / (n - lo)
				}
			}
		}
		for (d = 1; d < nd; d++) {
			if (imean[name, d] == "" || imean[name, 0] == "") continue
			iabs[name, d] = imean[name, d] - imean[name, 0]
			dm = ikind[i] == "residency_pct" ? IDLE_DIFF : FREQ_DIFF / 100 * imean[name, 0]
			idiff[name, d] = abs(iabs[name, d]) >= dm && iabs[name, d] != 0
		}
	}
}

# ilabel(i): the row of series i: "cpu1 C6 % idle", "cpu1 kHz APERF/MPERF".
function ilabel(i) {
	if (ikind[i] == "residency_pct") return icpuname[i] " " istate[i] " % idle"
	return icpuname[i] " kHz " (ikind[i] == "aperf_mperf_khz" ? "APERF/MPERF" : "scaling_cur_freq")
}
# ival1(i, x): x in series i's unit.
function ival1(i, x) { return sprintf(ikind[i] == "residency_pct" ? "%.2f" : "%.0f", x) }
function icell(i, d,    name, c) {
	name = iname[i]
	if (imean[name, d] == "") return "n/a"
	c = ival1(i, imean[name, d])
	if (isd[name, d] != "") c = c " +- " ival1(i, isd[name, d])
	if (idiff[name, d]) c = c " differs"
	if (isplit[name, d]) c = c " split"
	return c
}
function iunit(i) { return ikind[i] == "residency_pct" ? " %" : " kHz" }

function idle_text(    i, d, w, lw, name, any) {
	if (!nis) return
	lw = length("Iterations")
	for (i = 1; i <= nis; i++) if (length(ilabel(i)) > lw) lw = length(ilabel(i))
	w = 8
	for (d = 0; d < nd; d++) if (length(dlabel[d]) > w) w = length(dlabel[d])
	for (i = 1; i <= nis; i++)
		for (d = 0; d < nd; d++) if (length(icell(i, d)) > w) w = length(icell(i, d))
	printf "\nIdle states and frequency of the measured CPUs (idle-*.txt), mean +- SD over the iterations\n"
	printf "%-" lw "s", ""
	for (d = 0; d < nd; d++) printf "  %" w "s", dlabel[d]
	printf "\n%-" lw "s", "Iterations"
	for (d = 0; d < nd; d++) printf "  %" w "d", ni[d]
	printf "\n"
	for (i = 1; i <= nis; i++) {
		printf "%-" lw "s", ilabel(i)
		for (d = 0; d < nd; d++) printf "  %" w "s", icell(i, d)
		printf "\n"
	}
	for (i = 1; i <= nis; i++) {
		name = iname[i]
		for (d = 0; d < nd; d++) {
			if (isplit[name, d])
				printf "  split: %s %s: %d iteration%s at or below %s%s%s, %d at or above %s%s%s\n", dlabel[d], ilabel(i), \
					isplo_n[name, d], (isplo_n[name, d] > 1 ? "s" : ""), ival1(i, isplo[name, d]), iunit(i), \
					isplo_m[name, d] == "" ? "" : sprintf(" (%s mean %.2f)", mname[pm], isplo_m[name, d]), \
					isphi_n[name, d], ival1(i, isphi[name, d]), iunit(i), \
					isphi_m[name, d] == "" ? "" : sprintf(" (%s mean %.2f)", mname[pm], isphi_m[name, d])
			if (idiff[name, d])
				printf "  differs: %s %s: %s%s against %s%s on %s\n", dlabel[d], ilabel(i), ival1(i, imean[name, d]), iunit(i), \
					ival1(i, imean[name, 0]), iunit(i), dlabel[0]
		}
	}
	printf "%% idle: the state's share of the CPU's idle time (cpuidle's time; states never entered left out); kHz: the effective\n"
	printf "frequency while not halted (APERF/MPERF), else scaling_cur_freq at the end. differs: %d points (frequency: %d%%) or more\n", \
		IDLE_DIFF, FREQ_DIFF
	printf "from %s; split: a gap of %d points (frequency: %d%% of the mean) or more between two iterations, a bimodal spread\n", \
		dlabel[0], IDLE_SPLIT, FREQ_SPLIT
	printf "or an outlier, with %s's mean in each group. Pointers, not tests.\n", pm ? mname[pm] : "the primary metric"
}

# icsv(): the idle records of the CSV: name, label, dir, n, mean, stddev,
# min, max, abs_change (against the baseline), baseline_value (its mean),
# value (the marks: differs, split), median.
function idle_csv(    i, d, name, f, j, o) {
	for (i = 1; i <= nis; i++) {
		name = iname[i]
		for (d = 0; d < nd; d++) {
			split("", f)
			for (j = 1; j <= 36; j++) f[j] = ""
			f[1] = CMPFMT; f[2] = "idle"; f[3] = q(name); f[5] = q(dlabel[d]); f[6] = q(ddir[d])
			f[7] = icnt[name, d] + 0
			if (imean[name, d] != "") {
				f[8] = sprintf("%.4f", imean[name, d]); f[9] = e(isd[name, d], "%.4f")
				f[11] = sprintf("%.4f", imin[name, d]); f[12] = sprintf("%.4f", imax[name, d])
				f[26] = sprintf("%.4f", imed[name, d])
				if (d && imean[name, 0] != "") {
					f[17] = sprintf("%.4f", iabs[name, d]); f[24] = sprintf("%.4f", imean[name, 0])
				}
				f[25] = (idiff[name, d] ? "differs" : "") (idiff[name, d] && isplit[name, d] ? " " : "") (isplit[name, d] ? "split" : "")
			}
			o = f[1]
			for (j = 2; j <= 36; j++) o = o "," f[j]
			print o
		}
	}
}

function idle_json(    i, d, name) {
	printf ",\n  \"idle\": ["
	for (i = 1; i <= nis; i++) {
		name = iname[i]
		printf "%s\n    {\"name\": %s, \"cpu\": %s, \"state\": %s, \"kind\": %s, \"values\": [", (i > 1 ? "," : ""), js(name), \
			js(icpuname[i]), istate[i] == "" ? "null" : js(istate[i]), js(ikind[i])
		for (d = 0; d < nd; d++)
			printf "%s\n      {\"label\": %s, \"dir\": %s, \"n\": %d, \"mean\": %s, \"stddev\": %s, \"min\": %s, \"max\": %s, \"median\": %s, \"abs_change\": %s, \"differs\": %s, \"split\": %s}", \
				d ? "," : "", js(dlabel[d]), js(ddir[d]), icnt[name, d], jn(imean[name, d], "%.4f"), jn(isd[name, d], "%.4f"), \
				jn(imin[name, d], "%.4f"), jn(imax[name, d], "%.4f"), jn(imed[name, d], "%.4f"), d ? jn(iabs[name, d], "%.4f") : "null", \
				idiff[name, d] ? "true" : "false", isplit[name, d] ? "true" : "false"
		printf "\n    ]}"
	}
	printf "%s]", nis ? "\n  " : ""
}
