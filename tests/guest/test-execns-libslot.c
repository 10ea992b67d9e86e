// SPDX-License-Identifier: GPL-2.0
/*
 * libexecns's errno when it cannot read the module's syscall number from
 * sysfs.  Only "no module" (no such file) and "no slot for this ABI" (the
 * file does not hold a number) are ENOSYS; any other failure to read it
 * comes back as its own errno, the caller intact:
 *  - the first execns() of a process whose descriptor table is full is
 *    EMFILE, and the same call works once a descriptor is free;
 *  - an unreadable file is EACCES; a hidden one, or one saying -1, ENOSYS;
 *  - a cached number answering ENOSYS (a seccomp filter here) whose
 *    re-read fails with EMFILE is EMFILE, and ENOSYS once it can be read;
 *  - execns(1) in a full descriptor table names the cause, exits 125.
 * Each case runs in a child process of its own, so each starts with the
 * library's slot not cached.  Self-contained: only ktap.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "execns.h"
#include "lib/test.h"

#define CLI	"/usr/local/bin/execns"
#define TRUE	"/bin/true"
#define FAKE	"/tmp/execns-libslot"
#define NOFILE	32

static char *const true_argv[] = { "true", NULL };
static char *const no_env[] = { NULL };

/* Child exit codes that are not an errno (errnos stay below 200). */
enum { C_OK = 0, C_SETUP = 200, C_CALLER = 201, C_RAN = 202 };

static long slot_nr(void)
{
	char buf[32] = "";
	int fd = open(EXECNS_SYSFS_NR_FILE, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	close(fd);
	return atol(buf);
}

/*
 * Lower RLIMIT_NOFILE to NOFILE and fill the table with copies of stdin;
 * returns the highest descriptor, or -1.  Nothing here opens a descriptor
 * afterwards, so the table stays full until the caller closes one.
 */
static int fill_table(void)
{
	struct rlimit rl = { NOFILE, NOFILE };
	int fd, last = -1;

	if (setrlimit(RLIMIT_NOFILE, &rl))
		return -1;
	while ((fd = dup(0)) >= 0)
		last = fd;
	return errno == EMFILE ? last : -1;
}

/* Every descriptor 0..last still open, and none free below the limit. */
static int table_intact(int last)
{
	int fd;

	for (fd = 0; fd <= last; fd++)
		if (fcntl(fd, F_GETFD) < 0)
			return 0;
	return last == NOFILE - 1;
}

static unsigned long uts_inode(void)
{
	char link[64] = "";
	unsigned long ino = 0;

	if (readlink("/proc/self/ns/uts", link, sizeof(link) - 1) > 0)
		sscanf(link, "uts:[%lu]", &ino);
	return ino;
}

static int call_act(void *fn)
{
	return ((int (*)(void))fn)();
}

/* Run fn in a child; its exit code, or -1 if it died. */
static int in_child(int (*fn)(void))
{
	struct child c;

	if (child_start(&c, 0, 30, call_act, (void *)fn) || !WIFEXITED(c.status))
		return -1;
	return child_code(&c);
}

/*
 * A full table: the first call is EMFILE and changes nothing; once one
 * descriptor is closed, the call runs true (exit 0, C_OK) in a new UTS
 * namespace.
 */
static int full_table(void)
{
	unsigned long uts = uts_inode();
	int last = fill_table(), err;

	if (last < 0 || !uts)
		return C_SETUP;
	execns(CLONE_NEWUTS, TRUE, true_argv, no_env);
	err = errno;
	if (err != EMFILE)
		return err;
	if (!table_intact(last) || uts_inode() != uts)
		return C_CALLER;
	close(last);
	execns(CLONE_NEWUTS, TRUE, true_argv, no_env);
	return C_RAN;
}

/*
 * A private mount namespace where the slot file is FAKE/nr (mode, holding
 * text), or, with text NULL, where the module's parameters are an empty
 * directory.
 */
static int fake_slot(const char *text, mode_t mode)
{
	const char *nr = EXECNS_SYSFS_NR_FILE;
	int fd;

	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    (mkdir(FAKE, 0755) && errno != EEXIST) ||
	    mount("none", FAKE, "tmpfs", 0, NULL))
		return -1;
	if (!text)
		return mount(FAKE, EXECNS_SYSFS_DIR, NULL, MS_BIND, NULL);
	fd = open(FAKE "/nr", O_WRONLY | O_CREAT | O_CLOEXEC, mode);
	if (fd < 0 || write(fd, text, strlen(text)) < 0 || close(fd))
		return -1;
	return mount(FAKE "/nr", nr, NULL, MS_BIND, NULL);
}

