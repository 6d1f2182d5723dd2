#!/bin/bash
# testbed.sh [-b] [-o DIR] [-r RUNS] [-C REPORT] [BASELINE OTHER]: run the
# suite as lkp-tests jobs in the test bed and compare the kernels with
# lkp's own ncompare. Copies the lkp-tests snapshot (LKP_SNAPSHOT, default
# ../shared/third_party/lkp-tests beside the repository) to DIR/lkp,
# installs the integration (lkp/install.sh), splits the test bed's two
# jobs with lkp's split-job (the shipped jobs' shape, the demo's sizes:
# ipistorm cross-socket numipi=20000 single=1 wait=1, idle_reentry on the
# target of a cross-socket storm of 20000 calls, idle=poll), then boots
# each kernel (default 6.1 and 6.12) twice, 2 vCPUs on 2 sockets with
# idle=poll, the two kernels' guests side by side: ipistorm under
# instruction counting (exact figures, whatever else the host runs),
# idle_reentry in real time (its fast-path share is a count). Each boot
# runs the job's run side RUNS times (lkp/tests/testbed/guest-test.sh: lkp's
# bin/run-test and programs/NAME/run), each run a result root. On the host
# lkp's stats pipeline builds them (programs/NAME/parse | sbin/dump-stat,
# bin/create-stats-matrix, sbin/unite-stats) into DIR/result/NAME/KERNEL,
# and lkp's ncompare (lib/compare.rb, as sbin/ncompare) compares BASELINE
# against OTHER: DIR/ncompare.txt.
#   -b      reuse the kernels' images of vm/mkinitramfs.sh when built
#   -o DIR  where everything goes (default build/lkp-<date>)
#   -r RUNS runs per kernel and job (default 3, at least 3: lkp's change
#           detection needs 3)
#   -C FILE only check an ncompare report, as below
#
# ncompare runs with -a (every stat): its default shows only stats of the
# baseline's matrix, and lkp drops a stat that is 0 in every run, so 6.1's
# fast_pct (0 %) would hide the row. The report must show
# ipistorm.runtime_ns lower on OTHER (a negative %change larger than the
# %stddev ncompare prints, which it prints above 2 % only; lkp's stddev of
# each kernel's runs is printed after the table), and the fast path on
# OTHER only: idle_reentry.fast_pct 0 on BASELINE and 100 on OTHER.
#
# Exit: 0 the report shows that, 1 it does not or a step failed, 4 no
# snapshot or no ruby (skipped, the reason on stderr), 2 usage.
set -euo pipefail
# shellcheck source=../../../vm/lib.sh
. "$(dirname "$0")/../../../vm/lib.sh"

# shellcheck disable=SC2034 # read by the usage helpers of scripts/lib.sh
USAGE="$PROG [-b] [-o DIR] [-r RUNS] [-C REPORT] [BASELINE OTHER]"
out="" reuse=0 report="" runs=3
while getopts bo:r:C:h opt; do
	case $opt in
	b) reuse=1 ;;
	C) report=$OPTARG ;;
	o) out=$OPTARG ;;
	r) runs=$OPTARG ;;
	*) usage_opt "$opt" ;;
	esac
done
case $runs in '' | *[!0-9]*) usage_error "-r takes a number of runs, not '$runs'" ;; esac
[ "$runs" -ge 3 ] || usage_error "-r $runs: lkp's change detection needs at least 3 runs"
kernels=("${@:OPTIND}")
case ${#kernels[@]} in
0) kernels=(6.1 6.12) ;;
2) ;;
*) usage_error "name two kernels, the baseline first, or none" ;;
esac

