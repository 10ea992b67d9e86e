/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Failure injection for the module's own fallible steps.  Debian's kernels
 * have no CONFIG_FAULT_INJECTION, so the error paths are exercised through
 * the fail_nth parameter instead: writing N makes the Nth fallible step
 * reached afterwards fail as if out of memory (then it resets to 0).
 */
#ifndef _EXECNS_FAULT_H
#define _EXECNS_FAULT_H

#include <linux/types.h>

/* True when the step at this call site must fail. */
bool execns_should_fail(const char *site);

/*
 * True when unregistering the hook on @func must fail (fail_unregister,
 * counted apart from fail_nth), as it does for good once ftrace_kill() ran.
 */
bool execns_should_fail_unregister(const char *func);

/* 0, or init's injected failure (fail_init), after a wait for callers. */
int execns_should_fail_init(void);

/* The report's capacity: @full, or less (proof_report_max). */
size_t execns_fault_report_cap(size_t full);

#endif /* _EXECNS_FAULT_H */
