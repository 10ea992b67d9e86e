// SPDX-License-Identifier: GPL-2.0
/*
 * execns(flags, filename, argv, envp).
 *
 * Ordering is the whole design:
 *  1. prepare: everything that can fail - flag checks, permission checks,
 *     the new namespaces, a private fs_struct for CLONE_NEWNS - is built
 *     aside, touching nothing the caller owns;
 *  2. exec: the kernel's own execve runs with the caller's arguments.  If it
 *     fails before its point of no return, the prepared state is dropped and
 *     the caller is exactly as it was;
 *  3. commit: the exec succeeded, so the old program's references are gone;
 *     the namespaces and fs_struct are switched and every descriptor above
 *     2 is closed.  Nothing here can fail, and it all happens before the
 *     syscall returns to the new program's first instruction.
 *
 * CLONE_NEWUSER is the seed's user namespace: a new uid table (uidtab.c)
 * with a fresh user_struct for the caller's uid, built in step 1.  The exec
 * itself puts it in the credentials it commits (probes.c watches
 * commit_creds() for this task), so the switch happens exactly at the point
 * of no return and a failed exec never saw it.
 *
 * CLONE_NEWNS needs a private fs_struct because copy_mnt_ns() rewrites the
 * root and cwd of the fs_struct it is given into the new mount tree at once;
 * handing it current->fs would leave a failed caller rooted in a detached
 * copy.  unshare(2) works on a copy for the same reason.
 */
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/sched/signal.h>
#include <linux/nsproxy.h>
#include <linux/fs_struct.h>
#include <linux/shm.h>
#include <linux/sem.h>
#include <linux/cred.h>
#include <linux/capability.h>
#include <asm/ptrace.h>
#include "exec.h"
#include "symbols.h"
#include "uidtab.h"
#include "handover.h"
#include "uidhooks.h"
#include "fault.h"
#include "trace.h"

struct execns_ctx {
	unsigned long flags;
	struct nsproxy *nsp;	/* new namespaces, NULL when none asked */
	struct fs_struct *fs;	/* private fs_struct for CLONE_NEWNS */
	struct user_struct *user;	/* CLONE_NEWUSER: first user of the new table */
	struct execns_cred_swap swap;
};

/*
 * unshare(2) would copy an fs_struct shared with another process; execns
 * cannot switch the other process, and a copy would silently split them,
 * so it refuses.  Threads of the caller go away at exec anyway.
 */
static int execns_fs_check_private(void)
{
	return READ_ONCE(current->fs->users) > get_nr_threads(current) ? -EINVAL : 0;
}

static int execns_prepare(struct execns_ctx *ctx)
{
	int ret;

	if (ctx->flags & ~(unsigned long)(EXECNS_NS_FLAGS | CLONE_NEWUSER))
		return -EINVAL;
	/* A fresh set of per-user budgets is a privilege, as in the seed. */
	if ((ctx->flags & CLONE_NEWUSER) && !capable(CAP_SYS_ADMIN))
		return -EPERM;

	if (ctx->flags & CLONE_NEWNS) {
		ret = execns_fs_check_private();
		if (ret)
			return ret;
		ctx->fs = execns_should_fail("fs_struct") ? NULL :
			  execns_call(copy_fs_struct)(current->fs);
		if (!ctx->fs)
			return -ENOMEM;
	}

	/*
	 * Checks CAP_SYS_ADMIN in the caller's user namespace, as unshare(2).
	 * CLONE_NEWUSER is ours, not the kernel's user namespace.
	 */
	ret = execns_should_fail("namespaces") ? -ENOMEM :
	      execns_call(unshare_nsproxy_namespaces)(ctx->flags & ~CLONE_NEWUSER,
						      &ctx->nsp, NULL, ctx->fs);
	if (ret)
		goto free_fs;

	if (ctx->flags & CLONE_NEWUSER) {
		/* The hooks are live before any task can be in the table. */
		ret = execns_uidhooks_get();
		if (ret)
			goto put_nsproxy;
		ctx->user = execns_uidtab_create(execns_uidtab_of(current_user()),
						 current_uid());
		execns_uidhooks_put();
		if (IS_ERR(ctx->user)) {
			ret = PTR_ERR(ctx->user);
			ctx->user = NULL;
			goto put_nsproxy;
		}
	}
	return 0;

put_nsproxy:
	if (ctx->nsp)
		execns_call(free_nsproxy)(ctx->nsp);
free_fs:
	if (ctx->fs)
		execns_call(free_fs_struct)(ctx->fs);
	return ret;
}

