// SPDX-License-Identifier: GPL-2.0
/*
 * The execns(1) CLI: namespaces by option, the -u/--user traps, the second
 * stage (--fork, --kill-child, --mount-proc, --propagation, --setuid,
 * --setgid, --monotonic, --boottime, --root, --wd), the PATH search made
 * once, --which, --version, one-line errors and env(1)'s exit codes.
 *
 * Child modes, for the CLI to run: "clock" prints CLOCK_MONOTONIC in
 * seconds, "cwd" the working directory, "uidtab" its uid table as
 * ut_self() reads it (the module's id; on a kernel with execns(2) of its
 * own, the twin, the inode of /proc/self/ns/uidtab; 0 for the initial
 * table either way).  How many execns calls the CLI makes is counted with
 * ptrace, which sees the module's slot and the kernel's own execns(2)
 * alike; the module's rows also count the user_structs it allocated.
 */
#include <time.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include "lib/test.h"

#define CLI "/usr/local/bin/execns"
#define SELF "/usr/local/bin/test-execns-cli"
#define PROPDIR "/tmp/execns-cli-prop"
#define ROOTDIR "/tmp/execns-cli-root"

/* Before the exec of the CLI, in the child. */
enum prep { PREP_NONE, PREP_NOBODY, PREP_SECCOMP };

static const char *run_path;	/* PATH for the CLI, NULL: inherited */

/* The child's preparation before it runs the CLI: @arg is an enum prep. */
static int prep_child(void *arg)
{
	enum prep prep = (enum prep)(long)arg;

	if (prep == PREP_NOBODY && setresuid(65534, 65534, 65534))
		return -1;
	if (prep == PREP_SECCOMP && seccomp_enosys(execns_nr()))
		return -1;
	if (run_path)
		setenv("PATH", run_path, 1);
	return 0;
}

/* Run argv with stdout+stderr captured (child_exec()). */
static int run_prep(char *const argv[], enum prep prep, char *out, size_t len)
{
	return child_exec(argv, CHILD_STDOUT | CHILD_STDERR, prep_child, (void *)(long)prep,
			    20, out, len);
}

static int run(char *const argv[], char *out, size_t len)
{
	return run_prep(argv, PREP_NONE, out, len);
}

/* True when s is exactly one line; cuts it there, for the message. */
static int one_line(char *s)
{
	char *nl = strchr(s, '\n');

	if (!nl || nl[1])
		return 0;
	*nl = '\0';
	return 1;
}

/*
 * True when s is getopt's one line and then the "Try" line; cuts it after
 * the first, for the message.
 */
static int usage_error(char *s)
{
	char *nl = strchr(s, '\n');

	if (!nl || strcmp(nl + 1, "Try 'execns --help' for more information.\n"))
		return 0;
	*nl = '\0';
	return 1;
}

/*
 * Run argv (with run_path, output discarded) under ptrace, counting its
 * entries into execns (this ABI's number).  Returns its exit status as
 * child_exec() does (128 + a fatal signal), -1 when it could not be
 * traced; the count in *calls.
 */
static int run_counting(char *const argv[], long *calls)
{
	struct __ptrace_syscall_info si;
	long nr = execns_nr();
	int status, sig = 0, fd;
	pid_t pid;

	*calls = 0;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		fd = open("/dev/null", O_WRONLY);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 ||
		    (run_path && setenv("PATH", run_path, 1)) ||
		    ptrace(PTRACE_TRACEME, 0, NULL, NULL) || raise(SIGSTOP))
			_exit(98);
		execv(argv[0], argv);
		_exit(99);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)))
		goto fail;
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig) || waitpid(pid, &status, 0) != pid)
			goto fail;
		if (WIFEXITED(status))
			return WEXITSTATUS(status);
		if (WIFSIGNALED(status))
			return 128 + WTERMSIG(status);
		sig = 0;
		if (WSTOPSIG(status) == (SIGTRAP | 0x80)) {
			if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(si), &si) > 0 &&
			    si.op == PTRACE_SYSCALL_INFO_ENTRY && si.arch == TEST_AUDIT_ARCH &&
			    (long)si.entry.nr == nr)
				(*calls)++;
		} else if (status >> 16 != PTRACE_EVENT_EXEC) {
			sig = WSTOPSIG(status);	/* a signal for the tracee: delivered */
		}
	}
