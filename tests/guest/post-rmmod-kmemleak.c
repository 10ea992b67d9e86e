// SPDX-License-Identifier: GPL-2.0
/*
 * After the suite and rmmod: kmemleak (CONFIG_DEBUG_KMEMLEAK, the debug
 * kernel of the matrix) finds no unreferenced object.  Two scans, as
 * kmemleak's documentation advises: an object whose contents changed since
 * the previous scan is not reported yet, and neither is one younger than
 * about 5 s, hence the wait before them.  Each leak's report (size,
 * comm, backtrace) is printed as diagnostics.  Debian's stock kernels have
 * no kmemleak: there this skips.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "lib/test.h"

#define KMEMLEAK	"/sys/kernel/debug/kmemleak"
#define MIN_AGE		6	/* seconds: kmemleak skips younger objects */
#define SHOW_LINES	200

/* Write CMD to the kmemleak file: 0, or the errno. */
static int kmemleak_cmd(const char *cmd)
{
	int fd = open(KMEMLEAK, O_WRONLY), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, cmd, strlen(cmd)) < 0)
		err = errno;
	close(fd);
	return err;
}

/* Count the reported objects, printing up to SHOW_LINES lines of the report. */
static int read_report(void)
{
	FILE *f = fopen(KMEMLEAK, "r");
	char line[512];
	int objects = 0, shown = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "unreferenced object"))
			objects++;
		if (shown++ < SHOW_LINES)
			ksft_print_msg("%s\n", strtok(line, "\n") ?: "");
	}
	fclose(f);
	if (shown > SHOW_LINES)
		ksft_print_msg("... %d more lines in \n" KMEMLEAK, shown - SHOW_LINES);
	return objects;
}

int main(void)
{
	int err1, err2, objects;

	test_start(2, 120);
	if (access(KMEMLEAK, F_OK) != 0) {
		ksft_test_result_code(KSFT_SKIP, "kmemleak scans",
				      "kernel built without CONFIG_DEBUG_KMEMLEAK (no " KMEMLEAK ")");
		ksft_test_result_code(KSFT_SKIP, "no unreferenced object after the suite and rmmod",
				      "kernel built without CONFIG_DEBUG_KMEMLEAK");
		ksft_finished();
	}
	sleep(MIN_AGE);
	err1 = kmemleak_cmd("scan");
	err2 = err1 ? err1 : kmemleak_cmd("scan");
	ksft_test_result(!err1 && !err2, "kmemleak scans twice (%s)",
			 err2 ? strerror(err2) : "ok");
	objects = read_report();
	ksft_test_result(objects == 0, "no unreferenced object after the suite and rmmod (%d reported)",
			 objects);
	ksft_finished();
}
