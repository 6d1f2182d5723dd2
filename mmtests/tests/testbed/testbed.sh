#!/bin/bash
# testbed.sh [-b] [-o DIR] [-C REPORT] [BASELINE OTHER]: run the suite under MMTests in the
# test bed and report with MMTests' compare-kernels.sh. Copies the MMTests
# snapshot (MMTESTS_SNAPSHOT, default ../shared/third_party/mmtests beside
# the repository) to
# DIR/mmtests, installs the integration (mmtests/install.sh), generates
# the shellpacks with MMTests' refresh.sh, then per kernel (default 6.1
# and 6.12) boots the guest twice, 2 vCPUs on 2 sockets with idle=poll, as
# vm/demo.sh does: ipistorm under instruction counting
# (config-ipistorm-cross-socket), idle_reentry alongside a storm in real
# time (config-ipistorm-fastpath), both with the test bed's sizes
# (mmtests/tests/testbed/config-testbed). Each boot runs the configs through
# mmtests/tests/testbed/guest-run.sh; the logs come back into DIR/mmtests/work/log/
# KERNEL, where MMTests' compare-kernels.sh reads them:
# DIR/compare.text and DIR/compare.html.
#   -b      reuse the kernels' images of vm/mkinitramfs.sh when built
#   -o DIR  where everything goes (default build/mmtests-<date>)
#   -C FILE only check a compare-kernels.sh text report, as below
#
# The text report must show ipistorm's runtime lower on OTHER, marked
# significant by MMTests (`*x%*`), and the fast path 0 % on BASELINE and
# 100 % on OTHER (idle_reentry's pick_idle_pct 100 and 0); the HTML must
# mark both Amean rows as significant gains (green).
#
# Exit: 0 the report shows that, 1 it does not or a step failed, 4 no snapshot
# (skipped, the reason on stderr), 2 usage.
set -euo pipefail
# shellcheck source=../../../vm/lib.sh
. "$(dirname "$0")/../../../vm/lib.sh"

# shellcheck disable=SC2034 # read by the usage helpers of scripts/lib.sh
USAGE="$PROG [-b] [-o DIR] [-C REPORT] [BASELINE OTHER]"
out="" reuse=0 report=""
while getopts bo:C:h opt; do
	case $opt in
	b) reuse=1 ;;
	C) report=$OPTARG ;;
	o) out=$OPTARG ;;
	*) usage_opt "$opt" ;;
	esac
done
kernels=("${@:OPTIND}")
case ${#kernels[@]} in
0) kernels=(6.1 6.12) ;;
2) ;;
*) usage_error "name two kernels, the baseline first, or none" ;;
esac
snap=${MMTESTS_SNAPSHOT:-$TOP/../shared/third_party/mmtests}
if [ ! -f "$snap/compare-kernels.sh" ]; then
	log "skip: no MMTests snapshot at $snap (set MMTESTS_SNAPSHOT)"
	exit 4
fi
# check REPORT: compare-kernels.sh's text must show ipistorm's runtime
# lower on the second kernel with MMTests' significance mark (Amean
# `* x%*`, x > 0: the direction-aware gain), and idle_reentry's slow-path
# share (re-entries that made a pick) 100 % on the first and 0 % on the
# second: the fast path 0 % against 100 %. Prints the rows it read.
check() {
	awk '
	/^ipistorm$/ { sec = "ipistorm" } /^idle_reentry$/ { sec = "idle_reentry" }
	/^[a-z_]+$/ && $0 != "ipistorm" && $0 != "idle_reentry" { sec = "" }
	sec == "ipistorm" && $1 == "Amean" && $2 == "runtime" {
		print; seen++
		# Amean runtime BASE ( 0.00%) OTHER *  GAIN%*
		if (!match($0, /\*[ ]*-?[0-9.]+%\*$/)) { print "runtime: no significance mark"; bad = 1 }
		g = substr($0, RSTART + 1, RLENGTH - 3) + 0
		if (g <= 0) { print "runtime: no gain (" g "%)"; bad = 1 }
	}
	sec == "idle_reentry" && $1 == "Amean" && $2 == "pick_idle_pct" {
		print; seen++
		if ($3 + 0 != 100) { print "fast path on the baseline: " 100 - $3 "%, want 0"; bad = 1 }
		split($0, w, ")"); split(w[2], o, " ")
		if (o[1] + 0 != 0) { print "fast path on the other kernel: " 100 - o[1] "%, want 100"; bad = 1 }
	}
	END {
		if (seen != 2) { print "missing rows: " seen " of 2 found"; bad = 1 }
		exit bad
	}' "$1" || die "the report does not show the expected result ($1)"
	log "verdict: ${kernels[1]} faster than ${kernels[0]}, significant by MMTests' rule; fast path 0 % against 100 %"
}
if [ -n "$report" ]; then
	check "$report"
	exit 0
