# bench.awk: check a benchmark's declaration, <folder>/bench.conf (format
# ipistorm-bench/7, docs/bench.md; an older one is refused, naming what
# to change), or with part=wiring its wiring, <folder>/wiring.conf
# (format ipistorm-wiring/1), read on stdin; POSIX awk (busybox).
#   awk -v prog=PROG -v file=PATH -v name=FOLDER -v mods="MODULE..." -f bench.awk <PATH
#   awk -v part=wiring -v prog=PROG -v file=PATH -v name=FOLDER \
#       -v kind=KIND -v storm=STORM -f bench.awk <PATH
#       (KIND and STORM: kind= and storm= of the folder's bench.conf)
# Prints one "PROG: PATH: line N: what is wrong" per defect on stderr, exits 1 on
# any; silent, exit 0, when the declaration is good.

function err(n, msg) {
	printf "%s: %s: %s%s\n", prog, file, (n ? "line " n ": " : ""), msg >"/dev/stderr"
	bad = 1
}
function dirn(d) { return d == "lower" || d == "higher" || d == "none" }
function keyname(k) { return k ~ /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/ }
# words K RE WHAT: each word of K's value matches RE, else a defect
function words(k, re, what,    n, w, i) {
	n = split(v[k], w, " ")
	for (i = 1; i <= n; i++) if (w[i] !~ re) err(at[k], k ": '" w[i] "' is not " what)
	return n
}
# placeholders K: each {NAME} of K's value is a declared parameter's, and
# its first word one of programs=
function placeholders(k,    s, p, n, w) {
	if (v[k] == "") return
	n = split(v[k], w, " ")
	if (!(w[1] in isprog)) err(at[k], k ": runs '" w[1] "', which is not one of programs=")
	s = v[k]
	while (match(s, /\{[^}]*\}/)) {
		p = substr(s, RSTART + 1, RLENGTH - 2)
		if (!(p in param)) err(at[k], k ": {" p "} is no parameter of params=")
		s = substr(s, RSTART + RLENGTH)
	}
	if (s ~ /[{}]/) err(at[k], k ": a brace outside a {NAME} placeholder")
}
# program: the keys of a program's declaration (/4, kind=program)
# (/6: without package=, the programs are the suite's own, each built by
# make from PROGRAM.c beside the declaration)
function program(    n, w, i, f, p, src, line) {
	words("package", "^[a-z0-9][a-z0-9+.-]+$", "a Debian package's name")
	n = split(v["programs"], w, " ")
	for (i = 1; i <= n; i++) {
		if (w[i] !~ /^[A-Za-z0-9_][A-Za-z0-9_.+-]*$/) err(at["programs"], "programs: '" w[i] "' is not a program's name (no /)")
		else if (v["package"] == "") {
			src = file
			sub(/[^\/]*$/, "", src)
			src = src w[i] ".c"
			if ((getline line < src) < 0) err(at["programs"], "programs: no " src ": a program of no package= is built from its C beside the declaration")
			close(src)
		}
		isprog[w[i]] = 1
	}
	words("data", "^/[A-Za-z0-9_./+-]+$", "an absolute path")
	n = split(v["params"], w, " ")
	for (i = 1; i <= n; i++) {
		if (split(w[i], f, "=") != 2 || f[1] !~ /^[a-z][a-z0-9_]*$/ || f[2] !~ /^[A-Za-z0-9_.,:+-]+$/)
			err(at["params"], "params: '" w[i] "' is not NAME=DEFAULT (the default of letters, digits and _.,:+-)")
		else if (f[1] in param) err(at["params"], "params: " f[1] " listed twice")
		param[f[1]] = 1
		pdef[f[1]] = f[2]
	}
	placeholders("command")
	placeholders("server")
	# choices: NAME:ITEM,... an item VALUE or VALUE=WORD (the word, maybe
	# none, that {NAME} stands for); the default one of them
	n = split(v["choices"], w, " ")
	for (i = 1; i <= n; i++) {
		c = index(w[i], ":")
		p = substr(w[i], 1, c - 1)
		if (!c || !(p in param) || substr(w[i], c + 1) !~ /^[A-Za-z0-9_.+-]+(=[A-Za-z0-9_.:+-]*)?(,[A-Za-z0-9_.+-]+(=[A-Za-z0-9_.:+-]*)?)*$/) {
			err(at["choices"], "choices: '" w[i] "' is not PARAM:VALUE[=WORD],... of a parameter of params=")
			continue
		}
		if (p in chose) err(at["choices"], "choices: " p " listed twice")
		chose[p] = 1
		if (index("," substr(w[i], c + 1) ",", "," pdef[p] ",") == 0 && index("," substr(w[i], c + 1), "," pdef[p] "=") == 0)
			err(at["choices"], "choices: " p "'s default " pdef[p] " is not one of its choices")
	}
	# timeout: the seconds an iteration may take, a sum of N, {NAME} and
	# N*{NAME} words
	n = split(v["timeout"], w, " ")
	for (i = 1; i <= n; i++) {
		p = w[i]
		sub(/^[0-9]+\*/, "", p)
		if (w[i] ~ /^[1-9][0-9]*$/) continue
		if (p !~ /^\{[a-z][a-z0-9_]*\}$/ || !(substr(p, 2, length(p) - 2) in param))
			err(at["timeout"], "timeout: '" w[i] "' is not SECONDS, {NAME} or N*{NAME} of a parameter of params=")
	}
	if ((v["server"] == "") != (v["server_port"] == ""))
		err(at[v["server"] == "" ? "server_port" : "server"], "server= and server_port= go together: both empty or neither")
	p = v["server_port"]
	if (p ~ /^\{[a-z][a-z0-9_]*\}$/) {
		if (!(substr(p, 2, length(p) - 2) in param)) err(at["server_port"], "server_port: " p " is no parameter of params=")
	} else if (p != "" && (p !~ /^[1-9][0-9]*$/ || p + 0 > 65535))
		err(at["server_port"], "server_port: '" p "' is not a TCP port (1 to 65535) or a {NAME} placeholder")
}

