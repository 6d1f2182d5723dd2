// SPDX-License-Identifier: GPL-2.0
/*
 * core-cookie COMMAND [ARG...]: run COMMAND in a core-scheduling cookie of
 * its own (prctl(PR_SCHED_CORE, PR_SCHED_CORE_CREATE)), which turns core
 * scheduling on for as long as the cookie lives. Fails where the kernel
 * has no CONFIG_SCHED_CORE (EINVAL). A test aid of the test bed, built
 * statically into the guest's image by vm/mkinitramfs.sh.
 */
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

#ifndef PR_SCHED_CORE
#define PR_SCHED_CORE		62
#define PR_SCHED_CORE_CREATE	1
#endif
#define PR_SCHED_CORE_SCOPE_THREAD 0

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("usage: core-cookie COMMAND [ARG...]\n", stderr);
		return 2;
	}
	if (prctl(PR_SCHED_CORE, PR_SCHED_CORE_CREATE, 0,
		  PR_SCHED_CORE_SCOPE_THREAD, 0)) {
		perror("core-cookie: prctl(PR_SCHED_CORE_CREATE)");
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror("core-cookie: exec");
	return 127;
}
