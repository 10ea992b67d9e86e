// SPDX-License-Identifier: GPL-2.0
/*
 * A livepatched caller makes arming refuse, and a table refuses the
 * livepatch.  alloc_ucounts()'s hook redirects only calls that return into
 * set_cred_ucounts() or copy_creds() (module/uidhooks.c); a livepatch
 * replacing one of them moves those calls into its own module's text,
 * where the hook would not know them.  So the module guards both callers
 * with an IP-modifying ftrace_ops while uid tables are armed (module/hook.h,
 * EXECNS_GUARD_HOOK), and livepatch needs that same place.
 * tests/guest/ipmod's execns_klp is a real livepatch (klp_enable_patch())
 * of set_cred_ucounts(), doing what the kernel's does:
 *  - with no table it loads and its set_cred_ucounts() works (a setresuid
 *    in a plain child); execns(CLONE_NEWUSER) is then EBUSY, the caller
 *    left in no table, the kernel log naming the guarded caller; the patch
 *    is disabled and unloaded;
 *  - while a table lives, enabling it is EBUSY, and the table still works;
 *  - after the last table, it loads again.
 * Where the kernel has no livepatching (no /sys/kernel/livepatch, no
 * execns_klp.ko built), every case skips with that reason;
 * test-uidtab-ipmodify covers the guards there with a bare IPMODIFY ops.
 * A livepatch taints the kernel (K): declared to the runner's check first.
 */
#include <sys/syscall.h>
#include <sys/stat.h>
#include "lib/test.h"

#define KLP		"/lib/modules/execns_klp.ko"
#define KLP_NAME	"execns_klp"
#define KLP_SYSFS	"/sys/kernel/livepatch/" KLP_NAME
#define EXPECTED_TAINT	"/tmp/execns-expected-taint"	/* lib.sh's EXECNS_EXPECTED_TAINT */
#define TAINT_LIVEPATCH	"32768"
#define GUARD_LINE	"cannot hook set_cred_ucounts (-16)"
#define TESTS		9
#define CLI		"/usr/local/bin/execns"

/* The address /proc/kallsyms gives a text symbol, or 0. */
static unsigned long kallsyms_addr(const char *sym)
{
	char line[256], name[128], type;
	unsigned long addr = 0, a;
	FILE *f = fopen("/proc/kallsyms", "re");

	while (f && !addr && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %c %127s", &a, &type, name) == 3 && !strcmp(name, sym) &&
		    (type == 'T' || type == 't'))
			addr = a;
	if (f)
		fclose(f);
	return addr;
}

