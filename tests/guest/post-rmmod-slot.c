// SPDX-License-Identifier: GPL-2.0
/*
 * After rmmod: the syscall slots answer ENOSYS again, libexecns says
 * ENOSYS, and the CLI explains in one line that the module is not loaded.
 * Built for x86_64 and i386 (post-rmmod-slot-32), for arm64 and
 * AArch32 (post-rmmod-slot-32 there), and for s390x.
 */
#include "lib/child.h"

#if defined(__i386__)
#define ABI "i386"
#define SLOT 285
#elif defined(__arm__)
#define ABI "AArch32"
#define SLOT 223
#elif defined(__aarch64__)
#define ABI "arm64"
#define SLOT 400
#elif defined(__s390x__)
#define ABI "s390x"
#define SLOT 403
#else
#define ABI "x86_64"
#define SLOT 400
#endif

int main(void)
{
	char out[1024];
	int p[2], status;
	long ret;
	pid_t pid;

	alarm(TEST_TIMEOUT);
	ksft_print_header();
	ksft_set_plan(3);
	ret = syscall(SLOT, CLONE_NEWUTS, "/bin/true", (char *[]){ "true", NULL }, environ);
	ksft_test_result(ret == -1 && errno == ENOSYS, "%s: default slot %d answers ENOSYS (errno %d)",
			 ABI, SLOT, errno);

	ret = execns(CLONE_NEWUTS, "/bin/true", (char *[]){ "true", NULL }, environ);
	ksft_test_result(ret == -1 && errno == ENOSYS, "%s: libexecns returns ENOSYS (errno %d)", ABI, errno);

	if (pipe(p))
		return 1;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 2);
		execl("/usr/local/bin/execns", "execns", "--uts", "true", (char *)NULL);
		_exit(99);
	}
	close(p[1]);
	read_all(p[0], out, sizeof(out));
	waitpid(pid, &status, 0);
	ksft_print_msg("execns says: %s\n", strtok(out, "\n") ? out : "(nothing)");
	ksft_test_result(WIFEXITED(status) && WEXITSTATUS(status) == 125 && strstr(out, "not loaded") &&
			 !strchr(out, '\n'),
			 "the CLI exits 125 with one line saying the module is not loaded");
	ksft_finished();
}
