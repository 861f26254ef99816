/* Description: the clock initialises, names itself, never goes backwards,
 * measures a 10 ms sleep as roughly 10 ms, and LB_CLOCK=monotonic forces
 * clock_gettime. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

#include "check.h"

static void check_reads(void)
{
    uint64_t prev = lb_clock_now(), back = 0;

    for (int i = 0; i < 1000000; i++) {
        uint64_t t = lb_clock_now();

        back += t < prev;
        prev = t;
    }
    CHECK(back == 0, "%s went backwards %llu times in 1e6 reads", lb_clock_name(),
          (unsigned long long)back);
}

static void check_sleep(void)
{
    struct timespec ts = { 0, 10000000 };
    uint64_t m0a = lb_clock_mono_ns(), t0 = lb_clock_now(), m0b = lb_clock_mono_ns();
    uint64_t m1a, t1, m1b, dt;

    nanosleep(&ts, NULL);
    m1a = lb_clock_mono_ns();
    t1 = lb_clock_now();
    m1b = lb_clock_mono_ns();
    dt = t1 - t0;
    CHECK(dt >= 5000000 && dt <= 1000000000, "10 ms sleep measured as %llu ns",
          (unsigned long long)dt);
    /* Bracketed by CLOCK_MONOTONIC reads, so preemption cannot fail this:
     * only a calibration off by more than 1% (+20 us) can. */
    CHECK(dt + 20000 >= (m1a - m0b) * 0.99 && dt <= (m1b - m0a) * 1.01 + 20000,
          "clock saw %llu ns, CLOCK_MONOTONIC between %llu and %llu ns",
          (unsigned long long)dt, (unsigned long long)(m1a - m0b),
          (unsigned long long)(m1b - m0a));
}

/* In a fresh process: LB_CLOCK=monotonic before the first init. */
static void check_env_override(void)
{
    pid_t pid;
    int status = 0;

    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        setenv("LB_CLOCK", "monotonic", 1);
        _exit(lb_clock_init() == 0 && !strcmp(lb_clock_name(), "clock_gettime") &&
                      !lb_clock_g.use_tsc ? 0 : 1);
    }
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork/wait");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "LB_CLOCK=monotonic did not force clock_gettime");
}

int main(void)
{
    const char *name;

    unsetenv("LB_CLOCK");
    check_env_override();
    CHECK(lb_clock_init() == 0, "lb_clock_init");
    CHECK(lb_clock_init() == 0, "second lb_clock_init");
    name = lb_clock_name();
    CHECK(!strcmp(name, "tsc") || !strcmp(name, "clock_gettime"), "clock name '%s'", name);
    CHECK(!strcmp(name, "tsc") == !!lb_clock_g.use_tsc, "name '%s' vs use_tsc %d", name,
          lb_clock_g.use_tsc);
    check_reads();
    check_sleep();
    if (failures)
        printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
