// SPDX-License-Identifier: GPL-2.0
/*
 * na-fuzz - hostile writes to every setting of a loaded numa_advise, each
 * one checked against a model of what the module must do with it
 *
 * usage: na-fuzz [-s SEED] [-n WRITES] [-j WRITERS] [-r READERS] [-t SECONDS]
 *
 * Phase 1, one writer, WRITES writes: random bytes, mutations of good
 * values, empty writes, 1 MiB writes, writes at offsets and writes split in
 * two, to the debugfs files (policy, mode, scope, reset, and the read-only
 * tables) and to the writable module parameters.  For each write the model
 * says whether it must be taken or refused, and what the setting reads
 * afterwards; any difference is printed, with the bytes written in hex.
 *
 * Phase 2, SECONDS long: WRITERS processes write the same kinds of input to
 * the same files at once, each checking that every write is taken or
 * refused as the model says, while READERS processes read every file and
 * check that what they read is well formed: one of the names, a number in
 * range, rules in the scope's grammar.
 *
 * Before it exits it puts every setting back as it found it.  Prints
 * "na-fuzz: ..." summary lines; exits 1 if anything differed from the model,
 * 2 on a usage or setup error.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DBG	"/sys/kernel/debug/numa_advise/"
#define PAR	"/sys/module/numa_advise/parameters/"
#define HUGE	(1 << 20)
#define MAX_RULES 16		/* NA_MAX_RULES */
#define SYSFS_MAX 4096		/* kernfs cuts a write to one page */

enum kind { CHOICE, UINT, SCOPE, RESET, TABLE };

struct setting {
	const char *path;
	enum kind kind;
	bool sysfs;		/* a module parameter: kernfs' write rules */
	int model;		/* CHOICE: index of the model's value */
	const char *const *names;
	unsigned int min, max;	/* UINT */
	unsigned long long value;	/* UINT: what the model says it holds */
	char saved[256];	/* as found, to put back */
};

static const char *const policies[] = { "none", "home", "distance", NULL };
static const char *const modes[] = { "advise", "enforce", NULL };

#define DEBUGFS_FILE(name, k)	{ .path = DBG name, .kind = k }
#define DEBUGFS_CHOICE(name, m, n) \
	{ .path = DBG name, .kind = CHOICE, .model = m, .names = n }
#define PARAM_CHOICE(name, m, n) \
	{ .path = PAR name, .kind = CHOICE, .sysfs = true, .model = m, .names = n }
#define PARAM_UINT(name, lo, hi) \
	{ .path = PAR name, .kind = UINT, .sysfs = true, .min = lo, .max = hi }

/* policy and mode are one setting each, seen through two files */
static struct setting settings[] = {
	DEBUGFS_CHOICE("policy", 0, policies),
	DEBUGFS_CHOICE("mode", 1, modes),
	DEBUGFS_FILE("scope", SCOPE),
	DEBUGFS_FILE("reset", RESET),
	DEBUGFS_FILE("tasks", TABLE), DEBUGFS_FILE("nodes", TABLE),
	DEBUGFS_FILE("status", TABLE), DEBUGFS_FILE("advice", TABLE),
	DEBUGFS_FILE("overhead", TABLE),
	/* mode before policy: restore_settings() puts them back in this order */
	PARAM_CHOICE("mode", 1, modes),
	PARAM_CHOICE("policy", 0, policies),
	PARAM_UINT("interval_ms", 10, 60000),
	PARAM_UINT("min_move_ms", 0, 3600000),
	PARAM_UINT("gain_pm", 0, 10000),
	PARAM_UINT("margin_pm", 0, 500),
	PARAM_UINT("imbalance_pct", 100, 200),
	PARAM_UINT("lean", 0, 1),
	/* 0444: never writable */
	{ .path = PAR "max_tasks", .kind = TABLE, .sysfs = true },
};
#define NR_SETTINGS (sizeof(settings) / sizeof(settings[0]))

/* the model's state: the two choices and the scope rules, canonical */
static int choice[2];
static char rules[MAX_RULES][160];
static int nr_rules;

static unsigned long long writes, taken, mismatches;

/* --- randomness: xorshift64*, seeded on the command line ----------------- */
static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1DULL;
}

static unsigned int below(unsigned int n)
{
	return n ? rnd() % n : 0;
}

/* --- the kernel's parsers, as the module and kernfs use them ------------- */

