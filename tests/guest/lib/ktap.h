/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAP output for the in-guest test programs, under kselftest's names so
 * that a test can move to tools/testing/selftests with few changes: a
 * header, a plan, one "ok"/"not ok" line per test, "# SKIP reason", and
 * kselftest's exit codes (0 pass, 1 fail, 4 all skipped).
 *
 *	ksft_print_header();
 *	ksft_set_plan(3);
 *	ksft_test_result(errno == ENOENT, "execns of a missing file is ENOENT\n");
 *	ksft_test_result_code(KSFT_SKIP, "32-bit caller", "no 32-bit support");
 *	ksft_finished();
 *
 * Where the output differs from kselftest's, it is the format that
 * tests/guest/run-tests and tests/harness/ktap-count.awk read: "ok N - NAME",
 * and a skip as "ok N - NAME # SKIP REASON".  Unlike kselftest, a trailing
 * newline in a test name is optional (the line ends either way), and
 * ksft_test_result() returns its condition so callers can chain on it.
 *
 * The plan: each program states it before its first result (it is the
 * second line of the output) and the library counts the results; at the
 * end ksft_finished() compares the two and fails the program when they
 * differ, naming both numbers.  A check added without its plan, or one
 * that an early return skips, is therefore a failure, not a silent short
 * count.  Plans are computed from the tables they iterate over wherever a
 * program has one; the rest are straight-line sequences of checks whose
 * count is the number of calls, which this check keeps honest.
 */
#ifndef EXECNS_LIB_KTAP_H
#define EXECNS_LIB_KTAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_SKIP	4

/* Results so far, and the plan; one set per process (a forked child reports nothing). */
static unsigned int ksft_planned, ksft_ran, ksft_failed, ksft_skipped;

static inline void ksft_print_header(void)
{
	printf("KTAP version 1\n");
	fflush(stdout);
}

static inline void ksft_set_plan(unsigned int plan)
{
	ksft_planned = plan;
	printf("1..%u\n", plan);
	fflush(stdout);
}

/* "ok N - " or "not ok N - ", then the name without its trailing newline. */
static inline void ksft_result_line(bool ok, const char *fmt, va_list ap)
{
	char name[2048];
	size_t len;

	vsnprintf(name, sizeof(name), fmt, ap);
	len = strlen(name);
	if (len && name[len - 1] == '\n')
		name[len - 1] = '\0';
	printf("%sok %u - %s", ok ? "" : "not ", ++ksft_ran, name);
}

__attribute__((format(printf, 1, 2)))
static inline void ksft_test_result_pass(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ksft_result_line(true, fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

__attribute__((format(printf, 1, 2)))
static inline void ksft_test_result_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ksft_result_line(false, fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	ksft_failed++;
}

/* One test that passed when ok; returns ok (kselftest's is a statement). */
__attribute__((format(printf, 2, 3)))
static inline bool ksft_test_result(bool ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ksft_result_line(ok, fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!ok)
		ksft_failed++;
	return ok;
}

/*
 * One test by its kselftest exit code: KSFT_PASS, KSFT_FAIL, or KSFT_SKIP
 * with the reason in fmt ("ok N - NAME # SKIP REASON").  For the other two,
 * a non-empty fmt is appended as "# ..." on the line.
 */
__attribute__((format(printf, 3, 4)))
static inline void ksft_test_result_code(int code, const char *name, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	msg[strcspn(msg, "\n")] = '\0';
	printf("%sok %u - %s", code == KSFT_FAIL ? "not " : "", ++ksft_ran, name);
	if (code == KSFT_SKIP)
		printf(" # SKIP %s", msg);
	else if (msg[0])
		printf(" # %s", msg);
	putchar('\n');
	fflush(stdout);
	if (code == KSFT_SKIP)
		ksft_skipped++;
	else if (code == KSFT_FAIL)
		ksft_failed++;
}

/* A diagnostic line: "# " and fmt, which ends with its own newline (as kselftest's). */
__attribute__((format(printf, 1, 2)))
static inline void ksft_print_msg(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

/* Results so far, and the failures among them. */
static inline unsigned int ksft_test_num(void)
{
	return ksft_ran;
}

static inline unsigned int ksft_get_fail_cnt(void)
{
	return ksft_failed;
}

/* Count a result that another process printed in this program's output. */
static inline void ksft_inc_pass_cnt(void)
{
	ksft_ran++;
}

static inline void ksft_inc_fail_cnt(void)
{
	ksft_ran++;
	ksft_failed++;
}

/*
 * Not kselftest's: in a process that prints results inside its parent's
 * document (a new program the test execns()ed), number them from n on.
 */
static inline void ksft_set_test_num(unsigned int n)
{
	ksft_ran = n - 1;
}

/*
 * The end of a program: exit 1 when a test failed or the results do not
 * match the plan, 4 when every test was skipped, else 0.
 */
__attribute__((noreturn))
static inline void ksft_finished(void)
{
	if (ksft_ran != ksft_planned) {
		ksft_print_msg("planned %u tests, ran %u\n", ksft_planned, ksft_ran);
		exit(KSFT_FAIL);
	}
	if (ksft_failed)
		exit(KSFT_FAIL);
	exit(ksft_skipped == ksft_ran && ksft_ran ? KSFT_SKIP : KSFT_PASS);
}

#endif /* EXECNS_LIB_KTAP_H */
