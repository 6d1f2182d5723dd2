# SPDX-License-Identifier: GPL-2.0
#
# make [KDIR=...]   build every module against KDIR (W=1)
# make check        checkpatch --strict, shellcheck, W=1 + sparse builds
#                   against the test bed's kernels
# make test         the tests, in QEMU, on every kernel of the matrix
# make bench        ipistorm's overhead against a bare call loop (icount)
# make demo         SM_IDLE reproduced on Debian 6.1 against 6.12 in QEMU
# make demo-race    the same two with the vCPUs in parallel: the share of
#                   calls that found the target polling, decomposed
# make clean
# make help         this text

KDIR ?= /lib/modules/$(shell uname -r)/build
KERNELS ?= 6.1 6.12 7.3

all: modules

modules:
	@test -f $(KDIR)/Makefile || { echo "no kernel headers at $(KDIR):" \
		"install linux-headers-$(shell uname -r), or build against" \
		"another tree with KDIR=..." >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

clean:
	if [ -d $(KDIR) ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	rm -rf build

check:
	KERNELS="$(KERNELS)" scripts/check.sh

test:
	vm/test.sh $(KERNELS)

bench:
	vm/bench.sh $(KERNELS)

demo:
	vm/demo.sh

demo-race:
	RACE=1 vm/demo.sh

help:
	@sed -n '3,/^$$/ s/^# \{0,1\}//p' $(firstword $(MAKEFILE_LIST))

.PHONY: all modules clean check test bench demo demo-race help
