// SPDX-License-Identifier: GPL-2.0
/*
 * Every way execns(2) fails, each with namespaces prepared (CLONE_NEWNS,
 * CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWNET unless the case needs other
 * flags): the right errno, and the caller exactly as before - namespaces,
 * root and cwd (device, inode and mount), credentials and capabilities,
 * host name, image (/proc/self/exe, comm, cmdline), signal dispositions
 * and mask, and every descriptor with its flags and offset.  Then the same
 * process must still work: its descriptors read and write, and a following
 * execns succeeds into new namespaces.
 */
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include "lib/test.h"

#define F		NS_PREPARED
#define PROBE		"/tmp/execns-errors-probe"
#define NOEXEC_DIR	"/tmp/execns-noexec"
#define FAIL_NTH	EXECNS_SYSFS_DIR "/fail_nth"
#define MAX_NET_NS	"/proc/sys/user/max_net_namespaces"
#define PROBE_FD	10
#define PIPE_RD		20
#define PIPE_WR		21

/* All designated, so that a row names only what it has beyond these. */
#define CASE(n, e, fl)	.name = (n), .want = (e), .flags = (fl)

struct fail_case {
	const char *name;
	int want;		/* errno */
	long flags;
	/* What differs from a call that works (NULL: /proc/self/exe, report_argv, environ). */
	const void *path, *argv, *envp;
	int (*setup)(void);	/* in the child, before the first snapshot; nonzero: cannot */
	void (*undo)(void);	/* in the child, after the failure */
	int then_plain;		/* the follow-up execns has flags 0, not the namespace flags */
	const char *skip;	/* set: report as skipped, with this reason */
};

static unsigned long caller_ns[NR_NS];
static char *report_argv[] = { "/proc/self/exe", "report", NULL };
static char *report_envp[] = { REPORT_ENV "=report-env", NULL };

static void on_usr1(int sig)
{
	(void)sig;
}

/* The child's side of one case; its exit status tells the parent. */
static int fail_child(void *arg)
{
	const struct fail_case *c = arg;
	struct proc_state before, after;
	int then = c->then_plain ? 0 : (int)(c->flags & EXECNS_NS_FLAGS);
	int p[2], probe;
	sigset_t usr2;
	char buf[8];
	long ret;
	int e;

	if (chdir("/tmp"))
		return 90;
	/* Descriptors above 2 that are not close-on-exec, one of them half read. */
	probe = open(PROBE, O_RDONLY);
	if (probe < 0 || dup2(probe, PROBE_FD) < 0 || lseek(PROBE_FD, 3, SEEK_SET) != 3 || pipe(p) ||
	    dup2(p[0], PIPE_RD) < 0 || dup2(p[1], PIPE_WR) < 0)
		return 91;
	close(probe);
	close(p[0]);
	close(p[1]);
	fcntl(PIPE_RD, F_SETFD, FD_CLOEXEC);	/* one close-on-exec among them */
	signal(SIGUSR1, on_usr1);
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	sigprocmask(SIG_BLOCK, &usr2, NULL);
	if (c->setup && c->setup())
		return 92;

	snapshot(&before);
	ret = raw_execns(c->flags, c->path ? c->path : "/proc/self/exe",
			 c->argv ? c->argv : (void *)report_argv,
			 c->envp ? c->envp : (void *)environ);
	e = errno;
	snapshot(&after);
	if (ret != -1 || e != c->want) {
		printf("# returned %ld, errno %d (%s), want %d (%s)\n", ret, e, strerror(e),
		       c->want, strerror(c->want));
		return 1;
	}
	if (!same_state(&before, &after, "caller after the failure"))
		return 2;
	/* Still working: the descriptors read and write where they were. */
	if (read(PROBE_FD, buf, 4) != 4 || memcmp(buf, "3456", 4) ||
	    write(PIPE_WR, "x", 1) != 1 || read(PIPE_RD, buf, 1) != 1 || buf[0] != 'x') {
		printf("# the descriptors no longer work\n");
		return 3;
	}
	if (c->undo)
		c->undo();
	fflush(stdout);
	execns(then, "/proc/self/exe", report_argv, report_envp);
	printf("# the following execns(%s) failed too: errno %d\n", flags_str(then), errno);
	return 4;
}

