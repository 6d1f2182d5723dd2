#!/bin/bash
# fake-run-in-vm.sh [boot.sh options] NAME OUTDIR [RUN.SH ARGS...]: stands in
# for vm/run-in-vm.sh in bisect.bats's copy of the tree. It "boots" kernel
# NAME registered by bisect.sh: the kernel image the build hook produced
# holds the value of runtime_ns at that commit, and -n runs of it are
# written to OUTDIR as run.sh would. Every boot is logged to $FAKE/boots as
# "VALUE NAME". Behaviour on demand, through files in $FAKE:
#   jitter     a fraction: run i of a boot is VALUE * (1 + jitter * (i - 2))
#   boot-step  a fraction: every second boot reads VALUE * (1 + boot-step)
#   block      the first boot waits (at most 30 s) until the file is gone
#   hang-at    a commit number: a boot of it waits (at most 30 s) for a signal, then
#              fails as boot.sh does when its guest is killed
#   fill-at    a commit number: after writing its results, a boot of it fills the
#              file system that holds OUTDIR
#   break-at   a commit number: a boot of it leaves a directory where bisect.sh
#              writes its times
set -euo pipefail
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do
	case $1 in
	-p | -i) shift ;;
	*) shift 2 ;;
	esac
done
name=$1 out=$2
shift 2
runs=3
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift 2 ;;
	-[wgs]) shift 2 ;;
	*) break ;;
	esac
done
env=$IPISTORM_CACHE/kernels/$name/kernel.env
image=$(sed -n 's/^vmlinuz=//p' "$env")
read -r value number <"$image"
at() { [ -f "$FAKE/$1" ] && [ "$(cat "$FAKE/$1")" = "$number" ]; }

if [ -f "$FAKE/block" ] && mkdir "$FAKE/blocked" 2>/dev/null; then
	for _ in $(seq 300); do
		[ -f "$FAKE/block" ] || break
		sleep 0.1
	done
fi
if at hang-at; then
	sleep 30 &
	guest=$!
	trap 'kill "$guest"; echo "boot.sh: the guest did not report" >&2; exit 1' INT TERM HUP
	: >"$FAKE/hanging"
	wait "$guest" || true
	exit 1
fi
boot=$(($(wc -l <"$FAKE/boots") + 1))
echo "$number $value $name" >>"$FAKE/boots"
jitter=$(cat "$FAKE/jitter" 2>/dev/null || echo 0)
step=0
[ $((boot % 2)) = 1 ] || step=$(cat "$FAKE/boot-step" 2>/dev/null || echo 0)
mkdir -p "$out"
printf 'format=ipistorm-run/2\nbench=ipistorm\nstatus=ok\n' >"$out/meta.txt"
for i in $(seq "$runs"); do
	awk -v v="$value" -v j="$jitter" -v s="$step" -v i="$i" 'BEGIN {
		printf "format=ipistorm/1\nstatus=complete\nruntime_ns=%.0f\n",
			v * (1 + s) * (1 + j * (i - 2)) }' >"$out/iter-$(printf %03d "$i").txt"
done
if at fill-at; then
	dd if=/dev/zero of="$out/../filler" bs=64k 2>/dev/null || true
fi
if at break-at; then
	mkdir -p "$out/../times"
fi
printf '%s\n' "$out"