/* kstrtoull(s, base) with its rules: '+', radix prefix, one '\n' at the end */
static int kstrtoull_(const char *s, unsigned int base, unsigned long long *res)
{
	unsigned long long v = 0;
	bool overflow = false;
	int n = 0;

	if (*s == '+')
		s++;
	if (base == 0) {
		if (s[0] == '0')
			base = tolower((unsigned char)s[1]) == 'x' &&
			       isxdigit((unsigned char)s[2]) ? 16 : 8;
		else
			base = 10;
	}
	if (base == 16 && s[0] == '0' && tolower((unsigned char)s[1]) == 'x')
		s += 2;
	for (;; s++, n++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (tolower((unsigned char)*s) >= 'a' &&
			 tolower((unsigned char)*s) <= 'f')
			d = tolower((unsigned char)*s) - 'a' + 10;
		else
			break;
		if (d >= base)
			break;
		if (v > (ULLONG_MAX - d) / base)
			overflow = true;
		v = v * base + d;
	}
	if (!n)
		return -EINVAL;
	if (overflow)
		return -ERANGE;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*res = v;
	return 0;
}

/* kstrtoint(s, 10) */
static int kstrtoint10(const char *s, int *res)
{
	unsigned long long v;
	bool neg = *s == '-';

	if (kstrtoull_(s + neg, 10, &v) || (neg && s[1] == '+'))
		return -EINVAL;
	if (v > (unsigned long long)INT_MAX + neg)
		return -ERANGE;
	*res = neg ? (int)-v : (int)v;
	return 0;
}

/* sysfs_streq(a, b): equal, but for one '\n' at the end of either */
static bool sysfs_streq_(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b || (!*a && b[0] == '\n' && !b[1]) ||
	       (a[0] == '\n' && !a[1] && !*b);
}

/*
 * debugfs_line - the module's na_write_line(): the text of a one-line write
 * of fewer than @size bytes at offset 0, without its '\n'; false if refused
 */
static bool debugfs_line(const char *d, size_t len, off_t off, size_t size,
			 char *out)
{
	if (off || !len || len >= size || memchr(d, '\0', len))
		return false;
	memcpy(out, d, len);
	out[len] = '\0';
	if (out[len - 1] == '\n')
		out[--len] = '\0';
	return len && !strchr(out, '\n');
}

/* scope_rule - a rule as the module stores and shows it; false if refused */
static bool scope_rule(char *text, char *canon)
{
	char *verb = strsep(&text, " "), *kind = strsep(&text, " ");
	int pid;

	if (strcmp(verb, "include") && strcmp(verb, "exclude"))
		return false;
	if (!kind || !text || !*text || strchr(text, ' '))
		return false;
	if (!strcmp(kind, "pid")) {
		if (kstrtoint10(text, &pid) || pid <= 0)
			return false;
		sprintf(canon, "%s pid %d", verb, pid);
	} else if (!strcmp(kind, "comm")) {
		if (strlen(text) >= 16)
			return false;
		sprintf(canon, "%s comm %s", verb, text);
	} else if (!strcmp(kind, "cgroup")) {
		if (text[0] != '/' || (text[1] && text[strlen(text) - 1] == '/') ||
		    strlen(text) >= 128)
			return false;
		sprintf(canon, "%s cgroup %s", verb, text);
	} else {
		return false;
	}
	return true;
}

/* predict()'s answer for a good new rule while other writers run */
#define TAKEN_OR_FULL	LONG_MIN

/*
 * predict - what a write of @d[@len] at @off to @s must do: the number of
 * bytes it returns or -errno; TAKEN_OR_FULL for a good scope rule when the
 * model is not followed (other writers fill and clear the scope).  With
 * @apply, the model follows the write.
 */
