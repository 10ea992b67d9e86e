// SPDX-License-Identifier: GPL-2.0
/*
 * execns(2) through each ABI: built twice, as a 64-bit program and as an
 * i386 one (test-execns-abi-32, entering through the compat slot, whose
 * arguments sit in other registers and whose argv/envp hold 32-bit
 * pointers); AArch32 on arm64.  The call works, argv and envp arrive
 * intact, and errors come back as errno with the caller unchanged.
 * s390x has no 31-bit build of this program (Debian has no 31-bit C
 * library to link one): its 64-bit run drives abi31-caller, a freestanding
 * 31-bit program, through the same call and errors, where the kernel has
 * a 31-bit ABI (CONFIG_COMPAT).
 */
#include <limits.h>

#include "lib/test.h"

/* s390x adds the 31-bit caller's tests. */
#ifdef __s390x__
#define PLAN	10
#else
#define PLAN	6
#endif

static const struct child_mode modes[] = { CHILD_MODE_REPORT };

#ifdef __s390x__
#define ABI31 "s390 (31-bit)"
#define ABI31_FLAGS (CLONE_NEWUTS | CLONE_NEWIPC)

struct abi31 {
	char path[PATH_MAX], self[PATH_MAX], nr[16], flags[16];
};

/*
 * spawn_report_prep()'s child, about to call execns itself: becomes the
 * 31-bit caller instead, which calls execns through the compat slot into
 * this program's report mode (argv and envp as spawn_report_prep's).
 */
static void exec_abi31(void *arg)
{
	struct abi31 *a = arg;
	char *argv[] = { a->path, a->nr, a->flags, a->self, a->self, "report", "x", "y", NULL };
	char *envp[] = { REPORT_ENV "=report-env", "EXECNS_TEST_LEVEL=0", NULL };

	execve(a->path, argv, envp);
	printf("errno %d\n", errno);
	fflush(stdout);
	_exit(98);
}

/* Why the 31-bit caller cannot run here, or NULL; fills in @a. */
static const char *abi31_prepare(struct abi31 *a)
{
	ssize_t n = readlink("/proc/self/exe", a->self, sizeof(a->self) - 1);
	char *slash;

	if (!kernel_has_compat())
		return "this kernel has no 31-bit compat ABI (no sys_call_table_emu in kallsyms)";
	if (n <= 0)
		return "cannot read /proc/self/exe";
	a->self[n] = '\0';
	snprintf(a->path, sizeof(a->path), "%s", a->self);
	slash = strrchr(a->path, '/');
	snprintf(slash + 1, sizeof(a->path) - (slash + 1 - a->path), "abi31-caller");
	snprintf(a->nr, sizeof(a->nr), "%ld", read_long(EXECNS_SYSFS_COMPAT_SYSCALL_NR));
	snprintf(a->flags, sizeof(a->flags), "%d", ABI31_FLAGS);
	return NULL;
}

/*
 * Four tests: the call and its namespaces, argv and envp, the errors, and
 * the 31-bit caller's own namespaces unchanged by them.  A kernel with a
 * 31-bit ABI and no abi31-caller is a failure: guest-cross.sh builds it
 * for every s390x guest.
 */
static void test_abi31(const struct proc_state *before)
{
	struct abi31 a;
	const char *why = abi31_prepare(&a);
	long e1 = 0, e2 = 0, e3 = 0, same = 0;
	struct report r;
	const char *l;
	pid_t pid = 0;
	int err, st;

	if (why) {
		for (int i = 0; i < 4; i++)
			ksft_test_result_code(KSFT_SKIP, ABI31 " caller", "%s", why);
		return;
	}
	if (access(a.path, X_OK)) {
		for (int i = 0; i < 4; i++)
			ksft_test_result_fail("%s caller: no %s (guest-cross.sh builds it for s390x)",
					      ABI31, a.path);
		return;
	}
	ksft_print_msg("%s caller, syscall number %s\n", ABI31, a.nr);
	st = spawn_report_prep(0, NULL, exec_abi31, &a, &r, &err, &pid);
	ksft_test_result(exited_ok(st) && r.ok && r.pid == pid && !strcmp(r.fds, "0,1,2") &&
			 ns_match(r.ns, before->ns, ABI31_FLAGS, "new program"),
			 "%s: execns(CLONE_NEWUTS|CLONE_NEWIPC) runs the program in new namespaces, descriptors 0-2 only (%s, errno %d)",
			 ABI31, r.fds, err);
	ksft_test_result(r.argc == 4 && !strcmp(r.env, "report-env"),
			 "%s: argv (%d arguments) and envp (%s) arrive as given", ABI31, r.argc, r.env);
	l = strstr(r.text, "abi31 ");
	if (l)
		sscanf(l, "abi31 %ld %ld %ld %ld", &e1, &e2, &e3, &same);
	ksft_test_result(e1 == -ENOENT && e2 == -EINVAL && e3 == -EFAULT,
			 "%s: ENOENT, EINVAL for an unknown flag, EFAULT for a bad argv[1] come back (%ld %ld %ld)",
			 ABI31, e1, e2, e3);
	ksft_test_result(same == 1,
			 "%s: the caller's uts and ipc namespaces are unchanged after the failures (%ld)",
			 ABI31, same);
}
#endif

int main(int argc, char **argv)
{
	struct proc_state before, after;
	struct report r;
	pid_t pid = 0;
	int err, st;
	long ret;

	CHILD_DISPATCH(modes, argc, argv);
	test_start(PLAN, TEST_TIMEOUT);
	ksft_print_msg("%s caller, syscall number %ld\n", TEST_ABI, execns_nr());
	snapshot(&before);

	st = spawn_report_prep(CLONE_NEWUTS | CLONE_NEWIPC, (const char *[]){ "x", "y", NULL },
			       NULL, NULL, &r, &err, &pid);
	ksft_test_result(exited_ok(st) && r.ok && r.pid == pid && !strcmp(r.fds, "0,1,2") &&
			 ns_match(r.ns, before.ns, CLONE_NEWUTS | CLONE_NEWIPC, "new program"),
			 "%s: execns(CLONE_NEWUTS|CLONE_NEWIPC) runs the program in new namespaces (errno %d)",
			 TEST_ABI, err);
	ksft_test_result(r.argc == 4 && !strcmp(r.env, "report-env"),
			 "%s: argv (%d arguments) and envp (%s) arrive as given", TEST_ABI, r.argc, r.env);

	ret = raw_execns(NS_PREPARED, "/no/such/program", (char *[]){ "x", NULL }, environ);
	ksft_test_result(ret == -1 && errno == ENOENT, "%s: ENOENT comes back (%ld, errno %d)", TEST_ABI, ret, errno);

	ret = raw_execns(NS_PREPARED | CLONE_VM, "/proc/self/exe", (char *[]){ "x", NULL }, environ);
	ksft_test_result(ret == -1 && errno == EINVAL, "%s: EINVAL for an unknown flag (%ld, errno %d)",
			 TEST_ABI, ret, errno);

	ret = raw_execns(NS_PREPARED, "/proc/self/exe", (char *[]){ "x", (char *)8, NULL }, environ);
	ksft_test_result(ret == -1 && errno == EFAULT, "%s: EFAULT for a bad argv[1] (%ld, errno %d)",
			 TEST_ABI, ret, errno);

	snapshot(&after);
	ksft_test_result(same_state(&before, &after, TEST_ABI " caller"),
			 "%s: the caller is unchanged after the failures", TEST_ABI);
#ifdef __s390x__
	test_abi31(&before);
#endif
	ksft_finished();
}