static void run_fail_case(const struct fail_case *c)
{
	int then = c->then_plain ? 0 : (int)(c->flags & EXECNS_NS_FLAGS);
	struct report r;
	struct child ch;

	if (c->skip) {
		ksft_test_result_code(KSFT_SKIP, c->name, "%s", c->skip);
		return;
	}
	if (child_start(&ch, CHILD_STDOUT, 30, fail_child, (void *)c)) {
		ksft_test_result_fail("%s: no child: errno %d", c->name, errno);
		return;
	}
	memset(&r, 0, sizeof(r));
	parse_report(&r, ch.text, 0);
	if (WIFEXITED(ch.status) && child_code(&ch) > 90)
		ksft_print_msg("the test's own setup failed (%d)\n", child_code(&ch));
	ksft_test_result(child_ok(&ch) && r.ok && r.pid == ch.pid && !strcmp(r.fds, "0,1,2") &&
			 ns_match(r.ns, caller_ns, then, "the following execns"),
			 "%s; caller intact and still working", c->name);
}

/* --- setups run in the child ------------------------------------------------ */

static int to_nobody(void)
{
	return drop_to_nobody();
}

static void prep_nobody(void *arg)
{
	(void)arg;
	if (drop_to_nobody())
		_exit(96);
}

/* Stay uid 0 but without CAP_SYS_ADMIN (effective, permitted, bounding). */
static int drop_sys_admin(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN, 0, 0, 0) ||
	    syscall(SYS_capget, &h, d))
		return -1;
	d[CAP_SYS_ADMIN / 32].effective &= ~(1u << (CAP_SYS_ADMIN % 32));
	d[CAP_SYS_ADMIN / 32].permitted &= ~(1u << (CAP_SYS_ADMIN % 32));
	d[CAP_SYS_ADMIN / 32].inheritable &= ~(1u << (CAP_SYS_ADMIN % 32));
	return syscall(SYS_capset, &h, d) ? -1 : 0;
}

static char max_net_saved[32];

static int no_net_namespaces(void)
{
	write_file(MAX_NET_NS, "0\n", 0644);
	return read_long(MAX_NET_NS) == 0 ? 0 : -1;
}

static void restore_net_namespaces(void)
{
	write_file(MAX_NET_NS, max_net_saved, 0644);
}

/* Fail the second fallible step (the namespaces; the first is the fs_struct copy). */
static int fail_second_step(void)
{
	return write_file(FAIL_NTH, "2\n", 0600);
}

static void fail_nth_off(void)
{
	write_file(FAIL_NTH, "0\n", 0600);
}

/* Lower RLIMIT_STACK so that a few hundred KiB of arguments are too many. */
static int small_stack(void)
{
	struct rlimit rl = { 256 * 1024, 256 * 1024 };

	return setrlimit(RLIMIT_STACK, &rl);
}

/*
 * How many namespaces of a type exist now, read through its limit in
 * /proc/sys/user/max_*_namespaces: creating one more fails with ENOSPC
 * exactly when the count has reached the limit.  A binary search over the
 * limit, probing with clone() (not with execns), finds the count.  Only
 * types whose namespaces are counted down synchronously when the last
 * reference goes are measured (mnt, uts): ipc and net are freed from
 * workqueues.
 */
static const struct {
	const char *name;
	int flag;
	const char *limit;
} counted[] = {
	{ "mnt", CLONE_NEWNS, "/proc/sys/user/max_mnt_namespaces" },
	{ "uts", CLONE_NEWUTS, "/proc/sys/user/max_uts_namespaces" },
};

static int can_create(int flag)
{
	pid_t p = syscall(SYS_clone, flag | SIGCHLD, 0, NULL, NULL, 0);

	if (p == 0)
		_exit(0);
	if (p < 0)
		return errno == ENOSPC ? 0 : -1;
	waitpid(p, NULL, 0);
	return 1;
}

static long ns_count(size_t k)
{
	long saved = read_long(counted[k].limit), lo = 1, hi = saved, m;
	char buf[32];

	if (saved < 1 || can_create(counted[k].flag) != 1)
		return -1;
	while (lo < hi) {	/* the smallest limit that still lets one more be created */
		m = lo + (hi - lo) / 2;
		snprintf(buf, sizeof(buf), "%ld\n", m);
		write_file(counted[k].limit, buf, 0644);
		if (can_create(counted[k].flag) == 1)
			hi = m;
		else
			lo = m + 1;
	}
	snprintf(buf, sizeof(buf), "%ld\n", saved);
	write_file(counted[k].limit, buf, 0644);
	return lo - 1;
}

