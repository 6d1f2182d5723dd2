#!/bin/sh
# install.sh: install the suite's MMTests integration into an MMTests
# checkout, or remove it again (POSIX sh).
#
#   install.sh [-s SUITE] MMTESTS_DIR      install (again: idempotent)
#   install.sh -u MMTESTS_DIR              uninstall
#     -s SUITE  the suite's source tree the configs build from at run time
#               (IPISTORM_SOURCE; default: the tree holding this script)
#
# Installs, for each benchmark whose wiring (<module>/wiring.conf,
# docs/bench.md) names it mmtests=NAME, the shellpack sources
# shellpack_src/src/NAME/ and drivers/driver-NAME.sh: the hand-written
# ones here when there are (ipistorm, idle_reentry, nohz_csd, with
# configs/config-ipistorm-*), else generic ones generated from the
# declaration alone with the templates of generic/ (a shellpack running
# run.sh with its bisect_params and bisect_storm, a parse-results per
# declared direction of its metrics, a driver and
# configs/config-ipistorm-NAME). Everything is listed in
# MMTESTS_DIR/.ipistorm-files; a hand-written shellpack or driver that no
# declaration names, or one without the other, is refused.
# Uninstalling removes exactly those files, the shellpacks run-mmtests.sh
# generated from them (shellpacks/shellpack-{bench,install}-NAME), the
# directories install made and the list, which leaves the checkout as it
# was (results under work/ are kept). A file of the checkout's own that
# install would overwrite is refused. Exit: 0 done, 1 refused or failed,
# 2 usage.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../scripts/lib.sh
. "$HERE/../scripts/lib.sh"
USAGE="$PROG [-s SUITE] MMTESTS_DIR | $PROG -u MMTESTS_DIR"
install_args "$(cd "$HERE/.." && pwd)" "$@"

# The benchmarks' MMTests names, from their declarations; each has its
# hand-written shellpack and driver here (both), or gets generic ones
# (GEN: MODULE:NAME words), and nothing else has.
TESTS="" GEN=""
for m in $(suite_kmods "$HERE/.."); do
	bench_check "$HERE/.." "$m" || die "$m/bench.conf, $m's declaration, is broken"
	wiring_check "$HERE/.." "$m" || die "$m/wiring.conf, $m's wiring, is broken"
	t=$(wiring_get "$HERE/.." "$m" mmtests)
	[ -n "$t" ] || continue
	if [ -d "$HERE/shellpack_src/src/$t" ] && [ -f "$HERE/drivers/driver-$t.sh" ]; then
		:
	elif [ -d "$HERE/shellpack_src/src/$t" ] || [ -f "$HERE/drivers/driver-$t.sh" ]; then
		die "$m/wiring.conf declares mmtests=$t: mmtests/ has one of shellpack_src/src/$t/ and drivers/driver-$t.sh, not both"
	elif [ -f "$HERE/configs/config-ipistorm-$t" ]; then
		die "$m/wiring.conf declares mmtests=$t, whose generic config would be mmtests/configs/config-ipistorm-$t, a hand-written one"
	else
		GEN="$GEN${GEN:+ }$m:$t"
	fi
	TESTS="$TESTS${TESTS:+ }$t"
done
for f in "$HERE"/shellpack_src/src/* "$HERE"/drivers/driver-*.sh; do
	t=${f##*/}
	t=${t#driver-}
	t=${t%.sh}
	case " $TESTS " in
	*" $t "*) ;;
	*) die "mmtests/${f#"$HERE"/} is no declared benchmark's (no <module>/wiring.conf with mmtests=$t)" ;;
	esac
done
{ [ -f "$dest/run-mmtests.sh" ] && [ -d "$dest/shellpack_src/src" ] && [ -d "$dest/drivers" ]; } ||
	die "$dest is not an MMTests checkout (no run-mmtests.sh, shellpack_src/src, drivers)"
list=$dest/.ipistorm-files

# The generic integrations are generated into stage, which ours() lists
# beside the hand-written files.
stage=$(mktemp -d "${TMPDIR:-/tmp}/ipistorm-mmtests.XXXXXX")
trap 'rm -rf "$stage"' EXIT
trap 'exit 1' HUP INT TERM

# sed_value VALUE: VALUE for the right-hand side of sed's s|||.
sed_value() { printf '%s\n' "$1" | sed 's/[\\|&]/\\&/g'; }

# reports MODULE DIRECTION: the report of MODULE's metrics of DIRECTION
# (lower, higher, none): parse-run's KEY:LABEL words (LABEL the key
# without total., its dots _) on the first line, then the shellpack.yaml
# of that report; nothing when none has it.
reports() {
	bench_get "$HERE/.." "$1" metrics | awk -v d="$2" \
		-v primary="$(bench_get "$HERE/.." "$1" primary)" \
		-v plabel="$(bench_get "$HERE/.." "$1" primary_label)" '
	BEGIN {
		units["ns"] = "TIME_NSECONDS"; units["pct"] = "PERCENTAGE"
		units["count"] = "OPS_COUNT"; units["per_sec"] = "OPS_PER_SECOND"
	}
	{
		for (i = 1; i <= NF; i++) {
			split($i, f, ":")
			if (f[2] != d) continue
			l = f[1]; sub(/^total\./, "", l); gsub(/\./, "_", l)
			k[++n] = f[1]; lab[n] = l; u[n] = units[f[3]]
		}
	}
	END {
		if (!n) exit
		def = lab[1]
		for (i = 1; i <= n; i++) {
			printf "%s%s:%s", (i > 1 ? " " : ""), k[i], lab[i]
			if (k[i] == primary) def = lab[i]
		}
		print ""
		if (d == "none")
			print "# No declared direction: MMTests compares these as lower is\n# better, the gains it prints are no verdict."
		print "default-metric: " def
		if (d == "higher") print "preferhigher: true"
		print "\nmetrics:"
		for (i = 1; i <= n; i++) print "  - " lab[i]
		print "\nsummarise: Multiops\nPlotXaxis: Iteration\nPlotType: operation-candlesticks\nDecimalPlaces: 1"
		for (i = 1; i <= n; i++) {
			print "\n" lab[i] ":"
			print "  title: \047" (k[i] == primary ? plabel : k[i]) "\047"
			print "  units: " u[i]
			if (d == "higher") print "  preferhigher: true"
		}
	}'
}

