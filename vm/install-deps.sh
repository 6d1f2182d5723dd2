#!/bin/bash
# install-deps.sh: install what building, checking and testing the suite
# needs on a Debian 12 machine, as root. Every package is pinned to its
# suite with -t; the extra suites reuse the mirror configured in /etc/apt.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="$PROG"
only_help "$@"
[ $# -eq 0 ] || usage_error "unexpected argument '$1'"

[ "$(id -u)" = 0 ] || die "run as root"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
"$VM_DIR/apt-suites.sh"
# netperf, of the companion battery, is in bookworm's non-free
nonfree=/etc/apt/sources.list.d/ipistorm-non-free.sources
mirror=$(apt_mirror)
[ -n "$mirror" ] || die "no bookworm mirror found in /etc/apt"
want=$(printf '%s\n' "Types: deb" "URIs: $mirror" "Suites: bookworm" "Components: non-free" \
	"Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg")
if [ "$(cat "$nonfree" 2>/dev/null)" != "$want" ]; then
	printf '%s\n' "$want" >"$nonfree"
	apt-get update -q
fi
apt-get install -y -q --no-install-recommends -t bookworm \
	make gcc libc6-dev libelf-dev bc file cpio gzip xz-utils tar \
	busybox-static qemu-system-x86 debootstrap dwarves sparse shellcheck \
	git perl bats python3 gnuplot-nox trace-cmd dkms \
	rt-tests dbench netperf \
	libyaml-pp-perl libfile-slurp-perl libmath-gradient-perl libfile-which-perl \
	r-base-core \
	ruby ruby-activesupport ruby-rspec ruby-tty-command ruby-git ruby-term-ansicolor ruby-colorize
