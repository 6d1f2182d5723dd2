# compare-diff.R: the differential test of compare.sh's statistics
# (compare-diff.sh drives it; docs/compare.md, "Differential testing").
#
#   Rscript compare-diff.R gen SEED COUNT DIR   write COUNT cases, seeds SEED..SEED+COUNT-1
#   Rscript compare-diff.R check DIR            judge compare.sh's outputs in DIR
#
# gen: each case is drawn from its own seed alone (set.seed(seed)), so a
# failing case is re-made by its seed: DIR/SEED/{base,new} are run.sh
# result directories of ipistorm (meta.txt, iter-NNN.txt) with two
# metrics, runtime_ns (lower is better) and total.poll_pct (higher), and
# DIR/SEED/args holds "rule alpha z json" (z = qnorm(1 - alpha/2), R's,
# as MMTests' own interval asks R for it).
#
# check: per case, compare.sh's exit (rc), stdout (out.csv) and stderr
# (err) against R's t.test (Welch), wilcox.test (exact; with ties the
# exact permutation distribution of the mid-ranks, counted here; beyond
# 40 runs the normal approximation with tie and continuity corrections),
# Brown-Forsythe (anova of lm on the absolute deviations from the group
# medians), the binomial median interval, and with -m mmtests the means,
# stddevs and interval ratio of MMTests' own Stat.pm (DIR/SEED/mmtests,
# written by compare-diff-mmtests.pl). A disagreement beyond the
# tolerances below, a non-finite number, a verdict or exit that R's
# numbers contradict, a hang: a failure, printed with its seed. Exit 1
# on any failure.

BOUND_HI <- 1e20	# compare.sh's bounds of a value's magnitude (0 or within)
BOUND_LO <- 1e-20
METRICS <- c(runtime_ns = "lower", total.poll_pct = "higher")
THRESH <- 5	# compare.sh's default -t
SDFACTOR <- 2	# and -s

fmtv <- function(x, dec) {
	s <- sprintf(paste0("%.", dec, "f"), x)
	sub("^-(0\\.?0*)$", "\\1", s)	# no "-0.00": a plain zero
}

# draw(kind, n, mag): n values of a kind at magnitude mag
draw <- function(kind, n, mag, loc) {
	switch(kind,
		normal = loc + rnorm(n, 0, mag * runif(1, 0.001, 0.3)),
		lognormal = loc * exp(rnorm(n, 0, runif(1, 0.01, 1))),
		ties = loc + mag * sample(0:3, n, replace = TRUE) * runif(1, 0.01, 0.1),
		bimodal = loc * ifelse(runif(n) < runif(1, 0.2, 0.8), 1, runif(1, 2, 6)) + rnorm(n, 0, mag * 0.01),
		constant = rep(loc, n),
		zeros = ifelse(runif(n) < runif(1, 0.2, 1), 0, loc),
		negatives = rnorm(n, 0, mag))
}