fail:
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

/*
 * The optional fields ("shared:N", "master:N", ...) of the mount at dir in
 * a mountinfo text: "" if none, "?" if dir is not mounted.
 */
static const char *mount_tags(const char *info, const char *dir, char *tags, size_t len)
{
	char pat[128], line[512];
	const char *l, *nl, *opts, *dash;
	size_t n;

	snprintf(pat, sizeof(pat), " %s ", dir);
	snprintf(tags, len, "?");
	for (l = info; *l; l = nl + 1) {
		nl = strchrnul(l, '\n');
		n = (size_t)(nl - l) < sizeof(line) ? (size_t)(nl - l) : sizeof(line) - 1;
		memcpy(line, l, n);
		line[n] = '\0';
		/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - FS ..." */
		opts = strstr(line, pat);
		dash = strstr(line, " - ");
		if (opts && dash && opts < dash) {
			opts = strchr(opts + strlen(pat), ' ');
			n = opts && opts < dash ? (size_t)(dash - opts - 1) : 0;
			snprintf(tags, len, "%.*s", (int)n, n ? opts + 1 : "");
		}
		if (!*nl)
			break;
	}
	return tags;
}

static void test_namespaces(char *out, size_t len)
{
	char uts[64], host[65] = "", other[64];
	unsigned long my_uts = ns_inode("uts"), my_ipc = ns_inode("ipc");
	long allocs;
	int st, ok;

	st = run((char *[]){ CLI, "--uts", "sh", "-c", "hostname cli-inner; hostname; readlink /proc/self/ns/uts", NULL },
		 out, len);
	snprintf(uts, sizeof(uts), "uts:[%lu]", my_uts);
	gethostname(host, sizeof(host) - 1);
	ksft_test_result(st == 0 && strstr(out, "cli-inner") && strstr(out, "uts:[") && !strstr(out, uts) &&
			 strcmp(host, "cli-inner"),
			 "--uts: sh (found on PATH) runs in a new UTS namespace; the caller's host name stays %s", host);

	st = run((char *[]){ CLI, "-i", "sh", "-c", "readlink /proc/self/ns/ipc; readlink /proc/self/ns/uts", NULL },
		 out, len);
	snprintf(uts, sizeof(uts), "ipc:[%lu]", my_ipc);
	snprintf(other, sizeof(other), "uts:[%lu]", my_uts);
	ksft_test_result(st == 0 && strstr(out, "ipc:[") && !strstr(out, uts) && strstr(out, other),
			 "-i is the IPC namespace, and only that");

	st = run((char *[]){ CLI, "--uid-table", SELF, "uidtab", NULL }, out, len);
	ksft_test_result(st == 0 && atol(out) > 0, "-t/--uid-table starts the program in a new uid table (%ld)", atol(out));

	/* Counted at allocation: live tables go only after an RCU grace period. */
	allocs = execns_stat(EXECNS_STAT_USER_ALLOCS);
	st = run((char *[]){ CLI, "-u", "sh", "-c", "hostname cli-trap", NULL }, out, len);
	ok = one_line(out);
	gethostname(host, sizeof(host) - 1);
	ksft_test_result(st == 125 && ok && strstr(out, "--uts") && strstr(out, "--uid-table") &&
			 strcmp(host, "cli-trap") && execns_stat(EXECNS_STAT_USER_ALLOCS) == allocs,
			 "-u: 125, one line naming --uts and --uid-table, nothing run (%s)", out);

	st = run((char *[]){ CLI, "--user", "true", NULL }, out, len);
	ok = one_line(out);
	ksft_test_result(st == 125 && ok && strstr(out, "--uid-table"),
			 "--user: 125 and one line pointing at --uid-table (%s)", out);

	st = run((char *[]){ CLI, "-u", "--seed-compat", SELF, "uidtab", NULL }, out, len);
	ksft_test_result(st == 0 && atol(out) > 0, "--seed-compat: -u is the uid table again (%ld)", atol(out));

	st = run((char *[]){ CLI, "--map-root-user", "true", NULL }, out, len);
	ok = one_line(out);
	ksft_test_result(st == 125 && ok && strstr(out, "does not apply"),
			 "--map-root-user: 125, does not apply (%s)", out);
}

