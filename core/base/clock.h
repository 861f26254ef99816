/*
 * The one clock every latency is measured with.
 *
 * lb_clock_init() chooses it once per process, deterministically: the TSC
 * when the CPU declares an invariant TSC (CPUID 0x80000007 EDX bit 8),
 * calibrated against CLOCK_MONOTONIC; otherwise clock_gettime(CLOCK_MONOTONIC).
 * The choice never depends on timing noise, so two runs on one machine use
 * the same clock.  LB_CLOCK=monotonic (or clock_gettime) in the environment
 * forces the fallback; it is read by the first lb_clock_init() only.
 * lb_clock_now() returns nanoseconds from an arbitrary origin (with the
 * TSC, CLOCK_MONOTONIC's origin, give or take the calibration error of a
 * few ppm).  Call lb_clock_init() before starting threads that read the
 * clock; before it, lb_clock_now() reads CLOCK_MONOTONIC.
 */
#ifndef LB_CLOCK_H
#define LB_CLOCK_H

#include <stdint.h>
#include <time.h>

struct lb_clock {
    int use_tsc;          /* 1: rdtsc scaled by mult >> shift */
    uint32_t shift;
    uint64_t mult;        /* ns per tick in fixed point */
    uint64_t tsc_base;    /* tick count at calibration */
    uint64_t ns_base;     /* CLOCK_MONOTONIC ns at calibration */
    const char *name;     /* "tsc" or "clock_gettime" */
};

extern struct lb_clock lb_clock_g;

/* Chooses and calibrates the clock (about 2 ms of busy-waiting the first
 * time); idempotent and thread-safe.  0 or -errno; a TSC that fails
 * calibration falls back to clock_gettime, which is not an error. */
int lb_clock_init(void);

/* Name of the clock in use: "tsc" or "clock_gettime" (initialises). */
const char *lb_clock_name(void);

static inline uint64_t lb_clock_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__) || defined(__i386__)
static inline uint64_t lb_clock_ticks(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}
#else
static inline uint64_t lb_clock_ticks(void) { return 0; }
#endif

static inline uint64_t lb_clock_now(void)
{
    if (lb_clock_g.use_tsc) {
        uint64_t d = lb_clock_ticks() - lb_clock_g.tsc_base;
        return lb_clock_g.ns_base +
               (uint64_t)(((unsigned __int128)d * lb_clock_g.mult) >> lb_clock_g.shift);
    }
    return lb_clock_mono_ns();
}

/* Adds the calling thread's CPU time (user, system; ns) to *usr, *sys. */
void lb_thread_cpu_add(uint64_t *usr, uint64_t *sys);

#endif
