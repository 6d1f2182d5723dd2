# compare.awk: the statistics and output of compare.sh (which see).
# Input: iteration files, each group preceded by the assignments d=INDEX
# label=LABEL dir=DIR. Variables: metrics ("key:lower|higher|none ..."),
# primary, title (its name in the normalized table), fmt, alpha, thresh,
# bench, params. Exit 2 on bad input (error on stderr, nothing on stdout),
# 1 on a significant regression, else 0.

function err(msg) {
	if (!failed) print "compare.sh: " msg >"/dev/stderr"
	failed = 1
}
function abs(x) { return x < 0 ? -x : x }

# Numerical Recipes: ln Gamma(x) (Lanczos), the continued fraction of the
# incomplete beta function (modified Lentz) and the regularized I_x(a, b).
function gammln(xx,    x, y, tmp, ser, j) {
	y = x = xx
	tmp = x + 5.5
	tmp -= (x + 0.5) * log(tmp)
	ser = 1.000000000190015
	for (j = 1; j <= 6; j++) ser += COF[j] / ++y
	return -tmp + log(2.5066282746310005 * ser / x)
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
	bt = exp(gammln(a + b) - gammln(a) - gammln(b) + a * log(x) + b * log(1 - x))
	if (x < (a + 1) / (a + b + 2)) return bt * betacf(a, b, x) / a
	return 1 - bt * betacf(b, a, 1 - x) / b
}
# welch(): sets T, DF and the two-sided P; P = -1 when there is no test
# (fewer than 2 runs on a side, or no variance at all).
function welch(m1, v1, n1, m2, v2, n2,    se2) {
	T = DF = 0; P = -1
	if (n1 < 2 || n2 < 2) return
	se2 = v1 / n1 + v2 / n2
	if (se2 <= 0) return
	T = (m2 - m1) / sqrt(se2)
	DF = se2 * se2 / ((v1 / n1) ^ 2 / (n1 - 1) + (v2 / n2) ^ 2 / (n2 - 1))
	P = betai(DF / 2, 0.5, DF / (DF + T * T))
}

BEGIN {
	split("76.18009172947146 -86.50532032941677 24.01409824083091 -1.231739572450155 0.1208650973866179e-2 -0.5395239384953e-5", COF, " ")
	nm = split(metrics, ml, " ")
	for (i = 1; i <= nm; i++) {
		split(ml[i], x, ":")
		mname[i] = x[1]; mdirn[i] = x[2]; wanted[x[1]] = i
	}
	nd = 0; nf = 0
}
FNR == 1 {
	nf++; fd[nf] = d; fn[nf] = FILENAME
	if (d + 1 > nd) nd = d + 1
	dlabel[d] = label; ddir[d] = dir; nfiles[d]++
}
{
	eq = index($0, "=")
	if (!eq) next
	k = substr($0, 1, eq - 1)
	if (!(k in wanted)) next
	v = substr($0, eq + 1)
	if (v !~ /^-?[0-9]+(\.[0-9]+)?$/) { err(FILENAME ": " k "='" v "' is not a number"); next }
	if ((nf, k) in seen) { err(FILENAME ": " k " appears twice"); next }
	seen[nf, k] = 1
	m = wanted[k]
	c = ++cnt[d, m]
	val[d, m, c] = v + 0
	present[m]++
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
	for (d = 0; d < nd; d++)
		for (i = 1; i <= nused; i++) {
			m = used[i]; n = cnt[d, m]; s = 0
			mn = mx = val[d, m, 1]
			for (c = 1; c <= n; c++) {
				s += val[d, m, c]
				if (val[d, m, c] < mn) mn = val[d, m, c]
				if (val[d, m, c] > mx) mx = val[d, m, c]
			}
			mean[d, m] = s / n
			ss = 0
			for (c = 1; c <= n; c++) ss += (val[d, m, c] - mean[d, m]) ^ 2
			var[d, m] = n > 1 ? ss / (n - 1) : 0
			sd[d, m] = sqrt(var[d, m])
			cv[d, m] = mean[d, m] != 0 ? sd[d, m] / abs(mean[d, m]) * 100 : 0
			min[d, m] = mn; max[d, m] = mx; N[d, m] = n
			b = mean[0, m]
			norm[d, m] = b != 0 ? mean[d, m] / b : 0
			normsd[d, m] = b != 0 ? sd[d, m] / abs(b) : 0
			change[d, m] = b != 0 ? (mean[d, m] - b) / abs(b) * 100 : 0
			gain[d, m] = mdirn[m] == "lower" ? -change[d, m] : change[d, m]
			if (gain[d, m] == 0) gain[d, m] = change[d, m] = 0	# no "-0.00"
			if (d) welch(b, var[0, m], N[0, m], mean[d, m], var[d, m], n)
			else P = -1
			tt[d, m] = T; df[d, m] = DF; p[d, m] = P
			sig[d, m] = d > 0 && P >= 0 && P < alpha
			regr[d, m] = sig[d, m] && mdirn[m] != "none" && gain[d, m] < -thresh
			if (regr[d, m]) {
				nreg++
				printf "compare.sh: regression: %s %s: %.2f%% worse than %s (p=%.4g, threshold %s%%)\n", \
					dlabel[d], mname[m], -gain[d, m], dlabel[0], P, thresh >"/dev/stderr"
			}
			if (mname[m] == primary) pm = m
		}
	if (fmt == "csv") csv(); else if (fmt == "json") json(); else text()
	exit nreg ? 1 : 0
}