# generate MODULE NAME: MODULE's generic integration as mmtests=NAME, from
# the templates of generic/ and its declaration, into stage: the shellpack
# (NAME-bench and its reports: parse-results and shellpack.yaml the first
# direction of lower, higher, none its metrics have, parse-results-D and
# shellpack-D.yaml the others), the driver and a config.
generate() {
	_g=$stage/shellpack_src/src/$2
	mkdir -p "$_g" "$stage/drivers" "$stage/configs"
	_gs="s|@NAME@|$2|g; s|@MODULE@|$1|g; s|@VAR@|$(echo "$2" | tr 'a-z-' 'A-Z_')|g"
	_gs="$_gs; s|@PARAMS@|$(sed_value "$(wiring_get "$HERE/.." "$1" bisect_params)")|g"
	_gs="$_gs; s|@STORM@|$(sed_value "$(wiring_get "$HERE/.." "$1" bisect_storm)")|g"
	sed "$_gs" "$HERE/generic/bench" >"$_g/$2-bench"
	sed "$_gs" "$HERE/generic/driver" >"$stage/drivers/driver-$2.sh"
	sed "$_gs" "$HERE/generic/config" >"$stage/configs/config-ipistorm-$2"
	_gx=none
	for _gd in lower higher none; do
		reports "$1" "$_gd" >"$stage/report"
		[ -s "$stage/report" ] || continue
		# the first report is the default one, the others -DIRECTION
		case $_gx in none) _gx="" ;; *) _gx=-$_gd ;; esac
		sed "$_gs; s|@DIRECTION@|$_gd|g; s|@MAPS@|$(head -n 1 "$stage/report")|" \
			"$HERE/generic/parse-results" >"$_g/parse-results$_gx"
		sed 1d "$stage/report" >"$_g/shellpack$_gx.yaml"
		chmod 755 "$_g/parse-results$_gx"
	done
	chmod 755 "$_g/$2-bench"
	rm -f "$stage/report"
}

for g in $GEN; do
	generate "${g%%:*}" "${g#*:}"
done

# ours: the integration's files, relative paths: the hand-written ones
# here and the generated ones in stage.
ours() {
	{
		(cd "$HERE" && find shellpack_src drivers configs -type f)
		(cd "$stage" && find . -type f | sed 's|^\./||')
	} | LC_ALL=C sort
}

# remove: delete the listed files and generated shellpacks, then the
# directories install created, when empty.
remove() {
	[ -f "$list" ] || return 0
	while read -r f; do
		[ -n "$f" ] && rm -f "$dest/$f"
	done <"$list"
	for t in $TESTS; do
		rm -f "$dest/shellpacks/shellpack-bench-$t" "$dest/shellpacks/shellpack-install-$t"
		[ ! -d "$dest/shellpack_src/src/$t" ] || rmdir "$dest/shellpack_src/src/$t" 2>/dev/null ||
			echo "install.sh: kept $dest/shellpack_src/src/$t: it holds files not installed here" >&2
	done
	rm -f "$list"
}

install_prepare "$list" ""
for t in $TESTS; do
	if [ -d "$dest/shellpack_src/src/$t" ] && [ ! -f "$list" ]; then
		die "$dest/shellpack_src/src/$t exists and was not installed here"
	fi
done
esc=$(printf '%s\n' "$suite" | sed 's/[\\|&]/\\&/g')
ours >"$list.new"
# What an earlier install listed and this one does not (a generated
# report of a direction no metric has any more) goes.
if [ -f "$list" ]; then
	LC_ALL=C sort "$list" | LC_ALL=C comm -23 - "$list.new" | while read -r f; do
		rm -f "$dest/$f"
	done
fi
for f in $(ours); do
	src=$HERE/$f
	[ -f "$src" ] || src=$stage/$f
	mkdir -p "$dest/$(dirname "$f")"
	case $f in
	configs/*) sed "s|@IPISTORM_SOURCE@|$esc|g" "$src" >"$dest/$f" ;;
	*) cp "$src" "$dest/$f" ;;
	esac
	if [ -x "$src" ]; then chmod 755 "$dest/$f"; else chmod 644 "$dest/$f"; fi
done
mv "$list.new" "$list"
echo "install.sh: installed $(and_list "$TESTS") into $dest (suite: $suite)${GEN:+; generated from the declarations: $(and_list "$(for g in $GEN; do echo "${g#*:}"; done)")}"
