// SPDX-License-Identifier: GPL-2.0
/*
 * na_scope.c - which tasks may be placed
 *
 * Rules, one per write to `scope`:
 *   include|exclude pid|comm|cgroup VALUE
 *   clear
 * Without rules every task is in scope.  With include rules a task must
 * match one; it must match no exclude rule.  `pid` matches a thread's id
 * or its process's.  `cgroup` matches a cgroup (v2) and everything below
 * it: the path is looked up once a round (na_scope_resolve), so a rule
 * may name a cgroup that does not exist yet, or one made again after it
 * was removed, and each task is then matched with cgroup_is_descendant()
 * under RCU, with no path built and no lock taken per task.
 *
 * Everything here is under the engine's mutex.
 */
#include <linux/cgroup.h>
#include <linux/err.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "numa_advise.h"

static void na_rule_put(struct na_rule *rule)
{
	if (rule->cgrp)
		cgroup_put(rule->cgrp);
	rule->cgrp = NULL;
}

/*
 * na_scope_resolve - the cgroup of every cgroup rule as its path names
 * it now; NULL where there is none (the rule matches nothing).  Called by
 * the engine thread at the start of each round: cgroup_get_from_path()
 * looks the path up in the caller's cgroup namespace, and the engine's
 * is the init one, as the paths in `scope` are.
 */
void na_scope_resolve(struct na_scope *sc)
{
	int i;

	for (i = 0; i < sc->nr; i++) {
		struct na_rule *rule = &sc->rules[i];
		struct cgroup *cgrp;

		if (rule->kind != NA_RULE_CGROUP)
			continue;
		cgrp = cgroup_get_from_path(rule->str);
		na_rule_put(rule);
		rule->cgrp = IS_ERR(cgrp) ? NULL : cgrp;
	}
}

/* na_scope_clear - no rules; every reference they held dropped */
void na_scope_clear(struct na_scope *sc)
{
	while (sc->nr)
		na_rule_put(&sc->rules[--sc->nr]);
}

/* na_cgroup_match - is the task of @r in @cgrp or below it? */
static bool na_cgroup_match(const struct na_rec *r, struct cgroup *cgrp)
{
	struct task_struct *p;
	bool match = false;

	if (!cgrp)
		return false;
	rcu_read_lock();
	/* Our pids are global ones: not the caller's namespace's. */
	p = pid_task(find_pid_ns(r->pid, &init_pid_ns), PIDTYPE_PID);
	if (p && (unsigned long)p == r->pub->v.key)
		match = cgroup_is_descendant(task_dfl_cgroup(p), cgrp);
	rcu_read_unlock();
	return match;
}

static bool na_rule_match(const struct na_rule *rule, const struct na_rec *r,
			  const struct na_task *t)
{
	switch (rule->kind) {
	case NA_RULE_PID:
		return rule->pid == t->pid || rule->pid == t->tgid;
	case NA_RULE_COMM:
		return !strncmp(rule->str, t->comm, TASK_COMM_LEN);
	case NA_RULE_CGROUP:
		return na_cgroup_match(r, rule->cgrp);
	case NA_NR_RULE_KINDS:
		break;
	}
	return false;
}

bool na_in_scope(const struct na_scope *sc, const struct na_rec *r,
		 const struct na_task *t)
{
	bool included = false, any_include = false;
	int i;

	for (i = 0; i < sc->nr; i++) {
		const struct na_rule *rule = &sc->rules[i];

		if (rule->include) {
			any_include = true;
			if (!included)
				included = na_rule_match(rule, r, t);
		} else if (na_rule_match(rule, r, t)) {
			return false;
		}
	}
	return !any_include || included;
}

void na_scope_show(const struct na_scope *sc, struct seq_file *m)
{
	int i;

	for (i = 0; i < sc->nr; i++) {
		const struct na_rule *rule = &sc->rules[i];

		seq_printf(m, "%s %s ", rule->include ? "include" : "exclude",
			   na_rule_kinds[rule->kind]);
		if (rule->kind == NA_RULE_PID)
			seq_printf(m, "%d\n", rule->pid);
		else
			seq_printf(m, "%s\n", rule->str);
	}
}

/* na_scope_parse - @buf as a rule into @rule; -EINVAL if it is not one */
static int na_scope_parse(char *buf, struct na_rule *rule)
{
	char *verb = strsep(&buf, " "), *kind = strsep(&buf, " ");
	int k;

	memset(rule, 0, sizeof(*rule));
	if (!strcmp(verb, "include"))
		rule->include = true;
	else if (strcmp(verb, "exclude"))
		return -EINVAL;
	k = kind ? match_string(na_rule_kinds, NA_NR_RULE_KINDS, kind) :
		   -EINVAL;
	if (k < 0 || !buf || !*buf || strchr(buf, ' '))
		return -EINVAL;
	rule->kind = k;
	switch (rule->kind) {
	case NA_RULE_PID:
		if (kstrtoint(buf, 10, &rule->pid) || rule->pid <= 0)
			return -EINVAL;
		break;
	case NA_RULE_COMM:
		if (strlen(buf) >= TASK_COMM_LEN)
			return -EINVAL;
		strscpy(rule->str, buf, sizeof(rule->str));
		break;
	case NA_RULE_CGROUP:
		/* "/" or a path without a trailing "/", as cgroup_path() gives */
		if (buf[0] != '/' || (buf[1] && buf[strlen(buf) - 1] == '/') ||
		    strscpy(rule->str, buf, sizeof(rule->str)) < 0)
			return -EINVAL;
		break;
	case NA_NR_RULE_KINDS:
		return -EINVAL;
	}
	return 0;
}

static bool na_rule_same(const struct na_rule *a, const struct na_rule *b)
{
	return a->include == b->include && a->kind == b->kind &&
	       a->pid == b->pid && !strcmp(a->str, b->str);
}

/*
 * na_scope_write - one line written to `scope`: a rule added (once), or
 * "clear".  A line that is neither changes nothing: -EINVAL; a rule more
 * than NA_MAX_RULES: -ENOSPC.
 */
int na_scope_write(struct na_scope *sc, char *line)
{
	struct na_rule rule;
	int i, ret;

	if (!strcmp(line, "clear")) {
		na_scope_clear(sc);
		return 0;
	}
	ret = na_scope_parse(line, &rule);
	if (ret)
		return ret;
	for (i = 0; i < sc->nr; i++)
		if (na_rule_same(&sc->rules[i], &rule))
			return 0;
	if (sc->nr == NA_MAX_RULES)
		return -ENOSPC;
	/* its cgroup is looked up by the next round, in the engine thread */
	sc->rules[sc->nr++] = rule;
	return 0;
}
