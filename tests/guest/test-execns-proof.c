// SPDX-License-Identifier: GPL-2.0
/*
 * The load-time proof (module/proof.c) on this kernel: its verdict is the
 * one tests/kernels.conf expects of the row (/etc/execns/proof: "proven",
 * or "partial TEXT" or "refused TEXT" where TEXT is part of the first
 * failed check, such as a configuration option or the name of a clone),
 * each failed check says what it costs, its report and the kernel log
 * agree line for line, and the verdict holds where it matters:
 *  - proven: execns(CLONE_NEWUSER) makes a table, execns -t runs, and
 *    forbid_unshare can be set;
 *  - partial (a path around a hook costs accounting, not memory: each
 *    failed check ends "(costs accounting, not memory: X may stay
 *    global)", or "(refuses forbid_unshare)"): tables are made all the
 *    same, and forbid_unshare is refused exactly when a check ending
 *    "(refuses forbid_unshare)" failed;
 *  - refused (a check ending "(refuses uid tables)" failed):
 *    execns(CLONE_NEWUSER) fails with EOPNOTSUPP leaving the caller as it
 *    was, the CLI names the failed check, and forbid_unshare is refused;
 * and the other namespaces work whatever the verdict.  The entry window it
 * counts branches in matches the kernel's configuration (call padding), and
 * the report shows the text scan's evidence: how much of the kernel's text
 * it read, and the callers it found there of each hooked function.
 */
#include <sys/utsname.h>
#include "lib/test.h"

#define EXPECT		"/etc/execns/proof"
#define FORBID		EXECNS_SYSFS_DIR "/forbid_unshare"
#define CLI		"/usr/local/bin/execns"
#define MAX_FAILS	32

/* The kernel log's verdict line (module/proof.c's execns_proof_init()). */
#define LOG_PROVEN	"checks passed: uid tables available, their accounting exact"
#define LOG_PARTIAL	"uid tables available, some accounting may stay global, forbid_unshare"
#define LOG_REFUSED	"uid tables refused, forbid_unshare refused ("
/* module/proof.c and module/observe.c, where the symbol table has no data symbols. */
#define WATCHED		"found by watching alloc_uid() and free_uid()"

static char report[16384], expect[256];
static char text_line[160];
static unsigned int callers_seen, watched_seen;

/* The hooked functions whose callers the text scan lists (module/proof.c). */
static const char *const hooked[] = {
	"alloc_uid", "find_user", "alloc_ucounts", "commit_creds", "ksys_unshare",
};
static const char *fail_line[MAX_FAILS];
static unsigned int oks, fails, others, costs_accounting, costs_tables, costs_forbid, costs_unknown;
static char verdict[16] = "missing";
static int window_before = -1, window_after = -1;

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

static void read_report(void)
{
	const char *rest;
	char *line, *save;

	if (read_text(EXECNS_PROC_PROOF, report, sizeof(report)) <= 0)
		return;
	for (line = strtok_r(report, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if ((rest = execns_after(line, EXECNS_PROOF_OK))) {
			oks++;
			if (!strncmp(rest, "text: read ", 11))
				snprintf(text_line, sizeof(text_line), "%s", rest);
			if (strstr(rest, WATCHED))
				watched_seen++;
			for (size_t i = 0; i < sizeof(hooked) / sizeof(hooked[0]); i++) {
				char want[64];

				snprintf(want, sizeof(want), "callers: %s: ", hooked[i]);
				if (!strncmp(rest, want, strlen(want)))
					callers_seen |= 1u << i;
			}
		} else if ((rest = execns_after(line, EXECNS_PROOF_FAIL))) {
			if (fails < MAX_FAILS)
				fail_line[fails] = rest;
			fails++;
			/* What each failed check ends with, by what it costs. */
			if (strstr(rest, EXECNS_PROOF_COSTS_ACCOUNTING) &&
			    ends_with(rest, EXECNS_PROOF_MAY_STAY_GLOBAL))
				costs_accounting++;
			else if (ends_with(rest, EXECNS_PROOF_REFUSES_TABLES))
				costs_tables++;
			else if (ends_with(rest, EXECNS_PROOF_REFUSES_FORBID))
				costs_forbid++;
			else
				costs_unknown++;
		} else if ((rest = execns_after(line, EXECNS_PROOF_VERDICT)) &&
			   (!strcmp(rest, EXECNS_VERDICT_PROVEN) || !strcmp(rest, EXECNS_VERDICT_PARTIAL) ||
			    !strcmp(rest, EXECNS_VERDICT_REFUSED))) {
			snprintf(verdict, sizeof(verdict), "%s", rest);
		} else if (sscanf(line, EXECNS_PROOF_WINDOW " -%d +%d", &window_before,
				  &window_after) == 2) {
			continue;
		} else {
			others++;
		}
	}
}

/*
 * Records containing @what that the module's latest load logged: from its
 * last "resolved N kernel symbols" line, the first of each load (another
 * test, test-execns-initfail, loads it again).
 */
static int log_count(const char *what)
{
	return kernel_log_count("execns: resolved ", what, INT_MAX);
}

/*
 * The value of CONFIG_@name in /boot/config-RELEASE (the harness puts the
 * kernel's configuration there): 1 and @val, 0 when unset, -1 when there
 * is no configuration to read.
 */
static int kconfig(const char *name, char *val, size_t len)
{
	char path[128], line[256], key[96];
	struct utsname u;
	int found = 0;
	FILE *f;

	uname(&u);
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	f = fopen(path, "re");
	if (!f)
		return -1;
	snprintf(key, sizeof(key), "CONFIG_%s=", name);
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, strlen(key)))
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(val, len, "%s", line + strlen(key));
		found = 1;
	}
	fclose(f);
	return found;
}

