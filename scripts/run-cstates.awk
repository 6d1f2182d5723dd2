# run-cstates.awk: run.sh's cstates.cpuN= lines. Input: in_dir's
# "cpuN/cpuidle/stateM/FILE:VALUE" lines of name, latency and disable;
# -F :, -v cpus= the measured CPUs. Prints NAME:LATENCY_US:DISABLE of each
# state, ","-separated, per CPU in the order of cpus.
{
	split($1, p, "/"); c = substr(p[1], 4); s = p[3]; v = substr($0, length($1) + 2)
	if (!((c, s) in seen)) { seen[c, s] = 1; st[c, ++ns[c]] = s }
	val[c, s, p[4]] = v
}
function f(c, s, k) { return (c, s, k) in val ? val[c, s, k] : "unknown" }
END {
	nc = split(cpus, cl, " ")
	for (j = 1; j <= nc; j++) {
		c = cl[j]; o = ""
		for (k = 1; k <= ns[c]; k++) {
			s = st[c, k]
			o = o (k > 1 ? "," : "") f(c, s, "name") ":" f(c, s, "latency") ":" f(c, s, "disable")
		}
		print "cstates.cpu" c "=" o
	}
}
