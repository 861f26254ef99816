/*
 * Clock selection and TSC calibration.
 *
 * lb_clock_init() runs once per process (pthread_once).  It picks the TSC
 * only when CPUID says the TSC is invariant (constant rate, ticking through
 * idle states) and LB_CLOCK does not ask for the fallback; the decision
 * never looks at timing, so it is the same on every run on one machine.
 * Calibration busy-waits about 2 ms against CLOCK_MONOTONIC and derives a
 * fixed-point ns-per-tick factor; lb_clock_now() then costs one rdtsc and
 * one multiply.  This file does not track frequency drift after start-up.
 */
#include "base/clock.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#define LB_CLOCK_SHIFT 32
#define LB_CLOCK_CAL_NS 2000000ull      /* calibration window */

struct lb_clock lb_clock_g = { .name = "clock_gettime" };

static pthread_once_t lb_clock_once = PTHREAD_ONCE_INIT;

static int lb_clock_has_invariant_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;

    if (!__get_cpuid(0x80000007, &a, &b, &c, &d))
        return 0;
    return (d >> 8) & 1;
#else
    return 0;
#endif
}

/* LB_CLOCK=monotonic (or clock_gettime) forces the fallback; any other
 * value, or none, lets the CPU decide. */
static int lb_clock_env_forces_mono(void)
{
    const char *e = getenv("LB_CLOCK");

    return e && (!strcmp(e, "monotonic") || !strcmp(e, "clock_gettime"));
}

/* A (ticks, ns) pair read as close together as we can: of a few tries,
 * keep the one whose bracketing tick reads are nearest. */
static void lb_clock_pair(uint64_t *ticks, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;

    *ticks = *ns = 0;            /* the first of the five pairs sets them */
    for (int i = 0; i < 5; i++) {
        uint64_t t0 = lb_clock_ticks();
        uint64_t n = lb_clock_mono_ns();
        uint64_t t1 = lb_clock_ticks();

        if (t1 - t0 < best) {
            best = t1 - t0;
            *ticks = t0 + (t1 - t0) / 2;
            *ns = n;
        }
    }
}

/* Fills mult/shift/bases; 0, or -EIO when the TSC does not advance. */
static int lb_clock_calibrate(struct lb_clock *c)
{
    uint64_t t0, n0, t1, n1;

    lb_clock_pair(&t0, &n0);
    while (lb_clock_mono_ns() - n0 < LB_CLOCK_CAL_NS)
        ;
    lb_clock_pair(&t1, &n1);
    if (t1 <= t0 || n1 <= n0)
        return -EIO;
    c->shift = LB_CLOCK_SHIFT;
    c->mult = (uint64_t)((((unsigned __int128)(n1 - n0)) << LB_CLOCK_SHIFT) /
                         (t1 - t0));
    c->tsc_base = t0;
    c->ns_base = n0;
    return c->mult ? 0 : -EIO;
}

static void lb_clock_setup(void)
{
    struct lb_clock c = { .name = "clock_gettime" };

    if (lb_clock_has_invariant_tsc() && !lb_clock_env_forces_mono() &&
        lb_clock_calibrate(&c) == 0) {
        c.use_tsc = 1;
        c.name = "tsc";
    }
    lb_clock_g = c;
}

int lb_clock_init(void)
{
    int rc = pthread_once(&lb_clock_once, lb_clock_setup);

    return -rc;
}

const char *lb_clock_name(void)
{
    lb_clock_init();
    return lb_clock_g.name;
}

void lb_thread_cpu_add(uint64_t *usr, uint64_t *sys)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) < 0)
        return;
    *usr += ru.ru_utime.tv_sec * 1000000000ull + ru.ru_utime.tv_usec * 1000ull;
    *sys += ru.ru_stime.tv_sec * 1000000000ull + ru.ru_stime.tv_usec * 1000ull;
}