static long predict(struct setting *s, const char *d, size_t len, off_t off,
		    bool apply)
{
	char text[SYSFS_MAX + 1], canon[200];
	unsigned long long v;
	int i;

	switch (s->kind) {
	case TABLE:
		return -EINVAL;	/* no write method (or no write permission) */
	case RESET:
		return !off && (len == 1 || len == 2) && d[0] == '1' &&
		       (len == 1 || d[1] == '\n') ? (long)len : -EINVAL;
	case SCOPE:
		if (!debugfs_line(d, len, off, 152, text))
			return -EINVAL;
		if (!strcmp(text, "clear")) {
			if (apply)
				nr_rules = 0;
			return len;
		}
		if (!scope_rule(text, canon))
			return -EINVAL;
		if (!apply)
			return TAKEN_OR_FULL;
		for (i = 0; i < nr_rules; i++)
			if (!strcmp(rules[i], canon))
				return len;
		if (nr_rules == MAX_RULES)
			return -ENOSPC;
		strcpy(rules[nr_rules++], canon);
		return len;
	case CHOICE:
	case UINT:
		break;
	}
	if (!s->sysfs) {
		if (!debugfs_line(d, len, off, 16, text))
			return -EINVAL;
	} else {
		/* kernfs: one page at most, the offset ignored, cut at a NUL */
		if (!len)
			return 0;
		if (len > SYSFS_MAX)
			len = SYSFS_MAX;
		memcpy(text, d, len);
		text[len] = '\0';
		if (s->kind == UINT) {
			if (kstrtoull_(text, 0, &v) || v < s->min || v > s->max)
				return -EINVAL;
			if (apply)
				s->value = v;
			return len;
		}
	}
	/* a name; a debugfs line has lost its '\n' already */
	for (i = 0; s->names[i]; i++)
		if (sysfs_streq_(s->names[i], text))
			break;
	if (!s->names[i])
		return -EINVAL;
	if (apply)
		choice[s->model] = i;
	return len;
}

/* --- input ------------------------------------------------------------- */

/* a good value for @s, sometimes with its newline */
static size_t good(const struct setting *s, char *d)
{
	static const char *const kinds[] = { "pid", "comm", "cgroup" };
	static const char *const comms[] = { "sshd", "memtouch", "x", "a\tb",
					     "0123456789abcde", "\xff\xfe" };
	static const char *const cgroups[] = { "/", "/system.slice",
					       "/user.slice/a", "/x" };
	const char *k;
	int n = 0, i;

	switch (s->kind) {
	case CHOICE:
		for (i = 0; s->names[i]; i++)
			;
		n = sprintf(d, "%s", s->names[below(i)]);
		break;
	case UINT:
		n = sprintf(d, "%u", s->min + below(s->max - s->min + 1));
		break;
	case RESET:
		n = sprintf(d, "1");
		break;
	case SCOPE:
		if (!below(8))
			return sprintf(d, "clear\n");
		k = kinds[below(3)];
		n = sprintf(d, "%s %s ", below(2) ? "include" : "exclude", k);
		if (k[0] == 'p')
			n += sprintf(d + n, "%u", 1 + below(40000));
		else if (k[1] == 'o')
			n += sprintf(d + n, "%s", comms[below(6)]);
		else
			n += sprintf(d + n, "%s", cgroups[below(4)]);
		break;
	case TABLE:
		n = sprintf(d, "1");
		break;
	}
	if (below(2))
		d[n++] = '\n';
	return n;
}

/* a number the parsers get wrong easily */
static size_t edge_number(const struct setting *s, char *d)
{
	static const char *const fixed[] = {
		"-1", "+5", "0x10", "010", "08", "0x", "1e3", " 5", "5 ", "5\n\n",
		"4294967295", "4294967296", "18446744073709551615",
		"18446744073709551616", "99999999999999999999999", "-0", "0",
		"+", "++1", "0X1f", "1_000",
	};
	unsigned int i = below(sizeof(fixed) / sizeof(fixed[0]) + 4);

	switch (i) {
	case 0: return sprintf(d, "%u", s->min - 1);
	case 1: return sprintf(d, "%u", s->max + 1);
	case 2: return sprintf(d, "%u", s->min);
	case 3: return sprintf(d, "%u", s->max);
	}
	return sprintf(d, "%s", fixed[i - 4]);
}

/* mutate - @k small damages to @d[@n]: flips, inserts, deletes, doubling */
static size_t mutate(char *d, size_t n, int k)
{
	size_t i;

	while (k--) {
		i = n ? below(n) : 0;
		switch (below(7)) {
		case 0:
			if (n)
				d[i] ^= 1 << below(8);
			break;
		case 1:
			if (n)
				d[i] = rnd();
			break;
		case 2:		/* insert a byte, a NUL or a newline sometimes */
			memmove(d + i + 1, d + i, n - i);
			d[i] = below(3) ? (char)rnd() : below(2) ? '\0' : '\n';
			n++;
			break;
		case 3:
			if (n) {
				memmove(d + i, d + i + 1, n - i - 1);
				n--;
			}
			break;
		case 4:
			if (n && n < 200) {
				memcpy(d + n, d, n);
				n *= 2;
			}
			break;
		case 5:
			d[n++] = below(2) ? ' ' : '\n';
			break;
		case 6:
			n = below(n + 1);
			break;
		}
	}
	return n;
}

