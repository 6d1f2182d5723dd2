# bench.awk: check a benchmark's declaration, <module>/bench.conf (format
# ipistorm-bench/2, or /1 without instrument=, docs/bench.md), read on
# stdin; POSIX awk (busybox).
#   awk -v prog=PROG -v file=PATH -v name=FOLDER -v mods="MODULE..." -f bench.awk <PATH
# Prints one "PROG: PATH: line N: what is wrong" per defect on stderr, exits 1 on
# any; silent, exit 0, when the declaration is good.

function err(n, msg) {
	printf "%s: %s: %s%s\n", prog, file, (n ? "line " n ": " : ""), msg >"/dev/stderr"
	bad = 1
}
function dirn(d) { return d == "lower" || d == "higher" || d == "none" }
function keyname(k) { return k ~ /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/ }

BEGIN {
	# every key and whether its value may be empty
	split("format name metrics directions primary primary_label title summary hist hist_label cpus duration storm bisect_params bisect_storm bisect_boot bisect_metric dkms mmtests lkp instrument", ks, " ")
	for (i in ks) known[ks[i]] = 1
	split("directions cpus storm bisect_storm dkms mmtests lkp instrument", es, " ")
	for (i in es) mayempty[es[i]] = 1
	nm = split(mods, ml, " ")
	for (i = 1; i <= nm; i++) ismod[ml[i]] = 1
}

/^[ \t]*(#|$)/ { next }

{
	eq = index($0, "=")
	k = eq ? substr($0, 1, eq - 1) : ""
	if (k !~ /^[a-z_][a-z0-9_]*$/) { err(NR, "not KEY=value: '" $0 "'"); next }
	if (!(k in known)) { err(NR, "unknown key '" k "'"); next }
	if (k in v) { err(NR, "'" k "' declared twice"); next }
	val = substr($0, eq + 1)
	if (val ~ /["'`$\\]/) { err(NR, k ": quotes, $, ` and \\ are not allowed (the value is read as it stands)"); next }
	if (val ~ /^ | $/) { err(NR, k ": leading or trailing blanks"); next }
	v[k] = val; at[k] = NR
}

END {
	# ipistorm-bench/1 is /2 without instrument= (read as empty)
	old = v["format"] == "ipistorm-bench/1"
	for (i = 1; i in ks; i++) {
		k = ks[i]
		if (old && k == "instrument") {
			if (k in v) err(at[k], "instrument= is a key of ipistorm-bench/2, not of ipistorm-bench/1")
		} else if (!(k in v)) err(0, "no " k "= line")
		else if (v[k] == "" && !(k in mayempty)) err(at[k], k ": empty")
	}
	if (("format" in v) && v["format"] != "ipistorm-bench/2" && !old)
		err(at["format"], "format is '" v["format"] "', want ipistorm-bench/2 (or /1)")
	if (("name" in v) && v["name"] != name)
		err(at["name"], "name is '" v["name"] "', not its folder's '" name "'")
	n = split(v["metrics"], m, " ")
	for (i = 1; i <= n; i++) {
		if (split(m[i], f, ":") != 3 || !keyname(f[1]) || !dirn(f[2]) || f[3] !~ /^(ns|pct|count|per_sec)$/) {
			err(at["metrics"], "metric '" m[i] "' is not KEY:lower|higher|none:ns|pct|count|per_sec")
			continue
		}
		if (f[1] in metric) err(at["metrics"], "metric " f[1] " listed twice")
		metric[f[1]] = f[2]
	}
	if (("primary" in v) && v["primary"] != "" && !(v["primary"] in metric))
		err(at["primary"], "primary " v["primary"] " is not one of metrics=")
	n = split(v["directions"], m, " ")
	for (i = 1; i <= n; i++)
		if (split(m[i], f, ":") != 2 || f[1] !~ /^[a-z0-9_.*]+$/ || !dirn(f[2]))
			err(at["directions"], "direction '" m[i] "' is not GLOB:lower|higher|none")
	n = split(v["summary"], m, " ")
	for (i = 1; i <= n; i++)
		if (!keyname(m[i])) err(at["summary"], "summary key '" m[i] "' is not a result key")
	if (("hist" in v) && v["hist"] !~ /^[a-z0-9_]*$/)
		err(at["hist"], "hist '" v["hist"] "' is not a key prefix (KEY of total.KEY_hist_ns.N)")
	n = split(v["cpus"], m, " ")
	for (i = 1; i <= n; i++) {
		c = split(m[i], f, ":")
		ok = 1
		for (j = 2; j <= c; j++) if (f[j] !~ /^[a-z][a-z0-9_]*(=[0-9a-z_]+)?$/ && f[j] !~ /^[0-9]+$/) ok = 0
		if (!ok || !((f[1] == "pairs" && c == 2) || (f[1] == "list" && c >= 2) || (f[1] == "shift" && c == 5)))
			err(at["cpus"], "cpus rule '" m[i] "' is not pairs:P, list:P[:P...] or shift:P:OFFSET_P:DEFAULT:P=VALUE")
	}
	if (("duration" in v) && v["duration"] !~ /^(yes|no)$/)
		err(at["duration"], "duration is '" v["duration"] "', want yes or no")
	if (v["storm"] != "" && !(v["storm"] in ismod))
		err(at["storm"], "storm " v["storm"] " is not a module of the suite's Kbuild")
	if (v["bisect_storm"] != "" && v["storm"] == "")
		err(at["bisect_storm"], "bisect_storm without a storm= module")
	b = v["bisect_metric"]; sub(/:(lower|higher)$/, "", b)
	n = split(b, m, "/")
	if (("bisect_metric" in v) && (n < 1 || n > 2 || !keyname(m[1]) || (n == 2 && !keyname(m[2]))))
		err(at["bisect_metric"], "bisect_metric '" v["bisect_metric"] "' is not KEY[:lower|:higher] or A/B")
	n = split(v["instrument"], m, " ")
	for (i = 1; i <= n; i++)
		if (!keyname(m[i])) err(at["instrument"], "instrument key '" m[i] "' is not a result key")
	split("dkms mmtests lkp", h, " ")
	for (i = 1; i <= 3; i++)
		if (v[h[i]] !~ /^[a-z0-9_-]*$/) err(at[h[i]], h[i] " name '" v[h[i]] "' is not a name")
	exit bad
}
