// SPDX-License-Identifier: GPL-2.0
/*
 * numa_advise - tracepoint-driven NUMA residency statistics and placement
 *
 * Hooks the scheduler's sched_switch and sched_migrate_task tracepoints and
 * keeps, for every task, the time it spent on CPUs of each NUMA node and how
 * often it migrated (and across nodes); for every node, its busy, idle and
 * waiting time; and, for every probe, what the probe itself cost.  From
 * these and from where each process's pages are, a kernel thread works out
 * where each task or process belongs under a policy, shows that advice
 * and, when told to enforce it, narrows CPU affinity, putting every mask
 * back when told to stop or unloaded.  Everything is shown under
 * /sys/kernel/debug/numa_advise/.
 *
 * This file holds the module's parameters, its state, and load and
 * unload; numa_advise.h says where everything else is.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/nodemask.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "numa_advise.h"

#define CREATE_TRACE_POINTS
#include "na_trace.h"

/*
 * The module's state, one of each, passed to everything that uses it.
 * The mutexes are ready before init: module parameters given at load are
 * set before na_init() runs.
 */
static struct na_obs na_obs = {
	.reset_lock = __MUTEX_INITIALIZER(na_obs.reset_lock),
	.tp_lock = __MUTEX_INITIALIZER(na_obs.tp_lock),
};

#define NA_TUN_DEFAULT(name, def, lo, hi, desc)	.name = def,
static struct na_engine na_eng = {
	.lock = __MUTEX_INITIALIZER(na_eng.lock),
	.policy = NA_POLICY_NONE,
	.mode = NA_MODE_ADVISE,
	.tun = { NA_UINT_PARAMS(NA_TUN_DEFAULT) },
};

/* ------------------------------------------------------------------ */
/* Parameters                                                          */

/*
 * Until the module is up, a bad value is a modprobe line or a file in
 * /etc/modprobe.d: say what is wrong.  Afterwards a refused write to
 * /sys/module/numa_advise/parameters/ gets -EINVAL and nothing in the log.
 * Set once, at the end of na_init(); a parameter write may race it (the
 * parameter files exist before na_init() runs), hence the _ONCE accesses:
 * either answer is right for a write that comes at that moment.
 */
static bool na_live;

/*
 * na_param_uint - a number from @lo to @hi, set by the kernel's own
 * param_set_uint_minmax(): an aligned plain store of an unsigned int,
 * under the parameter code's lock; the engine reads the value with
 * READ_ONCE() and acts on the one it read
 */
static int na_param_uint(const char *val, const struct kernel_param *kp,
			 unsigned int lo, unsigned int hi)
{
	if (param_set_uint_minmax(val, kp, lo, hi)) {
		if (!READ_ONCE(na_live))
			pr_err("%s must be a number from %u to %u\n",
			       kp->name, lo, hi);
		return -EINVAL;
	}
	return 0;
}

#define NA_UINT_PARAM(name, def, lo, hi, desc, var, perm)		\
	static int na_set_##name(const char *val,			\
				 const struct kernel_param *kp)		\
	{								\
		return na_param_uint(val, kp, lo, hi);			\
	}								\
	static const struct kernel_param_ops na_##name##_ops = {	\
		.set = na_set_##name,					\
		.get = param_get_uint,					\
	};								\
	module_param_cb(name, &na_##name##_ops, &(var), perm);		\
	MODULE_PARM_DESC(name, desc " (" #lo ".." #hi ", default " #def ")")

static unsigned int na_max_tasks = 8192;
NA_UINT_PARAM(max_tasks, 8192, 16, 1048576,
	      "Tasks tracked at once; their memory is reserved at load",
	      na_max_tasks, 0444);

/*
 * lean: the switch probe detached (na_obs_set_lean()), changed at load or
 * at any time; 0 or 1, as the kernel's own switches are written.
 */
static int na_lean_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v > 1) {
		if (!READ_ONCE(na_live))
			pr_err("lean must be 0 or 1\n");
		return -EINVAL;
	}
	return na_obs_set_lean(&na_obs, v);
}

static int na_lean_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(na_obs.lean));
}

static const struct kernel_param_ops na_lean_ops = {
	.set = na_lean_set,
	.get = na_lean_get,
};
module_param_cb(lean, &na_lean_ops, NULL, 0644);
MODULE_PARM_DESC(lean,
		 "Lean mode: 1 runs no code of ours in a context switch; residency stays exact, CPUs' wait and switch counts stop (0..1, default 0)");

