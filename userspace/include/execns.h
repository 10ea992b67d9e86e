/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libexecns: execve(2) into new namespaces through the execns kernel module.
 * See execns(2).
 */
#ifndef EXECNS_H
#define EXECNS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Where the loaded module publishes the syscall slot it took. */
#define EXECNS_SYSFS_DIR		"/sys/module/execns/parameters"
#define EXECNS_SYSFS_SYSCALL_NR		EXECNS_SYSFS_DIR "/syscall_nr"
#define EXECNS_SYSFS_COMPAT_SYSCALL_NR	EXECNS_SYSFS_DIR "/compat_syscall_nr"

/*
 * The file this build reads: i386 code enters an x86_64 kernel through the
 * 32-bit syscall table, where the module has a slot of its own.
 */
#if defined(__i386__)
#define EXECNS_SYSFS_NR_FILE		EXECNS_SYSFS_COMPAT_SYSCALL_NR
#else
#define EXECNS_SYSFS_NR_FILE		EXECNS_SYSFS_SYSCALL_NR
#endif

/*
 * The flags are the kernel's CLONE_NEW* values.  <sched.h> only defines them
 * with _GNU_SOURCE; these fallbacks are spelled exactly like the libc and
 * kernel headers so that either may come first.  Note that for execns
 * CLONE_NEWUSER selects the module's per-namespace uid accounting table,
 * not a kernel user namespace.
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

/*
 * Like execve(2), after unsharing the namespaces in flags and closing every
 * descriptor above 2.  Returns only on error: -1 with errno set, and the
 * caller unchanged.  errno is ENOSYS when the module is not loaded.
 * Async-signal-safe, so it may be called in a child after fork().
 */
int execns(int flags, const char *filename, char *const argv[],
	   char *const envp[]);

/*
 * 1 if the module is loaded and has a slot for this ABI, else 0.  Reads
 * sysfs afresh (and refreshes the slot execns() uses); errno is preserved.
 */
int execns_available(void);

#ifdef __cplusplus
}
#endif

#endif /* EXECNS_H */
