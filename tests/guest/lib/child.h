/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The child protocol of the in-guest test programs: the one way a test runs
 * something in another process and gets its result back.
 *
 * child_start() is it: fork; in the child, fd 1 (and, when asked, fd 2)
 * goes to a pipe, an alarm is set, and a function runs, whose value is the
 * exit status.  The test reads the pipe to EOF into a struct child, passes
 * the "# " lines it finds on as its own diagnostics, and reaps the child
 * (or, with CHILD_BACKGROUND, leaves it running: c->pid).  With CHILD_LIVE
 * it returns at once instead, to talk to, signal or watch the running child
 * (child_read_until() reads what it wrote so far), and child_finish() then
 * does the rest.  Everything else is that with a given function:
 *
 *   child_run(fn, arg, c)		fn(arg) in the child
 *   child_execns(flags, mode, args, wait, c)
 *					execns() this very program into one of
 *					its modes (below), e.g. into a new table
 *   child_exec(argv, how, prep, arg, secs, out, len)
 *					execv() a program, capturing its output
 *   child_spawn(argv, how, secs, c)	execv() a program, as child_start()
 *   spawn_report() (report.h)		execns() into the "report" mode
 *   child_as_uid(uid)		a child that becomes uid and ends
 *   child_hold(uid, fn, arg)		a child that builds something and
 *					keeps it until child_kill()
 *
 * Only a test whose subject is fork() itself (a limit it must hit, what
 * the kernel does at fork) calls fork() by hand, and says so.
 *
 * The child writes "key value" lines (child_put()), read back with
 * child_val(), "# " lines as diagnostics, and whatever else it defines.
 *
 * Modes: a program that needs code to run in a new program (after execns,
 * which closes every descriptor above 2) re-executes itself,
 * /proc/self/exe, with a mode name in argv[1] and the mode's arguments
 * after it.  main() starts with CHILD_DISPATCH(modes, argc, argv): when
 * argv[1] names a mode of the table, that mode's function runs and its
 * value is the exit status; otherwise main() goes on to the tests.
 */
#ifndef EXECNS_LIB_CHILD_H
#define EXECNS_LIB_CHILD_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <execns.h>
#include "ktap.h"
#include "sys.h"

/* Seconds a whole test program may take, and any one child. */
#define TEST_TIMEOUT	180
#define CHILD_TIMEOUT	120
#define CHILD_NONE	LONG_MIN	/* child_val(): no such key */

/* ------------------------------------------------------------ modes */

struct child_mode {
	const char *name;	/* argv[1] */
	int args;		/* arguments it needs after its name */
	int (*run)(int argc, char **argv);	/* main()'s; argv[1] is the name */
	int (*act)(void);	/* instead of run, for a mode without arguments */
};

/* A mode needing args arguments, run as fn(argc, argv). */
#define CHILD_MODE(name_, args_, fn)	{ .name = name_, .args = args_, .run = fn }
/* A mode without arguments: fn() is all it does. */
#define CHILD_ACT(name_, fn)		{ .name = name_, .act = fn }

#define CHILD_DISPATCH(modes, argc, argv) \
	child_dispatch(modes, sizeof(modes) / sizeof(modes[0]), argc, argv)

/*
 * Run the mode argv[1] names and exit with what it returns; return when it
 * names none.  A mode given too few arguments is an error, not the tests.
 */
static inline void child_dispatch(const struct child_mode *modes, size_t n,
				  int argc, char **argv)
{
	if (argc < 2)
		return;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(argv[1], modes[i].name))
			continue;
		if (argc - 2 < modes[i].args) {
			fprintf(stderr, "%s: mode %s needs %d argument%s\n", argv[0],
				modes[i].name, modes[i].args, modes[i].args == 1 ? "" : "s");
			exit(2);
		}
		exit(modes[i].run ? modes[i].run(argc, argv) : modes[i].act());
	}
}

