/* SPDX-License-Identifier: GPL-2.0 */
/*
 * execns's tracepoints (events/execns/ in tracefs), for ftrace, perf and
 * bpftrace users; the SystemTap tapset in 'tracing/' sees the same points.
 *
 *   execns_call     entry of execns(2): flags, filename (its first
 *                   EXECNS_TRACE_NAME_LEN - 1 bytes, "" if unreadable)
 *   execns_return   its result and how long it took, in ns
 *   uid_alloc       a user_struct joined a module table
 *   uid_find        a lookup in a module table (find_user(), and the first
 *                   step of alloc_uid()); refs is 0 when nothing was found
 *   uid_free        the reaper freed a module user_struct: nothing but its
 *                   table held it any more; its counters should all be zero
 *   ucounts_alloc   a struct ucounts (RLIMIT_NPROC, SIGPENDING, MSGQUEUE and
 *                   MEMLOCK of credentials) joined a table
 *   ucounts_free    the reaper freed a module ucounts
 *   table_create    a new table, child of parent (0: the kernel's own table)
 *   table_destroy   the reaper freed a table: nothing but it held its objects
 *
 * refs never counts the table's own reference on each of its objects.
 *
 * Users of the kernel's global table do not pass through the module: the
 * tapset's kprobes cover those.
 */
#ifndef _EXECNS_TRACE_CALL_H
#define _EXECNS_TRACE_CALL_H
#include <linux/types.h>
struct pt_regs;
/* Emits execns_call, copying the filename only while the event is on. */
void execns_trace_call(unsigned long flags, const struct pt_regs *uregs, bool compat);
#endif

#undef TRACE_SYSTEM
#define TRACE_SYSTEM execns

#if !defined(_EXECNS_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _EXECNS_TRACE_H

#include <linux/tracepoint.h>
#include <linux/sched.h>
#include <linux/sched/user.h>
#include <linux/user_namespace.h>
#include "uidtab.h"

#define EXECNS_TRACE_NAME_LEN 128

TRACE_EVENT(execns_call,
	TP_PROTO(unsigned long flags, const char *filename),
	TP_ARGS(flags, filename),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__array(char, comm, TASK_COMM_LEN)
		__field(unsigned long, flags)
		__array(char, filename, EXECNS_TRACE_NAME_LEN)
	),
	TP_fast_assign(
		__entry->pid = task_pid_nr(current);
		memcpy(__entry->comm, current->comm, TASK_COMM_LEN);
		__entry->flags = flags;
		strscpy(__entry->filename, filename, EXECNS_TRACE_NAME_LEN);
	),
	TP_printk("pid=%d comm=%s flags=%s filename=%s",
		  __entry->pid, __entry->comm,
		  __print_flags(__entry->flags, "|",
				{ CLONE_NEWNS, "CLONE_NEWNS" },
				{ CLONE_NEWCGROUP, "CLONE_NEWCGROUP" },
				{ CLONE_NEWUTS, "CLONE_NEWUTS" },
				{ CLONE_NEWIPC, "CLONE_NEWIPC" },
				{ CLONE_NEWUSER, "CLONE_NEWUSER" },
				{ CLONE_NEWPID, "CLONE_NEWPID" },
				{ CLONE_NEWNET, "CLONE_NEWNET" },
				{ CLONE_NEWTIME, "CLONE_NEWTIME" }),
		  __entry->filename)
);

TRACE_EVENT(execns_return,
	TP_PROTO(long result, u64 duration_ns),
	TP_ARGS(result, duration_ns),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(long, result)
		__field(u64, duration_ns)
	),
	TP_fast_assign(
		__entry->pid = task_pid_nr(current);
		__entry->result = result;
		__entry->duration_ns = duration_ns;
	),
	TP_printk("pid=%d result=%ld duration_ns=%llu",
		  __entry->pid, __entry->result,
		  (unsigned long long)__entry->duration_ns)
);

