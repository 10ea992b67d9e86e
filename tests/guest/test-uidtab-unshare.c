// SPDX-License-Identifier: GPL-2.0
/*
 * forbid_unshare: the module's parameter, or the twin's sysctl
 * kernel.forbid_unshare (ut_forbid_unshare()).  Off by default, so loading
 * the module (or booting the twin) changes nothing for container runtimes:
 * the kernel's own behaviour comes through (a new ipc namespace; a kernel
 * user namespace, which is not a uid table).
 * Written 1 (the seed's policy), unshare(2) with CLONE_NEWIPC or
 * CLONE_NEWUSER fails with EINVAL and changes nothing, other flags are not
 * affected, nor is clone(2) with those flags; written 0 again, unshare works
 * again.  Each attempt runs in a child of its own.  Where the module's
 * load-time proof refuses forbid_unshare (a check ending "(refuses
 * forbid_unshare)" failed, as on lto), writing 1 must fail with
 * EOPNOTSUPP and leave it off, and the checks of its effect skip.
 * With the module, an armed forbid_unshare holds a module reference: rmmod
 * is refused (EWOULDBLOCK, "in use") and /proc/execns/stats says why, so
 * unload never has to unregister an armed hook (which, after
 * ftrace_kill(), it would wait for forever); at 0 the reference is gone.
 */
#include <sched.h>
#include <sys/syscall.h>
#include "lib/test.h"

static unsigned long ns_ino(const char *name)
{
	char path[64], link[64] = "";
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	return strchr(link, '[') ? strtoul(strchr(link, '[') + 1, NULL, 10) : 0;
}

static const char *ns_name(long flag)
{
	return flag == CLONE_NEWIPC ? "ipc" : flag == CLONE_NEWUSER ? "user" : "uts";
}

/* unshare(flag): "ret", "err", "changed" (its namespace inode), "self" (table). */
static int try_unshare(void *arg)
{
	long flag = (long)arg;
	unsigned long before = ns_ino(ns_name(flag));
	int ret = unshare(flag);

	child_putl("ret", ret);
	child_putl("err", ret ? errno : 0);
	child_putl("changed", before && ns_ino(ns_name(flag)) != before);
	child_putl("self", ut_self());
	return 0;
}

struct clone_arg {
	long flag;
	unsigned long parent_ino;
};

/* Exit 0 when the child's namespace differs from its parent's. */
static int clone_child(void *arg)
{
	const struct clone_arg *c = arg;
	unsigned long ino = ns_ino(ns_name(c->flag));

	return ino && ino != c->parent_ino ? 0 : 1;
}

