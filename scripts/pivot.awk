# pivot.awk: the statistics and output of pivot.sh (which see), loaded
# after scripts/stats.awk and scripts/json.awk (awk -f stats.awk -f json.awk
# -f pivot.awk).
# Input: iteration files, each group preceded by the assignments s=SWEEP
# c=CELL (0-based; sweep 0 the baseline); pivot.sh passes every file name
# as a path (absolute or ./-prefixed): a cell directory named
# class=smt,delay=0 is never taken for an assignment. Variables: metric
# (the result key), direction (lower, higher or none), unit, fmt (text,
# csv or json), alpha, thresh. From the environment, one a line:
# PIV_LABELS and PIV_DIRS (the sweeps, in the order of s), PIV_CELLS (the
# cells, in the order of c), PIV_PARAMS (each cell's parameters in each
# sweep, sweep by sweep), and PIV_BENCH, PIV_FIXED (the fixed
# parameters). Exit 2 on bad input (error on stderr, nothing on stdout),
# among it a design whose runs can make no cell significant after the
# correction (for a metric with a direction), 1 when a cell regressed
# significantly beyond thresh, else 0.

function err(msg) {
	if (!failed) print "pivot.sh: " msg >"/dev/stderr"
	failed = 1
}

BEGIN {
	MWU_EXACT = 40
	ns = split(ENVIRON["PIV_LABELS"], label, "\n")
	split(ENVIRON["PIV_DIRS"], sdir, "\n")
	nc = split(ENVIRON["PIV_CELLS"], cell, "\n")
	split(ENVIRON["PIV_PARAMS"], pl, "\n")
	for (i = 1; i <= ns; i++)
		for (j = 1; j <= nc; j++) cparams[i - 1, j - 1] = pl[(i - 1) * nc + j]
	want = metric "="
}
FNR == 1 { files[s, c]++; got = 0 }
index($0, want) == 1 {
	v = substr($0, length(want) + 1)
	if (got++) { err(FILENAME ": " metric " appears twice"); next }
	if (v !~ /^-?[0-9]+(\.[0-9]+)?$/) { err(FILENAME ": " metric "='" v "' is not a number"); next }
	if (!bounded(v)) { err(FILENAME ": " metric "=" v " " BOUNDED); next }
	val[s, c, ++cnt[s, c]] = v + 0
}

# fmtp(p): a p value, "n/a" when there is none.
function fmtp(p) { return p == "" ? "n/a" : p < 0.0001 ? sprintf("%.1e", p) : sprintf("%.4f", p) }
# gainof(x, b): the gain in percent of x over b in the metric's direction
# (positive: better; its change for a metric without one), "" from a
# zero b.
function gainof(x, b,    g) {
	if (b == 0) return ""
	g = (x - b) / abs(b) * 100
	g = direction == "lower" ? -g : g
	return g == 0 ? 0 : g
}
# pct(g): "+12.09%", the gain as the tables show it.
function pct(g) { return g == "" ? "n/a" : sprintf("%+.2f%%", g) }
# minp(n1, n2): the smallest two-sided p the test can give with n1 and
# n2 runs (exact: 2 / C(n1 + n2, n2); beyond MWU_EXACT runs in all, the
# normal approximation's, which is small enough for any alpha here: 0).
function minp(n1, n2,    k, c) {
	if (n1 + n2 > MWU_EXACT) return 0
	c = 1
	for (k = 1; k <= n2; k++) c = c * (n1 + k) / k
	return 2 / c
}