BEGIN {
	# every key, those whose value may be empty, those of a module's only
	# and of a program's only
	if (part == "wiring") {
		want = "ipistorm-wiring/1"
		keys = "format testbed bisect_params bisect_storm bisect_boot bisect_metric dkms mmtests lkp"
		empty = "testbed bisect_storm dkms mmtests lkp"
		mkeys = "bisect_params bisect_storm bisect_boot bisect_metric dkms mmtests lkp"
		pkeys = ""
	} else {
		want = "ipistorm-bench/7"
		keys = "format name kind metrics directions primary primary_label title summary hist hist_label cpus duration storm instrument tail tail_label package programs data params command server server_port choices timeout"
		empty = "directions cpus storm instrument tail tail_label package data server server_port choices"
		mkeys = "hist hist_label duration storm"
		pkeys = "package programs data params command server server_port choices timeout"
	}
	split(keys, ks, " ")
	for (i in ks) known[ks[i]] = 1
	split(empty, es, " ")
	for (i in es) mayempty[es[i]] = 1
	split(mkeys, ms, " ")
	for (i in ms) only[ms[i]] = "module"
	split(pkeys, ps, " ")
	for (i in ps) only[ps[i]] = "program"
	# the keys /7 moved to wiring.conf, and what a declaration of an older
	# format lacks besides
	moved = "testbed bisect_params bisect_storm bisect_boot bisect_metric dkms mmtests lkp"
	split(moved, mv, " ")
	for (i in mv) wired[mv[i]] = 1
	lacks["ipistorm-bench/6"] = ""
	lacks["ipistorm-bench/5"] = ""
	lacks["ipistorm-bench/4"] = "choices= and timeout= (a program's)"
	lacks["ipistorm-bench/3"] = "kind=module"
	lacks["ipistorm-bench/2"] = "kind=module, tail= and tail_label="
	lacks["ipistorm-bench/1"] = "kind=module, instrument=, tail= and tail_label="
	nm = split(mods, ml, " ")
	for (i = 1; i <= nm; i++) ismod[ml[i]] = 1
}

