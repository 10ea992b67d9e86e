/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel internals execns needs that are not exported to modules, resolved
 * once at load through kallsyms.  A required symbol that cannot be resolved
 * fails the load: there is no degraded mode.
 *
 * Functions are reached through static calls, never through a function
 * pointer (on architectures with HAVE_STATIC_CALL; elsewhere a static call
 * is a pointer in its key, which execns-arch.h explains): kernels built
 * with CONFIG_X86_KERNEL_IBT (Debian's 6.12 and 7.x)
 * seal the ENDBR of every function whose address vmlinux never takes, and
 * an indirect call to such a function is a control-protection fault on a
 * CPU that enforces IBT.  static_call_update() patches a direct call to the
 * resolved address into the trampoline and into every call site, and direct
 * branches are not subject to IBT.  The module makes no indirect call at
 * all; `make lint` checks that on the built object.
 *
 * Call one as execns_call(copy_fs_struct)(fs).
 */
#ifndef _EXECNS_SYMBOLS_H
#define _EXECNS_SYMBOLS_H

#include <linux/types.h>
#include <linux/static_call.h>
#include <linux/fs_struct.h>
#include <linux/sched/user.h>
#include <linux/spinlock_types.h>

struct pt_regs;
struct nsproxy;
struct cred;
struct fs_struct;
struct task_struct;
struct ucounts;
struct user_struct;
struct ftrace_ops;
struct kmem_cache;

typedef long execns_syscall_t(const struct pt_regs *regs);
typedef long execns_dispatch_t(const struct pt_regs *regs, unsigned int nr);
typedef int execns_unshare_ns_t(unsigned long flags, struct nsproxy **new_nsp,
				struct cred *new_cred, struct fs_struct *new_fs);
typedef void execns_switch_ns_t(struct task_struct *tsk, struct nsproxy *new);
typedef void execns_free_ns_t(struct nsproxy *ns);
typedef void execns_free_fs_t(struct fs_struct *fs);
typedef void execns_task_fn_t(struct task_struct *tsk);
typedef void execns_put_ucounts_t(struct ucounts *uc);
typedef void execns_free_uid_t(struct user_struct *up);
typedef void execns_ftrace_free_filter_t(struct ftrace_ops *ops);
typedef unsigned long execns_find_direct_t(unsigned long ip);
typedef int execns_ftrace_dead_t(void);
typedef int execns_kallsyms_each_t(execns_kallsyms_fn_t *fn, void *data);
typedef int execns_kallsyms_size_t(unsigned long addr, unsigned long *size,
				   unsigned long *offset);

/* The architecture's syscall entries (execns-arch.h), native and compat. */
DECLARE_STATIC_CALL(execns_sys_execve, execns_syscall_t);
DECLARE_STATIC_CALL(execns_compat_sys_execve, execns_syscall_t);
DECLARE_STATIC_CALL(execns_sys_close_range, execns_syscall_t);
/* x86's switch dispatchers, where declared (compat.h); slot.c's self-test. */
DECLARE_STATIC_CALL(execns_dispatch, execns_dispatch_t);
DECLARE_STATIC_CALL(execns_compat_dispatch, execns_dispatch_t);
DECLARE_STATIC_CALL(execns_unshare_nsproxy_namespaces, execns_unshare_ns_t);
DECLARE_STATIC_CALL(execns_switch_task_namespaces, execns_switch_ns_t);
/* Frees an nsproxy never installed in a task; see compat.h. */
DECLARE_STATIC_CALL(execns_free_nsproxy, execns_free_ns_t);
DECLARE_STATIC_CALL(execns_copy_fs_struct, copy_fs_struct);
DECLARE_STATIC_CALL(execns_free_fs_struct, execns_free_fs_t);
/* Since 7.x only (see compat.h); it has copy_fs_struct()'s signature. */
DECLARE_STATIC_CALL(execns_switch_fs_struct, copy_fs_struct);
DECLARE_STATIC_CALL(execns_exit_sem, execns_task_fn_t);
DECLARE_STATIC_CALL(execns_exit_shm, execns_task_fn_t);
DECLARE_STATIC_CALL(execns_put_ucounts, execns_put_ucounts_t);
/* Where the kernel does not export them (compat.h). */
DECLARE_STATIC_CALL(execns_free_uid, execns_free_uid_t);
/* Called once, at init, before its hook arms (observe.c). */
DECLARE_STATIC_CALL(execns_alloc_uid, alloc_uid);
DECLARE_STATIC_CALL(execns_ftrace_free_filter, execns_ftrace_free_filter_t);
/* Only where hooks are parked (hook.c) and direct calls exist. */
DECLARE_STATIC_CALL(execns_ftrace_find_rec_direct, execns_find_direct_t);

/*
 * Whether ftrace_kill() has run (hook.c: an unregister that returns 0 may
 * have left its sites calling the ops then); optional.
 */
DECLARE_STATIC_CALL(execns_ftrace_is_dead, execns_ftrace_dead_t);

/* The load-time proof's view of the symbol table (proof.c); optional. */
DECLARE_STATIC_CALL(execns_kallsyms_on_each_symbol, execns_kallsyms_each_t);
DECLARE_STATIC_CALL(execns_kallsyms_lookup_size_offset, execns_kallsyms_size_t);

#define execns_call(fn) static_call(execns_##fn)

/* Kernel data, and addresses that are compared, never called. */
struct execns_syms {
	const void *sys_ni_syscall;
	const void *compat_sys_ni_syscall;
	/* Optional: used only to tell a free syscall number from a used one. */
	const void *const *sys_call_table;
	const void *const *compat_sys_call_table;
	/*
	 * ftrace's list of registered ops, and the ops kprobes without a
	 * post-handler share: where hook.c checks the order the two are
	 * called in.  Required only where that order matters
	 * (EXECNS_ARCH_KPROBE_RESETS_IP: s390).
	 */
	struct ftrace_ops __rcu *const *ftrace_ops_list;
	const struct ftrace_ops *kprobe_ftrace_ops;
	/*
	 * The kernel's own lock and cache for user_structs (kernel/user.c)
	 * and lock for ucounts (kernel/ucount.c): a table makes its objects
	 * with them, so that the kernel's release code is right for them
	 * (uidtab.c, ucounts.c).  Optional: without all three, uid tables
	 * are refused (proof.c).  uid_cache is the cache uid_cachep holds,
	 * set at boot and never changed; where the symbol table has no data
	 * symbols, observe.c finds it and uidhash_lock, and says so in
	 * user_objs_observed.
	 */
	spinlock_t *uidhash_lock;	/* kernel/user.c's */
	spinlock_t *ucounts_lock;	/* kernel/ucount.c's */
	struct kmem_cache **uid_cachep;
	struct kmem_cache *uid_cache;
	bool user_objs_observed;
};

extern struct execns_syms execns_syms;

int execns_symbols_init(void);

/* Whether an optional function was found (its static call is not a NOP). */
#define execns_have(fn) (!!execns_static_call_query(execns_##fn))

/* A kernel function's address (logged and 0 when absent), after init. */
unsigned long execns_symbol_addr(const char *name);

/*
 * The text symbol after the one at @addr (0: the first, at _stext), with
 * its name in @name (KSYM_NAME_LEN bytes); 0 at _etext.  The walk of the
 * symbol table where the kernel has no kallsyms_on_each_symbol(); init only.
 */
unsigned long execns_next_text_symbol(unsigned long addr, char *name);

#endif /* _EXECNS_SYMBOLS_H */