gen_case <- function(seed, dir) {
	set.seed(seed)
	rn <- function() {
		u <- runif(1)
		if (u < 0.6) sample(2:12, 1) else if (u < 0.9) sample(13:30, 1) else sample(31:60, 1)
	}
	n <- c(rn(), rn())
	if (runif(1) < 0.3) n[2] <- n[1]
	rule <- sample(c("welch", "mmtests"), 1)
	alpha <- sample(c(0.05, 0.05, 0.05, 0.01, 0.1, 0.001), 1)
	vals <- list(list(), list())
	for (m in names(METRICS)) {
		mag <- 10^runif(1, -9, 15)
		if (runif(1) < 0.04) mag <- 10^runif(1, 16, 200)	# beyond the bound
		dec <- max(0, min(15, ceiling(-log10(mag)) + sample(0:6, 1)))
		if (runif(1) < 0.1) dec <- sample(1:3, 1)	# short decimals: 0.7
		kind <- sample(c("normal", "normal", "lognormal", "ties", "bimodal", "constant", "constant",
			"zeros", "negatives", "identical"), 1)
		loc <- mag * runif(1, 1, 10)
		if (kind == "constant" && runif(1) < 0.5) loc <- round(loc, dec)
		shift <- sample(c(0, 0, 0.01, 0.1, 1), 1) * sample(c(-1, 1), 1)
		scale <- sample(c(1, 1, 0.3, 3), 1)
		if (kind == "identical") {
			a <- draw("normal", n[1], mag, loc)
			b <- sample(a, n[2], replace = n[2] > n[1])
		} else {
			a <- draw(kind, n[1], mag, loc)
			k2 <- if (kind == "constant" && runif(1) < 0.3) sample(c("normal", "zeros"), 1) else kind
			loc2 <- loc * (1 + shift)
			if (k2 == "zeros" && runif(1) < 0.5) loc2 <- loc	# a share falling to 0
			b <- draw(k2, n[2], mag * scale, loc2)
		}
		vals[[1]][[m]] <- fmtv(a, dec)
		vals[[2]][[m]] <- fmtv(b, dec)
	}
	cd <- file.path(dir, seed)
	for (s in 1:2) {
		d <- file.path(cd, c("base", "new")[s])
		dir.create(d, recursive = TRUE, showWarnings = FALSE)
		writeLines(c("format=ipistorm-run/2", "bench=ipistorm", "params=numipi=100", "storm=",
			paste0("kernel=", c("base", "new")[s]), "status=ok", paste0("iterations=", n[s])),
			file.path(d, "meta.txt"))
		for (i in seq_len(n[s]))
			writeLines(c("format=ipistorm/1", "status=complete",
				paste0(names(METRICS), "=", sapply(names(METRICS), function(m) vals[[s]][[m]][i]))),
				file.path(d, sprintf("iter-%03d.txt", i)))
	}
	writeLines(sprintf("%s %s %.17g %d", rule, format(alpha), qnorm(1 - alpha / 2), as.integer(runif(1) < 0.25)),
		file.path(cd, "args"))
}

# values(d, key): the values of key in d's iter-*.txt, as written
values <- function(d, key) {
	fs <- sort(list.files(d, pattern = "^iter-[0-9]+\\.txt$", full.names = TRUE))
	s <- sapply(fs, function(f) { l <- readLines(f); sub("^[^=]*=", "", l[startsWith(l, paste0(key, "="))]) })
	as.numeric(s)
}

# The exact two-sided p of the rank sum of y against x, ties given their
# mid-ranks: the permutation distribution of the doubled rank sum, drawn
# as a generating function over the pooled runs.
exact_mwu <- function(x, y) {
	r2 <- as.integer(round(2 * rank(c(x, y))))
	n2 <- length(y); N <- length(r2)
	smax <- sum(r2)
	dp <- matrix(0, n2 + 1, smax + 1)
	dp[1, 1] <- 1
	for (r in r2)
		for (j in n2:1)
			dp[j + 1, ] <- dp[j + 1, ] + c(rep(0, r), dp[j, seq_len(smax + 1 - r)])
	w2 <- sum(r2[(length(x) + 1):N])
	e2 <- n2 * (N + 1)
	s <- 0:smax
	dist <- dp[n2 + 1, ]
	sum(dist[abs(s - e2) >= abs(w2 - e2)]) / sum(dist)
}