/^[ \t]*(#|$)/ { next }

{
	eq = index($0, "=")
	k = eq ? substr($0, 1, eq - 1) : ""
	if (k !~ /^[a-z_][a-z0-9_]*$/) { err(NR, "not KEY=value: '" $0 "'"); next }
	if (!(k in known)) {
		if (part != "wiring" && (k in wired))
			err(NR, k "= is wiring, no longer a key of bench.conf: it goes in wiring.conf beside it (docs/bench.md)")
		else
			err(NR, "unknown key '" k "'")
		next
	}
	if (k in v) { err(NR, "'" k "' declared twice"); next }
	val = substr($0, eq + 1)
	if (val ~ /["'`$\\]/) { err(NR, k ": quotes, $, ` and \\ are not allowed (the value is read as it stands)"); next }
	if (val ~ /^ | $/) { err(NR, k ": leading or trailing blanks"); next }
	v[k] = val; at[k] = NR
}

END {
	if (part == "wiring") wiring()
	else declaration()
	exit bad
}

# format: the one read; an older declaration says what to change
function format(    fmt) {
	if (!("format" in v)) return
	fmt = v["format"]
	if (part != "wiring" && (fmt in lacks))
		err(at["format"], "format is " fmt ", no longer read: make it format=" want \
		    (lacks[fmt] == "" ? "" : ", add " lacks[fmt] ",") \
		    " and move its wiring (testbed=, bisect_*=, dkms=, mmtests=, lkp=) to wiring.conf beside it (docs/bench.md)")
	else if (fmt != want)
		err(at["format"], "format is '" fmt "', want " want)
}

# present: every key of the kind present, a key of the other kind absent,
# an empty value only where one may be
function present(    i, k) {
	for (i = 1; i in ks; i++) {
		k = ks[i]
		if ((k in only) && only[k] != kind) {
			if ((k in v) && kind != "") err(at[k], k "= is a key of a " only[k] "'s " (part == "wiring" ? "wiring" : "declaration") ", not of a " kind "'s")
		} else if (!(k in v)) err(0, "no " k "= line")
		else if (v[k] == "" && !(k in mayempty)) err(at[k], k ": empty")
	}
}

function declaration(    i, n, m, f, c, j, ok, t) {
	format()
	kind = ("kind" in v) ? v["kind"] : ""
	if (("kind" in v) && kind !~ /^(module|program)$/) {
		err(at["kind"], "kind is '" kind "', want module or program")
		kind = ""
	}
	present()
	if (kind == "program") program()
	if (("name" in v) && v["name"] != name)
		err(at["name"], "name is '" v["name"] "', not its folder's '" name "'")
	else if (("name" in v) && name !~ /^[a-z][a-z0-9_]*$/)
		err(at["name"], "name '" name "' is not a module's name (a-z, 0-9, _)")
	n = split(v["metrics"], m, " ")
	for (i = 1; i <= n; i++) {
		if (split(m[i], f, ":") != 3 || !keyname(f[1]) || !dirn(f[2]) || f[3] !~ /^(ns|pct|count|per_sec|mb_per_sec)$/) {
			err(at["metrics"], "metric '" m[i] "' is not KEY:lower|higher|none:ns|pct|count|per_sec|mb_per_sec")
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
		err(at["storm"], "storm " v["storm"] " is not a module folder of the suite (one with a bench.conf)")
	n = split(v["instrument"], m, " ")
	for (i = 1; i <= n; i++)
		if (!keyname(m[i])) err(at["instrument"], "instrument key '" m[i] "' is not a result key")
	# tail: KEY patterns, % the percentile's digits; its label with it
	n = split(v["tail"], m, " ")
	for (i = 1; i <= n; i++) {
		t = m[i]
		if (gsub(/%/, "50", t) != 1 || !keyname(t))
			err(at["tail"], "tail pattern '" m[i] "' is not a result key with one % for the percentile")
		else if (m[i] in tailp) err(at["tail"], "tail pattern " m[i] " listed twice")
		tailp[m[i]] = 1
	}
	if ((n > 0) != (v["tail_label"] != ""))
		err(at[n > 0 ? "tail" : "tail_label"], "tail= and tail_label= go together: both empty or neither")
}

# wiring: where the suite wires the benchmark in (wiring.conf): the test
# bed's boots, bisect.sh's defaults, DKMS, MMTests and lkp-tests
function wiring(    i, n, m, f, b, h) {
	if (kind !~ /^(module|program)$/) {
		err(0, "the kind of its bench.conf is '" kind "', want module or program")
		kind = ""
	}
	format()
	present()
	# testbed: BOOT:GLOB, GLOB a pattern on this module's own test names
	n = split(v["testbed"], m, " ")
	for (i = 1; i <= n; i++) {
		if (split(m[i], f, ":") != 2 || f[1] !~ /^[a-z][a-z0-9_]*$/ || f[2] !~ /^[A-Za-z0-9_*?]+$/)
			err(at["testbed"], "testbed word '" m[i] "' is not BOOT:GLOB")
		else if (f[1] == "functional")
			err(at["testbed"], "testbed word '" m[i] "': functional runs every test, it takes no list")
		else if (index(f[2], name "_") != 1)
			err(at["testbed"], "testbed word '" m[i] "': the glob must start with " name "_ (this benchmark's own tests)")
		else if (m[i] in tb) err(at["testbed"], "testbed word " m[i] " listed twice")
		tb[m[i]] = 1
	}
	if (v["bisect_storm"] != "" && storm == "")
		err(at["bisect_storm"], "bisect_storm without a storm= module in bench.conf")
	if ("bisect_metric" in v) {
		b = v["bisect_metric"]
		sub(/:(lower|higher)$/, "", b)
		n = split(b, m, "/")
		if (n < 1 || n > 2 || !keyname(m[1]) || (n == 2 && !keyname(m[2])))
			err(at["bisect_metric"], "bisect_metric '" v["bisect_metric"] "' is not KEY[:lower|:higher] or A/B")
	}
	split("dkms mmtests lkp", h, " ")
	for (i = 1; i <= 3; i++)
		if (v[h[i]] !~ /^[a-z0-9_-]*$/) err(at[h[i]], h[i] " name '" v[h[i]] "' is not a name")
}
