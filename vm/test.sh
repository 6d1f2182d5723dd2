#!/bin/bash
# test.sh [-a] [-j N] [-S STEPS] [-l] [KERNEL...]: the suite's tests. The
# bats tests on the host: every tests/ folder of the tree that holds
# *.bats; for each kernel of the matrix (default: all), fetch it, build
# the modules, and boot it under QEMU in each configuration below, running
# the suite's runner inside; the steps of the list STEPS (default
# testbed.steps at the top of the tree, format ipistorm-steps/1: the tests
# that drive the test bed from above it, which the test bed does not name)
# whose kernels are all tested; when both kernels of a pair of DEMOS are
# tested, the demo (vm/demo.sh) on them in both idle shapes (IDLE=poll,
# mwait), whose verdict must hold; DKMS builds against the downloaded
# headers.
#
# A kernel gets the boots, demo shapes (demo-poll, demo-mwait) and DKMS
# build its matrix entry's tests column names (vm/lib.sh: "all" for the
# default flavour; the PREEMPT_RT kernels fewer, to keep make test's time),
# or, with -a, every one.
#
# First every kernel's modules and initramfs are built, once; then the
# steps run N at a time (-j, default 2 or the CPU count when smaller),
# longest first. Each guest is one host thread of single-threaded TCG, so
# N guests on N CPUs run as fast as one does, and no step's figure
# depends on another's speed: the timed comparisons run under instruction
# counting, and the real-time tests bound their own latencies only.
# A line "# done: STEP ..." says when each step ends; then every step's
# TAP/KTAP is printed in a fixed order, and the last line is "total: N
# passed, N failed, N skipped"; exits 1 when anything failed.
#
# -l prints the boots, "NAME|OPTIONS|RUNNER ARGUMENTS|KERNELS" a line,
# and exits.
#
# Boot configurations: name | boot.sh options | runner arguments | the
# kernels it boots (empty: every kernel tested). The runner arguments
# below are the tests of no module; each module's tests a boot runs are
# its wiring's (testbed= of <bench>/wiring.conf, docs/bench.md),
# put before them. functional runs every test; another boot left with
# no test is not booted.
#   functional  4 vCPUs, idle CPUs halt: every test (like big, 30 minutes
#               before a guest that never reports is given up, not 15:
#               on a loaded host it takes more than 15); ipistorm_long
#               makes 3,000,000 calls, not 10,000,000: about 30 s here,
#               still three times the hung-task timeout the guest sets
#   poll        2 vCPUs, idle=poll: callbacks reach a polling idle task
#   icount      2 vCPUs, idle=poll, instruction counting: nearly every
#               callback takes the polling path; idle_reentry's cost
#               against the storm it watches, timed (its hooks are ftrace
#               direct calls: the ftrace_ops hooks that, registered and
#               removed repeatedly, hung or reset 6.12 guests here are
#               gone). The guest is an Intel family 6 model 0x3a, whose
#               TSC the kernel flags as constant, as a server's
#               (vm/bench.sh).
# Every boot gets IPISTORM_SM_IDLE from the matrix: whether the kernel has
# SM_IDLE, which idle_reentry_fast_path asserts.
#   published   18 vCPUs on 2 sockets: the published command line as is
#   big         64 vCPUs on 2 sockets, one kernel (what it checks, the
#               suite's loops over many CPUs, is the same code on every
#               kernel; the three took 9-11 minutes each): every CPU
#               storms, 32 cross-node pairs,
#               idle_reentry and nohz_csd on every CPU; one host thread
#               runs 64 vCPUs, so the kernel's own boot-time loops (freeing
#               init memory, the deferred memmap) last 64 times longer in
#               guest time: the lockup detectors get watchdog_thresh=10,
#               not 2, and the RCU stall detector 20 s, not 5;
#               each run's callbacks accounted and its log lines at most 20
#   sigenforce  2 vCPUs, module.sig_enforce=1: the suite's unsigned build
#               is refused, and the loaders say how to sign it
#   lockdown    2 vCPUs, lockdown=integrity: the same, refused with EPERM
#   metal       2 vCPUs, CPUID without the hypervisor bit, as a server:
#               the polling test aid refuses to load unless forced
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
USAGE="$PROG [-a] [-j N] [-S STEPS] [-l] [KERNEL...]"

