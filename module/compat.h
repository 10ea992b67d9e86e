/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel-version difference execns cares about, in one place.  The
 * features are probed from the target's headers by compat-probe.sh (see
 * Kbuild); the core .c files use only what this header defines.
 * Force-included into every object.
 */
#ifndef _EXECNS_COMPAT_H
#define _EXECNS_COMPAT_H

#include <linux/types.h>
#include <linux/version.h>
#include "compat-probe.h"

/*
 * Freeing an nsproxy that was built but never installed in a task:
 * free_nsproxy() until 7.x.  Since 7.x, installing takes "active"
 * references on each namespace and put_nsproxy() ends in
 * deactivate_nsproxy(), which drops them; an nsproxy never installed holds
 * none and is freed with nsproxy_free(), as setns() does.
 */
#ifdef EXECNS_HAVE_NSPROXY_FREE
#define EXECNS_FREE_NSPROXY_SYMBOL "nsproxy_free"
#define EXECNS_NSPROXY_DEACTIVATES true
#else
#define EXECNS_FREE_NSPROXY_SYMBOL "free_nsproxy"
#define EXECNS_NSPROXY_DEACTIVATES false
#endif

/*
 * Direct calls on ftrace sites (BPF trampolines of fentry, fexit and
 * fmod_ret programs), and ftrace_find_rec_direct() to find one, exist only
 * with CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS.
 */
#define EXECNS_HAVE_FTRACE_DIRECT IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS)

/*
 * Installing a new fs_struct in current, returning the old one when this
 * was its last user (the caller frees it).  7.x grew task_struct::real_fs
 * beside ::fs and switch_fs_struct() to keep both in step; before it, the
 * swap is unshare(2)'s, done here, under the fs_struct's lock (a seqlock's
 * exclusive side from 7.x, a spinlock before).
 */
#ifdef EXECNS_HAVE_FS_SEQLOCK
#define execns_fs_lock(fs)	read_seqlock_excl(&(fs)->seq)
#define execns_fs_unlock(fs)	read_sequnlock_excl(&(fs)->seq)
#else
#define execns_fs_lock(fs)	spin_lock(&(fs)->lock)
#define execns_fs_unlock(fs)	spin_unlock(&(fs)->lock)
#endif

#ifdef EXECNS_HAVE_SWITCH_FS_STRUCT
#define EXECNS_SWITCH_FS_OPTIONAL false
#define execns_switch_fs_struct(new_fs) execns_call(switch_fs_struct)(new_fs)
#else
#define EXECNS_SWITCH_FS_OPTIONAL true
#define execns_switch_fs_struct(new_fs) ({				\
	struct fs_struct *__old = current->fs;				\
	bool __last;							\
									\
	task_lock(current);						\
	execns_fs_lock(__old);						\
	current->fs = (new_fs);						\
	__last = !--__old->users;					\
	execns_fs_unlock(__old);					\
	task_unlock(current);						\
	__last ? __old : NULL;						\
})
#endif

/*
 * Whether exec moves the task into its time_ns_for_children:
 * begin_new_exec() calls exec_task_namespaces() after exec_mmap() since
 * 6.x (not in 6.1, where only fork does).  When it does, the nsproxy that
 * execns installs after the exec must carry that time namespace too.
 */
#ifdef EXECNS_HAVE_EXEC_TASK_NAMESPACES
#define EXECNS_EXEC_ENTERS_TIME_NS true
#else
#define EXECNS_EXEC_ENTERS_TIME_NS false
#endif

/*
 * Dropping a time namespace reference that is known not to be the last
 * (put_time_ns() would reach free_time_ns(), which is not exported).  The
 * count is ns.count until 7.x, whose ns_ref_put() also ignores the
 * initial namespaces; either warns if the count does reach zero, which
 * would mean a leak, never a use-after-free.
 */
#if defined(EXECNS_HAVE_NS_REF_PUT)
#define execns_put_time_ns_nonfinal(tns) WARN_ON_ONCE(ns_ref_put(tns))
#elif defined(EXECNS_HAVE_TIME_NS_KREF)
/* 5.10 counts time namespaces in a kref of their own. */
#define execns_put_time_ns_nonfinal(tns) \
	WARN_ON_ONCE(refcount_dec_and_test(&(tns)->kref.refcount))
#else
#define execns_put_time_ns_nonfinal(tns) refcount_dec(&(tns)->ns.count)
#endif

