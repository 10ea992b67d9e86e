// SPDX-License-Identifier: GPL-2.0
/*
 * After rmmod: execns(1)'s two messages for a module that is not loaded,
 * each the exact stderr and exit status 125 (test-execns-climsg has the
 * others, with the module loaded), and a missing program's 127 before
 * them, named by a path or found along PATH:
 *  - not loaded: how to load it;
 *  - not loadable: the kernel is built without kprobes, which the module
 *    needs.  Debian's kernels all have kprobes, so the kernel's
 *    configuration file says otherwise here: /boot/config-RELEASE with
 *    "# CONFIG_KPROBES is not set", on a tmpfs in a private mount
 *    namespace of the child that runs the CLI.
 */
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "lib/test.h"

#define CLI	"/usr/local/bin/execns"

/* A private /boot holding a configuration without kprobes. */
static int no_kprobes(void *arg)
{
	char boot[128];
	struct utsname u;

	(void)arg;
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) || uname(&u))
		return -1;
	mkdir("/boot", 0755);
	snprintf(boot, sizeof(boot), "/boot/config-%s", u.release);
	if (mount("none", "/boot", "tmpfs", 0, NULL) ||
	    write_file(boot, "CONFIG_MODULES=y\n# CONFIG_KPROBES is not set\n", 0644))
		return -1;
	return 0;
}

static void expect_status(const char *name, int st, int want_st, const char *out,
			  const char *want)
{
	if (!ksft_test_result(st == want_st && !strcmp(out, want), "%s: exit %d, %s", name, st,
			      !strcmp(out, want) ? "stderr as expected" : "stderr differs"))
		ksft_print_msg("want %d [%s]\n# got [%s]\n", want_st, want, out);
}

static void expect(const char *name, int st, const char *out, const char *want)
{
	expect_status(name, st, 125, out, want);
}

int main(void)
{
	char out[2048], want[512];
	struct utsname u;
	int st;

	test_start(4, 0);
	st = child_exec((char *[]){ CLI, "-H", "/nonexistent/prog", NULL }, CHILD_STDERR, NULL,
			NULL, 20, out, sizeof(out));
	expect_status("a missing program named by its path, the module not loaded", st, 127, out,
		      "execns: /nonexistent/prog: not found (or its #! or ELF interpreter is missing)\n");
	st = child_exec((char *[]){ CLI, "-H", "nonexistent-prog", NULL }, CHILD_STDERR, NULL,
			NULL, 20, out, sizeof(out));
	expect_status("a missing program along PATH, the module not loaded", st, 127, out,
		      "execns: nonexistent-prog: not found in PATH (or its #! or ELF interpreter is missing)\n");
	st = child_exec((char *[]){ CLI, "-H", "true", NULL }, CHILD_STDERR, NULL, NULL, 20,
			  out, sizeof(out));
	expect("the module not loaded", st, out,
	       "execns: the execns module is not loaded (no /sys/module/execns): load it with 'modprobe execns' or 'insmod execns.ko'\n");

	uname(&u);
	snprintf(want, sizeof(want),
		 "execns: the execns module is not loaded, and cannot be: this kernel is built without kprobes (CONFIG_KPROBES is not set in /boot/config-%s); boot a kernel with CONFIG_KPROBES=y\n",
		 u.release);
	st = child_exec((char *[]){ CLI, "-H", "true", NULL }, CHILD_STDERR, no_kprobes, NULL, 20,
			  out, sizeof(out));
	expect("a kernel without kprobes (its configuration file says so)", st, out, want);
	ksft_finished();
}