BOOTS="
functional|-c 4 -T 1800 -a IPISTORM_LONG_NUMIPI=3000000|
poll|-c 2 -p|trace_* preflight_loading preflight_polling_claim
icount|-c 2 -p -i -x vendor=GenuineIntel,family=6,model=58 -a IPISTORM_MIN_POLL_PCT=99 -a IPISTORM_EXACT_DELIVERY=1|
published|-c 18 -s 2|
big|-c 64 -s 2 -m 2048 -T 1800 -a watchdog_thresh=10 -a rcupdate.rcu_cpu_stall_timeout=20||6.12
sigenforce|-c 2 -a module.sig_enforce=1|sign_* preflight_loading
lockdown|-c 2 -a lockdown=integrity|sign_* preflight_loading
metal|-c 2 -x -hypervisor|preflight_loading preflight_polling_claim
"

slots=$(nproc 2>/dev/null || echo 1)
[ "$slots" -le 2 ] || slots=2
steplist=$TOP/testbed.steps
listonly=0 every=0
while getopts aj:S:lh opt; do
	case $opt in
	a) every=1 ;;
	j) slots=$OPTARG ;;
	S) steplist=$OPTARG ;;
	l) listonly=1 ;;
	*) usage_opt "$opt" ;;
	esac
done
shift $((OPTIND - 1))
case $slots in '' | *[!0-9]* | 0) usage_error "-j takes a positive number, not '$slots'" ;; esac
kernels=${*:-$KERNELS_ALL}
for k in $kernels; do matrix_field "$k" 1 >/dev/null 2>&1 || usage_error "unknown kernel '$k' (known: $KERNELS_ALL)"; done

# The demo's pairs: a kernel without SM_IDLE, then one with it, of one
# flavour.
DEMOS="
6.1 6.12
6.1-rt 6.12-rt
"

# gets KERNEL WHAT: whether KERNEL gets the boot, demo shape or dkms WHAT
# (its matrix entry's tests column, or everything with -a).
gets() {
	local t
	[ "$every" = 0 ] || return 0
	t=$(matrix_field "$1" 6)
	[ "$t" = all ] || [[ ,$t, == *",$2,"* ]]
}
# tested KERNEL: whether KERNEL is tested.
tested() { [[ " $kernels " == *" $1 "* ]]; }

# The declarations and wirings, checked before anything runs: each good,
# and each boot of the wirings' testbed= one of BOOTS' (or vm/bench.sh's
# bench).
for m in $(suite_benches "$TOP"); do
	bench_check "$TOP" "$m" || die "$m/bench.conf, $m's declaration, is broken"
	wiring_check "$TOP" "$m" || die "$m/wiring.conf, $m's wiring, is broken"
	for w in $(wiring_get "$TOP" "$m" testbed); do
		b=${w%%:*}
		# a match, not grep -q in a pipe: under pipefail, grep's early
		# exit can fail the printf with SIGPIPE and so the test
		[ "$b" = bench ] || [[ $BOOTS == *$'\n'"$b|"* ]] ||
			die "$m/wiring.conf: testbed= names boot '$b', which the test bed has not (its boots: $(printf '%s\n' "$BOOTS" | cut -d'|' -s -f1 | grep -vx functional | tr '\n' ' ')bench)"
	done
done

# boot_args BOOT: the runner's arguments of BOOT: the tests the
# wirings give it, then BOOTS' own; none for functional (every test).
boot_args() {
	local own decl
	IFS='|' read -r _ _ own _ <<<"$(printf '%s\n' "$BOOTS" | grep "^$1|")"
	[ "$1" != functional ] || return 0
	decl=$(bench_testbed "$TOP" "$1")
	# shellcheck disable=SC2086 # test name patterns, unexpanded
	(set -f && echo $decl $own)
}

