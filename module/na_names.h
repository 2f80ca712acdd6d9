/* SPDX-License-Identifier: GPL-2.0 */
/*
 * na_names.h - every name numa_advise shows or accepts, in one place
 *
 * Included by the module, by its trace events (which record the numbers
 * and print the names with __print_symbolic()) and by numa-advise-ctl,
 * so that a name changed here changes everywhere.  Each list is an
 * X-macro: X(ID, "name"), in the order of its enum.  Plain C only: no
 * kernel or libc header is needed.
 */
#ifndef NA_NAMES_H
#define NA_NAMES_H

/* The placement policies: the `policy` file and parameter. */
#define NA_POLICIES(X)							\
	X(NONE, "none")							\
	X(HOME, "home")							\
	X(DISTANCE, "distance")

/* What the engine does with its advice: the `mode` file and parameter. */
#define NA_MODES(X)							\
	X(ADVISE, "advise")						\
	X(ENFORCE, "enforce")

/* A node's class (2020 seed), ordered: a higher class is a busier node. */
#define NA_CLASSES(X)							\
	X(SPARE, "has-spare")						\
	X(BUSY, "fully-busy")						\
	X(OVERLOADED, "overloaded")

/*
 * Why a unit got its advice (the `reason` column of `advice`), then why
 * a mask changed without advice (the `place` event's adopted and
 * restored).
 */
#define NA_REASONS(X)							\
	X(NO_DATA, "too-little-run")					\
	X(MOVE, "move")							\
	X(STAY, "stay")							\
	X(GAIN, "gain-below-threshold")					\
	X(HOLD, "moved-recently")					\
	X(OVERLOADED, "best-node-overloaded")				\
	X(BUSIER, "best-node-busier")					\
	X(NO_ROOM, "no-room")						\
	X(WIDE, "needs-all-nodes")					\
	X(SCATTERED, "scattered")					\
	X(CROWDED, "crowded")						\
	X(SWAP, "swap")							\
	X(ADOPTED, "adopted")						\
	X(RESTORED, "restored")

/* Why a task is never placed: shown as its reason in `advice`. */
#define NA_SKIPS(X)							\
	X(NONE, "-")							\
	X(KTHREAD, "kernel-thread")					\
	X(NO_AFFINITY, "no-affinity")					\
	X(PINNED, "pinned")						\
	X(EXCLUDED, "excluded")

/* The probes, as the `overhead` table names them. */
#define NA_PROBES(X)							\
	X(SWITCH, "sched_switch")					\
	X(MIGRATE, "sched_migrate_task")				\
	X(FREE, "sched_process_free")					\
	X(FORK, "sched_process_fork")

/* Scope rules: include|exclude KIND VALUE. */
#define NA_RULE_KINDS(X)						\
	X(PID, "pid")							\
	X(COMM, "comm")							\
	X(CGROUP, "cgroup")

/*
 * The module parameters that can change while it runs:
 * X(name, default, min, max, description).  max_tasks, set at load
 * only, is na_main.c's own.
 */
#define NA_UINT_PARAMS(X)						\
	X(interval_ms, 1000, 10, 60000,					\
	  "Milliseconds between two rounds of the placement engine")	\
	X(min_move_ms, 5000, 0, 3600000,				\
	  "Milliseconds a placed task stays before it is moved again")	\
	X(gain_pm, 200, 0, 10000,					\
	  "Per-mille a new placement must score above the current one to move") \
	X(margin_pm, 100, 0, 500,					\
	  "Per-mille of a node's capacity its load must clear to change class") \
	X(imbalance_pct, 117, 100, 200,					\
	  "Percent of capacity that marks a node fully busy or overloaded")

#define NA_ENUM_POLICY(id, name)	NA_POLICY_##id,
#define NA_ENUM_MODE(id, name)		NA_MODE_##id,
#define NA_ENUM_CLASS(id, name)		NA_##id,
#define NA_ENUM_REASON(id, name)	NA_R_##id,
#define NA_ENUM_SKIP(id, name)		NA_SKIP_##id,
#define NA_ENUM_PROBE(id, name)		NA_PROBE_##id,
#define NA_ENUM_RULE(id, name)		NA_RULE_##id,

enum na_policy_id { NA_POLICIES(NA_ENUM_POLICY) NA_NR_POLICIES };
enum na_mode_id { NA_MODES(NA_ENUM_MODE) NA_NR_MODES };
/* NA_NR_CLASSES also means "not classified yet" */
enum na_class { NA_CLASSES(NA_ENUM_CLASS) NA_NR_CLASSES };
enum na_reason { NA_REASONS(NA_ENUM_REASON) NA_NR_REASONS };
enum na_skip { NA_SKIPS(NA_ENUM_SKIP) NA_NR_SKIPS };
enum na_probe_id { NA_PROBES(NA_ENUM_PROBE) NA_NR_PROBES };
enum na_rule_kind { NA_RULE_KINDS(NA_ENUM_RULE) NA_NR_RULE_KINDS };

/* A name table, indexed by the enum: NA_NAME_TABLE(NA_REASONS) */
#define NA_NAME_OF(id, name)		name,
#define NA_NAME_TABLE(list)		{ list(NA_NAME_OF) }

#endif /* NA_NAMES_H */