static void test_errors(char *out, size_t len)
{
	int st, ok;

	st = run((char *[]){ CLI, "sh", "-c", "exit 7", NULL }, out, len);
	ksft_test_result(st == 7, "the program's exit status passes through (%d)", st);

	st = run((char *[]){ CLI, "--ipc", "ls", "-d", "/", NULL }, out, len);
	ksft_test_result(st == 0 && !strcmp(out, "/\n"), "the program's own options (-d) pass through");

	st = run((char *[]){ CLI, "--uts", "no-such-program-xyz", NULL }, out, len);
	ok = one_line(out);
	ksft_test_result(st == 127 && ok, "not found: 127 and one line (%s)", out);

	write_file("/tmp/execns-cli-noexec", "#!/bin/sh\n", 0644);
	st = run((char *[]){ CLI, "/tmp/execns-cli-noexec", NULL }, out, len);
	ok = one_line(out);
	ksft_test_result(st == 126 && ok, "not executable: 126 and one line (%s)", out);

	st = run_prep((char *[]){ CLI, "--uts", "true", NULL }, PREP_NOBODY, out, len);
	ok = one_line(out);
	ksft_test_result(st == 125 && ok && strstr(out, "CAP_SYS_ADMIN"),
			 "unprivileged --uts: 125 and one line (%s)", out);

	st = run((char *[]){ CLI, "--bogus", "true", NULL }, out, len);
	ok = usage_error(out);
	ksft_test_result(st == 125 && ok && strstr(out, "unrecognized"),
			 "an unknown option: 125, getopt's one line, the Try line (%s)", out);

	st = run((char *[]){ CLI, "--u", "true", NULL }, out, len);
	ok = usage_error(out);
	ksft_test_result(st == 125 && ok && strstr(out, "ambiguous"),
			 "an ambiguous option: 125, getopt's detail, the Try line (%s)", out);

	st = run((char *[]){ CLI, "--fork=yes", "true", NULL }, out, len);
	ok = usage_error(out);
	ksft_test_result(st == 125 && ok && strstr(out, "argument"),
			 "an unexpected argument: 125, getopt's detail, the Try line (%s)", out);

	st = run((char *[]){ CLI, "-i", "", NULL }, out, len);
	ok = one_line(out);
	ksft_test_result(st == 125 && ok && strstr(out, "empty"), "an empty program name: 125 (%s)", out);

	st = run_prep((char *[]){ CLI, "-i", "true", NULL }, PREP_SECCOMP, out, len);
	ok = one_line(out);
	if (st == 97)	/* the filter could not be installed */
		ksft_test_result_code(KSFT_SKIP, "ENOSYS under a seccomp filter, module loaded: blamed on seccomp",
				      "this kernel has no seccomp filters (CONFIG_SECCOMP_FILTER)");
	else
		ksft_test_result(st == 125 && ok && strstr(out, "seccomp"),
				 "ENOSYS under a seccomp filter, module loaded: blamed on seccomp (%s)", out);
}

/* -m -t from a process sharing its fs_struct (CLONE_FS): EINVAL, said so. */
static int shared_fs_child(void *arg)
{
	char **argv = arg;
	int fd = open("/tmp/execns-cli-fs.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);

	dup2(fd, 1);
	dup2(fd, 2);
	execv(argv[0], argv);
	_exit(99);
}

static void test_einval(char *out, size_t len)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));
	char *argv[] = { CLI, "-m", "-t", "true", NULL };
	int status = 0, ok;
	pid_t pid;

	pid = clone(shared_fs_child, stack + sizeof(stack), CLONE_FS | SIGCHLD, argv);
	if (pid > 0)
		waitpid(pid, &status, 0);
	read_text("/tmp/execns-cli-fs.out", out, len);
	ok = one_line(out);
	ksft_test_result(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 125 && ok &&
			 strstr(out, "CLONE_FS") && !strstr(out, "support"),
			 "EINVAL with -m -t (shared fs_struct): the real cause, one line (%s)", out);
}

