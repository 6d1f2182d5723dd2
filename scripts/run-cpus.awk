# run-cpus.awk: run.sh's measured CPUs. Input: "BENCH PARAM=VALUE... [;
# STORM_BENCH PARAM=VALUE...]"; -v online= the online CPU list, rules0 and
# rules1 the two benches' declared cpus= rules (docs/bench.md). Prints the
# measured CPUs, one a line. Needs cpulist.awk loaded before it.
function group(    r, nr, f, nf, j, k, c, n, p, x, l, set) {
	nr = split(g ? rules1 : rules0, r, " ")
	for (j = 1; j <= nr; j++) {
		nf = split(r[j], f, ":")
		if (!(f[2] in v)) continue
		if (f[1] == "pairs" && v[f[2]] ~ /[0-9]/) {
			n = split(v[f[2]], p, ",")
			for (k = 1; k <= n; k++) { split(p[k], x, ":"); cpus[x[1] + 0]; cpus[x[2] + 0] }
			break
		} else if (f[1] == "shift" && index(f[5], "=") && v[substr(f[5], 1, index(f[5], "=") - 1)] == substr(f[5], index(f[5], "=") + 1)) {
			cpulist_expand(v[f[2]], set)
			for (c in set) { cpus[c]; cpus[c + (f[3] in v ? v[f[3]] : f[4])] }
			break
		} else if (f[1] == "list") {
			l = v[f[2]]
			for (k = 3; k <= nf; k++) l = l "," v[f[k]]
			cpulist_expand(l, cpus)
			break
		}
	}
	if (j > nr) all = 1
	split("", v)
}
{
	for (i = 1; i <= NF; i++) {
		if ($i == ";") { group(); b = ""; g++; continue }
		if (b == "") { b = $i; continue }
		eq = index($i, "=")
		if (eq) v[substr($i, 1, eq - 1)] = substr($i, eq + 1)
	}
	group()
}
END {
	if (all) cpulist_expand(online, cpus)
	for (c in cpus) print c
}
