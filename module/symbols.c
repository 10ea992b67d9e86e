// SPDX-License-Identifier: GPL-2.0
/*
 * Resolution of unexported kernel symbols.
 *
 * kallsyms_lookup_name() has not been exported since 5.7; its address is
 * read from a kprobe registered on it and released at once, the usual way
 * out-of-tree code finds it.  Every other symbol is looked up through it.
 * On IBT kernels the kprobe's address is past the function's ENDBR; a direct
 * call there is fine, so that address goes straight into a static call like
 * every other function (see symbols.h).  The syscall entries' names are the
 * architecture's (execns-arch.h).
 */
#include <linux/kernel.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include "arch.h"
#include "symbols.h"

struct execns_syms execns_syms;

DEFINE_STATIC_CALL_NULL(execns_sys_execve, execns_syscall_t);
DEFINE_STATIC_CALL_NULL(execns_compat_sys_execve, execns_syscall_t);
DEFINE_STATIC_CALL_NULL(execns_sys_close_range, execns_syscall_t);
DEFINE_STATIC_CALL_NULL(execns_dispatch, execns_dispatch_t);
DEFINE_STATIC_CALL_NULL(execns_compat_dispatch, execns_dispatch_t);
DEFINE_STATIC_CALL_NULL(execns_unshare_nsproxy_namespaces, execns_unshare_ns_t);
DEFINE_STATIC_CALL_NULL(execns_switch_task_namespaces, execns_switch_ns_t);
DEFINE_STATIC_CALL_NULL(execns_free_nsproxy, execns_free_ns_t);
DEFINE_STATIC_CALL_NULL(execns_copy_fs_struct, copy_fs_struct);
DEFINE_STATIC_CALL_NULL(execns_free_fs_struct, execns_free_fs_t);
DEFINE_STATIC_CALL_NULL(execns_switch_fs_struct, copy_fs_struct);
DEFINE_STATIC_CALL_NULL(execns_exit_sem, execns_task_fn_t);
DEFINE_STATIC_CALL_NULL(execns_exit_shm, execns_task_fn_t);
DEFINE_STATIC_CALL_NULL(execns_put_ucounts, execns_put_ucounts_t);
DEFINE_STATIC_CALL_NULL(execns_free_uid, execns_free_uid_t);
DEFINE_STATIC_CALL_NULL(execns_alloc_uid, alloc_uid);
DEFINE_STATIC_CALL_NULL(execns_ftrace_free_filter, execns_ftrace_free_filter_t);
DEFINE_STATIC_CALL_NULL(execns_ftrace_find_rec_direct, execns_find_direct_t);
DEFINE_STATIC_CALL_NULL(execns_ftrace_is_dead, execns_ftrace_dead_t);
DEFINE_STATIC_CALL_NULL(execns_kallsyms_on_each_symbol, execns_kallsyms_each_t);
DEFINE_STATIC_CALL_NULL(execns_kallsyms_lookup_size_offset, execns_kallsyms_size_t);

typedef unsigned long execns_lookup_name_t(const char *name);
DEFINE_STATIC_CALL_NULL(execns_kallsyms_lookup_name, execns_lookup_name_t);

struct execns_func_entry {
	const char *name;
	struct static_call_key *key;
	void *tramp;
	bool optional;
};

