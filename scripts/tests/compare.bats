#!/usr/bin/env bats
# compare.sh on the fixture results and on small made-up directories.

bats_require_minimum_version 1.5.0

setup() {
	S=$BATS_TEST_DIRNAME/..
	F=$BATS_TEST_DIRNAME/fixtures
	T=$BATS_TEST_TMPDIR
}

# mkrun DIR KERNEL RUNTIME...: a result directory with one iteration per value.
mkrun() {
	local d=$1 k=$2 i=0
	shift 2
	mkdir -p "$d"
	printf 'format=ipistorm-run/2\nbench=ipistorm\nparams=numipi=100 cpulist=0\nstorm=\nkernel=%s\nstatus=ok\n' "$k" >"$d/meta.txt"
	for v in "$@"; do
		i=$((i + 1))
		printf 'format=ipistorm/1\nstatus=complete\nruntime_ns=%s\n' "$v" >"$d/iter-$(printf %03d "$i").txt"
	done
}

# Independent check: mean, sample stddev, Welch t, df and the two-sided p by
# Simpson integration of Student's t density (not the incomplete beta): of
# the density itself for |t| < 1, of its tail beyond |t| otherwise.
python_stats() {
	python3 - "$@" <<'PY'
import math, statistics, sys, glob
def vals(d, key):
    out = []
    for f in sorted(glob.glob(d + "/iter-*.txt")):
        for l in open(f):
            k, _, v = l.strip().partition("=")
            if k == key:
                out.append(float(v))
    return out
key, a, b = sys.argv[1], vals(sys.argv[2], sys.argv[1]), vals(sys.argv[3], sys.argv[1])
m1, m2 = statistics.mean(a), statistics.mean(b)
v1, v2 = statistics.variance(a), statistics.variance(b)
n1, n2 = len(a), len(b)
se = v1 / n1 + v2 / n2
t = (m2 - m1) / math.sqrt(se)
df = se ** 2 / ((v1 / n1) ** 2 / (n1 - 1) + (v2 / n2) ** 2 / (n2 - 1))
c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
f = lambda x: c * (1 + x * x / df) ** (-(df + 1) / 2)
N, a = 20000, abs(t)
def simpson(g, lo, hi):
    h = (hi - lo) / N
    return (g(lo) + g(hi) + sum((4 if i % 2 else 2) * g(lo + i * h) for i in range(1, N))) * h / 3
if a < 1:
    p = 1 - 2 * simpson(f, 0, a)
else:
    # The tail itself, through x = a / u, so that a tiny p keeps its digits.
    p = 2 * simpson(lambda u: f(a / u) * a / (u * u) if u > 0 else 0.0, 0, 1)
print(m1, math.sqrt(v1), m2, math.sqrt(v2), t, df, p)
PY
}

# col NAME ROW: the field NAME (a header of compare.sh -f csv) of the
# ROW-th line of $output after the header (labels hold no comma here).
col() {
	awk -F, -v name="$1" -v row="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; if (!(name in c)) exit 1; next }
		NR == row + 1 { print $c[name]; exit }' <<<"$output"
}
# row METRIC LABEL: the line number (after the header) of a metric record.
row() { awk -F, -v m="$1" -v l="\"$2\"" '$2 == "metric" && $3 == m && $5 == l { print NR - 1; exit }' <<<"$output"; }

# close A B REL: |A - B| <= REL * max(|B|, 1e-12)
close() { awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(d <= r * (m > 1e-12 ? m : 1e-12)) }'; }

@test "compare: statistics agree with an independent computation" {
	for key in runtime_ns total.lat_p99_ns total.ipis_per_sec; do
		read -r m1 s1 m2 s2 t df p < <(python_stats "$key" "$F/ipistorm-6.1" "$F/ipistorm-6.12")
		run --separate-stderr "$S/compare.sh" -f csv "$F/ipistorm-6.1" "$F/ipistorm-6.12"
		[ "$status" -eq 0 ]
		b=$(row "$key" 6.1.0-50-amd64) o=$(row "$key" 6.12.95+deb12-amd64)
		close "$(col mean "$b")" "$m1" 1e-9
		# The CSV prints 4 decimals: a stddev of 7.38 keeps 6 digits.
		close "$(col stddev "$b")" "$s1" 1e-5
		close "$(col mean "$o")" "$m2" 1e-9
		close "$(col stddev "$o")" "$s2" 1e-5
		close "$(col t "$o")" "$t" 1e-5
		close "$(col df "$o")" "$df" 1e-4
		close "$(col p "$o")" "$p" 1e-4
		close "$(col norm_mean "$o")" "$(awk -v a="$m2" -v b="$m1" 'BEGIN { print a / b }')" 1e-5
		# mmtests: (m1 - m2) / (z s1 + z s2), z = qnorm(0.975), for a
		# lower-is-better metric (the harmonic mean's elsewhere, below)
		[ "$key" = total.ipis_per_sec ] && continue
		close "$(col ci_ratio "$o")" "$(awk -v a="$m1" -v b="$m2" -v x="$s1" -v y="$s2" 'BEGIN { print (a - b) / (1.959963984540054 * (x + y)) }')" 1e-6
	done
}

@test "compare: Welch p of a clear difference and of textbook values" {
	mkrun "$T/a" base 100 101 102 103 104
	mkrun "$T/b" new 90 91 92 93 95
	read -r _ _ _ _ t df p < <(python_stats runtime_ns "$T/a" "$T/b")
	run "$S/compare.sh" -f csv "$T/a" "$T/b"
	[ "$status" -eq 0 ]
	close "$(col t 2)" "$t" 1e-6
	close "$(col p 2)" "$p" 1e-3
	[ "$(col significant 2)" = 1 ]
	run "$S/compare.sh" "$T/a" "$T/b"
	[[ $output == *"new"*"0.90 [9.61%]"* ]]
	[[ $output == *"92.20 *   9.61%*"* ]]
}

@test "compare: text output of the fixtures" {
	run --separate-stderr "$S/compare.sh" "$F/ipistorm-6.1" "$F/ipistorm-6.12"
	[ "$status" -eq 0 ]
	[[ ${lines[1]} == "kernel:"*"time [pct imp]"*"sd-ratio [var-p]" ]]
	[[ ${lines[2]} == "6.1.0-50-amd64 "*" 1.00 [baseline]" ]]
	[[ ${lines[3]} == "6.12.95+deb12-amd64 "*" 0.88 [12.09%]*"*" 0.26 [0.0946]" ]]
	for m in runtime_ns total.ns_per_ipi total.lat_p50_ns total.lat_p99_ns total.poll_pct; do
		grep -q "^$m (" <<<"$output"
	done
	for r in Runs AMean Stddev CoeffVar Min Median Median-CI Max Welch-p MWU-p SD-ratio Var-p; do
		grep -q "^$r " <<<"$output"
	done
	run --separate-stderr "$S/compare.sh" -l old,new "$F/ipistorm-6.1" "$F/ipistorm-6.12"
	[[ ${lines[3]} == "new "*"[12.09%]*"* ]]
}

@test "compare: json is valid and versioned" {
	run --separate-stderr "$S/compare.sh" -f json "$F/ipistorm-6.1" "$F/ipistorm-6.12"
	[ "$status" -eq 0 ]
	python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["format"] == "ipistorm-compare/5"; assert d["rule"] == "welch"; assert d["sd_factor"] == 2 and not d["means_only"]; assert d["metrics"][0]["values"][1]["var_significant"] is False; assert d["metrics"][0]["name"] == "runtime_ns"; assert d["metrics"][0]["values"][0]["p"] is None' <<<"$output"
}

@test "compare: a significant regression beyond -t exits 1 and is named" {
	mkrun "$T/a" base 100 101 102 103 104
	mkrun "$T/b" slow 110 111 112 113 115
	run "$S/compare.sh" "$T/a" "$T/b"
	[ "$status" -eq 1 ]
	[[ $output == *"regression: slow runtime_ns: 10.00% worse"* ]]
	run "$S/compare.sh" -t 11 "$T/a" "$T/b"
	[ "$status" -eq 0 ]
	run "$S/compare.sh" -a 0.0000001 "$T/a" "$T/b"
	[ "$status" -eq 0 ]
}

# One run has no spread: a verdict on it would be a guess. The report is
# written (n/a), the exit is 2, "not comparable" names the side.
@test "compare: a side with fewer than 2 runs is not comparable, exit 2" {
	mkrun "$T/a" base 100
	mkrun "$T/b" one 200
	mkrun "$T/c" more 200 201 202
	for args in "$T/a $T/c" "$T/c $T/b" "$T/a $T/b"; do
		for m in welch mmtests; do
			for f in text csv json; do
				# shellcheck disable=SC2086 # two paths without blanks
				run --separate-stderr "$S/compare.sh" -m $m -f $f $args
				[ "$status" -eq 2 ] || { echo "$m $f $args: exit $status"; false; }
				[[ $stderr == *"not comparable: "*" has 1 run"*"at least 2"* ]] || { echo "$stderr"; false; }
			done
		done
	done
	run --separate-stderr "$S/compare.sh" -f csv "$T/a" "$T/c"
	[ "$(col p 2)" = "" ]
	[ "$(col significant 2)" = 0 ]
	[ "$(col ci_ratio 2)" = "" ]
	[ "$(col stddev 1)" = "" ]
	[ "$(col coeffvar_pct 1)" = "" ]
	[ "$(col norm_stddev 2)" != "" ]
	grep -q '^ipistorm-compare/5,not_comparable,runs,,"base",' <<<"$output"
	run --separate-stderr "$S/compare.sh" "$T/a" "$T/c"
	grep -q '^Stddev  *n/a  *1.00$' <<<"$output"
	grep -q '^CoeffVar  *n/a  *0.50$' <<<"$output"
	grep -q '^Not comparable: base has 1 run' <<<"$output"
	run --separate-stderr "$S/compare.sh" -f json "$T/a" "$T/c"
	python3 -c 'import json, sys; d = json.load(sys.stdin); v = d["metrics"][0]["values"]; assert not d["comparable"] and d["not_comparable"][0]["label"] == "base"; assert v[0]["stddev"] is None and v[0]["coeffvar_pct"] is None and not v[1]["significant"]' <<<"$output"
}

