// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/execns/tables counts what a table's user holds.  uid 1000 in a new
 * table: its line starts at zero; epoll_watches follows EPOLL_CTL_ADD/DEL
 * and close; pipe_bufs grows by 16 pages per default pipe, follows
 * F_SETPIPE_SZ and drops on close; unix_inflight counts a socket passed
 * over SCM_RIGHTS until it is received; locked_vm counts io_uring
 * registered buffers; watches counts a key watch (watch queue); refs grows
 * by one per forked process.
 */
#include <linux/keyctl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include "lib/test.h"

/* From <linux/io_uring.h> and <linux/watch_queue.h>, which clash with <fcntl.h>. */
#define IORING_REGISTER_BUFFERS		0
#define IORING_UNREGISTER_BUFFERS	1
#define IO_URING_PARAMS_SIZE		120	/* struct io_uring_params */
#define O_NOTIFICATION_PIPE		O_EXCL
#define IOC_WATCH_QUEUE_SET_SIZE	_IO('W', 0x60)

#define IO_URING_DISABLED	"/proc/sys/kernel/io_uring_disabled"
#define BUF_PAGES		4
/* This kernel's page size (4 KiB, or 16 KiB on arm64-16k). */
#define PAGE			((int)sysconf(_SC_PAGESIZE))

static long table;

/* A field of this table's uid-1000 line (-1: no such line). */
static long mine(const char *field)
{
	static struct ut_snap s;
	struct ut_user *u;

	ut_snap_read(&s);
	u = ut_find_user(&s, table, UT_UID);
	if (!u)
		return -1;
	if (!strcmp(field, "refs"))
		return u->refs;
	if (!strcmp(field, "epoll_watches"))
		return u->epoll_watches;
	if (!strcmp(field, "pipe_bufs"))
		return u->pipe_bufs;
	if (!strcmp(field, "unix_inflight"))
		return u->unix_inflight;
	if (!strcmp(field, "locked_vm"))
		return u->locked_vm;
	return u->watches;
}

/* Poll (a few seconds) until field reads want; its last value. */
static long mine_becomes(const char *field, long want)
{
	long v = mine(field);

	for (int i = 0; i < UT_RCU_SECS * 10 && v != want; i++) {
		sleep_ms(100);
		v = mine(field);
	}
	return v;
}

static void put_all(const char *prefix)
{
	static const char *const f[] = {
		"epoll_watches", "pipe_bufs", "unix_inflight", "locked_vm", "watches",
	};
	char key[64];

	for (int i = 0; i < 5; i++) {
		snprintf(key, sizeof(key), "%s_%s", prefix, f[i]);
		child_putl(key, mine(f[i]));
	}
}

static void epoll_counts(void)
{
	int ep = epoll_create1(0), fds[7];

	for (int i = 0; i < 7; i++) {
		struct epoll_event ev = { .events = EPOLLIN };

		fds[i] = eventfd(0, 0);
		if (i < 5 && epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev))
			printf("# EPOLL_CTL_ADD: %s\n", strerror(errno));
	}
	child_putl("ep5", mine("epoll_watches"));
	epoll_ctl(ep, EPOLL_CTL_DEL, fds[0], NULL);
	child_putl("ep4", mine("epoll_watches"));
	close(ep);
	child_putl("ep0", mine_becomes("epoll_watches", 0));
	for (int i = 0; i < 7; i++)
		close(fds[i]);
}

static void pipe_counts(void)
{
	int a[2], b[2];

	child_putl("pb0", mine("pipe_bufs"));
	if (pipe(a) || pipe(b))
		return;
	child_putl("pb2", mine("pipe_bufs"));
	child_putl("setsz", fcntl(a[0], F_SETPIPE_SZ, PAGE));
	child_putl("pb_small", mine("pipe_bufs"));
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
	child_putl("pb_closed", mine_becomes("pipe_bufs", 0));
}

static int send_fd(int sock, int fd)
{
	char data = 'x', cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &data, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;

	memset(cbuf, 0, sizeof(cbuf));
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char data, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &data, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	int fd = -1;

	if (recvmsg(sock, &m, 0) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&m);
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

static void unix_counts(void)
{
	int chan[2], passed[2], got;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, chan) || socketpair(AF_UNIX, SOCK_STREAM, 0, passed))
		return;
	child_putl("ui0", mine("unix_inflight"));
	child_putl("ui_sent", send_fd(chan[0], passed[0]) ? -1 : mine("unix_inflight"));
	got = recv_fd(chan[1]);
	child_putl("ui_recv", got >= 0 ? mine_becomes("unix_inflight", 0) : -1);
	if (got >= 0)
		close(got);
}