/* make_input - something to write to @s; returns its length */
static size_t make_input(const struct setting *s, char *d)
{
	size_t n, i;

	switch (below(12)) {
	case 0: case 1: case 2:
		return good(s, d);
	case 3: case 4: case 5:
		n = good(s, d);
		return mutate(d, n, 1 + below(3));
	case 6:
		return s->kind == UINT ? edge_number(s, d) : good(s, d);
	case 7:			/* random bytes */
		n = below(65);
		for (i = 0; i < n; i++)
			d[i] = rnd();
		return n;
	case 8:			/* printable junk, sometimes long */
		n = below(2) ? below(32) : below(300);
		for (i = 0; i < n; i++)
			d[i] = ' ' + below(95);
		return n;
	case 9:
		return 0;
	case 10:		/* a page and more: a digit or junk, repeated */
		if (below(4))
			return good(s, d);
		n = below(2) ? HUGE : SYSFS_MAX + below(3) - 1;
		memset(d, below(2) ? '7' : 'a' + below(26), n);
		return n;
	default:
		n = good(s, d);
		memcpy(d + n, d, n);	/* the value twice */
		return n * 2;
	}
}

/* --- doing it ---------------------------------------------------------- */

static void hexdump(FILE *f, const char *d, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < 48; i++)
		fprintf(f, "%02x", (unsigned char)d[i]);
	if (n > 48)
		fprintf(f, "... (%zu bytes)", n);
}