@test "compare: an iteration count that disagrees with meta.txt is refused" {
	mkrun "$T/a" base 100 101 102
	mkrun "$T/b" other 100 101 102
	sed -i '2a iterations=5' "$T/b/meta.txt"
	run --separate-stderr "$S/compare.sh" "$T/a" "$T/b"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ $stderr == *"$T/b/meta.txt: iterations=5 but 3 iter-*.txt files"* ]]
	sed -i 's/^iterations=5$/iterations=five/' "$T/b/meta.txt"
	run --separate-stderr "$S/compare.sh" "$T/a" "$T/b"
	[ "$status" -eq 2 ]
	[[ $stderr == *"iterations=five"* ]]
	sed -i 's/^iterations=five$/iterations=3/' "$T/b/meta.txt"
	run --separate-stderr "$S/compare.sh" "$T/a" "$T/b"
	[ "$status" -eq 0 ]
}

@test "compare: json is valid whatever a label holds; a control character is refused" {
	mkrun "$T/a" base 100 101 102
	mkrun "$T/b" other 100 101 102
	for k in 'quote"back\\slash\\"' 'caf\303\251 \360\237\220\247' $'6.12\001ctl' $'tab\there' $'cr\rhere' $'bell\a esc\033 del\177 end\037' 'c1\302\205'; do
		K=$(printf '%b' "$k") python3 -c 'import os, re, sys; p = sys.argv[1]; s = open(p, "rb").read(); open(p, "wb").write(re.sub(b"(?m)^kernel=.*$", lambda m: b"kernel=" + os.environb[b"K"], s))' "$T/b/meta.txt"
		case $k in
		quote* | caf*) want=0 ;;
		*) want=2 ;;
		esac
		run --separate-stderr "$S/compare.sh" -f json "$T/a" "$T/b"
		[ "$status" -eq "$want" ] || { echo "kernel=$k: exit $status"; false; }
		if [ "$want" = 2 ]; then
			[[ $stderr == *"/b/meta.txt: kernel holds a control character: "* ]] || { echo "kernel=$k: $stderr"; false; }
			run --separate-stderr "$S/compare.sh" -f json -l "$(printf '%b' "$k"),x" "$T/a" "$T/b"
			[ "$status" -eq 2 ]
			[[ $stderr == *"-l: label 1 holds a control character: "* ]] || { echo "-l $k: $stderr"; false; }
			continue
		fi
		K=$(printf '%b' "$k") python3 -c 'import json, os, sys; d = json.load(sys.stdin); assert d["runs"][1]["label"] == os.environ["K"], d["runs"][1]["label"]' <<<"$output" ||
			{ echo "kernel=$k: $output"; false; }
		run --separate-stderr "$S/compare.sh" -f json -l "$(printf '%b' "$k"),x" "$T/a" "$T/b"
		[ "$status" -eq 0 ]
		K=$(printf '%b' "$k") python3 -c 'import json, os, sys; d = json.load(sys.stdin); assert d["runs"][0]["label"] == os.environ["K"]' <<<"$output"
	done
}

@test "compare: -x covers topology, llc, bios, irqbalance, nohz_full, sched_features, the preflight's verdict" {
	while IFS='|' read -r key base value; do
		for d in a b; do
			mkrun "$T/$d" "k$d" 100 101 102
		done
		sed -i "2a $key=$base" "$T/a/meta.txt"
		sed -i "2a $key=$value" "$T/b/meta.txt"
		run --separate-stderr "$S/compare.sh" -x "$T/a" "$T/b"
		[ "$status" -eq 2 ] || { echo "$key: exit $status"; false; }
		[[ $stderr == *"error: kb $key differs from ka: '$value', baseline '$base'"* ]] || { echo "$key: $stderr"; false; }
		grep -q "^  kb: $key: '$value', baseline '$base'" <<<"$output"
		# the same value is no difference
		sed -i "s|^$key=.*|$key=$base|" "$T/b/meta.txt"
		run --separate-stderr "$S/compare.sh" -x "$T/a" "$T/b"
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		rm -rf "$T/a" "$T/b"
	done <<-'EOF'
	sockets|2|1
	numa_nodes|2|8
	node1.cpulist|120-239|60-119
	llc|0-59;60-119|0-119
	bios|Dell Inc. 2.1.4 01/01/2026|Dell Inc. 2.3.0 06/01/2026
	irqbalance|not running|running
	nohz_full|(null)|1-119
	sched_features|TTWU_QUEUE|NO_TTWU_QUEUE
	preflight.ipistorm|valid|degraded
	EOF
}

# Neither side varies: different means are significant (a regression when
# worse beyond -t), equal means are not, under both rules; mmtests' rule
# then compares the raw difference with 1 (cidiff() returns it).
@test "compare: no variance on either side is decided" {
	while IFS='|' read -r rule base other want sig; do
		# shellcheck disable=SC2086 # lists of values
		mkrun "$T/a" base $base
		# shellcheck disable=SC2086
		mkrun "$T/b" new $other
		run --separate-stderr "$S/compare.sh" -m "$rule" -f csv "$T/a" "$T/b"
		[ "$status" -eq "$want" ] || { echo "$rule $base / $other: exit $status, want $want"; false; }
		[ "$(col significant 2)" = "$sig" ] || { echo "$rule $base / $other: significant $(col significant 2)"; false; }
		rm -rf "$T/a" "$T/b"
	done <<-'EOF'
	welch|100 100 100|150 150 150|1|1
	welch|100 100 100|50 50 50|0|1
	welch|100 100 100|100 100 100|0|0
	welch|100 100 100|104 104 104|0|1
	mmtests|100 100 100|150 150 150|1|1
	mmtests|100 100 100|100.5 100.5 100.5|0|0
	mmtests|100 100 100|100 100 100|0|0
	EOF
}

@test "compare: the two rules differ where the intervals overlap" {
	mkrun "$T/a" base 100 101 102 103 104
	mkrun "$T/b" new 103 104 105 106 107
	run "$S/compare.sh" -f csv "$T/a" "$T/b"
	[ "$status" -eq 0 ]
	[ "$(col significant 2)" = 1 ]
	run "$S/compare.sh" -m mmtests -f csv "$T/a" "$T/b"
	[ "$status" -eq 0 ]
	[ "$(col significant 2)" = 0 ]
	close "$(col ci_ratio 2)" "$(awk 'BEGIN { print -3 / (2 * 1.959963984540054 * sqrt(2.5)) }')" 1e-6
	# beyond the threshold and intervals apart: a regression under both
	mkrun "$T/c" slow 110 111 112 113 115
	for rule in welch mmtests; do
		run --separate-stderr "$S/compare.sh" -m "$rule" "$T/a" "$T/c"
		[ "$status" -eq 1 ]
		[[ $stderr == *"regression: slow runtime_ns: 10.00% worse"* ]]
	done
	grep -q "mmtests' rule" <<<"$output"
	grep -q "^CI-ratio " <<<"$output"
}

@test "compare: hostile inputs exit 2 with a clear message and no output" {
	mkrun "$T/a" base 100 101 102
	# shellcheck disable=SC2154 # stderr is set by run, msg per call
	check() {
		run --separate-stderr "$S/compare.sh" "$@"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[[ $stderr == *"$msg"* ]]
	}
	msg="no such directory" check "$T/a" "$T/missing"
	mkdir "$T/empty"
	msg="no meta.txt" check "$T/a" "$T/empty"
	mkrun "$T/noiter" base
	msg="no iter-*.txt" check "$T/a" "$T/noiter"
	# A run of two iterations, one file edited (sed): directory|file|edit|message
	while IFS='|' read -r d f edit m; do
		mkrun "$T/$d" base 1 2
		sed -i "$edit" "$T/$d/$f"
		msg=$m check "$T/a" "$T/$d"
	done <<-'EOF'
	e|iter-002.txt|d|iter-002.txt: empty
	nn|iter-002.txt|s/^runtime_ns=2$/runtime_ns=12x/|runtime_ns='12x' is not a number
	nk|iter-001.txt|/^runtime_ns/d|iter-001.txt: no runtime_ns
	p|meta.txt|s/^params=.*/params=numipi=200 cpulist=0/|params 'numipi=200 cpulist=0' differs
	b|meta.txt|s/^bench=.*/bench=idle_reentry/|bench 'idle_reentry' differs
	f|meta.txt|s/^status=.*/status=failed/|not ok
	EOF
	msg="-l gives 1 labels for 2 directories" check -l x "$T/a" "$T/a"
	# a module's parameters in another order are the same run; a default
	# typed out is, where both recorded the loaded module's parameters
	mkrun "$T/o" base 1 2
	sed -i 's/^params=.*/params=cpulist=0 numipi=100/' "$T/o/meta.txt"
	run "$S/compare.sh" "$T/a" "$T/o"
	[ "$status" -ne 2 ]
	mkrun "$T/m1" base 1 2
	mkrun "$T/m2" base 1 2
	sed -i 's/^params=.*/params=numipi=100 cpulist=0 wait=0/' "$T/m2/meta.txt"
	printf 'module.ipistorm.param.numipi=100\nmodule.ipistorm.param.wait=0\n' | tee -a "$T/m1/meta.txt" >>"$T/m2/meta.txt"
	run "$S/compare.sh" "$T/m1" "$T/m2"
	[ "$status" -ne 2 ]
	sed -i 's/^module.ipistorm.param.wait=.*/module.ipistorm.param.wait=1/' "$T/m2/meta.txt"
	msg="params 'numipi=100 cpulist=0 wait=0' differs" check "$T/m1" "$T/m2"
}

@test "compare: usage on -h and bad arguments" {
	run "$S/compare.sh" -h
	[ "$status" -eq 0 ]
	[[ $output == *usage:* ]]
	run "$S/compare.sh" "$F/ipistorm-6.1"
	[ "$status" -eq 2 ]
	run "$S/compare.sh" -f xml "$F/ipistorm-6.1" "$F/ipistorm-6.12"
	[ "$status" -eq 2 ]
	run "$S/compare.sh" -t lots "$F/ipistorm-6.1" "$F/ipistorm-6.12"
	[ "$status" -eq 2 ]
}

# metas BENCH PARAMS STORM: the meta.txt of result directories a and b (of
# kernels ka and kb).
metas() {
	for d in a b; do
		mkdir "$T/$d"
		printf 'format=ipistorm-run/1\nbench=%s\nparams=%s\nstorm=%s\nkernel=k%s\nstatus=ok\n' "$1" "$2" "$3" "$d" >"$T/$d/meta.txt"
	done
}

