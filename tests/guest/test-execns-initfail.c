// SPDX-License-Identifier: GPL-2.0
/*
 * A module init that fails after its syscall slot is armed.  The module is
 * reloaded with fail_init=1: init arms the probes on the spare number,
 * waits 2 s, then fails with EAGAIN (module/fault.c).  Meanwhile a child
 * calls the number as fast as it can.  Every call must be ENOSYS: the slot
 * opens only once init cannot fail (module/slot.c), since a caller let in
 * earlier would be running module text that the failed init frees.  Then
 * nothing of the module stays, and it loads again with the runner's
 * parameters and answers.
 */
#include <sys/mman.h>
#include "lib/test.h"

#define INIT_LINE	"fail_init: failing module init after the syscall slot was armed"

#define INITSTATE	EXECNS_SYSFS_MODULE "/initstate"

struct spin {
	volatile int stop;
	long calls, coming, enosys, other, last_errno;
};

/* Whether the module is loading: its init running, the slot maybe armed. */
static int coming(void)
{
	char state[32] = "";

	read_line(INITSTATE, state, sizeof(state));
	return !strcmp(state, "coming");
}

/*
 * Calls @nr until told to stop, counting how each call ends, and the
 * calls made while the module was loading.
 */
static void spin(struct spin *s, long nr)
{
	while (!s->stop) {
		int loading = coming();
		long ret = syscall(nr, 0L, "/no/such/program", NULL, NULL);

		s->calls++;
		s->coming += loading && coming();
		if (ret == -1 && errno == ENOSYS) {
			s->enosys++;
		} else {
			s->other++;
			s->last_errno = ret == -1 ? errno : 0;
		}
	}
	_exit(0);
}

static int log_has(const char *what)
{
	return kernel_log_count(NULL, what, INT_MAX);
}

int main(void)
{
	struct spin *s;
	long nr = execns_nr(), ret;
	int err, status, lines;
	pid_t pid;

	test_start(5, 120);
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (nr < 0 || s == MAP_FAILED) {
		ksft_print_msg("no syscall number (%ld) or no shared page\n", nr);
		return 1;
	}

	err = execns_rmmod(10);
	ksft_test_result(!err, "the module unloads (errno %d)\n", err);

	lines = log_has(INIT_LINE);
	pid = fork();
	if (pid == 0)
		spin(s, nr);
	err = execns_insmod("fail_init=1");
	s->stop = 1;
	waitpid(pid, &status, 0);
	ksft_test_result(err == EAGAIN && !execns_loaded() && access(EXECNS_PROC_DIR, F_OK) &&
			 log_has(INIT_LINE) == lines + 1,
			 "insmod fail_init=1 fails with EAGAIN after arming the slot, and nothing of the module stays (errno %d, loaded %d, /proc/execns %s)\n",
			 err, execns_loaded(), access(EXECNS_PROC_DIR, F_OK) ? "gone" : "still there");
	ksft_test_result(s->coming > 0 && s->other == 0,
			 "while init could still fail, every call to syscall %ld was ENOSYS (%ld calls, %ld of them while the module was loading, %ld ENOSYS, %ld answered, last errno %ld)\n",
			 nr, s->calls, s->coming, s->enosys, s->other, s->last_errno);

	err = execns_insmod("");
	ksft_test_result(!err && execns_loaded(),
			 "loaded again with the runner's parameters (errno %d)\n", err);
	ret = syscall(execns_nr(), 0L, "/no/such/program", NULL, NULL);
	err = errno;
	ksft_test_result(ret == -1 && err == ENOENT,
			 "execns answers on syscall %ld again (ENOENT for a missing program; errno %d)\n",
			 execns_nr(), err);
	ksft_finished();
}