DECLARE_EVENT_CLASS(execns_uid_class,
	TP_PROTO(struct user_struct *up, u64 table),
	TP_ARGS(up, table),
	TP_STRUCT__entry(
		__field(const void *, up)
		__field(u32, uid)
		__field(u64, table)
		__field(unsigned int, refs)
		__field(s64, epoll_watches)
		__field(long, pipe_bufs)
		__field(unsigned long, unix_inflight)
		__field(long, locked_vm)
		__field(int, watches)
	),
	TP_fast_assign(
		__entry->up = up;
		__entry->uid = from_kuid_munged(&init_user_ns, up->uid);
		__entry->table = table;
		/* references other than the table's own */
		__entry->refs = max_t(int, refcount_read(&up->__count) - EXECNS_TABLE_REFS, 0);
		__entry->epoll_watches = execns_user_epoll_read(up);
		__entry->pipe_bufs = atomic_long_read(&up->pipe_bufs);
		__entry->unix_inflight = READ_ONCE(up->unix_inflight);
		__entry->locked_vm = execns_user_locked_vm(up);
		__entry->watches = execns_user_nr_watches(up);
	),
	TP_printk("uid=%u table=%llu refs=%u epoll_watches=%lld pipe_bufs=%ld unix_inflight=%lu locked_vm=%ld watches=%d user=%p",
		  __entry->uid, (unsigned long long)__entry->table,
		  __entry->refs, (long long)__entry->epoll_watches,
		  __entry->pipe_bufs, __entry->unix_inflight,
		  __entry->locked_vm, __entry->watches, __entry->up)
);

DEFINE_EVENT(execns_uid_class, uid_alloc,
	TP_PROTO(struct user_struct *up, u64 table),
	TP_ARGS(up, table)
);

DEFINE_EVENT(execns_uid_class, uid_free,
	TP_PROTO(struct user_struct *up, u64 table),
	TP_ARGS(up, table)
);

TRACE_EVENT(uid_find,
	TP_PROTO(kuid_t uid, u64 table, struct user_struct *up),
	TP_ARGS(uid, table, up),
	TP_STRUCT__entry(
		__field(u32, uid)
		__field(u64, table)
		__field(unsigned int, refs)
		__field(const void *, up)
	),
	TP_fast_assign(
		__entry->uid = from_kuid_munged(&init_user_ns, uid);
		__entry->table = table;
		__entry->refs = up ?
			max_t(int, refcount_read(&up->__count) - EXECNS_TABLE_REFS, 0) : 0;
		__entry->up = up;
	),
	TP_printk("uid=%u table=%llu found=%d refs=%u user=%p",
		  __entry->uid, (unsigned long long)__entry->table,
		  !!__entry->up, __entry->refs, __entry->up)
);

DECLARE_EVENT_CLASS(execns_ucounts_class,
	TP_PROTO(struct ucounts *uc, u64 table),
	TP_ARGS(uc, table),
	TP_STRUCT__entry(
		__field(const void *, uc)
		__field(u32, uid)
		__field(unsigned int, ns)
		__field(u64, table)
		__field(long, nproc)
		__field(long, sigpending)
		__field(long, msgqueue)
		__field(long, memlock)
	),
	TP_fast_assign(
		__entry->uc = uc;
		__entry->uid = from_kuid_munged(&init_user_ns, uc->uid);
		__entry->ns = uc->ns->ns.inum;
		__entry->table = table;
		__entry->nproc = execns_uc_rlimit(uc, NPROC);
		__entry->sigpending = execns_uc_rlimit(uc, SIGPENDING);
		__entry->msgqueue = execns_uc_rlimit(uc, MSGQUEUE);
		__entry->memlock = execns_uc_rlimit(uc, MEMLOCK);
	),
	TP_printk("uid=%u ns=%u table=%llu nproc=%ld sigpending=%ld msgqueue=%ld memlock=%ld ucounts=%p",
		  __entry->uid, __entry->ns, (unsigned long long)__entry->table,
		  __entry->nproc, __entry->sigpending, __entry->msgqueue,
		  __entry->memlock, __entry->uc)
);

DEFINE_EVENT(execns_ucounts_class, ucounts_alloc,
	TP_PROTO(struct ucounts *uc, u64 table),
	TP_ARGS(uc, table)
);

DEFINE_EVENT(execns_ucounts_class, ucounts_free,
	TP_PROTO(struct ucounts *uc, u64 table),
	TP_ARGS(uc, table)
);

DECLARE_EVENT_CLASS(execns_table_class,
	TP_PROTO(u64 id, u64 parent),
	TP_ARGS(id, parent),
	TP_STRUCT__entry(
		__field(u64, id)
		__field(u64, parent)
	),
	TP_fast_assign(
		__entry->id = id;
		__entry->parent = parent;
	),
	TP_printk("id=%llu parent=%llu",
		  (unsigned long long)__entry->id,
		  (unsigned long long)__entry->parent)
);

DEFINE_EVENT(execns_table_class, table_create,
	TP_PROTO(u64 id, u64 parent),
	TP_ARGS(id, parent)
);

DEFINE_EVENT(execns_table_class, table_destroy,
	TP_PROTO(u64 id, u64 parent),
	TP_ARGS(id, parent)
);

#endif /* _EXECNS_TRACE_H */

/* Out of tree: define_trace.h finds this file through -I$(src)/module. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
