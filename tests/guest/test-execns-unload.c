// SPDX-License-Identifier: GPL-2.0
/*
 * The module cannot be unloaded while a call is inside execns(2).  A call
 * is held inside the kernel: its filename lies on a page registered with
 * userfaultfd, so the kernel's copy of the name waits until this program
 * supplies the page.  Meanwhile the module's reference count is up by one
 * and delete_module(O_NONBLOCK) must fail; once the page is supplied the
 * call completes (a new program in a new UTS namespace) and the reference
 * is dropped again.  A second call, with a uid table and namespaces
 * prepared, is killed while held: the reference, the table and its
 * user_struct all go with it.
 */
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include "lib/test.h"

#define REFCNT	EXECNS_SYSFS_MODULE "/refcnt"
#define PAGE	4096

/* The child's ends of the control and go pipes (ctl[1], go[0]), the test's. */
static int ctl[2], go[2];
static int uffd, ctl_wr, go_rd, call_flags = CLONE_NEWUTS;
static char *page;

/* Resolves the fault once the parent says so; the exec then ends this thread. */
static void *handler(void *arg)
{
	struct pollfd pfd = { .fd = uffd, .events = POLLIN };
	struct uffd_msg msg;
	struct uffdio_copy copy;
	char *src, c;

	(void)arg;
	if (poll(&pfd, 1, 20000) != 1 || read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT) {
		dprintf(ctl_wr, "nofault\n");
		_exit(1);
	}
	dprintf(ctl_wr, "blocked %#llx\n", (unsigned long long)msg.arg.pagefault.address);
	if (read(go_rd, &c, 1) != 1)
		_exit(1);
	src = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (src == MAP_FAILED)
		_exit(1);
	strcpy(src, "/proc/self/exe");
	copy = (struct uffdio_copy){ .dst = (unsigned long)page, .src = (unsigned long)src,
				     .len = PAGE };
	if (ioctl(uffd, UFFDIO_COPY, &copy)) {
		dprintf(ctl_wr, "copy failed %d\n", errno);
		_exit(1);
	}
	for (;;)
		pause();
	return NULL;
}

/* The child: a call held on the registered page, the handler thread waiting for "go". */
static int child(void *arg)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	char *argv[] = { "/proc/self/exe", "report", NULL };
	pthread_t t;

	(void)arg;
	close(ctl[0]);
	close(go[1]);
	ctl_wr = ctl[1];
	go_rd = go[0];
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (uffd < 0) {
		dprintf(ctl_wr, "skip userfaultfd() fails with errno %d (%s)\n", errno, strerror(errno));
		return 0;
	}
	if (ioctl(uffd, UFFDIO_API, &api)) {
		dprintf(ctl_wr, "skip UFFDIO_API fails with errno %d\n", errno);
		return 0;
	}
	page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	reg = (struct uffdio_register){ .range = { (unsigned long)page, PAGE },
					.mode = UFFDIO_REGISTER_MODE_MISSING };
	if (page == MAP_FAILED || ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		dprintf(ctl_wr, "skip UFFDIO_REGISTER fails with errno %d\n", errno);
		return 0;
	}
	if (pthread_create(&t, NULL, handler, NULL))
		return 1;
	execns(call_flags, page, argv, environ);
	dprintf(ctl_wr, "errno %d\n", errno);
	return 99;
}

