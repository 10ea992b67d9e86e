/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /proc/execns: a read-only view of the uid tables and of the load-time
 * proof (its files and formats: uapi/execns.h).
 */
#ifndef _EXECNS_PROCFS_H
#define _EXECNS_PROCFS_H

int execns_procfs_init(void);
void execns_procfs_uninit(void);

#endif /* _EXECNS_PROCFS_H */