END {
	if (failed) exit 2
	for (i = 0; i < ns; i++)
		for (j = 0; j < nc; j++) {
			if (cnt[i, j] != files[i, j])
				{ err(sdir[i + 1] "/" cell[j + 1] ": no " metric " in " files[i, j] - cnt[i, j] " of its " files[i, j] " results (every result must have it)"); exit 2 }
			if (cnt[i, j] < 2)
				{ err(sdir[i + 1] "/" cell[j + 1] ": " cnt[i, j] " run: a verdict needs at least 2 runs in each cell"); exit 2 }
		}
	# per sweep and cell: mean, stddev, CoV; against the baseline: the
	# ratio, the gain and the Mann-Whitney U test's p
	ntest = 0
	for (i = 0; i < ns; i++)
		for (j = 0; j < nc; j++) {
			n = cnt[i, j]
			split("", A)
			for (k = 1; k <= n; k++) A[k] = val[i, j, k]
			mean[i, j] = mv(A, n)
			sd[i, j] = msqrt(MV_SS / (n - 1))
			cov[i, j] = mean[i, j] != 0 ? sd[i, j] / abs(mean[i, j]) * 100 : ""
			if (!i) continue
			b = mean[0, j]
			norm[i, j] = b != 0 ? mean[i, j] / b : ""
			gain[i, j] = gainof(mean[i, j], b)
			split("", B); split("", X)
			for (k = 1; k <= cnt[0, j]; k++) B[k] = val[0, j, k]
			for (k = 1; k <= n; k++) X[k] = val[i, j, k]
			p[i, j] = mwu(cnt[0, j], n)
			tp[++ntest] = p[i, j]; ti[ntest] = i; tj[ntest] = j
			if (pmin == "" || minp(cnt[0, j], n) < pmin) pmin = minp(cnt[0, j], n)
		}
	holm_cells()
	nreg = 0
	for (t = 1; t <= ntest; t++) {
		i = ti[t]; j = tj[t]
		sig[i, j] = padj[i, j] < alpha
		worse = direction == "lower" ? mean[i, j] > mean[0, j] : direction == "higher" ? mean[i, j] < mean[0, j] : 0
		regr[i, j] = sig[i, j] && worse && (gain[i, j] == "" || gain[i, j] < -thresh)
		if (regr[i, j]) {
			nreg++
			printf "pivot.sh: regression: %s %s: %s %s worse than %s (Holm-adjusted p=%s, threshold %s%%)\n", label[i + 1], cell[j + 1], \
				metric, gain[i, j] == "" ? sprintf("%.2f -> %.2f, from a zero baseline,", mean[0, j], mean[i, j]) : sprintf("%.2f%%", -gain[i, j]), \
				label[1], fmtp(padj[i, j]), thresh >"/dev/stderr"
		}
	}
	# the geometric means over the cells: of the means, and of the ratios
	# to the baseline (benchstat's geomean row); none where a mean is 0
	# or less
	for (i = 0; i < ns; i++) {
		gm[i] = gr[i] = ""
		lm = lr = 0; pos = 1
		for (j = 0; j < nc; j++) {
			if (mean[i, j] <= 0 || mean[0, j] <= 0) { pos = 0; break }
			lm += mlog(mean[i, j]); lr += mlog(mean[i, j] / mean[0, j])
		}
		if (!pos) continue
		gm[i] = mexp(lm / nc)
		gr[i] = i ? mexp(lr / nc) : 1
		gg[i] = i ? gainof(gr[i], 1) : 0
	}
	nogm = gm[0] == ""
	# A design that cannot reach significance can judge nothing: with a
	# direction, that is bad input (exit 2), never a pass.
	nosig = ntest && pmin >= alpha / ntest
	if (nosig && direction != "none") {
		for (need = 2; need <= MWU_EXACT / 2 && minp(need, need) >= alpha / ntest; need++) ;
		err(sprintf("with these runs the smallest p the test can give is %s, above Holm's first threshold alpha/%d = %s: no cell can be significant, so no regression can be found; %d runs in every cell can reach it (sweep.sh -n %d)", \
			fmtp(pmin), ntest, fmtp(alpha / ntest), need, need))
		exit 2
	}
	if (nosig)
		printf "pivot.sh: note: with these runs the smallest p the test can give is %s, Holm's first threshold alpha/%d = %s: no cell can be significant (more runs per cell)\n", \
			fmtp(pmin), ntest, fmtp(alpha / ntest) >"/dev/stderr"
	if (fmt == "csv") csv(); else if (fmt == "json") json(); else text()
	exit nreg ? 1 : 0
}

# holm_cells(): the Holm-Bonferroni adjusted p of each of the ntest
# tests (stats.awk's holm), padj[i, j].
function holm_cells(    t, ha) {
	holm(tp, ntest, ha)
	for (t = 1; t <= ntest; t++) padj[ti[t], tj[t]] = ha[t]
}

