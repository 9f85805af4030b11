/* SPDX-License-Identifier: MIT */
/* Exit codes and checks shared by the test programs (meson: 77 = SKIP). */
#ifndef HWPROF_TEST_HARNESS_H
#define HWPROF_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>

enum {
	T_PASS = 0,
	T_FAIL = 1,
	T_SKIP = 77,
	T_ERROR = 99
};

static int t_failed;

/* Records a failure with its place and goes on, so one run shows them all. */
#define T_CHECK(cond, ...)                                                     \
	do {                                                                   \
		if (!(cond)) {                                                 \
			printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			printf(__VA_ARGS__);                                   \
			printf("\n");                                          \
			t_failed++;                                            \
		}                                                              \
	} while (0)

#define T_EQ(a, b)                                                                  \
	T_CHECK((unsigned long long)(a) == (unsigned long long)(b), "%llu != %llu", \
		(unsigned long long)(a), (unsigned long long)(b))

static inline int t_done(const char *name)
{
	if (t_failed) {
		printf("%s: %d check(s) failed\n", name, t_failed);
		return T_FAIL;
	}
	printf("%s: all checks passed\n", name);
	return T_PASS;
}

#endif /* HWPROF_TEST_HARNESS_H */
