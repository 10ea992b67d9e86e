// SPDX-License-Identifier: GPL-2.0
/*
 * execns(2): namespaces switched at exec, descriptors closed, and every
 * failure leaving the caller exactly as it was.  The new program is this
 * same binary in "report" mode, telling what it sees over fd 1.
 */
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include "guest-util.h"
#include "ktap.h"

static const struct { int flag; const char *name; } flags[] = {
	{ CLONE_NEWUTS, "CLONE_NEWUTS" }, { CLONE_NEWIPC, "CLONE_NEWIPC" },
	{ CLONE_NEWNS, "CLONE_NEWNS" }, { CLONE_NEWNET, "CLONE_NEWNET" },
	{ CLONE_NEWPID, "CLONE_NEWPID" }, { CLONE_NEWCGROUP, "CLONE_NEWCGROUP" },
	{ CLONE_NEWTIME, "CLONE_NEWTIME" },
};
#define NR_FLAGS (sizeof(flags) / sizeof(flags[0]))

static struct caller_state parent;

/* The report shows new namespaces exactly for the bits in f. */
static int ns_match(const struct report *r, int f)
{
	int ok = r->ok;

	for (size_t i = 0; i < NR_NS; i++) {
		int want_new = ns_flags[i] && (f & ns_flags[i]);

		/* A new pid namespace has no inode to show before its first process. */
		if (!r->ns[i] && want_new && ns_flags[i] == CLONE_NEWPID)
			continue;
		if (!r->ns[i] || (r->ns[i] != parent.ns[i]) != want_new) {
			ktap_diag("  %s: %lu (caller %lu), want %s", ns_files[i], r->ns[i],
				  parent.ns[i], want_new ? "new" : "same");
			ok = 0;
		}
	}
	return ok;
}

static void test_flags(void)
{
	struct report r;
	int err, st;

	for (size_t i = 0; i < NR_FLAGS; i++) {
		st = spawn_report(flags[i].flag, NULL, &r, &err);
		ktap_result(st == 0 && ns_match(&r, flags[i].flag),
			    "%s alone: only that namespace is new (errno %d)", flags[i].name, err);
	}
	st = spawn_report(NS_ALL, NULL, &r, &err);
	ktap_result(st == 0 && ns_match(&r, NS_ALL), "all seven flags at once");

	st = spawn_report(0, NULL, &r, &err);
	ktap_result(st == 0 && ns_match(&r, 0), "flags 0 is a plain execve");
}

static void test_hostname_pid(void)
{
	const char *host[] = { "host", "execns-inner", NULL };
	const char *fork_opt[] = { "fork", NULL };
	char now[64] = "";
	struct report r;
	int err, st;

	st = spawn_report(CLONE_NEWUTS, host, &r, &err);
	gethostname(now, sizeof(now) - 1);
	ktap_result(st == 0 && !strcmp(r.host, "execns-inner") && !strcmp(now, parent.host),
		    "CLONE_NEWUTS: the new program's hostname (%s) does not reach the caller (%s)",
		    r.host, now);

	st = spawn_report(CLONE_NEWPID, fork_opt, &r, &err);
	ktap_result(st == 0 && r.child_pid == 1,
		    "CLONE_NEWPID: the new program's first child is pid %ld in the new namespace",
		    r.child_pid);
}

static void test_fds(void)
{
	struct report r;
	int err, st, fd;

	fd = open("/proc/self/status", O_RDONLY);	/* no O_CLOEXEC */
	st = spawn_report(CLONE_NEWUTS, NULL, &r, &err);
	ktap_result(st == 0 && r.nfds == 3 && r.low_fds,
		    "descriptors above 2 are closed, close-on-exec or not; 0-2 kept (new program has %d)",
		    r.nfds);
	st = spawn_report(0, NULL, &r, &err);
	ktap_result(st == 0 && r.nfds == 3, "also with flags 0 (new program has %d)", r.nfds);
	close(fd);
}