# cellcol(i, j): the column of sweep i in cell j's row of the text table.
function cellcol(i, j) {
	if (!i) return sprintf("%.2f ±%.2f%%", mean[0, j], cov[0, j])
	return sprintf("%s (%s) ±%s p=%s%s", norm[i, j] == "" ? "n/a" : sprintf("%.3f", norm[i, j]), \
		gain[i, j] == "" ? sprintf("%+.2f abs", mean[i, j] - mean[0, j]) : pct(gain[i, j]), \
		cov[i, j] == "" ? "n/a" : sprintf("%.2f%%", cov[i, j]), fmtp(padj[i, j]), sig[i, j] ? " *" : "")
}
function gmcol(i) {
	if (nogm) return "n/a"
	return i ? sprintf("%.3f (%s)", gr[i], pct(gg[i])) : sprintf("%.2f", gm[0])
}
# dlen(x): x's width on a terminal: "±" is one column, whether awk counts
# it as one character (gawk in a UTF-8 locale) or two bytes (mawk,
# busybox). pad(x, w): x and blanks to w columns.
function dlen(x,    t) { t = x; return length(x) - gsub(/±/, "", t) * (length("±") - 1) }
function pad(x, w) { while (dlen(x) < w) x = x " "; return x }
# row(first, k, x): a line of the table, x[0..ns-1] its columns.
function row(first, x,    i, line) {
	line = pad(first, cw)
	for (i = 0; i < ns; i++) line = line "  " pad(x[i], w[i])
	sub(/ +$/, "", line)
	print line
}
function text(    i, j, x, any) {
	printf "%s %s\n", ENVIRON["PIV_BENCH"], ENVIRON["PIV_FIXED"]
	printf "%s (%s), %s; %d cells, baseline %s\n\n", metric, unit, \
		direction == "none" ? "no direction: change shown, no verdict" : direction " is better", nc, label[1]
	cw = 7
	for (j = 1; j <= nc; j++) if (dlen(cell[j]) > cw) cw = dlen(cell[j])
	for (i = 0; i < ns; i++) {
		w[i] = dlen(label[i + 1])
		for (j = 0; j < nc; j++) if (dlen(cellcol(i, j)) > w[i]) w[i] = dlen(cellcol(i, j))
		if (dlen(gmcol(i)) > w[i]) w[i] = dlen(gmcol(i))
	}
	for (i = 0; i < ns; i++) x[i] = label[i + 1]
	row("cell", x)
	for (j = 0; j < nc; j++) {
		for (i = 0; i < ns; i++) x[i] = cellcol(i, j)
		row(cell[j + 1], x)
	}
	for (i = 0; i < ns; i++) x[i] = gmcol(i)
	row("geomean", x)
	printf "\n%s: mean (%s) ±CoV; others: mean / %s's mean (pct imp: gain over it, positive better) ±CoV\n", label[1], unit, label[1]
	printf "p: Mann-Whitney U (exact to %d runs in all), Holm-Bonferroni-adjusted over the %d tests (every cell of every kernel against the baseline); *: significant at alpha %s\n", \
		MWU_EXACT, ntest, alpha
	printf "geomean: geometric mean over the %d cells of the baseline's means and of the others' ratios%s\n", nc, \
		nogm ? " (n/a: a mean is 0 or less)" : ""
	if (nosig)
		printf "note: the smallest p these runs can give is %s, above alpha/%d = %s: no cell can be significant\n", fmtp(pmin), ntest, fmtp(alpha / ntest)
	if (direction == "none") { printf "\nVerdict: none (%s has no direction)\n", metric; return }
	printf "\nVerdict (threshold %s%%): %s\n", thresh, nreg ? nreg " significant regression" (nreg > 1 ? "s" : "") : "no significant regression"
	for (i = 1; i < ns; i++)
		for (j = 0; j < nc; j++) {
			if (!sig[i, j]) continue
			printf "  %s %s: %s %s (p=%s)%s\n", label[i + 1], cell[j + 1], \
				gain[i, j] == "" ? sprintf("%+.2f abs", mean[i, j] - mean[0, j]) : sprintf("%.2f%%", abs(gain[i, j])), \
				gain[i, j] == "" ? "" : (gain[i, j] >= 0 ? "better" : "worse"), fmtp(padj[i, j]), regr[i, j] ? ": REGRESSION" : ""
			any = 1
		}
	if (!any) printf "  no significant change in any cell\n"
}

