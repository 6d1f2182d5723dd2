#!/usr/bin/env bats
# common/calib.c's arithmetic on the host: ips_calib_drift_pct10(),
# ips_calib_rel_drift_pct10(), ips_calib_calls(), the drift keep and ips_calib_best()
# taken out of calib.c as they are and compiled in
# userspace, against values worked out by hand.

load fixtures/extract

setup() {
	C=$BATS_TEST_DIRNAME/..
	T=$BATS_TEST_TMPDIR
	for f in drift_pct10 rel_drift_pct10 calls; do
		extract "$C/calib.c" "ips_calib_$f" >"$T/$f.inc"
		[ -s "$T/$f.inc" ] || { echo "no ips_calib_$f in calib.c"; return 1; }
	done
	extract_define "$C/calib.h" IPS_CALIB_AIM_NS >"$T/decl.inc"
	[ -s "$T/decl.inc" ] || return 1
	cat >"$T/calib.c" <<-'EOF'
	#include <stdint.h>
	#include <stdio.h>
	#include <stdlib.h>

	typedef uint64_t u64;
	typedef uint32_t u32;
	#define U64_MAX	UINT64_MAX
	#define div64_u64(a, b)	((a) / (b))
	#define clamp_t(t, v, lo, hi)	((t)(v) < (t)(lo) ? (t)(lo) : (t)(v) > (t)(hi) ? (t)(hi) : (t)(v))
	/* The test bed's TSC: a unit a nanosecond. */
	#define ips_clock_ns(u)	(u)

	#include "decl.inc"
	#include "drift_pct10.inc"
	#include "rel_drift_pct10.inc"
	#include "calls.inc"

	int main(int argc, char **argv)
	{
		u64 a = strtoull(argv[2], NULL, 0), b = strtoull(argv[3], NULL, 0);

		if (argv[1][0] == 'd' || argv[1][0] == 'r') {
			u64 d = argv[1][0] == 'd' ? ips_calib_drift_pct10(a, b) :
				ips_calib_rel_drift_pct10(a, b, strtoul(argv[4], NULL, 0),
							  strtoul(argv[5], NULL, 0));

			if (d == U64_MAX)
				printf("inf\n");
			else
				printf("%llu\n", (unsigned long long)d);
		} else {
			printf("%u\n", ips_calib_calls(a, (unsigned int)b));
		}
		return 0;
	}
	EOF
	gcc -O2 -Wall -Werror -o "$T/calib" "$T/calib.c"
}

@test "drift: tenths of a percent of the cost before, either way" {
	run "$T/calib" d 100000 100000
	[ "$output" = 0 ]
	run "$T/calib" d 100000 125000
	[ "$output" = 250 ]
	run "$T/calib" d 100000 75000
	[ "$output" = 250 ]
	run "$T/calib" d 100000 125100
	[ "$output" = 251 ]
	# rounded to the nearest tenth: 1/3 % is 3.3 tenths
	run "$T/calib" d 300000 301000
	[ "$output" = 3 ]
	run "$T/calib" d 300000 301050
	[ "$output" = 4 ]
}

@test "drift: a move too large to count in tenths is unbounded, not wrapped" {
	run "$T/calib" d 1 18446744073709551615
	[ "$output" = inf ]
	# the largest move that counts, (2^64 - 1 - 500) / 1000, and one more
	run "$T/calib" d 1000 18446744073710551
	[ "$output" = 18446744073709551 ]
	run "$T/calib" d 1000 18446744073710552
	[ "$output" = inf ]
}

@test "drift: from nothing to something is unbounded, nothing to nothing none" {
	run "$T/calib" d 0 1
	[ "$output" = inf ]
	run "$T/calib" d 0 0
	[ "$output" = 0 ]
	run "$T/calib" d 5 0
	[ "$output" = 1000 ]
}

@test "drift of a share: a cost that moved with the plain calls did not" {
	# cost plain cost_end plain_end, ps
	run "$T/calib" r 40000 100000 52000 130000
	[ "$output" = 0 ]
	run "$T/calib" r 40000 100000 50000 100000
	[ "$output" = 250 ]
	# the cost went up 20 %, the plain calls down 20 %: the share 50 %
	run "$T/calib" r 40000 100000 48000 80000
	[ "$output" = 500 ]
	run "$T/calib" r 40000 0 40000 100000
	[ "$output" = inf ]
	run "$T/calib" r 40000 100000 40000 0
	[ "$output" = inf ]
}

@test "calls: as many as the aim holds, at least 8, at most the most" {
	# 20 us at 100 ns (100000 ps) a call
	run "$T/calib" c 100000 1000
	[ "$output" = 200 ]
	run "$T/calib" c 10000 1000
	[ "$output" = 1000 ]
	run "$T/calib" c 10000000 1000
	[ "$output" = 8 ]
	run "$T/calib" c 0 256
	[ "$output" = 256 ]
}

