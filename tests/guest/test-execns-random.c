// SPDX-License-Identifier: GPL-2.0
/*
 * Random arguments, for a fixed time (EXECNS_RANDOM_SECS, default 20):
 * each call runs in a child of its own, with a flag word of random valid,
 * unknown and high bits; a path, argv and envp each valid, NULL,
 * unmapped, a kernel address, too long or too many; as root or as uid
 * 65534; alone, with a second thread, or from that thread; and some
 * children are killed at a random moment of the call.  Asserted: no child
 * dies of anything but the kill it was sent; every refusal is an errno
 * execns(2) documents; a valid call (known flags, valid arguments, root)
 * always execs; and nothing is left behind: the module's tables,
 * user_structs and ucounts (/proc/execns/stats); on a kernel with
 * execns(2) of its own, which counts none of them, no uid table or
 * namespace holding a namespace inode number (lib/ns.h's ns_inums), the
 * user_structs and ucounts skipped.  The seed is printed, so a failure
 * can be replayed (EXECNS_RANDOM_SEED).
 */
#include <pthread.h>
#include <sys/mman.h>
#include <time.h>
#include "lib/test.h"

#define KERNEL_PTR	((void *)0xffffffff81000000UL)
#define RAN_EXIT	42	/* the new program */
#define BAD_ERRNO	3	/* the call failed with an undocumented errno */
#define EXEC_FAILED	4	/* a valid call did not exec */

static const int documented[] = {
	EINVAL, EFAULT, ENOENT, ENAMETOOLONG, E2BIG, EPERM, EACCES, ENOEXEC,
	ENOMEM, ENOSPC, EBUSY, ENOTDIR, ELOOP, EAGAIN, EUSERS,
};

static void *unmapped;
static char *long_path;
static char **many_args;

static int is_documented(int e)
{
	for (size_t i = 0; i < sizeof(documented) / sizeof(documented[0]); i++)
		if (documented[i] == e)
			return 1;
	return 0;
}

/* One of: 0 valid, 1 NULL, 2 unmapped, 3 kernel address, 4 too long/many. */
static int pick(unsigned int *seed, int max)
{
	return rand_r(seed) % (max + 1);
}

struct call {
	long flags;
	const void *path, *argv, *envp;
	int valid, nobody, threaded, from_thread;
	long ret;
	int err;
};