/* flags 0 needs no privilege: the call is refused only by the read. */
static int call_errno(void)
{
	execns(0, TRUE, true_argv, no_env);
	return errno;
}

static int unreadable(void)
{
	if (fake_slot("400\n", 0) || setresuid(65534, 65534, 65534))
		return C_SETUP;
	return call_errno();
}

static int hidden(void)
{
	return fake_slot(NULL, 0) ? C_SETUP : call_errno();
}

static int no_slot(void)
{
	return fake_slot("-1\n", 0444) ? C_SETUP : call_errno();
}

/*
 * The slot is cached (a first call failed with ENOENT), then answers
 * ENOSYS and cannot be read again: EMFILE.  With a descriptor free the
 * re-read finds the same number: ENOSYS, as the filter says.
 */
static int stale_full(void)
{
	int last, err;

	execns(0, "/no/such/program", true_argv, no_env);
	if (errno != ENOENT || seccomp_enosys(slot_nr()))
		return C_SETUP;
	last = fill_table();
	if (last < 0)
		return C_SETUP;
	execns(0, TRUE, true_argv, no_env);
	err = errno;
	if (err != EMFILE)
		return err;
	if (!table_intact(last))
		return C_CALLER;
	close(last);
	execns(0, TRUE, true_argv, no_env);
	return errno == ENOSYS ? C_OK : 100 + errno % 100;
}

static const char *code_str(int code)
{
	static char buf[64];

	switch (code) {
	case C_OK: return "ok";
	case C_SETUP: return "setup failed";
	case C_CALLER: return "the caller changed";
	case C_RAN: return "the call did not run the program";
	case -1: return "the child died";
	}
	snprintf(buf, sizeof(buf), "errno %d (%s)", code, strerror(code));
	return buf;
}

static int prep_full_table(void *arg)
{
	(void)arg;
	return fill_table() < 0;
}

/* execns(1) with a full table: exit status, and its first line of stderr in out. */
static int cli_full(char *out, size_t len)
{
	int st = child_exec((char *[]){ CLI, "-H", TRUE, NULL }, CHILD_STDERR,
			      prep_full_table, NULL, 30, out, len);

	out[strcspn(out, "\n")] = '\0';
	return st;
}

int main(void)
{
	char out[512];
	int code;

	test_start(6, 120);

	code = in_child(full_table);
	ksft_test_result(code == C_OK,
		    "full descriptor table: the first execns() is EMFILE, not ENOSYS; the caller is intact; with one descriptor free it runs (%s)",
		    code_str(code));
	code = in_child(unreadable);
	ksft_test_result(code == EACCES, "an unreadable %s: EACCES (%s)",
		    EXECNS_SYSFS_NR_FILE, code_str(code));
	code = in_child(hidden);
	ksft_test_result(code == ENOSYS, "no %s (the module is not there): ENOSYS (%s)",
		    EXECNS_SYSFS_NR_FILE, code_str(code));
	code = in_child(no_slot);
	ksft_test_result(code == ENOSYS, "%s says -1 (no slot for this ABI): ENOSYS (%s)",
		    EXECNS_SYSFS_NR_FILE, code_str(code));
	code = in_child(stale_full);
	ksft_test_result(code == C_OK,
		    "a cached slot answering ENOSYS, re-read in a full table: EMFILE, then ENOSYS with a descriptor free (%s)",
		    code_str(code));

	code = cli_full(out, sizeof(out));
	ksft_test_result(code == 125 && !strstr(out, "not loaded") &&
		    strstr(out, "Too many open files") && strstr(out, "descriptor"),
		    "execns(1) in a full descriptor table exits 125 naming the cause (exit %d: %s)",
		    code, out);
	ksft_finished();
}
