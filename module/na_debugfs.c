// SPDX-License-Identifier: GPL-2.0
/*
 * na_debugfs.c - every file under /sys/kernel/debug/numa_advise/
 *
 * Each file is a table whose first line names its columns.  Each gets the
 * engine as its inode's private data.  A write that is not exactly one
 * accepted value gets -EINVAL and changes nothing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/math64.h>
#include <linux/nodemask.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "numa_advise.h"

const char *const na_policy_names[NA_NR_POLICIES] = NA_NAME_TABLE(NA_POLICIES);
const char *const na_mode_names[NA_NR_MODES] = NA_NAME_TABLE(NA_MODES);
const char *const na_class_names[NA_NR_CLASSES + 1] = {
	NA_CLASSES(NA_NAME_OF)
	[NA_NR_CLASSES] = "-",
};
const char *const na_reason_names[NA_NR_REASONS] = NA_NAME_TABLE(NA_REASONS);
const char *const na_skip_names[NA_NR_SKIPS] = NA_NAME_TABLE(NA_SKIPS);
const char *const na_probe_names[NA_NR_PROBES] = NA_NAME_TABLE(NA_PROBES);
const char *const na_rule_kinds[NA_NR_RULE_KINDS] = NA_NAME_TABLE(NA_RULE_KINDS);

/* ------------------------------------------------------------------ */
/* Pieces of rows                                                      */

static void na_print_node_header(struct seq_file *m, const char *fmt)
{
	int n;

	for_each_online_node(n)
		seq_printf(m, fmt, n);
}

/* na_seq_task - "pid tgid comm", the first columns of a task's row */
static void na_seq_task(struct seq_file *m, struct na_task *t)
{
	seq_printf(m, "%d %d ", t->pid, t->tgid);
	/* Whitespace-separated table: escape it in names, as /proc/mounts does. */
	t->comm[TASK_COMM_LEN - 1] = '\0';
	seq_escape(m, t->comm[0] ? t->comm : "-", " \t\n\\");
}

/* na_seq_node - a node number, or "-" for none */
static void na_seq_node(struct seq_file *m, int node)
{
	if (node < 0)
		seq_puts(m, " -");
	else
		seq_printf(m, " %d", node);
}

/* na_seq_nodes - a set of nodes as a list ("0-3"), "-" if empty */
static void na_seq_nodes(struct seq_file *m, u64 nodes)
{
	DECLARE_BITMAP(bits, NA_MAX_NODES);

	bitmap_from_u64(bits, nodes);
	if (nodes)
		seq_printf(m, " %*pbl", NA_MAX_NODES, bits);
	else
		seq_puts(m, " -");
}

/* ------------------------------------------------------------------ */
/* tasks: one row per tracked thread, without the engine's mutex       */

struct na_tasks_file {
	struct na_obs *obs;
	struct na_task *snap;
};

static void *na_tasks_start(struct seq_file *m, loff_t *pos)
{
	struct na_tasks_file *f = m->private;
	unsigned long s;

	if (*pos == 0)
		return SEQ_START_TOKEN;
	s = na_next_slot(f->obs, *pos - 1);
	if (s >= f->obs->max_tasks)
		return NULL;
	*pos = s + 1;
	return na_slot(f->obs, s);
}

static void *na_tasks_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct na_tasks_file *f = m->private;
	unsigned long s = v == SEQ_START_TOKEN ? 0 :
			  na_slot_index(f->obs, v) + 1;

	s = na_next_slot(f->obs, s);
	*pos = s + 1;
	return s < f->obs->max_tasks ? na_slot(f->obs, s) : NULL;
}

static void na_tasks_stop(struct seq_file *m, void *v)
{
}