# ref(a, b, dirn, alpha): R's figures of one metric, base a, new b
ref <- function(a, b, alpha) {
	r <- list(mean = mean(b), sd = sd(b), median = median(b))
	const <- all(a == a[1]) && all(b == b[1])
	if (const) {
		r$p <- if (a[1] == b[1]) 1 else 0
	} else {
		t <- tryCatch(t.test(b, a, var.equal = FALSE), error = function(e) NULL)
		if (!is.null(t)) { r$t <- unname(t$statistic); r$df <- unname(t$parameter); r$p <- t$p.value }
	}
	N <- length(a) + length(b)
	r$u <- sum(rank(c(a, b))[(length(a) + 1):N]) - length(b) * (length(b) + 1) / 2
	r$mwu <- if (all(c(a, b) == a[1])) 1 else if (N <= 40) {
		if (anyDuplicated(c(a, b))) exact_mwu(a, b) else wilcox.test(b, a, exact = TRUE)$p.value
	} else suppressWarnings(wilcox.test(b, a, exact = FALSE, correct = TRUE)$p.value)
	if (length(a) >= 3 && length(b) >= 3) {
		za <- abs(a - median(a)); zb <- abs(b - median(b))
		if (all(za == za[1]) && all(zb == zb[1])) r$varp <- if (za[1] == zb[1]) 1 else 0
		else {
			z <- c(za, zb); g <- factor(rep(1:2, c(length(a), length(b))))
			r$varp <- suppressWarnings(anova(lm(z ~ g)))[["Pr(>F)"]][1]
		}
	}
	r$sdr <- if (sd(a) > 0) sd(b) / sd(a) else if (all(b == b[1])) 1 else NA
	r$ci <- medci(b, alpha)
	r
}
medci <- function(x, alpha) {
	n <- length(x); k <- 0
	for (i in 1:n) if (pbinom(i - 1, n, 0.5) <= alpha / 2 * (1 + 1e-12)) k <- i else break
	if (k < 1) return(c(NA, NA))
	s <- sort(x)
	c(s[k], s[n + 1 - k])
}

