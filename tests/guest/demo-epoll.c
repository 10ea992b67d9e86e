// SPDX-License-Identifier: GPL-2.0
/*
 * Helper for `make demo`: spend a uid's epoll-watch budget.
 *   demo-epoll hold UID N	become UID, add N epoll watches, wait for stdin EOF
 *   demo-epoll try UID	become UID, add watches until the budget says no
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

/* Add up to max watches (each on a fresh pipe); returns how many succeeded. */
static int add_watches(int max, int *err_out)
{
	int ep = epoll_create1(0), n;

	if (ep < 0)
		err(1, "epoll_create1");
	for (n = 0; n < max; n++) {
		struct epoll_event ev = { .events = EPOLLIN };
		int p[2];

		if (pipe(p))
			err(1, "pipe");
		if (epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev)) {
			*err_out = errno;
			break;
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	int e = 0, n;

	if (argc < 3)
		errx(2, "usage: demo-epoll hold UID N | try UID");
	if (setuid(atoi(argv[2])))
		err(1, "setuid");
	if (!strcmp(argv[1], "hold")) {
		n = add_watches(atoi(argv[3]), &e);
		printf("  uid %s holds %d epoll watches\n", argv[2], n);
		fflush(stdout);
		while (getchar() != EOF)
			;
		return 0;
	}
	n = add_watches(1000, &e);
	printf("  uid %s could add %d epoll watches%s%s\n", argv[2], n,
	       e ? ", then: " : "", e ? strerror(e) : "");
	return 0;
}
