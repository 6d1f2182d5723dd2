#!/bin/sh
# install.sh: install the suite's lkp-tests integration into an lkp-tests
# checkout, or remove it again (POSIX sh).
#
#   install.sh [-s SUITE] LKP_DIR      install (again: idempotent)
#   install.sh -u LKP_DIR              uninstall
#     -s SUITE  the suite's source tree the ipistorm-modules setup builds
#               from (default IPISTORM_SOURCE at run time, else the tree
#               holding this script)
#
# Installs programs/{ipistorm,idle_reentry,nohz_csd}/ (run, parse,
# meta.yaml, include, pkg), programs/ipistorm-modules/ (the setup building
# the modules for the kernel under test), lib/tests/ipistorm.{sh,rb},
# jobs/{ipistorm,ipistorm-published,idle_reentry-fastpath,
# nohz_csd-nohz-kick}.yaml and spec/fixtures/stats/{ipistorm,idle_reentry,
# nohz_csd}/, and inserts the testcases into etc/linux-perf-test-cases and
# their directions into etc/index-perf-all.yaml, each line at its sorted
# place (LC_ALL=C sort -f, as lkp's file_sorting spec checks). A declared
# benchmark without a program here gets a generic one, generated from its
# declaration alone with the templates of generic/: programs/NAME/ (run
# runs run.sh with the job's params, default its bisect_params, and
# storm, default its bisect_storm; parse prints its declared metrics),
# jobs/NAME.yaml, its testcase line and the signs of its metrics' declared
# directions. All of it
# is listed in LKP_DIR/.ipistorm-files. Uninstalling removes exactly those
# files and lines, the directories install made and the list, which leaves
# the checkout byte-identical to what it was. A file or line of the
# checkout's own that install would overwrite or duplicate is refused, and
# nothing is changed. The integration is checked against the benchmarks'
# declarations and wirings (<module>/bench.conf and wiring.conf,
# docs/bench.md) first: each lkp=NAME
# with its programs/NAME/ here has all of it and its
# etc/linux-perf-test-cases line (one without has no line), every program
# with a run and a parse is a declared one's, and the signs of
# etc/index-perf-all.yaml agree with the declared directions of the
# metrics they match (NAME\.STAT for the metric STAT or total.STAT).
# Exit: 0 done, 1 refused or failed, 2 usage.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../scripts/lib.sh
. "$HERE/../scripts/lib.sh"
USAGE="$PROG [-s SUITE] LKP_DIR | $PROG -u LKP_DIR"
install_args "$(cd "$HERE/.." && pwd)" "$@"

# The benchmarks' lkp names (NAMES), "NAME METRIC:DIRECTION..." lines
# for the directions (DECLARED), and those without a program of their
# own here (GEN: MODULE:NAME words), from their declarations and wirings.
NAMES="" DECLARED="" GEN=""
for m in $(suite_kmods "$HERE/.."); do
	bench_check "$HERE/.." "$m" || die "$m/bench.conf, $m's declaration, is broken"
	wiring_check "$HERE/.." "$m" || die "$m/wiring.conf, $m's wiring, is broken"
	t=$(wiring_get "$HERE/.." "$m" lkp)
	[ -n "$t" ] || continue
	if [ -e "$HERE/programs/$t" ]; then
		for f in run parse meta.yaml include pkg; do
			[ -e "$HERE/programs/$t/$f" ] || [ -L "$HERE/programs/$t/$f" ] ||
				die "$m/wiring.conf declares lkp=$t, but there is no lkp/programs/$t/$f"
		done
		grep -qxF "$t" "$HERE/etc/linux-perf-test-cases" ||
			die "$m/wiring.conf declares lkp=$t, but lkp/etc/linux-perf-test-cases does not list it"
	else
		! grep -qxF "$t" "$HERE/etc/linux-perf-test-cases" ||
			die "lkp/etc/linux-perf-test-cases lists $t, which has no lkp/programs/$t/ (the one generated from $m/bench.conf and wiring.conf brings its line)"
		GEN="$GEN${GEN:+ }$m:$t"
	fi
	NAMES="$NAMES${NAMES:+ }$t"
	DECLARED="$DECLARED$t $(bench_metrics "$HERE/.." "$m")
"
done
for p in "$HERE"/programs/*; do
	{ [ -f "$p/run" ] && [ -f "$p/parse" ]; } || continue
	case " $NAMES " in
	*" ${p##*/} "*) ;;
	*) die "lkp/programs/${p##*/} is no declared benchmark's (no <module>/wiring.conf with lkp=${p##*/})" ;;
	esac
done
while read -r t; do
	case " $NAMES " in
	*" $t "*) ;;
	*) die "lkp/etc/linux-perf-test-cases lists $t, no declared benchmark's lkp= name" ;;
	esac