struct bad_calls {
	void *unmapped;
	char **one_big;
};

/* In a child: 100 calls that fail (ENOENT, EFAULT, E2BIG in turn); 0 if all did. */
static int fail_100(void *arg)
{
	const struct bad_calls *b = arg;

	for (int i = 0; i < 100; i++) {
		const void *path = i % 3 == 1 ? b->unmapped : "/no/such/program";
		char **argv = i % 3 == 2 ? b->one_big : report_argv;

		if (raw_execns(F, path, argv, environ) != -1)
			return 1;
	}
	return 0;
}

/* 100 failing calls with namespaces prepared leave no namespace behind. */
static void test_no_leak(void *unmapped, char **one_big)
{
	struct bad_calls b = { unmapped, one_big };
	long before[2], after[2];
	struct child c;
	int ok = 1;

	for (size_t k = 0; k < 2; k++)
		before[k] = ns_count(k);
	child_start(&c, CHILD_STDOUT, 60, fail_100, &b);
	for (size_t k = 0; k < 2; k++) {
		/* Allow for a deferred free, a few seconds at most. */
		for (int tries = 0; tries < 30; tries++) {
			after[k] = ns_count(k);
			if (after[k] == before[k])
				break;
			usleep(100000);
		}
		if (before[k] < 0 || after[k] != before[k]) {
			ksft_print_msg("%s namespaces: %ld before, %ld after\n", counted[k].name,
				       before[k], after[k]);
			ok = 0;
		}
	}
	ksft_test_result(child_ok(&c) && ok,
			 "100 failing calls (ENOENT, EFAULT, E2BIG) drop what they prepared: %ld mnt and %ld uts namespaces before and after",
			 before[0], before[1]);
}

static const struct child_mode modes[] = { CHILD_MODE_REPORT };

