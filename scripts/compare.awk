# compare.awk: the statistics and output of compare.sh (which see).
# Input: iteration files, each group preceded by the assignment d=INDEX;
# compare.sh passes every file name as a path (absolute or ./-prefixed), so
# a directory named k=6.12 is never taken for an assignment. Variables:
# metrics ("key:lower|higher|none ..."), primary, title (its name in the
# normalized table), fmt, alpha, thresh, rule (welch or mmtests), strict,
# sdfactor (the SD ratio of a variance regression), meansonly (1: the
# spread is shown, never a verdict), instrument (the declared keys of the
# instrument's own load: a note where their means differ by more than
# their last printed digit). With scripts/compare-idle.awk loaded after
# it, the idle files after src=idle: its section.
# From the environment, where no escape is interpreted: CMP_LABELS and
# CMP_DIRS (one per line, in the order of d), CMP_BENCH, CMP_PARAMS,
# CMP_DIFFS (a file of "d<TAB>key<TAB>baseline value<TAB>value" lines, the
# differences of meta.txt's machine state that change IPI cost) and
# CMP_KDIFFS (the same of the kernels' identity: shown, never a reason to
# refuse). Exit 2 on bad input (error on stderr, nothing on stdout), 3 on
# fewer than 2 runs or, with strict, on any difference of the machine
# state; 1 on a significant regression, else 0.

function err(msg) {
	if (!failed) print "compare.sh: " msg >"/dev/stderr"
	failed = 1
}

# Numerical Recipes: ln Gamma(x) (Lanczos), the continued fraction of the
# incomplete beta function (modified Lentz) and the regularized I_x(a, b).
function gammln(xx,    x, y, tmp, ser, j) {
	y = x = xx
	tmp = x + 5.5
	tmp -= (x + 0.5) * mlog(tmp)
	ser = 1.000000000190015
	for (j = 1; j <= 6; j++) ser += COF[j] / ++y
	return -tmp + mlog(2.5066282746310005 * ser / x)
}
function betacf(a, b, x,    m, m2, aa, c, d, del, h, qab, qam, qap) {
	qab = a + b; qap = a + 1; qam = a - 1
	c = 1; d = 1 - qab * x / qap
	if (abs(d) < 1e-300) d = 1e-300
	d = 1 / d; h = d
	for (m = 1; m <= 300; m++) {
		m2 = 2 * m
		aa = m * (b - m) * x / ((qam + m2) * (a + m2))
		d = 1 + aa * d; if (abs(d) < 1e-300) d = 1e-300
		c = 1 + aa / c; if (abs(c) < 1e-300) c = 1e-300
		d = 1 / d; h *= d * c
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
		d = 1 + aa * d; if (abs(d) < 1e-300) d = 1e-300
		c = 1 + aa / c; if (abs(c) < 1e-300) c = 1e-300
		d = 1 / d; del = d * c; h *= del
		if (abs(del - 1) < 3e-16) break
	}
	return h
}
function betai(a, b, x,    bt) {
	if (x <= 0) return 0
	if (x >= 1) return 1
	bt = mexp(gammln(a + b) - gammln(a) - gammln(b) + a * mlog(x) + b * mlog(1 - x))
	if (x < (a + 1) / (a + b + 2)) return bt * betacf(a, b, x) / a
	return 1 - bt * betacf(b, a, 1 - x) / b
}
# welch(): sets T, DF and the two-sided P; P = -1 when there is no test
# (fewer than 2 runs on a side). Neither side varying is decided, not
# skipped: equal means are no difference (P = 1), different means are as
# certain as data can be (P = 0, T and DF infinite, left empty).
function welch(m1, v1, n1, m2, v2, n2,    se2) {
	T = DF = ""; P = -1
	if (n1 < 2 || n2 < 2) return
	se2 = v1 / n1 + v2 / n2
	if (se2 <= 0) {
		P = m1 == m2 ? 1 : 0
		if (m1 == m2) T = 0
		return
	}
	T = (m2 - m1) / msqrt(se2)
	DF = se2 * se2 / (sq(v1 / n1) / (n1 - 1) + sq(v2 / n2) / (n2 - 1))
	P = betai(DF / 2, 0.5, DF / (DF + T * T))
}

# qnorm(p): the standard normal quantile, P. J. Acklam's rational
# approximation (relative error below 1.15e-9, ample for an interval).
function qnorm(p,    q, r, x) {
	if (p < 0.02425) {
		q = msqrt(-2 * mlog(p))
		x = (((((-7.784894002430293e-03 * q - 3.223964580411365e-01) * q - 2.400758277161838e+00) * q - 2.549732539343734e+00) * q + 4.374664141464968e+00) * q + 2.938163982698783e+00) / \
		    ((((7.784695709041462e-03 * q + 3.224671290700398e-01) * q + 2.445134137142996e+00) * q + 3.754408661907416e+00) * q + 1)
	} else if (p <= 1 - 0.02425) {
		q = p - 0.5; r = q * q
		x = (((((-3.969683028665376e+01 * r + 2.209460984245205e+02) * r - 2.759285104469687e+02) * r + 1.383577518672690e+02) * r - 3.066479806614716e+01) * r + 2.506628277459239e+00) * q / \
		    (((((-5.447609879822406e+01 * r + 1.615858368580409e+02) * r - 1.556989798598866e+02) * r + 6.680131188771972e+01) * r - 1.328068155288572e+01) * r + 1)
	} else
		return -qnorm(1 - p)
	return x
}

