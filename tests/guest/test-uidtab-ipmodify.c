// SPDX-License-Identifier: GPL-2.0
/*
 * The uid hooks keep other IP modifiers off the functions they redirect
 * (FTRACE_OPS_FL_IPMODIFY, module/hook.h), and the other way round.  A
 * second module, tests/guest/ipmod's probe, registers an IPMODIFY
 * ftrace_ops on the function its "func" parameter names, as livepatch or
 * another hooking module would; it is loaded with finit_module(2), so the
 * errno is the registration's own.  For each redirected function
 * (alloc_uid, alloc_ucounts, find_user):
 *  - with no table (hooks disarmed) the probe loads, execns(CLONE_NEWUSER)
 *    is then EBUSY (the hooks cannot arm) with the caller left in no table,
 *    and the probe unloads;
 *  - while a table lives (hooks armed), loading it is EBUSY, and the table
 *    keeps working: a setuid inside gets a user_struct of the table;
 *  - once the last table is gone the hooks are disarmed (docs/design.md,
 *    "Cost when unused"), and the probe loads again.
 * commit_creds, hooked without IPMODIFY (it only watches), is a control:
 * the probe loads there while a table lives, and a table can be made while
 * the probe holds it.  free_uid and put_ucounts, the releases, are not
 * hooked at all (a table's objects are the kernel's kind, which the
 * kernel's own release code frees right): the probe loads on them with or
 * without a table, and while it holds one a new table works (a setuid
 * inside gets the table's user_struct, and the table goes with its
 * process).  /sys/kernel/tracing/enabled_functions, ftrace's own list,
 * must show the hooks' flags as this program's table says, and neither
 * release.  The guards on set_cred_ucounts and copy_creds, the callers
 * alloc_ucounts()'s redirect relies on, are IP-modifying ops and behave as
 * the redirects do here (test-uidtab-klp: a real livepatch of one).
 */
#include <sys/syscall.h>
#include "lib/test.h"

#define PROBE		"/lib/modules/execns_ipmod.ko"
#define PROBE_NAME	"execns_ipmod"

/* How ut_ftrace_state() sees a function while the hooks are armed. */
enum hook_kind {
	UNHOOKED = -1,		/* no ops of the module's on it */
	WATCHED = 0,		/* a hook without IPMODIFY */
	REDIRECTED = 1,		/* a redirecting (IPMODIFY) hook */
};

/* module/uidhooks.c's execns_uid_hooks[], then the releases it leaves alone. */
static struct {
	const char *func;
	enum hook_kind kind;
	int ucounts;		/* only where credentials carry ucounts (5.14 on) */
	int absent;		/* set at start: not in this kernel, not tested */
} hooks[] = {
	{ "alloc_uid", REDIRECTED, 0, 0 },
	{ "alloc_ucounts", REDIRECTED, 1, 0 },
	{ "find_user", REDIRECTED, 0, 0 },
	{ "commit_creds", WATCHED, 0, 0 },
	{ "free_uid", UNHOOKED, 0, 0 },
	{ "put_ucounts", UNHOOKED, 1, 0 },
	/* The guards (module/hook.h): IP-modifying too, with empty callbacks. */
	{ "set_cred_ucounts", REDIRECTED, 1, 0 },
	{ "copy_creds", REDIRECTED, 1, 0 },
};

#define NHOOKS		(int)(sizeof(hooks) / sizeof(hooks[0]))

/*
 * Where credentials carry no ucounts (5.10), the module hooks and guards
 * none of the ucounts functions: those the kernel has are not hooked, the
 * others are not tested (ftrace lists them as absent all the same).
 */
static void hooks_for_this_kernel(void)
{
	if (kernel_cred_ucounts())
		return;
	for (int i = 0; i < NHOOKS; i++) {
		if (!hooks[i].ucounts)
			continue;
		hooks[i].kind = UNHOOKED;
		hooks[i].absent = !kallsyms_has(hooks[i].func);
	}
}


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

/* Mode "setuid": becomes UT_UID ("setresuid_errno" if not), then mode "table"'s keys. */
static int mode_setuid(int argc, char **argv)
{
	if (setresuid(UT_UID, UT_UID, UT_UID))
		child_putl("setresuid_errno", errno);
	return ut_mode_table(argc, argv);
}

static const struct child_mode modes[] = {
	UT_MODES,
	UT_MODE_MEMBER,
	CHILD_MODE("setuid", 0, mode_setuid),
};

#define UID_KEY_(u)	"uid" #u
#define UID_KEY(u)	UID_KEY_(u)

/* With no table: the probe on hooks[i] loads and unloads; what a new table does meanwhile. */
static void no_table(int i)
{
	const char *func = hooks[i].func;
	int load, unload;
	struct child o;
	long err, self;

	/* The table of the case before, and the hooks it armed, go first. */
	ut_wait_tables(0, UT_RCU_SECS);
	wait_disarmed(UT_RCU_SECS);
	load = probe_load(func);
	child_execns(CLONE_NEWUSER, "table", NULL, 1, &o);
	err = child_val(&o, "execns_errno");
	err = err == CHILD_NONE ? 0 : err;
	self = child_val(&o, "self");
	unload = load ? -1 : probe_unload();
	if (hooks[i].kind == REDIRECTED)
		ksft_test_result(!load && err == EBUSY && ut_self() == 0 && ut_ntables() == 0 &&
				 execns_stat(EXECNS_STAT_HOOKS) == 0 && !unload && !module_listed(PROBE_NAME),
				 "no table: the probe loads on %s (errno %d); execns(CLONE_NEWUSER) is then EBUSY, the hooks disarmed, the caller in no table (errno %ld, tables %d); the probe unloads (errno %d)",
				 func, load, err, ut_ntables(), unload);
	else
		ksft_test_result(!load && !err && self > 0 && ut_self() == 0 &&
				 !unload && !module_listed(PROBE_NAME) && ut_wait_tables(0, UT_RCU_SECS) == 0,
				 "no table: the probe loads on %s (errno %d), which is %s: execns(CLONE_NEWUSER) still makes a table (%ld, errno %ld); the probe unloads (errno %d)",
				 func, load, hooks[i].kind == WATCHED ? "watched, not redirected" : "not hooked",
				 self, err, unload);
}