/* ------------------------------------------------------------ the child's side */

/* One "key value" line, flushed at once (an exec may follow). */
__attribute__((format(printf, 2, 3)))
static inline void child_put(const char *key, const char *fmt, ...)
{
	va_list ap;

	printf("%s ", key);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static inline void child_putl(const char *key, long v)
{
	child_put(key, "%ld", v);
}

/* In a child that stays: stop writing to the test's pipe (so it sees EOF). */
static inline void child_detach(void)
{
	int fd = open("/dev/null", O_RDWR);

	fflush(stdout);
	if (fd >= 0) {
		dup2(fd, 1);
		if (fd > 2)
			close(fd);
	}
}

/* ------------------------------------------------------------ the test's side */

struct child {
	int status;		/* wait status, -1 if none */
	pid_t pid;		/* the child (left running with CHILD_BACKGROUND) */
	int how;		/* child_start()'s */
	int out;		/* CHILD_LIVE: the pipe's end to read, until child_finish() */
	size_t len;		/* of text */
	char comm[16];		/* CHILD_COMM: its name when it ended */
	char text[8192];	/* what it wrote, NUL-terminated */
};

/*
 * child_start()'s how: fd 1 into the pipe, fd 2 too; the child left
 * running once its output ended; return at once (CHILD_LIVE, see
 * child_finish()); keep the ended child's /proc/PID/comm in c->comm before
 * reaping it (whether it got as far as exec'ing what it was to run).
 */
#define CHILD_STDOUT		(1 << 1)
#define CHILD_STDERR		(1 << 2)
#define CHILD_BACKGROUND	(1 << 3)
#define CHILD_LIVE		(1 << 4)
#define CHILD_COMM		(1 << 5)

/* Pass the "# " lines a child printed on as diagnostics of this program. */
static inline void pass_diags(const char *text)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, "# ", 2))
			printf("%.*s\n", (int)strcspn(p, "\n"), p);
	fflush(stdout);
}

/* Wait for pid into c->status (-1 if none), through EINTR. */
static inline void child_reap(pid_t pid, struct child *c)
{
	c->status = -1;
	while (waitpid(pid, &c->status, 0) < 0 && errno == EINTR)
		;
}

/* Its name, from /proc/PID/comm, while it is a zombie not yet reaped. */
static inline void child_read_comm(struct child *c)
{
	siginfo_t si;
	char path[32];

	c->comm[0] = '\0';
	while (waitid(P_PID, c->pid, &si, WEXITED | WNOWAIT) < 0)
		if (errno != EINTR)
			return;
	snprintf(path, sizeof(path), "/proc/%d/comm", c->pid);
	read_text(path, c->comm, sizeof(c->comm));
	c->comm[strcspn(c->comm, "\n")] = '\0';
}

/*
 * Read a CHILD_LIVE child's output on into c->text until it holds stop
 * (NULL: to EOF) or it is full; the "# " lines are passed on by
 * child_finish().  Returns whether stop was seen.
 */
