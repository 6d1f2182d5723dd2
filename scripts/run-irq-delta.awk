# run-irq-delta.awk: run.sh's ipistorm-irq/1 lines. ENVIRON["B"] and
# ENVIRON["A"]: /proc/interrupts before and after; -v cpus= the measured
# CPUs. Prints cpuN.KIND=DELTA for CAL, RES, LOC and TLB.
function load(f, t,    line, w, n, i, k) {
	while ((getline line < f) > 0) {
		n = split(line, w, " ")
		if (w[1] ~ /^CPU[0-9]+$/) { for (i = 1; i <= n; i++) col[f, i] = substr(w[i], 4) + 0; continue }
		k = w[1]; sub(/:$/, "", k)
		if (k !~ /^(CAL|RES|LOC|TLB)$/) continue
		for (i = 2; i <= n && w[i] ~ /^[0-9]+$/; i++) t[col[f, i - 1], k] = w[i]
	}
	close(f)
}
BEGIN {
	load(ENVIRON["B"], b); load(ENVIRON["A"], a)
	nc = split(cpus, cl, " "); split("CAL RES LOC TLB", ks, " ")
	for (j = 1; j <= nc; j++)
		for (k = 1; k <= 4; k++)
			if (((cl[j], ks[k]) in a) && ((cl[j], ks[k]) in b))
				print "cpu" cl[j] "." ks[k] "=" a[cl[j], ks[k]] - b[cl[j], ks[k]]
}