/*
 * A table lives: the probe on hooks[i] is EBUSY where the hook redirects;
 * it loads where the hook only watches; where nothing of the module's is,
 * it loads, and a new table works while it holds the function.
 */
static void table_lives(int i)
{
	const char *func = hooks[i].func;
	int load = probe_load(func), unload, left = -1;
	long self = -1, refs = CHILD_NONE, err = CHILD_NONE;
	struct child o;

	if (hooks[i].kind == UNHOOKED && !load) {
		child_in_table("setuid", NULL, &o);
		self = child_val(&o, "self");
		refs = child_val(&o, UID_KEY(UT_UID));
		err = child_val(&o, "setresuid_errno");
		left = ut_wait_tables(1, UT_RCU_SECS);	/* the member's stays */
	}
	unload = load ? -1 : probe_unload();
	if (hooks[i].kind == REDIRECTED)
		ksft_test_result(load == EBUSY && !module_listed(PROBE_NAME),
				 "a table lives: loading the probe on %s is EBUSY (errno %d)", func, load);
	else if (hooks[i].kind == WATCHED)
		ksft_test_result(!load && !unload && !module_listed(PROBE_NAME),
				 "a table lives: the probe loads on %s, watched only (errno %d), and unloads (errno %d)",
				 func, load, unload);
	else
		ksft_test_result(!load && self > 0 && err == CHILD_NONE && refs >= 1 && left == 1 &&
				 !unload && !module_listed(PROBE_NAME),
				 "a table lives: the probe loads on %s, not hooked (errno %d); while it holds it a new table works: setresuid(%d) in table %ld gets the table's user_struct (refs %ld), and the table goes with its process (tables left %d); the probe unloads (errno %d)",
				 func, load, UT_UID, self, refs == CHILD_NONE ? -1 : refs, left, unload);
}

/* enabled_functions while the hooks are armed: "I" exactly on the redirects. */
static void ftrace_view(void)
{
	char seen[256] = "";
	int ok = 1;

	for (int i = 0; i < NHOOKS; i++) {
		int state = ut_ftrace_state(hooks[i].func);
		size_t len = strlen(seen);

		ok &= state == (int)hooks[i].kind;
		snprintf(seen + len, sizeof(seen) - len, " %s=%d", hooks[i].func, state);
	}
	ksft_test_result(ok, "a table lives: %s lists each hook, IPMODIFY on the redirects only, and not the releases (1 IPMODIFY, 0 not, -1 absent:%s)",
			 UT_ENABLED_FUNCS, seen);
}

int main(int argc, char **argv)
{
	struct child o;
	long table, armed;
	int left, redirects = 0, present = 0, tests;
	pid_t member;

	CHILD_DISPATCH(modes, argc, argv);

	hooks_for_this_kernel();
	for (int i = 0; i < NHOOKS; i++) {
		redirects += hooks[i].kind == REDIRECTED;
		present += !hooks[i].absent;
	}
	/* Each hook with no table and with one; 4 on the table; each redirect after. */
	tests = 2 * present + 4 + redirects;
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
		if (!hooks[i].absent)
			no_table(i);

	member = child_execns(CLONE_NEWUSER, "member", NULL, 0, &o) ? -1 : o.pid;
	table = child_val(&o, "self");
	ksft_test_result(member > 0 && table > 0 && execns_stat(EXECNS_STAT_HOOKS) == 1,
			 "a member lives in table %ld, the hooks are armed (%ld)", table, execns_stat(EXECNS_STAT_HOOKS));
	ftrace_view();
	for (int i = 0; i < NHOOKS; i++)
		if (!hooks[i].absent)
			table_lives(i);
	if (member > 0)
		kill(member, SIGUSR1);
	ksft_test_result(table > 0 && ut_wait_user(table, UT_UID, 1, UT_RCU_SECS) &&
			 execns_stat(EXECNS_STAT_HOOKS) == 1,
			 "the table still works after the refused loads: the member's setresuid(%d) gets a user_struct of table %ld",
			 UT_UID, table);

	child_kill(member);
	left = ut_wait_tables(0, UT_RCU_SECS);
	armed = wait_disarmed(UT_RCU_SECS);
	ksft_test_result(left == 0 && armed == 0 && ut_ftrace_state("find_user") == -1,
			 "the member exits: no table is left and the hooks are disarmed, find_user gone from %s (tables %d, hooks %ld)",
			 UT_ENABLED_FUNCS, left, armed);
	for (int i = 0; i < NHOOKS; i++) {
		int load, unload;

		if (hooks[i].kind != REDIRECTED)
			continue;
		load = probe_load(hooks[i].func);
		unload = load ? -1 : probe_unload();
		ksft_test_result(!load && !unload && !module_listed(PROBE_NAME),
				 "after the last table: the probe loads on %s again (errno %d) and unloads (errno %d)",
				 hooks[i].func, load, unload);
	}
	if (module_listed(PROBE_NAME))
		probe_unload();
	ksft_finished();
}
