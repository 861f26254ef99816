/*
 * The one assertion of the core unit tests: CHECK(cond) or CHECK(cond,
 * fmt, ...) prints the place, the condition and the message of a failed
 * check to stderr and counts it in failures; a test returns failures ? 1
 * : 0 at the end, so one run reports every failed check.
 */
#ifndef LB_TEST_CHECK_H
#define LB_TEST_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        if (!(cond)) {                                                    \
            fprintf(stderr, "FAIL %s:%d: %s", __FILE__, __LINE__, #cond); \
            __VA_OPT__(fputs(": ", stderr); fprintf(stderr, __VA_ARGS__);) \
            fputc('\n', stderr);                                          \
            failures++;                                                   \
        }                                                                 \
    } while (0)

#endif