static int na_tasks_show(struct seq_file *m, void *v)
{
	struct na_tasks_file *f = m->private;
	struct na_task *t = f->snap;
	int n, home = -1, mem = -1;
	struct na_pub_val pub;
	u64 runtime = 0;
	u32 s;

	if (v == SEQ_START_TOKEN) {
		seq_puts(m, "pid tgid comm runtime_ns");
		na_print_node_header(m, " node%d_ns");
		seq_puts(m, " migrations xnode_migrations home mem\n");
		return 0;
	}
	s = na_slot_index(f->obs, v);
	/* What it ran since it was last charged is added by the read. */
	if (!na_task_read(f->obs, s, t))
		return 0;
	/* The engine's view, if it has seen this owner of the slot yet. */
	na_pub_read(&f->obs->pub[s], &pub);
	if (pub.key == t->key && pub.born == t->born) {
		home = pub.home;
		mem = pub.mem;
	}

	for_each_online_node(n)
		runtime += t->node_ns[n];
	na_seq_task(m, t);
	seq_printf(m, " %llu", runtime);
	for_each_online_node(n)
		seq_printf(m, " %llu", t->node_ns[n]);
	seq_printf(m, " %llu %llu", t->migrations, t->xnode_migrations);
	na_seq_node(m, home);
	na_seq_node(m, mem);
	seq_putc(m, '\n');
	return 0;
}

static const struct seq_operations na_tasks_sops = {
	.start = na_tasks_start,
	.next = na_tasks_next,
	.stop = na_tasks_stop,
	.show = na_tasks_show,
};

