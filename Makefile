# SPDX-License-Identifier: GPL-2.0
#
# numa_advise - top-level targets
#
#   make demo    install what is missing, build, boot a 4-node guest, load
#                the module, run a mixed workload, show its tables
#   make check   every test: unit, module builds (W=1), guests on each kernel
#   make module  build the module against KDIR (default: the running kernel)
#   make tool    build tools/numa-advise-ctl
#
KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build

all: module tool

module:
	$(MAKE) -C module KDIR=$(KDIR)

tool:
	$(MAKE) -C tools

deps:
	scripts/install-deps.sh

check: deps
	tests/run.sh

demo: deps
	tests/demo.sh $(DEMO_KVER)  # default: the newest kernel

clean:
	$(MAKE) -C module KDIR=$(KDIR) clean 2>/dev/null || true
	$(MAKE) -C tools clean
	rm -rf build

.PHONY: all module tool deps check demo clean