/*
 * Credentials' ucounts (cred->ucounts, set_cred_ucounts(),
 * alloc_ucounts()) exist since 5.14, which moved RLIMIT_NPROC, SIGPENDING,
 * MSGQUEUE and MEMLOCK out of struct user_struct into them.  Before (5.10)
 * a cred has only its user_struct, which keeps those counts itself, and a
 * struct ucounts holds only the counts found by key (inc_ucount(): the
 * namespace counts, inotify), in atomic_t counters.  A uid table there is
 * the seed's own: user_structs only, no ucounts and no alloc_ucounts()
 * hook.  execns_uc_rlimit() reads a ucounts' rlimit count (none before
 * 5.14), execns_uc_count() one of its ucount[] counts.
 */
#ifdef EXECNS_HAVE_CRED_UCOUNTS
#define EXECNS_CRED_UCOUNTS		true
#define execns_cred_ucounts(c)		((c)->ucounts)
#define execns_cred_set_ucounts(c, uc)	((c)->ucounts = (uc))
#define execns_uc_rlimit(uc, r)		atomic_long_read(&(uc)->rlimit[UCOUNT_RLIMIT_##r])
#define execns_uc_count(uc, i)		atomic_long_read(&(uc)->ucount[i])
#else
#define EXECNS_CRED_UCOUNTS		false
#define execns_cred_ucounts(c)		((struct ucounts *)NULL)
#define execns_cred_set_ucounts(c, uc)	do { } while (0)
#define execns_uc_rlimit(uc, r)		0L
#define execns_uc_count(uc, i)		((long)atomic_read(&(uc)->ucount[i]))
#endif

/*
 * struct ucounts' reference count: an int under ucounts_lock in 5.10, an
 * atomic_t until 7.x, an rcuref_t (with an RCU-walked hash in the kernel)
 * since.  read() is the number of references held (rcuref_read() counts
 * the same way); drop_last() drops the one reference left, and fails if
 * there is any other.  The int's are called under ucounts_lock only.
 */
#if defined(EXECNS_HAVE_UCOUNTS_INT_COUNT)
#define execns_ucounts_ref_init(uc, n)	((uc)->count = (n))
#define execns_ucounts_ref_get(uc) ({					\
	struct ucounts *__uc = (uc);					\
									\
	__uc->count ? (__uc->count++, true) : false;			\
})
#define execns_ucounts_ref_read(uc)	READ_ONCE((uc)->count)
#define execns_ucounts_ref_drop_last(uc) ({				\
	struct ucounts *__uc = (uc);					\
									\
	__uc->count == 1 ? (__uc->count = 0, true) : false;		\
})
#elif defined(EXECNS_HAVE_UCOUNTS_RCUREF)
#define execns_ucounts_ref_init(uc, n)	rcuref_init(&(uc)->count, n)
#define execns_ucounts_ref_get(uc)	rcuref_get(&(uc)->count)
#define execns_ucounts_ref_read(uc)	((int)rcuref_read((rcuref_t *)&(uc)->count))
#define execns_ucounts_ref_drop_last(uc) ({				\
	struct ucounts *__uc = (uc);					\
									\
	execns_ucounts_ref_read(__uc) == 1 && rcuref_put(&__uc->count);	\
})
#else
#define execns_ucounts_ref_init(uc, n)	atomic_set(&(uc)->count, n)
#define execns_ucounts_ref_get(uc)	atomic_inc_not_zero(&(uc)->count)
#define execns_ucounts_ref_read(uc)	atomic_read(&(uc)->count)
#define execns_ucounts_ref_drop_last(uc) (atomic_cmpxchg(&(uc)->count, 1, 0) == 1)
#endif

/*
 * The list a ucounts' own node links it into.  put_ucounts() unlinks it
 * under ucounts_lock with hlist_del_init() until 7.x, and with
 * hlist_nulls_del_rcu() since, which needs the node to be in a list: a
 * table keeps its ucounts in lists of the kernel's kind, under the
 * kernel's lock, so that the kernel's own release would be right for them
 * too (ucounts.c).
 */