/* Undo execns_prepare(); the caller never saw any of it. */
static void execns_abort(struct execns_ctx *ctx)
{
	if (ctx->nsp)
		execns_call(free_nsproxy)(ctx->nsp);
	if (ctx->fs)
		execns_call(free_fs_struct)(ctx->fs);
}

/*
 * Run the kernel's execve with the caller's registers shifted by one
 * argument.  The copy is only read for arguments: execve sets up the new
 * program in the task's real pt_regs.
 */
static long execns_execve(const struct pt_regs *uregs, bool compat)
{
	struct pt_regs regs = *uregs;

	if (compat) {
		regs.bx = uregs->cx;
		regs.cx = uregs->dx;
		regs.dx = uregs->si;
		return execns_call(ia32_sys_execve)(&regs);
	}
	regs.di = uregs->si;
	regs.si = uregs->dx;
	regs.dx = uregs->r10;
	return execns_call(x64_sys_execve)(&regs);
}

static void execns_install_fs(struct fs_struct *new_fs)
{
	struct fs_struct *old = execns_switch_fs_struct(new_fs);

	if (old)
		execns_call(free_fs_struct)(old);
}

/* The seed's flush_all_old_files(): close_range(3, ~0U, 0), which cannot fail. */
static void execns_close_all_files(void)
{
	struct pt_regs regs = {
		.di = 3,
		.si = ~0U,
		.dx = 0,
	};

	execns_call(x64_sys_close_range)(&regs);
}

static void execns_commit(struct execns_ctx *ctx)
{
	/*
	 * Same order as unshare(2): semaphore undo and the shm segments this
	 * task created belong to the old IPC namespace and are settled there.
	 */
	if (ctx->flags & CLONE_NEWIPC) {
		execns_call(exit_sem)(current);
		execns_call(exit_shm)(current);
		shm_init_task(current);
	}
	if (ctx->nsp)
		execns_call(switch_task_namespaces)(current, ctx->nsp);
	if (ctx->fs)
		execns_install_fs(ctx->fs);
	execns_close_all_files();
}

/*
 * Around the exec, the commit_creds() probe may move ctx->user into the new
 * credentials.  Afterwards drop whichever user_struct reference is ours: the
 * one the new credentials no longer hold, or the unused table user (which
 * ends the table).  free_uid() routes either to its own table.
 */
static long execns_execve_user(struct execns_ctx *ctx,
			       const struct pt_regs *uregs, bool compat)
{
	struct user_struct *drop;
	long ret;

	if (!ctx->user)
		return execns_execve(uregs, compat);

	execns_cred_swap_begin(&ctx->swap, ctx->user);
	ret = execns_execve(uregs, compat);
	drop = execns_cred_swap_end(&ctx->swap);
	if (!ret && drop == ctx->user) {
		/* Past the point of no return, yet not in the table: never run half-switched. */
		pr_err("pid %d: new credentials missed the uid table; killing it\n",
		       task_pid_nr(current));
		force_sig(SIGKILL);
	}
	free_uid(drop);
	return ret;
}

long execns_syscall(const struct pt_regs *uregs, bool compat)
{
	struct execns_ctx ctx = {
		.flags = compat ? (u32)uregs->bx : uregs->di,
	};
	u64 start = ktime_get_ns();
	long ret;

	execns_trace_call(ctx.flags, uregs, compat);
	ret = execns_prepare(&ctx);
	if (ret)
		goto out;

	ret = execns_execve_user(&ctx, uregs, compat);
	if (ret) {
		execns_abort(&ctx);
		goto out;
	}

	execns_commit(&ctx);
out:
	trace_execns_return(ret, ktime_get_ns() - start);
	return ret;
}
