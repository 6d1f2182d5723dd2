# SPDX-License-Identifier: GPL-2.0
#
# make [KDIR=...]   build the suite's own programs, and every module
#                   against KDIR (W=1)
# make programs     the suite's own programs alone (msgwake/msgwake)
# make check        checkpatch --strict, shellcheck, W=1 + sparse builds
#                   against the test bed's kernels (PREEMPT_RT's too)
# make test         the tests, in QEMU, on every kernel of the matrix (the
#                   PREEMPT_RT kernels: the boots their entries name)
# make test-rt      every boot and demo shape on the PREEMPT_RT kernels
# make test-race    the races of the modules' state, 8 vCPUs in parallel
#                   (multi-threaded TCG; outside CI: docs/testbed.md)
# make test-debug   every test on a KASAN, lockdep, kmemleak kernel with
#                   every allocation of each load failed once (outside CI;
#                   build it first: vm/debug-kernel.sh, docs/testbed.md)
# make bench        ipistorm's overhead against a bare call loop (icount)
# make demo         SM_IDLE reproduced on Debian 6.1 against 6.12 in QEMU;
#                   IDLE=mwait: the CPUs idle in cpuidle's polling states
# make demo-race    the same two with the vCPUs in parallel: the share of
#                   calls that found the target polling, decomposed
# make sign KEY=... CERT=...
#                   sign the built modules (the kernel's scripts/sign-file)
#                   for a kernel that enforces module signatures
# make clean
# make help         this text

KDIR ?= /lib/modules/$(shell uname -r)/build
# Empty: each script's default (vm/lib.sh's matrix).
KERNELS ?=

all: programs modules

# The suite's own programs: of each program's declaration without
# package=, each of programs= from its C beside it (docs/bench.md), as
# scripts/lib.sh, the one reader of the declarations, lists them; and
# the flags it gives them, which the test bed's static builds share.
PROGRAMS := $(shell . ./scripts/lib.sh && suite_programs .)
PROGRAM_CFLAGS := $(shell . ./scripts/lib.sh && echo "$$PROGRAM_CFLAGS")
CFLAGS ?= -O2

programs: $(PROGRAMS)

$(PROGRAMS): %: %.c
	$(CC) $(CFLAGS) $(PROGRAM_CFLAGS) -o $@ $<

modules:
	@test -f $(KDIR)/Makefile || { echo "no kernel headers at $(KDIR):" \
		"install linux-headers-$(shell uname -r), or build against" \
		"another tree with KDIR=..." >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

# The kernel's own signer, from its headers; the key and certificate are
# the user's (a MOK enrolled with mokutil, docs/packaging.md).
SIGN_FILE ?= $(KDIR)/scripts/sign-file
SIGN_HASH ?= sha256
sign:
	@test -n "$(KEY)" && test -n "$(CERT)" || { echo "make sign needs" \
		"KEY=<private key> CERT=<its X.509 certificate> (docs/packaging.md)" >&2; exit 2; }
	@test -x $(SIGN_FILE) || { echo "no $(SIGN_FILE): sign with the" \
		"headers of the kernel to load into (KDIR=...)" >&2; exit 1; }
	@set -e; for ko in */*.ko; do \
		test -f "$$ko" || { echo "no modules built: run make first" >&2; exit 1; }; \
		if tail -c 28 "$$ko" | grep -q '~Module signature appended~'; then \
			echo "$$ko: signed already (make clean; make to sign anew)" >&2; exit 1; fi; \
		$(SIGN_FILE) $(SIGN_HASH) "$(KEY)" "$(CERT)" "$$ko"; \
		tail -c 28 "$$ko" | grep -q '~Module signature appended~' || \
			{ echo "$$ko: no signature appended" >&2; exit 1; }; \
		echo "signed $$ko"; \
	done

clean:
	if [ -d $(KDIR) ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	rm -rf build $(PROGRAMS)

check:
	KERNELS="$(KERNELS)" scripts/check.sh

test:
	vm/test.sh $(KERNELS)

test-rt:
	vm/test.sh -a $(or $(KERNELS),6.1-rt 6.12-rt)

test-race:
	vm/race.sh $(KERNELS)

test-debug:
	vm/test-debug.sh

bench:
	vm/bench.sh $(KERNELS)

demo:
	IDLE="$(IDLE)" vm/demo.sh

demo-race:
	RACE=1 IDLE="$(IDLE)" vm/demo.sh

help:
	@sed -n '3,/^$$/ s/^# \{0,1\}//p' $(firstword $(MAKEFILE_LIST))

.PHONY: all programs modules clean check test test-rt test-race test-debug bench demo demo-race help sign
