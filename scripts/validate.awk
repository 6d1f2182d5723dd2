# validate.awk: validate.sh's verdict over its steps (which see), loaded
# after scripts/stats.awk (awk -f stats.awk -f validate.awk).
# Input: compare.sh's CSV (ipistorm-compare/5) of each step compared,
# each preceded by the assignment step=NAME; its metric records of the
# other directory (a metric's second record) are read by the header's
# column names. Variables: alpha, primaries ("STEP=METRIC ..."). Every
# test of every step is one family: the mean's (Welch's p) and the
# spread's (Brown-Forsythe's var_p) of each metric with a direction; the
# p values are adjusted by Holm-Bonferroni over the family, so that the
# chance of any false alarm in the whole report is at most alpha. A step
# regressed when one of its tests that compare.sh called a regression
# (regression, var_regression: beyond its threshold or SD factor) stays
# significant after the adjustment. Output, a line per step in the order
# read: "STEP GAIN SIG VERDICT", GAIN the primary metric's gain in %
# (positive: better), SIG 1 when its mean's change is significant after
# the adjustment, VERDICT REGRESSED, better, worse (the primary metric's
# significant change, by its sign) or "no regression"; then "tests N".

# fields(s): the CSV record s into F[1..n] (quoted fields hold commas).
function fields(s,    n, q, c, i, f) {
	n = 1; q = 0; f = ""
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c == "\"") q = !q
		else if (c == "," && !q) { F[n++] = f; f = "" }
		else f = f c
	}
	F[n] = f
	return n
}

BEGIN {
	n = split(primaries, w, " ")
	for (i = 1; i <= n; i++) prim[substr(w[i], 1, index(w[i], "=") - 1)] = substr(w[i], index(w[i], "=") + 1)
}
FNR == 1 {
	fields($0)
	split("", col)
	for (i = 1; i in F; i++) col[F[i]] = i
	split("", F)
	split("", seen)
	if (!(step in known)) { known[step] = 1; order[++nsteps] = step }
	next
}
{
	split("", F)
	fields($0)
	if (F[col["record"]] != "metric") next
	m = F[col["name"]]
	# the baseline's record first, then the other's
	if (seen[m]++ != 1) next
	if (m == prim[step]) { gain[step] = F[col["gain_pct"]]; pt[step] = "" }
	if (F[col["direction"]] == "none") next
	if (F[col["p"]] != "") {
		P[++nt] = F[col["p"]] + 0; ts[nt] = step; reg[nt] = F[col["regression"]] == 1
		if (m == prim[step]) pt[step] = nt
	}
	if (F[col["var_p"]] != "") {
		P[++nt] = F[col["var_p"]] + 0; ts[nt] = step; reg[nt] = F[col["var_regression"]] == 1
	}
}
END {
	holm(P, nt, ADJ)
	for (t = 1; t <= nt; t++)
		if (reg[t] && ADJ[t] < alpha) regressed[ts[t]] = 1
	for (i = 1; i <= nsteps; i++) {
		s = order[i]
		sig = pt[s] != "" && ADJ[pt[s]] < alpha
		v = regressed[s] ? "REGRESSED" : !sig ? "no regression" : gain[s] + 0 < 0 ? "worse" : "better"
		printf "%s %s %d %s\n", s, gain[s] == "" ? "n/a" : gain[s], sig, v
	}
	printf "tests %d\n", nt
}
