/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest test library: every C test program includes this, and only
 * this, of lib/.
 *
 *   ktap.h	the KTAP writer (kselftest's names): plan, results, SKIP
 *   child.h	the child protocol (fork, run something, read its output and
 *		status back), modes, test_start(), descriptor passing
 *   sys.h	files, kernel knobs, the module's /proc and sysfs files,
 *		insmod/rmmod, seccomp, the raw syscall
 *   ns.h	namespaces: the /proc/PID/ns entries and CLONE_NEW* flags
 *   state.h	a process's state, snapshot and comparison
 *   report.h	the execns(2) tests' "report" mode and spawn_report()
 *   uidtab.h	uid tables: /proc/execns/tables parsed, the "table" and
 *		"sleep" modes
 */
#ifndef EXECNS_LIB_TEST_H
#define EXECNS_LIB_TEST_H

#include "ktap.h"
#include "sys.h"
#include "child.h"
#include "ns.h"
#include "state.h"
#include "report.h"
#include "uidtab.h"

#endif /* EXECNS_LIB_TEST_H */
