#!/usr/bin/env bats
# phases=1's wake-up label and interrupted re-entries on the host: the
# hooks' bodies taken out of the module's source as they are and compiled
# in userspace with a shim of the CPU's state, fed the hooks' order of a
# round. What woke the CPU is the interrupt that ended its idle loop, not
# one before it that woke nothing (a TLB shootdown, rdmsr_on_cpu(), a
# storm's call), nor one inside the re-entry; the test bed's emulated
# CPUs rarely make either order.

# extract: common/'s helper that takes a function out of a C file as it is
load ../../../common/tests/fixtures/extract

setup() {
	T=$BATS_TEST_TMPDIR
	# the unit's files (idle_reentry_main.c includes the others)
	F=$T/unit.c
	cat "$BATS_TEST_DIRNAME"/../../*.c >"$F"
}

# build: wake, which reads the events of rounds from stdin, a word each:
# poll (the idle task's queue flush), ipi, timer (their hard IRQ hooks),
# enter (an interrupt's entry), quiet (tick_nohz_irq_exit() at an
# interrupt's end), woke (need_resched() set), soft and unsoft (softirqs
# start and end), leave (the CPU left the polling loop), end (the round
# ends: print its label and whether it was interrupted).
build() {
	{
		sed -n '/^	WAKE_POLL,/,/^};/p' "$F"
		grep '^enum { PHASE_NONE' "$F"
	} >"$T/enum.inc"
	for f in ir_wake_of ir_wake_body ir_irq_enter_body ir_irq_quiet_body; do
		extract "$F" "$f" >"$T/$f.inc"
		[ -s "$T/$f.inc" ] || { echo "no $f in $F"; return 1; }
		cat "$T/$f.inc"
	done >"$T/wake.inc"
	cat >"$T/wake.c" <<-'EOF'
	#include <stdbool.h>
	#include <stdint.h>
	#include <stdio.h>
	#include <string.h>

	typedef uint32_t u32;
	#define BIT(n)	(1U << (n))
	#define BITS_PER_TYPE(t)	(sizeof(t) * 8)
	#define BUILD_BUG_ON(c)	_Static_assert(!(c), #c)
	enum { IR_HOOK_WAKE_POLL, IR_HOOK_WAKE_IPI, IR_HOOK_WAKE_TIMER,
	       IR_HOOK_IRQ_ENTER, IR_HOOK_IRQ_QUIET };
	enum {
	#include "enum.inc"

	struct ir_cpu { u32 hits; unsigned int fired, wake; int phase; bool interrupted; };
	static bool resched, soft;
	#define need_resched()	(resched)
	#define in_serving_softirq()	(soft)
	#include "wake.inc"

	int main(void)
	{
		static const char * const name[] = { "poll", "ipi", "timer", "other" };
		struct ir_cpu c = { 0 };
		char e[16];

		while (scanf("%15s", e) == 1) {
			if (!strcmp(e, "poll"))
				ir_wake_body(&c, IR_HOOK_WAKE_POLL, WAKE_POLL, true);
			else if (!strcmp(e, "ipi"))
				ir_wake_body(&c, IR_HOOK_WAKE_IPI, WAKE_IPI, true);
			else if (!strcmp(e, "timer"))
				ir_wake_body(&c, IR_HOOK_WAKE_TIMER, WAKE_TIMER, true);
			else if (!strcmp(e, "enter"))
				ir_irq_enter_body(&c);
			else if (!strcmp(e, "quiet"))
				ir_irq_quiet_body(&c);
			else if (!strcmp(e, "woke"))
				resched = true;
			else if (!strcmp(e, "soft"))
				soft = true;
			else if (!strcmp(e, "unsoft"))
				soft = false;
			else if (!strcmp(e, "leave"))
				c.phase = PHASE_TICK;
			else if (!strcmp(e, "end")) {
				printf("%s%s\n", name[ir_wake_of(c.wake)],
				       c.interrupted ? " interrupted" : "");
				c.phase = PHASE_NONE;
				c.wake = 0;
				c.interrupted = false;
				resched = soft = false;
			}
		}
		return 0;
	}
	EOF
	gcc -O2 -Wall -Werror -o "$T/wake" "$T/wake.c"
}

@test "label: the interrupt that ended the idle loop, not one that woke nothing" {
	build
	# an IPI that woke nothing, then a reschedule: other (format 5: ipi)
	run "$T/wake" <<<"enter ipi quiet leave end"
	[ "$output" = other ]
	# the IPI that ended the loop
	run "$T/wake" <<<"enter ipi leave end"
	[ "$output" = ipi ]
	# a timer that woke nothing, then an IPI that did
	run "$T/wake" <<<"enter timer quiet enter ipi leave end"
	[ "$output" = ipi ]
	# a polled call comes first, whatever came before it
	run "$T/wake" <<<"enter timer leave poll end"
	[ "$output" = poll ]
}

@test "label: kept by an interrupt's end that woke a task, or that came into softirqs" {
	build
	# a nohz_full CPU: the end is called though the IPI woke a task
	run "$T/wake" <<<"enter ipi woke quiet leave end"
	[ "$output" = ipi ]
	# an interrupt that came into the timer's softirqs, which then wake
	run "$T/wake" <<<"enter timer soft enter quiet unsoft woke leave end"
	[ "$output" = timer ]
}

@test "interrupted: an interrupt inside the re-entry, which labels nothing" {
	build
	run "$T/wake" <<<"leave enter ipi end"
	[ "$output" = "other interrupted" ]
	run "$T/wake" <<<"enter timer leave enter timer end
leave poll end"
	[ "$output" = "timer interrupted
poll" ]
}