/* finit_module(2) of the livepatch: 0 or the errno. */
static int klp_load(void)
{
	char params[96];
	int fd = open(KLP, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	snprintf(params, sizeof(params), "alloc_ucounts=0x%lx put_ucounts=0x%lx",
		 kallsyms_addr("alloc_ucounts"), kallsyms_addr("put_ucounts"));
	if (syscall(SYS_finit_module, fd, params, 0))
		err = errno;
	close(fd);
	return err;
}

/*
 * Disable the patch, wait (at most 60 s: a transition waits for every task
 * to leave the patched function) until livepatch lets it go, and unload
 * it: 0 or an errno.
 */
static int klp_unload(void)
{
	struct stat st;
	int i;

	if (!stat(KLP_SYSFS, &st) && write_knob(KLP_SYSFS "/enabled", "0"))
		return EIO;
	for (i = 0; i < 600 && !stat(KLP_SYSFS, &st); i++)
		sleep_ms(100);
	if (!stat(KLP_SYSFS, &st))
		return ETIMEDOUT;
	for (i = 0; i < 100; i++) {
		if (!syscall(SYS_delete_module, KLP_NAME, O_NONBLOCK))
			return 0;
		if (errno != EAGAIN && errno != EBUSY)
			break;
		sleep_ms(100);	/* the patch's last reference goes from a work item */
	}
	return errno;
}

/* Whether a plain child (no table) can change its uid: the patch works. */
static int plain_setuid_ok(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(setresuid(UT_UID, UT_UID, UT_UID) ? 1 : 0);
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

static const struct child_mode modes[] = {
	UT_MODES,
	UT_MODE_MEMBER,
};

static void skip_all(const char *why)
{
	for (int i = 0; i < TESTS; i++) {
		char name[32];

		snprintf(name, sizeof(name), "klp %d", i + 1);
		ksft_test_result_code(KSFT_SKIP, name, "%s", why);
	}
	ksft_finished();
}

/* With no table: the patch loads and works, and arming is refused. */
static void no_table(void)
{
	int load, unload, works, guard_lines;
	struct child o;
	long err;

	ut_wait_tables(0, UT_RCU_SECS);
	wait_disarmed(UT_RCU_SECS);
	load = klp_load();
	works = !load && plain_setuid_ok();
	ksft_test_result(!load && module_listed(KLP_NAME) && works,
			 "no table: the livepatch of set_cred_ucounts loads (errno %d), and a plain child's setresuid(%d) works through it (%d)",
			 load, UT_UID, works);
	child_execns(CLONE_NEWUSER, "table", NULL, 1, &o);
	err = child_val(&o, "execns_errno");
	guard_lines = kernel_log_count(NULL, GUARD_LINE, 1);
	ksft_test_result(err == EBUSY && ut_self() == 0 && ut_ntables() == 0 && guard_lines == 1,
			 "while it is enabled, execns(CLONE_NEWUSER) is EBUSY (errno %ld) with the caller in no table (tables %d), and the kernel log names the guarded caller (%d)",
			 err == CHILD_NONE ? 0 : err, ut_ntables(), guard_lines);
	{
		char *cli[] = { CLI, "-t", "/bin/true", NULL };
		char out[2048] = "";
		int rc = child_exec(cli, CHILD_STDOUT | CHILD_STDERR, NULL, NULL, 30, out, sizeof(out));

		ksft_test_result(rc == 125 && strstr(out, "cannot arm its uid hooks") && strstr(out, "livepatch"),
				 "and execns -t exits 125 with one line naming the cause (exit %d)", rc);
	}
	unload = load ? -1 : klp_unload();
	ksft_test_result(!unload && !module_listed(KLP_NAME) && wait_disarmed(UT_RCU_SECS) == 0,
			 "the livepatch is disabled and unloads (errno %d), and the hooks stay disarmed",
			 unload);
}

int main(int argc, char **argv)
{
	struct child o;
	struct stat st;
	long table;
	int load, unload, left;
	pid_t member;

	CHILD_DISPATCH(modes, argc, argv);
	ut_start(TESTS);
	if (stat("/sys/kernel/livepatch", &st))
		skip_all("this kernel has no livepatching (CONFIG_LIVEPATCH)");
	if (access(KLP, R_OK))
		skip_all("no " KLP " in this guest (built where CONFIG_LIVEPATCH is and credentials have ucounts: set_cred_ucounts() is what it replaces)");
	if (!kallsyms_addr("set_cred_ucounts"))
		skip_all("this kernel has no set_cred_ucounts()");
	if (write_file(EXPECTED_TAINT, TAINT_LIVEPATCH "\n", 0644))
		ksft_print_msg("cannot write %s: %s (the taint check will fail)\n", EXPECTED_TAINT,
			       strerror(errno));

	no_table();

	member = child_execns(CLONE_NEWUSER, "member", NULL, 0, &o) ? -1 : o.pid;
	table = child_val(&o, "self");
	ksft_test_result(member > 0 && table > 0 && execns_stat(EXECNS_STAT_HOOKS) == 1,
			 "a member lives in table %ld, the hooks armed (%ld)", table, execns_stat(EXECNS_STAT_HOOKS));
	load = klp_load();
	ksft_test_result(load == EBUSY && !module_listed(KLP_NAME),
			 "a table lives: enabling the livepatch of set_cred_ucounts is EBUSY (errno %d)", load);
	if (!load)
		klp_unload();
	if (member > 0)
		kill(member, SIGUSR1);
	ksft_test_result(table > 0 && ut_wait_user(table, UT_UID, 1, UT_RCU_SECS),
			 "the table still works: the member's setresuid(%d) gets a user_struct of table %ld",
			 UT_UID, table);
	child_kill(member);
	left = ut_wait_tables(0, UT_RCU_SECS);
	ksft_test_result(left == 0 && wait_disarmed(UT_RCU_SECS) == 0,
			 "the member exits: no table is left and the hooks are disarmed (tables %d)", left);
	load = klp_load();
	unload = load ? -1 : klp_unload();
	ksft_test_result(!load && !unload && !module_listed(KLP_NAME),
			 "after the last table: the livepatch loads again (errno %d) and unloads (errno %d)",
			 load, unload);
	ksft_finished();
}
