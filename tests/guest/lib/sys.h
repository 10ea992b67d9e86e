/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files, kernel knobs, the module's /proc and sysfs files, and the raw
 * syscall, for the in-guest test programs.
 *
 * Kernel knobs (sysctls, module parameters, debugfs and tracefs files) are
 * written with write_knob(), which never creates a file; regular files a
 * test makes for itself with write_file(), which sets their mode exactly.
 */
#ifndef EXECNS_LIB_SYS_H
#define EXECNS_LIB_SYS_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <execns.h>

extern char **environ;

/* The first line of path as a decimal number, or -1. */
static inline long read_long(const char *path)
{
	char buf[64] = "";
	FILE *f = fopen(path, "re");
	long v = -1;

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			v = strtol(buf, NULL, 10);
		fclose(f);
	}
	return v;
}

/* The first line of path, without its newline ("" if unreadable). */
static inline void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, len, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
}

/* Whole file into buf (NUL-terminated); returns the length or -1. */
static inline ssize_t read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t off = 0;
	ssize_t n = 0;

	buf[0] = '\0';
	if (fd < 0)
		return -1;
	while (off + 1 < len && (n = read(fd, buf + off, len - 1 - off)) > 0)
		off += n;
	buf[off] = '\0';
	close(fd);
	return n < 0 ? -1 : (ssize_t)off;
}

/* Read fd to EOF into buf (NUL-terminated), through EINTR. */
static inline void read_all(int fd, char *buf, size_t len)
{
	size_t off = 0;
	ssize_t n;

	while (off + 1 < len && ((n = read(fd, buf + off, len - 1 - off)) > 0 ||
				 (n < 0 && errno == EINTR)))
		if (n > 0)
			off += n;
	buf[off] = '\0';
}

/* Whether /proc/modules lists the module @name. */
static inline int module_listed(const char *name)
{
	char line[256];
	FILE *f = fopen("/proc/modules", "re");
	size_t len = strlen(name);
	int yes = 0;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ' ')
			yes = 1;
	if (f)
		fclose(f);
	return yes;
}

/* Create path with content and mode (mode applied exactly, umask aside). */
static inline int write_file(const char *path, const char *s, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok && !chmod(path, mode) ? 0 : -1;
}

/*
 * Write s to the kernel file path, opened with mode (O_TRUNC or O_APPEND);
 * 0 when the whole of it was taken, else a "# " line.
 */
static inline int knob_write(const char *path, const char *s, int mode)
{
	int fd = open(path, O_WRONLY | mode | O_CLOEXEC);
	ssize_t n = -1;

	if (fd >= 0) {
		n = write(fd, s, strlen(s));
		close(fd);
	}
	if (n != (ssize_t)strlen(s)) {
		printf("# write \"%s\" to %s: %s\n", s, path, strerror(errno));
		fflush(stdout);
		return -1;
	}
	return 0;
}

/* Write s over the kernel file path (O_TRUNC is what empties tracefs's trace). */
static inline int write_knob(const char *path, const char *s)
{
	return knob_write(path, s, O_TRUNC);
}

/* Add s to the kernel file path: kprobe_events takes a probe that way, where O_TRUNC removes them all. */
static inline int append_knob(const char *path, const char *s)
{
	return knob_write(path, s, O_APPEND);
}

/* write_knob(), then read it back: 0 when it reads as written. */
static inline int set_knob(const char *path, const char *s)
{
	char back[64];

	if (write_knob(path, s))
		return -1;
	read_line(path, back, sizeof(back));
	return strcmp(back, s) ? -1 : 0;
}

static inline void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Become uid/gid 65534 with no supplementary groups: no capabilities left. */
static inline int drop_to_nobody(void)
{
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		return -1;
	return 0;
}

/*
 * This ABI's syscall number, from sysfs at each call (a test may reload the
 * module with another), or the kernel's own (the twin: libexecns's
 * execns_in_tree()); -1 when there is none.
 */
static inline long execns_nr(void)
{
	long nr = read_long(EXECNS_SYSFS_NR_FILE);

	if (nr < 0 && execns_in_tree())
		nr = EXECNS_NR_IN_TREE;
	return nr;
}

/* The ABI this program is compiled for, as the tests name it. */
#if defined(__i386__)
#define TEST_ABI "i386"
#elif defined(__arm__)
#define TEST_ABI "AArch32"
#elif defined(__aarch64__)
#define TEST_ABI "arm64"
#elif defined(__s390x__)
#define TEST_ABI "s390x"
#else
#define TEST_ABI "x86_64"
#endif

#define EXECNS_KO	"/lib/modules/execns.ko"
#define EXECNS_PARAMS	"/etc/execns/params"	/* the runner's insmod parameters */

/* Whether execns is loaded (its sysfs directory is there). */
static inline int execns_loaded(void)
{
	return access(EXECNS_SYSFS_MODULE, F_OK) == 0;
}

/*
 * insmod execns.ko with the runner's parameters, then extra (which wins
 * over them: the last value of a parameter is the one kept): 0 or the
 * errno.
 */
