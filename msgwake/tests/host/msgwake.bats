#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# msgwake, the suite's own program (msgwake.c), and its parser
# (parse.awk), on the host. The parser reads the program's real output,
# recorded on a Debian 12 host (2 vCPUs) into tests/fixtures/ by the
# command its declaration runs:
#   fast.txt      msgwake -m 2 -w 4 -r 0 -t 2 -s 10
#   rate1000.txt  msgwake -m 2 -w 4 -r 1000 -t 2 -s 10
# The percentiles are checked against the exact ones of the same samples,
# and run.sh runs the program as built, from a copy of the tree.

setup() {
	D=$BATS_TEST_DIRNAME/../..
	TOP=$D/..
	T=$BATS_TEST_TMPDIR
	# shellcheck source=../../../scripts/lib.sh
	. "$TOP/scripts/lib.sh"
}

# parse FIXTURE [PARAMS...]: the parser on FIXTURE (a path under
# fixtures/, or a file), with awk variables param_NAME=VALUE.
parse() {
	local f=$1 a=()
	shift
	[ -f "$f" ] || f=$D/tests/fixtures/$f
	for p in "$@"; do a+=(-v "param_$p"); done
	awk "${a[@]}" -f "$D/parse.awk" <"$f"
}

# val KEY FILE
val() { sed -n "s/^$1=//p" "$2"; }

@test "msgwake: the parser's figures are the program's, every count adding up" {
	parse fast.txt msg=2 workers=4 rps=0 duration=2 work=10 >"$T/fast"
	run ! grep -q '^failure=' "$T/fast"
	[ "$(val total.requests "$T/fast")" = "$(sed -n 's/^requests=//p' "$D/tests/fixtures/fast.txt")" ]
	n=$(val total.requests "$T/fast")
	[ $(($(val total.wakeups "$T/fast") + $(val total.requests_unslept "$T/fast"))) -eq "$n" ]
	[ $(($(val total.place_same_cpu "$T/fast") + $(val total.place_same_llc "$T/fast") +
		$(val total.place_other_llc "$T/fast") + $(val total.place_unknown "$T/fast"))) -eq "$n" ]
	# the kernel's count of the workers' sleeps: a wake-up (but for one
	# that came before its worker switched out), a stale wake, and at most
	# two more a worker (the start line and the stop)
	w=$(val total.wakeups "$T/fast")
	s=$(val total.workers_nvcsw "$T/fast")
	st=$(val total.wakes_stale "$T/fast")
	[ "$s" -ge $((w - w / 100)) ] && [ "$s" -le $((w + st + 2 * 8)) ]
	# p50 <= p75 <= ... <= p999 <= max, every one present
	prev=0
	for p in 50 75 90 95 99 995 999 max; do
		v=$(val "total.wake_${p}_ns" "$T/fast")
		[ -n "$v" ] || v=$(val "total.wake_p${p}_ns" "$T/fast")
		[ -n "$v" ]
		[ "${v%.*}" -ge "$prev" ] || { echo "wake p$p $v < $prev"; false; }
		prev=${v%.*}
	done
	# no schedule, no lateness
	run ! grep -q '^total.late_' "$T/fast"
	# at a rate: every request of the schedule, and their lateness
	parse rate1000.txt msg=2 workers=4 rps=1000 duration=2 work=10 >"$T/rate"
	run ! grep -q '^failure=' "$T/rate"
	[ "$(val total.requests "$T/rate")" = 2000 ]
	[ "$(val total.requests_per_sec "$T/rate")" = 1000 ]
	[ -n "$(val total.late_p99_ns "$T/rate")" ]
}

