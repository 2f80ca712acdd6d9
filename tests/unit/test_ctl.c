// SPDX-License-Identifier: GPL-2.0
/*
 * test_ctl - numa-advise-ctl's tables, JSON, node lists and command line,
 * without the module: tools/nactl_table.c and tools/nactl_args.c
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../tools/nactl.h"

/* out - what @print wrote for @t, in a buffer the caller frees */
static char *out(void (*print)(FILE *, const struct nactl_table *),
		 const struct nactl_table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	print(f, t);
	fclose(f);
	return buf;
}

static void table_parse_and_lookup(void **state)
{
	struct nactl_table t;

	assert_int_equal(nactl_table_parse(&t, "node cpus class\n0 0-1 has-spare\n\n1 2-3 overloaded\n"), 0);
	assert_int_equal(t.ncols, 3);
	assert_int_equal(t.nrows, 2);
	assert_int_equal(nactl_table_col(&t, "class"), 2);
	assert_int_equal(nactl_table_col(&t, "nope"), -1);
	assert_string_equal(nactl_get(&t, 1, "cpus"), "2-3");
	assert_null(nactl_get(&t, 2, "cpus"));
	assert_null(nactl_get(&t, 0, "nope"));
	nactl_table_free(&t);
	/* tabs and runs of blanks separate too; no trailing newline */
	assert_int_equal(nactl_table_parse(&t, "a  b\n1\t2"), 0);
	assert_int_equal(t.nrows, 1);
	assert_string_equal(nactl_cell(&t, 0, 1), "2");
	nactl_table_free(&t);
}

static void table_parse_refuses_bad_shapes(void **state)
{
	struct nactl_table t;

	assert_int_equal(nactl_table_parse(&t, ""), -EINVAL);
	assert_int_equal(nactl_table_parse(&t, "\nx y\n"), -EINVAL);
	assert_int_equal(nactl_table_parse(&t, "a b\n1 2 3\n"), -EINVAL);
	assert_int_equal(nactl_table_parse(&t, "a b\n1\n"), -EINVAL);
	/* a header alone is an empty table */
	assert_int_equal(nactl_table_parse(&t, "a b\n"), 0);
	assert_int_equal(t.nrows, 0);
	nactl_table_free(&t);
}

static void text_is_aligned(void **state)
{
	struct nactl_table t;
	char *s;

	assert_int_equal(nactl_table_parse(&t, "pid comm\n1 init\n12345 x\n"), 0);
	s = out(nactl_print_text, &t);
	assert_string_equal(s, "pid    comm\n1      init\n12345  x\n");
	free(s);
	nactl_table_free(&t);
}

static void json_values(void **state)
{
	struct nactl_table t;
	char *s;

	assert_true(nactl_is_number("0"));
	assert_true(nactl_is_number("-12"));
	assert_true(nactl_is_number("3.25"));
	assert_false(nactl_is_number(""));
	assert_false(nactl_is_number("-"));
	assert_false(nactl_is_number("007"));
	assert_false(nactl_is_number("1."));
	assert_false(nactl_is_number("0-3"));
	assert_false(nactl_is_number("1e3"));
	assert_int_equal(nactl_table_parse(&t,
		"pid comm target reason\n7 a\"b\\c - stay\n8 x 0-3 move\n"), 0);
	s = out(nactl_print_json, &t);
	assert_string_equal(s,
		"[{\"pid\": 7, \"comm\": \"a\\\"b\\\\c\", \"target\": null, \"reason\": \"stay\"},\n"
		" {\"pid\": 8, \"comm\": \"x\", \"target\": \"0-3\", \"reason\": \"move\"}]\n");
	free(s);
	nactl_table_free(&t);
	/* no rows: an empty array */
	assert_int_equal(nactl_table_parse(&t, "a b\n"), 0);
	s = out(nactl_print_json, &t);
	assert_string_equal(s, "[]\n");
	free(s);
	nactl_table_free(&t);
}

