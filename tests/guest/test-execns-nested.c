// SPDX-License-Identifier: GPL-2.0
/*
 * execns(2) inside execns: the new program calls execns again, and the
 * namespaces change at each level, relative to the level before, exactly
 * for the flags of that call.  A second CLONE_NEWPID by the same process is
 * EINVAL (as for unshare(2): its children's pid namespace is no longer its
 * own), and leaves it as it was.
 */
#include "lib/test.h"

static unsigned long caller_ns[NR_NS];

static void test_levels(void)
{
	const int f[3] = { CLONE_NEWUTS | CLONE_NEWNET,
			   CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNS,
			   CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWTIME };
	char a1[16], a2[16];
	struct report r[3];
	pid_t pid = 0;
	int err, st, ok;

	snprintf(a1, sizeof(a1), "%#x", f[1]);
	snprintf(a2, sizeof(a2), "%#x", f[2]);
	st = spawn_report_prep(f[0], (const char *[]){ "nest", a1, "nest", a2, NULL },
			       NULL, NULL, &r[0], &err, &pid);
	memset(&r[1], 0, sizeof(r[1]));
	memset(&r[2], 0, sizeof(r[2]));
	parse_report(&r[1], r[0].text, 1);
	parse_report(&r[2], r[0].text, 2);
	ok = exited_ok(st) && r[0].ok && r[1].ok && r[2].ok;
	ok = ns_match(r[0].ns, caller_ns, f[0], "level 1") && ok;
	ok = ns_match(r[1].ns, r[0].ns, f[1], "level 2") && ok;
	ok = ns_match(r[2].ns, r[1].ns, f[2], "level 3") && ok;
	ok = ok && r[0].pid == pid && r[1].pid == pid && r[2].pid == pid;
	ok = ok && !strcmp(r[2].fds, "0,1,2") && r[0].nest_err == -1 && r[1].nest_err == -1;
	ksft_test_result(ok, "three levels (%s, then %s, then %s): each changes exactly its namespaces; uts %lu -> %lu -> %lu -> %lu",
			 flags_str(f[0]), flags_str(f[1]), flags_str(f[2]),
			 caller_ns[NS_UTS], r[0].ns[NS_UTS], r[1].ns[NS_UTS], r[2].ns[NS_UTS]);
}

static void test_second_newpid(void)
{
	char a1[16];
	struct report r;
	int err, st, same = 1;

	snprintf(a1, sizeof(a1), "%#x", CLONE_NEWPID | NS_PREPARED);
	st = spawn_report(CLONE_NEWPID, (const char *[]){ "nest", a1, NULL }, &r, &err);
	for (size_t i = 0; i < NR_NS; i++)
		if (r.after[i] != r.ns[i]) {
			ksft_print_msg("after the failed call: %s %lu -> %lu\n", ns_list[i].name,
				       r.ns[i], r.after[i]);
			same = 0;
		}
	ksft_test_result(exited_ok(st) && r.ok && r.nest_err == EINVAL && r.has_after && same,
			 "a second execns(CLONE_NEWPID|...) by the same process is EINVAL (%d) and changes nothing",
			 r.nest_err);
}

static const struct child_mode modes[] = { CHILD_MODE_REPORT };

int main(int argc, char **argv)
{
	CHILD_DISPATCH(modes, argc, argv);

	ns_all(caller_ns);
	test_start(2, TEST_TIMEOUT);
	test_levels();
	test_second_newpid();
	ksft_finished();
}
