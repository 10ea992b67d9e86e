// SPDX-License-Identifier: GPL-2.0
/*
 * Unload that cannot free live text (module/hook.c, execns_hook_pin()):
 * when ftrace refuses to unregister a hook, the hook stays armed and the
 * module pins itself, so that rmmod is refused rather than free a callback
 * ftrace still calls.  A real failure (ftrace_kill() after an anomaly)
 * never heals: the module is then unremovable until reboot.  This test
 * injects one failure (the fail_unregister parameter, module/fault.c) in
 * the disarm that follows a table, and checks what can be observed:
 *  - the WARN_ONCE line naming the hook and the errno, and the stats line
 *    "pinned: ftrace unregister failed (-19) for commit_creds";
 *  - the hook counted armed, the module's refcount held with no table;
 *  - rmmod refused (EAGAIN/EWOULDBLOCK or EBUSY), the module still there;
 *  - the kernel and the module keep working: a new table is made;
 *  - since the injected failure was a one-off, the next disarm unregisters
 *    the hook, drops the pin (one line in the log) and rmmod would work:
 *    the rest of the suite, and the runner's unload, are unaffected.
 * The WARN is the behaviour under test, so its lines are declared to the
 * runner's log check first (EXECNS_EXPECTED_LOG in lib.sh), and
 * kernel.panic_on_warn (1 on the harness's command line) is 0 around it;
 * WARN_ONCE means this test asserts it once per boot.
 *
 * On s390x the uid hooks are parked, not unregistered, when disarmed
 * (module/hook.h): an unregister happens only at unload, where hook.c waits
 * for ftrace instead (a refcount can no longer refuse anything there), so
 * the test skips.
 */
#include "lib/test.h"

#define FAIL_UNREGISTER	EXECNS_SYSFS_DIR "/fail_unregister"
#define DISARM_DELAY	EXECNS_SYSFS_DIR "/disarm_delay_ms"
#define REFCNT		EXECNS_SYSFS_MODULE "/refcnt"
#define PANIC_ON_WARN	"/proc/sys/kernel/panic_on_warn"
#define EXPECTED_LOG	"/tmp/execns-expected-log"	/* lib.sh's EXECNS_EXPECTED_LOG */
#define PIN_LINE	EXECNS_STAT_PINNED " ftrace unregister failed (-19) for commit_creds"
#define HOOKS_ARMED	EXECNS_STAT_HOOKS " " EXECNS_STAT_ARMED
#define HOOKS_DISARMED	EXECNS_STAT_HOOKS " " EXECNS_STAT_DISARMED
#define TESTS		7

#if defined(__s390x__)
#define HOOKS_PARK	1
#else
#define HOOKS_PARK	0
#endif

/* Whether the kernel log (or /proc/execns/stats) has a line containing s. */
static int file_has(const char *path, const char *s)
{
	static char buf[1 << 20];
	ssize_t n;
	int fd;

	if (!strcmp(path, "dmesg")) {
		fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			return 0;
		/* /dev/kmsg: one record per read, until EAGAIN. */
		while ((n = read(fd, buf, sizeof(buf) - 1)) > 0) {
			buf[n] = 0;
			if (strstr(buf, s)) {
				close(fd);
				return 1;
			}
		}
		close(fd);
		return 0;
	}
	n = read_text(path, buf, sizeof(buf));
	return n > 0 && strstr(buf, s);
}

