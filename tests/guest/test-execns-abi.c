// SPDX-License-Identifier: GPL-2.0
/*
 * execns(2) through each ABI: built twice, as a 64-bit program and as an
 * i386 one (test-execns-abi-32, entering through the compat slot, whose
 * arguments sit in other registers and whose argv/envp hold 32-bit
 * pointers); AArch32 on arm64.  The call works, argv and envp arrive
 * intact, and errors come back as errno with the caller unchanged.
 * s390x has no 31-bit build (no 31-bit C library to link one): its 64-bit
 * run says why there is no compat caller, as a skipped test.
 */
#include "lib/report.h"

#if defined(__i386__)
#define ABI "i386"
#elif defined(__arm__)
#define ABI "AArch32"
#elif defined(__aarch64__)
#define ABI "arm64"
#elif defined(__s390x__)
#define ABI "s390x"
#else
#define ABI "x86_64"
#endif

static const struct child_mode modes[] = { CHILD_MODE_REPORT };

int main(int argc, char **argv)
{
	struct proc_state before, after;
	struct report r;
	pid_t pid = 0;
	int err, st;
	long ret;

	CHILD_DISPATCH(modes, argc, argv);
	alarm(TEST_TIMEOUT);

	ksft_print_header();
#ifdef __s390x__
	ksft_set_plan(7);
#else
	ksft_set_plan(6);
#endif
	ksft_print_msg("%s caller, syscall number %ld\n", ABI, execns_nr());
	snapshot(&before);

	st = spawn_report_prep(CLONE_NEWUTS | CLONE_NEWIPC, (const char *[]){ "x", "y", NULL },
			       NULL, NULL, &r, &err, &pid);
	ksft_test_result(exited_ok(st) && r.ok && r.pid == pid && !strcmp(r.fds, "0,1,2") &&
			 ns_match(r.ns, before.ns, CLONE_NEWUTS | CLONE_NEWIPC, "new program"),
			 "%s: execns(CLONE_NEWUTS|CLONE_NEWIPC) runs the program in new namespaces (errno %d)",
			 ABI, err);
	ksft_test_result(r.argc == 4 && !strcmp(r.env, "report-env"),
			 "%s: argv (%d arguments) and envp (%s) arrive as given", ABI, r.argc, r.env);

	ret = raw_execns(NS_PREPARED, "/no/such/program", (char *[]){ "x", NULL }, environ);
	ksft_test_result(ret == -1 && errno == ENOENT, "%s: ENOENT comes back (%ld, errno %d)", ABI, ret, errno);

	ret = raw_execns(NS_PREPARED | CLONE_VM, "/proc/self/exe", (char *[]){ "x", NULL }, environ);
	ksft_test_result(ret == -1 && errno == EINVAL, "%s: EINVAL for an unknown flag (%ld, errno %d)",
			 ABI, ret, errno);

	ret = raw_execns(NS_PREPARED, "/proc/self/exe", (char *[]){ "x", (char *)8, NULL }, environ);
	ksft_test_result(ret == -1 && errno == EFAULT, "%s: EFAULT for a bad argv[1] (%ld, errno %d)",
			 ABI, ret, errno);

	snapshot(&after);
	ksft_test_result(same_state(&before, &after, ABI " caller"),
			 "%s: the caller is unchanged after the failures", ABI);
#ifdef __s390x__
	ksft_test_result_code(KSFT_SKIP, "s390 (31-bit) caller",
			      kernel_has_compat() ?
			      "no 31-bit test program (Debian has no 31-bit s390 C library to link one)" :
			      "this kernel has no 31-bit compat ABI (no sys_call_table_emu in kallsyms)");
#endif
	ksft_finished();
}