/*
 * The CLI searches PATH itself, then calls execns once: a miss costs no
 * call, hence no table (the module's rows see that in its user_structs
 * too; a kernel with execns(2) of its own counts none).
 */
static void test_path_once(char *out, size_t len)
{
	int in_tree = execns_in_tree();
	long before, after, calls;
	int st;

	(void)out;
	(void)len;
	run_path = "/no/a:/no/b:/no/c:/bin:/usr/bin";
	before = execns_stat(EXECNS_STAT_USER_ALLOCS);
	st = run_counting((char *[]){ CLI, "-t", "-H", "true", NULL }, &calls);
	after = execns_stat(EXECNS_STAT_USER_ALLOCS);
	ksft_test_result(st == 0 && calls == 1 && (in_tree || after - before == 1),
			 "PATH with 3 misses: one execns call (%ld), one uid table (%s)", calls,
			 in_tree ? "no count of user_structs here" :
			 after - before == 1 ? "1 user_struct" : "not 1 user_struct");

	before = after;
	st = run_counting((char *[]){ CLI, "-t", "-H", "no-such-program-xyz", NULL }, &calls);
	after = execns_stat(EXECNS_STAT_USER_ALLOCS);
	run_path = NULL;
	ksft_test_result(st == 127 && calls == 0 && after == before,
			 "a program on no PATH entry: 127 before any execns call (%ld), so before any table is made (%ld user_structs)",
			 calls, after - before);
}

static void test_fork(char *out, size_t len)
{
	char pidfile[] = "/tmp/execns-cli-kc.pid", stat[256];
	int st, gone[2] = { 0, 0 }, i, t;

	st = run((char *[]){ CLI, "-p", "-f", "sh", "-c", "echo $$; readlink /proc/self/ns/pid_for_children", NULL },
		 out, len);
	ksft_test_result(st == 0 && atoi(out) == 1, "-p --fork: the program is PID 1 (%d)", atoi(out));

	st = run((char *[]){ CLI, "-f", "sh", "-c", "exit 3", NULL }, out, len);
	ksft_test_result(st == 3, "--fork: the program's exit status (%d)", st);

	st = run((char *[]){ CLI, "-f", "sh", "-c", "kill -TERM $$", NULL }, out, len);
	ksft_test_result(st == 128 + SIGTERM, "--fork: the program's fatal signal is re-raised (%d)", st);

	/* [0]: --kill-child; [1]: without, the control. */
	for (i = 0; i < 2; i++) {
		char *argv[] = { CLI, "-f", i ? "--fork" : "--kill-child=TERM", "sh", "-c",
				 "echo $$ >/tmp/execns-cli-kc.pid; exec sleep 30", NULL };
		struct child cli;
		pid_t prog = 0;

		unlink(pidfile);
		/* its output into the pipe, read once it and the program are killed */
		if (child_spawn(argv, CHILD_STDOUT | CHILD_STDERR | CHILD_LIVE, 60, &cli))
			continue;
		for (t = 0; t < 100 && (prog = read_long(pidfile)) <= 0; t++)
			usleep(20000);
		usleep(50000);
		kill(cli.pid, SIGKILL);
		for (t = 0; t < 100 && prog > 0; t++) {
			char path[64];

			snprintf(path, sizeof(path), "/proc/%d/stat", prog);
			if (read_text(path, stat, sizeof(stat)) < 0 || strstr(stat, ") Z ")) {
				gone[i] = 1;
				break;
			}
			usleep(20000);
		}
		if (prog > 0)
			kill(prog, SIGKILL);
		child_finish(&cli);
	}
	ksft_test_result(gone[0] && !gone[1],
			 "--kill-child=TERM: the program dies with execns (and, without it, lives on)");
}

