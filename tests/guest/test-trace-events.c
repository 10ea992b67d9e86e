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
	FILE *f = fopen("/proc/execns/tables", "r");
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		n += !strncmp(line, "uid ", 4);
	if (f)
		fclose(f);
	return f ? n : -1;
}

/* In the table: a child each for uids 1001 and 1000, and a failed lookup. */
static int work(void)
{
	static const uid_t uids[] = { 1001, 1000 };

	printf("%ld\n", read_long("/proc/execns/self"));
	fflush(stdout);
	for (size_t i = 0; i < 2; i++) {
		pid_t c = fork();
		int st;

		if (c == 0)
			_exit(setresuid(uids[i], uids[i], uids[i]) ? 1 : 0);
		if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
	}
	errno = 0;
	return getpriority(PRIO_USER, 4242) != -1 || errno != ESRCH;
}

/* In the table: until stdin ends. */
static int hold(void)
{
	char c;

	printf("%ld\n", read_long("/proc/execns/self"));
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}

/* Start MODE in a new table with stdout on a pipe; *table gets its id. */
static pid_t start(const char *self, const char *mode, int *to_child, long *table)
{
	char *argv[] = { (char *)self, (char *)mode, NULL };
	char buf[32] = "";
	int out[2], in[2];
	pid_t pid;

	if (pipe(out) || pipe(in))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(out[1], 1);
		dup2(in[0], 0);
		alarm(30);
		execns(CLONE_NEWUSER, "/proc/self/exe", argv, environ);
		_exit(99);
	}
	close(out[1]);
	close(in[0]);
	if (read(out[0], buf, sizeof(buf) - 1) <= 0)
		buf[0] = '\0';
	close(out[0]);
	*table = atol(buf);
	*to_child = in[1];
	return pid;
}

static void wait_no_tables(void)
{
	for (int i = 0; i < 100 && execns_stat("tables") > 0; i++)
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
	int fd, st1, st2, hold_fd, work_fd, live, ok;
	pid_t p1, p2;

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

	p1 = start(argv[0], "work", &work_fd, &t1);
	close(work_fd);
	waitpid(p1, &st1, 0);
	wait_no_tables();
	p2 = start(argv[0], "hold", &hold_fd, &t2);

	write_knob(T "tracing_on", "0");
	fd = open(T "trace", O_RDONLY);
	read_all(fd, trace, sizeof(trace));
	close(fd);
	live = live_users();

	ksft_test_result(WIFEXITED(st1) && !WEXITSTATUS(st1) && t1 > 0 && t2 > t1,
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
	close(hold_fd);
	waitpid(p2, &st2, 0);
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