/* A held call with a uid table and namespaces prepared, killed by SIGKILL. */
static void kill_while_held(long base)
{
	char line[128] = "";
	long tables = -1;
	struct child c;
	ssize_t n;

	if (pipe(ctl) || pipe(go))
		return;
	call_flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWNET;
	if (child_start(&c, CHILD_LIVE, 60, child, NULL))
		return;
	close(ctl[1]);
	close(go[0]);
	n = read(ctl[0], line, sizeof(line) - 1);
	line[n > 0 ? n : 0] = '\0';
	tables = execns_stat(EXECNS_STAT_TABLES);
	kill(c.pid, SIGKILL);
	child_finish(&c);
	/*
	 * The table, its user_structs and the module reference of the
	 * killed call go asynchronously (RCU, the network namespace's
	 * cleanup work): all three get the same 30 s bound.  The refcount
	 * was read once, at once, and CI saw it at 1 a moment after the
	 * table and users were gone (backports, once).
	 */
	for (int i = 0; i < 300 && (execns_stat(EXECNS_STAT_TABLES) || execns_stat(EXECNS_STAT_USERS) ||
				    read_long(REFCNT) != base); i++)
		usleep(100000);
	ksft_test_result(!strncmp(line, "blocked", 7) && tables == 1 && WIFSIGNALED(c.status) &&
			 WTERMSIG(c.status) == SIGKILL,
			 "a held execns(CLONE_NEWUSER|NS|UTS|NET), its table prepared (%ld), dies by SIGKILL", tables);
	ksft_test_result(read_long(REFCNT) == base && execns_stat(EXECNS_STAT_TABLES) == 0 && execns_stat(EXECNS_STAT_USERS) == 0,
			 "and leaves nothing: refcnt %ld (was %ld), %ld tables, %ld user_structs",
			 read_long(REFCNT), base, execns_stat(EXECNS_STAT_TABLES), execns_stat(EXECNS_STAT_USERS));
	close(ctl[0]);
	close(go[1]);
}

static const struct child_mode modes[] = { CHILD_MODE_REPORT };

int main(int argc, char **argv)
{
	char line[128] = "", sysc[256] = "", path[64];
	unsigned long uts = ns_inode("uts");
	long base, during, after;
	int first_field = -1;
	struct report r;
	struct child c;
	long ret;
	int e;

	CHILD_DISPATCH(modes, argc, argv);
	test_start(6, TEST_TIMEOUT);
	/* Armed uid hooks with no table hold the module until disarmed. */
	wait_disarmed(UT_RCU_SECS);
	base = read_long(REFCNT);
	if (pipe(ctl) || pipe(go) || child_start(&c, CHILD_STDOUT | CHILD_LIVE, 60, child, NULL))
		return 1;
	close(ctl[1]);
	close(go[0]);

	/* Wait for the call to be held inside the kernel (or for a reason it cannot). */
	{
		ssize_t n = read(ctl[0], line, sizeof(line) - 1);

		line[n > 0 ? n : 0] = '\0';
	}
	if (!strncmp(line, "skip ", 5)) {
		line[strcspn(line, "\n")] = '\0';
		for (int i = 0; i < 6; i++) {
			char name[96];

			snprintf(name, sizeof(name),
				 "the module cannot be unloaded while a call is inside execns (%d)", i + 1);
			ksft_test_result_code(KSFT_SKIP, name, "%s", line + 5);
		}
		child_finish(&c);
		ksft_finished();
	}
	snprintf(path, sizeof(path), "/proc/%d/syscall", c.pid);
	read_text(path, sysc, sizeof(sysc));
	sscanf(sysc, "%d", &first_field);
	during = read_long(REFCNT);
	ksft_print_msg("child: %s\n", strtok(line, "\n") ? line : "(nothing)");
	ksft_test_result(!strncmp(line, "blocked", 7) && first_field == execns_nr() && during == base + 1,
			 "a call held inside execns (in syscall %d) holds a module reference: refcnt %ld -> %ld",
			 first_field, base, during);

	ret = syscall(SYS_delete_module, "execns", O_NONBLOCK);
	e = errno;
	ksft_test_result(ret == -1 && (e == EWOULDBLOCK || e == EBUSY) && !access(REFCNT, F_OK),
			 "delete_module(\"execns\", O_NONBLOCK) fails meanwhile (%ld, errno %d: %s) and the module stays",
			 ret, e, strerror(e));

	if (write(go[1], "g", 1) != 1)
		ksft_print_msg("cannot wake the fault handler\n");
	child_finish(&c);
	memset(&r, 0, sizeof(r));
	parse_report(&r, c.text, 0);
	ksft_test_result(child_ok(&c) && r.ok && r.pid == c.pid && r.ns[NS_UTS] && r.ns[NS_UTS] != uts,
			 "once the page is there the call completes: pid %d runs the new program in uts:[%lu]",
			 r.pid, r.ns[NS_UTS]);

	after = read_long(REFCNT);
	ksft_test_result(after == base, "the reference is dropped when the call has returned (refcnt %ld)", after);
	close(ctl[0]);
	close(go[1]);
	kill_while_held(base);
	ksft_finished();
}