/* clone(flag): "ret" (the child's exit status: 0 = a namespace of its own), "err". */
static int try_clone(void *arg)
{
	static char stack[64 * 1024];
	struct clone_arg c = { (long)arg, ns_ino(ns_name((long)arg)) };
	int st;
	pid_t pid;

	pid = clone(clone_child, stack + sizeof(stack), c.flag | SIGCHLD, &c);
	if (pid < 0) {
		child_putl("ret", -1);
		child_putl("err", errno);
		return 0;
	}
	waitpid(pid, &st, 0);
	child_putl("ret", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	child_putl("err", 0);
	return 0;
}

static const struct child_mode modes[] = {
	UT_MODES,
};

int main(int argc, char **argv)
{
	const char *forbid = ut_forbid_unshare();
	char v0[8], v[8];
	struct child o;
	int ret, err;

	CHILD_DISPATCH(modes, argc, argv);

	ut_start(14);
	read_line(forbid, v0, sizeof(v0));
	ksft_test_result(!strcmp(v0, "N") || !strcmp(v0, "0"),
			 "forbid_unshare is off by default: %s breaks no container runtime (%s)",
			 execns_in_tree() ? "the twin" : "loading the module", v0);
	child_run(try_unshare, (void *)(long)CLONE_NEWIPC, &o);
	ksft_test_result(child_val(&o, "ret") == 0 && child_val(&o, "changed") == 1,
			 "forbid_unshare=0: unshare(CLONE_NEWIPC) makes a new ipc namespace (ret %ld, errno %ld)",
			 child_val(&o, "ret"), child_val(&o, "err"));
	child_run(try_unshare, (void *)(long)CLONE_NEWUSER, &o);
	ksft_test_result(child_val(&o, "ret") == 0 && child_val(&o, "changed") == 1 && child_val(&o, "self") == 0,
			 "forbid_unshare=0: unshare(CLONE_NEWUSER) makes a kernel user namespace, no uid table (ret %ld, errno %ld, table %ld)",
			 child_val(&o, "ret"), child_val(&o, "err"), child_val(&o, "self"));

	ret = write_knob(forbid, "1");
	err = ret ? errno : 0;
	read_line(forbid, v, sizeof(v));
	if (ut_forbid_refused()) {
		ksft_test_result(ret && err == EOPNOTSUPP && !strcmp(v, "N"),
				 "forbid_unshare=1 is refused with EOPNOTSUPP, as the load-time proof refuses it here (errno %d, still %s)",
				 err, v);
		for (int i = 0; i < 6; i++)
			ksft_test_result_code(KSFT_SKIP, "forbid_unshare=1's effect",
					      "the load-time proof refuses forbid_unshare here (/proc/execns/proof)");
		goto off;
	}
	ksft_test_result(!ret && (!strcmp(v, "Y") || !strcmp(v, "1")),
			 "forbid_unshare set to 1, the seed's policy (%s, errno %d)", v, err);
	child_run(try_unshare, (void *)(long)CLONE_NEWIPC, &o);
	ksft_test_result(child_val(&o, "ret") == -1 && child_val(&o, "err") == EINVAL && child_val(&o, "changed") == 0,
			 "forbid_unshare=1: unshare(CLONE_NEWIPC) as root is EINVAL, ipc namespace unchanged (errno %ld)",
			 child_val(&o, "err"));
	child_run(try_unshare, (void *)(long)CLONE_NEWUSER, &o);
	ksft_test_result(child_val(&o, "ret") == -1 && child_val(&o, "err") == EINVAL && child_val(&o, "changed") == 0 &&
			 child_val(&o, "self") == 0,
			 "forbid_unshare=1: unshare(CLONE_NEWUSER) is EINVAL, user namespace and table unchanged (errno %ld, table %ld)",
			 child_val(&o, "err"), child_val(&o, "self"));
	child_run(try_unshare, (void *)(long)CLONE_NEWUTS, &o);
	ksft_test_result(child_val(&o, "ret") == 0 && child_val(&o, "changed") == 1,
			 "forbid_unshare=1: unshare(CLONE_NEWUTS) still works (errno %ld)", child_val(&o, "err"));
	child_run(try_clone, (void *)(long)CLONE_NEWIPC, &o);
	ksft_test_result(child_val(&o, "ret") == 0,
			 "forbid_unshare=1: clone(CLONE_NEWIPC) works, the child has its own ipc namespace (%ld, errno %ld)",
			 child_val(&o, "ret"), child_val(&o, "err"));
	child_run(try_clone, (void *)(long)CLONE_NEWUSER, &o);
	ksft_test_result(child_val(&o, "ret") == 0,
			 "forbid_unshare=1: clone(CLONE_NEWUSER) works, the child has its own user namespace (%ld, errno %ld)",
			 child_val(&o, "ret"), child_val(&o, "err"));
	if (execns_in_tree()) {
		ksft_test_result_code(KSFT_SKIP, "rmmod refused while forbid_unshare=1",
				      "the twin's forbid_unshare is a sysctl: no module to unload");
	} else {
		int rm = syscall(SYS_delete_module, "execns", O_NONBLOCK) ? errno : 0;
		char stats[4096] = "";

		read_text(EXECNS_PROC_STATS, stats, sizeof(stats));
		ksft_test_result(rm == EWOULDBLOCK && !access(EXECNS_SYSFS_MODULE, F_OK) &&
				 strstr(stats, EXECNS_STAT_PINNED " forbid_unshare is armed"),
				 "forbid_unshare=1: rmmod is refused, in use (errno %d), the module stays, and /proc/execns/stats says why",
				 rm);
	}

off:
	write_knob(forbid, "0");
	read_line(forbid, v, sizeof(v));
	ksft_test_result(!strcmp(v, "N") || !strcmp(v, "0"), "forbid_unshare set back to 0 (%s)", v);
	if (execns_in_tree()) {
		ksft_test_result_code(KSFT_SKIP, "no pin at 0", "the twin has no module");
	} else {
		char stats[4096] = "";

		read_text(EXECNS_PROC_STATS, stats, sizeof(stats));
		ksft_test_result(!strstr(stats, EXECNS_STAT_PINNED " forbid_unshare"),
				 "at 0 forbid_unshare no longer pins the module (/proc/execns/stats)");
	}
	child_run(try_unshare, (void *)(long)CLONE_NEWIPC, &o);
	ksft_test_result(child_val(&o, "ret") == 0 && child_val(&o, "changed") == 1,
			 "and unshare(CLONE_NEWIPC) works again (ret %ld, errno %ld)",
			 child_val(&o, "ret"), child_val(&o, "err"));
	write_knob(forbid, v0[0] == 'N' || v0[0] == '0' ? "0" : "1");
	read_line(forbid, v, sizeof(v));
	ksft_test_result(!strcmp(v, v0), "forbid_unshare as it was (%s)", v);
	ksft_finished();
}
