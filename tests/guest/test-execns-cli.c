// SPDX-License-Identifier: GPL-2.0
/*
 * The execns(1) CLI: namespaces by option, PATH search, the program's
 * own options passing through, and env(1)'s exit codes.
 */
#include "util.h"

#define CLI "/usr/local/bin/execns"

/* Run argv with stdout+stderr captured; returns the exit status (or -1). */
static int run(char *const argv[], uid_t uid, char *out, size_t len)
{
	int p[2], status;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		alarm(20);
		if (uid && setresuid(uid, uid, uid))
			_exit(98);
		execv(argv[0], argv);
		_exit(99);
	}
	close(p[1]);
	read_all(p[0], out, len);
	close(p[0]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
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

int main(void)
{
	char out[4096], uts[64], host[65] = "", other[64];
	unsigned long my_uts = ns_inode("uts"), my_ipc = ns_inode("ipc");
	int st, ok;

	alarm(TEST_TIMEOUT);
	ktap_plan(9);

	st = run((char *[]){ CLI, "--uts", "sh", "-c", "hostname cli-inner; hostname; readlink /proc/self/ns/uts", NULL },
		 0, out, sizeof(out));
	snprintf(uts, sizeof(uts), "uts:[%lu]", my_uts);
	gethostname(host, sizeof(host) - 1);
	ktap_result(st == 0 && strstr(out, "cli-inner") && strstr(out, "uts:[") && !strstr(out, uts) &&
		    strcmp(host, "cli-inner"),
		    "--uts: sh (found on PATH) runs in a new UTS namespace; the caller's host name stays %s", host);

	st = run((char *[]){ CLI, "-i", "sh", "-c", "readlink /proc/self/ns/ipc; readlink /proc/self/ns/uts", NULL },
		 0, out, sizeof(out));
	snprintf(uts, sizeof(uts), "ipc:[%lu]", my_ipc);
	snprintf(other, sizeof(other), "uts:[%lu]", my_uts);
	ktap_result(st == 0 && strstr(out, "ipc:[") && !strstr(out, uts) && strstr(out, other),
		    "-i is the IPC namespace (as in the seed), and only that");

	st = run((char *[]){ CLI, "--user", "sh", "-c", "cat /proc/execns/self", NULL }, 0, out, sizeof(out));
	ktap_result(st == 0 && atol(out) > 0, "-u/--user starts the program in a new uid table (%ld)", atol(out));

	st = run((char *[]){ CLI, "sh", "-c", "exit 7", NULL }, 0, out, sizeof(out));
	ktap_result(st == 7, "the program's exit status passes through (%d)", st);

	st = run((char *[]){ CLI, "--ipc", "ls", "-d", "/", NULL }, 0, out, sizeof(out));
	ktap_result(st == 0 && !strcmp(out, "/\n"), "the program's own options (-d) pass through");

	st = run((char *[]){ CLI, "--uts", "no-such-program-xyz", NULL }, 0, out, sizeof(out));
	ok = one_line(out);
	ktap_result(st == 127 && ok, "not found: 127 and one line (%s)", out);

	write_file("/tmp/execns-cli-noexec", "#!/bin/sh\n", 0644);
	st = run((char *[]){ CLI, "/tmp/execns-cli-noexec", NULL }, 0, out, sizeof(out));
	ok = one_line(out);
	ktap_result(st == 126 && ok, "not executable: 126 and one line (%s)", out);

	st = run((char *[]){ CLI, "--uts", "true", NULL }, 65534, out, sizeof(out));
	ok = one_line(out);
	ktap_result(st == 125 && ok, "unprivileged --uts: 125 and one line (%s)", out);

	st = run((char *[]){ CLI, "--bogus", "true", NULL }, 0, out, sizeof(out));
	ktap_result(st == 125, "an unknown option: 125 (%d)", st);
	return ktap_finish();
}
