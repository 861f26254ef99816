/*
 * The null engine: the reference engine and the test double.  Every I/O
 * completes inside queue() with result = len and touches neither the
 * buffer nor any file.  It measures the cost of the run loop itself, so
 * the path with null_lat == 0 is one store and one predictable branch.
 *
 * With null_lat > 0 each I/O takes that many ns on the run's clock: it
 * busy-waits below NULL_SLEEP_NS and sleeps above, so that long set
 * latencies hold even when more threads than cores share the machine.
 * With null_knee > 0 and more busy clones than the knee, the latency grows
 * in proportion (null_lat * busy_clones / null_knee): a deterministic
 * saturation point for sweep tests, independent of the machine.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include "base/clock.h"
#include "engines/engine.h"
#include "job/job.h"
#include "engines/internal.h"

struct null_priv {
    uint64_t lat;            /* ns each I/O takes, 0 = none */
    const volatile int *stop; /* the run's stop flag: long sleeps end early */
};

static uint64_t null_latency(const struct lb_engine_cfg *cfg)
{
    const struct lb_job *job = cfg->job;
    uint64_t lat = job ? job->null_lat : 0;

    if (lat && job->null_knee && cfg->busy_clones > job->null_knee)
        lat = lat * cfg->busy_clones / job->null_knee;
    return lat;
}

static int null_init(const struct lb_engine_cfg *cfg, void **priv)
{
    struct null_priv *p = malloc(sizeof(*p));

    if (!p)
        return -ENOMEM;
    p->lat = null_latency(cfg);
    p->stop = cfg->stop;
    *priv = p;
    return 0;
}

static void null_cleanup(void *priv)
{
    free(priv);
}

static inline void null_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#define NULL_SLEEP_NS 200000ull

static void __attribute__((noinline)) null_spin(uint64_t ns, const volatile int *stop)
{
    uint64_t end = lb_clock_now() + ns;

    if (ns >= NULL_SLEEP_NS) {
        uint64_t now;
        while ((now = lb_clock_now()) < end) {
            if (stop && __atomic_load_n(stop, __ATOMIC_RELAXED))
                return;               /* a stop ends a long set latency */
            uint64_t left = end - now < 100000000ull ? end - now : 100000000ull;
            struct timespec ts = {0, (long)left};
            nanosleep(&ts, NULL);
        }
        return;
    }
    while (lb_clock_now() < end)
        null_relax();
}

static int null_queue(void *priv, struct lb_io *io)
{
    const struct null_priv *p = priv;

    io->result = io->len;
    if (__builtin_expect(p->lat != 0, 0))
        null_spin(p->lat, p->stop);
    return LB_Q_DONE;
}

const struct lb_engine_ops lb_engine_null = {
    .name = "null",
    .help = "completes every I/O at once (null_lat: each takes that many ns)",
    .flags = LB_ENG_SYNC | LB_ENG_NOFILES,
    .init = null_init,
    .cleanup = null_cleanup,
    .queue = null_queue,
};