@test "compare: idle_reentry metrics, reentries never a regression" {
	metas idle_reentry cpulist=1 "pairs=0:1 numipi=20000"
	for i in 1 2 3; do
		printf 'total.total_mean_ns=%s\ntotal.fast_pct=%s\ntotal.reentries=%s\n' $((700 + i)) 0.$i $((20000 + i)) >"$T/a/iter-00$i.txt"
		printf 'total.total_mean_ns=%s\ntotal.fast_pct=%s\ntotal.reentries=%s\n' $((500 + i)) 99.$i $((10000 + i)) >"$T/b/iter-00$i.txt"
	done
	run "$S/compare.sh" "$T/a" "$T/b"
	[ "$status" -eq 0 ]
	[[ ${lines[3]} == "kb "*" 0.72 [28.49%]*"* ]]
	grep -q "^total.fast_pct (higher is better)" <<<"$output"
	grep -q "^total.reentries (change shown, no direction)" <<<"$output"
}

@test "compare: nohz_csd fixtures, balances normalized, counts checked" {
	run --separate-stderr "$S/compare.sh" "$F/nohz_csd-6.1" "$F/nohz_csd-6.12"
	[ "$status" -ne 2 ]
	[[ ${lines[1]} == "kernel:"*"balances [pct imp]"*"sd-ratio [var-p]" ]]
	for m in total.balanced total.kicks total.kick_poll total.dropped total.ksoftirqd_wakeups; do
		grep -q "^$m (" <<<"$output" || { echo "no table for $m"; false; }
	done
	grep -q "^total.balanced (higher is better)" <<<"$output"
	grep -q "^total.dropped (lower is better)" <<<"$output"
	read -r m1 _ m2 _ < <(python_stats total.balanced "$F/nohz_csd-6.1" "$F/nohz_csd-6.12")
	awk -v a="$m1" -v b="$m2" '/^total.balanced /{ t = 1 } t && $1 == "AMean" {
		exit !($2 == sprintf("%.2f", a) && $5 == sprintf("%.2f", b)) }' <<<"$output"
}

@test "compare: fewer nohz idle balances are a regression" {
	metas nohz_csd "load_cpus=0 duration=2" ""
	for i in 1 2 3; do
		printf 'total.balanced=%s\ntotal.kicks=%s\ntotal.dropped=0\n' $((100 + i)) $((110 + i)) >"$T/a/iter-00$i.txt"
		printf 'total.balanced=%s\ntotal.kicks=%s\ntotal.dropped=%s\n' $((10 + i)) $((110 + i)) $((99 + i)) >"$T/b/iter-00$i.txt"
	done
	run "$S/compare.sh" "$T/a" "$T/b"
	[ "$status" -eq 1 ]
	grep -q '^kb  *0.12 \[-88.24%\]\*  *1.00 \[1.0000\]$' <<<"$output"
	[[ $output == *"regression: kb total.balanced: 88.24% worse than ka"* ]]
}

# derive NEW FROM KEY VALUE...: a copy of the fixture FROM whose iteration
# i has KEY=VALUE[i] (the values are cycled).
derive() {
	local new=$1 from=$2 key=$3 i=0 f
	shift 3
	local vals=("$@")
	cp -r "$from" "$new"
	for f in "$new"/iter-*.txt; do
		sed -i "s/^$key=.*/$key=${vals[i % ${#vals[@]}]}/" "$f"
		i=$((i + 1))
	done
}

