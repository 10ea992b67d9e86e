// SPDX-License-Identifier: GPL-2.0
/*
 * Time namespaces across execns(2).  A caller that unshared CLONE_NEWTIME
 * has a pending time namespace (time_for_children) with offsets of a day;
 * where the kernel's execve(2) moves the task into it (6.12 on), the
 * program started by execns must be there too, with its vDSO and its
 * clock_gettime syscall agreeing on the offset.  Where execve does not
 * (6.1), execns must not either.  Which one applies is measured, with a
 * plain execve of the same program, not assumed from the version.
 *
 * Also: execns(CLONE_NEWTIME) leaves the program in its time namespace
 * and gives its children a new one, with or without a pending one; and a
 * failing execns leaves a caller's pending time namespace as it was.
 */
#include <elf.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <time.h>
#include "lib/test.h"

#define DAY		86400LL
#define NSEC		1000000000LL
/* The most a guest under TCG may take between two readings here. */
#define SLACK		(120 * NSEC)

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

static char self[256];

/* The vDSO's clock_gettime: x86's name, or arm64's and s390x's. */
#if defined(__aarch64__) || defined(__s390x__)
#define VDSO_CLOCK_GETTIME "__kernel_clock_gettime"
#else
#define VDSO_CLOCK_GETTIME "__vdso_clock_gettime"
#endif

/* DT_HASH's words: 64-bit on s390x (as on alpha), 32-bit elsewhere. */
#ifdef __s390x__
typedef Elf64_Xword hash_word;
#else
typedef Elf32_Word hash_word;
#endif

/*
 * How many dynamic symbols the vDSO has, from its section headers (the
 * kernel maps the whole image): arm64's vDSO is linked with the GNU hash
 * only, so there is no DT_HASH to read the count from.
 */
static Elf32_Word vdso_dynsym_count(const char *base, const Elf64_Ehdr *eh)
{
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(base + eh->e_shoff);

	for (int i = 0; eh->e_shoff && i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_DYNSYM && sh[i].sh_entsize)
			return sh[i].sh_size / sh[i].sh_entsize;
	return 0;
}

/*
 * VDSO_CLOCK_GETTIME from the vDSO's dynamic symbol table, so the test
 * does not depend on whether the static libc uses the vDSO.
 */
static clock_gettime_fn vdso_clock_gettime(void)
{
	const char *base = (const char *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	const Elf64_Dyn *dyn = NULL;
	const Elf64_Sym *sym = NULL;
	const hash_word *hash = NULL;
	const char *str = NULL;
	intptr_t bias = 0;
	int have_load = 0;
	Elf32_Word nsyms;

	if (!base)
		return NULL;
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff) + i;

		if (ph->p_type == PT_LOAD && !have_load) {
			bias = (intptr_t)base + (intptr_t)ph->p_offset - (intptr_t)ph->p_vaddr;
			have_load = 1;
		} else if (ph->p_type == PT_DYNAMIC) {
			dyn = (const Elf64_Dyn *)(base + ph->p_offset);
		}
	}
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_SYMTAB)
			sym = (const Elf64_Sym *)(bias + dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_STRTAB)
			str = (const char *)(bias + dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_HASH)
			hash = (const hash_word *)(bias + dyn->d_un.d_ptr);
	}
	if (!sym || !str)
		return NULL;
	nsyms = hash ? hash[1] : vdso_dynsym_count(base, eh);
	for (Elf32_Word i = 0; i < nsyms; i++)
		if (sym[i].st_shndx != SHN_UNDEF &&
		    !strcmp(str + sym[i].st_name, VDSO_CLOCK_GETTIME))
			return (clock_gettime_fn)(bias + sym[i].st_value);
	return NULL;
}

static long long ts_ns(const struct timespec *ts)
{
	return ts->tv_sec * NSEC + ts->tv_nsec;
}