done <"$HERE/etc/linux-perf-test-cases"
# NAME\.REGEX: WEIGHT against the declared directions of the metrics
# REGEX matches (with or without their total. prefix).
printf '%s' "$DECLARED" | awk -v idx="$HERE/etc/index-perf-all.yaml" '
	{ for (i = 2; i <= NF; i++) { split($i, f, ":"); m[$1, ++n[$1]] = f[1]; d[$1, n[$1]] = f[2] } }
	END {
		while ((getline line < idx) > 0) {
			if (line ~ /^[ \t]*(#|$)/) continue
			c = index(line, "\\.")
			t = substr(line, 1, c - 1)
			if (!c || !(t in n)) { print "install.sh: lkp/etc/index-perf-all.yaml: " line ": no declared benchmark is lkp=" t; bad = 1; continue }
			re = substr(line, c + 2); w = re; sub(/:[^:]*$/, "", re); sub(/.*:[ \t]*/, "", w)
			for (i = 1; i <= n[t]; i++) {
				s = m[t, i]; sub(/^total\./, "", s)
				if (s !~ "^(" re ")$") continue
				want = d[t, i] == "lower" ? -1 : d[t, i] == "higher" ? 1 : 0
				if ((w + 0 < 0 ? -1 : w + 0 > 0 ? 1 : 0) != want) {
					print "install.sh: lkp/etc/index-perf-all.yaml: " line ": against the declaration wired lkp=" t ", whose metrics= has " m[t, i] ":" d[t, i]
					bad = 1
				}
			}
		}
		exit bad
	}' >&2 || die "the lkp directions differ from the declarations (<module>/bench.conf metrics=)"
{ [ -x "$dest/sbin/split-job" ] && [ -d "$dest/programs" ] && [ -f "$dest/etc/linux-perf-test-cases" ] &&
	[ -f "$dest/etc/index-perf-all.yaml" ]; } ||
	die "$dest is not an lkp-tests checkout (no sbin/split-job, programs, etc/linux-perf-test-cases, etc/index-perf-all.yaml)"
list=$dest/.ipistorm-files
TAB=$(printf '\t')

# The generic programs are generated into stage, which ours() and
# lines() list beside the hand-written files and lines.
stage=$(mktemp -d "${TMPDIR:-/tmp}/ipistorm-lkp.XXXXXX")
trap 'rm -rf "$stage"' EXIT
trap 'exit 1' HUP INT TERM

# sed_value VALUE: VALUE for the right-hand side of sed's s|||.
sed_value() { printf '%s\n' "$1" | sed 's/[\\|&]/\\&/g'; }

# generate MODULE NAME: MODULE's generic program as lkp=NAME, from the
# templates of generic/ and its declaration, into stage:
# programs/NAME/{run,parse,meta.yaml,include,pkg} (pkg the suite's, as
# the hand-written programs link it), jobs/NAME.yaml, its testcase line
# and the signs of its metrics with a direction (lower -1, higher 1) in
# etc/. Lines marked @S@ are for a benchmark with a storm= module, @N@
# for one without.
generate() {
	_g=$stage/programs/$2
	mkdir -p "$_g" "$stage/jobs" "$stage/etc"
	_gs="s|@NAME@|$2|g; s|@MODULE@|$1|g"
	_gs="$_gs; s|@PARAMS@|$(sed_value "$(wiring_get "$HERE/.." "$1" bisect_params)")|g"
	_gs="$_gs; s|@STORM@|$(sed_value "$(wiring_get "$HERE/.." "$1" bisect_storm)")|g"
	if [ -n "$(bench_get "$HERE/.." "$1" storm)" ]; then
		_gs="$_gs; s|^@S@||; /^@N@/d"
	else
		_gs="$_gs; s|^@N@||; /^@S@/d"
	fi
	# KEY:STAT:SIGN, the stat the key without total. and with _ for .
	bench_metrics "$HERE/.." "$1" | tr ' ' '\n' | awk -F: 'NF {
		s = $1; sub(/^total\./, "", s); gsub(/\./, "_", s)
		print $1 ":" s ":" ($2 == "lower" ? -1 : $2 == "higher" ? 1 : 0) }' >"$stage/stats"
	_gm=$(awk -F: '{ printf "%s\047%s\047 => \047%s\047", (NR > 1 ? ",\n                     " : ""), $2, $1 }' "$stage/stats")
	for _gf in run parse meta.yaml include; do
		sed "$_gs" "$HERE/generic/$_gf" >"$_g/$_gf"
	done
	STATS=$_gm awk '{ i = index($0, "@STATS@"); if (i) $0 = substr($0, 1, i - 1) ENVIRON["STATS"] substr($0, i + 7) } 1' \
		"$_g/parse" >"$stage/parse" && mv "$stage/parse" "$_g/parse"
	awk -F: '{ print "  " $2 ":" }' "$stage/stats" >>"$_g/meta.yaml"
	chmod 755 "$_g/run" "$_g/parse"
	ln -s ../ipistorm/pkg "$_g/pkg"
	[ -e "$HERE/jobs/$2.yaml" ] || sed "$_gs" "$HERE/generic/job" >"$stage/jobs/$2.yaml"
	echo "$2" >>"$stage/etc/linux-perf-test-cases"
	awk -F: -v t="$2" '$3 != 0 { print t "\\." $2 ": " $3 }' "$stage/stats" >>"$stage/etc/index-perf-all.yaml"
	rm -f "$stage/stats"
}

for g in $GEN; do
	generate "${g%%:*}" "${g#*:}"
done

# ours: the files and symlinks install copies, relative paths: the
# hand-written ones here and the generated ones in stage.
ours() {
	{
		(cd "$HERE" && find programs lib jobs spec \( -type f -o -type l \))
		(cd "$stage" && find programs jobs \( -type f -o -type l \) 2>/dev/null)
	} | LC_ALL=C sort
}

# lines: "FILE<TAB>LINE" for every line install inserts into lkp's etc/,
# the hand-written ones and the generated ones.
lines() {
	(cd "$HERE" && for f in etc/*; do sed "s|^|$f$TAB|" "$f"; done)
	(cd "$stage" && for f in etc/*; do [ ! -f "$f" ] || sed "s|^|$f$TAB|" "$f"; done)
}

# new_dirs: the directories ours() needs that LKP_DIR lacks, parents first.
new_dirs() {
	ours | while read -r f; do
		d=$(dirname "$f")
		while [ "$d" != . ]; do
			echo "$d"
			d=$(dirname "$d")
		done
	done | LC_ALL=C sort -u | while read -r d; do
		[ -d "$dest/$d" ] || echo "$d"
	done
}

# insert FILE LINE: LINE before the first line that sorts after it in
# LC_ALL=C sort -f's order (lower case folded to upper), comments and
# blank lines left where they are.
insert() {
	NEW=$2 LC_ALL=C awk '
		BEGIN { new = ENVIRON["NEW"] }
		!done && $0 !~ /^[ \t]*(#|$)/ && toupper($0) > toupper(new) { print new; done = 1 }
		{ print }
		END { if (!done) print new }' "$1" >"$1.ipistorm-new"
	cat "$1.ipistorm-new" >"$1" && rm -f "$1.ipistorm-new"
}

# delete FILE LINE: remove the first line equal to LINE.
delete() {
	OLD=$2 awk 'BEGIN { old = ENVIRON["OLD"] } !done && $0 == old { done = 1; next } { print }' "$1" >"$1.ipistorm-new"
	cat "$1.ipistorm-new" >"$1" && rm -f "$1.ipistorm-new"
}

# remove: undo what the list says, lines first, directories deepest first.
remove() {
	[ -f "$list" ] || return 0
	while IFS= read -r entry; do
		case $entry in
		"file$TAB"*) rm -f "$dest/${entry#file"$TAB"}" ;;
		"line$TAB"*)
			rest=${entry#line"$TAB"}
			delete "$dest/${rest%%"$TAB"*}" "${rest#*"$TAB"}"
			;;
		esac
	done <"$list"
	grep "^dir$TAB" "$list" | cut -f2 | LC_ALL=C sort -r | while read -r d; do
		rmdir "$dest/$d" 2>/dev/null ||
			echo "install.sh: kept $dest/$d: it holds files not installed here" >&2
	done
	rm -f "$list"
}

install_prepare "$list" "file$TAB"
# Refuse to duplicate a line of the checkout's own.
lines | while IFS= read -r entry; do
	f=${entry%%"$TAB"*}
	line=${entry#*"$TAB"}
	[ -z "$(tail -c 1 "$dest/$f")" ] || die "$dest/$f does not end with a newline"
	if grep -qxF -- "$line" "$dest/$f" && ! grep -qxF "line$TAB$entry" "$list" 2>/dev/null; then
		die "$dest/$f already has the line '$line', not installed here: refusing to add it"
	fi
done || exit 1

# Install again from scratch: what an earlier install added goes first.
remove
esc=$(printf '%s\n' "$suite" | sed 's/[\\|&]/\\&/g')
{
	new_dirs | sed "s/^/dir$TAB/"
	ours | sed "s/^/file$TAB/"
	lines | sed "s/^/line$TAB/"
} >"$list.new"
for f in $(ours); do
	src=$HERE/$f
	[ -e "$src" ] || [ -L "$src" ] || src=$stage/$f
	mkdir -p "$dest/$(dirname "$f")"
	if [ -L "$src" ]; then
		cp -P "$src" "$dest/$f"
		continue
	fi
	sed "s|@IPISTORM_SOURCE@|$esc|g" "$src" >"$dest/$f"
	if [ -x "$src" ]; then chmod 755 "$dest/$f"; else chmod 644 "$dest/$f"; fi
done
lines | while IFS= read -r entry; do
	insert "$dest/${entry%%"$TAB"*}" "${entry#*"$TAB"}"
done
mv "$list.new" "$list"
echo "install.sh: installed $(and_list "$NAMES") into $dest (suite: $suite)${GEN:+; generated from the declarations: $(and_list "$(for g in $GEN; do echo "${g#*:}"; done)")}"