check <- function(dir) {
	seeds <- sort(as.integer(list.files(dir, pattern = "^[0-9]+$")))
	fails <- character(0); classes <- character(0); nskip <- 0
	for (seed in seeds) {
		cd <- file.path(dir, seed)
		args <- strsplit(readLines(file.path(cd, "args")), " ")[[1]]
		rule <- args[1]; alpha <- as.numeric(args[2])
		rc <- as.integer(readLines(file.path(cd, "rc")))
		err <- paste(readLines(file.path(cd, "err"), warn = FALSE), collapse = "\n")
		out <- readLines(file.path(cd, "out.csv"), warn = FALSE)
		fail <- function(class, msg) {
			fails <<- c(fails, sprintf("FAIL seed=%d %s: %s", seed, class, msg))
			classes <<- c(classes, class)
		}
		va <- lapply(names(METRICS), function(m) values(file.path(cd, "base"), m))
		vb <- lapply(names(METRICS), function(m) values(file.path(cd, "new"), m))
		all_v <- c(unlist(va), unlist(vb))
		out_of_range <- any(all_v != 0 & (abs(all_v) > BOUND_HI | abs(all_v) < BOUND_LO))
		if (rc == 124) { fail("hang", sprintf("compare.sh -m %s -a %s did not finish (killed)", rule, alpha)); next }
		if (any(grepl("nan|inf", out, ignore.case = TRUE)))
			fail("non-finite", paste("nan or inf in the output:", grep("nan|inf", out, ignore.case = TRUE, value = TRUE)[1]))
		if (file.exists(file.path(cd, "json.rc")) && readLines(file.path(cd, "json.rc")) != "0")
			fail("invalid-json", paste(readLines(file.path(cd, "json.err"), warn = FALSE), collapse = " "))
		if (out_of_range) {
			if (rc != 2) fail("out-of-range-accepted", sprintf("a value beyond %g: exit %d, want 2", BOUND_HI, rc))
			else if (!grepl("iter-[0-9]+\\.txt: (runtime_ns|total\\.poll_pct)=", err))
				fail("out-of-range-message", paste("the error names no file, key and value:", err))
			next
		}
		if (rc == 2) { fail("refused", paste("exit 2 on good input:", err)); next }
		if (length(out) < 3) { fail("no-output", sprintf("exit %d, %d lines", rc, length(out))); next }
		csv <- read.csv(text = out, colClasses = "character")
		mm <- if (rule == "mmtests" && file.exists(file.path(cd, "mmtests")))
			read.table(file.path(cd, "mmtests"), header = TRUE, colClasses = c("character", rep("numeric", 5)))
		anyreg <- FALSE
		for (i in seq_along(METRICS)) {
			m <- names(METRICS)[i]; dirn <- METRICS[[i]]
			a <- va[[i]]; b <- vb[[i]]
			row <- csv[csv$record == "metric" & csv$name == m & csv$label == "new", ]
			brow <- csv[csv$record == "metric" & csv$name == m & csv$label == "base", ]
			if (nrow(row) != 1) { fail("no-output", paste("no record of", m)); next }
			num <- function(f, r = row) if (r[[f]] == "") NA else as.numeric(r[[f]])
			# near(x, want, rel, abs): within tolerance (NA only with NA)
			near <- function(x, want, rel, abs = 0)
				(is.na(x) && is.na(want)) || (!is.na(x) && !is.na(want) && abs(x - want) <= rel * abs(want) + abs)
			r <- ref(a, b, alpha)
			ra <- ref(b, a, alpha)	# the baseline's own figures: mean, sd, median
			chk <- function(class, field, got, want, rel, abs = 0)
				if (!near(got, want, rel, abs)) fail(class, sprintf("%s %s: compare.sh %s, R %.10g", m, field, format(got, digits = 10), want))
			# fixed-point fields (%.4f): half a unit of the 4th decimal
			chk("mean", "mean", num("mean"), r$mean, 1e-12, 6e-5)
			chk("mean", "baseline mean", num("mean", brow), ra$mean, 1e-12, 6e-5)
			chk("stddev", "stddev", num("stddev"), r$sd, 1e-9, 6e-5)
			chk("stddev", "baseline stddev", num("stddev", brow), ra$sd, 1e-9, 6e-5)
			chk("median", "median", num("median"), r$median, 1e-12, 6e-5)
			chk("median-ci", "median_ci_low", num("median_ci_low"), r$ci[1], 1e-12, 6e-5)
			chk("median-ci", "median_ci_high", num("median_ci_high"), r$ci[2], 1e-12, 6e-5)
			chk("mwu", "mwu_u", num("mwu_u"), r$u, 0, 0.05)
			# the p's: printed %.6g (a relative 5e-6), the tails by series
			# and fractions; no ranks (all runs equal): p = 1
			chk("mwu", "mwu_p", num("mwu_p"), r$mwu, 1e-5, 1e-300)
			if (!is.null(r$p)) chk("welch-p", "p", num("p"), r$p, 1e-4, 1e-300)
			else nskip <- nskip + 1
			if (!is.null(r$t)) chk("welch-t", "t", num("t"), r$t, 1e-6, 6e-7)
			if (!is.null(r$df) && !is.na(num("df"))) chk("welch-df", "df", num("df"), r$df, 1e-6, 6e-5)
			chk("brown-forsythe", "var_p", num("var_p"), if (is.null(r$varp)) NA else r$varp, 1e-4, 1e-300)
			chk("sd-ratio", "sd_ratio", num("sd_ratio"), r$sdr, 1e-5, 1e-300)
			# the verdict R's numbers give
			if (rule == "mmtests") {
				x <- if (!is.null(mm)) mm[mm$metric == m, ] else NULL
				if (!is.null(x) && nrow(x) == 1) {
					# MMTests' NaN harmonic mean (a run 0 or less): compare.sh
					# falls back to the arithmetic mean and stddev
					chk("mmtests-mean", "mmtests_mean", num("mmtests_mean"), x$new_mean, 1e-9, 6e-5)
					chk("mmtests-mean", "baseline mmtests_mean", num("mmtests_mean", brow), x$base_mean, 1e-9, 6e-5)
					chk("mmtests-stddev", "mmtests_stddev", num("mmtests_stddev"), x$new_sd, 1e-6, 6e-5)
					# (MMTests' naive sums leave a residue of about 1e-16
					# of the means in a difference of equal means)
					resid <- 1e-13 * (abs(x$base_mean) + abs(x$new_mean))
					sds <- x$base_sd + x$new_sd
					chk("mmtests-ratio", "ci_ratio", num("ci_ratio"), x$ratio, 1e-5,
						1e-9 + if (sds > 0) resid / (qnorm(1 - alpha / 2) * sds) else resid)
					sig <- abs(x$ratio) > 1
					edge <- abs(abs(x$ratio) - 1) < 1e-6
					cm <- c(x$base_mean, x$new_mean)
				} else { sig <- NA; edge <- TRUE }
			} else {
				sig <- !is.null(r$p) && r$p < alpha
				edge <- is.null(r$p) || abs(r$p - alpha) <= 1e-4 * alpha
				cm <- c(ra$mean, r$mean)
			}
			got <- row$significant == "1"
			if (!edge && got != sig)
				fail("verdict", sprintf("%s %s: significant=%s, R's numbers say %s", m, rule, row$significant, sig))
			if (!edge) {
				worse <- if (dirn == "lower") cm[2] > cm[1] else cm[2] < cm[1]
				gain <- if (cm[1] != 0) (cm[2] - cm[1]) / abs(cm[1]) * 100 * (if (dirn == "lower") -1 else 1) else NA
				reg <- sig && worse && (is.na(gain) || gain < -THRESH)
				if (!is.na(gain) && abs(abs(gain) - THRESH) < 1e-6) reg <- row$regression == "1"
				if ((row$regression == "1") != reg)
					fail("verdict", sprintf("%s: regression=%s, R's numbers say %s (gain %.6g%%)", m, row$regression, reg, gain))
			}
			anyreg <- anyreg || row$regression == "1"
			if (!is.null(r$varp) && !(abs(r$varp - alpha) <= 1e-4 * alpha)) {
				vs <- r$varp < alpha
				if ((row$var_significant == "1") != vs)
					fail("var-verdict", sprintf("%s: var_significant=%s, Brown-Forsythe p %.6g", m, row$var_significant, r$varp))
				vr <- vs && (is.na(r$sdr) || r$sdr >= SDFACTOR)
				if (!is.na(r$sdr) && abs(r$sdr - SDFACTOR) < 1e-9) vr <- row$var_regression == "1"
				if ((row$var_regression == "1") != vr)
					fail("var-verdict", sprintf("%s: var_regression=%s, R's numbers say %s", m, row$var_regression, vr))
			}
			anyreg <- anyreg || row$var_regression == "1"
		}
		if (rc != as.integer(anyreg)) fail("exit", sprintf("exit %d with regression records %s", rc, anyreg))
	}
	cat(fails, sep = "\n")
	if (length(fails)) cat("\n")
	cl <- table(classes)
	cat(sprintf("%d cases, %d failures (%d cases); welch p not compared (R: data essentially constant): %d\n",
		length(seeds), length(fails), length(unique(sub(" .*", "", sub("^FAIL seed=", "", fails)))), nskip))
	for (k in names(cl)) cat(sprintf("  %s: %d, first seed %s\n", k, cl[[k]],
		sub("^FAIL seed=([0-9]+).*", "\\1", fails[classes == k][1])))
	quit(status = if (length(fails)) 1 else 0)
}

a <- commandArgs(trailingOnly = TRUE)
if (length(a) == 4 && a[1] == "gen") {
	s0 <- as.integer(a[2])
	for (s in s0:(s0 + as.integer(a[3]) - 1)) gen_case(s, a[4])
} else if (length(a) == 2 && a[1] == "check") {
	check(a[2])
} else {
	cat("usage: Rscript compare-diff.R gen SEED COUNT DIR | check DIR\n", file = stderr())
	quit(status = 2)
}