if [ "$listonly" = 1 ]; then
	printf '%s\n' "$BOOTS" | while IFS='|' read -r b opts _ only; do
		[ -n "$b" ] || continue
		printf '%s|%s|%s|%s\n' "$b" "$opts" "$(boot_args "$b")" "$only"
	done
	exit 0
fi

# The list's steps, checked before anything runs: "NAME|SLOTS|KIND|
# KERNELS|TEXT|COMMAND" lines after the format line, COMMAND's program
# relative to the top of the tree and executable.
[ -f "$steplist" ] || usage_error "-S: no steps list $steplist"
[ "$(grep -v '^#' "$steplist" | head -n 1)" = format=ipistorm-steps/1 ] ||
	die "$steplist: not format ipistorm-steps/1 (its first line but comments)"
listed=()
declare -A listed_line=()
while IFS='|' read -r name w kind needs text cmd rest; do
	case $name in '#'* | format=* | '') continue ;; esac
	where="$steplist: step '$name'"
	if [ -n "$rest" ] || [ -z "$cmd" ]; then die "$where: not NAME|SLOTS|KIND|KERNELS|TEXT|COMMAND"; fi
	case $name in *[!A-Za-z0-9_-]*) die "$where: a name is letters, digits, _ and -" ;; esac
	[ -z "${listed_line[$name]:-}" ] || die "$where: listed twice"
	case $w in '' | *[!0-9]* | 0) die "$where: SLOTS is a positive number, not '$w'" ;; esac
	case $kind in tap | verdict) ;; *) die "$where: KIND is tap or verdict, not '$kind'" ;; esac
	for k in $needs; do
		matrix_field "$k" 1 >/dev/null 2>&1 || die "$where: unknown kernel '$k'"
	done
	read -r prog _ <<<"$cmd"
	[ -x "$TOP/$prog" ] || die "$where: $prog is not an executable of the tree"
	listed+=("$name")
	listed_line[$name]="$w|$kind|$needs|$text|$cmd"
done <"$steplist"
pass=0 failed=0 skipped=0
t_start=$(date +%s)
steps=$BUILD/steps
rm -rf "$steps"
mkdir -p "$steps"

# count FILE: add FILE's TAP results to the totals; a skip (bats writes
# "# skip", KTAP "# SKIP", either with a reason after it) is no pass.
count() {
	p=$(grep '^ok ' "$1" | grep -vc '# [Ss][Kk][Ii][Pp]' || true)
	s=$(grep -c '^ok .*# [Ss][Kk][Ii][Pp]' "$1" || true)
	f=$(grep -c '^not ok ' "$1" || true)
	pass=$((pass + p)) skipped=$((skipped + s)) failed=$((failed + f))
}

# Each step writes the lines to count to $steps/NAME.tap and what to show
# to $steps/NAME.txt (a "# === " heading first).

# step_tap F HEADING CMD...: a step whose command prints TAP; a run
# without a plan fails.
step_tap() {
	local f=$1
	echo "# === $2"
	shift 2
	"$@" >"$f.tap" 2>&1 || true
	sed "s/^/    /" "$f.tap"
	grep -q '^1\.\.[1-9]' "$f.tap" || echo "not ok $(basename "$f"): no TAP plan" >>"$f.tap"
}

# Every tests/ folder holding bats files (docs/testbed.md#the-tests-folders).
step_bats() {
	local d dirs=()
	for d in "$TOP"/*/tests "$TOP"/*/tests/host; do
		! compgen -G "$d/*.bats" >/dev/null || dirs+=("$d")
	done
	step_tap "$1" "scripts and kselftest wrapper (bats)" bats --tap "${dirs[@]}"
}

step_build() { # KERNEL
	echo "# === kernel $2: build"
	if "$VM_DIR/build-modules.sh" "$2" >/dev/null 2>"$1.err" &&
		"$VM_DIR/mkinitramfs.sh" "$2" >/dev/null 2>>"$1.err"; then
		: >"$1.tap"
	else
		sed "s/^/    # /" "$1.err"
		echo "not ok $2 build" | tee "$1.tap"
	fi
}