@test "msgwake: another run than asked, counts that do not add up, overflows and a short run are failures" {
	f=$D/tests/fixtures/fast.txt
	for case in \
		"s/^msg_threads=.*/msg_threads=3/|message threads" \
		"s/^requests_done=.*/requests_done=1/|do not add up" \
		"s/^wake.samples=.*/wake.samples=5/|do not add up" \
		"s/^place.same_cpu=.*/place.same_cpu=0/|do not add up" \
		"s/^wake.overflows=.*/wake.overflows=2/|overflowed 2 times" \
		"s/^elapsed_ns=.*/elapsed_ns=1500000000/|ran 1500000000 ns of 2 s" \
		"s/^elapsed_ns=.*/elapsed_ns=500000000/|ran 500000000 ns of 2 s" \
		"s/^requests=.*/requests=0/|no request" \
		"s,^format=.*,format=msgwake/2,|msgwake/2, want msgwake/1"; do
		sed "${case%%|*}" "$f" >"$T/bad"
		parse "$T/bad" msg=2 workers=4 rps=0 duration=2 work=10 >"$T/out"
		grep -q "^failure=.*${case#*|}" "$T/out" || { echo "$case:"; cat "$T/out"; false; }
	done
	# at a rate, requests other than the schedule's; a schedule it fell
	# behind
	sed 's/^requests_scheduled=.*/requests_scheduled=2001/' "$D/tests/fixtures/rate1000.txt" >"$T/bad"
	parse "$T/bad" msg=2 workers=4 rps=1000 duration=2 work=10 >"$T/out"
	grep -q '^failure=msgwake gave 2000 requests and dropped 0 of the 2001 its schedule held' "$T/out"
	sed 's/^requests_scheduled=.*/requests_scheduled=2010/; s/^requests_dropped=.*/requests_dropped=10/' \
		"$D/tests/fixtures/rate1000.txt" >"$T/bad"
	parse "$T/bad" msg=2 workers=4 rps=1000 duration=2 work=10 >"$T/out"
	grep -q '^failure=msgwake fell behind its schedule: 10 of its 2010 requests not given' "$T/out"
	# a signal: interrupted, not failed for its short time
	sed 's/^interrupted=.*/interrupted=15/; s/^elapsed_ns=.*/elapsed_ns=1000/' "$f" >"$T/bad"
	parse "$T/bad" msg=2 workers=4 rps=0 duration=2 work=10 >"$T/out"
	grep -q '^interrupted=msgwake caught signal 15' "$T/out"
	run ! grep -q '^failure=' "$T/out"
	# not msgwake's output at all: nothing
	echo "Time: 0.5" | awk -f "$D/parse.awk" >"$T/out"
	[ ! -s "$T/out" ]
}

# hist: msgwake.c's histogram, its main renamed, fed samples (ns) on stdin
build_hist() {
	cat >"$T/hist.c" <<-EOF
	#define main msgwake_main
	#include "$D/msgwake.c"
	#undef main
	int main(void)
	{
		static struct hist h;
		unsigned long long v;

		clock_ns = 3;
		while (scanf("%llu", &v) == 1)
			hist_add(&h, 100, 100 + v + clock_ns);
		hist_print("x", &h);
		return 0;
	}
	EOF
	gcc -O2 -Wall -pthread -o "$T/hist" "$T/hist.c"
}

# check_hist SAMPLES: each percentile msgwake prints is the lower bound
# of the bucket that holds the sample of rank ceil(n x p): the sample
# itself below 256 ns, above it within 1/128 of it.
check_hist() {
	"$T/hist" <"$1" >"$T/h.out"
	sort -n "$1" >"$T/sorted"
	n=$(wc -l <"$T/sorted")
	[ "$(val x.samples "$T/h.out")" = "$n" ]
	[ "$(val x.min_ns "$T/h.out")" = "$(head -n 1 "$T/sorted")" ]
	[ "$(val x.max_ns "$T/h.out")" = "$(tail -n 1 "$T/sorted")" ]
	for pm in 500 750 900 950 990 995 999; do
		name=$pm
		[ $((pm % 10)) -ne 0 ] || name=$((pm / 10))
		rank=$(((n * pm + 999) / 1000))
		exact=$(sed -n "${rank}p" "$T/sorted")
		got=$(val "x.p${name}_ns" "$T/h.out")
		if [ "$exact" -lt 256 ]; then
			[ "$got" = "$exact" ] || { echo "p$name: $got, the sample $exact"; return 1; }
		else
			# the bucket: [got, got + 2^(floor(log2 got) - 7))
			w=1
			while [ $((w * 256)) -le "$got" ]; do w=$((w * 2)); done
			if [ "$got" -gt "$exact" ] || [ "$exact" -ge $((got + w)) ]; then
				echo "p$name: $got (bucket $w ns wide), the sample $exact"
				return 1
			fi
			[ $((got % w)) -eq 0 ] || { echo "p$name: $got is no bucket's lower bound"; return 1; }
		fi
	done
}

