# stats.awk: the statistics compare.awk and shift_share.awk share, loaded
# before either (awk -f stats.awk -f json.awk -f compare.awk). Functions only; the
# caller sets MWU_EXACT (the most runs in all for an exact Mann-Whitney p).

# Square root, exp and log in awk's arithmetic alone: busybox awk built
# without its math library (Debian's) has neither them nor "^". Each is
# exact to a unit or two in the last place: the argument is scaled by
# powers of 2 (exact), then Newton's iteration (sqrt), Taylor's series of
# mexp(r), |r| <= ln(2)/2, after a Cody-Waite reduction, or the series of
# mlog((1 + s) / (1 - s)) = 2 (s + s^3/3 + ...), |s| <= 0.172. Each ends
# on infinity and NaN too (returned as they are: the scaling loops would
# never end on them).
function sq(x) { return x * x }
# finite(x): x is neither infinite nor NaN (told by its printed form: in
# mawk NaN compares equal to everything)
function finite(x) { return sprintf("%g", x) !~ /[in]/ }
function msqrt(x,    g, h, k, i) {
	if (!finite(x)) return x
	if (x <= 0) return 0
	k = 1
	while (x >= 4) { x /= 4; k *= 2 }
	while (x < 1) { x *= 4; k /= 2 }
	g = 1.5
	for (i = 0; i < 60; i++) {
		h = (g + x / g) / 2
		if (h == g) break
		g = h
	}
	return g * k
}
function mexp(x,    k, r, t, s, i) {
	if (!finite(x)) return x < 0 ? 0 : x
	if (x < -745) return 0
	if (x > 709.79) return 1e308 * 10
	k = int(x / 0.6931471805599453 + (x >= 0 ? 0.5 : -0.5))
	r = (x - k * 0.693147180369123816490) - k * 1.90821492927058770002e-10
	s = t = 1
	for (i = 1; i < 30; i++) {
		t *= r / i
		s += t
		if (abs(t) < 1e-17 * s) break
	}
	for (; k > 0; k--) s *= 2
	for (; k < 0; k++) s /= 2
	return s
}
function mlog(x,    e, s, s2, t, sum, i) {
	if (!finite(x)) return x
	if (x <= 0) return -1e308
	e = 0
	while (x >= 2) { x /= 2; e++ }
	while (x < 1) { x *= 2; e-- }
	if (x > 1.4142135623730951) { x /= 2; e++ }
	s = (x - 1) / (x + 1); s2 = s * s
	sum = t = s
	for (i = 3; i < 80; i += 2) {
		t *= s2
		sum += t / i
		if (abs(t / i) < 1e-17 * abs(sum)) break
	}
	return e * 0.6931471805599453 + 2 * sum
}

function abs(x) { return x < 0 ? -x : x }

# bounded(v): the number v is 0 or of a magnitude from 1e-20 to 1e20, the
# values compare.sh computes with: beyond them the squares of squares the
# tests take (Welch's df, mmtests' harmonic stddev) over- or underflow,
# and a sum of counts of hundreds of digits is infinite. BOUNDED: the
# words of an error.
function bounded(v) { v = abs(v + 0); return v == 0 || (v >= 1e-20 && v <= 1e20) }

BEGIN { BOUNDED = "is beyond the magnitudes compare.sh computes with (0 or 1e-20 to 1e20)" }

# mv(A, n): MV_MEAN, the mean of A[1..n], and MV_SS, the sum of the
# squared deviations from it. All values equal: exactly that value and 0
# (a naive sum of ten 0.7 divided by 10 is not 0.7, and its deviations
# then make a spread of nothing). Else two passes, the mean corrected by
# the mean of its residuals (as R's mean()), the squares of the
# deviations from it.
function mv(A, n,    i, s, c, eq) {
	eq = 1; s = 0
	for (i = 1; i <= n; i++) {
		s += A[i]
		if (A[i] != A[1]) eq = 0
	}
	if (eq) { MV_MEAN = A[1]; MV_SS = 0; return MV_MEAN }
	MV_MEAN = s / n; c = 0
	for (i = 1; i <= n; i++) c += A[i] - MV_MEAN
	MV_MEAN += c / n
	MV_SS = 0
	for (i = 1; i <= n; i++) MV_SS += sq(A[i] - MV_MEAN)
	return MV_MEAN
}