static inline bool child_read_until(struct child *c, const char *stop)
{
	ssize_t n;

	while (c->out >= 0 && !(stop && strstr(c->text, stop)) && c->len + 1 < sizeof(c->text)) {
		n = read(c->out, c->text + c->len, sizeof(c->text) - 1 - c->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		c->len += n;
		c->text[c->len] = '\0';
	}
	return stop && strstr(c->text, stop);
}

/*
 * The end of child_start() for a CHILD_LIVE child (done at once for any
 * other): read its output to EOF, pass its "# " lines on, and reap it
 * (unless CHILD_BACKGROUND), first noting its name with CHILD_COMM.  A test
 * that read and closed c->out itself (more output than c->text holds) sets
 * it to -1 first.
 */
static inline void child_finish(struct child *c)
{
	char sink[4096];
	ssize_t n = 1;

	child_read_until(c, NULL);
	/*
	 * What c->text has no room for is dropped, not left to SIGPIPE a
	 * child about to be reaped (one left running keeps its pipe's fate).
	 */
	while (c->out >= 0 && n != 0 && !(c->how & CHILD_BACKGROUND)) {
		n = read(c->out, sink, sizeof(sink));
		if (n < 0 && errno != EINTR)
			break;
	}
	pass_diags(c->text);
	if (c->out >= 0)
		close(c->out);
	c->out = -1;
	if (c->how & CHILD_BACKGROUND)
		return;
	if (c->how & CHILD_COMM)
		child_read_comm(c);
	child_reap(c->pid, c);
}

/*
 * The protocol: fork; the child has the streams @how names on a pipe, an
 * alarm of @secs (0: none) and runs fn(arg), exiting with its value.  Then
 * child_finish(), unless CHILD_LIVE (a child that stays must call
 * child_detach() first).  0, or -1 when no child could be made.
 */
static inline int child_start(struct child *c, int how, unsigned int secs,
			      int (*fn)(void *), void *arg)
{
	int p[2], ret;
	pid_t pid;

	memset(c, 0, sizeof(*c));
	c->status = -1;
	c->out = -1;
	c->how = how;
	fflush(stdout);
	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		alarm(secs);
		if (how & CHILD_STDOUT)
			dup2(p[1], 1);
		if (how & CHILD_STDERR)
			dup2(p[1], 2);
		/* fn may count or fill the descriptor table: only 0-2 are ours */
		close(p[0]);
		close(p[1]);
		ret = fn(arg);
		/* what fn printed reaches the pipe, as from exit() */
		fflush(NULL);
		_exit(ret);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	c->pid = pid;
	c->out = p[0];
	if (!(how & CHILD_LIVE))
		child_finish(c);
	return 0;
}

/* Run fn(arg) in a child with its stdout on the pipe; fn's value is the exit status. */
static inline int child_run(int (*fn)(void *), void *arg, struct child *c)
{
	return child_start(c, CHILD_STDOUT, CHILD_TIMEOUT, fn, arg);
}

/* The child exited 0 (a wait status; -1: none). */
static inline int exited_ok(int status)
{
	return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static inline int child_ok(const struct child *c)
{
	return exited_ok(c->status);
}

/* The exit status, 128+N for a signal N, or -1 when there is none. */
static inline int child_code(const struct child *c)
{
	if (c->status == -1)
		return -1;
	return WIFEXITED(c->status) ? WEXITSTATUS(c->status) :
	       WIFSIGNALED(c->status) ? 128 + WTERMSIG(c->status) : -1;
}

/* The child's output into out, cut at len - 1. */
static inline void child_copy(const struct child *c, char *out, size_t len)
{
	size_t n = strnlen(c->text, len - 1);

	memcpy(out, c->text, n);
	out[n] = '\0';
}

/* The text after "key " on the first line of text that starts so, or NULL. */
static inline const char *text_key(const char *text, const char *key)
{
	size_t k = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, k) && p[k] == ' ')
			return p + k + 1;
	return NULL;
}

/* The value of the child's first "key N" line, or CHILD_NONE. */
static inline long child_val(const struct child *c, const char *key)
{
	const char *v = text_key(c->text, key);

	return v ? strtol(v, NULL, 10) : CHILD_NONE;
}

/* End a child left running (CHILD_BACKGROUND, child_hold()). */
static inline void child_kill(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
}

/* ------------------------------------------------------------ into a mode */

struct child_into {
	int flags;
	char *argv[16];
};

static inline int child_into_mode(void *arg)
{
	struct child_into *in = arg;

	execns(in->flags, "/proc/self/exe", in->argv, environ);
	child_putl("execns_errno", errno);
	return 99;
}

/*
 * execns(flags) this program into a mode, with stdout on the pipe; a
 * failed execns prints "execns_errno E" and exits 99.  Without wait the
 * child is left running (c->pid) once it closed its stdout.
 */
