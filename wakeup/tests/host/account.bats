#!/usr/bin/env bats
# wakeup.ko's accounting of one wake-up, wk_account(), on the host: taken
# out of the module's source as it is and compiled in userspace with a shim of
# its types and of the histogram. A latency is the wakee's CPU's clock
# less the sender's: on a server whose sockets' TSCs are apart it can come
# out below 0, which the test bed's single TSC never shows.

# extract: common/'s helper that takes a function out of a C file as it is
load ../../../common/tests/fixtures/extract

setup() {
	T=$BATS_TEST_TMPDIR
	# the unit's files (wakeup_main.c includes the others)
	F=$T/unit.c
	cat "$BATS_TEST_DIRNAME"/../../wakeup_main.c "$BATS_TEST_DIRNAME"/../../probes.c \
		"$BATS_TEST_DIRNAME"/../../loop.c "$BATS_TEST_DIRNAME"/../../report.c >"$F"
}

# build: account, which accounts the latencies (signed, ns) read from
# stdin to the path "0", its wakee's CPU in idle slot 1, and prints the
# path's count, its histogram's count, sum and maximum, the backwards
# count, the count of the path's histogram of slot 1, and its interrupted
# spans (those of 800 and -35 ns were).
build() {
	for f in wk_hist wk_add wk_account; do
		extract "$F" $f
	done >"$T/account.inc"
	grep -q 'wk_account(' "$T/account.inc" || { echo "no wk_account in $F"; return 1; }
	cat >"$T/account.c" <<-'EOF'
	#include <inttypes.h>
	#include <stdbool.h>
	#include <stdio.h>

	typedef uint64_t u64;
	typedef int64_t s64;
	#define unlikely(x)	(x)
	enum wk_scope { WK_PATH0, NR_WK_SCOPES };
	struct ips_hist { u64 n, sum, max; };
	static void ips_hist_add(struct ips_hist *h, u64 v)
	{
		h->n++;
		h->sum += v;
		if (v > h->max)
			h->max = v;
	}
	struct wk_sender {
		u64 unclassified, backwards;
		u64 count[NR_WK_SCOPES];
		u64 intr[NR_WK_SCOPES];
		struct ips_hist *hist;
	};
	/* none, two states, other */
	static unsigned int wk_slots = 4;
	#include "account.inc"

	int main(void)
	{
		struct ips_hist h[NR_WK_SCOPES * 5] = { 0 };
		struct wk_sender s = { .hist = h };
		long long dt;

		while (scanf("%lld", &dt) == 1)
			wk_account(&s, WK_PATH0, 1, (u64)dt, dt == 800 || dt == -35);
		printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
		       s.count[0], h[0].n, h[0].sum, h[0].max, s.backwards,
		       wk_hist(&s, WK_PATH0, 1)->n, s.intr[0]);
		return 0;
	}
	EOF
	gcc -O2 -Wall -Werror -o "$T/account" "$T/account.c"
}

@test "wakeup: a latency timed backwards (two CPUs' clocks apart) is counted, in no histogram" {
	build
	run "$T/account" <<<"1200 -35 800 -1 0"
	[ "$status" -eq 0 ]
	# 3 timed (2000 ns, at most 1200), 2 backwards; before, -35 and -1
	# wrapped to 2^64 - 35 and 2^64 - 1 in the histogram's maximum; the
	# idle state's histogram holds the 3 timed ones too; of the two
	# interrupted spans, the one timed backwards is in no count
	[ "$output" = "3 3 2000 1200 2 3 1" ]
}

# build_path: path, which reads "T W" lines (the activations the wakee's
# CPU and the waker's counted, the waker's noipi 1) and prints the path
# wk_path() gives, taken out of wakeup_main.c as it is.
build_path() {
	extract "$F" wk_path >"$T/path.inc"
	[ -s "$T/path.inc" ] || { echo "no wk_path in $F"; return 1; }
	sed -n '/^enum wk_scope {/,/^};/p' "$F" >"$T/scope.inc"
	cat >"$T/path.c" <<-'EOF'
	#include <inttypes.h>
	#include <stdio.h>

	typedef uint64_t u64;
	#undef __always_inline
	#define __always_inline inline
	#include "scope.inc"
	struct wk_counts { u64 act[2], noipi, cfs_ipi, res_ipi; };
	#include "path.inc"

	int main(void)
	{
		static const char *const name[] = {
			[WK_WL_POLL] = "wl_poll", [WK_RQ_POLL] = "rq_poll",
			[NR_WK_SCOPES] = "unclassified",
		};
		unsigned long long a, b;

		while (scanf("%llu %llu", &a, &b) == 2) {
			struct wk_counts t = { .act = { a } };
			struct wk_counts w = { .act = { b }, .noipi = 1 };
			enum wk_scope p = wk_path(&w, &t, 0);

			printf("%s\n", name[p] ? name[p] : "other");
		}
		return 0;
	}
	EOF
	gcc -O2 -Wall -Werror -o "$T/path" "$T/path.c"
}

@test "wakeup: a wake-up is one activation: none, or more than one, is unclassified" {
	build_path
	run "$T/path" <<<"1 0 0 1 0 0 1 1 2 0 0 2"
	[ "$status" -eq 0 ]
	# wakeup/2 put 2 activations on one CPU in its path
	[ "$output" = "wl_poll
rq_poll
unclassified
unclassified
unclassified
unclassified" ]
}
