# run-irqs.awk: run.sh's irqs.cpuN= lines. Input: in_dir's
# "IRQ/FILE:LIST" lines of effective_affinity_list and smp_affinity_list;
# -F :, -v cpus= the measured CPUs. Prints, per measured CPU, the IRQs
# whose affinity (the effective one where there is one) holds it, or none.
{ split($1, p, "/"); if (!(p[1] in a)) o[++n] = p[1]; if (!(p[1] in a) || p[2] ~ /^effective/) a[p[1]] = $2 }
END {
	nc = split(cpus, cl, " ")
	for (j = 1; j <= nc; j++) m[cl[j]] = 1
	for (i = 1; i <= n; i++) {
		k = split(a[o[i]], r, ",")
		for (x = 1; x <= k; x++) {
			if (split(r[x], e, "-") != 2) e[2] = e[1] = r[x]
			for (c = e[1] + 0; c <= e[2] + 0; c++)
				if (c in m) l[c] = l[c] (l[c] == "" ? "" : ",") o[i]
		}
	}
	for (j = 1; j <= nc; j++)
		print "irqs.cpu" cl[j] "=" (l[cl[j]] == "" ? "none" : l[cl[j]])
}