# The commands of issue 10's "Why", on the fixtures and on copies of them
# with one metric changed: each regression fails CI, with its reason.
@test "compare: flipped and zero-baseline metrics fail CI" {
	derive "$T/poll-base" "$F/ipistorm-6.12" total.poll_pct 100.0
	derive "$T/poll-lost" "$F/ipistorm-6.12" total.poll_pct 0.0
	derive "$T/drop-base" "$F/nohz_csd-6.1" total.dropped 0
	derive "$T/drop-lots" "$F/nohz_csd-6.12" total.dropped 40 41 42 41 41
	while IFS='|' read -r base other want msg; do
		run --separate-stderr "$S/compare.sh" "$base" "$other"
		[ "$status" -eq "$want" ] || { echo "$base $other: exit $status, want $want"; false; }
		[[ $stderr == *"$msg"* ]] || { echo "$base $other: no '$msg' in: $stderr"; false; }
		[[ $output != *" 0.00%*"* ]] || { echo "a significant 0.00%"; false; }
	done <<-EOF
	$F/idle_reentry-6.12|$F/idle_reentry-6.1|1|regression: 6.1.0-50-amd64 total.fast_pct: 100.00% worse than 6.12.95+deb12-amd64 (p=0,
	$F/idle_reentry-6.1|$F/idle_reentry-6.12|0|
	$T/poll-base|$T/poll-lost|1|regression: 6.12.95+deb12-amd64 (poll-lost) total.poll_pct: 100.00% worse
	$T/drop-base|$T/drop-lots|1|total.dropped: 0.00 -> 41.00, from a zero baseline, worse than
	EOF
	# the SM_IDLE marker is the test bed's: nothing on stderr
	run --separate-stderr "$S/compare.sh" "$F/idle_reentry-6.1" "$F/idle_reentry-6.12"
	[ -z "$stderr" ]
	grep -qxF "  6.12.95+deb12-amd64: cmdline.marker: 'IPISTORM_SM_IDLE=1', baseline 'IPISTORM_SM_IDLE=0'" <<<"$output"
	run --separate-stderr "$S/compare.sh" "$T/drop-base" "$T/drop-lots"
	grep -q '^AMean  *0.00 (   0.00%)  *41.00 \*-41.00 abs\*$' <<<"$output"
	run --separate-stderr "$S/compare.sh" -f csv "$T/drop-base" "$T/drop-lots"
	r=$(row total.dropped "6.12.95+deb12-amd64")
	[ "$(col change_pct "$r")" = "" ]
	[ "$(col abs_change "$r")" = 41.0000 ]
	[ "$(col regression "$r")" = 1 ]
}

@test "compare: a zero baseline of the normalized metric is an absolute gain" {
	derive "$T/none" "$F/nohz_csd-6.1" total.balanced 0
	run --separate-stderr "$S/compare.sh" "$T/none" "$F/nohz_csd-6.12"
	[ "$status" -eq 0 ]
	grep -q '^6.12.95+deb12-amd64  *n/a \[+49.00 abs\]\*  *inf \[0.[0-9]*\]$' <<<"$output"
	run --separate-stderr "$S/compare.sh" -f json "$T/none" "$F/nohz_csd-6.12"
	python3 -c 'import json, sys; v = json.load(sys.stdin)["metrics"][0]["values"][1]; assert v["norm_mean"] is None and v["gain_pct"] is None and v["abs_change"] == 49 and v["significant"] and not v["regression"]' <<<"$output"
}

@test "compare: a directory named k=6.12 is read as a path" {
	cp -r "$F/ipistorm-6.1" "$T/k=6.1"
	cp -r "$F/ipistorm-6.12" "$T/k=6.12"
	cd "$T"
	for args in "k=6.1 k=6.12" "$T/k=6.1 k=6.12" "./k=6.1 $T/k=6.12"; do
		# shellcheck disable=SC2086 # paths without blanks
		run --separate-stderr "$S/compare.sh" $args
		[ "$status" -eq 0 ]
		grep -q '^6.12.95+deb12-amd64  *0.88 \[12.09%\]\*  *0.26 \[0.0946\]$' <<<"$output"
		grep -q '^Runs  *5  *5$' <<<"$output"
	done
}

@test "compare: labels are unique" {
	cp -r "$F/ipistorm-6.12" "$T/build1"
	cp -r "$F/ipistorm-6.12" "$T/build2"
	mkdir "$T/x"
	cp -r "$F/ipistorm-6.12" "$T/x/build2"
	run --separate-stderr "$S/compare.sh" "$T/build1" "$T/build2" "$T/x/build2"
	[ "$status" -eq 0 ]
	[[ ${lines[2]} == "6.12.95+deb12-amd64 (build1) "*"1.00 [baseline]" ]]
	grep -q '^6.12.95+deb12-amd64 (build2) #2 ' <<<"$output"
	grep -q '^6.12.95+deb12-amd64 (build2) #3 ' <<<"$output"
	run --separate-stderr "$S/compare.sh" -l a,a "$T/build1" "$T/build2"
	[ "$status" -eq 2 ]
	[[ $stderr == *"label 'a' is given twice"* ]]
}

# One difference of meta.txt at a time, on a copy of the baseline: each is
# reported in text, CSV and JSON, warned about, and fatal with -x.
@test "compare: differences of the machine state are reported" {
	while IFS='|' read -r key value; do
		rm -rf "$T/other"
		cp -r "$F/ipistorm-6.1" "$T/other"
		if grep -q "^$key=" "$T/other/meta.txt"; then
			sed -i "s|^$key=.*|$key=$value|" "$T/other/meta.txt"
		else
			sed -i "1a $key=$value" "$T/other/meta.txt"
			cp -r "$F/ipistorm-6.1" "$T/base"
			sed -i "1a $key=other" "$T/base/meta.txt"
		fi
		base=$F/ipistorm-6.1
		[ ! -d "$T/base" ] || base=$T/base
		run --separate-stderr "$S/compare.sh" "$base" "$T/other"
		[ "$status" -eq 0 ]
		[[ $stderr == *"warning: 6.1.0-50-amd64 (other) $key differs"* ]] || { echo "$key: $stderr"; false; }
		grep -q "^  6.1.0-50-amd64 (other): $key: '$value', baseline '" <<<"$output"
		run --separate-stderr "$S/compare.sh" -f csv "$base" "$T/other"
		grep -q "^ipistorm-compare/5,difference,$key,,\"6.1.0-50-amd64 (other)\",.*,\"$value\",*$" <<<"$output"
		run --separate-stderr "$S/compare.sh" -f json "$base" "$T/other"
		KEY=$key python3 -c 'import json, os, sys; d = json.load(sys.stdin); assert not d["comparable"]; assert [x["key"] for x in d["differences"]] == [os.environ["KEY"]]' <<<"$output"
		run --separate-stderr "$S/compare.sh" -x "$base" "$T/other"
		[ "$status" -eq 2 ]
		[[ $stderr == *"error: 6.1.0-50-amd64 (other) $key differs"* ]]
		grep -q "^Not comparable: 1 difference" <<<"$output"
		rm -rf "$T/base"
	done <<-'EOF'
	cpu_model|AMD EPYC 9654 96-Core Processor
	microcode|0xa101144
	idle|halt
	governor|powersave
	boost|1
	cpuidle.state1|C1 latency_us=2 disable=1
	cstates.cpu1|POLL:0:0,C1:2:0,C2:18:1
	smt_control|off
	vuln.spectre_v2|Mitigation: Retpolines
	preempt|full
	clocksource|hpet
	boost_policies|policy0=0
	pstate_status|active
	epp|balance_performance
	cpu_dma_latency_us|0
	EOF
	# the kernel image is not a difference, the rest of the command line is
	cp -r "$F/ipistorm-6.1" "$T/img"
	sed -i 's|^cmdline=|cmdline=BOOT_IMAGE=/boot/vmlinuz-6.1.0-50-amd64 |' "$T/img/meta.txt"
	run --separate-stderr "$S/compare.sh" -x "$F/ipistorm-6.1" "$T/img"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	sed -i 's|^cmdline=|cmdline=mitigations=off |' "$T/img/meta.txt"
	run --separate-stderr "$S/compare.sh" -x "$F/ipistorm-6.1" "$T/img"
	[ "$status" -eq 2 ]
	[[ $stderr == *"cmdline differs"*"mitigations=off"* ]]
}

# Real meta.txt of Debian 6.1 and 6.12 in the test bed (the demo's
# idle_reentry step): their scheduler feature lists differ, and the test
# bed marks the SM_IDLE kernel (IPISTORM_SM_IDLE=1). What the kernels are
# is shown apart, names of one list only, and never refuses.
@test "compare: 6.1 against 6.12: the kernels' identity is shown apart and comparable" {
	run --separate-stderr "$S/compare.sh" -x -l 6.1,6.12 "$F/idle_reentry-light-6.1" "$F/idle_reentry-light-6.12"
	[ "$status" -eq 0 ]
	[[ $stderr != *" differs from "* ]]
	! grep -q '^Not comparable' <<<"$output" || false
	grep -qxF "Kernel identity: 2 differences from 6.1, of the kernels and of the test bed's words, not of the machine's state (comparable):" <<<"$output"
	grep -qxF "  6.12: cmdline.marker: 'IPISTORM_SM_IDLE=1', baseline 'IPISTORM_SM_IDLE=0'" <<<"$output"
	grep -qxF "  6.12: sched_features only in 6.12: PLACE_LAG PLACE_DEADLINE_INITIAL PLACE_REL_DEADLINE RUN_TO_PARITY PREEMPT_SHORT PICK_BUDDY DELAY_DEQUEUE DELAY_ZERO" <<<"$output"
	grep -qxF "  6.12: sched_features only in 6.1: GENTLE_FAIR_SLEEPERS START_DEBIT LAST_BUDDY NO_SIS_PROP UTIL_EST_FASTUP ALT_PERIOD BASE_SLICE" <<<"$output"
	# a feature of both lists, switched alike, is never shown
	! grep -q 'TTWU_QUEUE' <<<"$output" || false
	run --separate-stderr "$S/compare.sh" -f csv -l 6.1,6.12 "$F/idle_reentry-light-6.1" "$F/idle_reentry-light-6.12"
	[ "$status" -eq 0 ]
	! grep -q '^ipistorm-compare/5,difference,' <<<"$output" || false
	grep -qxF 'ipistorm-compare/5,kernel_difference,cmdline.marker,,"6.12","'"$F"'/idle_reentry-light-6.12",,,,,,,,,,,,,,,,,,"IPISTORM_SM_IDLE=0","IPISTORM_SM_IDLE=1",,,,,,,,,,,' <<<"$output"
	grep -q '^ipistorm-compare/5,kernel_difference,sched_features,,"6.12",.*,"GENTLE_FAIR_SLEEPERS START_DEBIT LAST_BUDDY NO_SIS_PROP UTIL_EST_FASTUP ALT_PERIOD BASE_SLICE","PLACE_LAG PLACE_DEADLINE_INITIAL .* DELAY_ZERO",' <<<"$output"
	run --separate-stderr "$S/compare.sh" -f json -l 6.1,6.12 "$F/idle_reentry-light-6.1" "$F/idle_reentry-light-6.12"
	python3 -c 'import json, sys; d = json.load(sys.stdin); k = d["kernel_differences"]; assert d["format"] == "ipistorm-compare/5" and d["comparable"] and d["differences"] == []; assert [x["key"] for x in k] == ["cmdline.marker", "sched_features"]; assert k[1]["label"] == "6.12" and k[1]["value"].split()[0] == "PLACE_LAG" and len(k[1]["baseline"].split()) == 7' <<<"$output"
}

# A feature of both kernels switched differently is a setting: the machine
# state, not comparable, fatal with -x; the names of one list only stay
# apart.
@test "compare: a sched feature switched differently in both kernels is the machine state" {
	cp -r "$F/idle_reentry-light-6.12" "$T/6.12"
	sed -i '/^sched_features=/ { s/ TTWU_QUEUE / NO_TTWU_QUEUE /; s/ WA_IDLE / NO_WA_IDLE / }' "$T/6.12/meta.txt"
	run --separate-stderr "$S/compare.sh" -l 6.1,6.12 "$F/idle_reentry-light-6.1" "$T/6.12"
	[ "$status" -eq 0 ]
	[[ $stderr == *"warning: 6.12 sched_features differs from 6.1: 'NO_TTWU_QUEUE NO_WA_IDLE', baseline 'TTWU_QUEUE WA_IDLE'"* ]]
	grep -qxF 'Not comparable: 1 difference of the machine state (meta.txt) from 6.1:' <<<"$output"
	grep -qxF "  6.12: sched_features: 'NO_TTWU_QUEUE NO_WA_IDLE', baseline 'TTWU_QUEUE WA_IDLE'" <<<"$output"
	grep -q "^  6.12: sched_features only in 6.12: PLACE_LAG " <<<"$output"
	run --separate-stderr "$S/compare.sh" -x -l 6.1,6.12 "$F/idle_reentry-light-6.1" "$T/6.12"
	[ "$status" -eq 2 ]
	[[ $stderr == *"error: 6.12 sched_features differs"* ]]
	run --separate-stderr "$S/compare.sh" -f json -l 6.1,6.12 "$F/idle_reentry-light-6.1" "$T/6.12"
	python3 -c 'import json, sys; d = json.load(sys.stdin); x = d["differences"]; assert not d["comparable"]; assert [(y["key"], y["baseline"], y["value"]) for y in x] == [("sched_features", "TTWU_QUEUE WA_IDLE", "NO_TTWU_QUEUE NO_WA_IDLE")]; assert "sched_features" in [y["key"] for y in d["kernel_differences"]]' <<<"$output"
	# no feature list: compared whole, as the machine's
	sed -i 's/^sched_features=.*/sched_features=unknown/' "$T/6.12/meta.txt"
	run --separate-stderr "$S/compare.sh" -x -l 6.1,6.12 "$F/idle_reentry-light-6.1" "$T/6.12"
	[ "$status" -eq 2 ]
	grep -q "^  6.12: sched_features: 'unknown', baseline 'GENTLE_FAIR_SLEEPERS START_DEBIT " <<<"$output"
}

# The test bed's IPISTORM_*= words and init's arguments (after "--") are
# not read by the kernel; a kernel parameter is the machine's.
@test "compare: a test bed marker is the kernel's identity, a kernel parameter the machine state" {
	cp -r "$F/idle_reentry-light-6.1" "$T/b"
	sed -i '/^cmdline=/ s/IPISTORM_SM_IDLE=0/IPISTORM_SM_IDLE=1 IPISTORM_POLLING_IDLE=1/' "$T/b/meta.txt"
	run --separate-stderr "$S/compare.sh" -x -l a,b "$F/idle_reentry-light-6.1" "$T/b"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	grep -qxF "  b: cmdline.marker: 'IPISTORM_SM_IDLE=1 IPISTORM_POLLING_IDLE=1', baseline 'IPISTORM_SM_IDLE=0'" <<<"$output"
	! grep -q '^Not comparable' <<<"$output" || false
	sed -i '/^cmdline=/ s/ -n 5 / -n 5 -w 0 /' "$T/b/meta.txt"
	run --separate-stderr "$S/compare.sh" -x -l a,b "$F/idle_reentry-light-6.1" "$T/b"
	[ "$status" -eq 0 ]
	grep -qF "  b: cmdline.init: 'run -n 5 -w 0 -s " <<<"$output"
	grep -q "^Kernel identity: 2 differences from a," <<<"$output"
	sed -i '/^cmdline=/ s/ idle=poll / idle=poll nohz=off /' "$T/b/meta.txt"
	run --separate-stderr "$S/compare.sh" -x -l a,b "$F/idle_reentry-light-6.1" "$T/b"
	[ "$status" -eq 2 ]
	[[ $stderr == *"error: b cmdline differs from a: 'console=ttyS0 panic=-1 tsc=reliable watchdog_thresh=2 rcupdate.rcu_cpu_stall_timeout=5 idle=poll nohz=off', baseline 'console=ttyS0 panic=-1 tsc=reliable watchdog_thresh=2 rcupdate.rcu_cpu_stall_timeout=5 idle=poll'"* ]]
	grep -qxF 'Not comparable: 1 difference of the machine state (meta.txt) from a:' <<<"$output"
	grep -q "^  b: cmdline.marker: " <<<"$output"
	run --separate-stderr "$S/compare.sh" -f json -l a,b "$F/idle_reentry-light-6.1" "$T/b"
	python3 -c 'import json, sys; d = json.load(sys.stdin); assert not d["comparable"]; assert [x["key"] for x in d["differences"]] == ["cmdline"]; assert [x["key"] for x in d["kernel_differences"]] == ["cmdline.marker", "cmdline.init"]' <<<"$output"
}

# hz and no_hz are the build's configuration; the preemption model is the
# kernel's where no setting could make the two equal.
@test "compare: hz, no_hz and a preemption model no setting reaches are the kernel's identity" {
	while IFS='|' read -r class key base value vbase vvalue; do
		for d in a b; do
			mkrun "$T/$d" "k$d" 100 101 102
		done
		sed -i "2a $key=$base" "$T/a/meta.txt"
		sed -i "2a $key=$value" "$T/b/meta.txt"
		[ -z "$vbase" ] || sed -i "2a kernel_version=$vbase" "$T/a/meta.txt"
		[ -z "$vvalue" ] || sed -i "2a kernel_version=$vvalue" "$T/b/meta.txt"
		run --separate-stderr "$S/compare.sh" -x -f csv "$T/a" "$T/b"
		if [ "$class" = kernel ]; then
			[ "$status" -eq 0 ] || { echo "$key $base $value: exit $status"; false; }
			grep -qxF "ipistorm-compare/5,kernel_difference,$key,,\"kb\",\"$T/b\",,,,,,,,,,,,,,,,,,\"$base\",\"$value\",,,,,,,,,,," <<<"$output"
			! grep -q '^ipistorm-compare/5,difference,' <<<"$output"
		else
			[ "$status" -eq 2 ] || { echo "$key $base $value: exit $status"; false; }
			[[ $stderr == *"error: kb $key differs from ka: '$value', baseline '$base'"* ]]
			! grep -q '^ipistorm-compare/5,kernel_difference,' <<<"$output"
		fi
		rm -rf "$T/a" "$T/b"
	done <<-'EOF'
	kernel|hz|250|1000||
	kernel|no_hz|idle|full||
	state|preempt|voluntary|full|#1 SMP PREEMPT_DYNAMIC Debian 6.12.95-1~bpo12+1 (2026-07-05)|#1 SMP PREEMPT_DYNAMIC Debian 6.12.95-1~bpo12+1 (2026-07-05)
	kernel|preempt|voluntary|rt|#1 SMP PREEMPT_DYNAMIC Debian 6.12.95-1~bpo12+1 (2026-07-05)|#1 SMP PREEMPT_RT Debian 6.12.95-1~bpo12+1 (2026-07-05)
	kernel|preempt|none|voluntary|#1 SMP Debian 6.1.176-1 (2026-07-02)|#1 SMP Debian 6.1.176-1 (2026-07-02)
	state|preempt|full|voluntary|#1 SMP PREEMPT Debian 6.1.176-1 (2026-07-02)|#1 SMP PREEMPT_DYNAMIC Debian 6.12.95-1~bpo12+1 (2026-07-05)
	state|preempt|full|lazy|#1 SMP PREEMPT_RT Debian 7.3.1-1 (2026-11-01)|#1 SMP PREEMPT_RT Debian 7.3.1-1 (2026-11-01)
	kernel|preempt|full|rt|#1 SMP PREEMPT Debian 6.1.176-1 (2026-07-02)|#1 SMP PREEMPT_RT Debian 6.12.95-1~bpo12+1 (2026-07-05)
	state|preempt|voluntary|rt||#1 SMP PREEMPT_RT Debian 6.12.95-1~bpo12+1 (2026-07-05)
	state|preempt|dynamic|rt|#1 SMP PREEMPT_DYNAMIC Debian 6.12.95-1~bpo12+1 (2026-07-05)|#1 SMP PREEMPT_RT Debian 6.12.95-1~bpo12+1 (2026-07-05)
	EOF
}

@test "compare: reads ipistorm-run/1 beside ipistorm-run/2" {
	cp -r "$F/ipistorm-6.12" "$T/v2"
	sed -i 's|^format=.*|format=ipistorm-run/2|; $i preempt=full\nhz=1000' "$T/v2/meta.txt"
	run --separate-stderr "$S/compare.sh" -x "$F/ipistorm-6.1" "$T/v2"
	# a key recorded on one side only is not a known difference (and
	# IPISTORM_SM_IDLE=0 against =1 is the test bed's marker)
	[[ $stderr != *"differs"* ]]
	[ "$status" -eq 0 ]
	sed -i 's|^format=.*|format=ipistorm-run/3|' "$T/v2/meta.txt"
	run --separate-stderr "$S/compare.sh" "$F/ipistorm-6.1" "$T/v2"
	[ "$status" -eq 2 ]
	[[ $stderr == *"want ipistorm-run/1 or ipistorm-run/2"* ]]
}

# The runtimes published with the SM_IDLE patch (240-CPU 2-node server,
# lower is better, 10 runs each; fixtures/README). Expected values from R
# 4.2 on the same numbers: mean(), sd(), median(), t.test()$p.value,
# wilcox.test(exact = TRUE)$p.value, anova(lm(z ~ g)) of the absolute
# deviations from each side's median (Brown-Forsythe), and the order
# statistics 2 and 9 of each side (pbinom(1, 10, 0.5) = 0.0107 <= 0.025).
@test "compare: the published SM_IDLE runtimes: a significant variance improvement" {
	P=$F/sm_idle-published
	run --separate-stderr "$S/compare.sh" -f csv "$P/without" "$P/with"
	[ "$status" -eq 0 ]
	[ "$(col mean 1)" = 542467098.1000 ]
	[ "$(col mean 2)" = 142852063.7000 ]
	[ "$(col stddev 1)" = 270914126.3178 ]
	[ "$(col stddev 2)" = 19654940.1508 ]
	[ "$(col median 1)" = 703525417.5000 ]
	[ "$(col median 2)" = 147670677.0000 ]
	[ "$(col median_ci_low 1)" = 158490995.0000 ]
	[ "$(col median_ci_high 1)" = 743681976.0000 ]
	[ "$(col median_ci_low 2)" = 115646768.0000 ]
	[ "$(col median_ci_high 2)" = 162165800.0000 ]
	close "$(col p 2)" 0.001165171321 1e-5
	close "$(col mwu_p 2)" 0.003886206673 1e-5
	[ "$(col mwu_u 2)" = 13.0 ]
	close "$(col var_p 2)" 0.01420519621 1e-6
	close "$(col sd_ratio 2)" 0.072550444 1e-6
	[ "$(col significant 2)" = 1 ]
	[ "$(col var_significant 2)" = 1 ]
	[ "$(col var_regression 2)" = 0 ]
	# the median and the rank test agree with the mean: lower, significant
	awk -v a="$(col median 2)" -v b="$(col median 1)" 'BEGIN { exit !(a < b) }'
	run --separate-stderr "$S/compare.sh" "$P/without" "$P/with"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	grep -q '^with-SM_IDLE  *0.26 \[73.67%\]\*  *0.07 \[0.0142\]\*$' <<<"$output"
	grep -q '^  with-SM_IDLE runtime_ns: mean 73.67% better (Welch p=0.0012); run-to-run SD 13.8x lower, p=0.014 (Brown-Forsythe)$' <<<"$output"
	grep -q '^Median-CI  158490995.00..743681976.00 115646768.00..162165800.00$' <<<"$output"
	grep -q '^MWU-p  *-  *0.0039$' <<<"$output"
	run --separate-stderr "$S/compare.sh" -f json "$P/without" "$P/with"
	python3 -c 'import json, sys; v = json.load(sys.stdin)["metrics"][0]["values"][1]; assert v["var_significant"] and not v["var_regression"] and abs(v["sd_ratio"] - 0.0725504) < 1e-6 and v["median_ci_low"] == 115646768' <<<"$output"
}

# The patch the other way round adds the slow mode: the mean and the spread
# regress, each named; -M judges the mean only, which still fails.
@test "compare: the SM_IDLE runtimes swapped: a mean and a variance regression" {
	P=$F/sm_idle-published
	run --separate-stderr "$S/compare.sh" "$P/with" "$P/without"
	[ "$status" -eq 1 ]
	[[ $stderr == *"regression: without-SM_IDLE runtime_ns: 279.74% worse than with-SM_IDLE (p=0.001165"* ]]
	[[ $stderr == *"variance regression: without-SM_IDLE runtime_ns: run-to-run SD 13.8x higher than with-SM_IDLE (Brown-Forsythe p=0.01421, factor 2)"* ]]
	grep -q 'REGRESSION (threshold 5%); run-to-run SD 13.8x higher, p=0.014 (Brown-Forsythe): VARIANCE REGRESSION (factor 2)$' <<<"$output"
	run --separate-stderr "$S/compare.sh" -f csv "$P/with" "$P/without"
	[ "$(col regression 2)" = 1 ]
	[ "$(col var_regression 2)" = 1 ]
	run --separate-stderr "$S/compare.sh" -M "$P/with" "$P/without"
	[ "$status" -eq 1 ]
	[[ $stderr == *"variance change (means only, no verdict)"* ]]
}

# Same mean, CoV 0.18 % against 2.55 %: Welch's test sees nothing, the
# spread fails (R: t.test p 1, Brown-Forsythe p 0.0081474, SD ratio
# 14.15385); -M or a factor above the ratio pass it.
@test "compare: equal means with the spread multiplied is a variance regression" {
	pat="-2 -1 -1 0 0 0 0 1 1 2"
	# shellcheck disable=SC2046 # lists of values
	mkrun "$T/a" tight $(for x in $pat; do echo $((100000000 + 156000 * x)); done)
	# shellcheck disable=SC2046
	mkrun "$T/b" loose $(for x in $pat; do echo $((100000000 + 2208000 * x)); done)
	run --separate-stderr "$S/compare.sh" -f csv "$T/a" "$T/b"
	[ "$status" -eq 1 ]
	[ "$(col mean 1)" = "$(col mean 2)" ]
	[ "$(col p 2)" = 1 ]
	[ "$(col mwu_p 2)" = 1 ]
	close "$(col var_p 2)" 0.0081474 1e-4
	close "$(col sd_ratio 2)" 14.15385 1e-5
	[ "$(col var_regression 2)" = 1 ]
	[ "$(col regression 2)" = 0 ]
	[[ $stderr == *"variance regression: loose runtime_ns: run-to-run SD 14.2x higher than tight"* ]]
	run --separate-stderr "$S/compare.sh" "$T/a" "$T/b"
	[ "$status" -eq 1 ]
	grep -q '^loose  *1.00 \[0.00%\]  *14.15 \[0.0081\]\*$' <<<"$output"
	run --separate-stderr "$S/compare.sh" -M "$T/a" "$T/b"
	[ "$status" -eq 0 ]
	run --separate-stderr "$S/compare.sh" -s 20 "$T/a" "$T/b"
	[ "$status" -eq 0 ]
	run --separate-stderr "$S/compare.sh" -f json -M "$T/a" "$T/b"
	python3 -c 'import json, sys; d = json.load(sys.stdin); v = d["metrics"][0]["values"][1]; assert d["means_only"] and d["variance_regressions"] == 0 and v["var_significant"] and not v["var_regression"]' <<<"$output"
	for bad in 1 0.5 x ""; do
		run "$S/compare.sh" -s "$bad" "$T/a" "$T/b"
		[ "$status" -eq 2 ]
	done
}

# Small n and ties. The exact p: the permutation distribution of the rank
# sum with mid-ranks, P(|W - E| >= |w - E|), from R by enumeration
# (combn(); wilcox.test(exact = TRUE) where there is no tie); with more
# than 40 runs in all wilcox.test(exact = FALSE, correct = TRUE). Var-p is
# n/a with 2 runs, the median interval with fewer than 6.
@test "compare: the rank test, exact for small n and ties, normal beyond 40 runs" {
	while IFS='|' read -r a b mwu bfp; do
		# shellcheck disable=SC2086 # lists of values
		mkrun "$T/a" a $a
		# shellcheck disable=SC2086
		mkrun "$T/b" b $b
		run --separate-stderr "$S/compare.sh" -f csv "$T/a" "$T/b"
		[ "$status" -le 1 ]
		close "$(col mwu_p 2)" "$mwu" 1e-5 || { echo "$a / $b: mwu_p $(col mwu_p 2), want $mwu"; false; }
		if [ "$bfp" = na ]; then
			[ "$(col var_p 2)" = "" ]
		else
			close "$(col var_p 2)" "$bfp" 1e-5 || { echo "$a / $b: var_p $(col var_p 2), want $bfp"; false; }
		fi
		[ "$(wc -w <<<"$b")" -ge 6 ] || [ "$(col median_ci_low 2)" = "" ]
		rm -rf "$T/a" "$T/b"
	done <<-'EOF'
	1 2|3 4|0.333333|na
	1 2 3|4 5 6|0.1|1
	1 2 2 3|2 3 3 4|0.285714|1
	5 5|5 6 6|0.4|na
	1 1 2 2 3|2 2 3 3 3|0.238095|0.579584
	10 20 30|10 20 30|1|1
	97 101 96 108 102 96 102 104 103 98 108 102 97 89 106 100 100 105 104 103 105 104 100 90 103|103 102 96 101 105 110 102 105 103 96 101 101 103 109 107 102 102 106 106 100 99 105 107 102 107 105|0.109743|0.29377
	EOF
	mkrun "$T/a" a 1 2 3 4 5 6
	mkrun "$T/b" b 1 2 3 4 5 6
	run --separate-stderr "$S/compare.sh" -f csv "$T/a" "$T/b"
	[ "$(col median_ci_low 2)" = 1.0000 ]
	[ "$(col median_ci_high 2)" = 6.0000 ]
}

# balanced DIR V...: nohz_csd's total.balanced of run i of $T/DIR is V_i.
balanced() {
	local d=$1 i=0 v
	shift
	for v in "$@"; do
		i=$((i + 1))
		printf 'total.balanced=%s\n' "$v" >"$T/$d/iter-00$i.txt"
	done
}

# mmtests' rule on a higher-is-better metric: the harmonic mean and its
# stddev, the ratio with mmtests' sign. The values are MMTests' own
# (compare-mmtests.pl -a balanced of the snapshot on these runs, see
# mmtests/tests/mmtests.bats): Hmean 27.39, HStddev 0.63 (2 decimals),
# significant, ratio 1.05 (1.0486). The arithmetic means' ratio is -0.94: not
# significant, exit 0 before the harmonic mean was used.
@test "compare: -m mmtests uses the harmonic mean where higher is better" {
	metas nohz_csd "duration=2" ""
	balanced a 30 31 29 30 30
	balanced b 27.4 28.4 26.4 27.4 27.4
	run --separate-stderr "$S/compare.sh" -m mmtests -f csv "$T/a" "$T/b"
	[ "$status" -eq 1 ]
	[ "$(printf %.2f "$(col mmtests_mean 2)")" = 27.39 ]
	[ "$(printf %.2f "$(col mmtests_stddev 2)")" = 0.63 ]
	[ "$(printf %.2f "$(col ci_ratio 2)")" = 1.05 ]
	[ "$(col significant 2)" = 1 ]
	[[ $stderr == *"regression: kb total.balanced: 8.67% worse than ka (mmtests CI ratio 1.049"* ]]
	run --separate-stderr "$S/compare.sh" -m mmtests "$T/a" "$T/b"
	grep -q '^HMean  *29.99 (   0.00%)  *27.39 \*  -8.67%\*$' <<<"$output"
	grep -q '^HStddev  *0.63  *0.63$' <<<"$output"
	grep -q '^AMean  *30.00 (   0.00%)  *27.40 (  -8.67%)$' <<<"$output"
}

# mkir DIR KERNEL "MEAN HITS COST"...: an idle_reentry result directory,
# an iteration per word group: total.total_mean_ns and the keys of its
# instrument's own load.
mkir() {
	local d=$1 i=0 m h c
	mkdir -p "$d"
	printf 'format=ipistorm-run/2\nbench=idle_reentry\nparams=cpulist=1 duration=2\nstorm=\nkernel=%s\nstatus=ok\n' "$2" >"$d/meta.txt"
	shift 2
	for v in "$@"; do
		i=$((i + 1))
		read -r m h c <<<"$v"
		{
			printf 'format=idle_reentry/3\nstatus=complete\ntotal.total_mean_ns=%s\n' "$m"
			[ -z "$h" ] || echo "total.hook_hits_per_reentry=$h"
			[ -z "$c" ] || echo "total.hook_cost_ns=$c"
		} >"$d/iter-00$i.txt"
	done
}

# idle_reentry declares instrument=total.hook_hits_per_reentry
# total.hook_cost_ns: a mean that differs by more than its last digit is
# noted, in words and in the records; rounding alone is not.
@test "compare: an instrument that differs between the directories is noted" {
	mkir "$T/a" 6.1 "700 3.0 41.2" "710 3.0 41.0" "705 3.0 41.3"
	mkir "$T/b" 6.12 "650 2.0 41.1" "655 2.0 41.3" "640 2.0 41.2"
	note="note: the instrument differs: total.hook_hits_per_reentry 3.0 on 6.1, 2.0 on 6.12 (instrument= of idle_reentry/bench.conf: a key of its own load; the figures were measured by different instruments)"
	run --separate-stderr "$S/compare.sh" "$T/a" "$T/b"
	[ "$status" -eq 0 ]
	grep -qxF "$note" <<<"$output"
	[ "$stderr" = "compare.sh: $note" ]
	# the cost: 41.17 against 41.20, within rounding
	[[ $output != *"total.hook_cost_ns 41"* ]]
	run --separate-stderr "$S/compare.sh" -f csv "$T/a" "$T/b"
	grep -qxF 'ipistorm-compare/5,instrument,total.hook_hits_per_reentry,,"6.12","'"$T"'/b",3,2.0000,,,2.0000,2.0000,,,,,-1.0000,,,,,,,3.0000,differs,,,,,,,,,,,' <<<"$output"
	grep -q '^ipistorm-compare/5,instrument,total.hook_cost_ns,,"6.12",.*,41.1667,,,,,,,,,,,,$' <<<"$output"
	run --separate-stderr "$S/compare.sh" -f json "$T/a" "$T/b"
	python3 -c 'import json, sys; i = {x["name"]: x for x in json.load(sys.stdin)["instrument"]}; h = i["total.hook_hits_per_reentry"]; assert h["differs"] and h["values"][1]["differs"] and h["values"][1]["mean"] == 2 and h["values"][1]["abs_change"] == -1; assert not i["total.hook_cost_ns"]["differs"]' <<<"$output"
	# by one unit of the last digit (2.95 and 2.94 print 3.0 and 2.9):
	# no note; nor where one side has no such key
	mkir "$T/c" 6.13 "650 2.9 41.2" "655 2.9 41.2" "640 2.9 41.2"
	mkir "$T/d" 6.14 "650" "655" "640"
	for o in c d; do
		run --separate-stderr "$S/compare.sh" "$T/a" "$T/$o"
		[ "$status" -eq 0 ]
		[[ $output != *note:* ]]
		[ -z "$stderr" ]
	done
	# three directories: every mean named
	run --separate-stderr "$S/compare.sh" "$T/a" "$T/c" "$T/b"
	grep -qF "note: the instrument differs: total.hook_hits_per_reentry 3.0 on 6.1, 2.9 on 6.13, 2.0 on 6.12 (" <<<"$output"
	# a bench without instrument keys notes nothing
	run --separate-stderr "$S/compare.sh" -f json "$F/ipistorm-6.1" "$F/ipistorm-6.12"
	python3 -c 'import json, sys; assert json.load(sys.stdin)["instrument"] == []' <<<"$output"
	# busybox alone says the same
	command -v busybox >/dev/null || skip "no busybox"
	mkdir "$T/bin"
	for t in sh awk sed sort uniq tr wc head cat mktemp rm dirname; do
		ln -s "$(command -v busybox)" "$T/bin/$t"
	done
	for f in text csv json; do
		run --separate-stderr "$S/compare.sh" -f $f "$T/a" "$T/c" "$T/b"
		want=$output want_err=$stderr
		PATH=$T/bin run --separate-stderr "$T/bin/sh" "$S/compare.sh" -f $f "$T/a" "$T/c" "$T/b"
		[ "$output" = "$want" ]
		[ "$stderr" = "$want_err" ]
	done
}

# idle_py DIR CPU STATE: the share (%) of STATE in CPU's idle time per
# idle-iter file of DIR, computed apart: mean, sample SD, min, max.
idle_py() {
	python3 - "$@" <<'PY'
import glob, statistics, sys
d, cpu, state = sys.argv[1:]
shares = []
for f in sorted(glob.glob(d + "/idle-iter-*.txt")):
    kv = dict(l.rstrip("\n").split("=", 1) for l in open(f) if "=" in l)
    names = {k.split(".")[1]: v for k, v in kv.items() if k.startswith(cpu + ".state") and k.endswith(".name")}
    times = {s: int(kv[cpu + "." + s + ".time"]) for s in names}
    shares.append(100 * sum(t for s, t in times.items() if names[s] == state) / sum(times.values()))
print("%.4f %.4f %.4f %.4f" % (statistics.mean(shares), statistics.stdev(shares), min(shares), max(shares)))
PY
}

# fixtures/idle-split: 6.1's runtimes bimodal, its slow runs with CPU16 in
# C6 at 2.2 GHz (fixtures/make-fixtures.sh idle).
@test "compare: the idle section shows residency and frequency, a split and a difference" {
	P=$F/idle-split
	run --separate-stderr "$S/compare.sh" "$P/6.1" "$P/6.12"
	[ "$status" -eq 0 ]
	grep -q "^Idle states and frequency of the measured CPUs (idle-\*.txt), mean +- SD over the iterations$" <<<"$output"
	grep -Eq "^Iterations +6 +6$" <<<"$output"
	grep -Eq "^cpu8 C1 % idle +100.00 \+- 0.00 +100.00 \+- 0.00$" <<<"$output"
	grep -Eq "^cpu16 C6 % idle +30.98 \+- 33.94 split +0.00 \+- 0.00 differs$" <<<"$output"
	grep -Eq "^cpu16 kHz APERF/MPERF +2597000 \+- 430645 split +2990833 \+- 1472 differs$" <<<"$output"
	# a state never entered is left out
	[[ $output != *C1E* ]]
	grep -qxF "  split: 6.1 cpu16 C6 % idle: 3 iterations at or below 0.00 % (runtime_ns mean 117527091.33), 3 at or above 61.43 % (runtime_ns mean 704348067.67)" <<<"$output"
	grep -qxF "  differs: 6.12 cpu16 C6 % idle: 0.00 % against 30.98 % on 6.1" <<<"$output"
	grep -qxF "  split: 6.1 cpu16 kHz APERF/MPERF: 3 iterations at or below 2221000 kHz (runtime_ns mean 704348067.67), 3 at or above 2989000 kHz (runtime_ns mean 117527091.33)" <<<"$output"
	# no mark where nothing moved: CPU16's C1 share 4.0 % +- 2.8 against 1.3 %
	grep -Eq "^cpu16 C1 % idle +3.98 \+- 2.79 +1.33 \+- 0.03$" <<<"$output"
	# the idle section is no verdict: the same exit, nothing on stderr
	[ -z "$stderr" ]
	run --separate-stderr "$S/compare.sh" -f csv "$P/6.1" "$P/6.12"
	[ "$status" -eq 0 ]
	[ "$(awk -F, '{ print NF }' <<<"$output" | sort -u)" = 36 ]
	for st in POLL C1 C6; do
		read -r m sd lo hi < <(idle_py "$P/6.1" cpu16 "$st")
		r=$(awk -F, -v n="\"cpu16.$st.residency_pct\"" '$2 == "idle" && $3 == n && $5 == "\"6.1\"" { print NR - 1 }' <<<"$output")
		close "$(col mean "$r")" "$m" 1e-5
		close "$(col stddev "$r")" "$sd" 1e-4
		close "$(col min "$r")" "$lo" 1e-4
		close "$(col max "$r")" "$hi" 1e-4
	done
	grep -qxF 'ipistorm-compare/5,idle,"cpu16.C6.residency_pct",,"6.12","'"$P"'/6.12",6,0.0000,0.0000,,0.0000,0.0000,,,,,-30.9778,,,,,,,30.9778,differs,0.0000,,,,,,,,,,' <<<"$output"
	grep -q '^ipistorm-compare/5,idle,"cpu16.aperf_mperf_khz",,"6.1",.*,split,' <<<"$output"
	run --separate-stderr "$S/compare.sh" -f json "$P/6.1" "$P/6.12"
	[ "$status" -eq 0 ]
	python3 -c 'import json, sys; d = json.load(sys.stdin); i = {x["name"]: x for x in d["idle"]}; c6 = i["cpu16.C6.residency_pct"]; assert d["format"] == "ipistorm-compare/5" and d["instrument"] == []; assert c6["cpu"] == "cpu16" and c6["state"] == "C6" and c6["kind"] == "residency_pct"; assert c6["values"][0]["split"] and not c6["values"][0]["differs"] and c6["values"][1]["differs"] and c6["values"][0]["abs_change"] is None; assert i["cpu8.aperf_mperf_khz"]["state"] is None and abs(i["cpu16.aperf_mperf_khz"]["values"][1]["abs_change"] - 393833.3333) < 1e-3; assert "cpu8.C1E.residency_pct" not in i' <<<"$output"
}

# mkidle DIR ITER CPU:STATE=TIME,...:KHZ ...: DIR's idle-iter-ITER.txt.
mkidle() {
	local d=$1 it=$2 c cpu states st s
	shift 2
	{
		echo format=ipistorm-idle/1
		for c in "$@"; do
			IFS=: read -r cpu states khz <<<"$c"
			s=0
			IFS=, read -ra st <<<"$states"
			for x in "${st[@]}"; do
				printf '%s.state%d.name=%s\n%s.state%d.usage=1\n%s.state%d.time=%s\n' "$cpu" "$s" "${x%=*}" "$cpu" "$s" "$cpu" "$s" "${x#*=}"
				s=$((s + 1))
			done
			[ -z "$khz" ] || echo "$cpu.cur_freq_khz=$khz"
		done
	} >"$d/idle-iter-$(printf %03d "$it").txt"
}

@test "compare: directories without idle files compare as before, the section left out" {
	for f in text csv json; do
		run --separate-stderr "$S/compare.sh" -f $f "$F/ipistorm-6.1" "$F/ipistorm-6.12"
		[ "$status" -eq 0 ]
		[[ $output != *"Idle states"* ]]
		[[ $output != *,idle,* ]]
	done
	python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["idle"] == [] and d["instrument"] == []' <<<"$output"
	# one side with idle files, the other without: n/a there
	mkrun "$T/a" base 100 101 102
	mkrun "$T/b" new 100 101 102
	for i in 1 2 3; do mkidle "$T/b" $i "cpu0:POLL=90,C1=10:2000000"; done
	run --separate-stderr "$S/compare.sh" "$T/a" "$T/b"
	[ "$status" -eq 0 ]
	grep -Eq "^Iterations +0 +3$" <<<"$output"
	grep -Eq "^cpu0 POLL % idle +n/a +90.00 \+- 0.00$" <<<"$output"
	grep -Eq "^cpu0 kHz scaling_cur_freq +n/a +2000000 \+- 0$" <<<"$output"
	# an idle file of another format is bad input
	sed -i 's|^format=.*|format=ipistorm-idle/2|' "$T/b/idle-iter-002.txt"
	run --separate-stderr "$S/compare.sh" "$T/a" "$T/b"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ $stderr == *"$T/b/idle-iter-002.txt: format is 'format=ipistorm-idle/2', want format=ipistorm-idle/1"* ]]
}

