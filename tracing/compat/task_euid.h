/* SPDX-License-Identifier: GPL-2.0 */
/*
 * task_euid() for SystemTap's runtime on kernels that no longer have it
 * (Linux 7.3 removed it from linux/cred.h; systemtap 5.6's runtime.h,
 * namespaces.h and task_finder2.c still call it).
 *
 * tests/tracing/host/stap-run.sh includes this file in the kernel's compat
 * header, which it passes to stap's module build as
 * "-B KCFLAGS=-include<that header>", only when the kernel's linux/cred.h
 * does not define task_euid: where it does, the two definitions would
 * clash.  The -include puts it before every other header, so nothing
 * here may need a kernel type: the macro is expanded where it is used,
 * after linux/cred.h has defined task_cred_xxx().
 */
#ifndef _EXECNS_STAP_COMPAT_TASK_EUID_H
#define _EXECNS_STAP_COMPAT_TASK_EUID_H
#ifndef task_euid
#define task_euid(t) (task_cred_xxx((t), euid))
#endif
#endif
