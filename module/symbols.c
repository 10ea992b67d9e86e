// SPDX-License-Identifier: GPL-2.0
/*
 * Resolution of unexported kernel symbols.
 *
 * kallsyms_lookup_name() has not been exported since 5.7; its own address is
 * read from a kprobe registered on it and released at once, the usual way
 * out-of-tree code finds it.  Every other symbol is looked up through it.
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include "symbols.h"

struct execns_syms execns_syms;

struct execns_sym_entry {
	const char *name;
	void **addr;
	bool optional;
};

#define SYM(field, symbol) { symbol, (void **)&execns_syms.field, false }
#define OPT(field, symbol) { symbol, (void **)&execns_syms.field, true }

static const struct execns_sym_entry execns_sym_table[] = {
	SYM(x64_sys_execve, "__x64_sys_execve"),
	SYM(ia32_sys_execve, "__ia32_compat_sys_execve"),
	SYM(x64_sys_close_range, "__x64_sys_close_range"),
	SYM(x64_sys_ni_syscall, "__x64_sys_ni_syscall"),
	SYM(ia32_sys_ni_syscall, "__ia32_sys_ni_syscall"),
	SYM(unshare_nsproxy_namespaces, "unshare_nsproxy_namespaces"),
	SYM(switch_task_namespaces, "switch_task_namespaces"),
	SYM(free_nsproxy, EXECNS_FREE_NSPROXY_SYMBOL),
	SYM(copy_fs_struct, "copy_fs_struct"),
	SYM(free_fs_struct, "free_fs_struct"),
	{ "switch_fs_struct", (void **)&execns_syms.switch_fs_struct, EXECNS_SWITCH_FS_OPTIONAL },
	SYM(exit_sem, "exit_sem"),
	SYM(exit_shm, "exit_shm"),
	OPT(sys_call_table, "sys_call_table"),
	OPT(ia32_sys_call_table, "ia32_sys_call_table"),
};

static unsigned long (*execns_lookup_name)(const char *name);

static int execns_find_lookup_name(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	int ret;

	ret = register_kprobe(&kp);
	if (ret) {
		pr_err("cannot find kallsyms_lookup_name (kprobe: %d)\n", ret);
		return ret;
	}
	execns_lookup_name = (void *)kp.addr;
	unregister_kprobe(&kp);
	return 0;
}

int execns_symbols_init(void)
{
	const struct execns_sym_entry *e;
	unsigned long addr;
	int ret;

	ret = execns_find_lookup_name();
	if (ret)
		return ret;

	for (e = execns_sym_table; e < execns_sym_table + ARRAY_SIZE(execns_sym_table); e++) {
		addr = execns_lookup_name(e->name);
		if (!addr && !e->optional) {
			pr_err("cannot resolve kernel symbol %s\n", e->name);
			return -ENOENT;
		}
		if (!addr)
			pr_debug("optional symbol %s not found\n", e->name);
		*e->addr = (void *)addr;
	}
	pr_info("resolved %zu kernel symbols\n", ARRAY_SIZE(execns_sym_table));
	return 0;
}