/*
 * The entry window the proof reports: branches from the padding before a
 * symbol count only where call-depth tracking's thunks run there
 * (CONFIG_CALL_PADDING); a kernel with padding bytes but no call padding
 * (the debug row) gets none.
 */
static void test_window(void)
{
	char pad[32] = "", bytes[32] = "0";
	int have = kconfig("CALL_PADDING", pad, sizeof(pad));
	int want;

	if (have < 0) {
		ksft_test_result_code(KSFT_SKIP, "entry window", "no /boot/config-RELEASE to check it against");
		return;
	}
	kconfig("FUNCTION_PADDING_BYTES", bytes, sizeof(bytes));
	want = have && !strcmp(pad, "y") ? atoi(bytes) : 0;
	ksft_test_result(window_before == want && window_after >= 0,
			 "entry window -%d +%d: %d bytes before a symbol, as CONFIG_CALL_PADDING %s and CONFIG_FUNCTION_PADDING_BYTES %s make it\n",
			 window_before, window_after, want, have ? pad : "unset", bytes);
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

/* Each failed check is in the kernel log once, as "load-time proof: LINE". */
static bool fails_logged(void)
{
	char want[512];
	bool ok = true;

	for (unsigned int i = 0; i < fails && i < MAX_FAILS; i++) {
		snprintf(want, sizeof(want), "load-time proof: %s", fail_line[i]);
		if (log_count(want) != 1) {
			ksft_print_msg("not once in the kernel log: %s\n", want);
			ok = false;
		}
	}
	return ok && fails <= MAX_FAILS;
}

int main(void)
{
	char out[2048], want[16] = EXECNS_VERDICT_PROVEN, *site = "", line[160];
	char *cli[] = { CLI, "-t", "/bin/true", NULL };
	const char *first = "";
	bool proven, partial, refused, forbid;
	int rc, e;

	test_start(11, 0);
	read_report();
	if (read_text(EXPECT, expect, sizeof(expect)) > 0) {
		expect[strcspn(expect, "\n")] = '\0';
		sscanf(expect, "%15s", want);
		site = expect + strlen(want) + (expect[strlen(want)] == ' ');
	}
	if (fails)
		first = fail_line[0];
	proven = !strcmp(verdict, EXECNS_VERDICT_PROVEN);
	partial = !strcmp(verdict, EXECNS_VERDICT_PARTIAL);
	refused = !strcmp(verdict, EXECNS_VERDICT_REFUSED);
	/* forbid_unshare is offered unless its own check failed or tables are refused. */
	forbid = !costs_forbid && !costs_tables;

	ksft_test_result(strcmp(verdict, "missing") && !others && oks + fails > 0 && !costs_unknown,
			 "%s: %u ok and %u failed checks, each failure ending in what it costs (%u unknown), then a verdict\n",
			 EXECNS_PROC_PROOF, oks, fails, costs_unknown);
	/* The evidence: the kernel's text read, and each hooked function's callers found in it. */
	/*
	 * alloc_ucounts() is hooked only where credentials have ucounts (bit
	 * 2).  A proof that cannot read the symbol table (no
	 * kallsyms_lookup_size_offset) stops before the text.
	 */
	if (fails && strstr(fail_line[0], "cannot read the symbol table"))
		ksft_test_result(!*text_line && !callers_seen && refused,
				 "%s: the symbol table cannot be read, so no text was scanned, and uid tables are refused (mask %#x)\n",
				 EXECNS_PROC_PROOF, callers_seen);
	else
		ksft_test_result(*text_line &&
				 callers_seen == (kernel_cred_ucounts() ? 0x1fu : 0x1fu & ~(1u << 2)),
				 "%s shows its evidence: \"%s\", and a callers line for each of alloc_uid, find_user, %scommit_creds and ksys_unshare (mask %#x)\n",
				 EXECNS_PROC_PROOF, text_line, kernel_cred_ucounts() ? "alloc_ucounts, " : "",
				 callers_seen);
	/*
	 * The kernel's lock and cache: by name where /proc/kallsyms has data
	 * symbols, else (no CONFIG_KALLSYMS_ALL: Debian 11's arm64) found by
	 * watching alloc_uid() and free_uid(), in two copies lines and one
	 * dmesg line.
	 */
	e = !kallsyms_has("uid_cachep") && !kallsyms_has("uidhash_lock");
	ksft_test_result(watched_seen == (e ? 2u : 0u) && log_count(WATCHED) == e,
			 "%s: uidhash_lock and uid_cachep %s (%u such lines, %d in dmesg)\n",
			 EXECNS_PROC_PROOF, e ? "found by watching the kernel use them: /proc/kallsyms has no data symbols" :
			 "found by name in /proc/kallsyms", watched_seen, log_count(WATCHED));
	ksft_test_result(!strcmp(verdict, want) &&
			 (proven ? !fails :
			  partial ? fails > 0 && !costs_tables && costs_accounting > 0 :
			  refused && costs_tables > 0),
			 "verdict %s, as this row expects (%s): %u failed checks, %u costing accounting, %u refusing uid tables, %u refusing forbid_unshare\n",
			 verdict, want, fails, costs_accounting, costs_tables, costs_forbid);
	if (proven)
		ksft_test_result(true, "no failed check to name\n");
	else
		ksft_test_result(*site && strstr(first, site),
				 "the first failed check names %s: %s\n", *site ? site : "(no site in " EXPECT ")",
				 first);

	if (proven) {
		snprintf(line, sizeof(line), "load-time proof: %u %s", oks, LOG_PROVEN);
		ksft_test_result(log_count(line) == 1 && log_count("load-time proof: ") == 1 &&
				 log_count("uid tables refused:") == 0,
				 "kernel log: \"%s\", no other line of the proof's, and no refusal\n", line);
	} else {
		snprintf(line, sizeof(line), "load-time proof: %u of %u checks failed: %s%s", fails,
			 oks + fails, partial ? LOG_PARTIAL : LOG_REFUSED,
			 partial ? (forbid ? " available (" : " refused (") : "");
		ksft_test_result(log_count(line) == 1 && fails_logged() &&
				 log_count("load-time proof: ") == (int)fails + 1,
				 "kernel log: \"%s...\", and each failed check once\n", line);
	}

	e = try_execns(CLONE_NEWUSER, refused);
	if (refused)
		ksft_test_result(e == EOPNOTSUPP,
				 "execns(CLONE_NEWUSER) fails with EOPNOTSUPP, the caller unchanged (errno %d)\n",
				 e);
	else
		ksft_test_result(e == 0, "execns(CLONE_NEWUSER) makes a uid table%s (errno %d)\n",
				 partial ? ", the proof's verdict partial" : "", e);

	rc = child_exec(cli, CHILD_STDOUT | CHILD_STDERR, NULL, NULL, 30, out, sizeof(out));
	out[strcspn(out, "\n")] = '\0';
	if (refused)
		ksft_test_result(rc == 125 && strstr(out, "load-time proof failed") &&
				 strstr(out, first) && strstr(out, EXECNS_PROC_PROOF),
				 "execns -t true: exit %d, one line naming the check (%s)\n", rc, out);
	else
		ksft_test_result(rc == 0, "execns -t true: exit %d\n", rc);

	e = param_write(FORBID, "1");
	if (forbid) {
		ksft_test_result(!e && !param_write(FORBID, "0"),
				 "forbid_unshare can be set and cleared, no check refusing it failed (errno %d)\n",
				 e);
	} else {
		read_line(FORBID, line, sizeof(line));
		ksft_test_result(e == EOPNOTSUPP && line[0] == 'N',
				 "forbid_unshare=1 is refused with EOPNOTSUPP, as %s (errno %d, value %s)\n",
				 costs_tables ? "uid tables are" : "a check refusing it failed", e, line);
	}

	e = try_execns(CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET, false);
	ksft_test_result(e == 0, "execns(CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET) works (errno %d)\n",
			 e);
	test_window();
	ksft_finished();
}