/* A failure case, run in a child: execns must fail with want, caller intact. */
struct fail_case {
	const char *name;
	int want;
	long flags;
	const void *path;
	const void *argv;
	const void *envp;
	int drop_privileges;
	int share_fs;		/* clone(CLONE_FS) a sibling first */
};

static int fs_sharer(void *arg)
{
	(void)arg;
	pause();
	return 0;
}

static int run_fail_case(const struct fail_case *c)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		static char stack[64 * 1024];
		struct caller_state before, after;
		int probe = open("/", O_RDONLY);
		pid_t sharer = 0;
		long ret;

		alarm(20);
		if (c->drop_privileges && setresuid(65534, 65534, 65534))
			_exit(3);
		if (c->share_fs)
			sharer = clone(fs_sharer, stack + sizeof(stack), CLONE_FS | SIGCHLD, NULL);
		if (sharer < 0)
			_exit(4);
		snapshot(&before, probe);
		ret = raw_execns(c->flags, c->path, c->argv, c->envp);
		if (ret != -1 || errno != c->want) {
			ktap_diag("  %s: returned %ld errno %d, want %d", c->name, ret, errno, c->want);
			_exit(1);
		}
		snapshot(&after, probe);
		if (sharer > 0)
			kill(sharer, SIGKILL);
		if (!same_state(&before, &after) || fcntl(probe, F_GETFD) < 0) {
			ktap_diag("  %s: the caller changed", c->name);
			_exit(2);
		}
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void make_file(const char *path, const char *content, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	if (fd >= 0) {
		if (write(fd, content, strlen(content)) < 0)
			perror(path);
		close(fd);
	}
	chmod(path, mode);
}