#ifdef EXECNS_HAVE_UCOUNTS_NULLS
#define execns_uc_head			hlist_nulls_head
#define execns_uc_node			hlist_nulls_node
#define execns_uc_head_init(h)		INIT_HLIST_NULLS_HEAD(h, 0)
#define execns_uc_link(uc, h)		hlist_nulls_add_head_rcu(&(uc)->node, h)
#define execns_uc_unlink(uc)		hlist_nulls_del_rcu(&(uc)->node)
#define execns_uc_head_empty(h)		hlist_nulls_empty(h)
#define execns_uc_for_each_rcu(uc, pos, h) hlist_nulls_for_each_entry_rcu(uc, pos, h, node)
/* @pos moves on before the body runs, so the body may unlink @uc. */
#define execns_uc_for_each_safe(uc, pos, h) hlist_nulls_for_each_entry_safe(uc, pos, h, node)
#else
#define execns_uc_head			hlist_head
#define execns_uc_node			hlist_node
#define execns_uc_head_init(h)		INIT_HLIST_HEAD(h)
#define execns_uc_link(uc, h)		hlist_add_head_rcu(&(uc)->node, h)
#define execns_uc_unlink(uc)		hlist_del_rcu(&(uc)->node)
#define execns_uc_head_empty(h)		hlist_empty(h)
#define execns_uc_for_each_rcu(uc, pos, h)					\
	for (pos = rcu_dereference_raw(hlist_first_rcu(h));			\
	     pos && ((uc = hlist_entry(pos, struct ucounts, node)), 1);		\
	     pos = rcu_dereference_raw(hlist_next_rcu(pos)))
#define execns_uc_for_each_safe(uc, pos, h)					\
	for (pos = (h)->first;							\
	     pos && ((uc = hlist_entry(pos, struct ucounts, node)), (pos = pos->next), 1);)
#endif

/*
 * The cache a slab object was allocated from, or NULL: struct page names
 * it until 5.16, later kernels in mm/slab.h's private struct slab (where
 * the symbol table has uid_cachep anyway: observe.c).  Needs <linux/mm.h>.
 */
#ifdef EXECNS_HAVE_PAGE_SLAB_CACHE
#define execns_obj_cache(obj) ({						\
	typeof(obj) __obj = (obj);						\
	struct page *__page = virt_addr_valid(__obj) ? virt_to_head_page(__obj) : NULL; \
	__page && PageSlab(__page) ? __page->slab_cache : NULL;			\
})
#else
#define execns_obj_cache(obj)		((struct kmem_cache *)NULL)
#endif

/*
 * The callback of kallsyms_on_each_symbol(): 6.1 passes each symbol's
 * module too (always NULL: only vmlinux is walked); 6.4 dropped it.
 * execns_kallsyms_fn_call() calls one (symbols.c's own walk).
 */
#ifdef EXECNS_HAVE_KALLSYMS_EACH_MODULE
struct module;
#define EXECNS_KALLSYMS_FN(fn, data, name, addr)				\
	int fn(void *(data), const char *(name), struct module *__mod, unsigned long addr)
typedef int execns_kallsyms_fn_t(void *, const char *, struct module *, unsigned long);
#define execns_kallsyms_fn_call(fn, data, name, addr)	fn(data, name, NULL, addr)
#else
#define EXECNS_KALLSYMS_FN(fn, data, name, addr)				\
	int fn(void *(data), const char *(name), unsigned long addr)
typedef int execns_kallsyms_fn_t(void *, const char *, unsigned long);
#define execns_kallsyms_fn_call(fn, data, name, addr)	fn(data, name, addr)
#endif

/*
 * The function a static call's key points at (NULL: none), which
 * static_call_query() reads since 5.12; 5.10's key has the same field.
 */
#ifdef EXECNS_HAVE_STATIC_CALL_QUERY
#define execns_static_call_query(name) static_call_query(name)
#else
#define execns_static_call_query(name) READ_ONCE(STATIC_CALL_KEY(name).func)
#endif

/*
 * free_uid() is exported since 5.12 and ftrace_free_filter() since 5.19
 * (probed in the build's Module.symvers); before, they are called through
 * static calls resolved from kallsyms, like the internals (symbols.h).
 */
#ifdef EXECNS_HAVE_FREE_UID_EXPORT
#define execns_free_uid(up)		free_uid(up)
#define EXECNS_FREE_UID_SYMBOL		NULL
#else
#define execns_free_uid(up)		execns_call(free_uid)(up)
#define EXECNS_FREE_UID_SYMBOL		"free_uid"
#endif
#ifdef EXECNS_HAVE_FTRACE_FREE_FILTER_EXPORT
#define execns_ftrace_free_filter(ops)	ftrace_free_filter(ops)
#define EXECNS_FTRACE_FREE_FILTER_SYMBOL NULL
#else
#define execns_ftrace_free_filter(ops)	execns_call(ftrace_free_filter)(ops)
#define EXECNS_FTRACE_FREE_FILTER_SYMBOL "ftrace_free_filter"
#endif

