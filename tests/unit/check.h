/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The little test harness of awkit's host unit tests: each check prints one
 * line when it fails; the program ends with unit_summary(), which prints
 * "N passed, N failed" and gives the exit status.
 */
#ifndef AW_UNIT_CHECK_H
#define AW_UNIT_CHECK_H

#include <stdbool.h>
#include <stdio.h>

static int passed, failed;

static void check(bool ok, int line, const char *expr)
{
	if (ok) {
		passed++;
		return;
	}
	failed++;
	printf("FAIL line %d: %s\n", line, expr);
}

static void check_eq(long long a, long long b, int line, const char *expr)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "%s (%lld != %lld)", expr, a, b);
	check(a == b, line, a == b ? expr : msg);
}

#define CHECK(e) check(!!(e), __LINE__, #e)
#define CHECK_EQ(a, b) \
	check_eq((long long)(a), (long long)(b), __LINE__, #a " == " #b)

static int unit_summary(void)
{
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

#endif /* AW_UNIT_CHECK_H */
