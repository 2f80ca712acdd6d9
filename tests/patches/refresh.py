#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""refresh.py - make tests/patches/*.patch again from module/, each from
the edit below: after a change to module/, a patch whose context moved
no longer applies.  Each edit replaces one exact text, found once."""
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PATCHES = {
    "planted": ("""tests/plant.sh: two faults the guest suite must catch - a refused write to
a parameter that still changes the number, and a WARN in the middle of
the reset case.
""", [
        ("na_main.c", """	if (param_set_uint_minmax(val, kp, lo, hi)) {
""", """	if (param_set_uint_minmax(val, kp, lo, hi)) {
		unsigned int n;

		/* planted: a refused write that changes the number */
		if (!kstrtouint(val, 0, &n))
			WRITE_ONCE(*(unsigned int *)kp->arg, n);
"""),
        ("na_debugfs.c", """	na_obs_reset(e->obs);
""", """	/* planted: a warning in the middle of a case */
	WARN_ONCE(1, "numa_advise: planted warning (tests/plant.sh)\\n");
	na_obs_reset(e->obs);
"""),
    ]),
    "broken": ("""tests/plant.sh: a module that does not build.
""", [
        ("na_main.c", """#define CREATE_TRACE_POINTS""",
         """#error "planted: a build that fails (tests/plant.sh)"

#define CREATE_TRACE_POINTS"""),
    ]),
    "missing-tp": ("""tests/run.sh: a build that asks for a tracepoint the kernel lacks, for the
guest case that shows the load refused.
""", [
        ("na_obs.c", """	{ "sched_migrate_task", na_probe_migrate },
""", """	{ "sched_migrate_task", na_probe_migrate },
	/* test build: a tracepoint no kernel has refuses the load */
	{ "numa_advise_test_missing", na_probe_free },
"""),
    ]),
    "leak": ("""tests/run.sh: a build that loses one allocation at load (in na_test_leak,
the name the kmemleak_caught case looks for), on a kernel with kmemleak,
to show that kmemleak's reports of this module are caught.
""", [
        ("na_main.c", "#include <linux/nodemask.h>\n",
         "#include <linux/nodemask.h>\n#include <linux/slab.h>\n"),
        ("na_main.c", """static int __init na_init(void)
{""", """/* test build: lose one allocation, for kmemleak to report */
static noinline void na_test_leak(void)
{
	if (!kmalloc(40, GFP_KERNEL))
		pr_warn("test build: nothing to leak\\n");
}

static int __init na_init(void)
{"""),
        ("na_main.c", """	WRITE_ONCE(na_live, true);
""", """	WRITE_ONCE(na_live, true);
	na_test_leak();
"""),
    ]),
    "no-mem-sample": ("""tests/repro-stall.sh: a build that never samples where memory is, an arm
of the stalled-job repro.
""", [
        ("na_engine.c", """	bool due = false;

	for (i = 0; i < n; i++) {""", """	bool due = false;

	/* test build: an arm of tests/repro-stall.sh, nothing sampled */
	return;
	for (i = 0; i < n; i++) {"""),
    ]),
    "empty-probes": ("""bench/run.sh: probes that do nothing on sched_switch, sched_migrate_task
and sched_process_fork (sched_process_free still frees, so nothing is
left behind), to count what the tracepoints' calls cost by themselves.
""", [
        ("na_obs.c", """static struct na_tracepoint {""", """/* bench build: probes that do nothing, to count the tracepoints' own calls */
static void na_empty_switch(void *data, bool preempt, struct task_struct *prev,
			    struct task_struct *next, unsigned int prev_state)
{
}

static void na_empty_migrate(void *data, struct task_struct *p, int dest_cpu)
{
}

static void na_empty_fork(void *data, struct task_struct *parent,
			  struct task_struct *child)
{
}

static struct na_tracepoint {"""),
        ("na_obs.c", """{ "sched_process_fork", na_probe_fork },""",
         """{ "sched_process_fork", na_empty_fork },"""),
        ("na_obs.c", """{ "sched_migrate_task", na_probe_migrate },""",
         """{ "sched_migrate_task", na_empty_migrate },"""),
        ("na_obs.c", """{ "sched_switch", na_probe_switch },""",
         """{ "sched_switch", na_empty_switch },"""),
    ]),
}

tmp = tempfile.mkdtemp()
bad = 0
for name, (header, edits) in PATCHES.items():
    for side in ("a", "b"):
        shutil.rmtree(os.path.join(tmp, side), ignore_errors=True)
        shutil.copytree(os.path.join(TOP, "module"), os.path.join(tmp, side, "module"))
    for f, old, new in edits:
        p = os.path.join(tmp, "b", "module", f)
        s = open(p).read()
        if s.count(old) != 1:
            print("refresh.py: %s: the text to replace in %s is there %d times: %r"
                  % (name, f, s.count(old), old[:60]), file=sys.stderr)
            bad = 1
            continue
        open(p, "w").write(s.replace(old, new))
    diff = subprocess.run(["diff", "-ru", "a/module", "b/module"], cwd=tmp,
                          capture_output=True, text=True).stdout
    diff = "".join(l.split("\t")[0] + "\n" if l.startswith(("--- ", "+++ ")) else l
                   for l in diff.splitlines(True))
    with open(os.path.join(TOP, "tests", "patches", name + ".patch"), "w") as f:
        f.write(header + diff)
shutil.rmtree(tmp)
sys.exit(bad)
