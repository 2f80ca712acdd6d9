/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nactl.h - numa-advise-ctl's pieces that need neither the module nor
 * tracefs: reading the module's tables, printing them (text, JSON,
 * Prometheus), node lists, and the command line.  Unit-tested in
 * tests/unit/test_ctl.c.
 */
#ifndef NACTL_H
#define NACTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes: each failure a script may want to tell apart. */
enum nactl_exit {
	NACTL_OK = 0,
	NACTL_FAILED = 1,	/* the operation itself failed */
	NACTL_USAGE = 2,	/* bad command, option or value */
	NACTL_NOT_ROOT = 3,
	NACTL_NOT_LOADED = 4,	/* module numa_advise not loaded */
	NACTL_NO_DEBUGFS = 5,	/* debugfs not mounted */
	NACTL_NO_TRACEFS = 6,	/* tracefs not mounted */
};

/* A whitespace-separated table whose first line names the columns. */
struct nactl_table {
	int ncols;
	int nrows;
	char **col;		/* ncols names */
	char **cell;		/* nrows * ncols values */
	char *buf;		/* storage for all of them */
};

int nactl_table_parse(struct nactl_table *t, const char *text);
int nactl_table_read(struct nactl_table *t, const char *path);
void nactl_table_free(struct nactl_table *t);
int nactl_table_col(const struct nactl_table *t, const char *name);
const char *nactl_cell(const struct nactl_table *t, int row, int col);
const char *nactl_get(const struct nactl_table *t, int row, const char *name);

/* Printing: aligned text, JSON (an array of objects), one JSON string. */
void nactl_print_text(FILE *f, const struct nactl_table *t);
void nactl_print_json(FILE *f, const struct nactl_table *t);
void nactl_json_value(FILE *f, const char *s);
bool nactl_is_number(const char *s);

/* Node sets: a bitmap as a list ("0-3,5"), and back. */
char *nactl_nodes_str(uint64_t set, char *buf, size_t len);
int nactl_nodes_parse(const char *s, uint64_t *set);

/*
 * The command line: each command with the arguments it takes (at least,
 * at most) and the options it takes, as nactl_parse_args()'s short
 * option letters:
 *   j --json  p --process  M --memory  P --prometheus  n --node  c --comm
 *   t --top  s --sort  d --duration  i --iterations
 * Every command also takes --help and --debugfs; an option a command does
 * not take is refused.
 */
#define NACTL_COMMANDS(X)						\
	X(STATUS, "status", 0, 0, "j")					\
	X(POLICY, "policy", 0, 1, "j")					\
	X(MODE, "mode", 0, 1, "j")					\
	X(SET, "set", 2, 2, "")						\
	X(SCOPE, "scope", 0, 3, "")					\
	X(TASKS, "tasks", 0, 0, "jpncts")				\
	X(NODES, "nodes", 0, 0, "j")					\
	X(ADVICE, "advice", 0, 0, "jc")					\
	X(APPLY, "apply", 0, 0, "Mc")					\
	X(TRACE, "trace", 0, 0, "d")					\
	X(TOP, "top", 0, 0, "i")					\
	X(STATS, "stats", 0, 0, "jP")

#define NACTL_CMD_ENUM(id, name, min, max, opts)	NACTL_CMD_##id,
enum nactl_cmd { NACTL_COMMANDS(NACTL_CMD_ENUM) NACTL_NR_CMDS };
#undef NACTL_CMD_ENUM

struct nactl_cmd_spec {
	const char *name;
	int min_args, max_args;
	const char *opts;	/* the option letters it takes */
};

extern const struct nactl_cmd_spec nactl_cmds[NACTL_NR_CMDS];
extern const char *const nactl_cmd_names[NACTL_NR_CMDS + 1];	/* NULL-ended */
extern const char *const nactl_policies[];	/* these NULL-ended too */
extern const char *const nactl_modes[];
extern const char *const nactl_params[];

struct nactl_opts {
	enum nactl_cmd cmd;
	bool json;
	bool help;
	bool process;		/* tasks: one row per process */
	bool memory;		/* apply: migrate pages too */
	bool prometheus;	/* stats */
	int node;		/* tasks: only tasks with time here; -1 */
	const char *comm;	/* tasks, advice: only this comm */
	int top;		/* tasks: first N rows; 0: all */
	const char *sort;	/* tasks: runtime, migrations, pid */
	double duration;	/* trace, top: stop after; 0: never */
	int iterations;		/* top: refreshes; 0: until Ctrl-C */
	const char *debugfs;	/* the module's directory */
	int nargs;		/* the command's own arguments */
	char **args;
};

int nactl_parse_args(int argc, char **argv, struct nactl_opts *o,
		     FILE *err);
int nactl_lookup(const char *const *names, const char *s);
void nactl_list(FILE *f, const char *const *names);
const char *nactl_shown(const char *s);

#endif /* NACTL_H */