static void test_mounts(char *out, size_t len)
{
	char host[8192], tags[128], in[128];
	char self[32];
	int st;

	st = run((char *[]){ CLI, "-p", "-f", "--mount-proc", "sh", "-c", "readlink /proc/self; ls /proc/1/ns >/dev/null && echo one", NULL },
		 out, len);
	readlink("/proc/self", self, sizeof(self) - 1);
	ksft_test_result(st == 0 && atoi(out) > 0 && atoi(out) < 10 && strstr(out, "one") && atoi(self) == getpid(),
			 "--mount-proc: the new PID namespace's proc inside (self %d), the caller's unchanged", atoi(out));

	/* A shared mount in the caller's mount namespace. */
	mkdir(PROPDIR, 0755);
	if (mount("tmpfs", PROPDIR, "tmpfs", 0, NULL) || mount(NULL, PROPDIR, NULL, MS_SHARED, NULL)) {
		ksft_test_result_code(KSFT_SKIP, "--propagation (default private)", "cannot make a shared tmpfs");
		ksft_test_result_code(KSFT_SKIP, "--propagation shared", "cannot make a shared tmpfs");
		return;
	}
	st = run((char *[]){ CLI, "-m", "sh", "-c", "mkdir -p " PROPDIR "/x && mount -t tmpfs t " PROPDIR "/x && cat /proc/self/mountinfo", NULL },
		 out, len);
	mount_tags(out, PROPDIR, in, sizeof(in));
	read_text("/proc/self/mountinfo", host, sizeof(host));
	mount_tags(host, PROPDIR, tags, sizeof(tags));
	ksft_test_result(st == 0 && !strstr(in, "shared:") && strstr(tags, "shared:") &&
			 !strstr(host, PROPDIR "/x "),
			 "-m: private inside ('%s'), the caller's mount still '%s', nothing propagated back", in, tags);

	st = run((char *[]){ CLI, "-m", "--propagation", "shared", "sh", "-c", "cat /proc/self/mountinfo", NULL },
		 out, len);
	mount_tags(out, PROPDIR, in, sizeof(in));
	ksft_test_result(st == 0 && strstr(in, "shared:"), "--propagation shared: shared inside ('%s')", in);

	umount2(PROPDIR "/x", MNT_DETACH);
	umount2(PROPDIR, MNT_DETACH);
}

static void test_creds_time_dirs(char *out, size_t len)
{
	char buf[256];
	double up, mono;
	struct timespec ts;
	int st;

	st = run((char *[]){ CLI, "-H", "-S", "65534", "-G", "65533", "sh", "-c", "echo $(id -u) $(id -g) $(id -G)", NULL },
		 out, len);
	ksft_test_result(st == 0 && !strcmp(out, "65534 65533 65533\n"),
			 "--setuid/--setgid: uid, gid and no other groups (%.*s)", (int)strcspn(out, "\n"), out);

	/*
	 * A boot time offset may not take CLOCK_BOOTTIME below 0 (ERANGE):
	 * -5 needs 5 s of uptime, which a fast boot reaches only here.
	 */
	read_text("/proc/uptime", buf, sizeof(buf));
	if (atof(buf) < 6)
		sleep_ms((long)((6 - atof(buf)) * 1000));
	read_text("/proc/uptime", buf, sizeof(buf));
	up = atof(buf);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	mono = ts.tv_sec;
	st = run((char *[]){ CLI, "-T", "--monotonic", "1000", "--boottime=-5", "-f", "sh", "-c",
			     "cat /proc/uptime; " SELF " clock", NULL }, out, len);
	{
		double in_up = atof(out), in_mono = atof(strchr(out, '\n') ? strchr(out, '\n') + 1 : "");

		ksft_test_result(st == 0 && in_up > up - 6 && in_up < up - 4 + 30 &&
				 in_mono > mono + 999 && in_mono < mono + 1000 + 30,
				 "--monotonic 1000 --boottime -5: seen by the program (uptime %.0f -> %.0f, monotonic %.0f -> %.0f)",
				 up, in_up, mono, in_mono);
	}

	st = run((char *[]){ CLI, "--wd", "/tmp", SELF, "cwd", NULL }, out, len);
	ksft_test_result(st == 0 && !strcmp(out, "/tmp\n"), "--wd /tmp: the program starts there (%.*s)",
			 (int)strcspn(out, "\n"), out);

	mkdir(ROOTDIR, 0755);
	mkdir(ROOTDIR "/sub", 0755);
	st = -1;
	if (!system("cp " SELF " " ROOTDIR "/prog"))
		st = run((char *[]){ CLI, "--root", ROOTDIR, "--wd", "/sub", "/prog", "cwd", NULL }, out, len);
	ksft_test_result(st == 0 && !strcmp(out, "/sub\n"),
			 "--root --wd: the program runs in the new root, in /sub (%.*s)", (int)strcspn(out, "\n"), out);
}

