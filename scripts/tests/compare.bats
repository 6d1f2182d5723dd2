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
	printf 'format=ipistorm-run/1\nbench=ipistorm\nparams=numipi=100 cpulist=0\nstorm=\nkernel=%s\nstatus=ok\n' "$k" >"$d/meta.txt"
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

# close A B REL: |A - B| <= REL * max(|B|, 1e-12)
close() { awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(d <= r * (m > 1e-12 ? m : 1e-12)) }'; }

@test "compare: statistics agree with an independent computation" {
	for key in runtime_ns total.lat_p99_ns total.ipis_per_sec; do
		read -r m1 s1 m2 s2 t df p < <(python_stats "$key" "$F/ipistorm-6.1" "$F/ipistorm-6.12")
		run "$S/compare.sh" -f csv "$F/ipistorm-6.1" "$F/ipistorm-6.12"
		[ "$status" -eq 0 ]
		base=$(grep "^ipistorm-compare/1,$key," <<<"$output" | sed -n 1p)
		other=$(grep "^ipistorm-compare/1,$key," <<<"$output" | sed -n 2p)
		IFS=, read -r -a b <<<"$base"
		IFS=, read -r -a o <<<"$other"
		close "${b[6]}" "$m1" 1e-9
		# The CSV prints 4 decimals: a stddev of 7.38 keeps 6 digits.
		close "${b[7]}" "$s1" 1e-5
		close "${o[6]}" "$m2" 1e-9
		close "${o[7]}" "$s2" 1e-5
		close "${o[15]}" "$t" 1e-5
		close "${o[16]}" "$df" 1e-4
		close "${o[17]}" "$p" 1e-4
		close "${o[11]}" "$(awk -v a="$m2" -v b="$m1" 'BEGIN { print a / b }')" 1e-5
	done
}

@test "compare: Welch p of a clear difference and of textbook values" {
	mkrun "$T/a" base 100 101 102 103 104
	mkrun "$T/b" new 90 91 92 93 95
	read -r _ _ _ _ t df p < <(python_stats runtime_ns "$T/a" "$T/b")
	run "$S/compare.sh" -f csv "$T/a" "$T/b"
	[ "$status" -eq 0 ]
	IFS=, read -r -a o <<<"$(sed -n 3p <<<"$output")"
	close "${o[15]}" "$t" 1e-6
	close "${o[17]}" "$p" 1e-3
	[ "${o[18]}" = 1 ]
	run "$S/compare.sh" "$T/a" "$T/b"
	[[ $output == *"new"*"0.90 [9.61%]"* ]]
	[[ $output == *"92.20 *   9.61%*"* ]]
}

@test "compare: text output of the fixtures" {
	run "$S/compare.sh" "$F/ipistorm-6.1" "$F/ipistorm-6.12"
	[ "$status" -eq 0 ]
	[[ ${lines[1]} == "kernel:"*"time [pct imp]" ]]
	[[ ${lines[2]} == "6.1.0-50-amd64 "*" 1.00 [baseline]" ]]
	[[ ${lines[3]} == "6.12.95+deb12-amd64 "*" 0.88 [12.09%]" ]]
	for m in runtime_ns total.ns_per_ipi total.lat_p50_ns total.lat_p99_ns total.poll_pct; do
		grep -q "^$m (" <<<"$output"
	done
	for r in Runs AMean Stddev CoeffVar Min Max Welch-p; do
		grep -q "^$r " <<<"$output"
	done
	run "$S/compare.sh" -l old,new "$F/ipistorm-6.1" "$F/ipistorm-6.12"
	[[ ${lines[3]} == "new "*"[12.09%]" ]]
}

