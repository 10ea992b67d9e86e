// SPDX-License-Identifier: GPL-2.0
/*
 * execns(2), each namespace flag alone and all together: the new program
 * (this binary in report mode) runs in new namespaces exactly of the types
 * asked for, in the same process, and what it does there does not reach
 * the caller (host name, mounts, System V IPC).  CLONE_NEWPID and
 * CLONE_NEWTIME apply to the new program's children.
 */
#include "lib/test.h"

#define MNT_DIR	"/tmp/execns-flags-mnt"
#define MSGQ_KEY 0x65786e73

static unsigned long caller_ns[NR_NS];

/* One flag set: new namespaces exactly for flags, same pid, only 0-2 open. */
static void test_flags(int flags)
{
	struct report r;
	pid_t pid = 0;
	int err, st;

	st = spawn_report_prep(flags, NULL, NULL, NULL, &r, &err, &pid);
	if (err)
		ksft_print_msg("execns(%s) failed: errno %d (%s)\n", flags_str(flags), err, strerror(err));
	ksft_test_result(exited_ok(st) && r.ok && ns_match(r.ns, caller_ns, flags, "new program") &&
			 r.pid == pid && !strcmp(r.fds, "0,1,2"),
			 "flags %s: %s (pid %d, caller %d; fds %s)", flags_str(flags),
			 flags ? "the new program is in new namespaces of exactly these types, in the same process"
			  : "a plain execve, no new namespace",
			 r.pid, pid, r.fds);
}

static void test_hostname(void)
{
	const char *opts[] = { "host", "execns-inner", NULL };
	char before[65] = "", after[65] = "";
	struct report r;
	int err, st;

	gethostname(before, sizeof(before) - 1);
	st = spawn_report(CLONE_NEWUTS, opts, &r, &err);
	gethostname(after, sizeof(after) - 1);
	ksft_test_result(exited_ok(st) && r.ok && !r.sethost_err && !strcmp(r.host, "execns-inner") &&
			 !strcmp(before, after) && strcmp(after, "execns-inner"),
			 "CLONE_NEWUTS: the new program sets its host name (%s); the caller's stays %s",
			 r.host, after);
}

static void test_pid(void)
{
	const char *opts[] = { "fork", NULL };
	struct report r;
	int err, st;

	st = spawn_report(CLONE_NEWPID, opts, &r, &err);
	ksft_test_result(exited_ok(st) && r.ok && r.child_pid == 1 && r.child_pid_ns &&
			 r.child_pid_ns != caller_ns[NS_PID] && r.ns[NS_PID] == caller_ns[NS_PID],
			 "CLONE_NEWPID: the new program keeps its pid namespace; its first child is pid %d in pid:[%lu]",
			 r.child_pid, r.child_pid_ns);
}

static void test_time(void)
{
	const char *opts[] = { "fork", NULL };
	struct report r;
	int err, st;

	st = spawn_report(CLONE_NEWTIME, opts, &r, &err);
	ksft_test_result(exited_ok(st) && r.ok && r.child_time_ns &&
			 r.child_time_ns != caller_ns[NS_TIME] &&
			 r.child_time_ns == r.ns[NS_TIME_CHILD] && r.ns[NS_TIME] == caller_ns[NS_TIME],
			 "CLONE_NEWTIME: the new program keeps its time namespace; its child is in time:[%lu]",
			 r.child_time_ns);
}

static void test_mount(void)
{
	const char *opts[] = { "mount", MNT_DIR, NULL };
	struct place root, cwd;
	struct stat tmp, dir;
	struct report r;
	int err, st;

	mkdir(MNT_DIR, 0755);
	place_of("/", &root);
	place_of(".", &cwd);
	st = spawn_report(CLONE_NEWNS, opts, &r, &err);
	stat("/tmp", &tmp);
	stat(MNT_DIR, &dir);
	ksft_print_msg("root mount %llu -> %llu, cwd mount %llu -> %llu, %s device %lu there, %lu here\n",
		       root.mnt_id, r.root.mnt_id, cwd.mnt_id, r.cwd.mnt_id, MNT_DIR,
		       r.mount_dev, (unsigned long)dir.st_dev);
	ksft_test_result(exited_ok(st) && r.ok &&
			 r.root.dev == root.dev && r.root.ino == root.ino && r.root.mnt_id != root.mnt_id &&
			 r.cwd.dev == cwd.dev && r.cwd.ino == cwd.ino && r.cwd.mnt_id != cwd.mnt_id &&
			 !r.mount_err && r.mount_dev != tmp.st_dev && dir.st_dev == tmp.st_dev,
			 "CLONE_NEWNS: root and cwd are the copies in the new mount tree; a mount there is not seen by the caller");
	rmdir(MNT_DIR);
}

static void test_ipc(void)
{
	const char *opts[] = { "msgq", "0x65786e73", NULL };
	int id = msgget(MSGQ_KEY, IPC_CREAT | 0600);
	struct report in, out;
	int err, st_in, st_out;

	st_in = spawn_report(CLONE_NEWIPC, opts, &in, &err);
	st_out = spawn_report(CLONE_NEWUTS, opts, &out, &err);
	if (id >= 0)
		msgctl(id, IPC_RMID, NULL);
	ksft_test_result(id >= 0 && exited_ok(st_in) && exited_ok(st_out) &&
			 in.msgq_err == ENOENT && out.ok && out.msgq_err == 0,
			 "CLONE_NEWIPC: the caller's message queue is not seen (errno %d); without the flag it is (%d)",
			 in.msgq_err, out.msgq_err);
}

/*
 * CLONE_NEWUSER is not a kernel user namespace here but a new uid
 * accounting table (test-uidtab has the details): the new program is in a
 * table of its own, and no kernel namespace changes.  A table is the
 * module's id (/proc/execns/self), or on a kernel with execns(2) of its
 * own the inode of /proc/self/ns/uidtab, which no namespace of ns_list
 * shows (ut_self(): 0 for the initial table either way).
 */
static void test_uid_table(void)
{
	long mine = ut_self();
	struct report r;
	int err, st;

	st = spawn_report(CLONE_NEWUSER, NULL, &r, &err);
	ksft_test_result(exited_ok(st) && r.ok && r.table > 0 && r.table != mine &&
			 ns_match(r.ns, caller_ns, 0, "new program"),
			 "CLONE_NEWUSER: a new uid table (%ld, the caller's is %ld), no new kernel namespace (errno %d)",
			 r.table, mine, err);
}

static void test_args(void)
{
	const char *opts[] = { "a1", "a2", "a3", NULL };
	struct report r;
	int err, st;

	st = spawn_report(EXECNS_NS_FLAGS, opts, &r, &err);
	ksft_test_result(exited_ok(st) && r.ok && r.argc == 5 && !strcmp(r.env, "report-env"),
			 "argv (%d arguments) and envp (%s) reach the new program as given",
			 r.argc, r.env);
}

static const struct child_mode modes[] = { CHILD_MODE_REPORT };

int main(int argc, char **argv)
{
	CHILD_DISPATCH(modes, argc, argv);

	if (chdir("/tmp"))
		return 1;
	ns_all(caller_ns);
	test_start(NR_FLAGS + 2 + 7, TEST_TIMEOUT);
	for (size_t i = 0; i < NR_FLAGS; i++)
		test_flags(flag_names[i].flag);
	test_flags(EXECNS_NS_FLAGS);
	test_flags(0);
	test_hostname();
	test_pid();
	test_time();
	test_mount();
	test_ipc();
	test_args();
	test_uid_table();
	ksft_finished();
}