# mmtests' rule, as compare-kernels marks a difference with SIG: each mean
# gets the interval mean +- qnorm(1 - alpha/2) * stddev (the sample stddev,
# not the standard error: _calc_meanci() in bin/lib/MMTests/Stat.pm), and
# cidiff() in the same file divides the difference of the means by the sum
# of the two half-widths; _generateComparisonTable() in
# bin/lib/MMTests/Compare.pm calls it significant when |ratio| > 1, that is
# when the intervals do not overlap. With no variance on either side
# cidiff() returns the raw difference, so then a difference above 1 (in
# the metric's unit) is significant. A side with one run has no stddev
# (NaN), hence no interval, and nothing is significant. The sign is
# mmtests': Compare.pm calls cidiff(baseline, ..., new, ...), which
# subtracts its third argument from its first: the ratio is
# (base - new) / (z sd_base + z sd_new), positive when the new mean is
# lower. The means and stddevs are mmtests' (for a higher-is-better
# metric the harmonic ones: "" when undefined).
function cirat(m1, s1, n1, m2, s2, n2,    cisum) {
	if (n1 < 2 || n2 < 2 || m1 == "" || m2 == "" || s1 == "" || s2 == "") return ""
	cisum = Z * s1 + Z * s2
	return cisum == 0 ? m1 - m2 : (m1 - m2) / cisum
}

# sortv(d, m, n): SV[1..n] = the n values of d and m in ascending order
# (insertion sort: n is a number of runs).
function sortv(d, m, n,    i, j, x) {
	for (i = 1; i <= n; i++) {
		x = val[d, m, i]
		for (j = i - 1; j >= 1 && SV[j] > x; j--) SV[j + 1] = SV[j]
		SV[j + 1] = x
	}
}
# medci(n): MED, the median of SV[1..n], and its distribution-free
# confidence interval of level >= 1 - alpha from order statistics:
# [SV[k], SV[n + 1 - k]] for the largest k with P(B <= k - 1) <= alpha / 2,
# B ~ Binomial(n, 1/2). CLO = CHI = "" when no k >= 1 exists (n < 6 at
# alpha 0.05); CCOV is the interval's exact coverage, 1 - 2 P(B <= k - 1).
function medci(n,    i, k, lt, cdf) {
	MED = n % 2 ? SV[(n + 1) / 2] : (SV[n / 2] + SV[n / 2 + 1]) / 2
	k = 0; cdf = 0; lt = -n * mlog(2)
	for (i = 0; i < n; i++) {
		cdf += mexp(lt)
		if (cdf > alpha / 2 * (1 + 1e-12)) break
		k = i + 1; CCOV = 1 - 2 * cdf
		lt += mlog((n - i) / (i + 1))
	}
	if (k < 1) { CLO = CHI = CCOV = ""; return }
	CLO = SV[k]; CHI = SV[n + 1 - k]
}

# mwuv(m, d): stats.awk's mwu of d against the baseline in metric m.
function mwuv(m, d,    i) {
	split("", B); split("", X)
	for (i = 1; i <= cnt[0, m]; i++) B[i] = val[0, m, i]
	for (i = 1; i <= cnt[d, m]; i++) X[i] = val[d, m, i]
	return mwu(cnt[0, m], cnt[d, m])
}

# bf(m, d): the p of the Brown-Forsythe test (Levene's test on the absolute
# deviations from each side's median) of equal spread of d and the
# baseline in m: a one-way ANOVA F(1, N - 2) of the deviations, p by the
# regularized incomplete beta function. Robust to a bimodal or skewed
# side, where an F test of the variances is not. "" with fewer than 3 runs
# on a side (with 2 runs both deviations are equal: the test is
# degenerate). No spread within the deviations: p = 1 when their means
# are equal too, else 0.
function bf(m, d,    k, dd, n, i, zm, zss, zbar, num, den, N, F) {
	if (cnt[0, m] < 3 || cnt[d, m] < 3) return ""
	N = 0; split("", ZA)
	for (k = 0; k <= 1; k++) {
		dd = k ? d : 0; n = cnt[dd, m]; split("", BZ1)
		for (i = 1; i <= n; i++) ZA[N + i] = BZ1[i] = abs(val[dd, m, i] - median[dd, m])
		zm[k] = mv(BZ1, n); zss[k] = MV_SS; N += n
	}
	# the deviations' spread within each side, and their means' around the
	# grand mean (all deviations equal: none)
	zbar = mv(ZA, N); num = 0
	den = zss[0] + zss[1]
	for (k = 0; k <= 1; k++) num += cnt[k ? d : 0, m] * sq(zm[k] - zbar)
	if (den <= 0) return num <= 0 ? 1 : 0
	F = num * (N - 2) / den
	return betai((N - 2) / 2, 0.5, (N - 2) / (N - 2 + F))
}

# mmtests' summary of a higher-is-better metric: HM, the harmonic mean,
# and HSD, its stddev msqrt(sum (1/x - 1/HM)^2 * HM^4 / n) (calc_hmean() and
# calc_stddev() in bin/lib/MMTests/Stat.pm); "" (mmtests' NaN) when a value
# is not positive, HSD also for one run. Runs all equal: that value and 0.
function hmean(d, m,    n, i, sr, ss, eq) {
	n = cnt[d, m]; sr = 0; eq = 1
	for (i = 1; i <= n; i++) {
		if (val[d, m, i] <= 0) { HM = HSD = ""; return }
		sr += 1 / val[d, m, i]
		if (val[d, m, i] != val[d, m, 1]) eq = 0
	}
	# all runs equal: that value, no spread (not the residue of n / sum)
	if (eq) { HM = val[d, m, 1]; HSD = n > 1 ? 0 : ""; return }
	HM = n / sr; ss = 0
	for (i = 1; i <= n; i++) ss += sq(1 / val[d, m, i] - 1 / HM)
	HSD = n > 1 ? msqrt(ss * sq(sq(HM)) / n) : ""
}

