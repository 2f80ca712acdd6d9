// SPDX-License-Identifier: GPL-2.0
/* nactl_table.c - the module's tables: read, look up, print */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nactl.h"

void nactl_table_free(struct nactl_table *t)
{
	free(t->col);
	free(t->cell);
	free(t->buf);
	memset(t, 0, sizeof(*t));
}

/* split - the whitespace-separated words of one line, in place */
static int split(char *line, char **out, int max)
{
	int n = 0;
	char *save, *w;

	for (w = strtok_r(line, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (n < max)
			out[n] = w;
		n++;
	}
	return n;
}

/* next_line - cut @line at its end; the start of the next one, or NULL */
static char *next_line(char *line)
{
	char *nl = strchr(line, '\n');

	if (!nl)
		return NULL;
	*nl = '\0';
	return nl + 1;
}

/*
 * nactl_table_parse - @text as a table: the first line names the columns,
 * every other non-empty line must have as many.  -EINVAL otherwise.
 */
int nactl_table_parse(struct nactl_table *t, const char *text)
{
	size_t lines = 1, words = 1;
	char *line, *next;
	const char *p;
	int n;

	memset(t, 0, sizeof(*t));
	/* No line has more words than there are blanks in all, plus one. */
	for (p = text; *p; p++) {
		lines += *p == '\n';
		words += *p == ' ' || *p == '\t';
	}
	t->buf = strdup(text);
	t->col = calloc(words, sizeof(*t->col));
	t->cell = calloc(words + lines, sizeof(*t->cell));
	if (!t->buf || !t->col || !t->cell) {
		nactl_table_free(t);
		return -ENOMEM;
	}
	next = next_line(t->buf);
	t->ncols = split(t->buf, t->col, words);
	if (!t->ncols)
		goto bad;
	for (line = next; line; line = next) {
		next = next_line(line);
		n = split(line, t->cell + (size_t)t->nrows * t->ncols, t->ncols);
		if (n == 0)
			continue;
		if (n != t->ncols)
			goto bad;
		t->nrows++;
	}
	return 0;
bad:
	nactl_table_free(t);
	return -EINVAL;
}

int nactl_table_read(struct nactl_table *t, const char *path)
{
	size_t len = 0, cap = 1 << 16;
	char *text = malloc(cap);
	FILE *f;
	int ret;

	if (!text)
		return -ENOMEM;
	f = fopen(path, "r");
	if (!f) {
		ret = -errno;
		free(text);
		return ret;
	}
	for (;;) {
		size_t got = fread(text + len, 1, cap - len - 1, f);

		len += got;
		if (len < cap - 1)
			break;
		cap *= 2;
		char *bigger = realloc(text, cap);

		if (!bigger) {
			fclose(f);
			free(text);
			return -ENOMEM;
		}
		text = bigger;
	}
	ret = ferror(f) ? -EIO : 0;
	fclose(f);
	text[len] = '\0';
	if (!ret)
		ret = nactl_table_parse(t, text);
	free(text);
	return ret;
}

int nactl_table_col(const struct nactl_table *t, const char *name)
{
	int i;

	for (i = 0; i < t->ncols; i++)
		if (!strcmp(t->col[i], name))
			return i;
	return -1;
}

const char *nactl_cell(const struct nactl_table *t, int row, int col)
{
	if (row < 0 || row >= t->nrows || col < 0 || col >= t->ncols)
		return NULL;
	return t->cell[(size_t)row * t->ncols + col];
}

const char *nactl_get(const struct nactl_table *t, int row, const char *name)
{
	return nactl_cell(t, row, nactl_table_col(t, name));
}

void nactl_print_text(FILE *f, const struct nactl_table *t)
{
	int *w = calloc(t->ncols ? t->ncols : 1, sizeof(*w));
	int r, c;

	if (!w)
		return;
	for (c = 0; c < t->ncols; c++) {
		w[c] = strlen(t->col[c]);
		for (r = 0; r < t->nrows; r++) {
			int l = strlen(nactl_cell(t, r, c));

			if (l > w[c])
				w[c] = l;
		}
	}
	for (r = -1; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			const char *s = r < 0 ? t->col[c] : nactl_cell(t, r, c);

			if (c == t->ncols - 1)
				fprintf(f, "%s\n", s);
			else
				fprintf(f, "%-*s  ", w[c], s);
		}
	}
	free(w);
}

/* nactl_is_number - a decimal integer or fraction, as JSON can take it */
bool nactl_is_number(const char *s)
{
	bool digits = false, dot = false;

	if (*s == '-')
		s++;
	if (s[0] == '0' && isdigit((unsigned char)s[1]))
		return false;	/* JSON has no leading zeros */
	for (; *s; s++) {
		if (isdigit((unsigned char)*s))
			digits = true;
		else if (*s == '.' && !dot && digits)
			dot = true;
		else
			return false;
	}
	return digits && s[-1] != '.';
}

/* nactl_json_value - a number as a number, "-" as null, else a string */
void nactl_json_value(FILE *f, const char *s)
{
	if (nactl_is_number(s)) {
		fputs(s, f);
		return;
	}
	if (!strcmp(s, "-")) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

void nactl_print_json(FILE *f, const struct nactl_table *t)
{
	int r, c;

	fputc('[', f);
	for (r = 0; r < t->nrows; r++) {
		fputs(r ? ",\n {" : "{", f);
		for (c = 0; c < t->ncols; c++) {
			if (c)
				fputs(", ", f);
			nactl_json_value(f, t->col[c]);
			fputs(": ", f);
			nactl_json_value(f, nactl_cell(t, r, c));
		}
		fputc('}', f);
	}
	fputs("]\n", f);
}

char *nactl_nodes_str(uint64_t set, char *buf, size_t len)
{
	size_t used = 0;
	int n = 0;

	buf[0] = '\0';
	if (!set) {
		snprintf(buf, len, "-");
		return buf;
	}
	while (n < 64) {
		int first;

		if (!(set >> n & 1)) {
			n++;
			continue;
		}
		first = n;
		while (n < 63 && (set >> (n + 1) & 1))
			n++;
		used += snprintf(buf + used, used < len ? len - used : 0,
				 first == n ? "%s%d" : "%s%d-%d",
				 used ? "," : "", first, n);
		n++;
	}
	return buf;
}

/* nactl_nodes_parse - "0-3,5" (or "-": none) into a bitmap; -EINVAL */
int nactl_nodes_parse(const char *s, uint64_t *set)
{
	*set = 0;
	if (!strcmp(s, "-"))
		return 0;
	do {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s || a < 0 || a > 63)
			return -EINVAL;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a || b > 63)
				return -EINVAL;
		}
		for (; a <= b; a++)
			*set |= 1ULL << a;
		s = end + 1;
		if (*end && *end != ',')
			return -EINVAL;
		if (!*end)
			break;
	} while (1);
	return 0;
}
