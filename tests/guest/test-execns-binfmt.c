// SPDX-License-Identifier: GPL-2.0
/*
 * binfmt_misc interpreters that get the binary as a descriptor: with the
 * 'O' (open-binary) or 'C' flag, exec opens the file for the interpreter
 * and passes its number in the auxv (AT_EXECFD).  execns(2) closes every
 * descriptor above 2, but must keep that one: it belongs to the new
 * program.  The interpreter here is this program itself (argv[1] is then
 * the *.xnso file); it reports what it got on fd 1.
 *
 * binfmt_misc is a module on Debian's kernels: the harness copies it,
 * decompressed, to /lib/modules/extra; it is loaded here with
 * finit_module(2) unless the kernel already has the filesystem.
 */
#include <sys/auxv.h>
#include <sys/mount.h>
#include "lib/test.h"

#define MNT	"/proc/sys/fs/binfmt_misc"
#define KO	"/lib/modules/extra/binfmt_misc.ko"
#define PROG_O	"/tmp/execns-binfmt.xnso"
#define PROG_C	"/tmp/execns-binfmt.xnsc"

static char self[256];

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* The interpreter's side: AT_EXECFD, whether it is the binary, the rest. */
static int interp_main(const char *binary)
{
	int fds[MAX_FDS], n = list_fds(fds, MAX_FDS);
	unsigned long execfd;
	struct stat a, b;
	char others[256] = "";

	errno = 0;
	execfd = getauxval(AT_EXECFD);
	printf("execfd %ld\n", errno ? -1L : (long)execfd);
	printf("execfd_open %d\n", !errno && fcntl((int)execfd, F_GETFD) >= 0);
	printf("execfd_is_binary %d\n", !errno && !fstat((int)execfd, &a) &&
	       !stat(binary, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino);
	for (int i = 0; i < n; i++)
		if (fds[i] > 2 && (errno || fds[i] != (int)execfd))
			snprintf(others + strlen(others), sizeof(others) - strlen(others),
				 "%s%d", others[0] ? "," : "", fds[i]);
	printf("others %s\n", others[0] ? others : "none");
	return 0;
}

/* The value after "name " at the start of a line, as text ("" if none). */
static void key(const char *text, const char *name, char *out, size_t len)
{
	const char *v = text_key(text, name);

	snprintf(out, len, "%.*s", v ? (int)strcspn(v, "\n") : 0, v ? v : "");
}

/* Make binfmt_misc usable: 0, or a reason to skip in why. */
static int setup(char *why, size_t len)
{
	struct stat sb;
	int fd;

	if (!stat(MNT "/register", &sb))
		return 0;
	fd = open(KO, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (syscall(SYS_finit_module, fd, "", 0) && errno != EEXIST) {
			snprintf(why, len, "finit_module(%s): %s", KO, strerror(errno));
			close(fd);
			return -1;
		}
		close(fd);
	}
	if (mount("binfmt_misc", MNT, "binfmt_misc", 0, NULL) && errno != EBUSY) {
		snprintf(why, len, "%s: mount binfmt_misc on %s: %s",
			 fd < 0 ? "no " KO : KO " loaded", MNT, strerror(errno));
		return fd < 0 ? 1 : -1;
	}
	return stat(MNT "/register", &sb) ? -1 : 0;
}

/* One write of s to an existing control file; 0 or -1 (errno set). */
static int put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int ok = fd >= 0 && write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	int err = errno;

	if (fd >= 0)
		close(fd);
	errno = err;
	return ok ? 0 : -1;
}

/* Register an extension entry for this program as interpreter. */
static int add_entry(const char *name, const char *ext, const char *flags)
{
	char rule[512];

	snprintf(rule, sizeof(rule), ":%s:E::%s::%s:%s", name, ext, self, flags);
	return put(MNT "/register", rule);
}

/* Remove an entry if it exists (left over from an earlier run, or ours). */
static void remove_entry(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), MNT "/%s", name);
	if (!access(path, F_OK) && put(path, "-1"))
		ksft_print_msg("removing %s: %s\n", path, strerror(errno));
}

struct run {
	const char *prog;
	bool use_execns;
};

/*
 * The child opens descriptors above 2 (which must not reach the program
 * through execns), then runs prog by execve or execns.
 */
static int run_child(void *arg)
{
	const struct run *r = arg;
	char *argv[] = { (char *)r->prog, NULL };

	if (open("/proc/self/status", O_RDONLY) < 0 || dup2(1, 7) < 0 || dup2(1, 300) < 0)
		return 90;
	if (r->use_execns)
		execns(CLONE_NEWUTS, r->prog, argv, environ);
	else
		execve(r->prog, argv, environ);
	printf("exec_errno %d\n", errno);
	return 91;
}

static void check(const char *what, const char *prog, bool use_execns, bool want_others)
{
	struct run r = { prog, use_execns };
	char fd[32], open_[8], same[8], others[256];
	static struct child c;
	const char *out = c.text;

	child_start(&c, CHILD_STDOUT, 60, run_child, &r);

	key(out, "execfd", fd, sizeof(fd));
	key(out, "execfd_open", open_, sizeof(open_));
	key(out, "execfd_is_binary", same, sizeof(same));
	key(out, "others", others, sizeof(others));
	ksft_test_result(child_ok(&c) && atoi(fd) > 2 && !strcmp(open_, "1") && !strcmp(same, "1") &&
			 (want_others ? strcmp(others, "none") != 0 : !strcmp(others, "none")),
			 "%s: the interpreter's AT_EXECFD %s is open and is the binary; other fds above 2: %s",
			 what, fd[0] ? fd : "(none)", others[0] ? others : "?");
}

int main(int argc, char **argv)
{
	char why[256] = "";
	ssize_t n;
	int ret;

	if (argc > 1 && (has_suffix(argv[1], ".xnso") || has_suffix(argv[1], ".xnsc")))
		return interp_main(argv[1]);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	test_start(4, TEST_TIMEOUT);

	ret = setup(why, sizeof(why));
	if (ret > 0) {
		for (int i = 0; i < 4; i++)
			ksft_test_result_code(KSFT_SKIP, "binfmt_misc", "%s", why);
		ksft_finished();
	}
	if (!ksft_test_result(!ret, "binfmt_misc is mounted on %s%s%s", MNT, why[0] ? ": " : "", why))
		goto out;
	remove_entry("execns-o");
	remove_entry("execns-c");
	if (write_file(PROG_O, "not an ELF file\n", 0755) ||
	    write_file(PROG_C, "not an ELF file\n", 0755) ||
	    add_entry("execns-o", "xnso", "O") || add_entry("execns-c", "xnsc", "C")) {
		ksft_print_msg("cannot set up the entries or the files: %s\n", strerror(errno));
		goto out;
	}

	/* execve keeps 7 and 300 (not close-on-exec): the check can see them. */
	check("execve, 'O' entry", PROG_O, false, true);
	check("execns, 'O' entry", PROG_O, true, false);
	check("execns, 'C' entry", PROG_C, true, false);
out:
	remove_entry("execns-o");
	remove_entry("execns-c");
	unlink(PROG_O);
	unlink(PROG_C);
	ksft_finished();
}
