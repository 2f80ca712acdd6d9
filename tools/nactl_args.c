// SPDX-License-Identifier: GPL-2.0
/* nactl_args.c - numa-advise-ctl's command line */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "nactl.h"
#include "../module/na_names.h"

#define NACTL_CMD_SPEC(id, name, min, max, opts)	{ name, min, max, opts },
const struct nactl_cmd_spec nactl_cmds[NACTL_NR_CMDS] = {
	NACTL_COMMANDS(NACTL_CMD_SPEC)
};

#define NACTL_CMD_NAME(id, name, min, max, opts)	name,
const char *const nactl_cmd_names[NACTL_NR_CMDS + 1] = {
	NACTL_COMMANDS(NACTL_CMD_NAME) NULL
};

/* the module's own lists (module/na_names.h), NULL-ended */
const char *const nactl_policies[] = { NA_POLICIES(NA_NAME_OF) NULL };
const char *const nactl_modes[] = { NA_MODES(NA_NAME_OF) NULL };
/* the module parameters that can change while it runs */
#define NACTL_PARAM(name, def, lo, hi, desc)	#name,
const char *const nactl_params[] = {
	NA_UINT_PARAMS(NACTL_PARAM) "policy", "mode", NULL
};
static const char *const sorts[] = { "runtime", "migrations", "pid", NULL };

int nactl_lookup(const char *const *names, const char *s)
{
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

void nactl_list(FILE *f, const char *const *names)
{
	int i;

	for (i = 0; names[i]; i++)
		fprintf(f, "%s%s", i ? ", " : "", names[i]);
	fputc('\n', f);
}

/*
 * nactl_shown - @s as a message may echo it: control and non-ASCII bytes
 * escaped, and cut after 64 characters, so that a refusal stays one line.
 * The result lives in a static buffer until the next call.
 */
const char *nactl_shown(const char *s)
{
	static char buf[64 + 4 + 4];
	size_t n = 0;

	for (; *s && n < 64; s++) {
		unsigned char c = *s;

		if (c == '\n')
			n += sprintf(buf + n, "\\n");
		else if (c < ' ' || c > '~')
			n += sprintf(buf + n, "\\x%02x", c);
		else
			buf[n++] = c;
	}
	strcpy(buf + n, *s ? "..." : "");
	return buf;
}

/* number - a whole number in [lo, hi], or -1 */
static long number(const char *s, long lo, long hi)
{
	char *end;
	long v;

	if (!*s)
		return -1;
	v = strtol(s, &end, 10);
	return *end || v < lo || v > hi ? -1 : v;
}

/*
 * nactl_parse_args - the command and its options.  Returns 0, or
 * NACTL_USAGE after one line on @err saying what is wrong.  "--help" (or
 * no command) sets @o->help.
 */
int nactl_parse_args(int argc, char **argv, struct nactl_opts *o, FILE *err)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "process", no_argument, NULL, 'p' },
		{ "memory", no_argument, NULL, 'M' },
		{ "prometheus", no_argument, NULL, 'P' },
		{ "node", required_argument, NULL, 'n' },
		{ "comm", required_argument, NULL, 'c' },
		{ "top", required_argument, NULL, 't' },
		{ "sort", required_argument, NULL, 's' },
		{ "duration", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "debugfs", required_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 },
	};
	const struct nactl_cmd_spec *spec;
	int opt, c;
	char *end;

	memset(o, 0, sizeof(*o));
	o->node = -1;
	o->sort = "runtime";
	o->debugfs = "/sys/kernel/debug/numa_advise";
	optind = 1;
	opterr = 0;
	/* "+": options after the command belong to it, as in git */
	if (argc < 2 || argv[1][0] == '-') {
		while ((opt = getopt_long(argc, argv, "+jh", longopts, NULL)) != -1) {
			if (opt == 'h')
				o->help = true;
			else if (opt == 'j')
				o->json = true;
			else {
				fprintf(err, "numa-advise-ctl: unknown option '%s' (see --help)\n",
					nactl_shown(argv[optind - 1]));
				return NACTL_USAGE;
			}
		}
	}
	if (optind >= argc) {
		o->help = true;
		o->cmd = NACTL_NR_CMDS;
		return 0;
	}
	c = nactl_lookup(nactl_cmd_names, argv[optind]);
	if (c < 0) {
		fprintf(err, "numa-advise-ctl: unknown command '%s'; commands: ",
			nactl_shown(argv[optind]));
		nactl_list(err, nactl_cmd_names);
		return NACTL_USAGE;
	}
	o->cmd = c;
	spec = &nactl_cmds[c];
	argc -= optind;
	argv += optind;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+jhpMPn:c:t:s:d:i:D:", longopts,
				  NULL)) != -1) {
		/* an option this command does not take: refused, not ignored */
		if (opt != '?' && opt != ':' && opt != 'h' && opt != 'D' &&
		    !strchr(spec->opts, opt)) {
			for (c = 0; longopts[c].val != opt; c++)
				;
			fprintf(err, "numa-advise-ctl %s: takes no option --%s (see numa-advise-ctl %s --help)\n",
				spec->name, longopts[c].name, spec->name);
			return NACTL_USAGE;
		}
		switch (opt) {
		case 'j': o->json = true; break;
		case 'h': o->help = true; break;
		case 'p': o->process = true; break;
		case 'M': o->memory = true; break;
		case 'P': o->prometheus = true; break;
		case 'c': o->comm = optarg; break;
		case 'D': o->debugfs = optarg; break;
		case 'n':
			o->node = number(optarg, 0, 63);
			if (o->node < 0)
				goto bad_value;
			break;
		case 't':
			o->top = number(optarg, 1, 1000000);
			if (o->top < 0)
				goto bad_value;
			break;
		case 'i':
			o->iterations = number(optarg, 1, 1000000);
			if (o->iterations < 0)
				goto bad_value;
			break;
		case 's':
			if (nactl_lookup(sorts, optarg) < 0) {
				fprintf(err, "numa-advise-ctl: --sort takes one of: ");
				nactl_list(err, sorts);
				return NACTL_USAGE;
			}
			o->sort = optarg;
			break;
		case 'd':
			o->duration = strtod(optarg, &end);
			if (*end || !*optarg || !(o->duration > 0) ||
			    o->duration > 86400)
				goto bad_value;
			break;
		default:
			fprintf(err, "numa-advise-ctl %s: unknown option '%s' (see numa-advise-ctl %s --help)\n",
				nactl_cmd_names[c], nactl_shown(argv[optind - 1]),
				nactl_cmd_names[c]);
			return NACTL_USAGE;
		}
	}
	if (o->json && !strchr(spec->opts, 'j')) {
		fprintf(err, "numa-advise-ctl %s: takes no option --json (see numa-advise-ctl %s --help)\n",
			spec->name, spec->name);
		return NACTL_USAGE;
	}
	o->nargs = argc - optind;
	o->args = argv + optind;
	if (!o->help && (o->nargs < spec->min_args ||
			 o->nargs > spec->max_args)) {
		fprintf(err, "numa-advise-ctl %s: wrong number of arguments (see numa-advise-ctl %s --help)\n",
			nactl_cmd_names[c], nactl_cmd_names[c]);
		return NACTL_USAGE;
	}
	return 0;
bad_value:
	for (c = 0; longopts[c].name && longopts[c].val != opt; c++)
		;
	fprintf(err, "numa-advise-ctl %s: bad value '%s' for --%s\n",
		nactl_cmd_names[o->cmd], nactl_shown(optarg), longopts[c].name);
	return NACTL_USAGE;
}