/* io_uring registered buffers: "lv_skip" (errno) when io_uring is not usable. */
static void locked_counts(void)
{
	char params[IO_URING_PARAMS_SIZE];	/* all zero: no flags */
	struct iovec iov;
	void *buf;
	int ring;

	memset(params, 0, sizeof(params));
	ring = syscall(SYS_io_uring_setup, 4, params);
	if (ring < 0) {
		child_putl("lv_skip", errno);
		return;
	}
	buf = mmap(NULL, BUF_PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return;
	memset(buf, 1, BUF_PAGES * PAGE);
	iov.iov_base = buf;
	iov.iov_len = BUF_PAGES * PAGE;
	child_putl("lv0", mine("locked_vm"));
	if (syscall(SYS_io_uring_register, ring, IORING_REGISTER_BUFFERS, &iov, 1)) {
		child_putl("lv_regerr", errno);
		return;
	}
	child_putl("lv_reg", mine("locked_vm"));
	syscall(SYS_io_uring_register, ring, IORING_UNREGISTER_BUFFERS, NULL, 0);
	close(ring);
	child_putl("lv_unreg", mine_becomes("locked_vm", 0));
}

/* A watch on a new keyring: "w_skip" (errno) when watch queues are not usable. */
static void watch_counts(void)
{
	long key;
	int p[2];

	if (pipe2(p, O_NOTIFICATION_PIPE) || ioctl(p[0], IOC_WATCH_QUEUE_SET_SIZE, 1)) {
		child_putl("w_skip", errno);
		return;
	}
	key = syscall(SYS_add_key, "keyring", "uidtab", NULL, 0, KEY_SPEC_PROCESS_KEYRING);
	child_putl("w0", mine("watches"));
	if (key < 0 || syscall(SYS_keyctl, KEYCTL_WATCH_KEY, key, p[0], 0x01)) {
		child_putl("w_skip", errno);
		return;
	}
	child_putl("w1", mine("watches"));
	close(p[0]);
	close(p[1]);
	child_putl("w_closed", mine_becomes("watches", 0));
}

/* Two forked processes: "refs_forked" and "refs_back", relative to before. */
static void refs_counts(void)
{
	long r0 = mine("refs");
	pid_t a = child_hold((uid_t)-1, NULL, NULL), b = child_hold((uid_t)-1, NULL, NULL);

	/* ut_hold's pipes hold references too, until the children close their ends. */
	child_putl("refs_forked", a > 0 && b > 0 ? mine_becomes("refs", r0 + 2) - r0 : -1);
	child_kill(a);
	child_kill(b);
	child_putl("refs_back", mine_becomes("refs", r0) - r0);
}

static int mode_counters(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	table = ut_self();
	child_putl("self", table);
	if (setresuid(UT_UID, UT_UID, UT_UID))
		return 2;
	put_all("fresh");
	refs_counts();	/* first: later steps leave credentials and rings to go after RCU */
	epoll_counts();
	pipe_counts();
	unix_counts();
	locked_counts();
	watch_counts();
	return 0;
}

static const struct child_mode modes[] = {
	UT_MODES,
	CHILD_MODE("counters", 0, mode_counters),
};

int main(int argc, char **argv)
{
	char disabled[32] = "", name[64];
	struct child o;
	int tables0, left;
	long t;

	CHILD_DISPATCH(modes, argc, argv);

	tables0 = ut_start(11);
	/* Let an unprivileged uid use io_uring for the locked_vm count (6.6+). */
	read_line(IO_URING_DISABLED, disabled, sizeof(disabled));
	if (disabled[0] && strcmp(disabled, "0"))
		write_knob(IO_URING_DISABLED, "0");
	child_in_table("counters", NULL, &o);
	if (disabled[0] && strcmp(disabled, "0"))
		write_knob(IO_URING_DISABLED, disabled);
	t = child_val(&o, "self");

	ksft_test_result(t > 0 && child_ok(&o) && child_val(&o, "fresh_epoll_watches") == 0 &&
			 child_val(&o, "fresh_pipe_bufs") == 0 && child_val(&o, "fresh_unix_inflight") == 0 &&
			 child_val(&o, "fresh_locked_vm") == 0 && child_val(&o, "fresh_watches") == 0,
			 "table %ld: uid 1000's line after setresuid(1000) has every counter at 0 (%ld %ld %ld %ld %ld)",
			 t, child_val(&o, "fresh_epoll_watches"), child_val(&o, "fresh_pipe_bufs"),
			 child_val(&o, "fresh_unix_inflight"), child_val(&o, "fresh_locked_vm"),
			 child_val(&o, "fresh_watches"));
	ksft_test_result(child_val(&o, "ep5") == 5 && child_val(&o, "ep4") == 4,
			 "epoll_watches: 5 after 5 EPOLL_CTL_ADDs (%ld), 4 after an EPOLL_CTL_DEL (%ld)",
			 child_val(&o, "ep5"), child_val(&o, "ep4"));
	ksft_test_result(child_val(&o, "ep0") == 0, "epoll_watches: 0 once the epoll descriptor is closed (%ld)",
			 child_val(&o, "ep0"));
	ksft_test_result(child_val(&o, "pb0") == 0 && child_val(&o, "pb2") == 32,
			 "pipe_bufs: 16 pages per new pipe (%ld -> %ld after two)",
			 child_val(&o, "pb0"), child_val(&o, "pb2"));
	ksft_test_result(child_val(&o, "setsz") == PAGE && child_val(&o, "pb_small") == 17 &&
			 child_val(&o, "pb_closed") == 0,
			 "pipe_bufs: %ld after F_SETPIPE_SZ(one page) on one (want 17), %ld once both are closed",
			 child_val(&o, "pb_small"), child_val(&o, "pb_closed"));
	ksft_test_result(child_val(&o, "ui0") == 0 && child_val(&o, "ui_sent") == 1 && child_val(&o, "ui_recv") == 0,
			 "unix_inflight: %ld, %ld with a socket in flight over SCM_RIGHTS, %ld once received",
			 child_val(&o, "ui0"), child_val(&o, "ui_sent"), child_val(&o, "ui_recv"));
	if (child_val(&o, "lv_skip") != CHILD_NONE) {
		snprintf(name, sizeof(name), "locked_vm (errno %ld)", child_val(&o, "lv_skip"));
		ksft_test_result_code(KSFT_SKIP, name, "io_uring_setup() not usable");
		ksft_test_result_code(KSFT_SKIP, "locked_vm back to 0", "io_uring_setup() not usable");
	} else {
		ksft_test_result(child_val(&o, "lv0") == 0 && child_val(&o, "lv_reg") == BUF_PAGES,
				 "locked_vm: %ld pages with a %d-page io_uring buffer registered (from %ld; register errno %ld)",
				 child_val(&o, "lv_reg"), BUF_PAGES, child_val(&o, "lv0"),
				 child_val(&o, "lv_regerr") == CHILD_NONE ? 0 : child_val(&o, "lv_regerr"));
		ksft_test_result(child_val(&o, "lv_unreg") == 0,
				 "locked_vm: %ld once unregistered", child_val(&o, "lv_unreg"));
	}
	if (child_val(&o, "w_skip") != CHILD_NONE) {
		snprintf(name, sizeof(name), "watches (errno %ld)", child_val(&o, "w_skip"));
		ksft_test_result_code(KSFT_SKIP, name, "no watch queue / key notifications");
	} else {
		ksft_test_result(child_val(&o, "w0") == 0 && child_val(&o, "w1") == 1 && child_val(&o, "w_closed") == 0,
				 "watches: %ld, %ld with a key watched through a notification pipe, %ld once it is closed",
				 child_val(&o, "w0"), child_val(&o, "w1"), child_val(&o, "w_closed"));
	}
	ksft_test_result(child_val(&o, "refs_forked") == 2 && child_val(&o, "refs_back") == 0,
			 "refs: +%ld with two forked processes, +%ld after they exit",
			 child_val(&o, "refs_forked"), child_val(&o, "refs_back"));
	left = ut_wait_tables(tables0, UT_RCU_SECS);
	ksft_test_result(tables0 >= 0 && left == tables0,
			 "the table is gone with its process (%d left, %d before)", left, tables0);
	ksft_finished();
}