# erfc(x): the complementary error function (Numerical Recipes' erfcc,
# Chebyshev fit, fractional error below 1.2e-7 everywhere).
function erfc(x,    z, t, r) {
	z = abs(x)
	t = 1 / (1 + 0.5 * z)
	r = t * mexp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + \
	    t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + \
	    t * (-0.82215223 + t * 0.17087277)))))))))
	return x >= 0 ? r : 2 - r
}

# mwu(n1, n2): the two-sided p of the Mann-Whitney U test (Wilcoxon rank
# sum) of X[1..n2] against the baseline's B[1..n1], ties given their
# mid-ranks; "" with fewer than 2 on a side. U is X's statistic (pairs where d's value is the larger, ties counted 1/2). With
# n1 + n2 <= MWU_EXACT the p is exact: the permutation distribution of X's
# rank sum W, counted over all C(n1 + n2, n2) ways to draw X's runs from
# the pooled ones (ties included), p = P(|W - E| >= |w - E|). Beyond it the
# normal approximation with the tie correction of the variance and a
# continuity correction of 1/2 (as R's wilcox.test(correct = TRUE)). Sets
# MWU_U.
function mwu(n1, n2,    N, i, j, x, g, r2, a, b, w2, t, T, e2, dev, c, s, smax, top, tot, hit, u, sig, K) {
	if (n1 < 2 || n2 < 2) return ""
	N = n1 + n2
	# the pooled values, sorted, with their side (1: d)
	for (i = 1; i <= N; i++) {
		x = i <= n1 ? B[i] : X[i - n1]; g = i > n1
		for (j = i - 1; j >= 1 && PV[j] > x; j--) { PV[j + 1] = PV[j]; PG[j + 1] = PG[j] }
		PV[j + 1] = x; PG[j + 1] = g
	}
	# doubled mid-ranks: integers, so that sums compare exactly
	w2 = 0; T = 0
	for (a = 1; a <= N; a = b + 1) {
		for (b = a; b < N && PV[b + 1] == PV[a]; b++) ;
		t = b - a + 1; T += t * t * t - t
		for (i = a; i <= b; i++) { R2[i] = a + b; if (PG[i]) w2 += a + b }
	}
	MWU_U = w2 / 2 - n2 * (n2 + 1) / 2
	e2 = n2 * (N + 1)
	dev = abs(w2 - e2)
	if (N <= MWU_EXACT) {
		# C[j * K + s]: the ways to draw j of the runs seen so far with a
		# doubled rank sum s
		split("", C); K = N * (N + 1) + 1; C[0] = 1; smax = 0
		for (i = 1; i <= N; i++) {
			r2 = R2[i]; top = i < n2 ? i : n2
			for (j = top; j >= 1; j--)
				for (s = smax; s >= 0; s--)
					if (((j - 1) * K + s) in C) C[j * K + s + r2] += C[(j - 1) * K + s]
			smax += r2
		}
		tot = hit = 0
		for (s = 0; s <= smax; s++)
			if ((n2 * K + s) in C) {
				c = C[n2 * K + s]; tot += c
				if (abs(s - e2) >= dev) hit += c
			}
		return hit / tot
	}
	sig = msqrt(n1 * n2 / 12 * ((N + 1) - T / (N * (N - 1))))
	u = dev / 2 - 0.5
	if (sig == 0 || u <= 0) return 1
	return erfc(u / sig / msqrt(2))
}

# holm(P, n, ADJ): the Holm-Bonferroni adjusted p of each of the n tests
# P[1..n] into ADJ[1..n]: the k-th smallest p times (n - k + 1), at most
# 1, and never below an adjusted p before it. It holds the chance of any
# false rejection among the n at alpha, whatever their dependence.
function holm(P, n, ADJ,    t, u, x, o, run) {
	for (t = 1; t <= n; t++) o[t] = t
	for (t = 2; t <= n; t++) {
		x = o[t]
		for (u = t - 1; u >= 1 && P[o[u]] > P[x]; u--) o[u + 1] = o[u]
		o[u + 1] = x
	}
	run = 0
	for (t = 1; t <= n; t++) {
		x = P[o[t]] * (n - t + 1)
		if (x > 1) x = 1
		if (x < run) x = run
		run = x
		ADJ[o[t]] = x
	}
}