# Beyond 8 CPUs, the measured CPUs together: their idle times summed,
# their frequencies averaged. An outlier is a split.
@test "compare: many measured CPUs are shown together; one outlier is a split" {
	mkrun "$T/a" base 100 101 102
	mkrun "$T/b" new 100 101 102
	for i in 1 2 3; do
		cpus=()
		for c in $(seq 0 8); do cpus+=("cpu$c:POLL=80,C6=20:3000000"); done
		mkidle "$T/a" $i "${cpus[@]}"
		# in b, CPU0 sleeps in C6 for 900 us more in the 3rd iteration
		[ "$i" -lt 3 ] || cpus[0]="cpu0:POLL=80,C6=920:1200000"
		mkidle "$T/b" $i "${cpus[@]}"
	done
	run --separate-stderr "$S/compare.sh" "$T/a" "$T/b"
	[ "$status" -eq 0 ]
	# the 3rd: C6 (8 x 20 + 920) / (9 x 100 + 900) = 60 %; 2.8 GHz on average
	grep -Eq "^all POLL % idle +80.00 \+- 0.00 +66.67 \+- 23.09 differs split$" <<<"$output"
	grep -Eq "^all C6 % idle +20.00 \+- 0.00 +33.33 \+- 23.09 differs split$" <<<"$output"
	grep -Eq "^all kHz scaling_cur_freq +3000000 \+- 0 +2933333 \+- 115470$" <<<"$output"
	grep -qxF "  split: new all C6 % idle: 2 iterations at or below 20.00 % (runtime_ns mean 100.50), 1 at or above 60.00 % (runtime_ns mean 102.00)" <<<"$output"
	[[ $output != *$'\n'"cpu0 "* ]]
}

