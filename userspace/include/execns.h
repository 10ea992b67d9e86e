/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libexecns: execve(2) into new namespaces through the execns kernel module.
 * See execns(2).
 */
#ifndef EXECNS_H
#define EXECNS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The loaded module's directory in sysfs: absent when it is not loaded. */
#define EXECNS_SYSFS_MODULE		"/sys/module/execns"

/* Where the loaded module publishes the syscall slot it took. */
#define EXECNS_SYSFS_DIR		"/sys/module/execns/parameters"
#define EXECNS_SYSFS_SYSCALL_NR		EXECNS_SYSFS_DIR "/syscall_nr"
#define EXECNS_SYSFS_COMPAT_SYSCALL_NR	EXECNS_SYSFS_DIR "/compat_syscall_nr"

/*
 * The file this build reads: i386 code enters an x86_64 kernel through the
 * 32-bit syscall table, where the module has a slot of its own, and so does
 * 32-bit arm (AArch32) code on an arm64 kernel (the module has no port to
 * 32-bit kernels).
 */
#if defined(__i386__) || defined(__arm__)
#define EXECNS_SYSFS_NR_FILE		EXECNS_SYSFS_COMPAT_SYSCALL_NR
#else
#define EXECNS_SYSFS_NR_FILE		EXECNS_SYSFS_SYSCALL_NR
#endif

/*
 * A kernel with execns(2) of its own (the in-tree twin, upstream/) has this
 * file, the caller's uid table; libexecns then calls the kernel's number
 * (__NR_execns, or upstream/'s provisional 463) when the module is not
 * loaded.
 */
#define EXECNS_PROC_UIDTAB		"/proc/self/ns/uidtab"

/*
 * The number upstream/ provisionally gives execns(2) on every ABI it wires
 * (x86_64, i386, arm64, AArch32, s390x, 31-bit s390; not x32).  libexecns
 * takes the kernel headers' __NR_execns instead where they define one.
 */
#define EXECNS_NR_IN_TREE		463

/* The loaded module's version, as MODULE_VERSION() publishes it. */
#define EXECNS_SYSFS_VERSION		"/sys/module/execns/version"

/*
 * The flags are the kernel's CLONE_NEW* values.  <sched.h> only defines them
 * with _GNU_SOURCE; these fallbacks are spelled exactly like the libc and
 * kernel headers so that either may come first.  For execns, CLONE_NEWUSER
 * selects the module's per-namespace uid accounting table, not a kernel
 * user namespace: EXECNS_NEWUIDTABLE says so where it is used.
 */
#ifndef CLONE_NEWNS
#define CLONE_NEWNS	0x00020000
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP	0x02000000
#endif
#ifndef CLONE_NEWUTS
#define CLONE_NEWUTS	0x04000000
#endif
#ifndef CLONE_NEWIPC
#define CLONE_NEWIPC	0x08000000
#endif
#ifndef CLONE_NEWUSER
#define CLONE_NEWUSER	0x10000000
#endif
#ifndef CLONE_NEWPID
#define CLONE_NEWPID	0x20000000
#endif
#ifndef CLONE_NEWNET
#define CLONE_NEWNET	0x40000000
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME	0x00000080
#endif

/* A new uid accounting table (the 2006 "user namespace"); see execns(2). */
#define EXECNS_NEWUIDTABLE	CLONE_NEWUSER

/*
 * Like execve(2), after unsharing the namespaces in flags and closing every
 * descriptor above 2.  Returns only on error: -1 with errno set, and the
 * caller unchanged.  errno is ENOSYS when the module is not loaded (its
 * sysfs file is absent or holds no number for this ABI) and the kernel has
 * no execns(2) of its own; any other failure
 * to read that file is its own errno (EMFILE with no descriptor free,
 * ENFILE, ENOMEM, EACCES).  After ENOSYS the slot is read again from sysfs
 * and, if the module now serves another number (it was reloaded), the call
 * is retried there once; that read failing is its errno too.
 * Async-signal-safe, so it may be called in a child after fork().
 */
int execns(int flags, const char *filename, char *const argv[],
	   char *const envp[]);

/*
 * execns() with a PATH search, as execvp(3) is execve(2) with one: the
 * program is found first (execns_find_program()), so a PATH miss costs no
 * namespaces, and execns() is called once, with the environment in environ.
 * Returns only on error, -1 with errno set.  Async-signal-safe.
 */
int execnsp(int flags, const char *file, char *const argv[]);

/*
 * execnsp() with the new program's environment in envp, as execvpe(3) is
 * execvp(3) with one.  The PATH searched is the caller's (environ's), not
 * envp's, as in execvpe(3).  Returns only on error, -1 with errno set.
 * Async-signal-safe.
 */
int execnspe(int flags, const char *file, char *const argv[],
	     char *const envp[]);

/*
 * Find file as execvp(3) would run it and write its path to buf (size
 * bytes): a name with a slash is taken as is; otherwise each entry of PATH
 * (/bin:/usr/bin if unset; an empty entry is the current directory) is
 * tried in turn for an executable regular file.  Returns 0, or -1 with
 * errno ENOENT (empty name, or not found), EACCES (found only without
 * execute permission, not a regular file, or on a noexec mount) or
 * ENAMETOOLONG (does not fit in buf).  Async-signal-safe.
 */
int execns_find_program(const char *file, char *buf, size_t size);

/*
 * 1 if the module is loaded and has a slot for this ABI, or the kernel has
 * execns(2) of its own, else 0 (also when sysfs cannot be read, e.g. with
 * no descriptor free).  Reads sysfs afresh (and refreshes the slot execns()
 * uses); errno is preserved.
 */
int execns_available(void);

/*
 * 1 if execns() calls the kernel's own execns(2) (/proc/self/ns/uidtab
 * exists, the module is not loaded), else 0.  errno is preserved.
 */
int execns_in_tree(void);

#ifdef __cplusplus
}
#endif

#endif /* EXECNS_H */