int main(int argc, char **argv)
{
	static char *bad_elem[] = { "/proc/self/exe", (char *)8, NULL };
	static char *bad_env_elem[] = { REPORT_ENV "=x", (char *)8, NULL };
	static char *one_big[] = { "/proc/self/exe", NULL, NULL };
	static char *many_big[64];
	const char *noexec_skip = NULL, *nth_skip = NULL;
	long page = sysconf(_SC_PAGESIZE);
	size_t big_len;
	char *big, *unmapped;

	CHILD_DISPATCH(modes, argc, argv);
	alarm(TEST_TIMEOUT);

	/*
	 * Arguments: one over MAX_ARG_STRLEN (32 of this kernel's pages: 128
	 * KiB with 4 KiB pages, 512 KiB with 16 KiB ones); many of 100 KiB
	 * each, under it on every page size.
	 */
	big_len = 33 * (size_t)page > 200 * 1024 ? 33 * (size_t)page : 200 * 1024;
	big = malloc(big_len);
	memset(big, 'x', big_len - 1);
	big[big_len - 1] = '\0';
	one_big[1] = big;
	many_big[0] = "/proc/self/exe";
	for (int i = 1; i < 63; i++)
		many_big[i] = big + big_len - 100 * 1024;
	unmapped = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	write_file(PROBE, "0123456789", 0644);
	write_file("/tmp/execns-no-x", "#!/bin/sh\nexit 0\n", 0644);
	write_file("/tmp/execns-garbage", "\x01\x02\x03 this is no program\n", 0755);
	write_file("/tmp/execns-no-interp", "#!/no/such/interpreter\n", 0755);
	mkdir(NOEXEC_DIR, 0755);
	if (mount("execns-noexec", NOEXEC_DIR, "tmpfs", MS_NOEXEC, NULL))
		noexec_skip = "cannot mount a noexec tmpfs here";
	else
		write_file(NOEXEC_DIR "/prog", "#!/bin/sh\nexit 0\n", 0755);
	if (access(FAIL_NTH, W_OK))
		nth_skip = "ENOMEM cannot be provoked reliably without the module's fail_nth fault injection";
	snprintf(max_net_saved, sizeof(max_net_saved), "%ld\n", read_long(MAX_NET_NS));
	ns_all(caller_ns);

	const struct fail_case cases[] = {
		{ CASE("ENOENT: no such file", ENOENT, F), .path = "/no/such/program" },
		{ CASE("ENOENT: the #! interpreter does not exist", ENOENT, F),
		  .path = "/tmp/execns-no-interp" },
		{ CASE("EACCES: no execute permission", EACCES, F), .path = "/tmp/execns-no-x" },
		{ CASE("EACCES: a directory", EACCES, F), .path = "/tmp" },
		{ CASE("EACCES: on a file system mounted noexec", EACCES, F), .path = NOEXEC_DIR "/prog",
		  .skip = noexec_skip },
		{ CASE("ENOEXEC: executable, but no format the kernel knows", ENOEXEC, F),
		  .path = "/tmp/execns-garbage" },
		{ CASE("E2BIG: one argument over MAX_ARG_STRLEN", E2BIG, F), .argv = one_big },
		{ CASE("E2BIG: too much in all, each argument under MAX_ARG_STRLEN", E2BIG, F),
		  .argv = many_big, .setup = small_stack },
		{ CASE("EFAULT: filename points nowhere", EFAULT, F), .path = unmapped },
		{ CASE("EFAULT: argv points nowhere", EFAULT, F), .argv = unmapped },
		{ CASE("EFAULT: envp points nowhere", EFAULT, F), .envp = unmapped },
		{ CASE("EFAULT: argv[1] points nowhere", EFAULT, F), .argv = bad_elem },
		{ CASE("EFAULT: envp[1] points nowhere", EFAULT, F), .envp = bad_env_elem },
		{ CASE("EINVAL: an unknown flag (CLONE_VM)", EINVAL, F | CLONE_VM) },
		{ CASE("EINVAL: a clone flag that is no namespace (CLONE_FILES)", EINVAL, CLONE_FILES),
		  .then_plain = 1 },
		{ CASE("EINVAL: the top bit (0x80000000)", EINVAL, F | 0x80000000L) },
		{ CASE("EINVAL: a bit above 31 (1 << 32), as unshare(2)", EINVAL, F | (1L << 32)) },
		{ CASE("EINVAL: only a bit above 31 (1 << 63)", EINVAL, (long)(1UL << 63)),
		  .then_plain = 1 },
		{ CASE("EPERM: uid 65534 without capabilities asks for namespaces", EPERM, F),
		  .setup = to_nobody, .then_plain = 1 },
		{ CASE("EPERM: uid 65534 asks for a uid table (CLONE_NEWUSER)", EPERM, CLONE_NEWUSER),
		  .setup = to_nobody, .then_plain = 1 },
		{ CASE("ENOENT with a uid table prepared too (CLONE_NEWUSER)", ENOENT, F | CLONE_NEWUSER),
		  .path = "/no/such/program" },
		{ CASE("EPERM: uid 0 without CAP_SYS_ADMIN asks for CLONE_NEWUTS", EPERM, CLONE_NEWUTS),
		  .setup = drop_sys_admin, .then_plain = 1 },
		{ CASE("ENOSPC: max_net_namespaces is 0 (mnt, uts, ipc already made)", ENOSPC, F),
		  .setup = no_net_namespaces, .undo = restore_net_namespaces },
		{ CASE("ENOMEM: fail_nth fails the namespaces after the fs_struct copy", ENOMEM, F),
		  .setup = fail_second_step, .undo = fail_nth_off, .skip = nth_skip },
	};
	const size_t n = sizeof(cases) / sizeof(cases[0]);

	test_start(n + 2, 0);
	for (size_t i = 0; i < n; i++) {
		run_fail_case(&cases[i]);
		/* Whatever happened in the child, leave the system as it was. */
		write_file(MAX_NET_NS, max_net_saved, 0644);
		if (!nth_skip)
			write_file(FAIL_NTH, "0\n", 0600);
	}

	/* Unprivileged and flags 0: a plain execve needs no privilege. */
	{
		struct report r;
		pid_t pid = 0;
		int err, st;

		st = spawn_report_prep(0, NULL, prep_nobody, NULL, &r, &err, &pid);
		ksft_test_result(exited_ok(st) && r.ok && r.pid == pid && ns_match(r.ns, caller_ns, 0, "new program"),
				 "uid 65534 without capabilities, flags 0: a plain execve works (errno %d)", err);
	}

	test_no_leak(unmapped, one_big);

	umount(NOEXEC_DIR);
	rmdir(NOEXEC_DIR);
	free(big);
	ksft_finished();
}
