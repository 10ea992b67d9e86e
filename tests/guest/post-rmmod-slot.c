// SPDX-License-Identifier: GPL-2.0
/*
 * After rmmod: the syscall slots answer ENOSYS again, libexecns says
 * ENOSYS, and the CLI explains in one line that the module is not loaded.
 * Built for x86_64 and i386 (post-rmmod-slot-32), for arm64 and
 * AArch32 (post-rmmod-slot-32 there), and for s390x, whose 31-bit callers
 * are abi31-caller (see test-execns-abi).
 */
#include "lib/test.h"

/* s390x adds the 31-bit caller's tests. */
#ifdef __s390x__
#define PLAN	4
#else
#define PLAN	3
#endif

/* The module's default slot for this program's ABI. */
#define SLOT EXECNS_NR_DEFAULT

#ifdef __s390x__
#define SLOT31 EXECNS_NR_S390

/* abi31-caller's calls through the default 31-bit slot: all ENOSYS. */
static void test_abi31(void)
{
	char out[256], nr[16];
	char *argv[] = { "/usr/local/bin/abi31-caller", nr, "67108864", "/bin/true", "true", NULL };
	bool ok;
	int code;

	if (!kernel_has_compat()) {
		ksft_test_result_code(KSFT_SKIP, "s390 (31-bit) caller",
				      "this kernel has no 31-bit compat ABI (no sys_call_table_emu in kallsyms)");
		return;
	}
	snprintf(nr, sizeof(nr), "%d", SLOT31);
	code = child_exec(argv, CHILD_STDOUT, NULL, NULL, CHILD_TIMEOUT, out, sizeof(out));
	/* Decided before strtok() cuts the output at its first line. */
	ok = code == 99 && !strcmp(out, "abi31 -38 -38 -38 1\nerrno 38\n");
	ksft_test_result(ok, "s390 (31-bit): default slot %d answers ENOSYS (%s)", SLOT31,
			 strtok(out, "\n") ? out : "no output");
}
#endif

int main(void)
{
	char *cli[] = { "/usr/local/bin/execns", "--uts", "true", NULL };
	char out[1024];
	const char *nl;
	bool one_line;
	int code;
	long ret;

	test_start(PLAN, TEST_TIMEOUT);
	ret = syscall(SLOT, CLONE_NEWUTS, "/bin/true", (char *[]){ "true", NULL }, environ);
	ksft_test_result(ret == -1 && errno == ENOSYS, "%s: default slot %d answers ENOSYS (errno %d)",
			 TEST_ABI, SLOT, errno);

	ret = execns(CLONE_NEWUTS, "/bin/true", (char *[]){ "true", NULL }, environ);
	ksft_test_result(ret == -1 && errno == ENOSYS, "%s: libexecns returns ENOSYS (errno %d)", TEST_ABI, errno);

	code = child_exec(cli, CHILD_STDERR, NULL, NULL, CHILD_TIMEOUT, out, sizeof(out));
	/* Decided before strtok() cuts the output at its first line. */
	nl = strchr(out, '\n');
	one_line = nl && !nl[1];
	ksft_print_msg("execns says: %s\n", strtok(out, "\n") ? out : "(nothing)");
	ksft_test_result(code == 125 && strstr(out, "not loaded") && one_line,
			 "the CLI exits 125 with one line saying the module is not loaded");
#ifdef __s390x__
	test_abi31();
#endif
	ksft_finished();
}