# build_keep: keep, which reads "END AGAIN COST PLAIN" lines (a CPU's
# calibrations in turn) into one struct ips_calib_drift with
# ips_calib_drift_keep() and prints, a line each, whether it was kept,
# then the drift (tenths of %, or none) and whether it is past 25.0 %.
build_keep() {
	{
		extract_struct "$C/calib.h" ips_calib_drift
		for f in drift_pct10 rel_drift_pct10 drift_rel drift_past drift_keep; do
			extract "$C/calib.c" "ips_calib_$f"
		done
	} >"$T/keep.inc"
	cat >"$T/keep.c" <<-'EOF'
	#include <stdbool.h>
	#include <stdint.h>
	#include <stdio.h>

	typedef uint64_t u64;
	typedef uint32_t u32;
	#define U64_MAX	UINT64_MAX
	#define div64_u64(a, b)	((a) / (b))
	#include "keep.inc"

	int main(void)
	{
		struct ips_calib_drift d = { 0 };
		unsigned int end, again, cost, plain;

		while (scanf("%u %u %u %u", &end, &again, &cost, &plain) == 4)
			printf("%d\n", ips_calib_drift_keep(&d, end, again, cost, plain, 8));
		if (d.calls[1])
			printf("%llu", (unsigned long long)ips_calib_drift_rel(&d));
		else
			printf("none");
		printf(" %d\n", ips_calib_drift_past(&d, 250));
		return 0;
	}
	EOF
	gcc -O2 -Wall -Werror -o "$T/keep" "$T/keep.c"
}

@test "drift: a second try is kept only if better; no end is past any limit" {
	build_keep
	# before the run: the first; a second whose plain calls ran slower
	# (disturbed) is not kept, one whose ran faster is
	run "$T/keep" <<<"0 0 40000 100000
0 1 30000 120000
0 1 42000 90000"
	[ "$output" = "1
0
1
none 1" ]
	# after it: the first, 40 % off; a second 60 % off is not kept, one
	# 10 % off is (the share before: 42000 / 90000)
	run "$T/keep" <<<"0 0 42000 90000
1 0 58800 90000
1 1 67200 90000
1 1 46200 90000"
	[ "$output" = "1
1
0
1
100 0" ]
}

# build_best: best, which runs ips_calib_best() over variants of the
# costs given as arguments (clock units a run), 9 runs each, where the
# first SLOW runs made (the environment's SLOW) take four times as long,
# a disturbance some runs long; it prints each variant's best.
build_best() {
	{
		extract_struct "$C/calib.h" ips_calib_cpu
		sed -n '/^typedef u64 (\*ips_calib_run_fn)/,/;$/p' "$C/calib.h"
		extract "$C/calib.c" ips_calib_best
	} >"$T/best.inc"
	grep -q 'ips_calib_run_fn)' "$T/best.inc" || return 1
	cat >"$T/best.c" <<-'EOF'
	#include <stdbool.h>
	#include <stdint.h>
	#include <stdio.h>
	#include <stdlib.h>

	typedef uint64_t u64;
	#define U64_MAX	UINT64_MAX
	#define min(a, b)	((a) < (b) ? (a) : (b))
	#include "best.inc"

	static unsigned int made, slow;

	static u64 run(struct ips_calib_cpu *k, void *data, unsigned int i, u64 best)
	{
		const u64 *cost = data;

		return cost[i] * (made++ < slow ? 4 : 1);
	}

	int main(int argc, char **argv)
	{
		struct ips_calib_cpu k = { 0 };
		u64 cost[8], best[8];
		int i, n = argc - 1;

		slow = atoi(getenv("SLOW"));
		for (i = 0; i < n; i++)
			cost[i] = strtoull(argv[i + 1], NULL, 0);
		if (!ips_calib_best(&k, run, cost, 9, n, best))
			return 1;
		for (i = 0; i < n; i++)
			printf("%llu%c", (unsigned long long)best[i], i + 1 < n ? ' ' : '\n');
		return 0;
	}
	EOF
	gcc -O2 -Wall -Werror -Wno-unused-parameter -o "$T/best" "$T/best.c"
}

@test "best: interleaved runs, so that a disturbance weighs on every variant alike" {
	build_best
	SLOW=0 run "$T/best" 100 150
	[ "$output" = "100 150" ]
	# The first nine runs slowed: in blocks, every run of the first
	# variant, whose best would read 400 and the difference -250.
	SLOW=9 run "$T/best" 100 150
	[ "$output" = "100 150" ]
	SLOW=18 run "$T/best" 100 150 120
	[ "$output" = "100 150 120" ]
}
