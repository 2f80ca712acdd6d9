// SPDX-License-Identifier: GPL-2.0
/*
 * numa-advise-ctl - drive the numa_advise module: read its tables, change
 * its settings, apply its advice, and stream its trace events (through a
 * tracefs instance of its own, decoded with libtraceevent).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "nactl.h"
#include "../module/na_names.h"

#define DEBUGFS		"/sys/kernel/debug"
#define DEBUGFS_MAGIC_	0x64626720
#define TRACEFS_MAGIC_	0x74726163
#define PARAMS		"/sys/module/numa_advise/parameters"
#define NODES		"/sys/devices/system/node"

/* the module's reasons (`advice`), and as its events record them */
static const char *const reason_names[NA_NR_REASONS] = NA_NAME_TABLE(NA_REASONS);


static int fail(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("numa-advise-ctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

static bool is_fs(const char *path, long magic)
{
	struct statfs st;

	return !statfs(path, &st) && st.f_type == magic;
}

/* check_loaded - root, and the module there */
static int check_loaded(void)
{
	if (geteuid() != 0)
		return fail(NACTL_NOT_ROOT, "must be run as root (the module's files are root-only)");
	if (access("/sys/module/numa_advise", F_OK))
		return fail(NACTL_NOT_LOADED, "module numa_advise is not loaded (modprobe numa_advise)");
	return 0;
}

/* check_access - root, the module and debugfs: the usual things missing */
static int check_access(const struct nactl_opts *o)
{
	int ret = check_loaded();

	if (ret)
		return ret;
	if (!is_fs(DEBUGFS, DEBUGFS_MAGIC_))
		return fail(NACTL_NO_DEBUGFS, "debugfs is not mounted on " DEBUGFS
			    " (mount -t debugfs none " DEBUGFS ")");
	if (access(o->debugfs, F_OK))
		return fail(NACTL_NOT_LOADED, "no %s: is numa_advise loaded?",
			    nactl_shown(o->debugfs));
	return 0;
}

static int read_table(const struct nactl_opts *o, struct nactl_table *t, const char *file)
{
	char path[PATH_MAX];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", o->debugfs, file);
	ret = nactl_table_read(t, path);
	if (ret)
		return fail(NACTL_FAILED, "cannot read %s: %s", nactl_shown(path),
			    strerror(-ret));
	return 0;
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* write_value - one write(2) of @value; the module refuses bad ones whole */
static int write_value(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* ---- status, stats ------------------------------------------------------ */

static void print_status_text(const struct nactl_table *st,
			      const struct nactl_table *oh)
{
	int r;

	printf("loaded: yes\n");
	for (r = 0; r < st->nrows; r++)
		printf("%s: %s\n", nactl_cell(st, r, 0), nactl_cell(st, r, 1));
	for (r = 0; r < oh->nrows; r++)
		printf("cost %s: %s calls, p50 %s ns, p99 %s ns, max %s ns\n",
		       nactl_get(oh, r, "probe"), nactl_get(oh, r, "calls"),
		       nactl_get(oh, r, "p50_ns"), nactl_get(oh, r, "p99_ns"),
		       nactl_get(oh, r, "max_ns"));
}

static void print_kv_json(const struct nactl_table *st)
{
	int r;

	for (r = 0; r < st->nrows; r++) {
		fputs(r ? ", " : "", stdout);
		nactl_json_value(stdout, nactl_cell(st, r, 0));
		fputs(": ", stdout);
		nactl_json_value(stdout, nactl_cell(st, r, 1));
	}
}

static int cmd_status(const struct nactl_opts *o)
{
	struct nactl_table st, oh;
	int ret;

	if (access("/sys/module/numa_advise", F_OK) == 0 ||
	    geteuid() != 0) {
		ret = check_access(o);
		if (ret)
			return ret;
	} else {
		printf(o->json ? "{\"loaded\": false}\n" : "loaded: no\n");
		return NACTL_NOT_LOADED;
	}
	if (read_table(o, &st, "status") || read_table(o, &oh, "overhead"))
		return NACTL_FAILED;
	if (o->json) {
		fputs("{\"loaded\": true, ", stdout);
		print_kv_json(&st);
		fputs(", \"overhead\": ", stdout);
		nactl_print_json(stdout, &oh);
		fputs("}\n", stdout);
	} else {
		print_status_text(&st, &oh);
	}
	nactl_table_free(&st);
	nactl_table_free(&oh);
	return 0;
}

/* kv_value - the value of @key in a "key value" table, "" if none */
static const char *kv_value(const struct nactl_table *st, const char *key)
{
	int r;

	for (r = 0; r < st->nrows; r++)
		if (!strcmp(nactl_cell(st, r, 0), key))
			return nactl_cell(st, r, 1);
	return "";
}

static double ns_to_s(const char *ns)
{
	return strtod(ns, NULL) / 1e9;
}

static void prom_head(const char *name, const char *type, const char *what)
{
	printf("# HELP numa_advise_%s %s\n# TYPE numa_advise_%s %s\n",
	       name, what, name, type);
}

/* print_prometheus - node_exporter's textfile collector format */
static void print_prometheus(const struct nactl_table *st,
			     const struct nactl_table *nodes,
			     const struct nactl_table *oh)
{
	static const struct { const char *key, *name, *type, *what; } kv[] = {
		{ "tracked", "tracked_tasks", "gauge", "Tasks tracked now" },
		{ "placed", "placed_tasks", "gauge", "Tasks whose CPU mask is narrowed now" },
		{ "dropped", "dropped_tasks_total", "counter", "Tasks refused a slot at the cap" },
		{ "moves", "moves_total", "counter", "CPU masks narrowed or moved" },
		{ "restores", "restores_total", "counter", "CPU masks put back" },
		{ "overridden", "overridden_total", "counter", "Masks changed by someone else after the module" },
		{ "apply_errors", "apply_errors_total", "counter", "Mask changes the kernel refused" },
		{ "rounds", "rounds_total", "counter", "Rounds of the placement engine" },
	};
	static const char *const refusals[] = { "gain", "hold", "class", "room" };
	static const char *const times[] = { "busy", "idle", "wait" };
	unsigned int i;
	int r;

	for (i = 0; i < sizeof(kv) / sizeof(kv[0]); i++) {
		const char *v = kv_value(st, kv[i].key);

		if (!*v)
			continue;
		prom_head(kv[i].name, kv[i].type, kv[i].what);
		printf("numa_advise_%s %s\n", kv[i].name, v);
	}
	prom_head("refused_total", "counter", "Advice to stay, per round, by reason");
	for (i = 0; i < 4; i++) {
		char key[32];

		snprintf(key, sizeof(key), "refused_%s", refusals[i]);
		if (*kv_value(st, key))
			printf("numa_advise_refused_total{reason=\"%s\"} %s\n",
			       refusals[i], kv_value(st, key));
	}
	prom_head("info", "gauge", "Version, policy and mode");
	printf("numa_advise_info{version=\"%s\",policy=\"%s\",mode=\"%s\"} 1\n",
	       kv_value(st, "version"), kv_value(st, "policy"),
	       kv_value(st, "mode"));
	for (i = 0; i < 3; i++) {
		char col[16], name[40];

		snprintf(col, sizeof(col), "%s_ns", times[i]);
		snprintf(name, sizeof(name), "node_%s_seconds_total", times[i]);
		prom_head(name, "counter", i == 2 ? "Time runnable tasks waited on the node's CPUs" :
			  "CPU time of the node's CPUs");
		for (r = 0; r < nodes->nrows; r++)
			printf("numa_advise_%s{node=\"%s\"} %.9f\n", name,
			       nactl_get(nodes, r, "node"),
			       ns_to_s(nactl_get(nodes, r, col)));
	}
	prom_head("node_utilisation_ratio", "gauge", "Decayed utilisation of the node's capacity");
	for (r = 0; r < nodes->nrows; r++)
		if (nactl_is_number(nactl_get(nodes, r, "util_pm")))
			printf("numa_advise_node_utilisation_ratio{node=\"%s\"} %.3f\n",
			       nactl_get(nodes, r, "node"),
			       atoi(nactl_get(nodes, r, "util_pm")) / 1000.0);
	prom_head("node_class", "gauge", "1 for the node's class");
	for (r = 0; r < nodes->nrows; r++)
		printf("numa_advise_node_class{node=\"%s\",class=\"%s\"} 1\n",
		       nactl_get(nodes, r, "node"), nactl_get(nodes, r, "class"));
	prom_head("probe_calls_total", "counter", "Calls of each probe");
	for (r = 0; r < oh->nrows; r++)
		printf("numa_advise_probe_calls_total{probe=\"%s\"} %s\n",
		       nactl_get(oh, r, "probe"), nactl_get(oh, r, "calls"));
	prom_head("probe_p99_seconds", "gauge", "99th percentile of each probe's own cost");
	for (r = 0; r < oh->nrows; r++)
		printf("numa_advise_probe_p99_seconds{probe=\"%s\"} %.9f\n",
		       nactl_get(oh, r, "probe"),
		       ns_to_s(nactl_get(oh, r, "p99_ns")));
}

static int cmd_stats(const struct nactl_opts *o)
{
	struct nactl_table st, nodes, oh;
	int ret = check_access(o);

	if (ret)
		return ret;
	if (read_table(o, &st, "status") || read_table(o, &nodes, "nodes") ||
	    read_table(o, &oh, "overhead"))
		return NACTL_FAILED;
	if (o->prometheus) {
		print_prometheus(&st, &nodes, &oh);
	} else if (o->json) {
		fputs("{\"status\": {", stdout);
		print_kv_json(&st);
		fputs("}, \"nodes\": ", stdout);
		nactl_print_json(stdout, &nodes);
		fputs(", \"overhead\": ", stdout);
		nactl_print_json(stdout, &oh);
		fputs("}\n", stdout);
	} else {
		nactl_print_text(stdout, &st);
		putchar('\n');
		nactl_print_text(stdout, &nodes);
		putchar('\n');
		nactl_print_text(stdout, &oh);
	}
	nactl_table_free(&st);
	nactl_table_free(&nodes);
	nactl_table_free(&oh);
	return 0;
}

/* ---- settings ------------------------------------------------------------- */

/* cmd_choice - policy or mode: show it, or set it to a name from @names */
static int cmd_choice(const struct nactl_opts *o, const char *file, const char *const *names)
{
	char path[PATH_MAX], cur[64];
	int ret = check_access(o);

	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/%s", o->debugfs, file);
	if (o->nargs == 0) {
		ret = read_line(path, cur, sizeof(cur));
		if (ret)
			return fail(NACTL_FAILED, "cannot read %s: %s", path, strerror(-ret));
		if (o->json)
			printf("{\"%s\": \"%s\"}\n", file, cur);
		else
			printf("%s\n", cur);
		return 0;
	}
	if (nactl_lookup(names, o->args[0]) < 0) {
		fprintf(stderr, "numa-advise-ctl: unknown %s '%s'; valid: ", file,
			nactl_shown(o->args[0]));
		nactl_list(stderr, names);
		return NACTL_USAGE;
	}
	ret = write_value(path, o->args[0]);
	if (ret)
		return fail(ret == -EINVAL ? NACTL_USAGE : NACTL_FAILED,
			    "numa_advise refused %s %s: %s", file,
			    nactl_shown(o->args[0]),
			    strerror(-ret));
	return 0;
}

static int cmd_set(const struct nactl_opts *o)
{
	char path[PATH_MAX];
	int ret = check_access(o);

	if (ret)
		return ret;
	if (nactl_lookup(nactl_params, o->args[0]) < 0) {
		fprintf(stderr, "numa-advise-ctl: no settable parameter '%s'; valid: ",
			nactl_shown(o->args[0]));
		nactl_list(stderr, nactl_params);
		return NACTL_USAGE;
	}
	snprintf(path, sizeof(path), PARAMS "/%s", o->args[0]);
	ret = write_value(path, o->args[1]);
	if (ret)
		return fail(ret == -EINVAL ? NACTL_USAGE : NACTL_FAILED,
			    "numa_advise refused %s=%s: %s (modinfo numa_advise lists the ranges)",
			    o->args[0], nactl_shown(o->args[1]), strerror(-ret));
	return 0;
}

static int cmd_scope(const struct nactl_opts *o)
{
	static const char *const kinds[] = { "pid", "comm", "cgroup", NULL };
	char path[PATH_MAX], rule[512];
	int ret = check_access(o);
	FILE *f;

	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/scope", o->debugfs);
	if (o->nargs == 0 || (o->nargs == 1 && !strcmp(o->args[0], "show"))) {
		f = fopen(path, "r");
		if (!f)
			return fail(NACTL_FAILED, "cannot read %s: %s", path, strerror(errno));
		while (fgets(rule, sizeof(rule), f))
			fputs(rule, stdout);
		fclose(f);
		return 0;
	}
	if (o->nargs == 1 && !strcmp(o->args[0], "clear")) {
		snprintf(rule, sizeof(rule), "clear");
	} else if (o->nargs == 3 &&
		   (!strcmp(o->args[0], "include") ||
		    !strcmp(o->args[0], "exclude")) &&
		   nactl_lookup(kinds, o->args[1]) >= 0) {
		snprintf(rule, sizeof(rule), "%s %s %s", o->args[0],
			 o->args[1], o->args[2]);
	} else {
		return fail(NACTL_USAGE, "scope takes: show | clear | include|exclude pid|comm|cgroup VALUE");
	}
	ret = write_value(path, rule);
	if (ret)
		return fail(ret == -EINVAL ? NACTL_USAGE : NACTL_FAILED,
			    "numa_advise refused the rule '%s': %s",
			    nactl_shown(rule),
			    strerror(-ret));
	return 0;
}

/* ---- tasks (the 2003 seed's numa_test table) --------------------------- */

struct task_row {
	int pid, tgid;
	char comm[64];
	double *ns;		/* per node */
	double runtime;
	long xnode, migrations;
	int home, mem;		/* the module's, see cmd_tasks */
	double *home_ns;	/* its threads' runtime, by their home */
	uint64_t homes;		/* the nodes some thread of it has as home */
};

/* node_col - a node column of the module's tables: its number, -1 for "-" */
static int node_col(const char *s)
{
	return isdigit((unsigned char)s[0]) ? atoi(s) : -1;
}

static int row_cmp(const void *a, const void *b, void *sort)
{
	const struct task_row *x = a, *y = b;

	if (!strcmp((const char *)sort, "pid"))
		return (x->pid > y->pid) - (x->pid < y->pid);
	if (!strcmp((const char *)sort, "migrations"))
		return (x->xnode < y->xnode) - (x->xnode > y->xnode);
	return (x->runtime < y->runtime) - (x->runtime > y->runtime);
}

static int cmd_tasks(const struct nactl_opts *o)
{
	struct nactl_table t;
	struct task_row *rows;
	int nodes = 0, nrows = 0, r, n, i, home, ret = check_access(o);
	double *ns, runtime;
	char name[32];

	if (ret)
		return ret;
	if (read_table(o, &t, "tasks"))
		return NACTL_FAILED;
	for (;; nodes++) {
		snprintf(name, sizeof(name), "node%d_ns", nodes);
		if (nactl_table_col(&t, name) < 0)
			break;
	}
	rows = calloc(t.nrows + 1, sizeof(*rows));
	/* per row: time per node, then its threads' time by their home */
	ns = calloc((size_t)(t.nrows + 1) * 2 * (nodes + 1), sizeof(*ns));
	if (!rows || !ns)
		return fail(NACTL_FAILED, "out of memory");
	for (r = 0; r < t.nrows; r++) {
		int tgid = atoi(nactl_get(&t, r, "tgid"));
		struct task_row *row = NULL;

		if (o->comm && strcmp(nactl_get(&t, r, "comm"), o->comm))
			continue;
		if (o->process)
			for (i = 0; i < nrows; i++)
				if (rows[i].tgid == tgid)
					row = &rows[i];
		if (!row) {
			row = &rows[nrows];
			row->ns = ns + (size_t)nrows++ * 2 * (nodes + 1);
			row->home_ns = row->ns + nodes + 1;
			row->mem = -1;
			row->pid = o->process ? tgid : atoi(nactl_get(&t, r, "pid"));
			row->tgid = tgid;
			snprintf(row->comm, sizeof(row->comm), "%s",
				 nactl_get(&t, r, "comm"));
		}
		for (n = 0; n < nodes; n++) {
			snprintf(name, sizeof(name), "node%d_ns", n);
			row->ns[n] += strtod(nactl_get(&t, r, name), NULL);
		}
		runtime = strtod(nactl_get(&t, r, "runtime_ns"), NULL);
		row->runtime += runtime;
		row->xnode += atol(nactl_get(&t, r, "xnode_migrations"));
		row->migrations += atol(nactl_get(&t, r, "migrations"));
		/* the module's home and memory node, not worked out again here */
		home = node_col(nactl_get(&t, r, "home"));
		if (home >= 0 && home < nodes && home < 64) {
			row->home_ns[home] += runtime;
			row->homes |= 1ULL << home;
		}
		if (row->mem < 0)
			row->mem = node_col(nactl_get(&t, r, "mem"));
	}
	/*
	 * A process's home: of its threads' homes, the one those threads ran
	 * the most (the lowest node of a tie); a thread's is its own.
	 */
	for (r = 0; r < nrows; r++) {
		rows[r].home = -1;
		for (n = 0; n < nodes && n < 64; n++)
			if ((rows[r].homes >> n & 1) && (rows[r].home < 0 ||
			    rows[r].home_ns[n] > rows[r].home_ns[rows[r].home]))
				rows[r].home = n;
	}
	if (o->node >= 0) {
		for (r = i = 0; r < nrows; r++)
			if (rows[r].home == o->node)
				rows[i++] = rows[r];
		nrows = i;
	}
	qsort_r(rows, nrows, sizeof(*rows), row_cmp, (void *)o->sort);
	if (o->top && o->top < nrows)
		nrows = o->top;

	if (!o->json && nodes < 2)
		printf("(one NUMA node: every task is at home)\n");
	if (o->json)
		putchar('[');
	else {
		printf("%-8s %-16s", o->process ? "tgid" : "pid", "comm");
		for (n = 0; n < nodes; n++)
			printf("  node%02d", n);
		printf(" | home  mem   | runtime_s  xnode\n");
	}
	for (r = 0; r < nrows; r++) {
		struct task_row *row = &rows[r];
		bool star = row->home >= 0 && row->mem >= 0 && row->home != row->mem;

		if (o->json) {
			printf("%s{\"pid\": %d, \"tgid\": %d, \"comm\": ",
			       r ? ",\n " : "", row->pid, row->tgid);
			nactl_json_value(stdout, row->comm);
			printf(", \"percent\": [");
			for (n = 0; n < nodes; n++)
				printf("%s%.1f", n ? ", " : "",
				       row->runtime > 0 ? 100 * row->ns[n] / row->runtime : 0);
			printf("], \"home\": %d, \"mem\": %d, \"mismatch\": %s, "
			       "\"runtime_ns\": %.0f, \"migrations\": %ld, \"xnode_migrations\": %ld}",
			       row->home, row->mem, star ? "true" : "false",
			       row->runtime, row->migrations, row->xnode);
			continue;
		}
		printf("%-8d %-16s", row->pid, row->comm);
		for (n = 0; n < nodes; n++)
			printf("  %6.1f", row->runtime > 0 ? 100 * row->ns[n] / row->runtime : 0);
		printf(" | %4d  %4d %c | %9.2f  %5ld\n", row->home, row->mem,
		       star ? '*' : ' ', row->runtime / 1e9, row->xnode);
	}
	if (o->json)
		puts("]");
	free(ns);
	free(rows);
	nactl_table_free(&t);
	return 0;
}

/* ---- nodes, advice ---------------------------------------------------------- */

static long node_mem_free_kb(int node)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), NODES "/node%d/meminfo", node);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Node %*d MemFree: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static int cmd_nodes(const struct nactl_opts *o)
{
	struct nactl_table t;
	int r, ret = check_access(o);

	if (ret)
		return ret;
	if (read_table(o, &t, "nodes"))
		return NACTL_FAILED;
	if (t.nrows < 2 && !o->json)
		printf("(one NUMA node)\n");
	if (o->json)
		putchar('[');
	else
		printf("%-4s  %-8s  %-10s  %-8s  %-11s  %-12s  %s\n", "node", "cpus",
		       "class", "util_pm", "runnable_pm", "mem_free_kb", "distances");
	for (r = 0; r < t.nrows; r++) {
		const char *node = nactl_get(&t, r, "node");
		char path[64], dist[256];

		snprintf(path, sizeof(path), NODES "/node%s/distance", node);
		if (read_line(path, dist, sizeof(dist)))
			snprintf(dist, sizeof(dist), "-");
		if (o->json) {
			char *p, *save;
			int i = 0;

			printf("%s{\"node\": %s, \"cpus\": ", r ? ",\n " : "", node);
			nactl_json_value(stdout, nactl_get(&t, r, "cpus"));
			printf(", \"class\": ");
			nactl_json_value(stdout, nactl_get(&t, r, "class"));
			printf(", \"util_pm\": ");
			nactl_json_value(stdout, nactl_get(&t, r, "util_pm"));
			printf(", \"runnable_pm\": ");
			nactl_json_value(stdout, nactl_get(&t, r, "runnable_pm"));
			printf(", \"mem_free_kb\": %ld, \"distance\": [",
			       node_mem_free_kb(atoi(node)));
			for (p = strtok_r(dist, " ", &save); p; p = strtok_r(NULL, " ", &save))
				printf("%s%s", i++ ? ", " : "", nactl_is_number(p) ? p : "null");
			printf("]}");
			continue;
		}
		printf("%-4s  %-8s  %-10s  %-8s  %-11s  %-12ld  %s\n", node,
		       nactl_get(&t, r, "cpus"), nactl_get(&t, r, "class"),
		       nactl_get(&t, r, "util_pm"), nactl_get(&t, r, "runnable_pm"),
		       node_mem_free_kb(atoi(node)), dist);
	}
	if (o->json)
		puts("]");
	nactl_table_free(&t);
	return 0;
}

/* keep_rows - only the rows whose comm is @comm, if given */
static void keep_comm(struct nactl_table *t, const char *comm)
{
	int r, w = 0, c = nactl_table_col(t, "comm");

	if (!comm || c < 0)
		return;
	for (r = 0; r < t->nrows; r++) {
		if (strcmp(nactl_cell(t, r, c), comm))
			continue;
		memmove(t->cell + (size_t)w * t->ncols,
			t->cell + (size_t)r * t->ncols, t->ncols * sizeof(char *));
		w++;
	}
	t->nrows = w;
}

static int cmd_advice(const struct nactl_opts *o)
{
	struct nactl_table t;
	int ret = check_access(o);

	if (ret)
		return ret;
	if (read_table(o, &t, "advice"))
		return NACTL_FAILED;
	keep_comm(&t, o->comm);
	if (o->json)
		nactl_print_json(stdout, &t);
	else
		nactl_print_text(stdout, &t);
	nactl_table_free(&t);
	return 0;
}

/* ---- apply ------------------------------------------------------------------ */

/* nodes_cpus - the CPUs of the nodes in @set */
static int nodes_cpus(uint64_t set, cpu_set_t *cpus)
{
	char path[64], list[1024];
	int n;

	CPU_ZERO(cpus);
	for (n = 0; n < 64; n++) {
		char *p;

		if (!(set >> n & 1))
			continue;
		snprintf(path, sizeof(path), NODES "/node%d/cpulist", n);
		if (read_line(path, list, sizeof(list)))
			return -1;
		for (p = list; *p;) {
			char *end;
			long a = strtol(p, &end, 10), b = a;

			if (end == p)
				break;
			if (*end == '-')
				b = strtol(end + 1, &end, 10);
			for (; a <= b && a < CPU_SETSIZE; a++)
				CPU_SET(a, cpus);
			p = *end ? end + 1 : end;
		}
	}
	return CPU_COUNT(cpus) ? 0 : -1;
}

static int cmd_apply(const struct nactl_opts *o)
{
	struct nactl_table t;
	int r, applied = 0, failed = 0, ret = check_access(o);

	if (ret)
		return ret;
	if (read_table(o, &t, "advice"))
		return NACTL_FAILED;
	keep_comm(&t, o->comm);
	for (r = 0; r < t.nrows; r++) {
		const char *target = nactl_get(&t, r, "target");
		const char *reason = nactl_get(&t, r, "reason");
		int pid = atoi(nactl_get(&t, r, "pid"));
		int tgid = atoi(nactl_get(&t, r, "tgid"));
		cpu_set_t cpus;
		uint64_t set;

		/* where the module would have it; nothing for a task it does not judge */
		if (!strcmp(reason, reason_names[NA_R_NO_DATA]))
			continue;
		if (nactl_nodes_parse(target, &set) || !set || nodes_cpus(set, &cpus))
			continue;
		if (sched_setaffinity(pid, sizeof(cpus), &cpus)) {
			fprintf(stderr, "numa-advise-ctl: pid %d: sched_setaffinity: %s\n",
				pid, strerror(errno));
			failed++;
			continue;
		}
		printf("pid %d (%s): CPUs of nodes %s\n", pid,
		       nactl_get(&t, r, "comm"), target);
		applied++;
		if (o->memory && pid == tgid) {
			unsigned long from = ~0UL, to = set;
			long moved = syscall(SYS_migrate_pages, tgid, 64, &from, &to);

			if (moved < 0) {
				fprintf(stderr, "numa-advise-ctl: pid %d: migrate_pages: %s\n",
					tgid, strerror(errno));
				failed++;
			} else {
				printf("pid %d (%s): memory to nodes %s\n", tgid,
				       nactl_get(&t, r, "comm"), target);
			}
		}
	}
	nactl_table_free(&t);
	if (!applied && !failed)
		printf("nothing to apply (policy none, or no task with advice)\n");
	return failed ? NACTL_FAILED : 0;
}

/* ---- trace -------------------------------------------------------------- */

static struct tracefs_instance *trace_instance;
static volatile sig_atomic_t trace_stop;

static void on_stop_signal(int sig)
{
	(void)sig;
	trace_stop = 1;
	if (trace_instance)
		tracefs_iterate_stop(trace_instance);
}

/* field - an event's numeric field, 0 if it has none */
static unsigned long long field(struct tep_event *e, struct tep_record *rec,
				const char *name)
{
	unsigned long long v = 0;

	tep_get_field_val(NULL, e, name, rec, &v, 0);
	return v;
}

static int on_event(struct tep_event *e, struct tep_record *rec, int cpu,
		    void *ctx)
{
	const char *what = e->name + strlen("numa_advise_");
	struct tep_handle *tep = ctx;
	char from[192], to[192];
	unsigned long long reason;
	struct trace_seq seq;
	char *comm;
	int len;

	(void)cpu;
	trace_seq_init(&seq);
	if (strcmp(e->name, "numa_advise_place") &&
	    strcmp(e->name, "numa_advise_advice")) {
		tep_print_event(tep, &seq, rec, "%s", TEP_PRINT_INFO);
		trace_seq_terminate(&seq);
		printf("%.6f %s %s\n", rec->ts / 1e9, what, seq.buffer);
		goto out;
	}
	/* node sets as lists, not the raw bitmaps the event carries */
	comm = tep_get_field_raw(&seq, e, "comm", rec, &len, 0);
	reason = field(e, rec, "reason");
	printf("%.6f %s pid=%llu tgid=%llu comm=%.16s from=%s to=%s reason=%s\n",
	       rec->ts / 1e9, what, field(e, rec, "pid"), field(e, rec, "tgid"),
	       comm ? comm : "?",
	       nactl_nodes_str(field(e, rec, "from"), from, sizeof(from)),
	       nactl_nodes_str(field(e, rec, "to"), to, sizeof(to)),
	       reason < NA_NR_REASONS ? reason_names[reason] : "?");
out:
	fflush(stdout);
	trace_seq_destroy(&seq);
	return 0;
}

static int cmd_trace(const struct nactl_opts *o)
{
	const char *systems[] = { "numa_advise", NULL };
	struct sigaction sa = { .sa_handler = on_stop_signal };
	struct tep_handle *tep;
	struct timespec t0, now;
	char name[64];
	int ret = check_loaded();	/* tracefs, not debugfs */

	if (ret)
		return ret;
	/* libtracefs would mount it; a tool should not, behind one's back */
	if (!is_fs("/sys/kernel/tracing", TRACEFS_MAGIC_) &&
	    !is_fs(DEBUGFS "/tracing", TRACEFS_MAGIC_))
		return fail(NACTL_NO_TRACEFS, "tracefs is not mounted (mount -t tracefs none /sys/kernel/tracing)");
	tep = tracefs_local_events_system(NULL, systems);
	if (!tep || !tep_find_event_by_name(tep, "numa_advise", "numa_advise_place"))
		return fail(NACTL_NOT_LOADED, "no numa_advise trace events: is the module loaded?");

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	snprintf(name, sizeof(name), "numa_advise_ctl_%d", (int)getpid());
	trace_instance = tracefs_instance_create(name);
	if (!trace_instance) {
		tep_free(tep);
		return fail(NACTL_FAILED, "cannot create tracefs instance %s: %s", name,
			    strerror(errno));
	}
	ret = NACTL_OK;
	if (tracefs_event_enable(trace_instance, "numa_advise", NULL) ||
	    tracefs_trace_on(trace_instance)) {
		ret = fail(NACTL_FAILED, "cannot enable the numa_advise events");
		goto destroy;
	}
	fprintf(stderr, "numa-advise-ctl: tracing numa_advise events (instance %s); Ctrl-C stops\n",
		name);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!trace_stop) {
		tracefs_iterate_raw_events(tep, trace_instance, NULL, 0, on_event, tep);
		if (trace_stop)
			break;
		usleep(100000);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (o->duration > 0 &&
		    (now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9 >=
		    o->duration)
			break;
	}
	/* what came in before the stop */
	tracefs_iterate_raw_events(tep, trace_instance, NULL, 0, on_event, tep);
destroy:
	tracefs_event_disable(trace_instance, "numa_advise", NULL);
	if (tracefs_instance_destroy(trace_instance))
		ret = fail(NACTL_FAILED, "cannot remove tracefs instance %s", name);
	tracefs_instance_free(trace_instance);
	trace_instance = NULL;
	tep_free(tep);
	return ret;
}

/* ---- top ---------------------------------------------------------------- */

static int cmd_top(const struct nactl_opts *o)
{
	struct nactl_opts t = *o;
	int i, ret = check_access(o);

	if (ret)
		return ret;
	t.top = 15;
	t.json = false;
	for (i = 0; !t.iterations || i < t.iterations; i++) {
		if (isatty(STDOUT_FILENO))
			fputs("\033[H\033[2J", stdout);
		printf("numa_advise top (%d)\n\n", i + 1);
		if (cmd_nodes(&t) || (putchar('\n'), cmd_tasks(&t))) {
			ret = NACTL_FAILED;
			break;
		}
		fflush(stdout);
		if (t.iterations && i + 1 == t.iterations)
			break;
		sleep(1);
	}
	return ret;
}

/* ---- main ----------------------------------------------------------------- */

static int cmd_policy(const struct nactl_opts *o)
{
	return cmd_choice(o, "policy", nactl_policies);
}

static int cmd_mode(const struct nactl_opts *o)
{
	return cmd_choice(o, "mode", nactl_modes);
}

/*
 * The commands: what runs each and its help.  What each takes (arguments
 * and options) is in nactl_cmds[], which the parser checks.
 */
static const struct {
	int (*run)(const struct nactl_opts *o);
	const char *help;
} commands[NACTL_NR_CMDS] = {
	[NACTL_CMD_STATUS] = { cmd_status,
		"status [--json]\n"
		"  Loaded or not, version, policy, mode, tracked tasks, moves and\n"
		"  refusals, and the probes' own cost.\n" },
	[NACTL_CMD_POLICY] = { cmd_policy,
		"policy [none|home|distance]\n"
		"  Show the placement policy, or set it.\n" },
	[NACTL_CMD_MODE] = { cmd_mode,
		"mode [advise|enforce]\n"
		"  Show the mode, or set it: advise only recommends, enforce narrows\n"
		"  CPU affinity to the advice (and puts it back when it stops).\n" },
	[NACTL_CMD_SET] = { cmd_set,
		"set PARAM VALUE\n"
		"  Change a module parameter while it runs: interval_ms, min_move_ms,\n"
		"  gain_pm, margin_pm, imbalance_pct (and policy, mode).\n" },
	[NACTL_CMD_SCOPE] = { cmd_scope,
		"scope [show | clear | include|exclude pid|comm|cgroup VALUE]\n"
		"  Show the scope rules, clear them, or add one.\n" },
	[NACTL_CMD_TASKS] = { cmd_tasks,
		"tasks [--process] [--node N] [--comm NAME] [--sort runtime|migrations|pid]\n"
		"      [--top N] [--json]\n"
		"  Per task (or process) the % of its runtime on each node, its home\n"
		"  node and its memory node (the module's: a process's home is the home\n"
		"  of its threads with the most runtime), '*' where they\n"
		"  differ, runtime and cross-node migrations.  --node: home there.\n" },
	[NACTL_CMD_NODES] = { cmd_nodes,
		"nodes [--json]\n"
		"  Per node: CPUs, distances, class, utilisation, runnable load, free\n"
		"  memory.\n" },
	[NACTL_CMD_ADVICE] = { cmd_advice,
		"advice [--comm NAME] [--json]\n"
		"  The module's current recommendations, with their reasons.\n" },
	[NACTL_CMD_APPLY] = { cmd_apply,
		"apply [--memory] [--comm NAME]\n"
		"  Apply the current advice once from here, with sched_setaffinity(2)\n"
		"  (and with --memory, migrate_pages(2)).\n" },
	[NACTL_CMD_TRACE] = { cmd_trace,
		"trace [--duration SECONDS]\n"
		"  Stream the module's events (advice, placements, node classes) until\n"
		"  Ctrl-C or SIGTERM, through a tracefs instance removed on exit.\n" },
	[NACTL_CMD_TOP] = { cmd_top,
		"top [--iterations N]\n"
		"  Nodes and the busiest tasks, refreshed every second.\n" },
	[NACTL_CMD_STATS] = { cmd_stats,
		"stats [--prometheus | --json]\n"
		"  Status, nodes and probe costs; --prometheus in node_exporter's\n"
		"  textfile format.\n" },
};

static const char usage[] =
	"usage: numa-advise-ctl [--json] COMMAND [OPTIONS] [ARGS]\n"
	"\n"
	"commands:\n"
	"  status   policy   mode   set   scope   tasks   nodes   advice\n"
	"  apply    trace    top    stats\n"
	"\n"
	"numa-advise-ctl COMMAND --help tells more.  Exit status: 0 done,\n"
	"1 failed, 2 bad argument, 3 not root, 4 module not loaded,\n"
	"5 debugfs not mounted, 6 tracefs not mounted.\n";

int main(int argc, char **argv)
{
	struct nactl_opts o;
	int ret;

	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf("numa-advise-ctl %s\n", NA_VERSION);
		return 0;
	}
	ret = nactl_parse_args(argc, argv, &o, stderr);
	if (ret)
		return ret;
	if (o.help) {
		fputs(o.cmd == NACTL_NR_CMDS ? usage : commands[o.cmd].help,
		      stdout);
		return 0;
	}
	return commands[o.cmd].run(&o);
}