/*
 * --which and --version: the module's table ids and version; on a kernel
 * with execns(2) of its own, the uid table's inode (the initial table's
 * is UT_INIT_UIDTAB_INO, not 0) and no module.
 */
static void test_which_version(char *out, size_t len)
{
	char mod[64] = "", want[200], pid[16], verdict[16];
	int in_tree = execns_in_tree();
	int st, ok;

	st = run((char *[]){ CLI, "-t", "sh", "-c", "execns --which $$; " SELF " uidtab", NULL }, out, len);
	ksft_test_result(st == 0 && atol(out) > 0 && strchr(out, '\n') && atol(out) == atol(strchr(out, '\n') + 1),
			 "--which PID: the table of a process in a new table (%ld)", atol(out));

	snprintf(pid, sizeof(pid), "%d", getpid());
	snprintf(want, sizeof(want), "%lu\n", in_tree ? UT_INIT_UIDTAB_INO : 0UL);
	st = run((char *[]){ CLI, "--which", pid, NULL }, out, len);
	ksft_test_result(st == 0 && !strcmp(out, want), "--which PID: %s for a process in the kernel's table",
			 in_tree ? "the initial table's inode" : "0");

	st = run((char *[]){ CLI, "--which", "999999", NULL }, out, len);
	ok = one_line(out);
	ksft_test_result(st == 125 && ok, "--which of no process: 125 and one line (%s)", out);

	if (in_tree) {
		snprintf(want, sizeof(want), "execns %s\nmodule not loaded; the kernel has execns(2) of its own\n",
			 EXECNS_VERSION);
		st = run((char *[]){ CLI, "--version", NULL }, out, len);
		ksft_test_result(st == 0 && !strcmp(out, want),
				 "--version: the CLI's (%s), and no module: the kernel's own execns(2)", EXECNS_VERSION);
		return;
	}
	read_text(EXECNS_SYSFS_VERSION, mod, sizeof(mod));
	mod[strcspn(mod, "\n")] = '\0';
	execns_verdict(verdict, sizeof(verdict));
	/* The versions, then the proof's verdict ("proof VERDICT: ..."). */
	snprintf(want, sizeof(want), "execns %s\nmodule %s\nproof %s: ", mod, mod, verdict);
	st = run((char *[]){ CLI, "--version", NULL }, out, len);
	ksft_test_result(st == 0 && *mod && *verdict && !strncmp(out, want, strlen(want)),
			 "--version: the CLI's and the loaded module's, one version (%s), then the proof's verdict (%s)",
			 mod, verdict);
}

/* Mode "clock": the monotonic clock's seconds. */
static int mode_clock(int argc, char **argv)
{
	struct timespec ts;

	(void)argc;
	(void)argv;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("%ld\n", (long)ts.tv_sec);
	return 0;
}

/* Mode "cwd": the working directory. */
static int mode_cwd(int argc, char **argv)
{
	char cwd[256];

	(void)argc;
	(void)argv;
	return puts(getcwd(cwd, sizeof(cwd)) ? cwd : "?") < 0;
}

/* Mode "uidtab": ut_self(), its uid table. */
static int mode_uidtab(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return printf("%ld\n", ut_self()) < 0;
}

static const struct child_mode modes[] = {
	CHILD_MODE("clock", 0, mode_clock),
	CHILD_MODE("cwd", 0, mode_cwd),
	CHILD_MODE("uidtab", 0, mode_uidtab),
};

int main(int argc, char *argv[])
{
	static void (*const tests[])(char *, size_t) = {
		test_namespaces, test_errors, test_einval, test_path_once, test_fork,
		test_mounts, test_creds_time_dirs, test_which_version,
	};
	static char out[16384];

	CHILD_DISPATCH(modes, argc, argv);
	test_start(35, TEST_TIMEOUT);
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		tests[i](out, sizeof(out));
	ksft_finished();
}