function q(x) { gsub(/"/, "\"\"", x); return "\"" x "\"" }
function e(x, f) { return x == "" ? "" : sprintf(f, x) }
function csv(    i, j) {
	print "format,record,cell,label,dir,params,n,mean,stddev,cov_pct,norm_mean,gain_pct,p,p_holm,significant,regression"
	for (j = 0; j < nc; j++)
		for (i = 0; i < ns; i++)
			printf "ipistorm-pivot/1,cell,%s,%s,%s,%s,%d,%.4f,%.4f,%s,%s,%s,%s,%s,%d,%d\n", q(cell[j + 1]), q(label[i + 1]), q(sdir[i + 1]), \
				q(cparams[i, j]), cnt[i, j], mean[i, j], sd[i, j], e(cov[i, j], "%.4f"), i ? e(norm[i, j], "%.6f") : "1.000000", \
				i ? e(gain[i, j], "%.4f") : "0.0000", i ? e(p[i, j], "%.6g") : "", i ? e(padj[i, j], "%.6g") : "", sig[i, j], regr[i, j]
	for (i = 0; i < ns; i++)
		printf "ipistorm-pivot/1,geomean,,%s,%s,,%d,%s,,,%s,%s,,,0,0\n", q(label[i + 1]), q(sdir[i + 1]), nc, \
			e(gm[i], "%.4f"), e(gr[i], "%.6f"), e(gg[i], "%.4f")
}

function jn(x, f) { return x == "" ? "null" : sprintf(f, x) }
function json(    i, j) {
	printf "{\n  \"format\": \"ipistorm-pivot/1\",\n  \"bench\": %s,\n  \"params\": %s,\n", js(ENVIRON["PIV_BENCH"]), js(ENVIRON["PIV_FIXED"])
	printf "  \"metric\": %s,\n  \"unit\": %s,\n  \"direction\": %s,\n", js(metric), js(unit), js(direction)
	printf "  \"test\": \"mann-whitney-u\",\n  \"correction\": \"holm-bonferroni\",\n  \"tests\": %d,\n  \"alpha\": %s,\n  \"threshold_pct\": %s,\n", \
		ntest, alpha + 0, thresh + 0
	printf "  \"smallest_p\": %s,\n  \"regressions\": %d,\n  \"kernels\": [", jn(pmin, "%.6g"), nreg
	for (i = 0; i < ns; i++) printf "%s\n    {\"label\": %s, \"dir\": %s}", i ? "," : "", js(label[i + 1]), js(sdir[i + 1])
	printf "\n  ],\n  \"cells\": ["
	for (j = 0; j < nc; j++) {
		printf "%s\n    {\"cell\": %s, \"values\": [", j ? "," : "", js(cell[j + 1])
		for (i = 0; i < ns; i++)
			printf "%s\n      {\"label\": %s, \"params\": %s, \"n\": %d, \"mean\": %.4f, \"stddev\": %.4f, \"cov_pct\": %s, \"norm_mean\": %s, \"gain_pct\": %s, \"p\": %s, \"p_holm\": %s, \"significant\": %s, \"regression\": %s}", \
				i ? "," : "", js(label[i + 1]), js(cparams[i, j]), cnt[i, j], mean[i, j], sd[i, j], jn(cov[i, j], "%.4f"), \
				i ? jn(norm[i, j], "%.6f") : "1", i ? jn(gain[i, j], "%.4f") : "0", i ? jn(p[i, j], "%.6g") : "null", \
				i ? jn(padj[i, j], "%.6g") : "null", sig[i, j] ? "true" : "false", regr[i, j] ? "true" : "false"
		printf "\n    ]}"
	}
	printf "\n  ],\n  \"geomean\": ["
	for (i = 0; i < ns; i++)
		printf "%s\n    {\"label\": %s, \"cells\": %d, \"mean\": %s, \"norm_mean\": %s, \"gain_pct\": %s}", i ? "," : "", js(label[i + 1]), nc, \
			jn(gm[i], "%.4f"), jn(gr[i], "%.6f"), jn(gg[i], "%.4f")
	printf "\n  ]\n}\n"
}
