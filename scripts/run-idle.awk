# run-idle.awk: run.sh's ipistorm-idle/1 lines. ENVIRON["B"] and
# ENVIRON["A"]: the snapshots before and after an iteration, lines
# "cpuN/cpuidle/stateM/FILE:VALUE" (name, usage, time, above, below),
# "cpuN/msr/mperf:V", "cpuN/msr/aperf:V" and, after only,
# "cpuN/cpufreq/FILE:VALUE" (scaling_cur_freq, base_frequency,
# cpuinfo_max_freq, scaling_driver); -v cpus= the measured CPUs. Prints per
# CPU, in the order of cpus, each idle state's name and the deltas of its
# counters, then the frequency: the APERF/MPERF ratio, and in kHz on a
# base, else scaling_cur_freq's.
function load(f, t,    line, i) {
	while ((getline line < f) > 0) {
		i = index(line, ":")
		if (i) t[substr(line, 1, i - 1)] = substr(line, i + 1)
	}
	close(f)
}
function num(x) { return x ~ /^[0-9]+$/ }
# delta(k): the growth of counter k over the iteration, "" when it is not
# in both snapshots or went back (a CPU unplugged and plugged again).
function delta(k) {
	if (!((k in a) && (k in b)) || !num(a[k]) || !num(b[k]) || a[k] + 0 < b[k] + 0) return ""
	return a[k] - b[k]
}
BEGIN {
	load(ENVIRON["B"], b); load(ENVIRON["A"], a)
	print "format=ipistorm-idle/1"
	nc = split(cpus, cl, " "); split("usage time above below", ks, " ")
	for (j = 1; j <= nc; j++) {
		c = "cpu" cl[j]
		# the states, numbered from 0 in cpuidle's order
		for (s = 0; (c "/cpuidle/state" s "/name") in a; s++) {
			p = c "/cpuidle/state" s
			print c ".state" s ".name=" a[p "/name"]
			for (k = 1; k <= 4; k++)
				if ((d = delta(p "/" ks[k])) != "") printf "%s.state%d.%s=%.0f\n", c, s, ks[k], d
		}
		da = delta(c "/msr/aperf"); dm = delta(c "/msr/mperf")
		khz = ""
		if (da != "" && dm != "" && dm > 0) {
			printf "%s.aperf_mperf_ratio=%.4f\n", c, da / dm
			f = c "/cpufreq/"
			if (num(a[f "base_frequency"]) && a[f "base_frequency"] > 0) base = "base_frequency"
			else if (a[f "scaling_driver"] == "acpi-cpufreq" && num(a[f "cpuinfo_max_freq"]) && a[f "cpuinfo_max_freq"] > 0) base = "cpuinfo_max_freq"
			else base = ""
			if (base != "") {
				print c ".aperf_mperf_base=" base
				print c ".aperf_mperf_base_khz=" a[f base]
				printf "%s.aperf_mperf_khz=%.0f\n", c, a[f base] * da / dm
				khz = 1
			}
		}
		if (!khz && num(a[c "/cpufreq/scaling_cur_freq"]))
			print c ".cur_freq_khz=" a[c "/cpufreq/scaling_cur_freq"]
	}
}
