#!/bin/bash
# Add the Debian suites the kernel matrix needs (bookworm-backports, trixie,
# trixie-backports) by reusing the mirror already configured for bookworm.
# trixie is pinned low, so nothing comes from it unless named with -t.
# Idempotent; run as root.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="$PROG"
only_help "$@"
[ $# -eq 0 ] || usage_error "unexpected argument '$1'"

list=/etc/apt/sources.list.d/ipistorm-suites.sources
pref=/etc/apt/preferences.d/ipistorm-suites
stamp=/var/lib/apt/lists/.ipistorm-suites

mirror=$(apt_mirror)
[ -n "$mirror" ] || die "no bookworm mirror found in /etc/apt"

want=$(printf '%s\n' "Types: deb" "URIs: $mirror" \
	"Suites: bookworm-backports trixie trixie-backports" \
	"Components: main" \
	"Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg")
if [ "$(cat "$list" 2>/dev/null)" != "$want" ]; then
	printf '%s\n' "$want" >"$list"
	rm -f "$stamp"
fi
printf '%s\n' "Package: *" "Pin: release n=trixie" "Pin-Priority: 100" "" \
	"Package: *" "Pin: release n=trixie-backports" "Pin-Priority: 100" \
	>"$pref"

# Update once after the suites were added, and again when a day old.
if [ -z "$(find "$stamp" -mmin -1440 2>/dev/null)" ]; then
	apt-get update -q >&2
	touch "$stamp"
fi