static void node_lists(void **state)
{
	char buf[64];
	uint64_t set;

	assert_string_equal(nactl_nodes_str(0x0f, buf, sizeof(buf)), "0-3");
	assert_string_equal(nactl_nodes_str(0x35, buf, sizeof(buf)), "0,2,4-5");
	assert_string_equal(nactl_nodes_str(0, buf, sizeof(buf)), "-");
	assert_string_equal(nactl_nodes_str(1ULL << 63, buf, sizeof(buf)), "63");
	assert_string_equal(nactl_nodes_str(~0ULL, buf, sizeof(buf)), "0-63");
	assert_int_equal(nactl_nodes_parse("0,2,4-5", &set), 0);
	assert_int_equal(set, 0x35);
	assert_int_equal(nactl_nodes_parse("-", &set), 0);
	assert_int_equal(set, 0);
	assert_int_equal(nactl_nodes_parse("4-7", &set), 0);
	assert_int_equal(set, 0xf0);
	assert_int_equal(nactl_nodes_parse("3-1", &set), -EINVAL);
	assert_int_equal(nactl_nodes_parse("64", &set), -EINVAL);
	assert_int_equal(nactl_nodes_parse("1,", &set), -EINVAL);
	assert_int_equal(nactl_nodes_parse("a", &set), -EINVAL);
	assert_int_equal(nactl_nodes_parse("1;2", &set), -EINVAL);
}

/* parse - nactl_parse_args on a command line given as words */
static int parse(struct nactl_opts *o, char *err, size_t errlen, ...)
{
	char *argv[16] = { "numa-advise-ctl" };
	int argc = 1, ret;
	FILE *f = fmemopen(err, errlen, "w");
	va_list ap;
	char *w;

	va_start(ap, errlen);
	while ((w = va_arg(ap, char *)))
		argv[argc++] = w;
	va_end(ap);
	ret = nactl_parse_args(argc, argv, o, f);
	fclose(f);
	return ret;
}

static void args_commands_and_options(void **state)
{
	struct nactl_opts o;
	char err[512] = "";

	assert_int_equal(parse(&o, err, sizeof(err), "tasks", "--process", "--node", "2",
			       "--top", "5", "--sort", "migrations", "--json", NULL), 0);
	assert_int_equal(o.cmd, NACTL_CMD_TASKS);
	assert_true(o.process && o.json);
	assert_int_equal(o.node, 2);
	assert_int_equal(o.top, 5);
	assert_string_equal(o.sort, "migrations");

	assert_int_equal(parse(&o, err, sizeof(err), "--json", "status", NULL), 0);
	assert_int_equal(o.cmd, NACTL_CMD_STATUS);
	assert_true(o.json);

	assert_int_equal(parse(&o, err, sizeof(err), "scope", "exclude", "comm", "sshd", NULL), 0);
	assert_int_equal(o.nargs, 3);
	assert_string_equal(o.args[2], "sshd");

	assert_int_equal(parse(&o, err, sizeof(err), "trace", "--duration", "2.5", NULL), 0);
	assert_true(o.duration > 2.49 && o.duration < 2.51);

	assert_int_equal(parse(&o, err, sizeof(err), NULL), 0);
	assert_true(o.help);
	assert_int_equal(parse(&o, err, sizeof(err), "policy", "--help", NULL), 0);
	assert_true(o.help);
	assert_int_equal(o.cmd, NACTL_CMD_POLICY);
}

static void args_refused_with_one_line(void **state)
{
	static const char *const bad[][5] = {
		{ "bogus" }, { "--bogus" }, { "tasks", "--node", "64" },
		{ "tasks", "--node", "x" }, { "tasks", "--top", "0" },
		{ "tasks", "--sort", "name" }, { "trace", "--duration", "-1" },
		{ "trace", "--duration", "" }, { "set", "interval_ms" },
		{ "policy", "home", "extra" }, { "status", "now" },
		{ "tasks", "--frobnicate" }, { "top", "--iterations", "1x" },
		/* what is echoed back cannot break the line */
		{ "tasks", "--top", "1\n2" }, { "po\nlicy" }, { "--x\ny" },
	};
	struct nactl_opts o;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char err[512] = "";

		assert_int_equal(parse(&o, err, sizeof(err), bad[i][0], bad[i][1],
				       bad[i][2], bad[i][3], NULL), NACTL_USAGE);
		/* one line, naming the tool */
		assert_non_null(strstr(err, "numa-advise-ctl"));
		assert_non_null(strchr(err, '\n'));
		assert_string_equal(strchr(err, '\n'), "\n");
	}
}

