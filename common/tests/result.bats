#!/usr/bin/env bats
# common/result.c on the host: its functions of plain arithmetic, taken out
# of the file as they are and compiled in userspace with a tiny shim of
# the kernel's types and division helpers. The shim's
# mul_u64_u64_div_u64() aborts where x86-64's divq traps (a quotient that
# does not fit 64 bits), so a call that would oops the kernel fails here.

load fixtures/extract

setup() {
	H=$BATS_TEST_DIRNAME/../result.c
	T=$BATS_TEST_TMPDIR
}

# build: rate, a program that prints ips_result_rate(N, NS) and the exact
# floor(N * 1e9 / NS) (or U64_MAX where that does not fit; 0 for NS 0),
# one "N NS GOT WANT" line per pair read from stdin.
build() {
	extract "$H" ips_result_rate >"$T/rate.inc"
	[ -s "$T/rate.inc" ] || { echo "no ips_result_rate in $H"; return 1; }
	cat >"$T/rate.c" <<-'EOF'
	#include <inttypes.h>
	#include <stdio.h>
	#include <stdlib.h>

	typedef uint64_t u64;
	typedef unsigned __int128 u128;
	#define U64_MAX UINT64_MAX
	#define NSEC_PER_SEC 1000000000ULL
	#define max_t(t, a, b) ((t)(a) > (t)(b) ? (t)(a) : (t)(b))
	static inline u64 div64_u64(u64 a, u64 b) { return a / b; }
	static inline u64 div64_u64_rem(u64 a, u64 b, u64 *r)
	{
		*r = a % b;
		return a / b;
	}
	/* x86-64's mulq; divq: a quotient beyond 64 bits traps (#DE). */
	static inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 d)
	{
		u128 q = (u128)a * b / d;

		if (q > U64_MAX) {
			fprintf(stderr, "#DE: %" PRIu64 " * %" PRIu64 " / %" PRIu64 "\n",
				a, b, d);
			abort();
		}
		return (u64)q;
	}
	#include "rate.inc"

	int main(void)
	{
		u64 n, ns;

		while (scanf("%" SCNu64 " %" SCNu64, &n, &ns) == 2) {
			u128 want = ns ? (u128)n * NSEC_PER_SEC / ns : 0;

			printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
			       n, ns, ips_result_rate(n, ns),
			       want > U64_MAX ? U64_MAX : (u64)want);
		}
		return 0;
	}
	EOF
	gcc -O2 -Wall -Werror -o "$T/rate" "$T/rate.c"
}

# wrong: the lines of rate's output where GOT is not WANT.
wrong() { awk '$3 != $4'; }

@test "result: ips_result_rate of 2.0e10 calls in 11.9 s is 1680672268/s" {
	build
	run "$T/rate" <<<"20000000000 11900000000"
	[ "$status" -eq 0 ]
	[ "$output" = "20000000000 11900000000 1680672268 1680672268" ]
}

@test "result: ips_result_rate is exact around the 64-bit product's limit and at the extremes" {
	build
	# U64_MAX / 1e9 = 18446744073: the products of n * 1e9 stop fitting
	# 64 bits there; ns of a nanosecond to centuries; n = 0 and U64_MAX;
	# a rate that does not fit 64 bits reads U64_MAX, one that just fits
	# (36893488147 in 2 ns: 18446744073500000000/s) is exact.
	{
		for n in 0 1 999999999 18446744073 18446744074 18446744075 \
			20000000000 36893488147 36893488148 36893488146 \
			123456789012345 18446744073709551615; do
			for ns in 0 1 2 3 999999999 1000000000 1000000001 \
				11900000000 3600000000000 18446744073709551615; do
				echo "$n $ns"
			done
		done
	} >"$T/pairs"
	run "$T/rate" <"$T/pairs"
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | wc -l)" -eq 120 ]
	run wrong <<<"$output"
	[ -z "$output" ] || { echo "$output"; false; }
}

@test "result: ips_result_rate is exact for 20000 pseudo-random counts and times" {
	build
	# Counts up to 2^40 (a trillion events) and beyond, times from 1 ns
	# to 2^50 ns (13 days): a fixed seed, the same pairs every run.
	awk 'BEGIN { srand(20261202)
		for (i = 0; i < 20000; i++) {
			n = int(rand() * 2 ^ int(rand() * 63))
			ns = 1 + int(rand() * 2 ^ int(rand() * 50))
			printf "%.0f %.0f\n", n, ns
		} }' >"$T/pairs"
	run "$T/rate" <"$T/pairs"
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | wc -l)" -eq 20000 ]
	run wrong <<<"$output"
	[ -z "$output" ] || { echo "$output" | head -n 5; false; }
}

# detail: a program that prints, for each line read, 1 if
# ips_result_is_detail() keeps it out of the kernel log, else 0.
detail() {
	extract "$H" ips_result_is_detail >"$T/detail.inc"
	[ -s "$T/detail.inc" ] || { echo "no ips_result_is_detail in $H"; return 1; }
	cat >"$T/detail.c" <<-'EOF'
	#define _GNU_SOURCE
	#include <ctype.h>
	#include <stdbool.h>
	#include <stdio.h>
	#include <string.h>

	#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
	/* The kernel's strnstr(): @s2 in the first @len bytes of @s1. */
	static char *strnstr(const char *s1, const char *s2, size_t len)
	{
		size_t l2 = strlen(s2);

		for (; len >= l2; len--, s1++)
			if (!memcmp(s1, s2, l2))
				return (char *)s1;
		return NULL;
	}
	#include "detail.inc"
	int main(void)
	{
		char l[256];

		while (fgets(l, sizeof(l), stdin)) {
			size_t n = strcspn(l, "\n");

			/* The line's bytes only: the next line follows it. */
			l[n] = '\n';
			printf("%d\n", ips_result_is_detail(l, n));
		}
		return 0;
	}
	EOF
	cc -O2 -Wall -Werror -o "$T/detail" "$T/detail.c"
}

@test "result: per-CPU, per-sender and per-idle-state lines stay out of the log" {
	detail
	run "$T/detail" <<-'EOF'
	cpu3.calls=5
	sender12.lat_p50_ns=3
	wl_poll.idle_POLL.wakeups=7
	total.idle_none.lat_p99_ns=9
	idle_driver=polling_idle
	idle_driver_changed=0
	total.lat_p50_ns=3
	cpus=4
	status=complete.idle_x
	total.wakeups=2
	EOF
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | tr '\n' ' ')" = "1 1 1 1 0 0 0 0 0 0 " ] || { echo "$output"; false; }
}