step_boot() { # KERNEL BOOT
	local k=$2 boot=$3 opts args logf rc=0 d=$BUILD/$2
	if [ -s "$steps/build-$k.tap" ]; then
		echo "# === $k/$boot: not booted, the build failed"
		: >"$1.tap"
		return 0
	fi
	IFS='|' read -r _ opts _ <<<"$(printf '%s\n' "$BOOTS" | grep "^$boot|")"
	args=$(boot_args "$boot")
	echo "# === $k/$boot"
	mkdir -p "$d"
	logf=$d/console-$boot.log
	set -f
	# shellcheck disable=SC2086 # options and test names are words
	"$VM_DIR/boot.sh" $opts -a "IPISTORM_SM_IDLE=$(sm_idle "$k")" \
		-l "$logf" "$k" -- $args >"$d/$boot.ktap" 2>"$d/$boot.err" || rc=$?
	sed "s/^/    /" "$d/$boot.ktap"
	cp "$d/$boot.ktap" "$1.tap"
	if [ "$rc" -ge 2 ]; then
		# A splat or a guest that never reported: the boot fails as a
		# whole, whatever its tests said.
		sed "s/^/    # /" "$d/$boot.err"
		echo "not ok $k/$boot: the boot failed (exit $rc)" | tee -a "$1.tap"
	fi
	echo "# $k/$boot: $(grep -c -E '^(not )?ok ' "$1.tap" || true) results (exit $rc, console $logf)"
}

# step_verdict NAME OK-TEXT CMD...: a step whose command's exit says it
# all: 0 ok, 4 skipped (its last line says why), else failed.
step_verdict() {
	local f=$1 name=$2 text=$3 rc=0
	shift 3
	echo "# === $name"
	"$@" >"$f.out" 2>&1 || rc=$?
	sed "s/^/    # /" "$f.out"
	case $rc in
	0) echo "ok 1 $name: $text" ;;
	4) echo "ok 1 $name # SKIP $(tail -n 1 "$f.out")" ;;
	*) echo "not ok 1 $name: exit $rc" ;;
	esac >"$f.tap"
	cat "$f.tap"
}

step_demo() { # SHAPE NAME BASELINE KERNEL
	KERNELS="$4 $5" IPISTORM_PREBUILT=1 IDLE=$2 \
		step_verdict "$1" "$3" "SM_IDLE reproduced on $5 against $4, idle $2" "$VM_DIR/demo.sh"
}

# step_listed F NAME: a step of the list, run from the top of the tree; a
# tap step is headed by its TEXT, a verdict step by its NAME, TEXT what its
# success says; @OUT@ in its command is BUILD/NAME-test, removed first.
step_listed() {
	local f=$1 name=$2 kind text cmd words=() w
	IFS='|' read -r _ kind _ text cmd <<<"${listed_line[$name]}"
	case $cmd in *@OUT@*) rm -rf "$BUILD/$name-test" ;; esac
	for w in $cmd; do words+=("${w//@OUT@/$BUILD/$name-test}"); done
	words[0]=$TOP/${words[0]}
	case $kind in
	tap) step_tap "$f" "$text" "${words[@]}" ;;
	verdict) step_verdict "$f" "$name" "$text" "${words[@]}" ;;
	esac
}

# DKMS builds against the downloaded headers of the host-built kernels
# (7.3 needs trixie's compiler, which only its build root has), one after
# the other: they share DKMS's tree.
step_dkms() {
	local k
	echo "# === DKMS"
	: >"$1.tap"
	for k in $kernels; do
		if [ "$(matrix_field "$k" 3)" != host ] || ! gets "$k" dkms; then continue; fi
		if "$VM_DIR/dkms-check.sh" "$k" >"$1.$k" 2>&1; then
			echo "ok 1 dkms build against $k"
		else
			sed "s/^/    # /" "$1.$k"
			echo "not ok 1 dkms build against $k"
		fi | tee -a "$1.tap"
	done
}