function text(    d, i, m, w, lw, line, cell) {
	lw = 8
	for (d = 0; d < nd; d++) if (length(dlabel[d]) > lw) lw = length(dlabel[d])
	printf "%s %s\n\n", bench, params
	printf "%-*s %8s\n", lw + 2, "kernel:", title " [pct imp]"
	for (d = 0; d < nd; d++)
		printf "%-*s %8.2f %s\n", lw + 2, dlabel[d], norm[d, pm],
			d ? sprintf("[%.2f%%]", mdirn[pm] == "lower" ? (1 - norm[d, pm]) * 100 : (norm[d, pm] - 1) * 100) : "[baseline]"
	w = 25
	for (d = 0; d < nd; d++) if (length(dlabel[d]) > w) w = length(dlabel[d])
	for (i = 1; i <= nused; i++) {
		m = used[i]
		printf "\n%s (%s)\n%-10s", mname[m], mdirn[m] == "none" ? "change shown, no direction" : mdirn[m] " is better", ""
		for (d = 0; d < nd; d++) printf " %*s", w, dlabel[d]
		printf "\n%-10s", "Runs"
		for (d = 0; d < nd; d++) printf " %*d", w, N[d, m]
		printf "\n%-10s", "AMean"
		for (d = 0; d < nd; d++) {
			cell = sprintf("%.2f", mean[d, m])
			cell = cell (sig[d, m] ? sprintf(" *%7.2f%%*", gain[d, m]) : sprintf(" (%7.2f%%)", gain[d, m]))
			printf " %*s", w, cell
		}
		row("Stddev", sd, m, w); row("CoeffVar", cv, m, w)
		row("Min", min, m, w); row("Max", max, m, w)
		printf "\n%-10s", "Welch-p"
		for (d = 0; d < nd; d++)
			printf " %*s", w, d == 0 ? "-" : p[d, m] < 0 ? "n/a" : sprintf("%.4f", p[d, m])
		printf "\n"
	}
	printf "\n%% is the gain over %s (positive: better); *x%%*: significant, Welch's t-test, alpha %s\n", dlabel[0], alpha
}
function row(name, a, m, w,    d) {
	printf "\n%-10s", name
	for (d = 0; d < nd; d++) printf " %*s", w, sprintf("%.2f", a[d, m])
}

function q(s) { gsub(/"/, "\"\"", s); return "\"" s "\"" }
function csv(    d, i, m) {
	print "format,metric,direction,label,dir,n,mean,stddev,coeffvar_pct,min,max,norm_mean,norm_stddev,change_pct,gain_pct,t,df,p,significant,regression"
	for (i = 1; i <= nused; i++)
		for (d = 0; d < nd; d++) {
			m = used[i]
			printf "ipistorm-compare/1,%s,%s,%s,%s,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.6f,%.6f,%.4f,%.4f,%s,%s,%s,%d,%d\n", \
				mname[m], mdirn[m], q(dlabel[d]), q(ddir[d]), N[d, m], mean[d, m], sd[d, m], cv[d, m], \
				min[d, m], max[d, m], norm[d, m], normsd[d, m], change[d, m], gain[d, m], \
				p[d, m] < 0 ? "" : sprintf("%.6f", tt[d, m]), p[d, m] < 0 ? "" : sprintf("%.4f", df[d, m]), \
				p[d, m] < 0 ? "" : sprintf("%.6g", p[d, m]), sig[d, m], regr[d, m]
		}
}

function js(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); gsub(/\t/, "\\t", s); return "\"" s "\"" }
function jn(x, f) { return x == "" ? "null" : sprintf(f, x) }
function json(    d, i, m) {
	printf "{\n  \"format\": \"ipistorm-compare/1\",\n  \"bench\": %s,\n  \"params\": %s,\n", js(bench), js(params)
	printf "  \"primary\": %s,\n  \"alpha\": %s,\n  \"threshold_pct\": %s,\n  \"regressions\": %d,\n", js(primary), alpha + 0, thresh + 0, nreg
	printf "  \"runs\": ["
	for (d = 0; d < nd; d++) printf "%s\n    {\"label\": %s, \"dir\": %s}", d ? "," : "", js(dlabel[d]), js(ddir[d])
	printf "\n  ],\n  \"metrics\": ["
	for (i = 1; i <= nused; i++) {
		m = used[i]
		printf "%s\n    {\"name\": %s, \"direction\": %s, \"values\": [", (i > 1 ? "," : ""), js(mname[m]), js(mdirn[m])
		for (d = 0; d < nd; d++)
			printf "%s\n      {\"label\": %s, \"n\": %d, \"mean\": %.4f, \"stddev\": %.4f, \"coeffvar_pct\": %.4f, \"min\": %.4f, \"max\": %.4f, \"norm_mean\": %.6f, \"norm_stddev\": %.6f, \"change_pct\": %.4f, \"gain_pct\": %.4f, \"t\": %s, \"df\": %s, \"p\": %s, \"significant\": %s, \"regression\": %s}", \
				d ? "," : "", js(dlabel[d]), N[d, m], mean[d, m], sd[d, m], cv[d, m], min[d, m], max[d, m], \
				norm[d, m], normsd[d, m], change[d, m], gain[d, m], \
				p[d, m] < 0 ? "null" : jn(tt[d, m], "%.6f"), p[d, m] < 0 ? "null" : jn(df[d, m], "%.4f"), \
				p[d, m] < 0 ? "null" : jn(p[d, m], "%.6g"), sig[d, m] ? "true" : "false", regr[d, m] ? "true" : "false"
		printf "\n    ]}"
	}
	printf "\n  ]\n}\n"
}
