/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /proc/execns: a read-only view of the uid tables.
 *   /proc/execns/tables	every table and each of its user_structs
 *   /proc/execns/self		the reading task's table id (0: the global one)
 *   /proc/execns/stats		live tables, user_structs allocated and freed
 *   /proc/execns/pids		the tasks in module tables, and their table ids
 */
#ifndef _EXECNS_PROCFS_H
#define _EXECNS_PROCFS_H

int execns_procfs_init(void);
void execns_procfs_uninit(void);

#endif /* _EXECNS_PROCFS_H */
