// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libexecns: the userspace entry to the execns syscall.
 *
 * The module takes a spare syscall slot when it loads and publishes the
 * number in sysfs, so the number is looked up at run time, never compiled in.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <unistd.h>

#include "execns.h"

/* The slot read from sysfs; 0 until a read succeeds (0 is never spare). */
static atomic_long execns_slot;

/*
 * Read the slot, or return -1 if the module (or its slot for this ABI) is
 * absent.  Only open/read/close and a hand-written parser, so that execns()
 * stays async-signal-safe like execve().
 */
static long read_slot(void)
{
	char buf[32];
	long nr = 0;
	ssize_t len, i;
	int fd;

	fd = open(EXECNS_SYSFS_NR_FILE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf));
	close(fd);

	/* A decimal number and a newline; anything else (e.g. -1) is no slot. */
	for (i = 0; i < len && buf[i] != '\n'; i++) {
		if (buf[i] < '0' || buf[i] > '9' || nr > 1000000)
			return -1;
		nr = nr * 10 + (buf[i] - '0');
	}
	return nr > 0 ? nr : -1;
}

/*
 * A racing first call in several threads just reads sysfs more than once.
 * Only success is cached: a program started before the module was loaded
 * finds it later.
 */
static long get_slot(void)
{
	long nr = atomic_load_explicit(&execns_slot, memory_order_relaxed);

	if (nr > 0)
		return nr;
	nr = read_slot();
	if (nr > 0)
		atomic_store_explicit(&execns_slot, nr, memory_order_relaxed);
	return nr;
}

int execns(int flags, const char *filename, char *const argv[],
	   char *const envp[])
{
	long nr = get_slot();

	if (nr < 0) {
		errno = ENOSYS;
		return -1;
	}
	/* syscall() takes longs: widen flags explicitly, as the ABI expects. */
	return (int)syscall(nr, (long)flags, filename, argv, envp);
}

int execns_available(void)
{
	int saved_errno = errno;
	long nr = read_slot();

	atomic_store_explicit(&execns_slot, nr > 0 ? nr : 0,
			      memory_order_relaxed);
	errno = saved_errno;
	return nr > 0;
}