# The measured machine may have busybox alone: its sh and awk (Debian's is
# built without the math library: no sqrt, exp, log or "^", no "%*s"),
# with nothing else on PATH, must give the same bytes as the host's.
@test "compare: busybox sh and awk compute the same" {
	command -v busybox >/dev/null || skip "no busybox"
	mkdir "$T/bin"
	for t in sh awk sed sort uniq tr wc head cat mktemp rm dirname; do
		ln -s "$(command -v busybox)" "$T/bin/$t"
	done
	P=$F/sm_idle-published
	for args in "$P/without $P/with" "$P/with $P/without" "$F/ipistorm-6.1 $F/ipistorm-6.12" \
		"$F/idle_reentry-6.1 $F/idle_reentry-6.12" "$F/nohz_csd-6.1 $F/nohz_csd-6.12" \
		"$F/idle_reentry-light-6.1 $F/idle_reentry-light-6.12" \
		"$F/idle-split/6.1 $F/idle-split/6.12" "$F/idle-split/6.12 $F/idle-split/6.1"; do
		for opt in "-f text" "-f csv" "-f json" "-m mmtests" "-m mmtests -f csv"; do
			# shellcheck disable=SC2086 # options and paths without blanks
			run --separate-stderr "$S/compare.sh" $opt $args
			want=$output want_rc=$status want_err=$stderr
			# shellcheck disable=SC2086
			PATH=$T/bin run --separate-stderr "$T/bin/sh" "$S/compare.sh" $opt $args
			[ "$status" -eq "$want_rc" ] || { echo "$opt $args: busybox exit $status, $want_rc: $stderr"; false; }
			[ "$output" = "$want" ] || { echo "$opt $args"; diff <(echo "$want") <(echo "$output"); false; }
			[ "$stderr" = "$want_err" ]
		done
	done
}