/* Add an extended regex to the runner's expected report lines (lib.sh). */
static int expect_log(const char *re)
{
	int fd = open(EXPECTED_LOG, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	int ok;

	if (fd < 0)
		return -1;
	ok = dprintf(fd, "%s\n", re) > 0;
	close(fd);
	return ok ? 0 : -1;
}

/* Until the module's refcount is want (tables drop theirs after RCU), at most secs. */
static long wait_refcnt(long want, int secs)
{
	long n = read_long(REFCNT);

	for (int i = 0; n != want && i < secs * 10; i++) {
		sleep_ms(100);
		n = read_long(REFCNT);
	}
	return n;
}

/* Until the stats have (want 1) or lack (want 0) s, at most secs. */
static int wait_stats(const char *s, int want, int secs)
{
	int has = file_has(EXECNS_PROC_STATS, s);

	for (int i = 0; has != want && i < secs * 10; i++) {
		sleep_ms(100);
		has = file_has(EXECNS_PROC_STATS, s);
	}
	return has;
}

static const struct child_mode modes[] = {
	UT_MODES,
};

int main(int argc, char **argv)
{
	char delay0[32] = "1000", panic0[16] = "0";
	struct child o;
	long refcnt, t1;
	int err, pinned;

	CHILD_DISPATCH(modes, argc, argv);

	ut_start(TESTS);
	if (HOOKS_PARK || access(FAIL_UNREGISTER, W_OK)) {
		for (int i = 0; i < TESTS; i++) {
			char name[32];

			snprintf(name, sizeof(name), "pin %d", i + 1);
			ksft_test_result_code(KSFT_SKIP, name, HOOKS_PARK ?
					      "s390x parks disarmed hooks; it unregisters only at unload" :
					      "no " FAIL_UNREGISTER);
		}
		ksft_finished();
	}
	read_line(DISARM_DELAY, delay0, sizeof(delay0));
	write_knob(DISARM_DELAY, "0");
	ksft_test_result(ut_wait_tables(0, UT_RCU_SECS) == 0 && wait_stats(HOOKS_DISARMED, 1, UT_RCU_SECS),
			 "no table, the uid hooks disarmed");

	/* Declared before it happens: the runner's log check then accepts it. */
	if (expect_log("WARNING: .*execns_hook_pin"))
		ksft_print_msg("cannot write %s: %s\n", EXPECTED_LOG, strerror(errno));
	read_line(PANIC_ON_WARN, panic0, sizeof(panic0));
	write_knob(PANIC_ON_WARN, "0");
	write_knob(FAIL_UNREGISTER, "1");
	child_in_table("table", NULL, &o);
	t1 = child_val(&o, "self");
	pinned = wait_stats(PIN_LINE, 1, UT_RCU_SECS);
	write_knob(PANIC_ON_WARN, panic0);
	ut_wait_tables(0, UT_RCU_SECS);
	refcnt = wait_refcnt(1, UT_RCU_SECS);
	ksft_test_result(t1 > 0 && pinned && file_has(EXECNS_PROC_STATS, HOOKS_ARMED) && refcnt == 1 &&
			 ut_ntables() == 0,
			 "table %ld made and dropped, its disarm's unregister fails (injected): stats say \"" PIN_LINE "\" (%d), the hook stays armed, the module holds itself (refcnt %ld, no table)",
			 t1, pinned, refcnt);
	ksft_test_result(file_has("dmesg", "ftrace cannot unregister the hook on commit_creds (-19)") &&
			 file_has("dmesg", "rmmod is refused"),
			 "one WARN line names the hook, the errno and why rmmod is refused");

	err = execns_rmmod(0);
	ksft_test_result((err == EWOULDBLOCK || err == EBUSY) && execns_loaded() &&
			 access(EXECNS_PROC_STATS, R_OK) == 0,
			 "rmmod is refused (errno %d) and the module stays loaded", err);

	/* With the pinned hook armed, arming the set again must still work. */
	child_in_table("table", NULL, &o);
	ksft_test_result(child_val(&o, "self") > 0 && child_ok(&o),
			 "the kernel and the module keep working: execns(CLONE_NEWUSER) makes table %ld",
			 child_val(&o, "self"));

	/* The injected failure was a one-off: the next disarm heals it. */
	pinned = wait_stats(PIN_LINE, 0, UT_RCU_SECS);
	ut_wait_tables(0, UT_RCU_SECS);
	wait_stats(HOOKS_DISARMED, 1, UT_RCU_SECS);
	refcnt = wait_refcnt(0, UT_RCU_SECS);
	ksft_test_result(!pinned && file_has(EXECNS_PROC_STATS, HOOKS_DISARMED) &&
			 file_has("dmesg", "the hook on commit_creds is unregistered at last"),
			 "after that table the next disarm unregisters the hook and drops the pin (refcnt %ld); a real failure (after ftrace_kill()) never heals, the module then stays until reboot",
			 refcnt);
	ksft_test_result(refcnt == 0 && read_long(FAIL_UNREGISTER) == 0,
			 "nothing holds the module any more (refcnt %ld): rmmod would succeed", refcnt);
	write_knob(FAIL_UNREGISTER, "0");
	write_knob(DISARM_DELAY, delay0);
	ksft_finished();
}