@test "compare: json is valid and versioned" {
	run "$S/compare.sh" -f json "$F/ipistorm-6.1" "$F/ipistorm-6.12"
	[ "$status" -eq 0 ]
	python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["format"] == "ipistorm-compare/1"; assert d["metrics"][0]["name"] == "runtime_ns"; assert d["metrics"][0]["values"][0]["p"] is None' <<<"$output"
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

@test "compare: n=1 and zero variance claim no significance" {
	mkrun "$T/a" base 100
	mkrun "$T/b" one 200
	run "$S/compare.sh" -f csv "$T/a" "$T/b"
	[ "$status" -eq 0 ]
	IFS=, read -r -a o <<<"$(sed -n 3p <<<"$output")"
	[ "${o[17]}" = "" ] && [ "${o[18]}" = 0 ]
	mkrun "$T/c" base 100 100 100
	mkrun "$T/d" same 150 150 150
	run "$S/compare.sh" "$T/c" "$T/d"
	[ "$status" -eq 0 ]
	[[ $output == *"150.00 ( -50.00%)"* ]]
	[[ $output == *"n/a"* ]]
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
	mkrun "$T/e" base 1 2
	: >"$T/e/iter-002.txt"
	msg="iter-002.txt: empty" check "$T/a" "$T/e"
	mkrun "$T/nn" base 1 2
	sed -i 's/^runtime_ns=2$/runtime_ns=12x/' "$T/nn/iter-002.txt"
	msg="runtime_ns='12x' is not a number" check "$T/a" "$T/nn"
	mkrun "$T/nk" base 1 2
	sed -i '/^runtime_ns/d' "$T/nk/iter-001.txt"
	msg="iter-001.txt: no runtime_ns" check "$T/a" "$T/nk"
	mkrun "$T/p" base 1 2
	sed -i 's/^params=.*/params=numipi=200 cpulist=0/' "$T/p/meta.txt"
	msg="params 'numipi=200 cpulist=0' differs" check "$T/a" "$T/p"
	mkrun "$T/b" base 1 2
	sed -i 's/^bench=.*/bench=idle_reentry/' "$T/b/meta.txt"
	msg="bench 'idle_reentry' differs" check "$T/a" "$T/b"
	mkrun "$T/f" base 1 2
	sed -i 's/^status=.*/status=failed/' "$T/f/meta.txt"
	msg="not ok" check "$T/a" "$T/f"
	msg="-l gives 1 labels for 2 directories" check -l x "$T/a" "$T/a"
}

@test "compare: usage on -h and bad arguments" {
	run "$S/compare.sh" -h
	[ "$status" -eq 2 ]
	[[ $output == *usage:* ]]
	run "$S/compare.sh" "$F/ipistorm-6.1"
	[ "$status" -eq 2 ]
	run "$S/compare.sh" -f xml "$F/ipistorm-6.1" "$F/ipistorm-6.12"
	[ "$status" -eq 2 ]
	run "$S/compare.sh" -t lots "$F/ipistorm-6.1" "$F/ipistorm-6.12"
	[ "$status" -eq 2 ]
}

@test "compare: idle_reentry metrics, reentries never a regression" {
	for d in a b; do
		mkdir "$T/$d"
		printf 'format=ipistorm-run/1\nbench=idle_reentry\nparams=cpulist=1\nstorm=pairs=0:1 numipi=20000\nkernel=k%s\nstatus=ok\n' "$d" >"$T/$d/meta.txt"
	done
	for i in 1 2 3; do
		printf 'total.total_mean_ns=%s\ntotal.fast_pct=%s\ntotal.reentries=%s\n' $((700 + i)) 0.$i $((20000 + i)) >"$T/a/iter-00$i.txt"
		printf 'total.total_mean_ns=%s\ntotal.fast_pct=%s\ntotal.reentries=%s\n' $((500 + i)) 99.$i $((10000 + i)) >"$T/b/iter-00$i.txt"
	done
	run "$S/compare.sh" "$T/a" "$T/b"
	[ "$status" -eq 0 ]
	[[ ${lines[3]} == "kb "*" 0.72 [28.49%]" ]]
	grep -q "^total.fast_pct (higher is better)" <<<"$output"
	grep -q "^total.reentries (change shown, no direction)" <<<"$output"
}

@test "compare: nohz_csd fixtures, balances normalized, counts checked" {
	run "$S/compare.sh" "$F/nohz_csd-6.1" "$F/nohz_csd-6.12"
	[ "$status" -ne 2 ]
	[[ ${lines[1]} == "kernel:"*"balances [pct imp]" ]]
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
	for d in a b; do
		mkdir "$T/$d"
		printf 'format=ipistorm-run/1\nbench=nohz_csd\nparams=load_cpus=0 duration=2\nstorm=\nkernel=k%s\nstatus=ok\n' "$d" >"$T/$d/meta.txt"
	done
	for i in 1 2 3; do
		printf 'total.balanced=%s\ntotal.kicks=%s\ntotal.dropped=0\n' $((100 + i)) $((110 + i)) >"$T/a/iter-00$i.txt"
		printf 'total.balanced=%s\ntotal.kicks=%s\ntotal.dropped=%s\n' $((10 + i)) $((110 + i)) $((99 + i)) >"$T/b/iter-00$i.txt"
	done
	run "$S/compare.sh" "$T/a" "$T/b"
	[ "$status" -eq 1 ]
	grep -q '^kb  *0.12 \[-88.24%\]$' <<<"$output"
	[[ $output == *"regression: kb total.balanced: 88.24% worse than ka"* ]]
}
