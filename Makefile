# SPDX-License-Identifier: GPL-2.0
#
# numa_advise - top-level targets
#
#   make demo    install what is missing, build, boot a 4-node guest, load
#                the module, run a mixed workload, show its tables
#   make check   every test: unit, module builds (W=1), guests on each kernel
#   make check-stress  the long tier: churn, hostile writers and the fuzzed
#                tool for STRESS_MINUTES (default 10) in a guest per kernel
#   make check-debug  the guest suite on debug kernels (lockdep, KASAN,
#                kmemleak, atomic sleep; and KCSAN), built once per machine
#   make repro-stall  the stalled-job repro (issue 17), arm by arm
#   make module  build the module against KDIR (default: the running kernel)
#   make tool    build tools/numa-advise-ctl
#   make install register the module with DKMS and build it for KVERS;
#                install the tool, its man page and completion under PREFIX
#   make uninstall  undo make install
#   make deb     build the Debian package numa-advise-dkms under build/deb
#   make bench   the benchmarks (bench/run.sh), results in bench/results
#
KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
PREFIX ?= /usr/local
# The one version, read by the module's Kbuild, the tool and debian/rules too.
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' dkms.conf)
# DKMS keeps module sources under /usr/src whatever PREFIX is.
DKMS_SRC := /usr/src/numa_advise-$(VERSION)
MODULE_SRC := dkms.conf module/Kbuild module/Makefile $(wildcard module/*.[ch])
# Kernels to build for at install: every one with headers (as DKMS's own
# Debian postinst does on a first install), unless given.
KVERS ?= $(notdir $(patsubst %/build,%,$(wildcard /lib/modules/*/build)))

all: module tool

module:
	$(MAKE) -C module KDIR=$(KDIR)

tool:
	$(MAKE) -C tools

deps:
	scripts/install-deps.sh

check: deps
	tests/run.sh

# The reliability cases turned up (tests/stress.sh): about STRESS_MINUTES*3
# + 10 minutes, the kernels side by side.
STRESS_MINUTES ?= 10
check-stress: deps
	tests/stress.sh -m $(STRESS_MINUTES)

# The guest suite on two debug kernels, 6.1 from linux-source: one with
# lockdep, KASAN, kmemleak and the atomic-sleep check, one with KCSAN; any
# report of theirs that involves the module fails it.  Each kernel is
# built the first time (scripts/debug-kernel.sh, about 14 minutes each on
# 2 cores here) and kept in NA_CACHE (default /var/cache/numa_advise/
# debug-kernel); their guests are 5 to 10 times slower than make check's.
check-debug:
	scripts/install-deps.sh debug
	lockdep=$$(scripts/debug-kernel.sh lockdep) && kcsan=$$(scripts/debug-kernel.sh kcsan) && \
		NA_BUILD=$(CURDIR)/build/debug tests/run.sh -K "$$lockdep" -K "$$kcsan" -s guest -s topo8

# The stalled-job repro of issue 17 (tests/repro-stall.sh): about 25
# minutes an arm, two at a time; REPRO_ARGS passes -n, -a, -k, -j.
repro-stall: deps
	tests/repro-stall.sh $(REPRO_ARGS)

demo: deps
	tests/demo.sh $(DEMO_KVER)  # default: the newest kernel

# What it costs and what it gains, against the peers; results in
# bench/results (17 to 20 minutes here).
bench:
	scripts/install-deps.sh bench
	bench/run.sh $(if $(BENCH_ROUNDS),-r $(BENCH_ROUNDS))

# With DESTDIR (staging, packaging) only the files are installed; on the
# live system the source is also registered with DKMS and built.  Installing
# again replaces what an earlier make install of this version put there.
DKMS_REGISTERED = dkms status -m numa_advise -v $(VERSION) | grep -q .

install: tool
ifeq ($(DESTDIR),)
	@command -v dkms >/dev/null || \
		{ echo "make install needs dkms (apt-get install dkms)" >&2; exit 1; }
	if $(DKMS_REGISTERED); then dkms remove -m numa_advise -v $(VERSION) --all; fi
endif
	$(MAKE) -C tools install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	rm -rf $(DESTDIR)$(DKMS_SRC)
	install -d $(DESTDIR)$(DKMS_SRC)/module
	install -m 0644 dkms.conf $(DESTDIR)$(DKMS_SRC)/
	install -m 0644 $(filter module/%,$(MODULE_SRC)) $(DESTDIR)$(DKMS_SRC)/module/
ifeq ($(DESTDIR),)
	dkms add -m numa_advise -v $(VERSION)
	set -e; for k in $(KVERS); do \
		dkms install -m numa_advise -v $(VERSION) -k $$k; done
endif

uninstall:
ifeq ($(DESTDIR),)
	if command -v dkms >/dev/null && $(DKMS_REGISTERED); then \
		dkms remove -m numa_advise -v $(VERSION) --all; fi
endif
	rm -rf $(DESTDIR)$(DKMS_SRC)
	$(MAKE) -C tools uninstall PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

# The package is built from a copy of the tree, so that neither the tree
# nor its parent directory collects build files.
deb:
	rm -rf build/deb && mkdir -p build/deb/numa-advise-$(VERSION)
	tar -c --exclude=./build --exclude-vcs . | tar -x -C build/deb/numa-advise-$(VERSION)
	cd build/deb/numa-advise-$(VERSION) && dpkg-buildpackage -b -us -uc
	@ls build/deb/*.deb

clean:
	$(MAKE) -C module KDIR=$(KDIR) clean 2>/dev/null || true
	$(MAKE) -C tools clean
	rm -rf build

.PHONY: all module tool deps check check-stress check-debug repro-stall demo bench install uninstall deb clean