# Adversarial data: a higher-is-better metric with a run of 0
# or less has no harmonic mean (MMTests' NaN, which marks nothing):
# -m mmtests compares the arithmetic mean and stddev there instead, says
# so, and a collapse fails CI.
@test "compare: -m mmtests falls back to the arithmetic mean where a run is 0 or less" {
	metas nohz_csd "duration=2" ""
	balanced a 30 31 29 30 30
	balanced b 0 0 12 0 0
	run --separate-stderr "$S/compare.sh" -m mmtests -f csv "$T/a" "$T/b"
	[ "$status" -eq 1 ] || { echo "exit $status: $stderr"; false; }
	[[ $stderr == *"note: -m mmtests: total.balanced: a run of 0 or less in kb: no harmonic mean (MMTests shows NaN and marks nothing); the arithmetic mean and stddev are compared instead"* ]]
	[[ $stderr == *"regression: kb total.balanced: 92.00% worse than ka (mmtests CI ratio"* ]]
	[ "$(col mmtests_mean 2)" = 2.4000 ]
	[ "$(col mmtests_stddev 2)" = "$(col stddev 2)" ]
	[ "$(col significant 2)" = 1 ]
	run --separate-stderr "$S/compare.sh" -m mmtests "$T/a" "$T/b"
	grep -q '^AMean  *30.00 (   0.00%)  *2.40 \* -92.00%\*$' <<<"$output"
	# MMTests' own harmonic means beside it, NaN where a run is 0
	grep -q '^HMean  *29.99  *n/a$' <<<"$output"
	# a polled share from 100 % to 0 %, no variance: fails CI under both rules
	derive "$T/poll-base" "$F/ipistorm-6.12" total.poll_pct 100.0
	derive "$T/poll-lost" "$F/ipistorm-6.12" total.poll_pct 0.0
	for rule in welch mmtests; do
		run --separate-stderr "$S/compare.sh" -m "$rule" "$T/poll-base" "$T/poll-lost"
		[ "$status" -eq 1 ] || { echo "$rule: exit $status: $stderr"; false; }
		[[ $stderr == *"total.poll_pct: 100.00% worse"* ]]
	done
}