# diffs(VAR, dd, dk, db, dv): the lines "d<TAB>key<TAB>baseline<TAB>value"
# of the file named by the environment's VAR as dd[i] ... dv[i]; their count.
function diffs(var, dd, dk, db, dv,    n, line, x) {
	n = 0
	if (ENVIRON[var] != "")
		while ((getline line < ENVIRON[var]) > 0) {
			split(line, x, "\t")
			n++; dd[n] = x[1]; dk[n] = x[2]; db[n] = x[3]; dv[n] = x[4]
		}
	return n
}

BEGIN {
	CMPFMT = "ipistorm-compare/5"	# the format of csv and json (docs/compare.md)
	MWU_EXACT = 40
	split("76.18009172947146 -86.50532032941677 24.01409824083091 -1.231739572450155 0.1208650973866179e-2 -0.5395239384953e-5", COF, " ")
	Z = qnorm(1 - alpha / 2)
	nm = split(metrics, ml, " ")
	for (i = 1; i <= nm; i++) {
		split(ml[i], x, ":")
		mname[i] = x[1]; mdirn[i] = x[2]; wanted[x[1]] = i
	}
	nd = split(ENVIRON["CMP_LABELS"], dl0, "\n")
	split(ENVIRON["CMP_DIRS"], dd0, "\n")
	for (i = 1; i <= nd; i++) { dlabel[i - 1] = dl0[i]; ddir[i - 1] = dd0[i] }
	bench = ENVIRON["CMP_BENCH"]; params = ENVIRON["CMP_PARAMS"]
	ndiff = diffs("CMP_DIFFS", xd, xk, xb, xv)
	nkdiff = diffs("CMP_KDIFFS", kd, kk, kb, kv)
	nf = 0
	ninst = split(instrument, il, " ")
	for (i = 1; i <= ninst; i++) { instk[i] = il[i]; instr[il[i]] = i }
}
src == "idle" { idle_line(); next }
FNR == 1 { nf++; fd[nf] = d; fn[nf] = FILENAME; nfiles[d]++ }
{
	eq = index($0, "=")
	if (!eq) next
	k = substr($0, 1, eq - 1)
	if ((k in instr) && substr($0, eq + 1) ~ /^-?[0-9]+(\.[0-9]+)?$/ && !((nf, "i" k) in seen)) {
		seen[nf, "i" k] = 1
		v = substr($0, eq + 1); j = instr[k]
		if (!bounded(v)) { err(FILENAME ": " k "=" v " " BOUNDED); next }
		instv[d, j, ++instn[d, j]] = v + 0
		if (index(v, ".") && length(v) - index(v, ".") > instdec[j]) instdec[j] = length(v) - index(v, ".")
	}
	if (!(k in wanted)) next
	v = substr($0, eq + 1)
	if (v !~ /^-?[0-9]+(\.[0-9]+)?$/) { err(FILENAME ": " k "='" v "' is not a number"); next }
	if ((nf, k) in seen) { err(FILENAME ": " k " appears twice"); next }
	if (!bounded(v)) { err(FILENAME ": " k "=" v " " BOUNDED); next }
	seen[nf, k] = 1
	m = wanted[k]
	c = ++cnt[d, m]
	val[d, m, c] = v + 0
	present[m]++
}
# na(x, f): x formatted, or "n/a" when it is undefined ("", or not
# finite: never printed, in no format).
function na(x, f) { return x == "" || !finite(x) ? "n/a" : sprintf(f, x) }
# worse(d, m): the compared mean of d is worse than the baseline's in m's direction.
function worse(d, m) {
	if (cmean[d, m] == "" || cmean[0, m] == "") return 0
	return mdirn[m] == "lower" ? cmean[d, m] > cmean[0, m] : mdirn[m] == "higher" ? cmean[d, m] < cmean[0, m] : 0
}
END {
	if (failed) exit 2
	# a metric is in every result or in none; the primary one in every one
	nused = 0
	for (m = 1; m <= nm; m++) {
		if (!present[m] && mname[m] != primary) continue
		for (f = 1; f <= nf; f++)
			if (!((f, mname[m]) in seen)) {
				err(fn[f] ": no " mname[m] " (every result must have it)")
				exit 2
			}
		used[++nused] = m
	}
	# -m mmtests where higher is better: MMTests' harmonic mean is NaN
	# when a run is 0 or less (and it marks nothing then: a share falling
	# to 0 would pass); the arithmetic mean and stddev are compared there,
	# in every directory, and it is said (hmfb[m])
	for (i = 1; i <= nused; i++) {
		m = used[i]
		if (rule != "mmtests" || mdirn[m] != "higher") continue
		o = ""
		for (d = 0; d < nd; d++)
			for (c = 1; c <= cnt[d, m]; c++)
				if (val[d, m, c] <= 0) { o = o (o == "" ? "" : ", ") dlabel[d]; break }
		if (o == "") continue
		hmfb[m] = 1
		printf "compare.sh: note: -m mmtests: %s: a run of 0 or less in %s: no harmonic mean (MMTests shows NaN and marks nothing); the arithmetic mean and stddev are compared instead\n", \
			mname[m], o >"/dev/stderr"
	}
	for (d = 0; d < nd; d++)
		for (i = 1; i <= nused; i++) {
			m = used[i]; n = cnt[d, m]
			mn = mx = val[d, m, 1]
			split("", A)
			for (c = 1; c <= n; c++) {
				A[c] = val[d, m, c]
				if (val[d, m, c] < mn) mn = val[d, m, c]
				if (val[d, m, c] > mx) mx = val[d, m, c]
			}
			mean[d, m] = mv(A, n)
			# one run has no sample variance: n/a, as mmtests' NaN
			var[d, m] = n > 1 ? MV_SS / (n - 1) : 0
			sd[d, m] = n > 1 ? msqrt(var[d, m]) : ""
			cv[d, m] = n > 1 && mean[d, m] != 0 ? sd[d, m] / abs(mean[d, m]) * 100 : ""
			min[d, m] = mn; max[d, m] = mx; N[d, m] = n
			sortv(d, m, n); medci(n)
			median[d, m] = MED; mclo[d, m] = CLO; mchi[d, m] = CHI; mccov[d, m] = CCOV
			# the mean the rule compares: mmtests' harmonic one for a
			# higher-is-better metric
			if (rule == "mmtests" && mdirn[m] == "higher" && !hmfb[m]) {
				hmean(d, m); cmean[d, m] = HM; csd[d, m] = HSD
			} else {
				cmean[d, m] = mean[d, m]; csd[d, m] = sd[d, m]
			}
			b = cmean[0, m]
			# A zero baseline has no ratio: the change is absolute then.
			absch[d, m] = cmean[d, m] == "" || b == "" ? "" : cmean[d, m] - b
			absgain[d, m] = absch[d, m] == "" ? "" : mdirn[m] == "lower" ? -absch[d, m] : absch[d, m]
			if (absgain[d, m] == 0 && absgain[d, m] != "") absgain[d, m] = absch[d, m] = 0	# no "-0.00"
			norm[d, m] = mean[0, m] != 0 ? mean[d, m] / mean[0, m] : ""
			normsd[d, m] = mean[0, m] != 0 && sd[d, m] != "" ? sd[d, m] / abs(mean[0, m]) : ""
			change[d, m] = absch[d, m] == "" ? "" : b != 0 ? absch[d, m] / abs(b) * 100 : cmean[d, m] == 0 ? 0 : ""
			gain[d, m] = change[d, m] == "" ? "" : mdirn[m] == "lower" ? -change[d, m] : change[d, m]
			if (gain[d, m] == 0 && gain[d, m] != "") gain[d, m] = change[d, m] = 0
			mwp[d, m] = vp[d, m] = sdr[d, m] = ""
			if (d) {
				welch(mean[0, m], var[0, m], N[0, m], mean[d, m], var[d, m], n)
				cr[d, m] = cirat(b, csd[0, m], N[0, m], cmean[d, m], csd[d, m], n)
				if (N[0, m] >= 2 && n >= 2) {
					mwp[d, m] = mwuv(m, d); mwuu[d, m] = MWU_U
					vp[d, m] = bf(m, d)
					sdr[d, m] = sd[0, m] > 0 ? sd[d, m] / sd[0, m] : sd[d, m] == 0 ? 1 : ""
				}
			} else {
				P = -1; T = DF = ""; cr[d, m] = ""
			}
			tt[d, m] = T; df[d, m] = DF; p[d, m] = P
			if (rule == "mmtests")
				sig[d, m] = d > 0 && cr[d, m] != "" && abs(cr[d, m]) > 1
			else
				sig[d, m] = d > 0 && P >= 0 && P < alpha
			# worse beyond -t percent; from a zero baseline any worsening
			# is beyond every percentage
			regr[d, m] = sig[d, m] && worse(d, m) && (gain[d, m] == "" || gain[d, m] < -thresh)
			if (regr[d, m]) {
				nreg++
				printf "compare.sh: regression: %s %s: %s worse than %s (%s, threshold %s%%)\n", \
					dlabel[d], mname[m], gain[d, m] == "" ? sprintf("%.2f -> %.2f, from a zero baseline,", b, cmean[d, m]) : sprintf("%.2f%%", -gain[d, m]), \
					dlabel[0], rule == "mmtests" ? sprintf("mmtests CI ratio %.4g", cr[d, m]) : sprintf("p=%.4g", P), thresh >"/dev/stderr"
			}
			# The spread: significant by Brown-Forsythe; a regression when
			# the SD grew by the factor -s (from none: any growth), in a
			# metric with a direction
			vsig[d, m] = d > 0 && vp[d, m] != "" && vp[d, m] < alpha
			vregr[d, m] = vsig[d, m] && mdirn[m] != "none" && (sdr[d, m] == "" || sdr[d, m] >= sdfactor)
			if (vregr[d, m]) {
				nvreg++
				printf "compare.sh: %s: %s %s: run-to-run SD %s than %s (Brown-Forsythe p=%.4g, factor %s)\n", \
					meansonly ? "variance change (means only, no verdict)" : "variance regression", dlabel[d], mname[m], \
					sdr[d, m] == "" ? "from none to " sprintf("%.4g", sd[d, m]) ", higher" : sprintf("%.3gx higher", sdr[d, m]), \
					dlabel[0], vp[d, m], sdfactor >"/dev/stderr"
			}
			if (mname[m] == primary) pm = m
		}
	# A side with one run has no spread: no verdict can be given on it.
	nnc = 0
	for (d = 0; d < nd; d++)
		if (nfiles[d] < 2) {
			ncd[++nnc] = d
			printf "compare.sh: not comparable: %s has %d run (%s): a verdict needs at least 2 runs on each side\n", \
				dlabel[d], nfiles[d], ddir[d] >"/dev/stderr"
		}
	for (i = 1; i <= ndiff; i++)
		printf "compare.sh: %s: %s %s differs from %s: '%s', baseline '%s'\n", strict ? "error" : "warning", \
			dlabel[xd[i]], xk[i], dlabel[0], xv[i], xb[i] >"/dev/stderr"
	instrument_stats()
	for (j = 1; j <= ninst; j++)
		if (instd[j]) printf "compare.sh: %s\n", instnote(j) >"/dev/stderr"
	idle_stats()
	if (fmt == "csv") csv(); else if (fmt == "json") json(); else text()
	if ((strict && ndiff) || nnc) exit 3
	exit nreg || (nvreg && !meansonly) ? 1 : 0
}

