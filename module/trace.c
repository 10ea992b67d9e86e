// SPDX-License-Identifier: GPL-2.0
/*
 * The module's tracepoints: trace.h declares them, this object defines
 * them.  The calls are in exec.c (execns_call, execns_return) and uidtab.c
 * (table and user_struct life).
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/uaccess.h>
#include <linux/compat.h>
#include <asm/ptrace.h>
#include "arch.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

void execns_trace_call(unsigned long flags, const struct pt_regs *uregs, bool compat)
{
	char name[EXECNS_TRACE_NAME_LEN];
	const char __user *ufile;

	if (!trace_execns_call_enabled())
		return;
	ufile = execns_syscall_uptr(uregs, 1, compat);
	if (strncpy_from_user(name, ufile, sizeof(name)) < 0)
		name[0] = '\0';
	name[sizeof(name) - 1] = '\0';
	trace_execns_call(flags, name);
}