static void mismatch(const struct setting *s, const char *d, size_t n,
		     off_t off, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void mismatch(const struct setting *s, const char *d, size_t n,
		     off_t off, const char *fmt, ...)
{
	va_list ap;

	mismatches++;
	if (mismatches > 20)
		return;
	printf("na-fuzz: %s, %zu bytes at offset %lld [", s->path, n,
	       (long long)off);
	hexdump(stdout, d, n);
	printf("]: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/*
 * agrees - the write of @n bytes at @off returned @got, as predict()'s
 * @want says.  A write at an offset to a file that cannot seek is refused
 * by the VFS (ESPIPE) before the module sees it.
 */
static bool agrees(long want, long got, size_t n, off_t off)
{
	if (want == TAKEN_OR_FULL)
		return got == (long)n || got == -ENOSPC;
	return got == want || (off > 0 && want == -EINVAL && got == -ESPIPE);
}

/* do_write - write @d[@n] to an open @fd at @off (-1: plain write) */
static long do_write(int fd, const char *d, size_t n, off_t off)
{
	ssize_t r = off < 0 ? write(fd, d, n) : pwrite(fd, d, n, off);

	return r < 0 ? -errno : r;
}

/* slurp_by - read @path whole into @buf, @chunk bytes a read() at most */
static bool slurp_by(const char *path, char *buf, size_t size, size_t chunk)
{
	int fd = open(path, O_RDONLY);
	ssize_t n, tot = 0;
	size_t want;

	if (fd < 0)
		return false;
	do {
		want = size - 1 - tot < chunk ? size - 1 - tot : chunk;
		n = read(fd, buf + tot, want);
		tot += n > 0 ? n : 0;
	} while (n > 0);
	close(fd);
	buf[tot] = '\0';
	return n == 0;
}

static bool slurp(const char *path, char *buf, size_t size)
{
	return slurp_by(path, buf, size, size);
}

static unsigned long reset_generation(void)
{
	static char buf[8192];
	char *p;

	if (!slurp(DBG "status", buf, sizeof(buf)))
		return 0;
	p = strstr(buf, "\nreset_generation ");
	return p ? strtoul(p + 18, NULL, 10) : 0;
}

/*
 * check_all - after a write to @s, taken or refused, every setting reads
 * what the model says: a refused write changes nothing, anywhere, and a
 * taken one changes its own setting alone
 */
static void check_all(const struct setting *s, const char *d, size_t n,
		      off_t off)
{
	char buf[4096], want[MAX_RULES * 161 + 1];
	unsigned int i, j;

	for (i = 0; i < NR_SETTINGS; i++) {
		const struct setting *t = &settings[i];

		if (t->kind != CHOICE && t->kind != SCOPE && t->kind != UINT)
			continue;
		if (!slurp(t->path, buf, sizeof(buf))) {
			mismatch(s, d, n, off, "cannot read %s back", t->path);
			continue;
		}
		want[0] = '\0';
		if (t->kind == CHOICE)
			sprintf(want, "%s\n", t->names[choice[t->model]]);
		else if (t->kind == UINT)
			sprintf(want, "%llu\n", t->value);
		else
			for (j = 0; j < (unsigned int)nr_rules; j++)
				sprintf(want + strlen(want), "%s\n", rules[j]);
		if (strcmp(buf, want))
			mismatch(s, d, n, off, "then %s reads '%s', the model says '%s'",
				 t->path, buf, want);
	}
}

/*
 * one_write - one hostile write to @s (fresh fd; at an offset, split in
 * two or whole), checked against predict(); @model: also follow the model
 * and check the state after (one writer only)
 */
static void one_write(struct setting *s, char *d, bool model)
{
	unsigned long gen = 0;
	size_t n = make_input(s, d), first = n;
	off_t off = -1, at;
	long want, got;
	int fd, how = below(8), nr_taken;

	if (how == 0)
		off = below(2) ? 1 + below(10) : (off_t)1 << 40;
	else if (how == 1 && n > 1)
		first = 1 + below(n - 1);
	fd = open(s->path, O_WRONLY);
	if (fd < 0) {
		if (s->kind != TABLE || errno != EACCES)
			mismatch(s, d, n, 0, "open: %s", strerror(errno));
		return;
	}
	if (model && s->kind == RESET)
		gen = reset_generation();
	at = off < 0 ? 0 : off;
	want = predict(s, d, first, at, model);
	got = do_write(fd, d, first, off);
	writes++;
	if (!agrees(want, got, first, off))
		mismatch(s, d, first, at, "returned %ld, the model says %ld", got, want);
	nr_taken = got > 0;
	if (first < n) {	/* the rest, where the file position now is */
		at = s->sysfs || got <= 0 ? 0 : got;
		want = predict(s, d + first, n - first, at, model);
		got = do_write(fd, d + first, n - first, -1);
		writes++;
		if (!agrees(want, got, n - first, -1))
			mismatch(s, d + first, n - first, at,
				 "second part returned %ld, the model says %ld", got, want);
		nr_taken += got > 0;
	}
	taken += nr_taken;
	close(fd);
	if (!model)
		return;
	check_all(s, d, n, at);
	if (s->kind == RESET && reset_generation() != gen + nr_taken)
		mismatch(s, d, n, at, "reset_generation %lu -> %lu", gen,
			 reset_generation());
}

/* well_formed - what a reader sees in @s is in its grammar */
static bool well_formed(const struct setting *s, char *buf)
{
	char *line, *save, canon[200];
	unsigned long long v;
	int i, lines = 0;

	switch (s->kind) {
	case CHOICE:
		for (i = 0; s->names[i]; i++)
			if (sysfs_streq_(s->names[i], buf))
				return true;
		return false;
	case UINT:
		return !kstrtoull_(buf, 10, &v) && v >= s->min && v <= s->max;
	case SCOPE:
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			if (++lines > MAX_RULES || !scope_rule(line, canon))
				return false;
		}
		return true;
	case TABLE:
		return buf[0] != '\0';
	case RESET:
		break;
	}
	return true;
}

static volatile sig_atomic_t stop;

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

/* reader - read every file until the time is up; count what is not right */
static int reader(void)
{
	static char buf[1 << 16];
	char copy[sizeof(buf)];
	unsigned int i, bad = 0, reads = 0;

	while (!stop) {
		for (i = 0; i < NR_SETTINGS; i++) {
			const struct setting *s = &settings[i];

			if (s->kind == RESET)
				continue;
			/* in small reads too: a value must not tear */
			if (!slurp_by(s->path, buf, sizeof(buf),
				      below(2) ? 1 + below(8) : sizeof(buf)) ||
			    !well_formed(s, strcpy(copy, buf))) {
				if (bad++ < 5)
					printf("na-fuzz: reader: %s read '%.80s'\n",
					       s->path, buf);
			}
			reads++;
		}
	}
	printf("na-fuzz: reader %d: %u reads, %u bad\n", getpid(), reads, bad);
	return bad ? 1 : 0;
}

/* writer - hostile writes until the time is up; each checked alone */
static int writer(char *d)
{
	while (!stop)
		one_write(&settings[below(NR_SETTINGS)], d, false);
	printf("na-fuzz: writer %d: %llu writes, %llu taken, %llu wrong\n",
	       getpid(), writes, taken, mismatches);
	return mismatches ? 1 : 0;
}

/* save / restore - the settings as found, put back at the end */
static void save_settings(void)
{
	unsigned int i;

	for (i = 0; i < NR_SETTINGS; i++) {
		struct setting *s = &settings[i];

		if (s->kind == CHOICE || s->kind == UINT)
			slurp(s->path, s->saved, sizeof(s->saved));
	}
}

static int write_str(const char *path, const char *str)
{
	int fd = open(path, O_WRONLY), ret;

	if (fd < 0)
		return -1;
	ret = write(fd, str, strlen(str)) == (ssize_t)strlen(str) ? 0 : -1;
	close(fd);
	return ret;
}

static int restore_settings(void)
{
	int ret = write_str(DBG "scope", "clear");
	unsigned int i;

	for (i = 0; i < NR_SETTINGS; i++) {
		const struct setting *s = &settings[i];

		if (s->sysfs && (s->kind == UINT || s->kind == CHOICE))
			ret |= write_str(s->path, s->saved);
	}
	return ret;
}

int main(int argc, char **argv)
{
	unsigned long long seed = time(NULL), n = 2000;
	unsigned int nwriters = 2, nreaders = 1, secs = 10, i;
	int opt, status, failed = 0;
	struct sigaction sa = { .sa_handler = on_alarm };
	char *d;

	while ((opt = getopt(argc, argv, "s:n:j:r:t:")) != -1) {
		switch (opt) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': n = strtoull(optarg, NULL, 0); break;
		case 'j': nwriters = atoi(optarg); break;
		case 'r': nreaders = atoi(optarg); break;
		case 't': secs = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: na-fuzz [-s SEED] [-n WRITES] [-j WRITERS] [-r READERS] [-t SECONDS]\n");
			return 2;
		}
	}
	d = malloc(2 * HUGE + 1024);
	if (!d || access(DBG "status", R_OK)) {
		fprintf(stderr, "na-fuzz: numa_advise is not loaded (or not root)\n");
		return 2;
	}
	rng = seed * 2 + 1;
	save_settings();
	/* the model starts where the module is */
	for (i = 0; i < 2; i++) {
		struct setting *s = &settings[i];
		char buf[64];

		slurp(s->path, buf, sizeof(buf));
		for (choice[i] = 0; s->names[choice[i]]; choice[i]++)
			if (sysfs_streq_(s->names[choice[i]], buf))
				break;
	}
	for (i = 0; i < NR_SETTINGS; i++) {
		struct setting *s = &settings[i];
		char buf[64];

		if (s->kind == UINT && (!slurp(s->path, buf, sizeof(buf)) ||
					kstrtoull_(buf, 10, &s->value))) {
			fprintf(stderr, "na-fuzz: cannot read %s\n", s->path);
			return 2;
		}
	}
	write_str(DBG "scope", "clear");
	nr_rules = 0;

	printf("na-fuzz: seed %llu\n", seed);
	for (i = 0; i < n; i++)
		one_write(&settings[below(NR_SETTINGS)], d, true);
	printf("na-fuzz: one writer: %llu writes, %llu taken, %llu differed from the model\n",
	       writes, taken, mismatches);
	failed |= mismatches > 0;
	fflush(stdout);

	sigaction(SIGALRM, &sa, NULL);
	for (i = 0; i < nwriters + nreaders; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			rng = (seed + i + 1) * 0x9E3779B97F4A7C15ULL | 1;
			writes = taken = mismatches = 0;
			alarm(secs);
			exit(i < nwriters ? writer(d) : reader());
		}
	}
	while (wait(&status) > 0)
		failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	if (restore_settings()) {
		printf("na-fuzz: could not put the settings back\n");
		failed = 1;
	}
	printf("na-fuzz: %s\n", failed ? "FAILED" : "ok");
	return failed;
}
