// SPDX-License-Identifier: GPL-2.0
/*
 * The module's tracepoints (events/execns/ in tracefs).  Two workloads run
 * in new uid tables: one setuid()s into 1000 and 1001 (a child each), looks
 * up a uid nobody has, and exits; the other holds its table open while the
 * trace is read.  The trace must show each table's creation, every
 * user_struct's allocation (and, for the finished workload, free) with the
 * right uid and table id, the lookup, the call and its result; allocations
 * minus frees must equal the user_structs /proc/execns/tables lists.
 */
#include <sys/resource.h>
#include "lib/test.h"

#define T "/sys/kernel/tracing/"

static char trace[1 << 18];

/* Lines of the trace with "EVENT: " followed by FIELDS (a prefix). */
static int count(const char *event, const char *fields)
{
	char want[160];
	const char *p = trace;
	int n = 0;

	snprintf(want, sizeof(want), " %s: %s", event, fields);
	while ((p = strstr(p, want))) {
		n++;
		p++;
	}
	return n;
}

/* Every line of EVENT contains NEEDLE. */
static int every_line(const char *event, const char *needle)
{
	char want[64], line[512];
	const char *p = trace, *e;

	snprintf(want, sizeof(want), " %s: ", event);
	while ((p = strstr(p, want))) {
		e = strchr(p, '\n');
		snprintf(line, sizeof(line), "%.*s ", e ? (int)(e - p) : (int)strlen(p), p);
		if (!strstr(line, needle))
			return 0;
		p++;
	}
	return 1;
}

static int count_uid(const char *event, unsigned int uid, long table)
{
	char f[64];

	snprintf(f, sizeof(f), "uid=%u table=%ld ", uid, table);
	return count(event, f);
}

static int count_table(const char *event, long table)
{
	char f[64];

	snprintf(f, sizeof(f), "id=%ld parent=0\n", table);
	return count(event, f);
}

/* "uid ..." lines in /proc/execns/tables: the live module user_structs. */
static int live_users(void)
{
	char line[512];
	FILE *f = fopen(EXECNS_PROC_TABLES, "r");
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		n += !!execns_after(line, EXECNS_TABLES_UID);
	if (f)
		fclose(f);
	return f ? n : -1;
}

/* In the table: a child each for uids 1001 and 1000, and a failed lookup. */
static int work(void)
{
	static const uid_t uids[] = { 1001, 1000 };

	child_putl("self", read_long(EXECNS_PROC_SELF));
	for (size_t i = 0; i < 2; i++)
		if (child_as_uid(uids[i]))
			return 1;
	errno = 0;
	return getpriority(PRIO_USER, 4242) != -1 || errno != ESRCH;
}

/* In the table: until killed. */
__attribute__((noreturn))
static int hold(void)
{
	child_putl("self", read_long(EXECNS_PROC_SELF));
	child_detach();
	for (;;)
		pause();
}

/* MODE in a new table, waiting for it to end or (hold) left running; its table's id. */
static long start(const char *mode, int wait, struct child *c)
{
	if (child_execns(CLONE_NEWUSER, mode, NULL, wait, c))
		return -1;
	return child_val(c, "self");
}

static void wait_no_tables(void)
{
	for (int i = 0; i < 100 && execns_stat(EXECNS_STAT_TABLES) > 0; i++)
		usleep(50000);
}

static const struct child_mode modes[] = {
	CHILD_ACT("work", work),
	CHILD_ACT("hold", hold),
};

int main(int argc, char **argv)
{
	static const unsigned int uids[] = { 0, 1000, 1001 };
	long t1, t2, allocs, frees;
	struct child work_c, hold_c;
	int fd, live, ok;

	CHILD_DISPATCH(modes, argc, argv);

	test_start(9, 0);
	if (access(T "events/execns/enable", W_OK)) {
		for (int i = 0; i < 9; i++) {
			char name[32];

			snprintf(name, sizeof(name), "tracepoint check %d", i + 1);
			ksft_test_result_code(KSFT_SKIP, name, "no execns events in tracefs at " T);
		}
		ksft_finished();
	}
	wait_no_tables();
	write_knob(T "tracing_on", "0");
	write_knob(T "trace", "");
	write_knob(T "events/execns/enable", "1");
	write_knob(T "tracing_on", "1");

	t1 = start("work", 1, &work_c);
	wait_no_tables();
	t2 = start("hold", 0, &hold_c);

	write_knob(T "tracing_on", "0");
	fd = open(T "trace", O_RDONLY);
	read_all(fd, trace, sizeof(trace));
	close(fd);
	live = live_users();

	ksft_test_result(child_ok(&work_c) && t1 > 0 && t2 > t1,
			 "workloads ran in tables %ld and %ld", t1, t2);
	ksft_test_result(count("execns_call", "pid=") >= 2 &&
			 count("execns_call", "") == count("execns_call", "pid=") &&
			 strstr(trace, "flags=CLONE_NEWUSER filename=/proc/self/exe") &&
			 count("execns_return", "") >= 2 && strstr(trace, " result=0 duration_ns="),
			 "execns_call shows flags by name and the filename, execns_return the result");
	ksft_test_result(count_table("table_create", t1) == 1 && count_table("table_destroy", t1) == 1,
			 "table_create and table_destroy once for table %ld (parent 0)", t1);
	ok = 1;
	for (size_t i = 0; i < 3; i++)
		ok &= count_uid("uid_alloc", uids[i], t1) == 1 &&
		      count_uid("uid_free", uids[i], t1) == 1;
	ksft_test_result(ok, "uids 0, 1000, 1001: one uid_alloc and one uid_free each in table %ld", t1);
	ksft_test_result(count("uid_free", "") == 3 && every_line("uid_free", " refs=0 ") &&
			 every_line("uid_alloc", " refs=1 "),
			 "uid_alloc shows one reference, uid_free none");
	ksft_test_result(count_uid("uid_find", 4242, t1) == 1 && strstr(trace, "uid=4242") &&
			 strstr(trace, "found=0"),
			 "getpriority(PRIO_USER, 4242) in table %ld: one uid_find, nothing found", t1);
	ksft_test_result(count_table("table_create", t2) == 1 && count_uid("uid_alloc", 0, t2) == 1 &&
			 !count_table("table_destroy", t2) && !count_uid("uid_free", 0, t2),
			 "the holding table %ld: created, its uid 0 allocated, nothing freed", t2);
	allocs = count("uid_alloc", "");
	frees = count("uid_free", "");
	ksft_test_result(allocs - frees == live && live == 1,
			 "allocs (%ld) - frees (%ld) = live user_structs in /proc/execns/tables (%d)",
			 allocs, frees, live);

	/* The held table ends when its last process does. */
	write_knob(T "trace", "");
	write_knob(T "tracing_on", "1");
	child_kill(hold_c.pid);
	wait_no_tables();
	write_knob(T "tracing_on", "0");
	write_knob(T "events/execns/enable", "0");
	fd = open(T "trace", O_RDONLY);
	read_all(fd, trace + strlen(trace), sizeof(trace) - strlen(trace));
	close(fd);
	ksft_test_result(count_table("table_destroy", t2) == 1 && count_uid("uid_free", 0, t2) == 1 &&
			 live_users() == 0,
			 "table %ld: uid 0 freed and table destroyed after its process exits", t2);
	if (ksft_get_fail_cnt())
		printf("%s", trace);
	ksft_finished();
}