# instrument_stats(): per declared key j of the instrument's own load and
# directory d, the mean over the iterations that have it (instm[d, j], ""
# without), and whether it differs from the baseline's by more than one
# unit of the last digit its values are printed with, which rounding alone
# can give (instdf[d, j]; instd[j]: in some directory).
function instrument_stats(    j, d, i, sm, u) {
	for (j = 1; j <= ninst; j++) {
		u = 1
		for (i = 0; i < instdec[j]; i++) u /= 10
		for (d = 0; d < nd; d++) {
			instm[d, j] = ""; instdf[d, j] = 0
			if (!instn[d, j]) continue
			sm = 0
			for (i = 1; i <= instn[d, j]; i++) sm += instv[d, j, i]
			instm[d, j] = sm / instn[d, j]
		}
		for (d = 1; d < nd; d++)
			if (instm[d, j] != "" && instm[0, j] != "" && abs(instm[d, j] - instm[0, j]) > u * (1 + 1e-6))
				instdf[d, j] = instd[j] = 1
	}
}
# instnote(j): the note of key j, its mean in each directory that has it.
function instnote(j,    d, o) {
	for (d = 0; d < nd; d++)
		if (instm[d, j] != "") o = o (o == "" ? "" : ", ") sprintf("%." instdec[j] "f", instm[d, j]) " on " dlabel[d]
	return "note: the instrument differs: " instk[j] " " o " (instrument= of " bench "/bench.conf: a key of its own load; the figures were measured by different instruments)"
}

