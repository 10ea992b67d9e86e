// SPDX-License-Identifier: GPL-2.0
/*
 * execns(1)'s messages, each the exact text on stderr and the exit status:
 * --help's layout (every option's text in one column, after at least two
 * spaces), getopt's errors followed by the "Try" line, $SHELL (or /bin/sh)
 * without a program, and one message per cause of ENOSYS and EOPNOTSUPP:
 *  - (the module not loaded, and not loadable without kprobes: in
 *    post-rmmod-climsg, once the runner has unloaded it);
 *  - no slot for this ABI, and a number that does not reach the module
 *    (the sysfs file bind-mounted over, in a private mount namespace);
 *  - a seccomp filter; kprobes switched off (debugfs's kprobes/enabled);
 *  - uid tables refused by the load-time proof, on the rows whose
 *    tests/kernels.conf entry expects that (/etc/execns/proof; skipped
 *    elsewhere with that reason);
 *  - the internal --stage2 option given by hand.
 * Not in needs-uid-tables: it runs on every row, the refusing ones too.
 * On a kernel with execns(2) of its own (the twin) no module is loaded:
 * the slot's two cases skip (there is no sysfs file to fake), the seccomp
 * filter gets the kernel's own wording, and with kprobes off the call
 * still works, as the kernel's execns(2) is no kprobe.
 */
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include "lib/test.h"

#define CLI		"/usr/local/bin/execns"
#define SHELL_SCRIPT	"/tmp/execns-climsg-shell"
#define STDIN_SCRIPT	"/tmp/execns-climsg-stdin"
#define FAKE_DIR	"/tmp/execns-climsg"
#define KPROBES_ON	"/sys/kernel/debug/kprobes/enabled"
#define TRY		"Try 'execns --help' for more information.\n"

/* What the child does before it runs the CLI. */
struct prep {
	const char *shell;	/* SHELL: NULL unset, else its value */
	bool set_shell;
	const char *in;		/* a file for stdin, or NULL */
	const char *nr;		/* a fake slot file's text, or NULL */
	bool seccomp;		/* the slot answers ENOSYS from a filter */
	const char *env;	/* NAME=VALUE to put in the environment */
};

/* A private mount namespace where path reads as text (a tmpfs file bound over it). */
static int fake_file(const char *path, const char *name, const char *text)
{
	char file[128];

	snprintf(file, sizeof(file), FAKE_DIR "/%s", name);
	if (write_file(file, text, 0644))
		return -1;
	return mount(file, path, NULL, MS_BIND, NULL);
}

static int prep_child(void *arg)
{
	const struct prep *p = arg;
	int fd;

	if (p->set_shell && (p->shell ? setenv("SHELL", p->shell, 1) : unsetenv("SHELL")))
		return -1;
	if (p->env && putenv((char *)p->env))
		return -1;
	if (p->in) {
		fd = open(p->in, O_RDONLY);
		if (fd < 0 || dup2(fd, 0) < 0)
			return -1;
		close(fd);
	}
	if (p->nr) {
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			return -1;
		mkdir(FAKE_DIR, 0755);
		if (mount("none", FAKE_DIR, "tmpfs", 0, NULL))
			return -1;
	}
	if (p->nr && fake_file(EXECNS_SYSFS_NR_FILE, "nr", p->nr))
		return -1;
	if (p->seccomp && seccomp_enosys(execns_nr()))
		return -1;
	return 0;
}

/* Run the CLI with @argv; stderr (or stdout too) into out; the exit status. */
static int cli(char *const argv[], int fds, const struct prep *p, char *out, size_t len)
{
	static const struct prep none;

	return child_exec(argv, fds, prep_child, (void *)(p ? p : &none), 20, out, len);
}

/* One check: exit status @want_st and exactly @want on stderr. */
static void expect(const char *name, int st, const char *out, int want_st, const char *want)
{
	if (!ksft_test_result(st == want_st && !strcmp(out, want), "%s: exit %d, %s", name, st,
			      !strcmp(out, want) ? "stderr as expected" : "stderr differs"))
		ksft_print_msg("want %d [%s]\n# got [%s]\n", want_st, want, out);
}

/*
 * --help: every option line (" -x, --name..." or "     --name...") has its
 * text in one column, at least two spaces after the option, within 80
 * columns; the three that ran into their text among them.
 */
static void test_help(char *out, size_t len)
{
	int st, col = -1, lines = 0, bad = 0, seen = 0;
	char *line, *save, *gap;

	st = cli((char *[]){ CLI, "--help", NULL }, CHILD_STDOUT, NULL, out, len);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, " -", 2) && strncmp(line, "     --", 7))
			continue;
		lines++;
		gap = strstr(line, "  ");
		if (gap == line)
			gap = strstr(line + 5, "  ");
		if (!gap || strlen(line) > 80) {
			bad++;
			ksft_print_msg("bad: [%s]\n", line);
			continue;
		}
		gap += strspn(gap, " ");
		if (col < 0)
			col = gap - line;
		if (gap - line != col) {
			bad++;
			ksft_print_msg("text at column %d, not %d: [%s]\n", (int)(gap - line), col, line);
		}
		seen += !strncmp(line, "     --kill-child[=<sig>]  ", 27) ||
			!strncmp(line, "     --mount-proc[=<dir>]  ", 27) ||
			!strncmp(line, "     --propagation <mode>  ", 27);
	}
	ksft_test_result(st == 0 && lines >= 20 && !bad && seen == 3,
			 "--help: %d option lines, each text in column %d, --kill-child, --mount-proc and --propagation apart from theirs",
			 lines, col);
}

