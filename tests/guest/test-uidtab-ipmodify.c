// SPDX-License-Identifier: GPL-2.0
/*
 * The uid hooks keep other IP modifiers off the functions they redirect
 * (FTRACE_OPS_FL_IPMODIFY, module/hook.h), and the other way round.  A
 * second module, tests/guest/ipmod's probe, registers an IPMODIFY
 * ftrace_ops on the function its "func" parameter names, as livepatch or
 * another hooking module would; it is loaded with finit_module(2), so the
 * errno is the registration's own.  For each redirected function:
 *  - with no table (hooks disarmed) the probe loads, execns(CLONE_NEWUSER)
 *    is then EBUSY (the hooks cannot arm) with the caller left in no table,
 *    and the probe unloads;
 *  - while a table lives (hooks armed), loading it is EBUSY, and the table
 *    keeps working: a setuid inside gets a user_struct of the table;
 *  - once the last table is gone the hooks are disarmed (docs/design.md,
 *    "Cost when unused"), and the probe loads again.
 * commit_creds, hooked without IPMODIFY (it only watches), is the control:
 * the probe loads there while a table lives, and a table can be made while
 * the probe holds it.  /sys/kernel/tracing/enabled_functions, ftrace's own
 * list, must show the hooks' flags as this program's table says.
 */
#include <sys/syscall.h>
#include "lib/test.h"

#define PROBE		"/lib/modules/execns_ipmod.ko"
#define PROBE_NAME	"execns_ipmod"
#define ENABLED_FUNCS	"/sys/kernel/tracing/enabled_functions"

/* module/uidhooks.c's execns_uid_hooks[]. */
static const struct {
	const char *func;
	int ipmodify;		/* a redirecting hook */
} hooks[] = {
	{ "free_uid", 1 },
	{ "put_ucounts", 1 },
	{ "alloc_uid", 1 },
	{ "alloc_ucounts", 1 },
	{ "find_user", 1 },
	{ "commit_creds", 0 },
};

#define NHOOKS		(int)(sizeof(hooks) / sizeof(hooks[0]))

/* finit_module(2) of the probe on func: 0 or the errno. */
static int probe_load(const char *func)
{
	char params[96];
	int fd = open(PROBE, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	snprintf(params, sizeof(params), "func=%s", func);
	if (syscall(SYS_finit_module, fd, params, 0))
		err = errno;
	close(fd);
	return err;
}

/* delete_module(2) of the probe, as rmmod does it: 0 or the errno. */
static int probe_unload(void)
{
	return syscall(SYS_delete_module, PROBE_NAME, O_NONBLOCK) ? errno : 0;
}

/* Whether /proc/modules lists the probe. */
static int probe_loaded(void)
{
	char line[256];
	FILE *f = fopen("/proc/modules", "re");
	int yes = 0;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, PROBE_NAME " ", strlen(PROBE_NAME) + 1))
			yes = 1;
	if (f)
		fclose(f);
	return yes;
}

/*
 * How ftrace lists func in enabled_functions: 1 with the IPMODIFY flag
 * (the word "I" among the flags between "(N)" and the trampoline), 0
 * without, -1 not listed (no ops on it), -2 the file cannot be read.
 */
static int ftrace_ipmodify(const char *func)
{
	char line[512], name[128];
	FILE *f = fopen(ENABLED_FUNCS, "re");
	int state = -1;

	if (!f)
		return -2;
	while (fgets(line, sizeof(line), f)) {
		char *flags, *word;
		int end = -1;

		if (sscanf(line, "%127s (%*d)%n", name, &end) != 1 || end < 0 || strcmp(name, func))
			continue;
		flags = line + end;
		flags[strcspn(flags, "\t\n")] = '\0';
		if (strstr(flags, "->"))
			*strstr(flags, "->") = '\0';
		state = 0;
		for (word = strtok(flags, " "); word; word = strtok(NULL, " "))
			if (!strcmp(word, "I"))
				state = 1;
	}
	fclose(f);
	return state;
}

/* Mode "member": "self T", then stays; on SIGUSR1 it becomes UT_UID. */
static int mode_member(int argc, char **argv)
{
	sigset_t usr1;
	int sig;

	(void)argc;
	(void)argv;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	child_putl("self", ut_self());
	child_detach();
	alarm(CHILD_TIMEOUT);
	if (sigwait(&usr1, &sig) || setresuid(UT_UID, UT_UID, UT_UID))
		return 1;
	for (;;)
		pause();
}

static const struct child_mode modes[] = {
	UT_MODES,
	CHILD_MODE("member", 0, mode_member),
};