#define NA_TUN_PARAM(name, def, lo, hi, desc)				\
	NA_UINT_PARAM(name, def, lo, hi, desc, na_eng.tun.name, 0644);
NA_UINT_PARAMS(NA_TUN_PARAM)

/* A name out of a list: the policy and the mode. */
struct na_choice_param {
	int *cur;
	const char *const *names;
	int nr;
};

static int na_choice_set(const char *val, const struct kernel_param *kp)
{
	const struct na_choice_param *c = kp->arg;
	int i = __sysfs_match_string(c->names, c->nr, val);

	if (i < 0) {
		if (!READ_ONCE(na_live))
			pr_err("%s must be one of: %s, %s%s%s\n", kp->name,
			       c->names[0], c->names[1], c->nr > 2 ? ", " : "",
			       c->nr > 2 ? c->names[2] : "");
		return -EINVAL;
	}
	return na_engine_set(&na_eng, c->cur, i, READ_ONCE(na_live));
}

static int na_choice_get(char *buf, const struct kernel_param *kp)
{
	const struct na_choice_param *c = kp->arg;

	return sysfs_emit(buf, "%s\n", c->names[READ_ONCE(*c->cur)]);
}

static const struct kernel_param_ops na_choice_ops = {
	.set = na_choice_set,
	.get = na_choice_get,
};

static struct na_choice_param na_policy_param = {
	&na_eng.policy, na_policy_names, NA_NR_POLICIES
};
module_param_cb(policy, &na_choice_ops, &na_policy_param, 0644);
MODULE_PARM_DESC(policy,
		 "Placement policy: none (observe only, default), home or distance");

static struct na_choice_param na_mode_param = {
	&na_eng.mode, na_mode_names, NA_NR_MODES
};
module_param_cb(mode, &na_choice_ops, &na_mode_param, 0644);
MODULE_PARM_DESC(mode,
		 "advise (default): only recommend; enforce: narrow CPU affinity to the advice");

/* ------------------------------------------------------------------ */
/* Load and unload                                                     */

static int __init na_init(void)
{
	int ret;

	/* before reserving anything: a kernel without our tracepoints */
	ret = na_obs_check();
	if (ret)
		return ret;
	ret = na_obs_alloc(&na_obs, na_max_tasks);
	if (ret)
		return ret;
	ret = na_engine_alloc(&na_eng, &na_obs);
	if (ret)
		goto free_obs;
	ret = na_obs_attach(&na_obs);
	if (ret)
		goto free_engine;
	ret = na_engine_start(&na_eng);
	if (ret)
		goto detach_probes;
	/*
	 * debugfs last: once a file can be opened, the load must not fail
	 * (an open file pins the module, which a failed load frees anyway).
	 */
	ret = na_debugfs_create(&na_eng);
	if (ret)
		goto stop_engine;

	WRITE_ONCE(na_live, true);
	pr_info("version %s loaded: %u nodes, %u CPUs, up to %u tasks (%zu KiB), policy %s, mode %s%s\n",
		NA_VERSION, num_online_nodes(), num_online_cpus(),
		na_obs.max_tasks, (na_obs.mem_bytes + na_eng.mem_bytes) >> 10,
		na_policy_names[na_eng.policy], na_mode_names[na_eng.mode],
		READ_ONCE(na_obs.lean) ? ", lean" : "");
	return 0;

stop_engine:
	na_engine_stop(&na_eng);
	na_engine_restore(&na_eng);
detach_probes:
	na_obs_detach(&na_obs);
	na_engine_restore(&na_eng);
free_engine:
	na_engine_free(&na_eng);
free_obs:
	na_obs_free(&na_obs);
	return ret;
}

static void __exit na_exit(void)
{
	/* Readers first: removal waits for any file operation in progress. */
	na_debugfs_remove(&na_eng);
	na_engine_stop(&na_eng);
	/*
	 * Masks back while the fork probe still marks the children of placed
	 * tasks, then once more for those forked meanwhile.
	 */
	na_engine_restore(&na_eng);
	na_obs_detach(&na_obs);
	na_engine_restore(&na_eng);
	na_engine_free(&na_eng);
	na_obs_free(&na_obs);
	pr_info("unloaded\n");
}

module_init(na_init);
module_exit(na_exit);

MODULE_AUTHOR("The numa_advise authors");
MODULE_DESCRIPTION("Tracepoint-driven per-task NUMA residency statistics and placement advice");
MODULE_LICENSE("GPL");
MODULE_VERSION(NA_VERSION);
