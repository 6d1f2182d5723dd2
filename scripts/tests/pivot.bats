#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# pivot.sh on sweep directories made as sweep.sh writes them: cells of
# made-up runtimes, and cells holding the committed test-bed results
# (fixtures/ipistorm-6.1, ipistorm-6.12).

setup() {
	S=$BATS_TEST_DIRNAME/..
	F=$BATS_TEST_DIRNAME/fixtures
	T=$BATS_TEST_TMPDIR
	cd "$T" || return
	# shellcheck source=fixtures/mksweep.bash
	. "$F/mksweep.bash"
}

@test "pivot: the test bed's 6.1 against 6.12 in two cells, text" {
	mksweep a 6.1.0-50-amd64 "llc:0:1:@$F/ipistorm-6.1" "cross-socket:0:2:@$F/ipistorm-6.1"
	mksweep b 6.12.95+deb12-amd64 "llc:0:1:@$F/ipistorm-6.12" "cross-socket:0:2:@$F/ipistorm-6.12"
	run --separate-stderr "$S/pivot.sh" a b
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$output" = "ipistorm numipi=20000 wait=1
runtime_ns (ns), lower is better; 2 cells, baseline 6.1.0-50-amd64

cell                6.1.0-50-amd64      6.12.95+deb12-amd64
class=llc           24431766.40 ±0.11%  0.879 (+12.09%) ±0.03% p=0.0159 *
class=cross-socket  24431766.40 ±0.11%  0.879 (+12.09%) ±0.03% p=0.0159 *
geomean             24431766.40         0.879 (+12.09%)

6.1.0-50-amd64: mean (ns) ±CoV; others: mean / 6.1.0-50-amd64's mean (pct imp: gain over it, positive better) ±CoV
p: Mann-Whitney U (exact to 40 runs in all), Holm-Bonferroni-adjusted over the 2 tests (every cell of every kernel against the baseline); *: significant at alpha 0.05
geomean: geometric mean over the 2 cells of the baseline's means and of the others' ratios

Verdict (threshold 5%): no significant regression
  6.12.95+deb12-amd64 class=llc: 12.09% better (p=0.0159)
  6.12.95+deb12-amd64 class=cross-socket: 12.09% better (p=0.0159)" ] || { echo "$output"; false; }
	# the same bytes under busybox sh and awk, as on the measured machine
	mkdir bb
	ln -s "$(command -v busybox)" bb/awk
	want=$output
	run --separate-stderr env PATH="$T/bb:$PATH" busybox sh "$S/pivot.sh" a b
	[ "$status" -eq 0 ]
	[ "$output" = "$want" ]
	# the other way round: each cell a regression, named
	run --separate-stderr "$S/pivot.sh" b a
	[ "$status" -eq 1 ]
	[ "$stderr" = "pivot.sh: regression: 6.1.0-50-amd64 class=llc: runtime_ns 13.75% worse than 6.12.95+deb12-amd64 (Holm-adjusted p=0.0159, threshold 5%)
pivot.sh: regression: 6.1.0-50-amd64 class=cross-socket: runtime_ns 13.75% worse than 6.12.95+deb12-amd64 (Holm-adjusted p=0.0159, threshold 5%)" ]
	[[ $output == *"Verdict (threshold 5%): 2 significant regressions"* ]]
	[[ $output == *"6.1.0-50-amd64 class=llc: 13.75% worse (p=0.0159): REGRESSION"* ]]
}

# Holm's step-down, not Bonferroni's, not none: cell x (5 runs a side,
# exact p 2/252) and y (4 a side, 2/70) are both significant at 0.05 after
# Holm (2/252 * 2, then 2/70 * 1), y would not be after Bonferroni
# (2/70 * 2 = 0.057); three cells of 4 runs a side are each 2/70 = 0.029
# before the correction and 0.086 after: none is, and their 50 % loss is
# no regression.
@test "pivot: Holm-Bonferroni over the cells, in the CSV" {
	mksweep a base x:0:1:100,101,102,103,104 y:0:2:100,101,102,103
	mksweep b new x:0:1:200,201,202,203,204 y:0:2:200,201,202,203
	run --separate-stderr "$S/pivot.sh" -f csv a b
	[ "$status" -eq 1 ]
	[ "$(awk -F, 'NR > 1 && $2 == "cell" && $4 == "\"new\"" { print $3, $13, $14, $15, $16 }' <<<"$output")" = '"class=x" 0.00793651 0.015873 1 1
"class=y" 0.0285714 0.0285714 1 1' ]
	mksweep c base x:0:1:100,101,102,103 y:0:2:100,101,102,103 z:0:4:100,101,102,103
	mksweep d new x:0:1:150,151,152,153 y:0:2:150,151,152,153 z:0:4:150,151,152,153
	# a design that can find nothing passes nothing: exit 2, the runs
	# it needs named
	run --separate-stderr "$S/pivot.sh" -f csv c d
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "$stderr" = "pivot.sh: with these runs the smallest p the test can give is 0.0286, above Holm's first threshold alpha/3 = 0.0167: no cell can be significant, so no regression can be found; 5 runs in every cell can reach it (sweep.sh -n 5)" ]
	# at alpha 0.1 it can: 0.0286 * 3 = 0.0857, each cell significant
	run --separate-stderr "$S/pivot.sh" -a 0.1 -f csv c d
	[ "$status" -eq 1 ]
	[ "$(awk -F, 'NR > 1 && $2 == "cell" && $4 == "\"new\"" { print $13, $14, $15, $16 }' <<<"$output" | sort -u)" = "0.0285714 0.0857143 1 1" ]
}

@test "pivot: the verdict's threshold, the metric's direction, the geometric mean" {
	mksweep a base x:0:1:100,101,102,103,104 y:0:2:400,401,402,403,404
	mksweep b new x:0:1:49,50,51,52,53 y:0:2:802,803,804,805,806
	# y doubled: a regression of 100 %, x halved: 50 % better; the
	# geometric mean of the ratios is 1
	run --separate-stderr "$S/pivot.sh" a b
	[ "$status" -eq 1 ]
	[ "$stderr" = "pivot.sh: regression: new class=y: runtime_ns 100.00% worse than base (Holm-adjusted p=0.0159, threshold 5%)" ]
	[ "$(grep '^geomean ' <<<"$output" | tr -s ' ')" = "geomean 202.49 1.000 (+0.00%)" ]
	run "$S/pivot.sh" -t 100 a b
	[ "$status" -eq 0 ]
	# higher is better: the rate of x doubled, that of y halved
	run --separate-stderr "$S/pivot.sh" -k total.ipis_per_sec -f json a b
	[ "$status" -eq 1 ]
	python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["format"] == "ipistorm-pivot/1" and d["direction"] == "higher" and d["unit"] == "per_sec"
v = {c["cell"]: c["values"][1] for c in d["cells"]}
assert v["class=x"]["gain_pct"] > 90 and not v["class=x"]["regression"] and v["class=y"]["gain_pct"] < -49 and v["class=y"]["regression"]
assert d["regressions"] == 1 and d["tests"] == 2 and d["correction"] == "holm-bonferroni" and abs(d["geomean"][1]["norm_mean"] - 1) < 0.01' <<<"$output"
	[[ $stderr == "pivot.sh: regression: new class=y: total.ipis_per_sec "* ]]
}

@test "pivot: too few runs for any cell to be significant cannot pass: exit 2, the runs needed" {
	mksweep a base x:0:1:100,101,102 y:0:2:100,101,102
	mksweep b new x:0:1:200,201,202 y:0:2:200,201,202
	run --separate-stderr "$S/pivot.sh" a b
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "$stderr" = "pivot.sh: with these runs the smallest p the test can give is 0.1000, above Holm's first threshold alpha/2 = 0.0250: no cell can be significant, so no regression can be found; 5 runs in every cell can reach it (sweep.sh -n 5)" ]
	# sweep.sh's default -n 5 on 8 cells: 2/252 is above 0.05/8; 6 runs are enough
	local c8="" c8n="" k
	for k in 1 2 3 4 5 6 7 8; do
		c8="$c8 c$k:0:$k:100,101,102,103,104" c8n="$c8n c$k:0:$k:200,201,202,203,204"
	done
	# shellcheck disable=SC2086 # the cells, words
	mksweep c base $c8
	# shellcheck disable=SC2086
	mksweep d new $c8n
	run --separate-stderr "$S/pivot.sh" c d
	[ "$status" -eq 2 ]
	[[ $stderr == *"alpha/8 = 0.0063: no cell can be significant, so no regression can be found; 6 runs in every cell can reach it (sweep.sh -n 6)" ]]
}

@test "pivot: a sweep given twice counts once: the baseline among the others is left out, said" {
	mksweep res/base base x:0:1:100,101,102,103,104 y:0:2:400,401,402,403,404
	mksweep res/new new x:0:1:100,101,102,103,104 y:0:2:802,803,804,805,806
	run --separate-stderr "$S/pivot.sh" res/base res/new
	[ "$status" -eq 1 ]
	want=$output
	# the baseline inside res/*, and given again by another name
	run --separate-stderr "$S/pivot.sh" res/base res/* ./res/new/
	[ "$status" -eq 1 ] || { echo "$stderr"; false; }
	[ "$output" = "$want" ]
	[ "$stderr" = "pivot.sh: note: res/base is res/base given again: left out (a sweep counts once)
pivot.sh: note: ./res/new/ is res/new given again: left out (a sweep counts once)
pivot.sh: regression: new class=y: runtime_ns 100.00% worse than base (Holm-adjusted p=0.0159, threshold 5%)" ]
	# nothing left but the baseline: nothing to compare
	run --separate-stderr "$S/pivot.sh" res/base res/base
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ $stderr == *"res/base is the only sweep once repeats are left out: give a baseline sweep and at least one other" ]]
}

@test "pivot: sweeps that do not match, incomplete cells and bad input are refused, exit 2, nothing on stdout" {
	mksweep a base x:0:1:100,101 y:0:2:100,101
	mksweep b new x:0:1:100,101 y:0:2:100,101
	cp -r b c
	sed -i 's/^axis=class x y/axis=class x z/' c/sweep.txt
	cp -r b d
	sed -i 's/^params=.*/params=numipi=10 wait=1/' d/sweep.txt
	cp -r b e
	sed -i 's/^status=ok/status=interrupted/' 'e/class=y/meta.txt'
	cp -r b f
	sed -i 's/ pairs=0:2$/ pairs=0:2 delay=5/' f/sweep.txt 'f/class=y/meta.txt'
	cp -r b g
	rm 'g/class=x/iter-002.txt'
	cp -r b h
	sed -i 's/^kernel=.*/kernel=other/' 'h/class=x/meta.txt'
	cp -r b i
	sed -i 's/^runtime_ns=.*/runtime_ns=fast/' 'i/class=x/iter-001.txt'
	cp -r b j
	sed -i 's/^iterations=2/iterations=1/' 'j/class=x/meta.txt'
	rm 'j/class=x/iter-002.txt'
	# a cell of another build of the same release: its version string,
	# its module
	cp -r b k
	sed -i 's/^kernel_version=.*/kernel_version=#2 SMP new/' 'k/class=y/meta.txt'
	cp -r b l
	sed -i 's/^module.ipistorm.srcversion=.*/module.ipistorm.srcversion=FEDCBA9876543210FEDCBA9/' 'l/class=x/meta.txt'
	# an index of format 1 names no build: its cells must agree
	cp -r b n
	sed -i 's/^format=.*/format=ipistorm-sweep\/1/; /^kernel_version=/d; /^modules=/d; /^moddir=/d' n/sweep.txt
	sed -i 's/^kernel_version=.*/kernel_version=#2 SMP new/' 'n/class=y/meta.txt'
	cp -r b m
	sed -i 's/^format=.*/format=ipistorm-sweep\/3/' m/sweep.txt
	while IFS='|' read -r dir want; do
		run --separate-stderr "$S/pivot.sh" a "$dir"
		[ "$status" -eq 2 ] || { echo "$dir: $status"; false; }
		[ -z "$output" ]
		[ "$stderr" = "pivot.sh: $want" ] || { echo "$dir: $stderr"; false; }
	done <<-'EOF'
	c|c is a sweep of another bench or grid: 'axis=class x z', the baseline's 'axis=class x y' (a)
	d|d is a sweep of another bench or grid: 'params=numipi=10 wait=1', the baseline's 'params=numipi=20000 wait=1' (a)
	e|e/class=y/meta.txt: status is 'interrupted', not ok: the cell is incomplete (resume the sweep)
	f|class=y: parameters numipi=20000 wait=1 delay=5 in f differ from the baseline's numipi=20000 wait=1 (a) beyond the cell's grid values
	g|g/class=x/meta.txt: iterations=2 but 1 iter-*.txt files
	h|h/class=x/meta.txt: kernel is 'other', the sweep's index says 'new'
	i|./i/class=x/iter-001.txt: runtime_ns='fast' is not a number
	j|j/class=x: 1 run: a verdict needs at least 2 runs in each cell
	k|k/class=y/meta.txt: kernel_version is '#2 SMP new', the sweep's index says '#1 SMP new'
	l|l/class=x/meta.txt: module.ipistorm.srcversion is 'FEDCBA9876543210FEDCBA9', the sweep's index says '0123456789ABCDEF0123456'
	m|m/sweep.txt: format is 'ipistorm-sweep/3', want ipistorm-sweep/2 (or /1)
	n|n/class=y/meta.txt: kernel_version is '#2 SMP new', the sweep's index says '#1 SMP new'
	missing|missing: no such directory
	EOF
	run --separate-stderr "$S/pivot.sh" -k total.lat_p50_ns a b
	[ "$status" -eq 2 ]
	[ "$stderr" = "pivot.sh: a/class=x: no total.lat_p50_ns in 2 of its 2 results (every result must have it)" ]
	run "$S/pivot.sh" -f xml a b
	[ "$status" -eq 2 ]
	run "$S/pivot.sh" -a 0.7 a b
	[ "$status" -eq 2 ]
	run "$S/pivot.sh" a
	[ "$status" -eq 2 ]
}

@test "pivot: a class's pairs differ between machines: compared by class, said" {
	mksweep a base x:0:1:100,101,102,103,104 y:0:2:100,101,102,103,104
	mksweep b new x:0:8:100,101,102,103,104 y:0:2:100,101,102,103,104
	run --separate-stderr "$S/pivot.sh" a b
	[ "$status" -eq 0 ]
	[ "$stderr" = "pivot.sh: note: class=x: pairs=0:8 in b, pairs=0:1 in the baseline (a): the class's pairs on each machine" ]
	# and a sweep of the same kernel is told apart by its directory
	cp -r a a2
	run "$S/pivot.sh" a a2
	[ "${lines[2]}" = "cell     base (a)       base (a2)" ]
}