fi

out=${out:-$BUILD/mmtests-$(date +%Y%m%d-%H%M%S)}
[ ! -e "$out" ] || die "$out exists: choose a new directory"
mkdir -p "$out"
mm=$out/mmtests
t0=$(date +%s)
step() { log "[$(($(date +%s) - t0)) s] $*"; }

cp -a "$snap" "$mm"
"$TOP/mmtests/install.sh" "$mm" >/dev/null
for t in ipistorm idle_reentry; do
	"$mm/shellpack_src/src/refresh.sh" "$t" >/dev/null
done
version=$(sed -n 's/^DEFAULT_VERSION=//p' "$mm/shellpacks/shellpack-bench-ipistorm")

# The guest's additions, a second archive the kernel unpacks over the test
# bed's image: MMTests at /mmtests, the suite's built modules (/suite) as
# its installed ipistorm build, the runner's test at
# /suite/mmtests/tests/mmtests.sh.
overlay=$out/overlay
mkdir -p "$overlay/suite/mmtests/tests" "$overlay/mmtests"
cp -a "$mm/." "$overlay/mmtests/"
rm -rf "$overlay/mmtests/.git" "$overlay/mmtests/docs"
mkdir -p "$overlay/mmtests/work/sources"
ln -s /suite "$overlay/mmtests/work/sources/ipistorm-$version-installed"
cp "$TOP/mmtests/tests/testbed/guest-run.sh" "$TOP/mmtests/tests/testbed/config-testbed" "$overlay/mmtests/"
cp "$TOP/mmtests/tests/testbed/guest-test.sh" "$overlay/suite/mmtests/tests/mmtests.sh"
bed_images "$reuse" "$overlay" "$out" "${kernels[@]}"

# NAME|boot.sh options|configs (the bed's sizes last), per boot.
boots="ipistorm|-c 2 -s 2 -p -i|configs/config-ipistorm-cross-socket,config-testbed
idle_reentry|-c 2 -s 2 -p|configs/config-ipistorm-fastpath,config-testbed"
for k in "${kernels[@]}"; do
	while IFS='|' read -r name opts configs; do
		step "$k: $name ($opts)"
		bed_boot "$out" "$k" "$name" mmtests_run \
			"MMTESTS_RUN=$k MMTESTS_CONFIGS=$configs" "$opts"
		bed_result "$out" "$k" "$name" MMTESTS_LOG
		# The second boot adds its test to the run of the first.
		mkdir -p "$out/$k-$name"
		tar -C "$out/$k-$name" -xzf "$out/$k-$name.tar.gz"
		dst=$mm/work/log/$k
		mkdir -p "$dst/iter-0"
		cp -r "$out/$k-$name/$k/iter-0/$name" "$dst/iter-0/"
		for f in mmtests-activity iter-0/tests-activity iter-0/tests-timestamp; do
			if [ -f "$dst/$f" ]; then
				grep -v -e 'run-mmtests: Start' -e 'Iteration 1 start' -e '^start ::' \
					"$out/$k-$name/$k/$f" >>"$dst/$f" || true
			else
				cp "$out/$k-$name/$k/$f" "$dst/$f"
			fi
		done
		cp "$out/$k-$name/$k/iter-0/kernel" "$dst/iter-0/kernel"
	done <<<"$boots"
done

step "compare-kernels.sh --baseline ${kernels[0]} --compare ${kernels[1]}"
# ASSUME_PACKAGE_INSTALLED: compare-kernels.sh asks bin/install-depends for
# packages by openSUSE names (python313-scipy, python313-yq, ...) that
# Debian does not have; what the reports need is installed (Perl's
# YAML::PP, File::Slurp, Math::Gradient, gnuplot).
for fmt in text html; do
	f=(); [ "$fmt" = text ] || f=(--format "$fmt")
	(cd "$mm/work/log" && ASSUME_PACKAGE_INSTALLED=yes ../../compare-kernels.sh \
		"${f[@]}" --baseline "${kernels[0]}" --compare "${kernels[1]}") \
		>"$out/compare.$fmt" 2>"$out/compare-$fmt.err" ||
		{ cat "$out/compare-$fmt.err" >&2; die "compare-kernels.sh --format $fmt failed"; }
done
# The HTML marks a significant gain by a green cell (PrintHtml.pm).
for row in runtime pick_idle_pct; do
	grep -q "^<tr><td >Amean *</td><td > $row *</td>.*<td bgcolor=\"#A0FFA0\">" "$out/compare.html" ||
		die "compare-kernels.sh --format html does not mark Amean $row a significant gain"
done
step "reports: $out/compare.text, $out/compare.html"
check "$out/compare.text"
