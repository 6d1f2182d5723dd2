// SPDX-License-Identifier: GPL-2.0
/*
 * fail-nth N MODULE.ko [PARAM...]: load MODULE.ko with PARAMs, the Nth
 * fault-injection point that the load reaches in this task failed
 * (/proc/thread-self/fail-nth, CONFIG_FAULT_INJECTION; which kinds of
 * point count is set under /sys/kernel/debug/failslab and
 * fail_page_alloc). Prints one line "loaded=0|1 errno=E injected=0|1":
 * whether the module is in, the load's errno (0 when loaded), whether
 * the Nth point was reached and failed. Exit 0 when that line is
 * printed, 2 on a usage or set-up error. A test aid of the test bed,
 * built statically into the guest's image by vm/mkinitramfs.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int fail_nth_fd;

static int fail_nth_write(const char *n)
{
	return pwrite(fail_nth_fd, n, strlen(n), 0) == (ssize_t)strlen(n) ? 0 : -1;
}

int main(int argc, char **argv)
{
	char params[4096] = "", left[32] = "";
	int ko, i, err = 0;
	long ret;
	ssize_t len;

	if (argc < 3 || strspn(argv[1], "0123456789") != strlen(argv[1])) {
		fputs("usage: fail-nth N MODULE.ko [PARAM...]\n", stderr);
		return 2;
	}
	for (i = 3; i < argc; i++) {
		if (strlen(params) + strlen(argv[i]) + 2 > sizeof(params)) {
			fputs("fail-nth: parameters too long\n", stderr);
			return 2;
		}
		if (i > 3)
			strcat(params, " ");
		strcat(params, argv[i]);
	}
	ko = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (ko < 0) {
		perror(argv[2]);
		return 2;
	}
	fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (fail_nth_fd < 0) {
		perror("fail-nth: /proc/thread-self/fail-nth");
		return 2;
	}
	if (fail_nth_write(argv[1])) {
		perror("fail-nth: writing /proc/thread-self/fail-nth");
		return 2;
	}
	ret = syscall(SYS_finit_module, ko, params, 0);
	if (ret)
		err = errno;
	/* 0: the Nth point was reached and failed; else the points left */
	len = pread(fail_nth_fd, left, sizeof(left) - 1, 0);
	fail_nth_write("0");
	if (len <= 0) {
		perror("fail-nth: reading /proc/thread-self/fail-nth");
		return 2;
	}
	left[len] = '\0';
	printf("loaded=%d errno=%d injected=%d\n", ret == 0, err, atoi(left) == 0);
	return 0;
}