/* One clock through the vDSO and through the syscall; -1 if either fails. */
static void read_clock(clockid_t id, long long *vdso, long long *sys)
{
	clock_gettime_fn fn = vdso_clock_gettime();
	struct timespec a, b;

	*vdso = *sys = -1;
	if (fn && !fn(id, &a))
		*vdso = ts_ns(&a);
	if (!syscall(SYS_clock_gettime, id, &b))
		*sys = ts_ns(&b);
}

/* The program's side: what it sees, one "key value" line each, on fd 1. */
static int clocks_main(void)
{
	long long v, s;

	read_clock(CLOCK_MONOTONIC, &v, &s);
	printf("mono_vdso %lld\nmono_sys %lld\n", v, s);
	read_clock(CLOCK_BOOTTIME, &v, &s);
	printf("boot_vdso %lld\nboot_sys %lld\n", v, s);
	printf("time %lu\ntime_child %lu\n", ns_inode("time"), ns_inode("time_for_children"));
	return 0;
}

/* The value after "name " at the start of a line of text, or -1. */
static long long key(const char *text, const char *name)
{
	const char *v = text_key(text, name);

	return v ? strtoll(v, NULL, 10) : -1;
}

/* Offsets of a day for the pending time namespace (before anyone enters it). */
static int set_offsets(void)
{
	static const char offs[] = "monotonic 86400 0\nboottime 86400 0\n";
	int fd = open("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
	int ok = fd >= 0 && write(fd, offs, strlen(offs)) == (ssize_t)strlen(offs);

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

enum how { PLAIN_EXECVE, EXECNS, EXECNS_MISSING };

struct run {
	bool pending;
	enum how how;
	int flags;
};

/*
 * In a child: optionally unshare(CLONE_NEWTIME) with offsets of a day,
 * print the pending namespaces, then exec self "clocks" as told.
 */
static int run_child(void *arg)
{
	const struct run *r = arg;
	char *argv[] = { self, "clocks", NULL };
	long ret;

	if (r->pending && unshare(CLONE_NEWTIME))
		return 91;
	if (r->pending && set_offsets())
		return 92;
	printf("pre_time %lu\npre_child %lu\n", ns_inode("time"),
	       ns_inode("time_for_children"));
	fflush(stdout);
	if (r->how == PLAIN_EXECVE) {
		execve(self, argv, environ);
		return 93;
	}
	ret = execns(r->flags, r->how == EXECNS ? self : "/nonexistent/prog", argv, environ);
	printf("execns %ld\nerrno %d\n", ret, ret ? errno : 0);
	clocks_main();
	fflush(stdout);
	return 0;
}

/* run_child() as told; everything printed before and after the exec into out. */
static int run(bool pending, enum how how, int flags, char *out, size_t len)
{
	struct run r = { pending, how, flags };
	static struct child c;

	out[0] = '\0';
	if (child_start(&c, CHILD_STDOUT, 60, run_child, &r))
		return -1;
	child_copy(&c, out, len);
	return c.status;
}

static int agree(const char *r)
{
	long long mv = key(r, "mono_vdso"), ms = key(r, "mono_sys");
	long long bv = key(r, "boot_vdso"), bs = key(r, "boot_sys");

	return mv > 0 && ms > 0 && bv > 0 && bs > 0 &&
	       llabs(mv - ms) < NSEC && llabs(bv - bs) < NSEC;
}

/* Whether the program's clocks are offset by a day from ours at start. */
static int offset_by(const char *r, long long mono0, long long boot0, long long off)
{
	long long dm = key(r, "mono_sys") - mono0 - off;
	long long db = key(r, "boot_sys") - boot0 - off;

	return dm >= 0 && dm < SLACK && db >= 0 && db < SLACK;
}

static void show(const char *what, const char *r)
{
	ksft_print_msg("%s: time %lld time_for_children %lld (before the exec %lld, %lld); monotonic vdso %lld sys %lld\n",
		       what, key(r, "time"), key(r, "time_child"), key(r, "pre_time"),
		       key(r, "pre_child"), key(r, "mono_vdso"), key(r, "mono_sys"));
}

static const struct child_mode modes[] = { CHILD_ACT("clocks", clocks_main) };

int main(int argc, char **argv)
{
	static char ref[1024], got[1024], fail[1024], both[1024];
	struct timespec ts;
	long long mono0, boot0, off;
	unsigned long time0 = ns_inode("time"), child0 = ns_inode("time_for_children");
	ssize_t n;
	int st, enters;

	CHILD_DISPATCH(modes, argc, argv);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	test_start(7, TEST_TIMEOUT);
	if (!time0 || !vdso_clock_gettime()) {
		for (int i = 0; i < 7; i++)
			ksft_test_result_code(KSFT_SKIP, "time namespaces",
					      "no time namespaces or no vDSO clock_gettime");
		ksft_finished();
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	mono0 = ts_ns(&ts);
	clock_gettime(CLOCK_BOOTTIME, &ts);
	boot0 = ts_ns(&ts);

	/* What execve(2) itself does with a pending time namespace. */
	st = run(true, PLAIN_EXECVE, 0, ref, sizeof(ref));
	enters = exited_ok(st) && key(ref, "time") == key(ref, "pre_child") &&
		 key(ref, "time") != key(ref, "pre_time");
	show("execve", ref);
	ksft_print_msg("this kernel's execve %s the pending time namespace\n",
		       enters ? "enters" : "does not enter");
	off = enters ? DAY * NSEC : 0;

	st = run(true, EXECNS, CLONE_NEWUTS, got, sizeof(got));
	show("execns(CLONE_NEWUTS)", got);
	ksft_test_result(exited_ok(st) && agree(got),
			 "pending time ns: the program's vDSO and syscall clocks agree");
	ksft_test_result(exited_ok(st) && key(got, "time") > 0 &&
			 key(got, "time") == (enters ? key(got, "pre_child") : key(got, "pre_time")),
			 "pending time ns: the program's time ns is the one execve gives (%s)",
			 enters ? "time_for_children" : "the caller's own");
	ksft_test_result(exited_ok(st) && offset_by(got, mono0, boot0, off),
			 "pending time ns: monotonic and boottime are offset by %lld s, as after execve",
			 off / NSEC);
	ksft_test_result(exited_ok(st) && key(got, "time_child") == key(got, "pre_child"),
			 "pending time ns: the program's time_for_children is the caller's");

	st = run(false, EXECNS, CLONE_NEWTIME, got, sizeof(got));
	show("plain caller, execns(CLONE_NEWTIME)", got);
	ksft_test_result(exited_ok(st) && agree(got) && offset_by(got, mono0, boot0, 0) &&
			 key(got, "time") == (long long)time0 &&
			 key(got, "time_child") > 0 && key(got, "time_child") != (long long)child0,
			 "execns(CLONE_NEWTIME): the program keeps its time ns, its children get a new one");

	st = run(true, EXECNS, CLONE_NEWTIME, both, sizeof(both));
	show("pending time ns, execns(CLONE_NEWTIME)", both);
	ksft_test_result(exited_ok(st) && agree(both) && offset_by(both, mono0, boot0, off) &&
			 key(both, "time") == (enters ? key(both, "pre_child") : key(both, "pre_time")) &&
			 key(both, "time_child") > 0 &&
			 key(both, "time_child") != key(both, "pre_child") &&
			 key(both, "time_child") != key(both, "pre_time"),
			 "pending time ns + CLONE_NEWTIME: the program enters what execve gives, its children a new one");

	st = run(true, EXECNS_MISSING, CLONE_NEWUTS, fail, sizeof(fail));
	show("failing execns", fail);
	ksft_test_result(exited_ok(st) && key(fail, "execns") == -1 && key(fail, "errno") == ENOENT &&
			 key(fail, "time") == key(fail, "pre_time") &&
			 key(fail, "time_child") == key(fail, "pre_child") &&
			 agree(fail) && offset_by(fail, mono0, boot0, 0),
			 "a failing execns (ENOENT) leaves the pending time ns and the clocks as they were");
	ksft_finished();
}
