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
 * itself puts it in the credentials it commits (handover.c hooks
 * commit_creds() for this task), so the switch happens exactly at the point
 * of no return and a failed exec never saw it.
 *
 * Where the exec itself moves the task into another namespace (its
 * time_ns_for_children, see execns_carry_time_ns()), the prepared nsproxy
 * follows, so that installing it never undoes what execve did.
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
#include <linux/time_namespace.h>
#include <linux/fs_struct.h>
#include <linux/shm.h>
#include <linux/sem.h>
#include <linux/cred.h>
#include <linux/capability.h>
#include <linux/mm_types.h>
#include <linux/auxvec.h>
#include <asm/ptrace.h>
#include "arch.h"
#include "exec.h"
#include "symbols.h"
#include "uidtab.h"
#include "handover.h"
#include "uidhooks.h"
#include "fault.h"
#include "proof.h"
#include "trace.h"

struct execns_ctx {
	unsigned long flags;
	struct nsproxy *nsp;	/* new namespaces, NULL when none asked */
	struct fs_struct *fs;	/* private fs_struct for CLONE_NEWNS */
	struct user_struct *user;	/* CLONE_NEWUSER: first user of the new table */
	struct ucounts *ucounts;	/* and its ucounts for the caller's uid */
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

/*
 * The exec moves the task into its time_ns_for_children
 * (exec_task_namespaces(), where the kernel has it) and points the vDSO at
 * that namespace's offsets; the nsproxy installed at commit replaces the
 * one the exec made, so it must carry the same time namespace, or the
 * program's clock_gettime() would read the old namespace while /proc shows
 * it.  Done here, before the exec, while current->nsproxy still holds a
 * reference on both namespaces: dropping nsp's reference on the old one is
 * never the last, and a failed exec frees nsp with balanced references.
 * nsp is not installed yet, so it holds no "active" references (7.x);
 * switch_task_namespaces() takes them for whatever it carries.  With
 * CLONE_NEWTIME in the flags, nsp->time_ns_for_children is the new
 * namespace: the program's children enter it, the program does not.
 */
static void execns_carry_time_ns(struct nsproxy *nsp)
{
	struct time_namespace *next = current->nsproxy->time_ns_for_children;

	if (!EXECNS_EXEC_ENTERS_TIME_NS || !nsp || nsp->time_ns == next)
		return;
	get_time_ns(next);
	execns_put_time_ns_nonfinal(nsp->time_ns);
	nsp->time_ns = next;
}

/*
 * CLONE_NEWUSER: a new table, child of the caller's, with a user_struct and
 * a ucounts for the caller's uid, for the exec's credentials.  The hooks
 * are armed before any of it exists, and the table keeps them armed.
 */
static int execns_prepare_table(struct execns_ctx *ctx)
{
	int ret;

	ret = execns_uidhooks_get();
	if (ret)
		return ret;
	ctx->user = execns_uidtab_create(execns_uidtab_of(current_user()), current_uid());
	execns_uidhooks_put();
	if (IS_ERR(ctx->user)) {
		ret = PTR_ERR(ctx->user);
		ctx->user = NULL;
		return ret;
	}
	/* Credentials without ucounts (5.10, compat.h) get none. */
	if (!EXECNS_CRED_UCOUNTS)
		return 0;
	ctx->ucounts = execns_uidtab_ucounts(execns_uidtab_of(ctx->user),
					     current_user_ns(), current_uid());
	if (!ctx->ucounts) {
		execns_free_uid(ctx->user);	/* the table's last reference elsewhere */
		ctx->user = NULL;
		execns_uidtab_reap_now();
		return -ENOMEM;
	}
	return 0;
}

static int execns_prepare(struct execns_ctx *ctx)
{
	int ret;

	if (ctx->flags & ~(unsigned long)EXECNS_FLAGS)
		return -EINVAL;
	/* Uid tables cannot work on this kernel (proof.c, uidtab.c say why). */
	if ((ctx->flags & CLONE_NEWUSER) &&
	    (!execns_proof_tables() || execns_uidtab_unavailable()))
		return -EOPNOTSUPP;
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
	execns_carry_time_ns(ctx->nsp);

	if (ctx->flags & CLONE_NEWUSER) {
		ret = execns_prepare_table(ctx);
		if (ret)
			goto put_nsproxy;
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

	execns_syscall_shift_args(&regs, 3, compat);
	if (compat)
		return execns_call(compat_sys_execve)(&regs);
	return execns_call(sys_execve)(&regs);
}

static void execns_install_fs(struct fs_struct *new_fs)
{
	struct fs_struct *old = execns_switch_fs_struct(new_fs);

	if (old)
		execns_call(free_fs_struct)(old);
}

static void execns_close_range(unsigned int first, unsigned int last)
{
	struct pt_regs regs = { };

	*execns_arch_argp(&regs, 0, false) = first;
	*execns_arch_argp(&regs, 1, false) = last;
	if (first <= last)
		execns_call(sys_close_range)(&regs);
}

/*
 * The descriptor a binfmt_misc 'O' (or 'C') entry opened on the binary for
 * its interpreter, from the new program's auxv (AT_EXECFD), or -1.
 * saved_auxv was written by this exec and only an exec of this task
 * rewrites it.
 */
static int execns_exec_fd(void)
{
	const unsigned long *auxv = current->mm->saved_auxv;
	unsigned int i;

	for (i = 0; i + 1 < AT_VECTOR_SIZE && auxv[i] != AT_NULL; i += 2)
		if (auxv[i] == AT_EXECFD)
			return auxv[i + 1] <= INT_MAX ? (int)auxv[i + 1] : -1;
	return -1;
}

/*
 * The seed's flush_all_old_files(): close everything above 2, which cannot
 * fail, except the interpreter's AT_EXECFD, which belongs to the new
 * program (exec installed it).
 */
static void execns_close_all_files(void)
{
	int keep = execns_exec_fd();

	if (keep > 2) {
		execns_close_range(3, keep - 1);
		execns_close_range(keep + 1, ~0U);
	} else {
		execns_close_range(3, ~0U);
	}
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
 * Whether the task now runs as the table's user.  The hook puts the table
 * user into the first cred this task commits during the exec, and that is
 * not always the exec's own: task work run inside begin_new_exec() (from
 * io_uring_task_cancel(): keyctl(KEYCTL_SESSION_TO_PARENT)'s session
 * change, for one) commits a cred of its own first, which the exec's
 * commit_creds() then replaces.  So check what the task holds, not only
 * that the hand-over happened.  Reading the task's own creds needs no lock.
 */
static bool execns_runs_as(const struct user_struct *user, const struct ucounts *uc)
{
	return current_cred()->user == user && current_real_cred()->user == user &&
	       execns_cred_ucounts(current_real_cred()) == uc;
}

/*
 * Around the exec, the commit_creds() hook may move ctx->user and
 * ctx->ucounts into the new credentials.  Afterwards drop whichever
 * references are ours (the ucounts as the user_struct): the
 * one the cred it went into no longer holds, or the unused table user (the
 * reaper then ends the table).  The kernel's free_uid() and put_ucounts()
 * are right for either kind (uidtab.c).  If the
 * table user went into a cred the exec then replaced, that cred's release
 * drops it; the balance is the same.
 *
 * The task-work case needs a keyctl session change queued by another
 * process while this task is inside execns, between the syscall's entry
 * and begin_new_exec(), plus an io_uring request still in flight so that
 * io_uring_task_cancel() runs task work.  A tracer orders it: it holds the
 * task at the syscall-entry stop while the change is queued
 * (tests/guest/test-execns-semantics.c, d7, asserts the kill below).
 */
static long execns_execve_user(struct execns_ctx *ctx,
			       const struct pt_regs *uregs, bool compat)
{
	struct ucounts *drop_ucounts;
	struct user_struct *drop;
	long ret;

	if (!ctx->user)
		return execns_execve(uregs, compat);

	execns_cred_swap_begin(&ctx->swap, ctx->user, ctx->ucounts);
	ret = execns_execve(uregs, compat);
	drop = execns_cred_swap_end(&ctx->swap, &drop_ucounts);
	if (!ret && !execns_runs_as(ctx->user, ctx->ucounts)) {
		/* Past the point of no return, yet not in the table: never run half-switched. */
		pr_err("pid %d: new credentials missed the uid table; killing it\n",
		       task_pid_nr(current));
		force_sig(SIGKILL);
	}
	execns_free_uid(drop);
	if (drop_ucounts)
		execns_call(put_ucounts)(drop_ucounts);
	/* A failed exec leaves nothing behind: the table it never entered goes now. */
	if (ret)
		execns_uidtab_reap_now();
	return ret;
}

long execns_syscall(const struct pt_regs *uregs, bool compat)
{
	struct execns_ctx ctx = {
		.flags = execns_syscall_arg(uregs, 0, compat),
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