#define FN(call, symbol, opt) { symbol, &STATIC_CALL_KEY(execns_##call),	\
				STATIC_CALL_TRAMP_ADDR(execns_##call), opt }

static const struct execns_func_entry execns_func_table[] = {
	FN(sys_execve, EXECNS_ARCH_SYS_EXECVE, false),
	/* A kernel without compat callers has no compat entries. */
	FN(compat_sys_execve, EXECNS_ARCH_COMPAT_SYS_EXECVE, !EXECNS_ARCH_HAS_COMPAT),
	FN(sys_close_range, EXECNS_ARCH_SYS_CLOSE_RANGE, false),
	FN(dispatch, EXECNS_SYS_CALL_SWITCH ? EXECNS_ARCH_DISPATCH : NULL, true),
	FN(compat_dispatch, EXECNS_SYS_CALL_SWITCH ? EXECNS_ARCH_COMPAT_DISPATCH : NULL, true),
	FN(unshare_nsproxy_namespaces, "unshare_nsproxy_namespaces", false),
	FN(switch_task_namespaces, "switch_task_namespaces", false),
	FN(free_nsproxy, EXECNS_FREE_NSPROXY_SYMBOL, false),
	FN(copy_fs_struct, "copy_fs_struct", false),
	FN(free_fs_struct, "free_fs_struct", false),
	FN(switch_fs_struct, "switch_fs_struct", EXECNS_SWITCH_FS_OPTIONAL),
	FN(exit_sem, "exit_sem", false),
	FN(exit_shm, "exit_shm", false),
	FN(put_ucounts, EXECNS_CRED_UCOUNTS ? "put_ucounts" : NULL, !EXECNS_CRED_UCOUNTS),
	FN(free_uid, EXECNS_FREE_UID_SYMBOL, !EXECNS_FREE_UID_SYMBOL),
	FN(alloc_uid, "alloc_uid", false),
	FN(ftrace_free_filter, EXECNS_FTRACE_FREE_FILTER_SYMBOL, !EXECNS_FTRACE_FREE_FILTER_SYMBOL),
	FN(ftrace_find_rec_direct, "ftrace_find_rec_direct",
	   !(EXECNS_ARCH_KPROBE_RESETS_IP && EXECNS_HAVE_FTRACE_DIRECT)),
	FN(ftrace_is_dead, "ftrace_is_dead", true),
	/* Without them the load-time proof fails, and uid tables with it. */
	FN(kallsyms_on_each_symbol, "kallsyms_on_each_symbol", true),
	FN(kallsyms_lookup_size_offset, "kallsyms_lookup_size_offset", true),
};

struct execns_data_entry {
	const char *name;
	const void **addr;
	bool optional;
};

#define DATA(field, symbol, opt) { symbol, (const void **)&execns_syms.field, opt }

static const struct execns_data_entry execns_data_table[] = {
	DATA(sys_ni_syscall, EXECNS_ARCH_SYS_NI_SYSCALL, false),
	DATA(compat_sys_ni_syscall, EXECNS_ARCH_COMPAT_SYS_NI_SYSCALL, !EXECNS_ARCH_HAS_COMPAT),
	DATA(sys_call_table, EXECNS_ARCH_SYS_CALL_TABLE, true),
	DATA(compat_sys_call_table, EXECNS_ARCH_COMPAT_SYS_CALL_TABLE, true),
	DATA(ftrace_ops_list, "ftrace_ops_list", !EXECNS_ARCH_KPROBE_RESETS_IP),
	DATA(kprobe_ftrace_ops, "kprobe_ftrace_ops", !EXECNS_ARCH_KPROBE_RESETS_IP),
	DATA(uidhash_lock, "uidhash_lock", true),
	DATA(ucounts_lock, "ucounts_lock", true),
	DATA(uid_cachep, "uid_cachep", true),
};

static int execns_find_lookup_name(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	int ret;

	ret = register_kprobe(&kp);
	if (ret) {
		pr_err("cannot find kallsyms_lookup_name (kprobe: %d)\n", ret);
		return ret;
	}
	static_call_update(execns_kallsyms_lookup_name,
			   (execns_lookup_name_t *)kp.addr);
	unregister_kprobe(&kp);
	return 0;
}

/* Address of @name, 0 (with an error logged unless @optional) if absent. */
static unsigned long execns_lookup(const char *name, bool optional)
{
	unsigned long addr = static_call(execns_kallsyms_lookup_name)(name);

	if (!addr && !optional)
		pr_err("cannot resolve kernel symbol %s\n", name);
	return addr;
}

unsigned long execns_symbol_addr(const char *name)
{
	return execns_lookup(name, false);
}

/*
 * A symbol's size in the table runs to the next symbol's address, so
 * stepping by it visits every text address once; of two names at one
 * address (an alias), %ps prints one.
 */
unsigned long execns_next_text_symbol(unsigned long addr, char *name)
{
	static unsigned long stext, etext;
	unsigned long size, off;

	if (!addr) {
		stext = execns_lookup("_stext", false);
		etext = execns_lookup("_etext", false);
		addr = stext;
	} else if (execns_call(kallsyms_lookup_size_offset)(addr, &size, &off) && size > off) {
		addr += size - off;
	} else {
		return 0;
	}
	if (!addr || addr >= etext)
		return 0;
	snprintf(name, KSYM_NAME_LEN, "%ps", (void *)addr);
	return addr;
}

/*
 * 7.x's put_nsproxy() ends in deactivate_nsproxy(), and an nsproxy never
 * installed must be freed with nsproxy_free() instead (compat.h).  That
 * choice was made from the headers the module was built against; freeing
 * with the wrong one drops active references never taken, or leaks the
 * namespaces, so the running kernel must agree with it.
 */
static int execns_check_nsproxy_free(void)
{
	bool deactivates = execns_lookup("deactivate_nsproxy", true);

	if (deactivates == EXECNS_NSPROXY_DEACTIVATES)
		return 0;
	pr_err("this kernel %s deactivate_nsproxy() but execns was built for one that %s: rebuild it against this kernel's headers\n",
	       deactivates ? "has" : "lacks", deactivates ? "lacks it" : "has it");
	return -ENOEXEC;
}

int execns_symbols_init(void)
{
	const struct execns_func_entry *f;
	const struct execns_data_entry *d;
	unsigned long addr;
	size_t found = 0, absent = 0;
	int ret;

	ret = execns_find_lookup_name();
	if (ret)
		return ret;

	for (d = execns_data_table; d < execns_data_table + ARRAY_SIZE(execns_data_table); d++) {
		addr = execns_lookup(d->name, d->optional);
		if (!addr && !d->optional)
			return -ENOENT;
		*d->addr = (const void *)addr;
		if (addr)
			found++;
		else
			absent++;
	}
	for (f = execns_func_table; f < execns_func_table + ARRAY_SIZE(execns_func_table); f++) {
		/* (NULL: not on this architecture or kernel) */
		addr = f->name ? execns_lookup(f->name, f->optional) : 0;
		if (!addr && !f->optional)
			return -ENOENT;
		if (addr) {
			__static_call_update(f->key, f->tramp, (void *)addr);
			found++;
		} else {
			absent++;
		}
	}
	if (execns_syms.uid_cachep)
		execns_syms.uid_cache = READ_ONCE(*execns_syms.uid_cachep);
	ret = execns_check_nsproxy_free();
	if (ret)
		return ret;

	/* Absent: optional ones this kernel lacks, or none on this arch. */
	pr_info("resolved %zu kernel symbols (%zu optional ones absent)\n",
		found, absent);
	return 0;
}