/*
 * Every command against every option: each it takes is accepted, each it
 * does not is refused with exit 2 and one line naming the option, and
 * nothing is parsed from the refused line.  The table below is written
 * out by hand, from the help texts, not from nactl_cmds[].
 */
static void args_each_command_its_own_options(void **state)
{
	static const struct {
		const char *opt, *val;
		char letter;
	} opts[] = {
		{ "--json", NULL, 'j' }, { "--process", NULL, 'p' },
		{ "--memory", NULL, 'M' }, { "--prometheus", NULL, 'P' },
		{ "--node", "1", 'n' }, { "--comm", "x", 'c' },
		{ "--top", "3", 't' }, { "--sort", "pid", 's' },
		{ "--duration", "2", 'd' }, { "--iterations", "2", 'i' },
		{ "--debugfs", "/d", 'D' }, { "--help", NULL, 'h' },
	};
	static const struct {
		const char *cmd, *takes;
		char *args[3];
	} cmds[] = {
		{ "status", "jDh", { NULL } }, { "policy", "jDh", { NULL } },
		{ "mode", "jDh", { NULL } },
		{ "set", "Dh", { "gain_pm", "300" } }, { "scope", "Dh", { NULL } },
		{ "tasks", "jpnctsDh", { NULL } }, { "nodes", "jDh", { NULL } },
		{ "advice", "jcDh", { NULL } }, { "apply", "McDh", { NULL } },
		{ "trace", "dDh", { NULL } }, { "top", "iDh", { NULL } },
		{ "stats", "jPDh", { NULL } },
	};
	struct nactl_opts o;
	unsigned int c, i;
	char err[512];
	int ret;

	assert_int_equal(sizeof(cmds) / sizeof(cmds[0]), NACTL_NR_CMDS);
	for (c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
		for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
			bool takes = strchr(cmds[c].takes, opts[i].letter);
			char want[128];

			err[0] = '\0';
			ret = parse(&o, err, sizeof(err), cmds[c].cmd, opts[i].opt,
				    opts[i].val ? opts[i].val : cmds[c].args[0],
				    opts[i].val ? cmds[c].args[0] : cmds[c].args[1],
				    opts[i].val ? cmds[c].args[1] : NULL, NULL);
			if (takes) {
				if (ret)
					fail_msg("%s %s refused: %s", cmds[c].cmd,
						 opts[i].opt, err);
				continue;
			}
			if (ret != NACTL_USAGE)
				fail_msg("%s %s: exit %d, want 2", cmds[c].cmd,
					 opts[i].opt, ret);
			snprintf(want, sizeof(want), "numa-advise-ctl %s: takes no option %s ",
				 cmds[c].cmd, opts[i].opt);
			if (strncmp(err, want, strlen(want)) ||
			    strchr(err, '\n') != err + strlen(err) - 1)
				fail_msg("%s %s: said '%s'", cmds[c].cmd,
					 opts[i].opt, err);
		}
	}
	/* the one that mattered: it applied everything */
	assert_int_equal(parse(&o, err, sizeof(err), "apply", "--node", "2", NULL),
			 NACTL_USAGE);
	/* --json before the command too, where the command prints no table */
	assert_int_equal(parse(&o, err, sizeof(err), "--json", "trace", NULL),
			 NACTL_USAGE);
	assert_int_equal(parse(&o, err, sizeof(err), "--json", "tasks", NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table_parse_and_lookup),
		cmocka_unit_test(table_parse_refuses_bad_shapes),
		cmocka_unit_test(text_is_aligned),
		cmocka_unit_test(json_values),
		cmocka_unit_test(node_lists),
		cmocka_unit_test(args_commands_and_options),
		cmocka_unit_test(args_refused_with_one_line),
		cmocka_unit_test(args_each_command_its_own_options),
	};

	return cmocka_run_group_tests_name("ctl", tests, NULL, NULL);
}