/*
 * Link-time optimisation (clang's, the kernel's only kind) inlines across
 * files: any caller anywhere may then hold a copy of a hooked function,
 * and the proof knows the same-file callers only.
 */
#define EXECNS_PROOF_LTO		IS_ENABLED(CONFIG_LTO_CLANG)

/*
 * What an ftrace callback is given, struct execns_fregs: a struct
 * ftrace_regs since 5.11.  5.10 passes a struct pt_regs, filled only for
 * an ops with FTRACE_OPS_FL_SAVE_REGS (EXECNS_FTRACE_ARGS_FLAGS), whose
 * trampoline returns to the ip a callback sets there, as livepatch relies on.
 *
 * Without FTRACE_OPS_FL_SAVE_REGS (DYNAMIC_FTRACE_WITH_ARGS): the argument
 * getter and ip setter of struct ftrace_regs are
 * ftrace_regs_get_argument() and ftrace_regs_set_instruction_pointer()
 * since 6.x; in 6.1 the setter is ftrace_instruction_pointer_set() and
 * there is no getter, but struct ftrace_regs is a struct pt_regs whose
 * argument registers are saved.
 */
#ifdef EXECNS_HAVE_FTRACE_FUNC_PT_REGS
#define execns_fregs pt_regs
#define execns_fregs_pt_regs(fregs) (fregs)
#define execns_ftrace_regs_arg(fregs, n) regs_get_kernel_argument(fregs, n)
#define execns_ftrace_regs_set_ip(fregs, ip) instruction_pointer_set(fregs, ip)
#else
#define execns_fregs ftrace_regs
/* The saved registers of an ops with FTRACE_OPS_FL_SAVE_REGS (5.11 on). */
#define execns_fregs_pt_regs(fregs) ftrace_get_regs(fregs)
#ifndef CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS
/*
 * 5.11 to 6.1 on an architecture without WITH_ARGS (arm64 before 6.2):
 * struct ftrace_regs is there, but its generic ip setter does nothing, so
 * the hooks use the saved pt_regs (SAVE_REGS: EXECNS_FTRACE_ARGS_FLAGS).
 */
#define execns_ftrace_regs_arg(fregs, n) regs_get_kernel_argument(ftrace_get_regs(fregs), n)
#define execns_ftrace_regs_set_ip(fregs, ip) instruction_pointer_set(ftrace_get_regs(fregs), ip)
#else
#ifdef EXECNS_HAVE_FTRACE_REGS_GET_ARGUMENT
#define execns_ftrace_regs_arg(fregs, n) ftrace_regs_get_argument(fregs, n)
#else
#define execns_ftrace_regs_arg(fregs, n) regs_get_kernel_argument(&(fregs)->regs, n)
#endif
#ifdef EXECNS_HAVE_FTRACE_REGS_SET_IP
#define execns_ftrace_regs_set_ip(fregs, ip) ftrace_regs_set_instruction_pointer(fregs, ip)
#else
#define execns_ftrace_regs_set_ip(fregs, ip) ftrace_instruction_pointer_set(fregs, ip)
#endif
#endif /* CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS */
#endif /* EXECNS_HAVE_FTRACE_FUNC_PT_REGS */

/*
 * The flags an ops needs to read the arguments and move the call, on an
 * architecture whose ftrace has argument-only trampolines when
 * DYNAMIC_FTRACE_WITH_ARGS is set (x86 from 5.11, arm64 from 6.2): none
 * there, FTRACE_OPS_FL_SAVE_REGS (DYNAMIC_FTRACE_WITH_REGS) before.
 */
#define EXECNS_FTRACE_ARGS_FLAGS \
	(IS_ENABLED(CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS) ? 0 : FTRACE_OPS_FL_SAVE_REGS)

/*
 * The ftrace site of the function at @ip, as the architecture records it,
 * for a kernel whose ftrace_set_filter_ip() does not map a symbol to its
 * site (before 5.18; hook.c): ftrace_call_adjust(), an inline in the
 * architecture's header there (arm64: the second NOP), @ip itself where
 * there is none to call.
 */
#ifdef EXECNS_HAVE_INLINE_FTRACE_CALL_ADJUST
#define execns_ftrace_site(ip)	ftrace_call_adjust(ip)
#else
#define execns_ftrace_site(ip)	(ip)
#endif

