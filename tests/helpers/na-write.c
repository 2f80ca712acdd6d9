// SPDX-License-Identifier: GPL-2.0
/*
 * na-write - one write(2) of DATA to FILE, at OFFSET with pwrite(2) if given
 *
 * usage: na-write FILE DATA [OFFSET]
 * DATA takes C escapes \n and \t.  Prints "ok <bytes>" or the errno name
 * (e.g. "EINVAL"), so a test can assert exactly how a write was refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t unescape(char *s)
{
	char *r = s, *w = s;

	while (*r) {
		if (r[0] == '\\' && (r[1] == 'n' || r[1] == 't')) {
			*w++ = r[1] == 'n' ? '\n' : '\t';
			r += 2;
		} else {
			*w++ = *r++;
		}
	}
	return w - s;
}

static const char *errname(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case EFAULT: return "EFAULT";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	case EBUSY: return "EBUSY";
	case ENOSPC: return "ENOSPC";
	case ESPIPE: return "ESPIPE";
	default: return strerror(e);
	}
}

int main(int argc, char **argv)
{
	ssize_t ret;
	size_t len;
	int fd;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: na-write FILE DATA [OFFSET]\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		printf("%s\n", errname(errno));
		return 1;
	}
	len = unescape(argv[2]);
	if (argc == 4)
		ret = pwrite(fd, argv[2], len, strtoll(argv[3], NULL, 0));
	else
		ret = write(fd, argv[2], len);
	if (ret < 0) {
		printf("%s\n", errname(errno));
		return 1;
	}
	printf("ok %zd\n", ret);
	close(fd);
	return 0;
}
