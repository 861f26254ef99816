/*
 * The assertion of the core unit tests: CHECK(cond, fmt, ...) prints the
 * place and the message of a failed check and counts it; a test returns
 * failures ? 1 : 0 at the end, so one run reports every failed check.
 */
#ifndef LB_TEST_CHECK_H
#define LB_TEST_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        if (!(cond)) {                                                    \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                   \
            printf(__VA_ARGS__);                                          \
            printf("\n");                                                 \
            failures++;                                                   \
        }                                                                 \
    } while (0)

#endif
