/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal KTAP producer for the in-guest test programs, in the spirit of
 * kselftest's: a plan, one "ok"/"not ok" line per test, "# SKIP reason",
 * and the kselftest exit codes (0 pass, 1 fail, 4 all skipped).
 *
 *	ktap_plan(3);
 *	ktap_result(errno == ENOENT, "execns of a missing file is ENOENT");
 *	ktap_skip("no 32-bit support", "32-bit caller");
 *	return ktap_finish();
 */
#ifndef EXECNS_KTAP_H
#define EXECNS_KTAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static int ktap_n, ktap_planned, ktap_failed, ktap_skipped;

static inline void ktap_plan(int n)
{
	ktap_planned = n;
	printf("KTAP version 1\n1..%d\n", n);
	fflush(stdout);
}

/* ktap_result(cond, fmt, ...): one test; returns cond so callers can chain. */
__attribute__((format(printf, 2, 3)))
static inline bool ktap_result(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++ktap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!ok)
		ktap_failed++;
	return ok;
}

__attribute__((format(printf, 2, 3)))
static inline void ktap_skip(const char *reason, const char *fmt, ...)
{
	va_list ap;

	printf("ok %d - ", ++ktap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP %s\n", reason);
	fflush(stdout);
	ktap_skipped++;
}

__attribute__((format(printf, 1, 2)))
static inline void ktap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* Exit status for main(): a short count is a failure too. */
static inline int ktap_finish(void)
{
	if (ktap_n != ktap_planned) {
		ktap_diag("planned %d tests, ran %d", ktap_planned, ktap_n);
		return 1;
	}
	if (ktap_failed)
		return 1;
	return ktap_skipped == ktap_n && ktap_n ? 4 : 0;
}

#endif /* EXECNS_KTAP_H */