static void *spin(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void *call_thread(void *arg)
{
	struct call *c = arg;

	c->ret = raw_execns(c->flags, c->path, c->argv, c->envp);
	c->err = errno;
	return NULL;
}

static void make_call(struct call *c, unsigned int *seed)
{
	static char *ok_argv[] = { "/proc/self/exe", "random", NULL };
	static const long ns[] = { CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWNS, CLONE_NEWNET,
				   CLONE_NEWPID, CLONE_NEWCGROUP, CLONE_NEWTIME, CLONE_NEWUSER };
	int p = pick(seed, 5), a = pick(seed, 4), e = pick(seed, 4), extra = pick(seed, 7);
	int good = rand_r(seed) % 2;	/* half the calls have valid arguments */

	if (good)
		p = a = e = extra = 0;

	c->flags = 0;
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		if (rand_r(seed) % 3 == 0)
			c->flags |= ns[i];
	if (extra == 1)
		c->flags |= CLONE_VM;
	else if (extra == 2)
		c->flags |= 1L << (32 + rand_r(seed) % 31);
	c->path = p == 0 ? "/proc/self/exe" : p == 1 ? NULL : p == 2 ? unmapped :
		  p == 3 ? KERNEL_PTR : p == 4 ? long_path : "/no/such/program";
	c->argv = a == 0 ? (void *)ok_argv : a == 1 ? NULL : a == 2 ? unmapped :
		  a == 3 ? KERNEL_PTR : (void *)many_args;
	c->envp = e == 0 ? (void *)environ : e == 1 ? NULL : e == 2 ? unmapped :
		  e == 3 ? KERNEL_PTR : (void *)many_args;
	c->nobody = !good && rand_r(seed) % 5 == 0;
	c->threaded = rand_r(seed) % 4 == 0;
	c->from_thread = c->threaded && rand_r(seed) % 2;
	/* NULL argv or envp is accepted by execve (an empty vector). */
	c->valid = p == 0 && a <= 1 && e <= 1 && extra != 1 && extra != 2 && !c->nobody;
}

/* The file a child leaves before its call, so that the new program knows. */
static const char *marker(pid_t pid)
{
	static char path[64];

	snprintf(path, sizeof(path), "/tmp/execns-random.%d", (int)pid);
	return path;
}

/* The child: one call.  Exits 0 on a documented refusal, RAN_EXIT via the new program. */
static int child(void *arg)
{
	struct call *c = arg;
	pthread_t t;

	close(open(marker(getpid()), O_CREAT | O_WRONLY | O_CLOEXEC, 0666));
	if (c->nobody && drop_to_nobody())
		return 0;
	if (c->threaded && pthread_create(&t, NULL, c->from_thread ? call_thread : spin, c))
		return 0;
	if (c->from_thread) {
		pthread_join(t, NULL);
	} else {
		c->ret = raw_execns(c->flags, c->path, c->argv, c->envp);
		c->err = errno;
	}
	if (!is_documented(c->err)) {
		printf("# undocumented errno %d (%s) for flags %#lx\n", c->err, strerror(c->err), c->flags);
		fflush(stdout);
		return BAD_ERRNO;
	}
	if (c->valid && c->err != ENOMEM && c->err != ENOSPC) {
		printf("# a valid call failed: errno %d (%s), flags %#lx%s\n", c->err,
		       strerror(c->err), c->flags, c->from_thread ? ", from a thread" : "");
		fflush(stdout);
		return EXEC_FAILED;
	}
	return 0;
}

static void setup(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t n = 200000;

	unmapped = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(unmapped, page);
	long_path = malloc(8192);
	memset(long_path, 'a', 8191);
	long_path[0] = '/';
	long_path[8191] = '\0';
	/* More argument bytes than any stack limit allows: E2BIG. */
	many_args = calloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		many_args[i] = long_path + 8191 - 100;
}

/* The module: its counters of what the calls made, back to 0. */
static void left_module(void)
{
	for (int i = 0; i < 300 && (execns_stat(EXECNS_STAT_TABLES) || execns_stat(EXECNS_STAT_USERS) || execns_stat(EXECNS_STAT_UCOUNTS)); i++)
		usleep(100000);
	ksft_test_result(!execns_stat(EXECNS_STAT_TABLES) && !execns_stat(EXECNS_STAT_USERS) && !execns_stat(EXECNS_STAT_UCOUNTS),
			 "nothing left behind: tables %ld, users %ld, ucounts %ld",
			 execns_stat(EXECNS_STAT_TABLES), execns_stat(EXECNS_STAT_USERS), execns_stat(EXECNS_STAT_UCOUNTS));
}

/* The kernel's own execns(2): the namespace numbers in use, as before. */
static void left_in_tree(const struct ns_inums *before, int before_ok)
{
	unsigned long first = 0;
	int taken = before_ok ? ns_inums_settle(before, 30, &first) : -1;

	if (taken < 0)
		ksft_print_msg("a snapshot of the namespace numbers failed (%s)\n",
			       before_ok ? "after the calls" : "before them");
	ksft_test_result(taken == 0,
			 "nothing left behind: no uid table or namespace holds one of the %d lowest namespace inode numbers free before the calls (%d taken, first %lu)",
			 NS_INUMS, taken, first);
	ksft_test_result_code(KSFT_SKIP, "nothing left behind: user_structs and ucounts",
			      "module only: the kernel's own execns(2) keeps them in its uid and ucounts hashes, which count nothing per table (the module's /proc/execns/stats does)");
}

int main(int argc, char **argv)
{
	static struct ns_inums inums;
	long secs, calls = 0, execs = 0, refused = 0, killed = 0, bad = 0, valid = 0;
	const char *s = getenv("EXECNS_RANDOM_SECS"), *sd = getenv("EXECNS_RANDOM_SEED");
	unsigned int seed = sd ? (unsigned int)strtoul(sd, NULL, 0) : (unsigned int)time(NULL);
	int in_tree, inums_ok;
	time_t end;

	/*
	 * The new program, whatever argv and envp it got: its process left a
	 * marker before the call.
	 */
	if (access(marker(getpid()), F_OK) == 0) {
		unlink(marker(getpid()));
		return RAN_EXIT;
	}
	(void)argc;
	(void)argv;
	secs = s ? strtol(s, NULL, 10) : 20;
	setup();
	in_tree = execns_in_tree();
	test_start(in_tree ? 5 : 4, 0);
	ksft_print_msg("seed %u, %ld s (EXECNS_RANDOM_SEED, EXECNS_RANDOM_SECS)\n", seed, secs);
	inums_ok = in_tree && !ns_inums_read(&inums);
	end = time(NULL) + secs;
	while (time(NULL) < end) {
		struct call c;
		int st, kill_it = rand_r(&seed) % 6 == 0;
		long delay_us = rand_r(&seed) % 3000;
		struct child ch;
		pid_t pid;

		make_call(&c, &seed);
		if (child_start(&ch, CHILD_LIVE, 30, child, &c))
			break;
		pid = ch.pid;
		calls++;
		valid += c.valid;
		if (kill_it) {
			usleep(delay_us);
			kill(pid, SIGKILL);
		}
		child_finish(&ch);
		st = ch.status;
		if (st == -1)
			break;
		unlink(marker(pid));
		if (WIFEXITED(st) && WEXITSTATUS(st) == RAN_EXIT) {
			execs++;
		} else if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			refused++;
		} else if (kill_it && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) {
			killed++;
		} else {
			bad++;
			ksft_print_msg("call %ld: flags %#lx path %p argv %p envp %p%s%s: %s %d\n",
				       calls, c.flags, c.path, c.argv, c.envp, c.nobody ? " nobody" : "",
				       c.threaded ? " threaded" : "",
				       WIFSIGNALED(st) ? "signal" : "exit",
				       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		}
	}
	ksft_test_result(calls >= 10, "%ld random calls in %ld s (%ld valid), %ld execs, %ld refused, %ld killed on purpose",
			 calls, secs, valid, execs, refused, killed);
	ksft_test_result(!bad, "no caller died of anything but the kill it was sent, every refusal a documented errno, every valid call exec'd (%ld bad)",
			 bad);
	ksft_test_result(execs > 0 && refused > 0, "both outcomes were seen (%ld execs, %ld refusals)", execs, refused);
	if (in_tree)
		left_in_tree(&inums, inums_ok);
	else
		left_module();
	ksft_finished();
}
