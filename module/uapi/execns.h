/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR LGPL-2.1-or-later */
/*
 * execns's interface to user space: the facts that the module, libexecns,
 * the CLI and the guest tests must agree on, kept here once, as WireGuard
 * keeps its own in src/uapi/.  A change here is a change of the ABI.
 *
 *  - the flags execns(2) accepts;
 *  - its syscall numbers on each ABI, and the sysfs files where the
 *    loaded module says which it took;
 *  - /proc/execns: its file names and the keywords of their formats.
 *
 * Kernel code includes it as "uapi/execns.h" (Kbuild puts module/ on the
 * include path).  User space includes <execns.h>, which includes it as
 * <execns/uapi.h>: libexecns-dev installs it as /usr/include/execns/uapi.h,
 * and userspace/include/execns/uapi.h is a link to this file, so the tree
 * and an installed system read the same name.
 *
 * Macros only, needing no other header (not even <linux/types.h>), so that
 * kernel code, C11 programs built with -Wall -Wextra -Werror, and programs
 * with no C library (abi31-caller) can all include it.
 */
#ifndef _UAPI_EXECNS_H
#define _UAPI_EXECNS_H

/* ------------------------------------------------------------------ flags */

/*
 * The flags are the kernel's CLONE_NEW* values.  <sched.h> defines them
 * only with _GNU_SOURCE, <linux/sched.h> in the kernel; these fallbacks
 * are spelled exactly as both spell them (the same tokens), so that either
 * may come before or after this header without a redefinition warning.
 */
#ifndef CLONE_NEWNS
#define CLONE_NEWNS	0x00020000
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP	0x02000000
#endif
#ifndef CLONE_NEWUTS
#define CLONE_NEWUTS	0x04000000
#endif
#ifndef CLONE_NEWIPC
#define CLONE_NEWIPC	0x08000000
#endif
#ifndef CLONE_NEWUSER
#define CLONE_NEWUSER	0x10000000
#endif
#ifndef CLONE_NEWPID
#define CLONE_NEWPID	0x20000000
#endif
#ifndef CLONE_NEWNET
#define CLONE_NEWNET	0x40000000
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME	0x00000080
#endif

/*
 * A new uid accounting table (the 2006 "user namespace"), not a kernel
 * user namespace: execns(2) gives CLONE_NEWUSER this meaning, and this
 * name says so where it is used.
 */
#define EXECNS_NEWUIDTABLE	CLONE_NEWUSER

/* The kernel namespaces execns(2) unshares: all unshare(2) can but the user one. */
#define EXECNS_NS_FLAGS		(CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNS | \
				 CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWCGROUP | \
				 CLONE_NEWTIME)

/* Every flag execns(2) accepts; any other bit is EINVAL. */
#define EXECNS_FLAGS		(EXECNS_NS_FLAGS | EXECNS_NEWUIDTABLE)

/* -------------------------------------------------------- syscall numbers */

/*
 * The module's default slots, one per ABI: numbers no kernel it supports
 * assigns (a load may choose others with its syscall_nr and
 * compat_syscall_nr parameters, and refuses one the kernel uses).
 *   x86_64: in the unused 335-423 hole, kept free for the shared numbering;
 *   i386: reserved for sys_setaltroot, never used;
 *   arm64: in the generic table's unassigned 295-402;
 *   AArch32: unused in arm's syscall.tbl (222 was tux);
 *   s390x: 403-423 are the 32-bit ABIs' time64 calls, never 64-bit ones;
 *   31-bit s390: 387-391 are "room for arch specific syscalls", unused.
 */
#define EXECNS_NR_X86_64	400
#define EXECNS_NR_I386		285
#define EXECNS_NR_ARM64		400
#define EXECNS_NR_AARCH32	223
#define EXECNS_NR_S390X		403
#define EXECNS_NR_S390		391

/*
 * The number upstream/ (the in-tree twin) provisionally gives execns(2) on
 * every ABI it wires (x86_64, i386, arm64, AArch32, s390x, 31-bit s390;
 * not x32).  libexecns takes the kernel headers' __NR_execns instead where
 * they define one.
 */