# check REPORT: ncompare's rows (BASE  [±STDDEV%]  CHANGE%  OTHER
# [±STDDEV%]  STAT): runtime_ns with a negative %change, fast_pct 0
# against 100. Prints the rows it read.
check() {
	awk '
	# the %change column, the values either side of it
	function row(   i) {
		c = 0
		for (i = 2; i < NF; i++) if ($i ~ /^[-+][0-9.e+]+%$/) { c = i; break }
		if (!c) { print $NF ": no %change"; bad = 1; return 0 }
		base = $1 + 0; other = $(c + 1) + 0; change = $c + 0
		sd = 0
		for (i = 2; i < NF; i++) if ($i ~ /^[0-9]+%$/ && i != c) { v = $i + 0; if (v > sd) sd = v }
		return 1
	}
	$NF == "ipistorm.runtime_ns" && row() {
		print; seen++
		if (change >= 0) { print "runtime_ns: " $c " on the other kernel, want it faster"; bad = 1 }
		else if (-change <= sd) { print "runtime_ns: " $c " within the stddev (" sd "%)"; bad = 1 }
	}
	$NF == "idle_reentry.fast_pct" && row() {
		print; seen++
		if (base != 0) { print "fast path on the baseline: " base "%, want 0"; bad = 1 }
		if (other != 100) { print "fast path on the other kernel: " other "%, want 100"; bad = 1 }
	}
	END {
		if (seen != 2) { print "missing rows: " seen " of 2 found"; bad = 1 }
		exit bad
	}' "$1" || die "the report does not show the expected result ($1)"
	log "verdict: runtime_ns lower on the other kernel beyond its stddev, the fast path on it only"
}
if [ -n "$report" ]; then
	check "$report"
	exit 0
fi

snap=${LKP_SNAPSHOT:-$TOP/../shared/third_party/lkp-tests}
if [ ! -x "$snap/sbin/split-job" ]; then
	log "skip: no lkp-tests snapshot at $snap (set LKP_SNAPSHOT)"
	exit 4
fi
if ! ruby -e 'require "active_support"; require "git"; require "tty-command"' 2>/dev/null; then
	log "skip: no ruby with ruby-activesupport, ruby-git, ruby-tty-command (vm/install-deps.sh)"
	exit 4
fi

out=${out:-$BUILD/lkp-$(date +%Y%m%d-%H%M%S)}
[ ! -e "$out" ] || die "$out exists: choose a new directory"
mkdir -p "$out"
lkp=$out/lkp
t0=$(date +%s)
step() { log "[$(($(date +%s) - t0)) s] $*"; }

cp -a "$snap" "$lkp"
chmod -R u+w "$lkp"
"$TOP/lkp/install.sh" "$lkp" >/dev/null
export LKP_SRC=$lkp

# The test bed's jobs: the shipped jobs' shape with the demo's sizes.
mkdir -p "$out/jobs" "$out/atoms"
cat >"$out/jobs/ipistorm-testbed.yaml" <<-'JOB'
	suite: ipistorm
	testcase: ipistorm
	category: functional
	ipistorm-modules:
	ipistorm:
	  numipi: 20000
	  single: 1
	  wait: 1
	  pair: cross-socket
	  iterations: 2
	  warmup: 1
JOB
cat >"$out/jobs/idle_reentry-testbed.yaml" <<-'JOB'
	suite: idle_reentry
	testcase: idle_reentry
	category: functional
	kernel_cmdline: idle=poll
	ipistorm-modules:
	idle_reentry:
	  pair: cross-socket
	  numipi: 20000
	  idle: poll
	  iterations: 2
	  warmup: 0
