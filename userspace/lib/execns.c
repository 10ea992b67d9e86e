// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libexecns: the userspace entry to the execns syscall.
 *
 * The module takes a spare syscall slot when it loads and publishes the
 * number in sysfs, so the number is looked up at run time, never compiled in.
 * A kernel with execns(2) of its own (the in-tree twin, upstream/) shows it
 * by /proc/self/ns/uidtab; its number is a system call's, fixed: the
 * kernel headers' __NR_execns, else the one upstream/ gives every ABI it
 * wires (463, provisional; x32 has none).  The module, when loaded, wins:
 * whoever loaded it on such a kernel wants it measured.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "execns.h"

#if defined(__NR_execns)
#define IN_TREE_NR	__NR_execns
#elif defined(__x86_64__) && defined(__ILP32__)
#define IN_TREE_NR	0	/* x32: upstream/ wires no entry */
#else
/* 463 is upstream/'s on 6.12 only (6.13 gave it to setxattrat). */
#define IN_TREE_NR	EXECNS_NR_IN_TREE
#endif

/* The slot read from sysfs; 0 until a read succeeds (0 is never spare). */
static atomic_long execns_slot;

/*
 * The in-tree execns(2)'s number when this kernel has one, else -ENOSYS.
 * access() is async-signal-safe.
 */
static long in_tree_nr(void)
{
	if (!IN_TREE_NR || access(EXECNS_PROC_UIDTAB, F_OK))
		return -ENOSYS;
	return IN_TREE_NR;
}

/*
 * Read the slot: the number, or a negative errno.  -ENOSYS means there is
 * none: no such file (the module is not loaded) on a kernel without an
 * execns(2) of its own, no such file for this ABI in a loaded module, or
 * no number in it (no slot for this ABI).  Any other failure to open or
 * read the file (EMFILE, ENFILE, ENOMEM, EACCES...) is its own errno, so
 * that a caller out of descriptors is not told the module is missing.
 * Only open/read/close/access and a hand-written parser, so that execns()
 * stays async-signal-safe like execve().
 */
static long read_slot(void)
{
	char buf[32];
	long nr = 0;
	ssize_t len, i;
	int fd, e;

	fd = open(EXECNS_SYSFS_NR_FILE, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		/* A loaded module without this ABI's file has no slot. */
		return access(EXECNS_SYSFS_MODULE, F_OK) ? in_tree_nr() : -ENOSYS;
	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf));
	e = errno;
	close(fd);
	if (len < 0)
		return -e;

	/* A decimal number and a newline; anything else (e.g. -1) is no slot. */
	for (i = 0; i < len && buf[i] != '\n'; i++) {
		if (buf[i] < '0' || buf[i] > '9' || nr > 1000000)
			return -ENOSYS;
		nr = nr * 10 + (buf[i] - '0');
	}
	return nr > 0 ? nr : -ENOSYS;
}

/*
 * A racing first call in several threads just reads sysfs more than once.
 * Only success is cached: a program started before the module was loaded
 * finds it later, and one that ran out of descriptors reads again.
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

static long call(long nr, int flags, const char *filename,
		 char *const argv[], char *const envp[])
{
	/* syscall() takes longs: widen flags explicitly, as the ABI expects. */
	return syscall(nr, (long)flags, filename, argv, envp);
}

int execns(int flags, const char *filename, char *const argv[],
	   char *const envp[])
{
	long nr = get_slot(), again;

	if (nr < 0) {
		errno = -nr;
		return -1;
	}
	call(nr, flags, filename, argv, envp);
	if (errno != ENOSYS)
		return -1;
	/*
	 * The cached number may be stale: the module was unloaded, or
	 * reloaded with another syscall_nr.  Retry once on a new number;
	 * the same number answering ENOSYS is reported as is (a seccomp
	 * filter, typically).  A re-read that fails for another reason
	 * (EMFILE...) is that error: whether the number moved is unknown,
	 * so it is dropped and the next call reads it again.
	 */
	again = read_slot();
	atomic_store_explicit(&execns_slot, again > 0 ? again : 0,
			      memory_order_relaxed);
	if (again < 0) {
		errno = -again;
		return -1;
	}
	errno = ENOSYS;
	if (again != nr)
		call(again, flags, filename, argv, envp);
	return -1;
}

/* dir (len bytes, 0: none) + "/" + file into buf; 0 or -1 if too long. */
static int join(char *buf, size_t size, const char *dir, size_t len,
		const char *file)
{
	size_t flen = strlen(file);

	if (len + 1 + flen + 1 > size)
		return -1;
	memcpy(buf, dir, len);
	if (len)
		buf[len++] = '/';
	memcpy(buf + len, file, flen + 1);
	return 0;
}

/*
 * What execve() would say about path, without executing it: 0 for an
 * executable regular file (for the effective ids, and not on a noexec
 * mount: faccessat() checks both), else the errno.
 */
static int runnable(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return errno;
	if (!S_ISREG(st.st_mode))
		return EACCES;
	return faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) ? errno : 0;
}

int execns_find_program(const char *file, char *buf, size_t size)
{
	const char *path, *dir, *end;
	int eacces = 0, e;

	if (!*file) {
		errno = ENOENT;
		return -1;
	}
	if (strchr(file, '/')) {
		if (join(buf, size, "", 0, file))
			goto too_long;
		return 0;
	}
	path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin";
	for (dir = path; ; dir = end + 1) {
		end = strchrnul(dir, ':');
		/* An empty entry is the current directory, as in execvp(). */
		if (join(buf, size, dir, end - dir, file))
			goto too_long;
		e = runnable(buf);
		if (!e)
			return 0;
		/* Go on past absent entries; remember a found-but-not-runnable. */
		if (e == EACCES)
			eacces = 1;
		if (!*end)
			break;
	}
	errno = eacces ? EACCES : ENOENT;
	return -1;
too_long:
	errno = ENAMETOOLONG;
	return -1;
}

int execnspe(int flags, const char *file, char *const argv[],
	     char *const envp[])
{
	char path[PATH_MAX];

	if (execns_find_program(file, path, sizeof(path)))
		return -1;
	return execns(flags, path, argv, envp);
}

int execnsp(int flags, const char *file, char *const argv[])
{
	return execnspe(flags, file, argv, environ);
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

int execns_in_tree(void)
{
	int saved_errno = errno, in_tree;

	in_tree = access(EXECNS_SYSFS_MODULE, F_OK) && in_tree_nr() > 0;
	errno = saved_errno;
	return in_tree;
}