@test "msgwake: its percentiles are the exact ones to the bucket, 1 ns below 256 ns, 1/128 above" {
	build_hist
	# spread over 9 powers of two, and a few below 256 ns
	awk 'BEGIN { srand(7); for (i = 0; i < 20011; i++) printf "%d\n", int(exp(log(2) * (4 + 15 * rand()))) }' >"$T/s1"
	check_hist "$T/s1"
	# below 256 ns alone: exact
	awk 'BEGIN { srand(3); for (i = 0; i < 999; i++) printf "%d\n", int(256 * rand()) }' >"$T/s2"
	check_hist "$T/s2"
	# n x p whole (n = 200): the rank is n x p itself, not the next
	awk 'BEGIN { srand(5); for (i = 0; i < 200; i++) v[i] = i
		for (i = 199; i > 0; i--) { j = int(rand() * (i + 1)); t = v[i]; v[i] = v[j]; v[j] = t }
		for (i = 0; i < 200; i++) print v[i] }' >"$T/s6"
	check_hist "$T/s6"
	# the edges of the buckets, and of the range: 2^41 ns and above
	# overflow, counted, in no bucket
	printf '%s\n' 255 256 257 511 512 513 1023 1024 2199023255551 >"$T/s3"
	check_hist "$T/s3"
	printf '%s\n' 1 2 2199023255552 >"$T/s4"
	"$T/hist" <"$T/s4" >"$T/h.out"
	[ "$(val x.overflows "$T/h.out")" = 1 ]
	[ "$(val x.p50_ns "$T/h.out")" = 2 ]
	run ! grep -q '^x.p99_ns' "$T/h.out"
	# the clock's cost is taken off every sample, never below 0
	printf '%s\n' 0 >"$T/s5"
	sed -i 's/100 + v + clock_ns/100 + v/' "$T/hist.c"
	gcc -O2 -Wall -pthread -o "$T/hist" "$T/hist.c"
	"$T/hist" <"$T/s5" >"$T/h.out"
	[ "$(val x.min_ns "$T/h.out")" = 0 ]
}

# tree: a copy of the suite's scripts and msgwake in $T/t, msgwake built
tree() {
	mkdir -p "$T/t/msgwake"
	cp -r "$TOP/scripts" "$T/t/"
	cp "$D/bench.conf" "$D/parse.awk" "$D/msgwake.c" "$T/t/msgwake/"
	gcc -O2 -Wall -Wextra -Werror -pthread -o "$T/t/msgwake/msgwake" "$D/msgwake.c"
}

@test "msgwake: run.sh runs the program built in its folder; unbuilt, it says make builds it" {
	tree
	run "$T/t/scripts/run.sh" -n 1 -w 0 -o "$T/o" msgwake msg=1 workers=2 rps=100 duration=1
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	f=$T/o/iter-001.txt
	[ "$(val status "$f")" = complete ]
	[ "$(val command "$f")" = "msgwake -m 1 -w 2 -r 100 -t 1 -s 10" ]
	[ "$(val total.requests "$f")" = 100 ]
	[ "$(val program.msgwake.path "$T/o/meta.txt")" = "$T/t/msgwake/msgwake" ]
	grep -q '^program.msgwake.sha256=[0-9a-f]\{64\}$' "$T/o/meta.txt"
	run ! grep -q '^package\.' "$T/o/meta.txt"
	# not built
	rm "$T/t/msgwake/msgwake"
	run "$T/t/scripts/run.sh" -n 1 -w 0 -o "$T/o2" msgwake
	[ "$status" -eq 2 ]
	[[ $output == *"msgwake needs msgwake, which is not installed (the suite's own: make programs)"* ]]
	# a program of no package must have its C beside the declaration
	rm "$T/t/msgwake/msgwake.c"
	run bench_check "$T/t" msgwake
	[ "$status" -eq 1 ]
	[[ $output == *"programs: no $T/t/msgwake/msgwake.c: a program of no package= is built from its C beside the declaration"* ]]
}

@test "msgwake: bad arguments are refused, naming them, exit 2" {
	tree
	for a in "-m 0" "-w 1025" "-r x" "-t 0" "-s 1000001" "-m 64 -w 65" "extra" "-m" "-x 1"; do
		# shellcheck disable=SC2086 # the words of a
		run "$T/t/msgwake/msgwake" $a
		[ "$status" -eq 2 ] || { echo "$a: $status $output"; false; }
		[ "${#lines[@]}" -eq 2 ]
	done
	run "$T/t/msgwake/msgwake" -m 0
	[ "${lines[0]}" = "msgwake: -m '0' is out of range" ]
	run "$T/t/msgwake/msgwake" -t
	[ "${lines[0]}" = "msgwake: -t needs a value" ]
}
