/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libexecns: execve(2) into new namespaces through the execns kernel module.
 * See execns(2).
 */
#ifndef EXECNS_H
#define EXECNS_H

#include <stddef.h>
/*
 * The module's interface: the flags (CLONE_NEW*, EXECNS_NEWUIDTABLE,
 * EXECNS_FLAGS), the syscall numbers and the sysfs files that publish
 * them, /proc/execns's files and formats.  The kernel module includes the
 * same header (module/uapi/execns.h in its tree).
 */
#include "execns/uapi.h"

#ifdef __cplusplus
extern "C" {
#endif

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
