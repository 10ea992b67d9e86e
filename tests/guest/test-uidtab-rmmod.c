// SPDX-License-Identifier: GPL-2.0
/*
 * A uid table pins the module: rmmod is refused while a process lives in
 * one, and succeeds once the last has gone.  The module is loaded again
 * afterwards (with the runner's parameters) for the tests that follow.
 */
#include <sched.h>
#include <sys/syscall.h>
#include "guest-util.h"
#include "ktap.h"

#define KO "/lib/modules/execns.ko"

static int rmmod(void)
{
	return syscall(SYS_delete_module, "execns", O_NONBLOCK);
}

static int insmod(void)
{
	char params[256] = "";
	FILE *f = fopen("/etc/execns/params", "r");
	int fd, ret;

	if (f) {
		if (!fgets(params, sizeof(params), f))
			params[0] = '\0';
		params[strcspn(params, "\n")] = '\0';
		fclose(f);
	}
	fd = open(KO, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, params, 0);
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	char *sleeper[] = { argv[0], "sleep", NULL };
	int ret = -1, err = 0;
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "sleep")) {
		pause();
		return 0;
	}
	ktap_plan(4);

	pid = fork();
	if (pid == 0) {
		execns(CLONE_NEWUSER, "/proc/self/exe", sleeper, environ);
		_exit(99);
	}
	for (int i = 0; i < 100 && execns_stat("tables") < 1; i++)
		usleep(50000);
	ret = rmmod();
	err = errno;
	ktap_result(ret == -1 && (err == EWOULDBLOCK || err == EBUSY),
		    "rmmod is refused while a process lives in a uid table (errno %d)", err);
	ktap_result(access("/proc/execns/tables", R_OK) == 0, "the module is still there");

	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* Credentials, hence user_structs and the table, go after RCU. */
	for (int i = 0; i < 100; i++) {
		ret = rmmod();
		err = errno;
		if (!ret)
			break;
		usleep(50000);
	}
	ktap_result(ret == 0, "rmmod succeeds once the table's last process has gone (errno %d)",
		    ret ? err : 0);
	ret = insmod();
	ktap_result(ret == 0 && access(EXECNS_SYSFS_NR_FILE, R_OK) == 0,
		    "the module loads again (for the tests that follow)");
	return ktap_finish();
}
