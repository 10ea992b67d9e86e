// SPDX-License-Identifier: GPL-2.0
/*
 * The load-time proof (module/proof.c) on this kernel: its verdict is the
 * one tests/kernels.conf expects of the row (/etc/execns/proof: "proven",
 * or "refused TEXT" where TEXT is part of a failed check, such as the name
 * of a clone), its report and the kernel log agree line for line, and the
 * verdict holds where it matters: execns(CLONE_NEWUSER) makes a table, or
 * fails with EOPNOTSUPP leaving the caller as it was; the CLI names the
 * failed check; forbid_unshare is refused with the uid tables; and the
 * other namespaces work either way.
 */
#include "lib/test.h"

#define PROOF		"/proc/execns/proof"
#define EXPECT		"/etc/execns/proof"
#define FORBID		"/sys/module/execns/parameters/forbid_unshare"
#define CLI		"/usr/local/bin/execns"
#define MAX_LINES	64

static char report[8192], expect[256], first_fail[512];
static unsigned int oks, fails, others;
static bool proven, have_verdict;

static void read_report(void)
{
	char *line, *save;

	if (read_text(PROOF, report, sizeof(report)) <= 0)
		return;
	for (line = strtok_r(report, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "ok ", 3)) {
			oks++;
		} else if (!strncmp(line, "FAIL ", 5)) {
			if (!fails++)
				snprintf(first_fail, sizeof(first_fail), "%s", line + 5);
		} else if (!strcmp(line, "verdict proven") || !strcmp(line, "verdict refused")) {
			have_verdict = true;
			proven = !strcmp(line, "verdict proven");
		} else {
			others++;
		}
	}
}

/* Kernel log lines containing @what. */
static int log_count(const char *what)
{
	char cmd[512], buf[16] = "";
	FILE *f;

	snprintf(cmd, sizeof(cmd), "dmesg | grep -cF -- '%s'", what);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	pclose(f);
	return atoi(buf);
}

/* Write @s to the parameter @path: 0, or the write's errno. */
static int param_write(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), e = 0;

	if (fd < 0)
		return errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		e = errno;
	close(fd);
	return e;
}

struct try_arg {
	long flags;
	bool check_state;
};

static int try_child(void *arg)
{
	const struct try_arg *t = arg;
	char *argv[] = { "/bin/true", NULL }, *envp[] = { NULL };
	struct proc_state before, after;
	int e;

	snapshot(&before);
	raw_execns(t->flags, "/bin/true", argv, envp);
	e = errno;
	snapshot(&after);
	if (t->check_state && !same_state(&before, &after, "caller after EOPNOTSUPP"))
		return 200;
	return e;
}

/* execns(@flags, /bin/true) in a child: its errno, 0 on success. */
static int try_execns(long flags, bool check_state)
{
	struct try_arg t = { flags, check_state };
	struct child c;

	if (child_start(&c, 0, CHILD_TIMEOUT, try_child, &t) || !WIFEXITED(c.status))
		return -1;
	return child_code(&c);
}

int main(void)
{
	char out[2048], want[16] = "proven", *site = "";
	char *cli[] = { CLI, "-t", "/bin/true", NULL };
	char line[80];
	int rc, e;

	test_start(8, 0);
	read_report();
	if (read_text(EXPECT, expect, sizeof(expect)) > 0) {
		expect[strcspn(expect, "\n")] = '\0';
		sscanf(expect, "%15s", want);
		site = expect + strlen(want) + (expect[strlen(want)] == ' ');
	}

	ksft_test_result(have_verdict && !others && oks + fails > 0,
			 "%s: %u ok and %u failed checks, then a verdict\n", PROOF, oks, fails);
	ksft_test_result(have_verdict && proven == !strcmp(want, "proven") &&
			 (proven ? !fails : fails > 0),
			 "verdict %s, as this row expects (%s)\n",
			 have_verdict ? (proven ? "proven" : "refused") : "missing", want);
	if (proven)
		ksft_test_result(true, "no failed check to name\n");
	else
		ksft_test_result(*site && strstr(first_fail, site),
				 "the failed check names %s: %s\n", *site ? site : "(no site in " EXPECT ")",
				 first_fail);

	snprintf(line, sizeof(line), "load-time proof: %u checks passed", oks);
	if (proven) {
		ksft_test_result(log_count(line) == 1 && log_count("uid tables refused:") == 0,
				 "kernel log: \"%s\", and no refusal\n", line);
	} else {
		snprintf(line, sizeof(line), "load-time proof: %u of %u checks failed", fails,
			 oks + fails);
		ksft_test_result(log_count(line) == 1 &&
				 log_count("uid tables refused:") == (int)fails &&
				 log_count(first_fail) >= 1,
				 "kernel log: \"%s\", and one line per failed check\n", line);
	}

	e = try_execns(CLONE_NEWUSER, !proven);
	if (proven)
		ksft_test_result(e == 0, "execns(CLONE_NEWUSER) makes a uid table (errno %d)\n", e);
	else
		ksft_test_result(e == EOPNOTSUPP,
				 "execns(CLONE_NEWUSER) fails with EOPNOTSUPP, the caller unchanged (errno %d)\n",
				 e);

	rc = child_exec(cli, CHILD_STDOUT | CHILD_STDERR, NULL, NULL, 30, out, sizeof(out));
	out[strcspn(out, "\n")] = '\0';
	if (proven)
		ksft_test_result(rc == 0, "execns -t true: exit %d\n", rc);
	else
		ksft_test_result(rc == 125 && strstr(out, "load-time proof failed") &&
				 strstr(out, first_fail) && strstr(out, PROOF),
				 "execns -t true: exit %d, one line naming the check (%s)\n", rc, out);

	e = param_write(FORBID, "1");
	if (proven) {
		ksft_test_result(!e && !param_write(FORBID, "0"),
				 "forbid_unshare can be set and cleared (errno %d)\n", e);
	} else {
		read_line(FORBID, line, sizeof(line));
		ksft_test_result(e == EOPNOTSUPP && line[0] == 'N',
				 "forbid_unshare=1 is refused with EOPNOTSUPP (errno %d, value %s)\n",
				 e, line);
	}

	e = try_execns(CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET, false);
	ksft_test_result(e == 0, "execns(CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET) works (errno %d)\n",
			 e);
	ksft_finished();
}