/*
 * x86's x64_sys_call()/ia32_sys_call(), which slot.c calls once at load to
 * see where an unused number goes: only where the headers declare them
 * with that signature.
 */
#ifdef EXECNS_HAVE_SYS_CALL_SWITCH
#define EXECNS_SYS_CALL_SWITCH	true
#else
#define EXECNS_SYS_CALL_SWITCH	false
#endif

/* The per-user ucount limits that exist only with their config option. */
#ifdef CONFIG_INOTIFY_USER
#define execns_uc_inotify_instances(uc) execns_uc_count(uc, UCOUNT_INOTIFY_INSTANCES)
#define execns_uc_inotify_watches(uc) execns_uc_count(uc, UCOUNT_INOTIFY_WATCHES)
#else
#define execns_uc_inotify_instances(uc) 0L
#define execns_uc_inotify_watches(uc) 0L
#endif
/* fanotify counts per user in ucounts since 5.13. */
#if defined(CONFIG_FANOTIFY) && defined(EXECNS_HAVE_UCOUNT_FANOTIFY)
#define execns_uc_fanotify_groups(uc) execns_uc_count(uc, UCOUNT_FANOTIFY_GROUPS)
#define execns_uc_fanotify_marks(uc) execns_uc_count(uc, UCOUNT_FANOTIFY_MARKS)
#else
#define execns_uc_fanotify_groups(uc) 0L
#define execns_uc_fanotify_marks(uc) 0L
#endif

/*
 * The per-user counters still in struct user_struct, each behind the
 * config option that gives it a field.
 */
#if defined(CONFIG_EPOLL) && defined(EXECNS_HAVE_EPOLL_PERCPU)
#define execns_user_epoll_init(up) \
	percpu_counter_init(&(up)->epoll_watches, 0, GFP_KERNEL)
#define execns_user_epoll_free(up) percpu_counter_destroy(&(up)->epoll_watches)
#define execns_user_epoll_read(up) percpu_counter_sum(&(up)->epoll_watches)
#elif defined(CONFIG_EPOLL)
/* An atomic_long_t until 5.15 (kmem_cache_zalloc() zeroes it). */
#define execns_user_epoll_init(up) 0
#define execns_user_epoll_free(up) do { } while (0)
#define execns_user_epoll_read(up) atomic_long_read(&(up)->epoll_watches)
#else
#define execns_user_epoll_init(up) 0
#define execns_user_epoll_free(up) do { } while (0)
#define execns_user_epoll_read(up) 0
#endif

#if defined(CONFIG_NET) || defined(CONFIG_IO_URING) || \
	defined(CONFIG_VFIO_PCI_ZDEV_KVM) || IS_ENABLED(CONFIG_IOMMUFD) || \
	defined(CONFIG_SECRETMEM)
#define execns_user_locked_vm(up) atomic_long_read(&(up)->locked_vm)
#else
#define execns_user_locked_vm(up) 0L
#endif

/*
 * The rlimit counts a user_struct kept itself before credentials had
 * ucounts (5.10; compat.h above): RLIMIT_NPROC, SIGPENDING, MSGQUEUE (mqueue
 * bytes) and the SHM part of MEMLOCK (pages), shown on a table user's line
 * under the names of the ucounts lines that keep them since 5.14.
 */
#ifdef EXECNS_HAVE_CRED_UCOUNTS
#define EXECNS_USER_RLIMITS		false
#define execns_user_nproc(up)		0L
#define execns_user_sigpending(up)	0L
#define execns_user_memlock(up)		0L
#else
#define EXECNS_USER_RLIMITS		true
#define execns_user_nproc(up)		((long)atomic_read(&(up)->processes))
#define execns_user_sigpending(up)	((long)atomic_read(&(up)->sigpending))
#define execns_user_memlock(up)		((long)READ_ONCE((up)->locked_shm))
#endif
#if !defined(EXECNS_HAVE_CRED_UCOUNTS) && defined(CONFIG_POSIX_MQUEUE)
#define execns_user_msgqueue(up)	((long)READ_ONCE((up)->mq_bytes))
#else
#define execns_user_msgqueue(up)	0L
#endif

#ifdef CONFIG_WATCH_QUEUE
#define execns_user_nr_watches(up) atomic_read(&(up)->nr_watches)
#else
#define execns_user_nr_watches(up) 0
#endif

#endif /* _EXECNS_COMPAT_H */