static inline int child_execns(int flags, const char *mode, const char *const *args, int wait,
			       struct child *c)
{
	struct child_into in = { flags, { "/proc/self/exe", (char *)mode } };
	int i = 2;

	while (args && *args && i < 15)
		in.argv[i++] = (char *)*args++;
	in.argv[i] = NULL;
	return child_start(c, CHILD_STDOUT | (wait ? 0 : CHILD_BACKGROUND), CHILD_TIMEOUT,
			   child_into_mode, &in);
}

/* child_execns into a new uid table, waiting for the mode to end. */
static inline int child_in_table(const char *mode, const char *const *args, struct child *c)
{
	return child_execns(CLONE_NEWUSER, mode, args, 1, c);
}

/* ------------------------------------------------------------ another program */

struct child_prog {
	char *const *argv;
	int (*prep)(void *);
	void *arg;
};

static inline int child_prog_main(void *arg)
{
	struct child_prog *pr = arg;

	if (pr->prep && pr->prep(pr->arg))
		return 98;
	execv(pr->argv[0], pr->argv);
	return 127;
}

/*
 * Run argv[0] (a path) in a child, the streams @how names (CHILD_STDOUT,
 * CHILD_STDERR) going into out (cut at len - 1).  @prep, if not NULL, runs
 * in the child first (drop privileges, install a filter, ...); a nonzero
 * return ends the child with status 98.  The child has @secs seconds.
 * Returns its child_code().  The output is read straight into out, which
 * may be larger than c.text (lsns with its debug output: tens of KiB),
 * and what does not fit is drained, so the program never dies of SIGPIPE.
 */
static inline int child_exec(char *const argv[], int how, int (*prep)(void *), void *arg,
			     unsigned int secs, char *out, size_t len)
{
	struct child_prog pr = { argv, prep, arg };
	struct child c;
	char sink[4096];
	size_t got = 0;
	ssize_t n;

	out[0] = '\0';
	if (child_start(&c, (how & (CHILD_STDOUT | CHILD_STDERR)) | CHILD_LIVE, secs,
			child_prog_main, &pr))
		return -1;
	for (;;) {
		bool fits = got + 1 < len;

		n = read(c.out, fits ? out + got : sink, fits ? len - 1 - got : sizeof(sink));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (fits)
			got += n;
	}
	out[got] = '\0';
	close(c.out);
	c.out = -1;
	pass_diags(out);
	child_finish(&c);
	return child_code(&c);
}

/* Start argv[0] (a path) as child_start() would, e.g. CHILD_LIVE to watch it run. */
static inline int child_spawn(char *const argv[], int how, unsigned int secs, struct child *c)
{
	struct child_prog pr = { argv, NULL, NULL };

	return child_start(c, how, secs, child_prog_main, &pr);
}

static inline int child_become(void *arg)
{
	uid_t uid = *(uid_t *)arg;

	return setresuid(uid, uid, uid) ? 1 : 0;
}

/*
 * A child that becomes uid for good (setresuid) and ends: its user_struct
 * made and dropped in the caller's uid table.  0 if it could.
 */
static inline int child_as_uid(uid_t uid)
{
	struct child c;

	return !child_start(&c, 0, CHILD_TIMEOUT, child_become, &uid) && child_ok(&c) ? 0 : -1;
}

/* ------------------------------------------------------------ holding */

/*
 * A child that becomes uid (setresuid; (uid_t)-1: stays as it is), runs
 * fn(arg) (nonzero = it worked), then keeps what it built until killed (or
 * CHILD_TIMEOUT).  Returns its pid, or -1 when any step failed (it is gone).
 * fn may print on stdout; the child stops writing there once it holds.
 */