#define EXECNS_NR_IN_TREE	463

/*
 * Where the loaded module publishes the slots it took (its parameters),
 * and its version, as MODULE_VERSION() publishes it.  A slot file holds a
 * decimal number and a newline; a reader takes anything else as no slot.
 */
#define EXECNS_SYSFS_MODULE		"/sys/module/execns"
#define EXECNS_SYSFS_DIR		EXECNS_SYSFS_MODULE "/parameters"
#define EXECNS_SYSFS_SYSCALL_NR		EXECNS_SYSFS_DIR "/syscall_nr"
#define EXECNS_SYSFS_COMPAT_SYSCALL_NR	EXECNS_SYSFS_DIR "/compat_syscall_nr"
#define EXECNS_SYSFS_VERSION		EXECNS_SYSFS_MODULE "/version"

/*
 * A kernel with execns(2) of its own (the in-tree twin, upstream/) has this
 * file, the caller's uid table; the module's kernels do not.
 */
#define EXECNS_PROC_UIDTAB		"/proc/self/ns/uidtab"

#ifndef __KERNEL__
/*
 * For the ABI this program is compiled for (never for the module, which
 * serves two ABIs at once): the slot's sysfs file and the module's default
 * slot.  i386 code enters an x86_64 kernel through the 32-bit syscall
 * table, where the module has a slot of its own, and so does AArch32 code
 * on an arm64 kernel and 31-bit code on s390x (the module has no port to
 * 32-bit kernels).  x32 has no slot: EXECNS_NR_DEFAULT stays undefined.
 */
#if defined(__i386__) || defined(__arm__) || (defined(__s390__) && !defined(__s390x__))
#define EXECNS_SYSFS_NR_FILE		EXECNS_SYSFS_COMPAT_SYSCALL_NR
#else
#define EXECNS_SYSFS_NR_FILE		EXECNS_SYSFS_SYSCALL_NR
#endif

#if defined(__x86_64__) && !defined(__ILP32__)
#define EXECNS_NR_DEFAULT	EXECNS_NR_X86_64
#elif defined(__i386__)
#define EXECNS_NR_DEFAULT	EXECNS_NR_I386
#elif defined(__aarch64__)
#define EXECNS_NR_DEFAULT	EXECNS_NR_ARM64
#elif defined(__arm__)
#define EXECNS_NR_DEFAULT	EXECNS_NR_AARCH32
#elif defined(__s390x__)
#define EXECNS_NR_DEFAULT	EXECNS_NR_S390X
#elif defined(__s390__)
#define EXECNS_NR_DEFAULT	EXECNS_NR_S390
#endif
#endif /* !__KERNEL__ */

/* ------------------------------------------------------------ /proc/execns */

/*
 * The module's read-only view of its uid tables and of its load-time
 * proof; the twin has none of it.  Each file's name, then its path:
 *
 *   /proc/execns/tables	every table, then each user_struct in it,
 *				then each table's ucounts
 *   /proc/execns/self		the reading task's table id (0: the global one)
 *   /proc/execns/stats		live tables, objects allocated and freed, hooks
 *   /proc/execns/pids		the tasks in module tables, and their table ids
 *   /proc/execns/proof		the load-time proof's report
 */
#define EXECNS_PROC_NAME		"execns"	/* the directory, in /proc */
#define EXECNS_PROC_TABLES_NAME		"tables"
#define EXECNS_PROC_SELF_NAME		"self"
#define EXECNS_PROC_STATS_NAME		"stats"
#define EXECNS_PROC_PIDS_NAME		"pids"
#define EXECNS_PROC_PROOF_NAME		"proof"

#define EXECNS_PROC_DIR			"/proc/" EXECNS_PROC_NAME
#define EXECNS_PROC_TABLES		EXECNS_PROC_DIR "/" EXECNS_PROC_TABLES_NAME
#define EXECNS_PROC_SELF		EXECNS_PROC_DIR "/" EXECNS_PROC_SELF_NAME
#define EXECNS_PROC_STATS		EXECNS_PROC_DIR "/" EXECNS_PROC_STATS_NAME
#define EXECNS_PROC_PIDS		EXECNS_PROC_DIR "/" EXECNS_PROC_PIDS_NAME
#define EXECNS_PROC_PROOF		EXECNS_PROC_DIR "/" EXECNS_PROC_PROOF_NAME

