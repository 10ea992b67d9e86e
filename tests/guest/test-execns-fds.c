// SPDX-License-Identifier: GPL-2.0
/*
 * Descriptors across a successful execns(2): the new program has only 0, 1
 * and 2, whatever the caller had open above them and whatever their
 * close-on-exec flags; 0-2 are kept and work (a pipe on each); a
 * close-on-exec 0 is closed as by execve(2); and a process sharing the
 * caller's descriptor table (clone(CLONE_FILES)) keeps its descriptors.
 */
#include <sys/eventfd.h>
#include <sys/socket.h>
#include "lib/test.h"

struct std_pipes {
	int in[2], err[2];
};

/* Open all kinds of descriptors above 2; stdin and stderr become pipes. */
static void open_many(void *arg)
{
	struct std_pipes *sp = arg;
	char list[256];
	int sv[2];

	if (sp && (dup2(sp->in[0], 0) < 0 || dup2(sp->err[1], 2) < 0))
		_exit(95);
	if (open("/proc/self/status", O_RDONLY) < 0 ||
	    open("/tmp", O_RDONLY | O_DIRECTORY) < 0 ||
	    open("/proc/self/exe", O_RDONLY | O_CLOEXEC) < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, sv) ||
	    eventfd(0, 0) < 0 ||
	    dup2(sv[0], 200) < 0 || dup2(sv[1], 1000) < 0)
		_exit(96);
	fds_str(list, sizeof(list));
	printf("# the caller has descriptors %s before execns\n", list);
}

static void test_closed(int flags)
{
	struct std_pipes sp;
	char err_text[256] = "";
	struct report r;
	int err, st;

	if (pipe(sp.in) || pipe(sp.err))
		return;
	if (write(sp.in[1], "hello-stdin\n", 12) != 12)
		return;
	close(sp.in[1]);
	st = spawn_report_prep(flags, (const char *[]){ "stdin", NULL }, open_many, &sp,
			       &r, &err, NULL);
	close(sp.in[0]);
	close(sp.err[1]);
	read_all(sp.err[0], err_text, sizeof(err_text));
	close(sp.err[0]);
	ksft_test_result(exited_ok(st) && r.ok && !strcmp(r.fds, "0,1,2") &&
			 !strcmp(r.stdin_line, "hello-stdin") && r.stderr_ok &&
			 !strcmp(err_text, "from-report\n"),
			 "flags %s: only 0, 1, 2 are open in the new program (%s), and each works (stdin: %s)",
			 flags_str(flags), r.fds, r.stdin_line);
}

static void stdin_cloexec(void *arg)
{
	(void)arg;
	fcntl(0, F_SETFD, FD_CLOEXEC);
}

static void test_stdin_cloexec(void)
{
	struct report r;
	int err, st;

	st = spawn_report_prep(CLONE_NEWUTS, NULL, stdin_cloexec, NULL, &r, &err, NULL);
	ksft_test_result(exited_ok(st) && r.ok && !strcmp(r.fds, "1,2"),
			 "a close-on-exec descriptor 0 is closed, as by execve (new program has %s)", r.fds);
}

#define MARK_FD 50

struct sibling_args {
	int go_rd, res_wr;
};

/* Shares the caller's descriptor table; after its execns, checks MARK_FD. */
static int sibling(void *p)
{
	struct sibling_args *a = p;
	char c;

	alarm(30);
	if (read(a->go_rd, &c, 1) != 1)
		_exit(1);
	if (write(a->res_wr, fcntl(MARK_FD, F_GETFD) >= 0 ? "kept" : "gone", 4) != 4)
		_exit(1);
	_exit(0);
}

/* The child: a sibling sharing its descriptor table, then execns into "report". */
static int shared_table_child(void *arg)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));
	char *argv[] = { "/proc/self/exe", "report", NULL };
	struct sibling_args *a = arg;

	if (dup2(a->go_rd, MARK_FD) < 0 ||
	    clone(sibling, stack + sizeof(stack), CLONE_FILES | SIGCHLD, a) < 0)
		return 96;
	execns(CLONE_NEWUTS, "/proc/self/exe", argv, environ);
	printf("errno %d\n", errno);
	return 99;
}

static void test_shared_table(void)
{
	int go[2], res[2];
	char answer[16] = "";
	struct sibling_args a;
	struct report r;
	struct child c;

	if (pipe(go) || pipe(res))
		return;
	a.go_rd = go[0];
	a.res_wr = res[1];
	if (child_start(&c, CHILD_STDOUT | CHILD_LIVE, 30, shared_table_child, &a))
		return;
	close(go[0]);
	close(res[1]);
	/* The sibling holds the pipe too: read up to the report's end, not EOF. */
	if (!child_read_until(&c, "\nend\n") && !strstr(c.text, "errno "))
		ksft_print_msg("no report from the new program\n");
	if (write(go[1], "g", 1) != 1)
		ksft_print_msg("cannot wake the sibling\n");
	read_all(res[0], answer, sizeof(answer));
	child_finish(&c);
	close(go[1]);
	close(res[0]);
	memset(&r, 0, sizeof(r));
	parse_report(&r, c.text, 0);
	ksft_test_result(child_ok(&c) && r.ok && !strcmp(r.fds, "0,1,2") && !strcmp(answer, "kept"),
			 "a process sharing the caller's descriptor table keeps its descriptors (%s); the new program has %s",
			 answer[0] ? answer : "no answer", r.fds);
}

static const struct child_mode modes[] = { CHILD_MODE_REPORT };

int main(int argc, char **argv)
{
	CHILD_DISPATCH(modes, argc, argv);
	test_start(5, TEST_TIMEOUT);
	test_closed(CLONE_NEWUTS);
	test_closed(0);
	test_closed(EXECNS_NS_FLAGS);
	test_stdin_cloexec();
	test_shared_table();
	ksft_finished();
}
