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
 * Armed hooks hold the module while no table does: a reference from
 * hold() until the disarm work has run.  The reaper calls hold() before it
 * drops the last table's reference, so that rmmod never finds the hooks
 * armed with nothing holding the module (unload would then have to
 * unregister them, and after ftrace_kill() wait for that forever).
 * Process context, no lock held.
 */
void execns_uidhooks_hold(void);

/* No table is left (uidtab.c's reaper): hold(), disarm after disarm_delay_ms. */
void execns_uidhooks_idle(void);

/* "hooks armed|disarmed" and the arm count, for /proc/execns/stats. */
void execns_uidhooks_stats(struct seq_file *m);

#endif /* _EXECNS_UIDHOOKS_H */