static int na_tasks_open(struct inode *inode, struct file *file)
{
	struct na_engine *e = inode->i_private;
	struct na_tasks_file *f;

	f = __seq_open_private(file, &na_tasks_sops, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->obs = e->obs;
	f->snap = na_task_alloc(f->obs);
	if (!f->snap) {
		seq_release_private(inode, file);
		return -ENOMEM;
	}
	return 0;
}

static int na_tasks_release(struct inode *inode, struct file *file)
{
	struct na_tasks_file *f = ((struct seq_file *)file->private_data)->private;

	kfree(f->snap);
	return seq_release_private(inode, file);
}

static const struct file_operations na_tasks_fops = {
	.owner = THIS_MODULE,
	.open = na_tasks_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = na_tasks_release,
};

/* ------------------------------------------------------------------ */
/* nodes, overhead, advice, status                                     */

static int na_nodes_show(struct seq_file *m, void *v)
{
	struct na_engine *e = m->private;
	struct na_obs *o = e->obs;
	bool lean = READ_ONCE(o->lean);
	int n, cpu;

	seq_puts(m, "node cpus busy_ns idle_ns wait_ns switches util_pm runnable_pm class\n");
	mutex_lock(&e->lock);
	for_each_online_node(n) {
		const struct na_node *nd = &e->nodes[n];
		struct na_cpu_totals sum = { 0 }, tot;

		/* Offline CPUs too: what they did before still counts. */
		for_each_possible_cpu(cpu) {
			if (per_cpu_ptr(o->cpus, cpu)->node != n)
				continue;
			na_cpu_totals(o, cpu, &tot);
			sum.busy += tot.busy;
			sum.idle += tot.idle;
			sum.wait += tot.wait;
			sum.switches += tot.switches;
		}
		seq_printf(m, "%d %*pbl %llu %llu", n,
			   cpumask_pr_args(cpumask_of_node(n)), sum.busy,
			   sum.idle);
		/* In lean mode no switch is seen: no count to show. */
		if (lean)
			seq_puts(m, " - -");
		else
			seq_printf(m, " %llu %llu", sum.wait, sum.switches);
		/* Per-mille of the node's capacity, decayed, as classified. */
		if (nd->cap)
			seq_printf(m, " %llu %llu %s\n",
				   div_u64((u64)nd->util * 1000, nd->cap),
				   div_u64((u64)nd->runnable * 1000, nd->cap),
				   na_class_names[nd->cls]);
		else
			seq_puts(m, " - - -\n");
	}
	mutex_unlock(&e->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(na_nodes);

static int na_overhead_show(struct seq_file *m, void *v)
{
	struct na_engine *e = m->private;
	struct na_probe_cost *sum, *c;
	int cpu, p, b;

	c = kmalloc_array(NA_NR_PROBES, sizeof(*c), GFP_KERNEL);
	sum = kcalloc(NA_NR_PROBES, sizeof(*sum), GFP_KERNEL);
	if (!c || !sum) {
		kfree(c);
		kfree(sum);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		struct na_cpu_totals tot;

		/* The switch probe counts its calls as the CPU's switches. */
		na_cpu_totals(e->obs, cpu, &tot);
		sum[NA_PROBE_SWITCH].calls += tot.switches;
		if (!na_cpu_read(e->obs, cpu, c, offsetof(struct na_cpu, cost),
				 NA_NR_PROBES * sizeof(*c)))
			continue;
		for (p = 0; p < NA_NR_PROBES; p++) {
			sum[p].calls += c[p].calls;
			sum[p].timed += c[p].timed;
			sum[p].sum_ns += c[p].sum_ns;
			sum[p].max_ns = max(sum[p].max_ns, c[p].max_ns);
			for (b = 0; b < NA_HIST_BUCKETS; b++)
				sum[p].hist[b] += c[p].hist[b];
		}
	}
	seq_puts(m, "probe calls mean_ns p50_ns p99_ns max_ns timed\n");
	for (p = 0; p < NA_NR_PROBES; p++) {
		const struct na_probe_cost *s = &sum[p];

		seq_printf(m, "%s %llu %llu %llu %llu %llu %llu\n",
			   na_probe_names[p], s->calls,
			   s->timed ? div64_u64(s->sum_ns, s->timed) : 0,
			   na_hist_percentile(s->hist, s->timed, 50, s->max_ns),
			   na_hist_percentile(s->hist, s->timed, 99, s->max_ns),
			   s->max_ns, s->timed);
	}
	kfree(sum);
	kfree(c);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(na_overhead);

/*
 * advice: one row per task the engine judged this round (kernel threads
 * left out): its load (milli-CPUs, running or waiting to), where it runs,
 * where it belongs and why, with the scores (per-mille, distance-weighted
 * under `distance`) the advice came from.
 */
static int na_advice_show(struct seq_file *m, void *v)
{
	struct na_engine *e = m->private;
	struct na_task *t;
	unsigned long s;

	t = kmalloc(e->obs->stride, GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	seq_puts(m, "pid tgid comm load cur target home mem reason cur_score target_score placed\n");
	mutex_lock(&e->lock);
	if (e->policy == NA_POLICY_NONE)
		goto unlock;
	for_each_set_bit(s, e->rec_map, e->obs->max_tasks) {
		struct na_rec *r = na_rec(e, s);

		if (r->skip == NA_SKIP_KTHREAD || !na_task_read(e->obs, s, t) ||
		    t->key != r->pub->v.key || t->born != r->pub->v.born)
			continue;
		na_seq_task(m, t);
		seq_printf(m, " %u", r->load);
		na_seq_nodes(m, r->placed ? r->placed :
				r->cur >= 0 ? 1ULL << r->cur : 0);
		na_seq_nodes(m, r->skip ? 0 : r->target);
		na_seq_node(m, r->pub->v.home);
		na_seq_node(m, r->pub->v.mem);
		seq_printf(m, " %s %u %u",
			   r->skip ? na_skip_names[r->skip] :
				     na_reason_names[r->reason],
			   r->cur_score, r->target_score);
		na_seq_nodes(m, r->placed);
		seq_putc(m, '\n');
		cond_resched();
	}
unlock:
	mutex_unlock(&e->lock);
	kfree(t);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(na_advice);

static int na_status_show(struct seq_file *m, void *v)
{
	struct na_engine *e = m->private;
	const struct na_engine_stats *st = &e->stats;
	struct na_obs *o = e->obs;
	unsigned int placed = 0;
	u64 dropped = 0;
	unsigned long s;
	int cpu;

	seq_puts(m, "key value\n");
	seq_printf(m, "version %s\n", NA_VERSION);
	seq_printf(m, "nodes %u\n", num_online_nodes());
	seq_printf(m, "cpus %u\n", num_online_cpus());
	seq_printf(m, "tracked %d\n", atomic_read(&o->nr_tracked));
	seq_printf(m, "max_tasks %u\n", o->max_tasks);
	for_each_possible_cpu(cpu) {
		u64 d;

		if (na_cpu_read(o, cpu, &d, offsetof(struct na_cpu, dropped),
				sizeof(d)))
			dropped += d;
	}
	seq_printf(m, "dropped %llu\n", dropped);
	seq_printf(m, "unindexed_events %ld\n",
		   atomic_long_read(&o->nr_unindexed));
	seq_printf(m, "reset_generation %u\n", READ_ONCE(o->gen));
	seq_printf(m, "slot_bytes %zu\n", o->stride);
	seq_printf(m, "memory_bytes %zu\n", o->mem_bytes + e->mem_bytes);

	mutex_lock(&e->lock);
	seq_printf(m, "policy %s\n", na_policy_names[e->policy]);
	seq_printf(m, "mode %s\n", na_mode_names[e->mode]);
	seq_printf(m, "lean %d\n", READ_ONCE(o->lean));
	seq_printf(m, "interval_ms %u\n", READ_ONCE(e->tun.interval_ms));
	seq_printf(m, "rounds %llu\n", e->rounds);
	for_each_set_bit(s, e->rec_map, o->max_tasks)
		placed += !!na_rec(e, s)->placed;
	seq_printf(m, "placed %u\n", placed);
	seq_printf(m, "moves %llu\n", st->moves);
	seq_printf(m, "restores %llu\n", st->restores);
	seq_printf(m, "overridden %llu\n", st->overridden);
	seq_printf(m, "apply_errors %llu\n", st->apply_errors);
	seq_printf(m, "refused_gain %llu\n", st->refused[NA_R_GAIN]);
	seq_printf(m, "refused_hold %llu\n", st->refused[NA_R_HOLD]);
	seq_printf(m, "refused_class %llu\n",
		   st->refused[NA_R_OVERLOADED] + st->refused[NA_R_BUSIER]);
	seq_printf(m, "refused_room %llu\n", st->refused[NA_R_NO_ROOM]);
	seq_printf(m, "swaps %llu\n", st->swaps);
	seq_printf(m, "scope_rules %d\n", e->scope.nr);
	mutex_unlock(&e->lock);
	seq_printf(m, "lost_inherit %ld\n",
		   atomic_long_read(&o->nr_lost_inherit));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(na_status);

/* ------------------------------------------------------------------ */
/* Writable files                                                      */

/*
 * na_write_line - copy a one-line write of at most @size - 1 bytes into
 * @buf, without its trailing newline.  Writes at an offset, empty, longer
 * or with a NUL or a second line are refused.
 */
static int na_write_line(char *buf, size_t size, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	if (*ppos != 0 || len == 0 || len >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (buf[len - 1] == '\n')
		buf[--len] = '\0';
	if (!len || strlen(buf) != len || strchr(buf, '\n'))
		return -EINVAL;
	return 0;
}

/*
 * policy and mode: read the setting, write a name to change it.  A read is
 * a seq_file, so that it shows one value even when the setting changes
 * between two read() calls of the same open file.
 */
struct na_choice {
	const char *const *names;
	int nr;
	size_t off;		/* of the setting in struct na_engine */
};

static const struct na_choice na_policy_choice = {
	na_policy_names, NA_NR_POLICIES, offsetof(struct na_engine, policy)
};

static const struct na_choice na_mode_choice = {
	na_mode_names, NA_NR_MODES, offsetof(struct na_engine, mode)
};

static int *na_choice_of(struct na_engine *e, const struct na_choice *c)
{
	return (void *)e + c->off;
}

static ssize_t na_choice_write(struct file *file, const struct na_choice *c,
			       const char __user *ubuf, size_t len,
			       loff_t *ppos)
{
	struct na_engine *e = file_inode(file)->i_private;
	char buf[16];
	int i, ret;

	ret = na_write_line(buf, sizeof(buf), ubuf, len, ppos);
	if (ret)
		return ret;
	i = match_string(c->names, c->nr, buf);
	if (i < 0)
		return -EINVAL;
	ret = na_engine_set(e, na_choice_of(e, c), i, true);
	if (ret)
		return ret;
	*ppos += len;
	return len;
}

static void na_choice_show(struct seq_file *m, const struct na_choice *c)
{
	seq_printf(m, "%s\n", c->names[READ_ONCE(*na_choice_of(m->private, c))]);
}

#define NA_CHOICE_FILE(name)						\
static int na_##name##_show(struct seq_file *m, void *v)		\
{									\
	na_choice_show(m, &na_##name##_choice);				\
	return 0;							\
}									\
static int na_##name##_open(struct inode *inode, struct file *file)	\
{									\
	return single_open(file, na_##name##_show, inode->i_private);	\
}									\
static ssize_t na_##name##_write(struct file *file,			\
				 const char __user *ubuf, size_t len,	\
				 loff_t *ppos)				\
{									\
	return na_choice_write(file, &na_##name##_choice, ubuf, len, ppos); \
}									\
static const struct file_operations na_##name##_fops = {		\
	.owner = THIS_MODULE,						\
	.open = na_##name##_open,					\
	.read = seq_read,						\
	.llseek = seq_lseek,						\
	.write = na_##name##_write,					\
	.release = single_release,					\
}

NA_CHOICE_FILE(policy);
NA_CHOICE_FILE(mode);

/* scope: the rules, one a line; one rule (or "clear") per write */
static int na_scope_file_show(struct seq_file *m, void *v)
{
	struct na_engine *e = m->private;

	mutex_lock(&e->lock);
	na_scope_show(&e->scope, m);
	mutex_unlock(&e->lock);
	return 0;
}

static ssize_t na_scope_file_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	struct na_engine *e = file_inode(file)->i_private;
	char buf[NA_RULE_LEN + 24];
	int ret;

	ret = na_write_line(buf, sizeof(buf), ubuf, len, ppos);
	if (ret)
		return ret;
	mutex_lock(&e->lock);
	ret = na_scope_write(&e->scope, buf);
	if (!ret)
		na_engine_kick(e);
	mutex_unlock(&e->lock);
	if (ret)
		return ret;
	*ppos += len;
	return len;
}

static int na_scope_file_open(struct inode *inode, struct file *file)
{
	return single_open(file, na_scope_file_show, inode->i_private);
}

static const struct file_operations na_scope_fops = {
	.owner = THIS_MODULE,
	.open = na_scope_file_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = na_scope_file_write,
	.release = single_release,
};

/*
 * reset: "1" (with or without a newline) zeroes every counter; anything
 * else, or a write at an offset, is refused and changes nothing.
 */
static ssize_t na_reset_write(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	struct na_engine *e = file_inode(file)->i_private;
	char buf[3] = {};

	if (*ppos != 0 || len == 0 || len > 2)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	if (strlen(buf) != len || (strcmp(buf, "1") && strcmp(buf, "1\n")))
		return -EINVAL;
	na_obs_reset(e->obs);
	*ppos += len;
	return len;
}

static const struct file_operations na_reset_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = na_reset_write,
};

/* ------------------------------------------------------------------ */
/* The directory                                                       */

int na_debugfs_create(struct na_engine *e)
{
	struct dentry *dir = debugfs_create_dir(KBUILD_MODNAME, NULL);

	if (IS_ERR(dir)) {
		pr_err("cannot create debugfs directory: %ld (is debugfs enabled?)\n",
		       PTR_ERR(dir));
		return PTR_ERR(dir);
	}
	e->dir = dir;
	debugfs_create_file("tasks", 0400, dir, e, &na_tasks_fops);
	debugfs_create_file("nodes", 0400, dir, e, &na_nodes_fops);
	debugfs_create_file("overhead", 0400, dir, e, &na_overhead_fops);
	debugfs_create_file("status", 0400, dir, e, &na_status_fops);
	debugfs_create_file("reset", 0200, dir, e, &na_reset_fops);
	debugfs_create_file("advice", 0400, dir, e, &na_advice_fops);
	debugfs_create_file("policy", 0600, dir, e, &na_policy_fops);
	debugfs_create_file("mode", 0600, dir, e, &na_mode_fops);
	debugfs_create_file("scope", 0600, dir, e, &na_scope_fops);
	return 0;
}

/* na_debugfs_remove - waits for any file operation in progress */
void na_debugfs_remove(struct na_engine *e)
{
	debugfs_remove_recursive(e->dir);
}
