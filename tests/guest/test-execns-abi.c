// SPDX-License-Identifier: GPL-2.0
/*
 * execns through each ABI: built twice, as a 64-bit program and as an i386
 * one (test-execns-abi-32, entering through the compat slot).
 */
#include <sched.h>
#include "guest-util.h"
#include "ktap.h"

#if defined(__i386__)
#define ABI "i386"
#else
#define ABI "x86_64"
#endif

int main(int argc, char **argv)
{
	struct caller_state before, after;
	struct report r;
	int err, st;
	long ret;

	if (argc > 1 && !strcmp(argv[1], "report"))
		return report_main(argc, argv);

	ktap_plan(4);
	ktap_diag("%s caller, syscall number %ld", ABI, read_long(EXECNS_SYSFS_NR_FILE));
	snapshot(&before, -1);

	st = spawn_report(CLONE_NEWUTS | CLONE_NEWIPC, NULL, &r, &err);
	ktap_result(st == 0 && r.ok && r.ns[0] != before.ns[0] && r.ns[1] != before.ns[1] &&
		    r.ns[3] == before.ns[3] && r.nfds == 3,
		    "%s: execns(CLONE_NEWUTS|CLONE_NEWIPC) runs the program in new namespaces", ABI);

	ret = raw_execns(CLONE_NEWUTS, "/no/such/program", (char *[]){ "x", NULL }, environ);
	ktap_result(ret == -1 && errno == ENOENT, "%s: ENOENT comes back (errno %d)", ABI, errno);

	ret = raw_execns(CLONE_VM, "/proc/self/exe", (char *[]){ "x", NULL }, environ);
	ktap_result(ret == -1 && errno == EINVAL, "%s: EINVAL for an unknown flag (errno %d)", ABI, errno);

	snapshot(&after, -1);
	ktap_result(same_state(&before, &after), "%s: the caller is unchanged after the failures", ABI);
	return ktap_finish();
}
