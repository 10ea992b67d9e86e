// SPDX-License-Identifier: GPL-2.0
/*
 * The syscall slots' ABI.  The module is reloaded with other numbers:
 *  - a number the running kernel's dispatcher does not hand to ni_syscall
 *    (x86_64 59 is execve; i386 400 is msgsnd; arm64 221, AArch32 11 and
 *    s390x 11 are execve) or one past its table is refused at load, with
 *    one line naming it;
 *  - with the native slot at A and the compat one at B (both unused on
 *    either ABI: 388 and 389 on x86 and s390x, 255 and 254 on arm64, free in
 *    both of 5.10 and 6.x), each ABI
 *    reaches execns on its own number only: the other ABI's number is
 *    ENOSYS, even where the kernel's two ni_syscall entries are one
 *    function (arm64 has one for both tables).
 * Built twice on x86: as a 64-bit program and as i386
 * (test-execns-slot-32).  A kernel without compat callers (s390x 7.x)
 * checks no compat number: that refusal is skipped there.  The module is
 * loaded again with the runner's parameters at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "lib/test.h"

#define KO	"/lib/modules/execns.ko"
#define PARAMS	"/etc/execns/params"

#if defined(__aarch64__) || defined(__arm__)
#define NATIVE		"arm64"
#define COMPAT		"AArch32"
#define USED		"221"	/* execve */
#define COMPAT_USED	"11"	/* execve */
#define SLOT_A		255
#define SLOT_B		254
#elif defined(__s390x__)
#define NATIVE		"s390x"
#define COMPAT		"s390 (31-bit)"
#define USED		"11"	/* execve */
#define COMPAT_USED	"11"	/* execve */
#define SLOT_A		388
#define SLOT_B		389
#else
#define NATIVE		"x86_64"
#define COMPAT		"i386"
#define USED		"59"	/* execve */
#define COMPAT_USED	"400"	/* msgsnd */
#define SLOT_A		388
#define SLOT_B		389
#endif

#if defined(__i386__) || defined(__arm__)
#define MINE	SLOT_B	/* this program's ABI: the compat one */
#define OTHER	SLOT_A
#else
#define MINE	SLOT_A
#define OTHER	SLOT_B
#endif

static int load(const char *params)
{
	int fd = open(KO, O_RDONLY | O_CLOEXEC), ret, err;

	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, params, 0);
	err = errno;
	close(fd);
	errno = err;
	return ret;
}

/* rmmod, retried while RCU callbacks of earlier tests still pin the module. */
static int unload(void)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	int i;

	for (i = 0; i < 300; i++) {
		if (!syscall(SYS_delete_module, "execns", O_NONBLOCK))
			return 0;
		if (errno == ENOENT)
			return 0;
		nanosleep(&ts, NULL);
	}
	return -1;
}

/* Did the kernel log, since mark lines, say something containing what? */
static int logged(const char *what)
{
	char line[512];
	int found = 0;
	FILE *f = popen("dmesg | tail -n 5", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, what))
			found = 1;
	pclose(f);
	return found;
}

static void refused(const char *params, const char *line)
{
	int ret = load(params), err = errno;

	ksft_test_result(ret == -1 && err == EBUSY && logged(line),
			 "insmod %s is refused with EBUSY and \"%s...\" (ret %d, errno %d)",
			 params, line, ret, ret ? err : 0);
	if (!ret)
		unload();
}

/*
 * A kernel without compat callers: the compat number cannot be checked or
 * used, so it loads, and the load line says the parameter is ignored.
 */
static void ignored(const char *params, const char *line)
{
	int ret = load(params), err = errno;

	ksft_test_result(!ret && logged(line),
			 "no compat ABI: insmod %s loads and says \"%s\" (ret %d, errno %d)",
			 params, line, ret, ret ? err : 0);
	if (!ret)
		unload();
}

int main(void)
{
	char params[256] = "", own[300];
	long ret;
	int err;

	test_start(8, 120);
	{
		FILE *f = fopen(PARAMS, "re");

		if (f) {
			if (!fgets(params, sizeof(params), f))
				params[0] = '\0';
			fclose(f);
		}
		params[strcspn(params, "\n")] = '\0';
	}
	ksft_test_result(unload() == 0, "the module unloads");

	refused("syscall_nr=" USED, NATIVE " syscall number " USED " is not a free one");
	if (kernel_has_compat())
		refused("compat_syscall_nr=" COMPAT_USED,
			COMPAT " syscall number " COMPAT_USED " is not a free one");
	else
		ignored("compat_syscall_nr=" COMPAT_USED, "so compat_syscall_nr is ignored");
	refused("syscall_nr=5000", NATIVE " syscall number 5000 is not a free one");

	snprintf(own, sizeof(own), "syscall_nr=%d compat_syscall_nr=%d", SLOT_A, SLOT_B);
	ret = load(own);
	ksft_test_result(!ret, "insmod %s (errno %d)", own, ret ? errno : 0);

	/* flags 0, a path that does not exist: execns answers ENOENT. */
	ret = syscall(MINE, 0L, "/no/such/program", NULL, NULL);
	err = errno;
	ksft_test_result(ret == -1 && err == ENOENT,
			 "this ABI's number %d is execns (ENOENT for a missing program; errno %d)", MINE, err);
	ret = syscall(OTHER, 0L, "/no/such/program", NULL, NULL);
	err = errno;
	ksft_test_result(ret == -1 && err == ENOSYS,
			 "the other ABI's number %d is ENOSYS here (errno %d)", OTHER, err);

	unload();
	snprintf(own, sizeof(own), "%s", params);
	ret = load(own);
	ksft_test_result(!ret && access(EXECNS_SYSFS_SYSCALL_NR, R_OK) == 0,
			 "loaded again with the runner's parameters \"%s\" (errno %d)", own, ret ? errno : 0);
	ksft_finished();
}
