#!/usr/bin/env bats
# common/hook.c's call-site map on the host, where two CPUs really run at
# once (the test bed's single-threaded TCG never does): ips_hook_find()
# and ips_hook_resolve() taken out of hook.h and hook.c as they are and
# compiled in userspace with a shim of the kernel's atomics, with threads
# as CPUs. The shim's symbol lookup spins a while, as kallsyms takes
# microseconds, so that the threads hit a call site before any has mapped
# it, as a server's CPUs do when the hooks go in.

load fixtures/extract

setup() {
	C=$BATS_TEST_DIRNAME/..
	T=$BATS_TEST_TMPDIR
}

# build: map, which runs THREADS threads over SITES call sites for ROUNDS
# rounds (its arguments): in each round every thread looks up every site,
# in an order of its own, from an empty map, and fails on a hook not the
# site's; after each round it counts the map's sites and slots as the
# modules report them. Prints "sites SLOTS unmapped" summed over the rounds,
# and "wrong N" for lookups that returned another hook.
build() {
	extract "$C/hook.h" ips_hook_find >"$T/find.inc"
	extract "$C/hook.c" ips_hook_resolve >"$T/resolve.inc"
	extract "$C/hook.c" ips_hook_name_is >"$T/name.inc"
	extract_struct "$C/hook.h" ips_hook_site >"$T/site.inc"
	for f in find resolve name site; do
		[ -s "$T/$f.inc" ] || { echo "no $f in $C/hook.[ch]"; return 1; }
	done
	cat >"$T/map.c" <<-'EOF'
	#include <pthread.h>
	#include <stdbool.h>
	#include <stdio.h>
	#include <stdlib.h>
	#include <string.h>

	#define IPS_HOOK_IPS	4
	#define IPS_HOOK_MAP_BITS	6
	#define KSYM_SYMBOL_LEN	128
	#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
	#define noinline	__attribute__((noinline))
	#define notrace
	#define likely(x)	__builtin_expect(!!(x), 1)
	#define READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)
	#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
	#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
	#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
	#define cmpxchg(p, o, n)	__sync_val_compare_and_swap((p), (o), (n))
	typedef struct { int counter; } atomic_t;
	#define atomic_inc(a)	__atomic_fetch_add(&(a)->counter, 1, __ATOMIC_RELAXED)
	/* The kernel's hash_64() of 64-bit longs (include/linux/hash.h). */
	#define GOLDEN_RATIO_64	0x61C8864680B583EBull
	static inline unsigned int hash_long(unsigned long v, unsigned int bits)
	{
		return (unsigned int)((v * GOLDEN_RATIO_64) >> (64 - bits));
	}

	/* Of hook.h's hook, what the map's functions use. */
	struct ips_hook {
		const char *hooked;
		unsigned long ips[IPS_HOOK_IPS];
	};
	#include "site.inc"
	/* Of hook.h's set, what the map's functions use. */
	struct ips_hook_set {
		struct ips_hook *hooks;
		unsigned int n;
		unsigned int resolved;
		atomic_t unmapped;
		struct ips_hook_site map[1 << IPS_HOOK_MAP_BITS];
	};
	struct ips_hook *ips_hook_resolve(struct ips_hook_set *set, unsigned long ip);

	#define NR_SITES	100
	static const char *const fn[] = { "do_idle", "schedule_idle", "tick_nohz_idle_exit", "pick_task_idle" };
	static unsigned long site_ip[NR_SITES];
	static unsigned int nsites;

	/* Site i lies in fn[i % 4], some in a clone (".isra.0"). */
	static void sprint_symbol_no_offset(char *sym, unsigned long ip)
	{
		unsigned int i = (ip - 0xffffffff81000000ul) / 0x40;
		volatile unsigned int spin;

		for (spin = 0; spin < 20000; spin++)
			;
		snprintf(sym, KSYM_SYMBOL_LEN, "%s%s", fn[i % 4], i % 3 ? "" : ".isra.0");
	}

	#include "name.inc"
	static struct ips_hook ips_hook_none;
	#include "resolve.inc"
	#include "find.inc"

	static struct ips_hook hooks[4];
	static struct ips_hook_set set = { .hooks = hooks, .n = 4 };
	static pthread_barrier_t start, done;
	static unsigned long wrong, rounds;

	static void *cpu(void *arg)
	{
		unsigned long r, k, seed = (unsigned long)arg;

		for (r = 0; r < rounds; r++) {
			pthread_barrier_wait(&start);
			for (k = 0; k < nsites; k++) {
				unsigned int i = (k + seed * 7) % nsites;
				struct ips_hook *h = ips_hook_find(&set, site_ip[i]);

				if (h != &hooks[i % 4])
					__atomic_fetch_add(&wrong, 1, __ATOMIC_RELAXED);
			}
			pthread_barrier_wait(&done);
		}
		return NULL;
	}

	int main(int argc, char **argv)
	{
		unsigned long threads = strtoul(argv[1], NULL, 0), r, i, j;
		unsigned long sites = 0, slots = 0, unmapped = 0;
		pthread_t t[64];

		nsites = strtoul(argv[2], NULL, 0);
		rounds = strtoul(argv[3], NULL, 0);
		for (i = 0; i < 4; i++)
			hooks[i].hooked = fn[i];
		for (i = 0; i < nsites; i++)
			site_ip[i] = 0xffffffff81000000ul + i * 0x40;
		pthread_barrier_init(&start, NULL, threads + 1);
		pthread_barrier_init(&done, NULL, threads + 1);
		for (i = 0; i < threads; i++)
			pthread_create(&t[i], NULL, cpu, (void *)i);
		for (r = 0; r < rounds; r++) {
			memset(set.map, 0, sizeof(set.map));
			memset(hooks, 0, sizeof(hooks));
			for (i = 0; i < 4; i++)
				hooks[i].hooked = fn[i];
			set.unmapped.counter = 0;
			pthread_barrier_wait(&start);
			pthread_barrier_wait(&done);
			for (i = 0; i < ARRAY_SIZE(set.map); i++) {
				if (!set.map[i].ip)
					continue;
				slots++;
				for (j = 0; j < i && set.map[j].ip != set.map[i].ip; j++)
					;
				sites += j == i;
			}
			unmapped += set.unmapped.counter;
		}
		for (i = 0; i < threads; i++)
			pthread_join(t[i], NULL);
		printf("%lu %lu %lu\nwrong %lu\n", sites, slots, unmapped, wrong);
		return 0;
	}
	EOF
	gcc -O2 -Wall -Werror -pthread -o "$T/map" "$T/map.c"
}

@test "hook: call sites hit by 4 threads at once take one slot each, 400 rounds" {
	build
	run "$T/map" 4 12 400
	[ "$status" -eq 0 ]
	echo "$output"
	[ "${lines[0]}" = "4800 4800 0" ]
	[ "${lines[1]}" = "wrong 0" ]
}

@test "hook: sites beyond the map's 64 slots are looked up anew, each hit counted, never a wrong hook" {
	build
	run "$T/map" 2 70 50
	[ "$status" -eq 0 ]
	echo "$output"
	read -r sites slots unmapped <<<"${lines[0]}"
	[ "$sites" -eq 3200 ]
	[ "$slots" -eq 3200 ]
	# Each of the 6 sites left over is looked up by both threads each round.
	[ "$unmapped" -eq 600 ]
	[ "${lines[1]}" = "wrong 0" ]
}
