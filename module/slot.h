/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The syscall slot: execns answers on a spare native number and a spare
 * compat one (x86_64 and i386, arm64 and AArch32, s390x and 31-bit s390;
 * execns-arch.h), both module parameters.
 */
#ifndef _EXECNS_SLOT_H
#define _EXECNS_SLOT_H

extern unsigned int execns_syscall_nr;
extern unsigned int execns_compat_syscall_nr;

int execns_slot_init(void);
/*
 * Let the probes redirect callers into the module: the last step of init,
 * after which nothing may fail (until then the numbers answer ENOSYS).
 */
void execns_slot_open(void);
void execns_slot_uninit(void);

#endif /* _EXECNS_SLOT_H */