static inline int execns_insmod(const char *extra)
{
	char params[256], runner[192];
	int fd, err = 0;

	read_line(EXECNS_PARAMS, runner, sizeof(runner));
	snprintf(params, sizeof(params), "%s %s", runner, extra);
	fd = open(EXECNS_KO, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (syscall(SYS_finit_module, fd, params, 0))
		err = errno;
	close(fd);
	return err;
}

/*
 * rmmod execns (delete_module, O_NONBLOCK), retried every 100 ms for up to
 * secs while it is refused (RCU callbacks of a table's last credentials
 * pin the module a while): 0 or the last errno.
 */
static inline int execns_rmmod(int secs)
{
	int err = 0;

	for (int i = 0; i <= secs * 10; i++) {
		if (!syscall(SYS_delete_module, "execns", O_NONBLOCK))
			return 0;
		err = errno;
		if (i < secs * 10)
			sleep_ms(100);
	}
	return err;
}

/* Whether /proc/kallsyms lists a symbol of this name (text or data). */
static inline int kallsyms_has(const char *name)
{
	char line[512], sym[256];
	FILE *f = fopen("/proc/kallsyms", "re");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %*s %255s", sym) == 1 && !strcmp(sym, name);
	fclose(f);
	return found;
}

/*
 * Whether credentials carry ucounts (5.14 on: RLIMIT_NPROC, SIGPENDING,
 * MSGQUEUE and MEMLOCK counted there, and alloc_ucounts() hooked): the
 * kernel has inc_rlimit_ucounts().  Before (5.10) the user_struct keeps
 * those counts, and a uid table has no ucounts.
 */
static inline int kernel_cred_ucounts(void)
{
	return kallsyms_has("inc_rlimit_ucounts");
}

/*
 * Whether the running kernel takes calls of this architecture's compat ABI
 * (i386 on x86_64, AArch32 on arm64, 31-bit s390 on s390x): the table the
 * kernel dispatches them through is there.  Debian's x86_64 and arm64
 * kernels always have it; s390x's 7.x have none (its 31-bit emulation is
 * gone: no asm/compat.h in their headers).
 */
static inline int kernel_has_compat(void)
{
#if defined(__s390x__)
	return kallsyms_has("sys_call_table_emu");
#else
	return 1;
#endif
}

/* This program's system-call ABI, as seccomp names it. */
#if defined(__x86_64__)
#define TEST_AUDIT_ARCH	AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define TEST_AUDIT_ARCH	AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define TEST_AUDIT_ARCH	AUDIT_ARCH_AARCH64
#elif defined(__arm__)
#define TEST_AUDIT_ARCH	AUDIT_ARCH_ARM
#elif defined(__s390x__)
#define TEST_AUDIT_ARCH	AUDIT_ARCH_S390X
#else
#error "no seccomp audit architecture for this target: add it here"
#endif

/*
 * Make syscall nr of this program's ABI answer ENOSYS from now on (and in
 * what it executes), as a container runtime's seccomp filter would.
 * 0, or -1 with errno.
 */
static inline int seccomp_enosys(long nr)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TEST_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	       prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) ? -1 : 0;
}

/* execns through the raw syscall, for pointers libexecns would not pass. */
static inline long raw_execns(long flags, const void *path, const void *argv,
			      const void *envp)
{
	return syscall(execns_nr(), flags, path, argv, envp);
}

/*
 * A counter of /proc/execns/stats ("tables", "users", "hook_arms", ...), -1
 * if absent; the words of "hooks armed|disarmed" read as 1 and 0.
 */
static inline long execns_stat(const char *name)
{
	char line[128], key[64], val[32];
	long v = -1;
	FILE *f = fopen(EXECNS_PROC_STATS, "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %31s", key, val) == 2 && !strcmp(key, name))
			v = !strcmp(val, EXECNS_STAT_ARMED) ? 1 :
			    !strcmp(val, EXECNS_STAT_DISARMED) ? 0 : strtol(val, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

/*
 * The rest of a /proc/execns line after its first word, @word (one of
 * uapi/execns.h's keywords: EXECNS_PROOF_VERDICT, EXECNS_STAT_PINNED, ...),
 * and the space after it; NULL if the line does not begin so.
 */
static inline const char *execns_after(const char *line, const char *word)
{
	size_t n = strlen(word);

	return !strncmp(line, word, n) && line[n] == ' ' ? line + n + 1 : NULL;
}

/*
 * The verdict word of /proc/execns/proof (EXECNS_VERDICT_PROVEN, _PARTIAL or
 * _REFUSED) in @out, "" without one (no module loaded, or the twin).
 */
static inline void execns_verdict(char *out, size_t len)
{
	char text[20480], *line, *save;
	const char *rest;

	out[0] = '\0';
	if (read_text(EXECNS_PROC_PROOF, text, sizeof(text)) <= 0)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if ((rest = execns_after(line, EXECNS_PROOF_VERDICT)))
			snprintf(out, len, "%s", rest);
}

/*
 * Records of the kernel log (/dev/kmsg, one record per read) containing s
 * (at most max: 1 asks whether there is one), counted from the last record
 * containing from (NULL: from the first), or -1 if it cannot be read.
 */
static inline int kernel_log_count(const char *from, const char *s, int max)
{
	static char rec[8192];
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC), count = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	while ((count < max || from) && ((n = read(fd, rec, sizeof(rec) - 1)) > 0 ||
					 (n < 0 && errno == EPIPE))) {
		/* EPIPE: records overwritten since the last read; go on with the next */
		if (n <= 0)
			continue;
		rec[n] = '\0';
		if (from && strstr(rec, from))
			count = 0;
		if (strstr(rec, s))
			count++;
	}
	close(fd);
	return count < max ? count : max;
}

/* Whether a record of the kernel log contains s. */
static inline int kernel_log_has(const char *s)
{
	return kernel_log_count(NULL, s, 1) > 0;
}

#endif /* EXECNS_LIB_SYS_H */
