#!/usr/bin/env bats
# compare.sh -d, the shift-share decomposition (scripts/shift_share.awk),
# on made-up directories with per-path figures.

bats_require_minimum_version 1.5.0

setup() {
	S=$BATS_TEST_DIRNAME/..
	T=$BATS_TEST_TMPDIR
}

# mkpaths DIR KERNEL RUN...: a result directory with one iteration per RUN,
# each "n_no_ipi:mean,n_ipi:mean,n_queued:mean" (mean "-" for no calls).
mkpaths() {
	local d=$1 k=$2 i=0 run f p n m
	shift 2
	mkdir -p "$d"
	printf 'format=ipistorm-run/2\nbench=ipistorm\nparams=numipi=100 pairs=0:1 witness=1\nstorm=\nkernel=%s\nstatus=ok\niterations=%d\n' \
		"$k" "$#" >"$d/meta.txt"
	for run in "$@"; do
		i=$((i + 1))
		f=$d/iter-$(printf %03d "$i").txt
		printf 'format=ipistorm/2\nstatus=complete\nruntime_ns=1000\n' >"$f"
		set -- no_ipi ipi queued
		for p in ${run//,/ }; do
			n=${p%%:*} m=${p#*:}
			printf 'total.lat_%s_n=%s\n' "$1" "$n" >>"$f"
			[ "$m" = - ] || printf 'total.lat_%s_mean_ns=%s\n' "$1" "$m" >>"$f"
			shift
		done
	done
}

# field JSON PATH: one value of the JSON output, by a python expression.
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

@test "compare.sh -d: the shift and cost parts add up to the change of the mean exactly" {
	mkpaths "$T/a" 6.1 600:1000,400:9000,0:- 630:1010,350:9100,20:1500 610:990,390:8800,0:-
	mkpaths "$T/b" 6.12 740:800,260:8000,0:- 720:820,270:8100,10:1200 760:790,240:7900,0:-
	run -0 "$S/compare.sh" -d -f json "$T/a" "$T/b"
	printf '%s\n' "$output" >"$T/out.json"
	python3 - "$T/out.json" "$T/a" "$T/b" <<'PY'
import json, sys, glob
d = json.load(open(sys.argv[1]))
def agg(dr):
    n = {}; sw = {}
    for f in sorted(glob.glob(dr + "/iter-*.txt")):
        kv = dict(l.strip().split("=", 1) for l in open(f) if "=" in l)
        for p in ("no_ipi", "ipi", "queued"):
            c = int(kv["total.lat_%s_n" % p])
            n[p] = n.get(p, 0) + c
            sw[p] = sw.get(p, 0) + c * int(kv.get("total.lat_%s_mean_ns" % p, 0))
    N = sum(n.values())
    return N, {p: n[p] / N for p in n}, {p: sw[p] / n[p] for p in n if n[p]}
Na, sa, ma = agg(sys.argv[2]); Nb, sb, mb = agg(sys.argv[3])
Ma = sum(sa[p] * ma[p] for p in ma); Mb = sum(sb[p] * mb[p] for p in mb)
c = d["comparisons"][0]
assert abs(c["mean_ns"] - Mb) < 1e-5 and abs(d["baseline"]["mean_ns"] - Ma) < 1e-5, (c["mean_ns"], Mb)
parts = sum(p["shift_ns"] + p["cost_ns"] for p in c["paths"])
assert abs(c["change_ns"] - (Mb - Ma)) < 1e-5, c["change_ns"]
# the parts, as printed (6 decimals), add up to the change within their rounding
assert abs(parts - c["change_ns"]) < 1e-5 * 7, (parts, c["change_ns"])
assert abs(c["shift_ns"] + c["cost_ns"] - c["change_ns"]) < 1e-5 * 3
# independent: midpoint weights, a path absent on one side takes the other's mean
for p in c["paths"]:
    k = p["path"]
    a = ma.get(k, mb.get(k)); b = mb.get(k, ma.get(k))
    assert abs(p["shift_ns"] - (sb[k] - sa[k]) * (a + b) / 2) < 1e-5, k
    assert abs(p["cost_ns"] - (sa[k] + sb[k]) / 2 * (b - a)) < 1e-5, k
assert c["shift_ns"] < 0 and c["cost_ns"] < 0
print("ok")
PY
}

@test "compare.sh -d: the same shares on both sides have a zero shift part" {
	mkpaths "$T/a" 6.1 700:1000,300:9000,0:- 700:1100,300:9200,0:-
	mkpaths "$T/b" 6.12 700:800,300:7000,0:- 700:900,300:7200,0:-
	run -0 "$S/compare.sh" -d -f csv "$T/a" "$T/b"
	total=$(printf '%s\n' "$output" | grep ',total,')
	[ "$(echo "$total" | cut -d, -f13)" = 0.000000 ]
	[ "$(echo "$total" | cut -d, -f12)" = "$(echo "$total" | cut -d, -f14)" ]
	for p in no_ipi ipi queued; do
		[ "$(printf '%s\n' "$output" | grep ",path,.*,$p," | cut -d, -f13)" = 0.000000 ]
	done
}

@test "compare.sh -d: the same path means on both sides have a zero cost part" {
	mkpaths "$T/a" 6.1 600:1000,400:9000,0:- 650:1000,350:9000,0:-
	# queued only on 6.12, at the polled calls' cost
	mkpaths "$T/b" 6.12 750:1000,250:9000,0:- 790:1000,200:9000,10:1000
	run -0 "$S/compare.sh" -d -f csv "$T/a" "$T/b"
	total=$(printf '%s\n' "$output" | grep ',total,')
	[ "$(echo "$total" | cut -d, -f14)" = 0.000000 ]
	[ "$(echo "$total" | cut -d, -f12)" = "$(echo "$total" | cut -d, -f13)" ]
	# a path absent on one side has no cost part: all of its change is shift
	[ "$(printf '%s\n' "$output" | grep ',path,.*,queued,' | cut -d, -f14)" = 0.000000 ]
	# 6.1: 1250 of 2000 calls polled at 1000 ns, 750 by IPI at 9000 ns;
	# 6.12: 1550 polled or queued and 450: the mean falls by
	# 300/2000 * 8000 ns = 1200 ns.
	[ "$(echo "$total" | cut -d, -f12)" = -1200.000000 ]
}

@test "compare.sh -d: text names each part, its share of the change and its Mann-Whitney p" {
	mkpaths "$T/a" 6.1 600:1000,400:9000,0:- 630:1010,370:9100,0:- 610:990,390:8800,0:-
	mkpaths "$T/b" 6.12 740:800,260:8000,0:- 720:820,280:8100,0:- 760:790,240:7900,0:-
	run -0 "$S/compare.sh" -d "$T/a" "$T/b"
	[[ $output == *"change -"*" ns = shift -"*" ns + cost -"*" ns"* ]]
	# 3 runs against 3, every share apart: the exact p is 0.1
	[[ $output == *"no_ipi   74.00 % (0.1      )"* ]]
}

@test "compare.sh -d: a result without per-path figures is refused with exit 2" {
	mkpaths "$T/a" 6.1 600:1000,400:9000,0:- 630:1010,370:9100,0:-
	mkdir -p "$T/b"
	cp "$T/a/meta.txt" "$T/b/"
	printf 'format=ipistorm/2\nstatus=complete\nruntime_ns=1\n' >"$T/b/iter-001.txt"
	cp "$T/b/iter-001.txt" "$T/b/iter-002.txt"
	run -2 "$S/compare.sh" -d "$T/a" "$T/b"
	[[ $output == *"no total.lat_no_ipi_n"* ]]
}

@test "compare.sh -d: refused for another bench" {
	mkdir -p "$T/a" "$T/b"
	for d in a b; do
		printf 'format=ipistorm-run/2\nbench=nohz_csd\nparams=duration=1\nstorm=\nkernel=x\nstatus=ok\n' >"$T/$d/meta.txt"
		printf 'total.balanced=1\n' >"$T/$d/iter-001.txt"
	done
	run -2 "$S/compare.sh" -d "$T/a" "$T/b"
	[[ $output == *"-d: decomposes ipistorm results"* ]]
}