# gaincell(d, m, x, mark): " (x%)", " *x%*" when mark, absolute from a
# zero baseline: the gain of the mean x over the baseline's.
function gaincell(d, m, x, mark,    g, b) {
	b = x[0, m]
	if (x[d, m] == "" || b == "") return ""
	if (!d) return " (   0.00%)"
	g = x[d, m] - b
	if (mdirn[m] == "lower") g = -g
	g = b != 0 ? sprintf("%7.2f%%", g / abs(b) * 100) : sprintf("%+.2f abs", g)
	sub(/-0\.00%$/, " 0.00%", g); sub(/^ *-0\.00 abs$/, "+0.00 abs", g)
	return mark ? " *" g "*" : " (" g ")"
}
# spread(d, m): "SD x.xx lower/higher (p=...)" words of the variance test.
function spread(d, m) {
	if (sdr[d, m] == "") return sprintf("run-to-run SD from 0 to %.4g", sd[d, m])
	return sprintf("run-to-run SD %.3gx %s", sdr[d, m] >= 1 ? sdr[d, m] : 1 / sdr[d, m], sdr[d, m] >= 1 ? "higher" : "lower")
}
function text(    d, i, m, w, lw, any, hm, words, line) {
	lw = 8
	for (d = 0; d < nd; d++) if (length(dlabel[d]) > lw) lw = length(dlabel[d])
	printf "%s %s\n\n", bench, params
	# the mean's change and the spread's: "*" marks a significant one
	printf "%-" (lw + 2) "s %-25s %s\n", "kernel:", title " [pct imp]", "sd-ratio [var-p]"
	for (d = 0; d < nd; d++) {
		line = sprintf("%-" (lw + 2) "s %8s %-16s %s", dlabel[d], na(norm[d, pm], "%.2f"),
			!d ? "[baseline]" : (gain[d, pm] == "" ? sprintf("[%+.2f abs]", absgain[d, pm]) : sprintf("[%.2f%%]", gain[d, pm])) (sig[d, pm] ? "*" : ""),
			!d ? "" : sprintf("%8s [%s]%s", sdr[d, pm] == "" ? (sd[d, pm] == "" ? "n/a" : "inf") : sprintf("%.2f", sdr[d, pm]), \
				na(vp[d, pm], "%.4f"), vsig[d, pm] ? "*" : ""))
		sub(/ +$/, "", line)
		print line
	}
	w = 25
	for (d = 0; d < nd; d++) if (length(dlabel[d]) > w) w = length(dlabel[d])
	for (i = 1; i <= nused; i++)
		for (d = 0; d < nd; d++)
			if (mclo[d, used[i]] != "" && length(sprintf("%.2f..%.2f", mclo[d, used[i]], mchi[d, used[i]])) > w)
				w = length(sprintf("%.2f..%.2f", mclo[d, used[i]], mchi[d, used[i]]))
	for (i = 1; i <= nused; i++) {
		m = used[i]
		hm = rule == "mmtests" && mdirn[m] == "higher"
		printf "\n%s (%s)\n%-10s", mname[m], mdirn[m] == "none" ? "change shown, no direction" : mdirn[m] " is better", ""
		for (d = 0; d < nd; d++) printf " %" w "s", dlabel[d]
		printf "\n%-10s", "Runs"
		for (d = 0; d < nd; d++) printf " %" w "d", N[d, m]
		printf "\n%-10s", "AMean"
		for (d = 0; d < nd; d++) printf " %" w "s", sprintf("%.2f", mean[d, m]) gaincell(d, m, mean, sig[d, m] && (!hm || hmfb[m]))
		row("Stddev", sd, m, w); row("CoeffVar", cv, m, w)
		if (hm) {
			printf "\n%-10s", "HMean"
			if (hmfb[m]) {
				# MMTests' own figures, n/a (its NaN) where a run is 0 or less
				for (d = 0; d < nd; d++) { hmean(d, m); hmv[d, m] = HM; hsv[d, m] = HSD }
				for (d = 0; d < nd; d++) printf " %" w "s", hmv[d, m] == "" ? "n/a" : sprintf("%.2f", hmv[d, m])
				row("HStddev", hsv, m, w)
			} else {
				for (d = 0; d < nd; d++) printf " %" w "s", cmean[d, m] == "" ? "n/a" : sprintf("%.2f", cmean[d, m]) gaincell(d, m, cmean, sig[d, m])
				row("HStddev", csd, m, w)
			}
		}
		row("Min", min, m, w); row("Median", median, m, w)
		printf "\n%-10s", "Median-CI"
		for (d = 0; d < nd; d++) printf " %" w "s", mclo[d, m] == "" ? "n/a" : sprintf("%.2f..%.2f", mclo[d, m], mchi[d, m])
		row("Max", max, m, w)
		printf "\n%-10s", "Welch-p"
		for (d = 0; d < nd; d++)
			printf " %" w "s", d == 0 ? "-" : p[d, m] < 0 ? "n/a" : sprintf("%.4f", p[d, m])
		if (rule == "mmtests") {
			printf "\n%-10s", "CI-ratio"
			for (d = 0; d < nd; d++) printf " %" w "s", d == 0 ? "-" : na(cr[d, m], "%.4f")
		}
		printf "\n%-10s", "MWU-p"
		for (d = 0; d < nd; d++) printf " %" w "s", d == 0 ? "-" : na(mwp[d, m], "%.4f")
		printf "\n%-10s", "SD-ratio"
		for (d = 0; d < nd; d++) printf " %" w "s", d == 0 ? "-" : na(sdr[d, m], "%.4f")
		printf "\n%-10s", "Var-p"
		for (d = 0; d < nd; d++) printf " %" w "s", d == 0 ? "-" : na(vp[d, m], "%.4f") (vsig[d, m] ? "*" : "")
		printf "\n"
	}
	printf "\n%% is the gain over %s (positive: better; abs: absolute, the baseline mean is 0); *x*: significant, %s, alpha %s\n", \
		dlabel[0], rule == "mmtests" ? "mmtests' rule (mean +- z*stddev intervals apart; the harmonic mean where higher is better, the arithmetic one where a run is 0 or less)" : "Welch's t-test", alpha
	printf "Median-CI: %d%% or more (order statistics); MWU-p: Mann-Whitney U, %s; Var-p: Brown-Forsythe (Levene on medians), *: significant\n", \
		(1 - alpha) * 100, "exact to " MWU_EXACT " runs in all, else normal with tie correction"
	printf "\nVerdict (%s):\n", meansonly ? "means only: the spread is shown, not judged" : "mean and spread, SD factor " sdfactor
	for (d = 1; d < nd; d++) {
		any = 0
		for (i = 1; i <= nused; i++) {
			m = used[i]
			if (mdirn[m] == "none" || (!sig[d, m] && !vsig[d, m])) continue
			words = ""
			if (sig[d, m])
				words = sprintf("%s %s (%s)%s", (rule == "mmtests" && mdirn[m] == "higher" && !hmfb[m]) ? "hmean" : "mean", \
					gain[d, m] == "" ? sprintf("%+.2f abs", absgain[d, m]) : sprintf("%.2f%% %s", abs(gain[d, m]), gain[d, m] >= 0 ? "better" : "worse"), \
					rule == "mmtests" ? sprintf("CI ratio %.4g", cr[d, m]) : sprintf("Welch p=%.2g", p[d, m]), \
					regr[d, m] ? ": REGRESSION (threshold " thresh "%)" : "")
			if (vsig[d, m])
				words = words (words == "" ? "" : "; ") sprintf("%s, p=%.2g (Brown-Forsythe)%s", spread(d, m), vp[d, m], \
					vregr[d, m] ? (meansonly ? ": not judged (means only)" : ": VARIANCE REGRESSION (factor " sdfactor ")") : "")
			printf "  %s %s: %s\n", dlabel[d], mname[m], words
			any = 1
		}
		if (!any) printf "  %s: no significant change of a mean or of the spread\n", dlabel[d]
	}
	any = 0
	for (i = 1; i <= ninst; i++)
		if (instd[i]) printf "%s%s\n", any++ ? "" : "\n", instnote(i)
	idle_text()
	kernel_text()
	for (i = 1; i <= nnc; i++)
		printf "\nNot comparable: %s has %d run: a verdict needs at least 2 runs on each side\n", dlabel[ncd[i]], nfiles[ncd[i]]
	if (ndiff) {
		printf "\nNot comparable: %d difference%s of the machine state (meta.txt) from %s:\n", ndiff, (ndiff > 1 ? "s" : ""), dlabel[0]
		for (i = 1; i <= ndiff; i++)
			printf "  %s: %s: '%s', baseline '%s'\n", dlabel[xd[i]], xk[i], xv[i], xb[i]
	}
}
# kernel_text(): the differences of the kernels' identity, each feature
# of sched_features named in one kernel only, not the lists.
function kernel_text(    i) {
	if (!nkdiff) return
	printf "\nKernel identity: %d difference%s from %s, of the kernels and of the test bed's words, not of the machine's state (comparable):\n", \
		nkdiff, (nkdiff > 1 ? "s" : ""), dlabel[0]
	for (i = 1; i <= nkdiff; i++)
		if (kk[i] == "sched_features") {
			if (kv[i] != "") printf "  %s: sched_features only in %s: %s\n", dlabel[kd[i]], dlabel[kd[i]], kv[i]
			if (kb[i] != "") printf "  %s: sched_features only in %s: %s\n", dlabel[kd[i]], dlabel[0], kb[i]
		} else
			printf "  %s: %s: '%s', baseline '%s'\n", dlabel[kd[i]], kk[i], kv[i], kb[i]
}
function row(name, a, m, w,    d) {
	printf "\n%-10s", name
	for (d = 0; d < nd; d++) printf " %" w "s", na(a[d, m], "%.2f")
}

