/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hooks that route per-user accounting into module uid tables:
 * alloc_uid() and find_user() redirected for tasks of a table,
 * alloc_ucounts() for the credentials they make, and commit_creds() for
 * the hand-over (handover.c).  No release is hooked.  They are armed while
 * a table exists or is being made, and cost nothing otherwise.
 */
#ifndef _EXECNS_UIDHOOKS_H
#define _EXECNS_UIDHOOKS_H

struct seq_file;

int execns_uidhooks_init(void);
void execns_uidhooks_uninit(void);
void execns_uidhooks_flush(void);

/*
 * Arm the hooks (process context; may fail, e.g. EBUSY while ftrace is
 * disabled, or EINTR on a fatal signal while a disarm runs) and keep them
 * armed until the matching put(), by which time the caller's table exists
 * and keeps them armed itself.
 */
int execns_uidhooks_get(void);
void execns_uidhooks_put(void);

/*
 * No table is left (uidtab.c's reaper, before it drops the last table's
 * module reference): disarm after disarm_delay_ms, and until then the
 * armed hooks hold the module, so that rmmod never finds them armed with
 * nothing holding it (unload would then have to unregister them, and
 * after ftrace_kill() wait for that forever).  Process context, no lock
 * held.
 */
void execns_uidhooks_idle(void);

/* "hooks armed|disarmed" and the arm count, for /proc/execns/stats. */
void execns_uidhooks_stats(struct seq_file *m);

#endif /* _EXECNS_UIDHOOKS_H */
