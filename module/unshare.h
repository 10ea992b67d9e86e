/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The seed's unshare(2) policy: with the forbid_unshare parameter set,
 * unshare(2) of CLONE_NEWIPC or CLONE_NEWUSER fails with EINVAL.
 */
#ifndef _EXECNS_UNSHARE_H
#define _EXECNS_UNSHARE_H

int execns_unshare_init(void);
void execns_unshare_uninit(void);

#endif /* _EXECNS_UNSHARE_H */