/* With no table: the probe on hooks[i] loads and unloads; what a new table does meanwhile. */
static void no_table(int i)
{
	const char *func = hooks[i].func;
	int load = probe_load(func), unload;
	struct child o;
	long err, self;

	child_execns(CLONE_NEWUSER, "table", NULL, 1, &o);
	err = child_val(&o, "execns_errno");
	err = err == CHILD_NONE ? 0 : err;
	self = child_val(&o, "self");
	unload = load ? -1 : probe_unload();
	if (hooks[i].ipmodify)
		ksft_test_result(!load && err == EBUSY && ut_self() == 0 && ut_ntables() == 0 &&
				 execns_stat("hooks") == 0 && !unload && !probe_loaded(),
				 "no table: the probe loads on %s (errno %d); execns(CLONE_NEWUSER) is then EBUSY, the hooks disarmed, the caller in no table (errno %ld, tables %d); the probe unloads (errno %d)",
				 func, load, err, ut_ntables(), unload);
	else
		ksft_test_result(!load && !err && self > 0 && ut_self() == 0 &&
				 !unload && !probe_loaded() && ut_wait_tables(0, UT_RCU_SECS) == 0,
				 "no table: the probe loads on %s (errno %d), which is watched, not redirected: execns(CLONE_NEWUSER) still makes a table (%ld, errno %ld); the probe unloads (errno %d)",
				 func, load, self, err, unload);
}

/* A table lives: the probe on hooks[i] is EBUSY where the hook redirects. */
static void table_lives(int i)
{
	const char *func = hooks[i].func;
	int load = probe_load(func), unload = load ? -1 : probe_unload();

	if (hooks[i].ipmodify)
		ksft_test_result(load == EBUSY && !probe_loaded(),
				 "a table lives: loading the probe on %s is EBUSY (errno %d)", func, load);
	else
		ksft_test_result(!load && !unload && !probe_loaded(),
				 "a table lives: the probe loads on %s, watched only (errno %d), and unloads (errno %d)",
				 func, load, unload);
}

/* enabled_functions while the hooks are armed: "I" exactly on the redirects. */
static void ftrace_view(void)
{
	char seen[256] = "";
	int ok = 1;

	for (int i = 0; i < NHOOKS; i++) {
		int state = ftrace_ipmodify(hooks[i].func);
		size_t len = strlen(seen);

		ok &= state == hooks[i].ipmodify;
		snprintf(seen + len, sizeof(seen) - len, " %s=%d", hooks[i].func, state);
	}
	ksft_test_result(ok, "a table lives: %s lists each hook, IPMODIFY on the redirects only (1 IPMODIFY, 0 not, -1 absent:%s)",
			 ENABLED_FUNCS, seen);
}

int main(int argc, char **argv)
{
	struct child o;
	long table, armed;
	int left, redirects = 0, tests;
	pid_t member;

	CHILD_DISPATCH(modes, argc, argv);

	for (int i = 0; i < NHOOKS; i++)
		redirects += hooks[i].ipmodify;
	/* Each hook with no table and with one; 4 on the table; each redirect after. */
	tests = 2 * NHOOKS + 4 + redirects;
	ut_start(tests);
	if (access(PROBE, R_OK)) {
		for (int i = 0; i < tests; i++) {
			char name[32];

			snprintf(name, sizeof(name), "ipmodify %d", i + 1);
			ksft_test_result_code(KSFT_SKIP, name, "no %s in this guest (tests/harness/vm.sh puts it in)",
					      PROBE);
		}
		ksft_finished();
	}
	/* Tables of earlier programs go after RCU, and the hooks after them. */
	ut_wait_tables(0, UT_RCU_SECS);
	wait_disarmed(UT_RCU_SECS);

	for (int i = 0; i < NHOOKS; i++)
		no_table(i);

	member = child_execns(CLONE_NEWUSER, "member", NULL, 0, &o) ? -1 : o.pid;
	table = child_val(&o, "self");
	ksft_test_result(member > 0 && table > 0 && execns_stat("hooks") == 1,
			 "a member lives in table %ld, the hooks are armed (%ld)", table, execns_stat("hooks"));
	ftrace_view();
	for (int i = 0; i < NHOOKS; i++)
		table_lives(i);
	if (member > 0)
		kill(member, SIGUSR1);
	ksft_test_result(table > 0 && ut_wait_user(table, UT_UID, 1, UT_RCU_SECS) &&
			 execns_stat("hooks") == 1,
			 "the table still works after the refused loads: the member's setresuid(%d) gets a user_struct of table %ld",
			 UT_UID, table);

	child_kill(member);
	left = ut_wait_tables(0, UT_RCU_SECS);
	armed = wait_disarmed(UT_RCU_SECS);
	ksft_test_result(left == 0 && armed == 0 && ftrace_ipmodify("find_user") == -1,
			 "the member exits: no table is left and the hooks are disarmed, find_user gone from %s (tables %d, hooks %ld)",
			 ENABLED_FUNCS, left, armed);
	for (int i = 0; i < NHOOKS; i++) {
		int load, unload;

		if (!hooks[i].ipmodify)
			continue;
		load = probe_load(hooks[i].func);
		unload = load ? -1 : probe_unload();
		ksft_test_result(!load && !unload && !probe_loaded(),
				 "after the last table: the probe loads on %s again (errno %d) and unloads (errno %d)",
				 hooks[i].func, load, unload);
	}
	if (probe_loaded())
		probe_unload();
	ksft_finished();
}
