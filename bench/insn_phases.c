// SPDX-License-Identifier: GPL-2.0
/*
 * insn_phases - a QEMU TCG plugin that counts the instructions a guest
 * executes, split into phases the guest marks itself.
 *
 * Timings under TCG are noisy and distort the kernel's own path, but the
 * number of instructions a piece of code executes is the same emulated or
 * not.  With the module absent and then loaded, the same benchmark's count
 * of kernel instructions per context switch shows what the probes add, as
 * a real machine would execute it.
 *
 *   qemu-system-x86_64 ... -plugin insn_phases.so,out=FILE,marker=ADDR,count=ADDR
 *
 * marker  guest address of a kernel function the guest calls to end a phase
 *         and start the next (bench/guest-insn.sh: the sethostname syscall,
 *         via `hostname`); with the guest booted nokaslr, System.map's.
 * count   guest address of a function whose calls are counted (__schedule)
 *
 * At each marker, one line is appended to FILE:
 *   phase N insns=ALL kernel=KERNEL user=USER modules=MODULES calls=CALLS
 * counting from the previous marker; MODULES is the part of KERNEL run in
 * the modules' address range (numa_advise's probes, and the 9p modules).  Counting is per translated block: a
 * block adds its length each time it runs (an exception in its middle
 * would count the rest too, which is rare and the same in every phase).
 *
 * Built against QEMU 7.2's plugin API (version 1); the few declarations it
 * uses are in insn_phases.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "insn_phases.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* x86-64: the kernel's half of the address space, and where modules are */
#define KERNEL_START	0xffff800000000000ULL
#define MODULES_START	0xffffffffc0000000ULL
#define MODULES_END	0xffffffffff000000ULL

/* One vCPU runs at a time (single-threaded TCG): plain counters do. */
static uint64_t kernel_insns, user_insns, module_insns, calls;
static uint64_t marker, count_fn;
static unsigned int phase;
static FILE *out;

static void phase_end(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	fprintf(out, "phase %u insns=%" PRIu64 " kernel=%" PRIu64 " user=%" PRIu64
		" modules=%" PRIu64 " calls=%" PRIu64 "\n", phase++,
		kernel_insns + user_insns, kernel_insns, user_insns, module_insns,
		calls);
	fflush(out);
	kernel_insns = user_insns = module_insns = calls = 0;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t va = qemu_plugin_tb_vaddr(tb);

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 va >= KERNEL_START ? &kernel_insns : &user_insns,
						 qemu_plugin_tb_n_insns(tb));
	if (va >= MODULES_START && va < MODULES_END)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
							 &module_insns,
							 qemu_plugin_tb_n_insns(tb));
	if (va == count_fn)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
							 &calls, 1);
	if (va == marker)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, phase_end,
						     QEMU_PLUGIN_CB_NO_REGS, NULL);
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const void *info,
					   int argc, char **argv)
{
	const char *path = NULL;
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
		else if (!strncmp(argv[i], "marker=", 7))
			marker = strtoull(argv[i] + 7, NULL, 0);
		else if (!strncmp(argv[i], "count=", 6))
			count_fn = strtoull(argv[i] + 6, NULL, 0);
		else
			goto usage;
	}
	if (!path || !marker)
		goto usage;
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
usage:
	fprintf(stderr, "insn_phases: out=FILE marker=ADDR [count=ADDR]\n");
	return -1;
}