static void test_errors(void)
{
	const long f = CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET;
	static char *ok_argv[] = { "/proc/self/exe", "report", NULL };
	static char *bad_elem[] = { "/proc/self/exe", (char *)1, NULL };
	static char *big_argv[] = { "/proc/self/exe", NULL, NULL };
	char *big = malloc(200 * 1024);
	void *unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	memset(big, 'x', 200 * 1024 - 1);
	big[200 * 1024 - 1] = '\0';
	big_argv[1] = big;
	make_file("/tmp/execns-noexec", "#!/bin/sh\nexit 0\n", 0644);
	make_file("/tmp/execns-garbage", "\x01\x02\x03 not a program\n", 0755);

	const struct fail_case cases[] = {
		{ .name = "ENOENT: no such program", .want = ENOENT, .flags = f,
		  .path = "/no/such/program", .argv = ok_argv, .envp = environ },
		{ .name = "EACCES: no execute permission", .want = EACCES, .flags = f,
		  .path = "/tmp/execns-noexec", .argv = ok_argv, .envp = environ },
		{ .name = "ENOEXEC: not an executable format", .want = ENOEXEC, .flags = f,
		  .path = "/tmp/execns-garbage", .argv = ok_argv, .envp = environ },
		{ .name = "E2BIG: an argument over MAX_ARG_STRLEN", .want = E2BIG, .flags = f,
		  .path = "/proc/self/exe", .argv = big_argv, .envp = environ },
		{ .name = "EFAULT: bad filename pointer", .want = EFAULT, .flags = f,
		  .path = unmapped, .argv = ok_argv, .envp = environ },
		{ .name = "EFAULT: bad argv pointer", .want = EFAULT, .flags = f,
		  .path = "/proc/self/exe", .argv = unmapped, .envp = environ },
		{ .name = "EFAULT: bad envp pointer", .want = EFAULT, .flags = f,
		  .path = "/proc/self/exe", .argv = ok_argv, .envp = unmapped },
		{ .name = "EFAULT: bad argv[1] pointer", .want = EFAULT, .flags = f,
		  .path = "/proc/self/exe", .argv = bad_elem, .envp = environ },
		{ .name = "EINVAL: unknown flag (CLONE_VM)", .want = EINVAL, .flags = f | CLONE_VM,
		  .path = "/proc/self/exe", .argv = ok_argv, .envp = environ },
		{ .name = "EINVAL: CLONE_FILES is not a namespace flag", .want = EINVAL, .flags = CLONE_FILES,
		  .path = "/proc/self/exe", .argv = ok_argv, .envp = environ },
		{ .name = "EPERM: unprivileged caller asking for namespaces", .want = EPERM, .flags = CLONE_NEWUTS,
		  .path = "/proc/self/exe", .argv = ok_argv, .envp = environ, .drop_privileges = 1 },
		{ .name = "EPERM: unprivileged caller asking for a uid table", .want = EPERM, .flags = CLONE_NEWUSER,
		  .path = "/proc/self/exe", .argv = ok_argv, .envp = environ, .drop_privileges = 1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ktap_result(run_fail_case(&cases[i]), "%s; caller intact", cases[i].name);
	/* ENOMEM: test-execns-faults injects it at every fallible step. */
	free(big);
}

static void *sleeper(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

struct thread_call {
	int flags;
	char **argv;
};

static void *thread_execns(void *arg)
{
	struct thread_call *c = arg;

	execns(c->flags, "/proc/self/exe", c->argv, environ);
	printf("errno %d\n", errno);
	fflush(stdout);
	_exit(99);
}

static void test_threads(void)
{
	int p[2], status;
	char text[4096];
	struct report r = { 0 };
	pid_t pid;

	if (pipe(p))
		return;
	pid = fork();
	if (pid == 0) {
		static char *argv[] = { "/proc/self/exe", "report", NULL };
		struct thread_call c = { CLONE_NEWUTS | CLONE_NEWIPC, argv };
		pthread_t t;

		dup2(p[1], 1);
		alarm(20);
		for (int i = 0; i < 3; i++)
			pthread_create(&t, NULL, sleeper, NULL);
		pthread_create(&t, NULL, thread_execns, &c);
		pause();
		_exit(98);
	}
	close(p[1]);
	read_all(p[0], text, sizeof(text));
	close(p[0]);
	waitpid(pid, &status, 0);
	parse_report(&r, text, 0);
	ktap_result(WIFEXITED(status) && !WEXITSTATUS(status) && r.threads == 1 &&
		    ns_match(&r, CLONE_NEWUTS | CLONE_NEWIPC),
		    "from a non-main thread of a 5-thread process: single-threaded new program in new namespaces (threads %d)",
		    r.threads);
}

static void test_nested(void)
{
	const char *opts[] = { "nest", "0x04000000", NULL };	/* CLONE_NEWUTS */
	struct report r1, r2 = { 0 };
	int err, st;

	st = spawn_report(CLONE_NEWUTS | CLONE_NEWNET, opts, &r1, &err);
	parse_report(&r2, r1.text, 1);
	ktap_result(st == 0 && r2.ok && r1.ns[0] != parent.ns[0] && r2.ns[0] != r1.ns[0] &&
		    r2.ns[3] == r1.ns[3] && r1.ns[3] != parent.ns[3],
		    "execns inside execns: uts %lu -> %lu -> %lu, net stays %lu",
		    parent.ns[0], r1.ns[0], r2.ns[0], r1.ns[3]);
}

static void test_shared_fs(void)
{
	const struct fail_case c = {
		.name = "EINVAL: CLONE_NEWNS with the fs_struct shared with another process",
		.want = EINVAL, .flags = CLONE_NEWNS | CLONE_NEWUTS, .path = "/proc/self/exe",
		.argv = (char *[]){ "/proc/self/exe", "report", NULL }, .envp = environ,
		.share_fs = 1,
	};

	ktap_result(run_fail_case(&c), "%s; caller intact", c.name);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "report"))
		return report_main(argc, argv);

	snapshot(&parent, -1);
	ktap_plan(NR_FLAGS + 2 + 2 + 2 + 12 + 1 + 1 + 1);
	test_flags();
	test_hostname_pid();
	test_fds();
	test_errors();
	test_threads();
	test_nested();
	test_shared_fs();
	return ktap_finish();
}