static void test_usage_errors(char *out, size_t len)
{
	int st;

	st = cli((char *[]){ CLI, "--bogus", "true", NULL }, CHILD_STDERR, NULL, out, len);
	expect("an unknown long option", st, out, 125,
	       "execns: unrecognized option '--bogus'\n" TRY);
	st = cli((char *[]){ CLI, "-x", "true", NULL }, CHILD_STDERR, NULL, out, len);
	expect("an unknown short option", st, out, 125, "execns: invalid option -- 'x'\n" TRY);
	st = cli((char *[]){ CLI, "--wd", NULL }, CHILD_STDERR, NULL, out, len);
	expect("an option without its argument", st, out, 125,
	       "execns: option '--wd' requires an argument\n" TRY);
}

/* No program: $SHELL in the new namespaces, or /bin/sh without one. */
static void test_shell(char *out, size_t len)
{
	char uts[64];
	struct prep p = { .set_shell = true, .shell = SHELL_SCRIPT, .in = "/dev/null" };
	int st;

	write_file(SHELL_SCRIPT, "#!/bin/sh\necho \"shell $0 $#\"; readlink /proc/self/ns/uts\n", 0755);
	snprintf(uts, sizeof(uts), "uts:[%lu]", ns_inode("uts"));
	st = cli((char *[]){ CLI, "--uts", NULL }, CHILD_STDOUT | CHILD_STDERR, &p, out, len);
	ksft_test_result(st == 0 && !strncmp(out, "shell " SHELL_SCRIPT " 0\nuts:[", 30) &&
			 !strstr(out, uts),
			 "no program: $SHELL runs, without arguments, in a new UTS namespace (%.*s)",
			 (int)strcspn(out, "\n"), out);

	write_file(STDIN_SCRIPT, "echo \"sh $0\"\n", 0644);
	p = (struct prep){ .set_shell = true, .shell = NULL, .in = STDIN_SCRIPT };
	st = cli((char *[]){ CLI, "-i", NULL }, CHILD_STDOUT | CHILD_STDERR, &p, out, len);
	ksft_test_result(st == 0 && !strcmp(out, "sh /bin/sh\n"),
			 "no program and no SHELL: /bin/sh, reading stdin (%.*s)",
			 (int)strcspn(out, "\n"), out);
}

/* The slot's cases: a fake syscall_nr file over the module's. */
static void test_slot_enosys(char *out, size_t len)
{
	struct prep p = { .nr = "-1\n" };
	int st;

	if (execns_in_tree()) {
		ksft_test_result_code(KSFT_SKIP, "no slot for this ABI (syscall_nr says -1)",
				      "module only: the kernel's own execns(2) is no slot in %s", EXECNS_SYSFS_NR_FILE);
		ksft_test_result_code(KSFT_SKIP, "a number that does not reach the module (syscall_nr says 4000)",
				      "module only: the kernel's own execns(2) is no slot in %s", EXECNS_SYSFS_NR_FILE);
		return;
	}
	st = cli((char *[]){ CLI, "-H", "true", NULL }, CHILD_STDERR, &p, out, len);
	expect("no slot for this ABI (syscall_nr says -1)", st, out, 125,
	       "execns: the loaded execns module has no syscall slot for this program's ABI (no valid " EXECNS_SYSFS_NR_FILE "): see 'modinfo execns'\n");

	p = (struct prep){ .nr = "4000\n" };
	st = cli((char *[]){ CLI, "-H", "true", NULL }, CHILD_STDERR, &p, out, len);
	expect("a number that does not reach the module (syscall_nr says 4000)", st, out, 125,
	       "execns: syscall 4000 answered ENOSYS although the execns module is loaded, kprobes are on and no seccomp filter is on this process: the number in " EXECNS_SYSFS_NR_FILE " does not reach the module; see 'dmesg | grep execns' and reload the module\n");
}