/*
 * The formats, one record per line, fields separated by one space; a
 * reader dispatches on a line's first word, defined below.  Numbers are
 * decimal; IDs are table ids (0: the kernel's global table).
 *
 * tables:
 *   "table ID parent ID users N tasks N refs N", then for each user_struct
 *   in that table "uid UID table ID refs N epoll_watches N pipe_bufs N
 *   unix_inflight N locked_vm N watches N", followed on the same line by
 *   " nproc N sigpending N msgqueue N memlock N" where the user_struct
 *   keeps those (5.10); after every table, for each of the module's
 *   ucounts "ucounts uid UID ns INUM table ID refs N nproc N sigpending N
 *   msgqueue N memlock N inotify_instances N inotify_watches N
 *   fanotify_groups N fanotify_marks N user_namespaces N".
 * self:
 *   "ID".
 * stats:
 *   "KEY N" for each counter below, "hooks armed" or "hooks disarmed", and
 *   one "pinned: WHY" line for each reason rmmod is refused now.
 * pids:
 *   "PID ID" for each task in a module table, PIDs as seen from the
 *   reader's PID namespace.
 * proof:
 *   "entry window -B +A" (how many bytes before and after a symbol a
 *   branch still starts its function), one "ok CHECK: DETAIL" or
 *   "FAIL CHECK: DETAIL COST" line per check, "report truncated: ..." when
 *   some did not fit, and last "verdict proven|partial|refused".
 */
#define EXECNS_TABLES_TABLE		"table"
#define EXECNS_TABLES_UID		"uid"
#define EXECNS_TABLES_UCOUNTS		"ucounts"

#define EXECNS_STAT_TABLES		"tables"	/* live tables */
#define EXECNS_STAT_USER_ALLOCS		"user_allocs"	/* since load */
#define EXECNS_STAT_USER_FREES		"user_frees"
#define EXECNS_STAT_USERS		"users"		/* allocs - frees */
#define EXECNS_STAT_UCOUNTS_ALLOCS	"ucounts_allocs"
#define EXECNS_STAT_UCOUNTS_FREES	"ucounts_frees"
#define EXECNS_STAT_UCOUNTS		"ucounts"
#define EXECNS_STAT_HOOKS		"hooks"		/* then one of: */
#define EXECNS_STAT_ARMED		"armed"
#define EXECNS_STAT_DISARMED		"disarmed"
#define EXECNS_STAT_HOOK_ARMS		"hook_arms"	/* times armed since load */
#define EXECNS_STAT_PINNED		"pinned:"

#define EXECNS_PROOF_WINDOW		"entry window"
#define EXECNS_PROOF_OK			"ok"
#define EXECNS_PROOF_FAIL		"FAIL"
#define EXECNS_PROOF_TRUNCATED		"report truncated:"
#define EXECNS_PROOF_VERDICT		"verdict"
/* The verdicts: every check passed; uid tables offered; uid tables refused. */
#define EXECNS_VERDICT_PROVEN		"proven"
#define EXECNS_VERDICT_PARTIAL		"partial"
#define EXECNS_VERDICT_REFUSED		"refused"
/*
 * How a FAIL line ends: what the failure costs.  An accounting cost names
 * the counters that may stay global between the two, as in
 * " (costs accounting, not memory: epoll_watches may stay global)".
 */
#define EXECNS_PROOF_REFUSES_TABLES	" (refuses uid tables)"
#define EXECNS_PROOF_REFUSES_FORBID	" (refuses forbid_unshare)"
#define EXECNS_PROOF_COSTS_ACCOUNTING	" (costs accounting, not memory: "
#define EXECNS_PROOF_MAY_STAY_GLOBAL	" may stay global)"

#endif /* _UAPI_EXECNS_H */
