#!/usr/bin/env bats
# compare.sh -d, the shift-share decomposition (scripts/shift_share.awk),
# on made-up directories with per-path figures, and on real runs of
# idle_reentry beside a storm (fixtures/idle_reentry-race-*).

bats_require_minimum_version 1.5.0

setup() {
	S=$BATS_TEST_DIRNAME/..
	F=$BATS_TEST_DIRNAME/fixtures
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

# The real runs of fixtures/idle_reentry-race-*: idle_reentry on CPU1
# beside a witness=1 storm CPU0 -> CPU1 (fixtures/README).
@test "compare.sh -d: beside idle_reentry the storms decompose as ipistorm directories would" {
	local k
	for k in 6.1 6.12; do
		mkdir -p "$T/$k"
		sed 's/^bench=.*/bench=ipistorm/' "$F/idle_reentry-race-$k/meta.txt" >"$T/$k/meta.txt"
		for f in "$F/idle_reentry-race-$k"/storm-iter-*.txt; do
			cp "$f" "$T/$k/${f##*/storm-}"
		done
	done
	for fmt in text csv json; do
		run -0 "$S/compare.sh" -d -f "$fmt" -l a,b "$T/6.1" "$T/6.12"
		printf '%s\n' "$output" >"$T/storm.$fmt"
		run -0 "$S/compare.sh" -d -f "$fmt" -l a,b "$F/idle_reentry-race-6.1" "$F/idle_reentry-race-6.12"
		printf '%s\n' "$output" >"$T/ir.$fmt"
	done
	# the same paths, parts and p's; the directories' names aside
	python3 - "$T/storm.json" "$T/ir.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
assert a["format"] == b["format"] == "ipistorm-shift-share/2", (a["format"], b["format"])
assert a["bench"] == "ipistorm" and b["bench"] == "idle_reentry"
assert a["baseline"]["phases"] == [] and a["comparisons"][0]["phases"] == []
for x, y in ((a["baseline"], b["baseline"]), (a["comparisons"][0], b["comparisons"][0])):
    for k in x:
        if k not in ("dir", "phases"):
            assert x[k] == y[k], (k, x[k], y[k])
assert b["comparisons"][0]["change_ns"] != 0
print("ok")
PY
	diff <(grep -v '^[^,]*,phase,' "$T/ir.csv" | sed 's/"[^"]*idle_reentry-race-[^"]*"/D/') \
		<(sed 's/"[^"]*\/6\.12*"/D/' "$T/storm.csv")
	[ "$(grep -c '^[^,]*,phase,' "$T/storm.csv")" -eq 0 ]
	[ "$(grep -c '^[^,]*,phase,' "$T/ir.csv")" -eq 4 ]
}

@test "compare.sh -d: idle_reentry's phases beside the decomposition, checked independently" {
	run -0 "$S/compare.sh" -d -f json "$F/idle_reentry-race-6.1" "$F/idle_reentry-race-6.12"
	printf '%s\n' "$output" >"$T/out.json"
	run -0 "$S/compare.sh" -d -f csv "$F/idle_reentry-race-6.1" "$F/idle_reentry-race-6.12"
	printf '%s\n' "$output" >"$T/out.csv"
	python3 - "$T/out.json" "$T/out.csv" "$F/idle_reentry-race-6.1" "$F/idle_reentry-race-6.12" <<'PY'
import csv, glob, itertools, json, sys
d = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
def runs(dr):
    out = []
    for f in sorted(glob.glob(dr + "/iter-*.txt")):
        kv = dict(l.rstrip("\n").split("=", 1) for l in open(f) if "=" in l)
        assert kv["format"] == "idle_reentry/2" and kv["status"] == "complete"
        out.append(kv)
    return out
def phase(rs, q):
    n = [int(r["total.%s_n" % q]) for r in rs]
    m = [int(r["total.%s_mean_ns" % q]) for r in rs]
    return sum(n), sum(a * b for a, b in zip(n, m)) / sum(n), [b for a, b in zip(n, m) if a]
def mwu(x, y):
    # exact two-sided p over every way to draw y's runs from the pooled
    # ones, mid-ranks for ties
    pool = sorted(x + y)
    rank = {v: (pool.index(v) + 1 + len(pool) - pool[::-1].index(v)) / 2 for v in pool}
    r = [rank[v] for v in pool]
    e = len(y) * (len(pool) + 1) / 2
    w = sum(rank[v] for v in y)
    ws = [sum(c) for c in itertools.combinations(r, len(y))]
    return sum(abs(s - e) >= abs(w - e) - 1e-9 for s in ws) / len(ws)
a, b = runs(sys.argv[3]), runs(sys.argv[4])
assert len(a) == len(b) == 5
base = {p["phase"]: p for p in d["baseline"]["phases"]}
cmp = {p["phase"]: p for p in d["comparisons"][0]["phases"]}
crow = {r["phase"]: r for r in rows if r["record"] == "phase"}
assert list(base) == list(cmp) == ["tick", "flush", "sched", "total"]
for q in base:
    n0, m0, x0 = phase(a, q); n1, m1, x1 = phase(b, q)
    assert base[q]["reentries"] == n0 and cmp[q]["reentries"] == n1, q
    assert base[q]["runs"] == cmp[q]["runs"] == 5
    assert abs(base[q]["mean_ns"] - m0) < 1e-5 and abs(cmp[q]["mean_ns"] - m1) < 1e-5, q
    assert abs(cmp[q]["base_mean_ns"] - m0) < 1e-5, q
    assert abs(cmp[q]["change_ns"] - (m1 - m0)) < 1e-5, q
    assert abs(cmp[q]["change_pct"] - 100 * (m1 - m0) / m0) < 1e-5, q
    p = mwu(x0, x1)
    assert abs(cmp[q]["mwu_p"] - p) <= 5e-4 * p, (q, cmp[q]["mwu_p"], p)
    c = crow[q]
    assert int(c["calls"]) == n1 and int(c["base_calls"]) == n0 and c["runs"] == "5", q
    assert abs(float(c["mean_ns"]) - m1) < 1e-5 and abs(float(c["base_mean_ns"]) - m0) < 1e-5, q
    assert abs(float(c["change_ns"]) - (m1 - m0)) < 1e-5, q
    assert c["mean_mwu_p"] == "%.4g" % cmp[q]["mwu_p"] and c["path"] == c["shift_ns"] == c["share"] == "", q
# the phases add up to the total per re-entry: the means within rounding
for ph in (base, cmp):
    s = sum(ph[q]["mean_ns"] for q in ("tick", "flush", "sched"))
    assert abs(s - ph["total"]["mean_ns"]) < 1.5, (s, ph["total"]["mean_ns"])
print("ok")
PY
}

@test "compare.sh -d: text shows the phases next to the decomposition" {
	run -0 "$S/compare.sh" -d -l 6.1,6.12 "$F/idle_reentry-race-6.1" "$F/idle_reentry-race-6.12"
	[[ $output == *"change "*" ns = shift "*" ns + cost "*" ns"* ]]
	[[ $output == *"idle_reentry beside the storm: "*" re-entries, mean ns per re-entry"* ]]
	for q in tick flush sched total; do
		grep -Eq "^  $q +[0-9]+\.[0-9] +[0-9]+\.[0-9] +[-+][0-9]+\.[0-9] +[-+][0-9]+\.[0-9]{2} +(0|1|0\.[0-9]+)$" <<<"$output" ||
			{ echo "no $q row"; false; }
	done
	[[ $output == *"6.1: 5 runs, "*"idle_reentry: "*" re-entries, mean per re-entry tick "* ]]
}

@test "compare.sh -d: idle_reentry results need their storm results, one for one" {
	cp -r "$F/idle_reentry-race-6.1" "$T/a"
	cp -r "$F/idle_reentry-race-6.12" "$T/b"
	rm "$T/b/storm-iter-003.txt"
	run -2 "$S/compare.sh" -d "$T/a" "$T/b"
	[[ $output == *"$T/b/storm-iter-003.txt: no storm result beside"* ]]
	cp "$F/idle_reentry-race-6.12/storm-iter-003.txt" "$T/b/"
	cp "$T/b/storm-iter-005.txt" "$T/b/storm-iter-006.txt"
	run -2 "$S/compare.sh" -d "$T/a" "$T/b"
	[[ $output == *"storm-iter-006.txt: a storm result without its iter-006.txt"* ]]
	rm "$T/b/storm-iter-006.txt"
	run -0 "$S/compare.sh" -d "$T/a" "$T/b"
	# idle_reentry without a storm: nothing to decompose
	run -2 "$S/compare.sh" -d "$F/idle_reentry-6.1" "$F/idle_reentry-6.12"
	[[ $output == *"ran without a storm"* ]] || [[ $output == *"no storm result beside"* ]]
}

@test "compare.sh -d: a phase some run lacks is undefined; idle_reentry/1 and /2 are not compared" {
	cp -r "$F/idle_reentry-race-6.1" "$T/a"
	cp -r "$F/idle_reentry-race-6.12" "$T/b"
	sed -i '/^total\.tick_/d' "$T/b/iter-002.txt"
	run -0 "$S/compare.sh" -d -f json "$T/a" "$T/b"
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
t = d["comparisons"][0]["phases"][0]
assert t["phase"] == "tick" and t["reentries"] is None and t["mean_ns"] is None, t
assert t["change_ns"] is None and t["change_pct"] is None and t["base_mean_ns"] is not None, t
assert d["comparisons"][0]["phases"][1]["change_ns"] is not None
' "$output"
	run -0 "$S/compare.sh" -d "$T/a" "$T/b"
	grep -Eq '^  tick +[0-9]+\.[0-9] +n/a +n/a +n/a ' <<<"$output"
	sed -i 's|^format=idle_reentry/2$|format=idle_reentry/1|' "$T/b/iter-001.txt"
	run -2 "$S/compare.sh" -d "$T/a" "$T/b"
	[[ $output == *"idle_reentry/1"*"idle_reentry/2: their total_* phases start at different points"* ]]
}

# busybox alone on the measured machine: the same bytes as the host's awk.
@test "compare.sh -d: busybox sh and awk compute the same" {
	command -v busybox >/dev/null || skip "no busybox"
	mkdir "$T/bin"
	for t in sh awk sed sort uniq tr wc head cat mktemp rm dirname; do
		ln -s "$(command -v busybox)" "$T/bin/$t"
	done
	for fmt in text csv json; do
		run --separate-stderr "$S/compare.sh" -d -f "$fmt" "$F/idle_reentry-race-6.1" "$F/idle_reentry-race-6.12"
		[ "$status" -eq 0 ]
		want=$output
		PATH=$T/bin run --separate-stderr "$T/bin/sh" "$S/compare.sh" -d -f "$fmt" "$F/idle_reentry-race-6.1" "$F/idle_reentry-race-6.12"
		[ "$status" -eq 0 ]
		[ "$output" = "$want" ] || { diff <(echo "$want") <(echo "$output"); false; }
	done
}

@test "compare.sh -d: docs/compare.md's example beside idle_reentry is what it prints" {
	want=$(awk '/^    \$ \.\.\/\.\.\/compare\.sh -d -l 6\.1,6\.12 idle_reentry-race/ { on = 1; next }
		on && /^    / { sub(/^    /, ""); print; next }
		on && /^$/ { print; next }
		on { exit }' "$S/../docs/compare.md")
	cd "$F"
	run -0 ../../compare.sh -d -l 6.1,6.12 idle_reentry-race-6.1 idle_reentry-race-6.12
	# $(...) dropped the blank line after the example
	[ "$output" = "$want" ] ||
		{ diff <(printf '%s\n' "$want") <(printf '%s\n' "$output"); false; }
}
