/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The seed's unshare(2) policy: with the forbid_unshare parameter set,
 * unshare(2) of CLONE_NEWIPC or CLONE_NEWUSER fails with EINVAL.
 */
#ifndef _EXECNS_UNSHARE_H
#define _EXECNS_UNSHARE_H

struct seq_file;

int execns_unshare_init(void);
void execns_unshare_uninit(void);
/* /proc/execns/stats: a "pinned: ..." line if its hook pins the module. */
void execns_unshare_stats(struct seq_file *m);

#endif /* _EXECNS_UNSHARE_H */
