#!/usr/bin/env bats
# README.md and docs/*.md name only what exists: every relative link (and
# its #anchor) resolves, and every repository path written as code
# (`scripts/run.sh`, or in an indented example) is a file or folder of the
# tree. Build products (*.ko), format names (ipistorm/1) and patterns
# (<module>/tests/*.sh) are not paths.

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	# The folders whose paths the documents name: every folder at the
	# top of the tree (a new benchmark's too), an awk pattern.
	DIRS=$(find "$TOP" -mindepth 1 -maxdepth 1 -type d ! -name .git ! -name build -printf '%f\n' |
		LC_ALL=C sort | sed 's/\./\\./g' | paste -sd'|')
}

# doc_problems ROOT: one line per link or path of ROOT's documents that
# does not resolve, "FILE: ..."; nothing when all do.
doc_problems() {
	local root=$1 f
	for f in "$root/README.md" "$root"/docs/*.md; do
		[ -f "$f" ] || continue
		doc_links "$f" | while IFS= read -r link; do
			check_link "$root" "$f" "$link"
		done
		doc_paths "$f" | while IFS= read -r p; do
			[ -e "$root/$p" ] || echo "${f#"$root"/}: no such path: $p"
		done
	done
}

# doc_links FILE: the targets of FILE's inline links outside code.
doc_links() {
	awk '
	/^```/ { fence = !fence; next }
	fence || /^(    |\t)/ { next }
	{
		s = $0
		gsub(/`[^`]*`/, "", s)
		while (match(s, /\]\([^)[:space:]]+\)/)) {
			print substr(s, RSTART + 2, RLENGTH - 3)
			s = substr(s, RSTART + RLENGTH)
		}
	}' "$1"
}

# doc_paths FILE: repository paths in FILE's code spans and code blocks.
doc_paths() {
	awk -v dirs="$DIRS" '
	function paths(s,  re, p) {
		re = "(^|[^A-Za-z0-9_./~-])(" dirs ")/[A-Za-z0-9_./*<>{}-]*"
		while (match(s, re)) {
			p = substr(s, RSTART, RLENGTH)
			s = substr(s, RSTART + RLENGTH)
			sub(/^[^A-Za-z0-9_.]/, "", p)
			sub(/[.]+$/, "", p)
			if (p ~ /[*<>{}]/ || p ~ /\.ko$/ || p ~ /\/[0-9.]+$/)
				continue
			print p
		}
	}
	/^```/ { fence = !fence; next }
	fence || /^(    |\t)/ { paths($0); next }
	{
		s = $0
		while (match(s, /`[^`]+`/)) {
			code = substr(s, RSTART + 1, RLENGTH - 2)
			s = substr(s, RSTART + RLENGTH)
			paths(code)
		}
	}' "$1" | sort -u
}

# check_link ROOT FILE TARGET: TARGET resolves from FILE, and so does its
# #anchor, among the headings of the file it names.
check_link() {
	local root=$1 f=$2 link=$3 path anchor dest
	case $link in
	http://* | https://* | mailto:*) return 0 ;;
	esac
	path=${link%%#*}
	anchor=
	case $link in *#*) anchor=${link#*#} ;; esac
	dest=$f
	if [ -n "$path" ]; then
		dest=${f%/*}/$path
		[ -e "$dest" ] || {
			echo "${f#"$root"/}: broken link: $link"
			return 0
		}
	fi
	[ -n "$anchor" ] || return 0
	[ -f "$dest" ] && heading_anchors "$dest" | grep -qxF -- "$anchor" ||
		echo "${f#"$root"/}: no heading for anchor: $link"
}

# heading_anchors FILE: the anchors GitHub gives FILE's headings.
heading_anchors() {
	awk '
	/^```/ { fence = !fence; next }
	!fence && /^#+ / {
		h = tolower($0)
		sub(/^#+ +/, "", h)
		gsub(/[^a-z0-9 _-]/, "", h)
		gsub(/ /, "-", h)
		print h
	}' "$1"
}

@test "docs: every link, anchor and repository path resolves" {
	run doc_problems "$TOP"
	[ "$status" -eq 0 ]
	[ -z "$output" ] || { echo "$output"; false; }
	# the checks saw something: the README links the pages
	[ "$(doc_links "$TOP/README.md" | grep -c '^docs/')" -ge 10 ]
	[ "$(doc_paths "$TOP/README.md" | wc -l)" -ge 10 ]
}

# The README is the first screen and a map; the details are the pages'.
@test "docs: README.md within 250 lines, every page of docs/ linked from it or a page it links" {
	[ "$(wc -l <"$TOP/README.md")" -le 250 ]
	for f in "$TOP"/docs/*.md; do
		n=docs/${f##*/}
		doc_links "$TOP/README.md" | grep -qx "$n" && continue
		grep -l "](${f##*/}" "$TOP"/docs/*.md | grep -q . || { echo "$n: linked from nowhere"; false; }
	done
}

@test "docs: a broken link, anchor or path is reported" {
	local t=$BATS_TEST_TMPDIR/tree
	mkdir -p "$t/docs" "$t/scripts"
	touch "$t/scripts/run.sh"
	cat >"$t/README.md" <<-'EOF'
	# Top
	## Quick start
	See [run](docs/run.md), [start](#quick-start), `scripts/run.sh`,
	`ipistorm/1` and `ipistorm/ipistorm.ko`.
	[gone](docs/gone.md) [bad anchor](docs/run.md#nowhere) `vm/boot.sh`

	    scripts/missing.sh -n 5
	EOF
	printf '# run.sh\n\n[back](../README.md#top)\n' >"$t/docs/run.md"
	run doc_problems "$t"
	[ "$output" = "README.md: broken link: docs/gone.md
README.md: no heading for anchor: docs/run.md#nowhere
README.md: no such path: scripts/missing.sh
README.md: no such path: vm/boot.sh" ] || { echo "$output"; false; }
}
