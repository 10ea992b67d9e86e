// SPDX-License-Identifier: GPL-2.0
/*
 * execns.ko for a native 32-bit x86 kernel (ARCH=i386, e.g. Debian's
 * 686-pae): a module that refuses to load, with one line saying why.
 *
 * The module is x86_64's: its syscall slot claims a number through
 * x86_64's dispatcher (__x64_sys_ni_syscall, pt_regs with r10, r8, r9),
 * and its uid hooks change the hooked call's ip through ftrace with
 * arguments (CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS), which x86 has on
 * x86_64 only.  A native i386 kernel has neither, so objs.mk builds this
 * file alone for it, not the port.  i386 programs are served by an x86_64
 * kernel (Debian builds IA32_EMULATION): its compat slot, number 285.
 */
#include <linux/errno.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/printk.h>

static int __init execns_native32_init(void)
{
	pr_err("native 32-bit x86 kernels are not supported (no x86_64 syscall dispatcher, no ftrace with arguments): boot an x86_64 kernel, whose compat slot serves i386 programs; see docs/design.md\n");
	return -EOPNOTSUPP;
}

module_init(execns_native32_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("execns(2): refuses native 32-bit x86 kernels (x86_64 kernels only)");
MODULE_AUTHOR("The execns authors");
MODULE_VERSION(EXECNS_VERSION);