/* ENOSYS from a loaded module (or the kernel's own execns(2)): seccomp, kprobes off. */
static void test_loaded_enosys(char *out, size_t len)
{
	char want[512], nr[32], on[8] = "";
	int in_tree = execns_in_tree();
	struct prep p = { .seccomp = true };
	int st, e;

	snprintf(nr, sizeof(nr), "%ld", execns_nr());
	if (in_tree)
		snprintf(want, sizeof(want),
			 "execns: the kernel's own execns(2) answered ENOSYS: a seccomp filter on this process (Seccomp: 2 in /proc/self/status) most likely refuses it\n");
	else
		snprintf(want, sizeof(want),
			 "execns: syscall %s answered ENOSYS although the execns module is loaded: a seccomp filter on this process (Seccomp: 2 in /proc/self/status) most likely refuses it\n",
			 nr);
	st = cli((char *[]){ CLI, "-H", "true", NULL }, CHILD_STDERR, &p, out, len);
	if (st == 98)
		ksft_test_result_code(KSFT_SKIP, "a seccomp filter", "this kernel has no seccomp filters (CONFIG_SECCOMP_FILTER)");
	else
		expect("a seccomp filter", st, out, 125, want);

	read_line(KPROBES_ON, on, sizeof(on));
	if (strcmp(on, "1")) {
		ksft_test_result_code(KSFT_SKIP, "kprobes switched off", "%s reads '%s', not 1", KPROBES_ON, on);
		ksft_test_result_code(KSFT_SKIP, "kprobes switched on again", "%s reads '%s', not 1", KPROBES_ON, on);
		return;
	}
	snprintf(want, sizeof(want),
		 "execns: syscall %s answered ENOSYS: kprobes are switched off (%s is 0) and the execns module's syscall entry is a kprobe; switch them on with 'echo 1 > %s'\n",
		 nr, KPROBES_ON, KPROBES_ON);
	/* Nothing in between: the CLI's failed call is all that runs off. */
	e = write_knob(KPROBES_ON, "0");
	st = cli((char *[]){ CLI, "-H", "true", NULL }, CHILD_STDERR, NULL, out, len);
	e |= write_knob(KPROBES_ON, "1");	/* knob_write() says what failed */
	if (in_tree)
		expect("kprobes switched off: the kernel's own execns(2) is no kprobe, the call works",
		       e ? -1 : st, out, 0, "");
	else
		expect("kprobes switched off", e ? -1 : st, out, 125, want);
	st = cli((char *[]){ CLI, "-H", "true", NULL }, CHILD_STDERR, NULL, out, len);
	expect("kprobes switched on again: the call works", st, out, 0, "");
}

/* EOPNOTSUPP for -t where the load-time proof refused uid tables. */
static void test_refused(char *out, size_t len)
{
	char expect_row[256] = "", report[8192], fail[512] = "", want[1024];
	const char *l;
	int st;

	read_line("/etc/execns/proof", expect_row, sizeof(expect_row));
	if (strncmp(expect_row, EXECNS_VERDICT_REFUSED, strlen(EXECNS_VERDICT_REFUSED))) {
		ksft_test_result_code(KSFT_SKIP, "uid tables refused: -t names the failed check",
				      "this row's proof is '%s', not refused (tests/kernels.conf)",
				      *expect_row ? expect_row : "unknown");
		return;
	}
	if (read_text(EXECNS_PROC_PROOF, report, sizeof(report)) > 0) {
		l = strstr(report, "\n" EXECNS_PROOF_FAIL " ");
		l = execns_after(l ? l + 1 : report, EXECNS_PROOF_FAIL);
		if (l)
			snprintf(fail, sizeof(fail), "%.*s", (int)strcspn(l, "\n"), l);
	}
	snprintf(want, sizeof(want),
		 "execns: uid tables are refused on this kernel: the module's load-time proof failed (%s); namespaces still work without -t; see " EXECNS_PROC_PROOF " and execns(2)\n",
		 fail);
	st = cli((char *[]){ CLI, "-t", "true", NULL }, CHILD_STDERR, NULL, out, len);
	expect("uid tables refused: -t names the failed check", st, out, 125, want);
}

/* --stage2 by hand: refused, nothing done; the marker never reaches the program. */
static void test_stage2(char *out, size_t len)
{
	static const char msg[] =
		"execns: --stage2 is internal: execns passes it to itself, never to be given by hand; run the same command without it\n";
	struct prep p = { .env = "EXECNS_STAGE2_PID=1" };
	int st;

	st = cli((char *[]){ CLI, "--stage2=/bin/true", "-m", "--propagation", "shared", "true", NULL },
		 CHILD_STDERR, NULL, out, len);
	expect("--stage2 given by hand", st, out, 125, msg);
	st = cli((char *[]){ CLI, "--stage2=", "true", NULL }, CHILD_STDERR, &p, out, len);
	expect("--stage2 with another process's marker", st, out, 125, msg);
	st = cli((char *[]){ CLI, "-H", "--wd", "/", "sh", "-c", "echo ${EXECNS_STAGE2_PID-unset}", NULL },
		 CHILD_STDOUT | CHILD_STDERR, NULL, out, len);
	ksft_test_result(st == 0 && !strcmp(out, "unset\n"),
			 "a real second stage (--wd) runs, and its marker is not in the program's environment (%.*s)",
			 (int)strcspn(out, "\n"), out);
}

int main(void)
{
	static void (*const tests[])(char *, size_t) = {
		test_help, test_usage_errors, test_shell, test_stage2, test_slot_enosys,
		test_loaded_enosys, test_refused,
	};
	static char out[16384];

	test_start(15, TEST_TIMEOUT);
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		tests[i](out, sizeof(out));
	ksft_finished();
}