JOB
overlay=$out/overlay
mkdir -p "$overlay/suite/lkp/tests"
for b in ipistorm idle_reentry; do
	mkdir "$out/atoms/$b"
	# split-job logs its errors and exits 0: the atom must be there.
	(cd "$lkp" && ruby sbin/split-job -t lkp-skl-d01 -o "$out/atoms/$b" "$out/jobs/$b-testbed.yaml") \
		>"$out/split-$b.log" 2>&1 || true
	atoms=("$out/atoms/$b"/*.yaml)
	atom=${atoms[0]}
	[ -f "$atom" ] || { cat "$out/split-$b.log" >&2; die "split-job wrote no atom for $b"; }
	cp "$atom" "$out/atoms/$b.yaml"
	# The atom's parameters of the program, as job.sh exports them.
	ruby -ryaml -e 'YAML.unsafe_load_file(ARGV[0])[ARGV[1]].each { |k, v| puts "#{k}=#{v}" }' \
		"$atom" "$b" >"$out/atoms/$b.params"
done
mkdir -p "$overlay/lkp"
cp -a "$lkp/." "$overlay/lkp/"
rm -rf "$overlay/lkp/.git" "$overlay/lkp/spec" "$overlay/lkp/doc"
cp "$out/atoms/ipistorm.params" "$out/atoms/idle_reentry.params" "$overlay/lkp/"
cp "$TOP/lkp/tests/testbed/guest-test.sh" "$overlay/suite/lkp/tests/lkp.sh"
bed_images "$reuse" "$overlay" "$out" "${kernels[@]}"

# NAME|boot.sh options, per boot; each runs RUNS runs of program NAME.
boots="ipistorm|-c 2 -s 2 -p -i
idle_reentry|-c 2 -s 2 -p"
while IFS='|' read -r b opts; do
	step "${kernels[*]}: $b ($opts), side by side"
	for k in "${kernels[@]}"; do
		bed_boot "$out" "$k" "$b" lkp_run \
			"LKP_PROGRAM=$b LKP_RUNS=$runs LKP_PARAMS=/lkp/$b.params" "$opts" &
	done
	wait
	for k in "${kernels[@]}"; do
		bed_result "$out" "$k" "$b" LKP_RESULT
		# lkp's result roots: DIR/result/NAME/KERNEL/N, one per run.
		mrt=$out/result/$b/$k
		mkdir -p "$mrt"
		tar -C "$mrt" -xzf "$out/$k-$b.tar.gz"
		for ((n = 0; n < runs; n++)); do
			R=$mrt/$n
			[ -s "$R/$b" ] || die "$k: $b: run $n has no record"
			[ ! -s "$R/stderr" ] || die "$k: $b: run $n wrote on stderr: $(head -n 3 "$R/stderr")"
			rm -f "$R/stderr"
			{ cat "$out/atoms/$b.yaml"; echo "commit: $k"; } >"$R/job.yaml"
			# dump-stat writes $b.json, it does not read $b.
			# shellcheck disable=SC2094
			(cd "$R" && export RESULT_ROOT=$R &&
				"$lkp/programs/$b/parse" <"$b" | "$lkp/sbin/dump-stat" "$b" &&
				ruby "$lkp/bin/create-stats-matrix" "$R" &&
				ruby "$lkp/sbin/unite-stats" "$R") >"$out/stats-$k-$b-$n.log" 2>&1 ||
				{ cat "$out/stats-$k-$b-$n.log" >&2; die "$k: $b: run $n: lkp's stats pipeline failed"; }
			[ -f "$R/stats.json" ] || die "$k: $b: run $n: no stats.json"
		done
	done
done <<<"$boots"

# lkp's ncompare reads the result roots through its data store, whose
# place lib/constant.rb fixes at /lkp/data (KTEST_DATA_DIR): ncompare.rb
# sets it to DIR/data and registers the result roots there as lkp's
# server does, then runs lib/compare.rb as sbin/ncompare does.
step "ncompare ${kernels[0]} ${kernels[1]}"
mkdir -p "$out/data"
ruby "$TOP/lkp/tests/testbed/ncompare.rb" "$out/data" "$out"/result/*/"${kernels[0]}" \
	"$out"/result/*/"${kernels[1]}" -- -a "${kernels[0]}" "${kernels[1]}" \
	>"$out/ncompare.txt" 2>"$out/ncompare.err" ||
	{ grep -v 'WARN -- skip non-executable' "$out/ncompare.err" >&2; die "ncompare failed"; }
cat "$out/ncompare.txt"
# ncompare prints a %stddev only above 2 %: lkp's own of each kernel's runs
# (sbin/unite-stats' avg.json, stddev.json).
for k in "${kernels[@]}"; do
	ruby -rjson -e 'a = JSON.parse(File.read(ARGV[0] + "/avg.json"))[ARGV[1]]
		s = JSON.parse(File.read(ARGV[0] + "/stddev.json"))[ARGV[1]] or abort "no stddev of #{ARGV[1]}"
		printf "%s %s: mean %.0f ns, stddev %.0f ns (%.3f %%) over %d runs\n", ARGV[2], ARGV[1], a, s,
			100 * s / a, JSON.parse(File.read(ARGV[0] + "/matrix.json"))[ARGV[1]].size' \
		"$out/result/ipistorm/$k" ipistorm.runtime_ns "$k" | tee -a "$out/stddev.txt" ||
		die "$k: no stddev of ipistorm.runtime_ns in lkp's result root"
done
step "report: $out/ncompare.txt"
check "$out/ncompare.txt"