function q(s) { gsub(/"/, "\"\"", s); return "\"" s "\"" }
# e(x, f): x formatted, empty when undefined (as na()).
function e(x, f) { return x == "" || !finite(x) ? "" : sprintf(f, x) }
# csvdiffs(record, n, dd, dk, db, dv): n differences as CSV records.
function csvdiffs(rec, n, dd, dk, db, dv,    i) {
	for (i = 1; i <= n; i++)
		printf "%s,%s,%s,,%s,%s,,,,,,,,,,,,,,,,,,%s,%s,,,,,,,,,,,\n", CMPFMT, rec, dk[i], q(dlabel[dd[i]]), q(ddir[dd[i]]), q(db[i]), q(dv[i])
}
function csv(    d, i, m, f, j, o, mn, mx) {
	print "format,record,name,direction,label,dir,n,mean,stddev,coeffvar_pct,min,max,norm_mean,norm_stddev,change_pct,gain_pct,abs_change,t,df,p,ci_ratio,significant,regression,baseline_value,value,median,median_ci_low,median_ci_high,mwu_u,mwu_p,sd_ratio,var_p,var_significant,var_regression,mmtests_mean,mmtests_stddev"
	for (i = 1; i <= nused; i++)
		for (d = 0; d < nd; d++) {
			m = used[i]
			printf "%s,metric,%s,%s,%s,%s,%d,%.4f,%s,%s,%.4f,%.4f,%s,%s,%s,%s,%s,%s,%s,%s,%s,%d,%d,,,%.4f,%s,%s,%s,%s,%s,%s,%d,%d,%s,%s\n", \
				CMPFMT, mname[m], mdirn[m], q(dlabel[d]), q(ddir[d]), N[d, m], mean[d, m], e(sd[d, m], "%.4f"), e(cv[d, m], "%.4f"), \
				min[d, m], max[d, m], e(norm[d, m], "%.6f"), e(normsd[d, m], "%.6f"), e(change[d, m], "%.4f"), \
				e(gain[d, m], "%.4f"), e(absch[d, m], "%.4f"), e(tt[d, m], "%.6f"), e(df[d, m], "%.4f"), \
				p[d, m] < 0 ? "" : sprintf("%.6g", p[d, m]), e(cr[d, m], "%.6g"), sig[d, m], regr[d, m], \
				median[d, m], e(mclo[d, m], "%.4f"), e(mchi[d, m], "%.4f"), d ? e(mwuu[d, m], "%.1f") : "", e(mwp[d, m], "%.6g"), \
				e(sdr[d, m], "%.6g"), e(vp[d, m], "%.6g"), vsig[d, m], vregr[d, m] && !meansonly, \
				rule == "mmtests" ? e(cmean[d, m], "%.4f") : "", rule == "mmtests" ? e(csd[d, m], "%.4f") : ""
		}
	csvdiffs("difference", ndiff, xd, xk, xb, xv)
	csvdiffs("kernel_difference", nkdiff, kd, kk, kb, kv)
	for (i = 1; i <= nnc; i++)
		printf "%s,not_comparable,runs,,%s,%s,%d,,,,,,,,,,,,,,,,,,,,,,,,,,,,,\n", CMPFMT, q(dlabel[ncd[i]]), q(ddir[ncd[i]]), nfiles[ncd[i]]
	# the instrument's keys: name, label, dir, n, mean, min, max,
	# abs_change and baseline_value (its mean), value (differs)
	for (i = 1; i <= ninst; i++)
		for (d = 0; d < nd; d++) {
			split("", f)
			for (j = 1; j <= 36; j++) f[j] = ""
			f[1] = CMPFMT; f[2] = "instrument"; f[3] = instk[i]; f[5] = q(dlabel[d]); f[6] = q(ddir[d])
			f[7] = instn[d, i] + 0
			if (instm[d, i] != "") {
				mn = mx = instv[d, i, 1]
				for (j = 2; j <= instn[d, i]; j++) {
					if (instv[d, i, j] < mn) mn = instv[d, i, j]
					if (instv[d, i, j] > mx) mx = instv[d, i, j]
				}
				f[8] = sprintf("%.4f", instm[d, i]); f[11] = sprintf("%.4f", mn); f[12] = sprintf("%.4f", mx)
				if (d && instm[0, i] != "") { f[17] = sprintf("%.4f", instm[d, i] - instm[0, i]); f[24] = sprintf("%.4f", instm[0, i]) }
				f[25] = instdf[d, i] ? "differs" : ""
			}
			o = f[1]
			for (j = 2; j <= 36; j++) o = o "," f[j]
			print o
		}
	idle_csv()
}

