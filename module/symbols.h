/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel functions execns needs that are not exported to modules, resolved
 * once at load through kallsyms.  A symbol that cannot be resolved fails the
 * load: there is no degraded mode.
 */
#ifndef _EXECNS_SYMBOLS_H
#define _EXECNS_SYMBOLS_H

#include <linux/types.h>

struct pt_regs;
struct nsproxy;
struct cred;
struct fs_struct;
struct task_struct;

typedef long (*execns_syscall_fn)(const struct pt_regs *regs);

struct execns_syms {
	execns_syscall_fn x64_sys_execve;
	execns_syscall_fn ia32_sys_execve;
	execns_syscall_fn x64_sys_close_range;
	execns_syscall_fn x64_sys_ni_syscall;
	execns_syscall_fn ia32_sys_ni_syscall;
	int (*unshare_nsproxy_namespaces)(unsigned long flags,
					  struct nsproxy **new_nsp,
					  struct cred *new_cred,
					  struct fs_struct *new_fs);
	void (*switch_task_namespaces)(struct task_struct *tsk,
				       struct nsproxy *new);
	/* Frees an nsproxy never installed in a task; see compat.h. */
	void (*free_nsproxy)(struct nsproxy *ns);
	struct fs_struct *(*copy_fs_struct)(struct fs_struct *fs);
	void (*free_fs_struct)(struct fs_struct *fs);
	/* Since 7.x only; see execns_switch_fs_struct() in compat.h. */
	struct fs_struct *(*switch_fs_struct)(struct fs_struct *new_fs);
	void (*exit_sem)(struct task_struct *tsk);
	void (*exit_shm)(struct task_struct *tsk);
	/* Optional: used only to tell a free syscall number from a used one. */
	execns_syscall_fn *sys_call_table;
	execns_syscall_fn *ia32_sys_call_table;
};

extern struct execns_syms execns_syms;

int execns_symbols_init(void);

#endif /* _EXECNS_SYMBOLS_H */