# Constant samples are constant: the variance of 0.7 ten times is 0, not
# the rounding residue of a naive mean.
@test "compare: constant samples of a decimal value have no spread and no difference" {
	mkrun "$T/a" base 0.7 0.7
	mkrun "$T/b" new 0.7 0.7 0.7 0.7 0.7 0.7 0.7 0.7 0.7 0.7
	for rule in welch mmtests; do
		for t in 5 0; do
			run --separate-stderr "$S/compare.sh" -m "$rule" -t "$t" -f csv "$T/a" "$T/b"
			[ "$status" -eq 0 ] || { echo "$rule -t $t: exit $status: $stderr"; false; }
			[ "$(col significant 2)" = 0 ]
			[ "$(col stddev 1)" = 0.0000 ] && [ "$(col stddev 2)" = 0.0000 ]
			[ "$(col sd_ratio 2)" = 1 ]
			[ "$(col var_significant 2)" = 0 ]
		done
	done
	[ "$(col p 2)" = 1 ]
	mkrun "$T/c" base 0.7 0.7 0.7
	mkrun "$T/d" new 0.7 0.7 0.7 0.7 0.7 0.7 0.7 0.7 0.7 0.7
	run --separate-stderr "$S/compare.sh" "$T/c" "$T/d"
	[ "$status" -eq 0 ]
	grep -q '^new  *1.00 \[0.00%\]  *1.00 \[1.0000\]$' <<<"$output"
	# not constant, a mean near 1e15: the two-pass variance of 0.25, 0.25
	mkrun "$T/e" base 1000000000000000.25 1000000000000000.75 1000000000000000.25 1000000000000000.75
	mkrun "$T/f" new 1000000000000000.25 1000000000000000.75 1000000000000000.25 1000000000000000.75
	run --separate-stderr "$S/compare.sh" -f csv "$T/e" "$T/f"
	[ "$(col stddev 1)" = 0.2887 ]
	[ "$(col p 2)" = 1 ]
}

# timeout_run ARGS...: run compare.sh, killed after 30 s (status 124).
timeout_run() { run --separate-stderr timeout 30 "$S/compare.sh" "$@"; }

@test "compare: -a is bounded; a value beyond 1e20 is refused, naming file, key and value" {
	mkrun "$T/a" base 100 101 102
	mkrun "$T/b" new 100 101 102
	for a in 0.00000000000000001 0.0000000001 0 1; do
		timeout_run -a "$a" "$T/a" "$T/b"
		[ "$status" -eq 2 ] || { echo "-a $a: exit $status"; false; }
		[[ $stderr == *"-a: '$a' is not a level between 0.000000001 and 0.5"* ]] || [[ $stderr == *"-a: '$a' is not"* ]]
	done
	timeout_run -a 0.000000001 "$T/a" "$T/b"
	[ "$status" -eq 0 ]
	e154=1$(printf '%0154d' 0) e77=1$(printf '%077d' 0)
	for v in "$e154" "$e77" "-$e77" 100000000000000100000 0.000000000000000000009; do
		mkrun "$T/h" base "$v" "$v" "$v"
		mkrun "$T/i" new "$v" "$v" "$v"
		for fmt in text csv json; do
			timeout_run -f "$fmt" "$T/h" "$T/i"
			[ "$status" -eq 2 ] || { echo "$v -f $fmt: exit $status: $output"; false; }
			[ -z "$output" ]
			[[ $stderr == *"/h/iter-001.txt: runtime_ns=$v is beyond the magnitudes compare.sh computes with (0 or 1e-20 to 1e20)"* ]]
		done
	done
	# at the bound: identical directories are identical, in valid JSON
	for v in 100000000000000000000 -99999999999999999999.5 0.00000000000000000001; do
		mkrun "$T/j" base "$v" "$v" "$v"
		mkrun "$T/k" new "$v" "$v" "$v"
		timeout_run -f json "$T/j" "$T/k"
		[ "$status" -eq 0 ] || { echo "$v: exit $status: $stderr"; false; }
		python3 -c 'import json, sys; v = json.load(sys.stdin)["metrics"][0]["values"][1]; assert v["p"] == 1 and not v["significant"], v' <<<"$output"
		[[ $output != *nan* && $output != *inf* ]]
	done
}

# The same bound on the instrument's keys, the idle files and the counts
# of -d: a sum of counts of hundreds of digits is infinite.
@test "compare: instrument, idle and decomposition values beyond 1e20 are refused" {
	big=1$(printf '%0400d' 0)
	mkir "$T/a" 6.1 "100 3.0 41.2" "101 3.0 41.2" "102 3.0 41.2"
	mkir "$T/b" 6.12 "100 3.0 41.2" "101 3.0 41.2" "102 3.0 $big"
	timeout_run -f json "$T/a" "$T/b"
	[ "$status" -eq 2 ] || { echo "instrument: exit $status: $output"; false; }
	[[ $stderr == *"/b/iter-003.txt: total.hook_cost_ns=$big is beyond the magnitudes"* ]]
	mkrun "$T/c" base 100 101 102
	mkrun "$T/d" new 100 101 102
	for i in 1 2 3; do mkidle "$T/c" $i "cpu0:POLL=90,C1=10:2000000"; done
	for i in 1 2 3; do mkidle "$T/d" $i "cpu0:POLL=90,C1=$big:2000000"; done
	timeout_run -f json "$T/c" "$T/d"
	[ "$status" -eq 2 ] || { echo "idle: exit $status: $output"; false; }
	[[ $stderr == *"/d/idle-iter-001.txt: cpu0.state1.time=$big is beyond the magnitudes"* ]]
	for d in e f; do
		mkdir "$T/$d"
		printf 'format=ipistorm-run/2\nbench=ipistorm\nparams=numipi=100 witness=1\nstorm=\nkernel=%s\nstatus=ok\niterations=2\n' "$d" >"$T/$d/meta.txt"
		for i in 1 2; do
			printf 'format=ipistorm/2\nstatus=complete\nruntime_ns=1000\ntotal.lat_no_ipi_n=%s\ntotal.lat_no_ipi_mean_ns=10\ntotal.lat_ipi_n=5\ntotal.lat_ipi_mean_ns=20\ntotal.lat_queued_n=0\n' \
				"$([ $d = f ] && echo "$big" || echo 5)" >"$T/$d/iter-00$i.txt"
		done
	done
	timeout_run -d -f json "$T/e" "$T/f"
	[ "$status" -eq 2 ] || { echo "-d: exit $status: $output"; false; }
	[[ $stderr == *"/f/iter-001.txt: total.lat_no_ipi_n=$big is beyond the magnitudes"* ]]
}

# The awk arithmetic ends on any input, in every awk.
@test "compare: sqrt, exp and log end on infinity and NaN" {
	awks=(awk)
	command -v busybox >/dev/null && awks+=("busybox awk")
	printf '%s\n' 'BEGIN { inf = 1e308 * 10; nan = inf - inf' \
		'print msqrt(inf), mlog(inf), mexp(inf), msqrt(nan), mlog(nan), mexp(nan), mexp(-inf), mlog(1e-300 / 1e20) }' >"$T/inf.awk"
	for a in "${awks[@]}"; do
		# shellcheck disable=SC2086 # "busybox awk"
		run timeout 10 $a -f "$S/stats.awk" -f "$T/inf.awk"
		[ "$status" -eq 0 ] || { echo "$a: exit $status"; false; }
	done
}

@test "compare: automatic labels never collide; a label with a newline or an invalid byte is refused" {
	# two builds of X in directories named a, and a release "X (a) #2":
	# the position that made the first two unique was the third's
	for d in p/a q/a r; do
		mkrun "$T/$d" X 100 101 102
	done
	sed -i 's/^kernel=.*/kernel=X (a) #2/' "$T/r/meta.txt"
	run --separate-stderr "$S/compare.sh" -f csv "$T/p/a" "$T/q/a" "$T/r"
	[ "$status" -eq 0 ]
	labels=$(awk -F, '$2 == "metric" && $3 == "runtime_ns" { print $5 }' <<<"$output")
	[ "$(wc -l <<<"$labels")" -eq 3 ]
	[ -z "$(sort <<<"$labels" | uniq -d)" ] || { echo "$labels"; false; }
	mkrun "$T/a" base 100 101 102
	mkrun "$T/b" other 100 101 102
	for l in $'x\ny,z' $'\xff,z' $'\xc3\x28,z' $'\xed\xa0\x80,z' $'\xc0\xaf,z' $'ok,\xe2\x82'; do
		run --separate-stderr "$S/compare.sh" -f json -l "$l" "$T/a" "$T/b"
		[ "$status" -eq 2 ] || { echo "-l $(printf %q "$l"): exit $status"; false; }
		[ -z "$output" ]
		[[ $stderr == *"-l: a label holds a newline"* || $stderr == *"-l: label "*" is not valid UTF-8: "* ]] ||
			{ echo "-l $(printf %q "$l"): $stderr"; false; }
	done
	# valid UTF-8 is a label
	run --separate-stderr "$S/compare.sh" -f json -l "$(printf 'caf\303\251,\360\237\220\247')" "$T/a" "$T/b"
	[ "$status" -eq 0 ]
	python3 -m json.tool <<<"$output" >/dev/null
	# a release or a directory name with an invalid byte never reaches JSON
	sed -i "s/^kernel=.*/kernel=$(printf '6.12\377')/" "$T/b/meta.txt"
	run --separate-stderr "$S/compare.sh" -f json "$T/a" "$T/b"
	[ "$status" -eq 2 ]
	[[ $stderr == *"/b/meta.txt: kernel is not valid UTF-8: 'kernel=6.12\\xff'"* ]] || { echo "$stderr"; false; }
	mkrun "$T/$(printf 'd\377')" other 100 101 102
	run --separate-stderr "$S/compare.sh" -f json -l a,b "$T/a" "$T/$(printf 'd\377')"
	[ "$status" -eq 2 ]
	[[ $stderr == *"directory 2: its name is not valid UTF-8: "* ]]
}