# start [-w W] NAME STEP ARGS...: run a step in the background once W
# slots (default 1: the guests it boots at once) are free; its output
# goes to $steps/NAME.txt.
order=()
declare -A weight=()
# busy: BUSY, the slots the running steps take; a step that has ended is
# forgotten.
busy() {
	local p
	BUSY=0
	for p in "${!weight[@]}"; do
		if kill -0 "$p" 2>/dev/null; then BUSY=$((BUSY + weight[$p])); else unset "weight[$p]"; fi
	done
}
start() {
	local name w=1
	[ "$1" != -w ] || { w=$2; shift 2; }
	name=$1
	shift
	busy
	while [ "$BUSY" -gt 0 ] && [ $((BUSY + w)) -gt "$slots" ]; do
		wait -n || true
		busy
	done
	order+=("$name")
	(
		t0=$(date +%s) rc=0
		"$1" "$steps/$name" "${@:2}" >"$steps/$name.txt" 2>&1 || rc=$?
		[ "$rc" = 0 ] || echo "not ok $name: the step itself failed (exit $rc)" |
			tee -a "$steps/$name.tap" >>"$steps/$name.txt"
		echo "# done: $name in $(($(date +%s) - t0)) s at $(($(date +%s) - t_start)) s"
	) &
	last=$!
	weight[$last]=$w
}

echo "# test bed: $slots steps at a time"

# The builds first: every later step boots their images as they are.
start bats step_bats
builds=()
for k in $kernels; do
	start "build-$k" step_build "$k"
	builds+=("$last")
done
for pid in "${builds[@]}"; do wait "$pid" || true; done

# Then longest first (minutes in CI, two at a time on 2 cores):
# functional and big 8-10, the listed steps in their order (2-7 each
# today) and the demo 2-3, then the other boots of BOOTS in its order,
# 1-3 each.
# boot_kernels BOOT: the kernels tested that BOOT boots (none when it
# has no test to run).
boot_kernels() {
	local only k
	IFS='|' read -r _ _ _ only <<<"$(printf '%s\n' "$BOOTS" | grep "^$1|")"
	[ "$1" = functional ] || [ -n "$(boot_args "$1")" ] || return 0
	for k in $kernels; do
		[ -z "$only" ] || case " $only " in *" $k "*) ;; *) continue ;; esac
		gets "$k" "$1" || continue
		printf '%s ' "$k"
	done
}

long="functional big"
for boot in $long; do
	for k in $(boot_kernels "$boot"); do start "$k-$boot" step_boot "$k" "$boot"; done
done
for name in "${listed[@]}"; do
	IFS='|' read -r w _ needs _ <<<"${listed_line[$name]}"
	all=1
	for k in $needs; do tested "$k" || all=0; done
	[ "$all" = 0 ] || start -w "$w" "$name" step_listed "$name"
done
# The demo step of a pair: demo-SHAPE, or demo-rt-SHAPE for 6.1-rt
# against 6.12-rt (the baseline's name after its first "-").
while read -r base new; do
	if [ -z "$base" ] || ! tested "$base" || ! tested "$new"; then continue; fi
	suffix=${base#"${base%%-*}"}
	for shape in poll mwait; do
		if gets "$base" "demo-$shape" && gets "$new" "demo-$shape"; then
			start "demo$suffix-$shape" step_demo "$shape" "demo$suffix-$shape" "$base" "$new"
		fi
	done
done <<<"$DEMOS"
for boot in $(printf '%s\n' "$BOOTS" | cut -d'|' -f1); do
	case " $long " in *" $boot "*) continue ;; esac
	for k in $(boot_kernels "$boot"); do start "$k-$boot" step_boot "$k" "$boot"; done
done
command -v dkms >/dev/null && start dkms step_dkms
wait

for name in "${order[@]}"; do
	cat "$steps/$name.txt"
	count "$steps/$name.tap"
done
echo "# test bed: $(($(date +%s) - t_start)) s"
echo "total: $pass passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