static inline pid_t child_hold(uid_t uid, int (*fn)(void *), void *arg)
{
	int p[2];
	pid_t pid;
	char c = 'n';

	fflush(stdout);
	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		alarm(CHILD_TIMEOUT);
		if ((uid == (uid_t)-1 || !setresuid(uid, uid, uid)) && (!fn || fn(arg)))
			c = 'y';
		child_detach();
		if (write(p[1], &c, 1) != 1 || c != 'y')
			_exit(1);
		close(p[1]);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &c, 1) != 1 || c != 'y') {
		if (pid > 0)
			child_kill(pid);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

/* ------------------------------------------------------------ descriptors */

/* Send fd over the unix socket sock (one byte with SCM_RIGHTS): 0 or -1. */
static inline int fd_send(int sock, int fd)
{
	char buf[1] = { 'x' }, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { buf, 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &mh, 0) == 1 ? 0 : -1;
}

/* The descriptor fd_send() sent on sock: >= 0; -1 on a message without one; -2 at EOF. */
static inline int fd_recv(int sock)
{
	char buf[1], cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { buf, 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	int fd = -1;

	if (recvmsg(sock, &mh, 0) <= 0)
		return -2;
	cm = CMSG_FIRSTHDR(&mh);
	if (cm && cm->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/*
 * Tables kept alive cheaply.  A table lives while one of its user_structs
 * does, and an open file holds its opener's cred, hence cred->user.  So
 * the "chain" mode execns()es this program into a new table
 * (CLONE_NEWUSER) again and again; each link opens /dev/null and passes
 * the descriptor back over fd 0 (execns closes fds above 2), then the next
 * exec replaces it.  Each table costs one file and one cred on top of its
 * own memory, instead of a process.  flags < 0: execve instead (the same
 * files, no tables: a baseline).
 */
static inline void chain_next(int left, int flags)
{
	char lbuf[16], fbuf[16];
	char *argv[] = { "/proc/self/exe", "chain", lbuf, fbuf, NULL };

	snprintf(lbuf, sizeof(lbuf), "%d", left);
	snprintf(fbuf, sizeof(fbuf), "%d", flags);
	if (flags < 0)
		execve(argv[0], argv, environ);
	else
		execns(flags, argv[0], argv, environ);
}

/* Mode "chain LEFT FLAGS": one link (see above). */
static inline int child_mode_chain(int argc, char **argv)
{
	int left = atoi(argv[2]), flags = atoi(argv[3]);
	int fd = open("/dev/null", O_RDONLY);

	(void)argc;
	if (fd_send(0, fd))
		return 1;
	close(fd);
	if (left <= 1)
		return 0;
	chain_next(left - 1, flags);
	return 1;
}

#define CHILD_MODE_CHAIN	CHILD_MODE("chain", 2, child_mode_chain)

/*
 * n holders (see child_mode_chain) into fds[]; returns how many were made.
 * The program's modes must include CHILD_MODE_CHAIN.
 */
static inline int hold_tables(int n, int flags, int *fds)
{
	int sv[2], got = 0, fd;
	pid_t pid;

	if (n <= 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 0;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(sv[1], 0);
		close(sv[0]);
		close(sv[1]);
		chain_next(n, flags);
		_exit(127);
	}
	close(sv[1]);
	while (pid > 0 && got < n && (fd = fd_recv(sv[0])) != -2)
		if (fd >= 0)
			fds[got++] = fd;
	close(sv[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return got;
}

/* ------------------------------------------------------------ the program */

/*
 * Start a test program: its KTAP header and plan, and an alarm for the
 * whole of it (a hang fails in minutes, not at the runner's limit).
 */
static inline void test_start(unsigned int plan, unsigned int secs)
{
	ksft_print_header();
	ksft_set_plan(plan);
	if (secs)
		alarm(secs);
}

/* Become the reaper of orphaned descendants (so their zombies, which pin credentials, go). */
static inline void child_subreaper(void)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/* Reap any exited descendants without blocking. */
static inline void child_reap_zombies(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

#endif /* EXECNS_LIB_CHILD_H */