# jdiffs(n, dd, dk, db, dv): n differences as JSON objects.
function jdiffs(n, dd, dk, db, dv,    i) {
	for (i = 1; i <= n; i++)
		printf "%s\n    {\"label\": %s, \"dir\": %s, \"key\": %s, \"baseline\": %s, \"value\": %s}", (i > 1 ? "," : ""), \
			js(dlabel[dd[i]]), js(ddir[dd[i]]), js(dk[i]), js(db[i]), js(dv[i])
}
function jn(x, f) { return x == "" || !finite(x) ? "null" : sprintf(f, x) }
function json(    d, i, m) {
	printf "{\n  \"format\": \"%s\",\n  \"bench\": %s,\n  \"params\": %s,\n", CMPFMT, js(bench), js(params)
	printf "  \"primary\": %s,\n  \"rule\": %s,\n  \"alpha\": %s,\n  \"threshold_pct\": %s,\n  \"regressions\": %d,\n", \
		js(primary), js(rule), alpha + 0, thresh + 0, nreg
	printf "  \"sd_factor\": %s,\n  \"means_only\": %s,\n  \"variance_regressions\": %d,\n", sdfactor + 0, meansonly ? "true" : "false", \
		meansonly ? 0 : nvreg
	printf "  \"comparable\": %s,\n  \"not_comparable\": [", (ndiff || nnc) ? "false" : "true"
	for (i = 1; i <= nnc; i++)
		printf "%s\n    {\"label\": %s, \"dir\": %s, \"runs\": %d, \"reason\": \"fewer than 2 runs\"}", (i > 1 ? "," : ""), \
			js(dlabel[ncd[i]]), js(ddir[ncd[i]]), nfiles[ncd[i]]
	printf "%s],\n  \"differences\": [", nnc ? "\n  " : ""
	jdiffs(ndiff, xd, xk, xb, xv)
	printf "%s],\n  \"kernel_differences\": [", ndiff ? "\n  " : ""
	jdiffs(nkdiff, kd, kk, kb, kv)
	printf "%s],\n  \"runs\": [", nkdiff ? "\n  " : ""
	for (d = 0; d < nd; d++) printf "%s\n    {\"label\": %s, \"dir\": %s}", d ? "," : "", js(dlabel[d]), js(ddir[d])
	printf "\n  ],\n  \"metrics\": ["
	for (i = 1; i <= nused; i++) {
		m = used[i]
		printf "%s\n    {\"name\": %s, \"direction\": %s, \"values\": [", (i > 1 ? "," : ""), js(mname[m]), js(mdirn[m])
		for (d = 0; d < nd; d++)
			printf "%s\n      {\"label\": %s, \"n\": %d, \"mean\": %.4f, \"stddev\": %s, \"coeffvar_pct\": %s, \"min\": %.4f, \"max\": %.4f, \"norm_mean\": %s, \"norm_stddev\": %s, \"change_pct\": %s, \"gain_pct\": %s, \"abs_change\": %s, \"t\": %s, \"df\": %s, \"p\": %s, \"ci_ratio\": %s, \"significant\": %s, \"regression\": %s, " \
				"\"median\": %.4f, \"median_ci_low\": %s, \"median_ci_high\": %s, \"mwu_u\": %s, \"mwu_p\": %s, \"sd_ratio\": %s, \"var_p\": %s, " \
				"\"var_significant\": %s, \"var_regression\": %s, \"mmtests_mean\": %s, \"mmtests_stddev\": %s}", \
				d ? "," : "", js(dlabel[d]), N[d, m], mean[d, m], jn(sd[d, m], "%.4f"), jn(cv[d, m], "%.4f"), min[d, m], max[d, m], \
				jn(norm[d, m], "%.6f"), jn(normsd[d, m], "%.6f"), jn(change[d, m], "%.4f"), jn(gain[d, m], "%.4f"), jn(absch[d, m], "%.4f"), \
				jn(tt[d, m], "%.6f"), jn(df[d, m], "%.4f"), p[d, m] < 0 ? "null" : sprintf("%.6g", p[d, m]), jn(cr[d, m], "%.6g"), \
				sig[d, m] ? "true" : "false", regr[d, m] ? "true" : "false", \
				median[d, m], jn(mclo[d, m], "%.4f"), jn(mchi[d, m], "%.4f"), d ? jn(mwuu[d, m], "%.1f") : "null", jn(mwp[d, m], "%.6g"), \
				jn(sdr[d, m], "%.6g"), jn(vp[d, m], "%.6g"), vsig[d, m] ? "true" : "false", vregr[d, m] && !meansonly ? "true" : "false", \
				rule == "mmtests" ? jn(cmean[d, m], "%.4f") : "null", rule == "mmtests" ? jn(csd[d, m], "%.4f") : "null"
		printf "\n    ]}"
	}
	printf "\n  ],\n  \"instrument\": ["
	for (i = 1; i <= ninst; i++) {
		printf "%s\n    {\"name\": %s, \"differs\": %s, \"values\": [", (i > 1 ? "," : ""), js(instk[i]), instd[i] ? "true" : "false"
		for (d = 0; d < nd; d++)
			printf "%s\n      {\"label\": %s, \"dir\": %s, \"n\": %d, \"mean\": %s, \"abs_change\": %s, \"differs\": %s}", d ? "," : "", \
				js(dlabel[d]), js(ddir[d]), instn[d, i], jn(instm[d, i], "%.4f"), \
				d && instm[d, i] != "" && instm[0, i] != "" ? sprintf("%.4f", instm[d, i] - instm[0, i]) : "null", instdf[d, i] ? "true" : "false"
		printf "\n    ]}"
	}
	printf "%s]", ninst ? "\n  " : ""
	idle_json()
	printf "\n}\n"
}
