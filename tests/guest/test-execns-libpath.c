// SPDX-License-Identifier: GPL-2.0
/*
 * libexecns's PATH search: execnsp(), execnspe() and execns_find_program(),
 * as documented in execns(3) and execns_find_program(3).
 *  - execnspe() runs the program found on the caller's PATH, in the new
 *    namespaces, with exactly the environment it is given (an envp whose
 *    own PATH names nowhere still finds it, as execvpe(3) does);
 *  - execnsp() passes environ;
 *  - a name on no PATH entry fails with ENOENT and one found only without
 *    execute permission with EACCES, the caller unchanged, before any
 *    system call: a seccomp filter that kills the process on the execns
 *    number proves it is never reached;
 *  - execns_find_program(): a slash taken as is, an empty PATH entry is
 *    the current directory, /bin:/usr/bin without PATH, ENAMETOOLONG for
 *    a short buffer, ENOENT for an empty name.
 * Each call that may succeed runs in a child whose stdout is a pipe.
 */
#include <limits.h>
#include <sched.h>
#include <sys/stat.h>
#include "execns.h"
#include "lib/test.h"

#define DIR	"/tmp/execns-libpath"

enum call { CALL_P, CALL_PE };

struct job {
	enum call call;
	int flags;
	const char *file;
	char *const *argv;
	char *const *envp;
	bool kill_on_call;	/* a filter kills the process if execns is called */
};

/* A filter that kills the process on the execns number: any call is fatal. */
static int kill_on_execns(long nr)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	       prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) ? -1 : 0;
}

/*
 * Run the job in a child, its stdout into out: the child's exit status
 * (the program's), 200 + errno when the call returned, 300 + signal when
 * it was killed, or -1.
 */
static int job_child(void *arg)
{
	const struct job *j = arg;

	setenv("LIBPATH_FROM", "environ", 1);
	if (j->kill_on_call && kill_on_execns(execns_nr()))
		return 199;
	if (j->call == CALL_P)
		execnsp(j->flags, j->file, j->argv);
	else
		execnspe(j->flags, j->file, j->argv, j->envp);
	return 200 + (errno < 50 ? errno : 49);
}

static int run_job(const struct job *j, char *out, size_t len)
{
	static struct child c;

	out[0] = '\0';
	if (child_start(&c, CHILD_STDOUT, 20, job_child, (void *)j) || c.status == -1)
		return -1;
	child_copy(&c, out, len);
	return WIFEXITED(c.status) ? WEXITSTATUS(c.status) : 300 + WTERMSIG(c.status);
}

static void test_run(char *out, size_t len)
{
	char uts[64];
	char *const sh_env[] = { "sh", "-c", "echo \"$LIBPATH_FROM\"; readlink /proc/self/ns/uts", NULL };
	char *const envp[] = { "LIBPATH_FROM=envp", "PATH=/nonexistent", NULL };
	char *const no_env[] = { NULL };
	char *const env_argv[] = { "env", NULL };
	struct job j = { CALL_PE, CLONE_NEWUTS, "sh", sh_env, envp, false };
	int st;

	snprintf(uts, sizeof(uts), "uts:[%lu]", ns_inode("uts"));
	st = run_job(&j, out, len);
	ksft_test_result(st == 0 && !strncmp(out, "envp\nuts:[", 10) && !strstr(out, uts),
			 "execnspe(CLONE_NEWUTS, \"sh\"): found on the caller's PATH (envp's names nowhere), run in a new UTS namespace with envp (%.*s)",
			 (int)strcspn(out, "\n"), out);

	j = (struct job){ CALL_P, CLONE_NEWUTS, "sh", sh_env, NULL, false };
	st = run_job(&j, out, len);
	ksft_test_result(st == 0 && !strncmp(out, "environ\nuts:[", 13) && !strstr(out, uts),
			 "execnsp(CLONE_NEWUTS, \"sh\"): environ passed, new UTS namespace (%.*s)",
			 (int)strcspn(out, "\n"), out);

	j = (struct job){ CALL_PE, 0, "env", env_argv, no_env, false };
	st = run_job(&j, out, len);
	ksft_test_result(st == 0 && !*out, "execnspe(0, \"env\", an empty envp): the program sees no variable ('%.*s')",
			 (int)strcspn(out, "\n"), out);
}

static void test_fail(char *out, size_t len)
{
	char *const argv[] = { "x", NULL };
	char *const envp[] = { NULL };
	struct job j = { CALL_PE, CLONE_NEWUTS, "no-such-program-libpath", argv, envp, true };
	int st;

	st = run_job(&j, out, len);
	ksft_test_result(st == 200 + ENOENT, "execnspe() of a name on no PATH entry: ENOENT, no system call made (%d)", st);

	mkdir(DIR, 0755);
	write_file(DIR "/noexec-libpath", "#!/bin/sh\n", 0644);
	setenv("PATH", DIR ":/bin:/usr/bin", 1);
	j = (struct job){ CALL_PE, CLONE_NEWUTS, "noexec-libpath", argv, envp, true };
	st = run_job(&j, out, len);
	ksft_test_result(st == 200 + EACCES, "execnspe() of a file found without execute permission: EACCES, no system call made (%d)", st);
	j.call = CALL_P;
	st = run_job(&j, out, len);
	ksft_test_result(st == 200 + EACCES, "execnsp(), the same: EACCES (%d)", st);
}

static void test_find(void)
{
	char buf[PATH_MAX], small[6];
	int r, e;

	write_file(DIR "/prog-libpath", "#!/bin/sh\n", 0755);
	r = execns_find_program("./a/b", buf, sizeof(buf));
	ksft_test_result(r == 0 && !strcmp(buf, "./a/b"), "a name with a slash is taken as it is (%s)", buf);

	setenv("PATH", "/nonexistent::/bin", 1);
	r = chdir(DIR) ? -2 : execns_find_program("prog-libpath", buf, sizeof(buf));
	ksft_test_result(r == 0 && !strcmp(buf, "prog-libpath"),
			 "an empty PATH entry is the current directory (%d, %s)", r, buf);

	unsetenv("PATH");
	r = execns_find_program("sh", buf, sizeof(buf));
	ksft_test_result(r == 0 && !strcmp(buf, "/bin/sh"), "without PATH, /bin:/usr/bin (%s)", buf);

	setenv("PATH", "/bin:/usr/bin", 1);
	r = execns_find_program("sh", small, sizeof(small));
	e = errno;
	ksft_test_result(r == -1 && e == ENAMETOOLONG, "a buffer too small: ENAMETOOLONG (%d, %s)", r, strerror(e));

	r = execns_find_program("", buf, sizeof(buf));
	e = errno;
	ksft_test_result(r == -1 && e == ENOENT, "an empty name: ENOENT (%d, %s)", r, strerror(e));
}

int main(void)
{
	static char out[4096];

	test_start(11, TEST_TIMEOUT);
	test_run(out, sizeof(out));
	test_fail(out, sizeof(out));
	test_find();
	ksft_finished();
}
