/*
 * The null engine: the reference engine and the test double.  Every I/O
 * completes with result = len and touches neither the buffer nor any file.
 * It measures the cost of the run loop itself, so the path with
 * null_lat == 0 is one store and one predictable branch.
 *
 * As fio's null engine, it is synchronous at iodepth=1 (each I/O completes
 * inside queue()) and asynchronous above: queue() keeps the I/O, commit()
 * submits what was queued, and each I/O completes null_lat ns after its
 * submission, in submission order; getevents() waits on the run's clock for
 * the ones it must return.  So the loop's queueing (batches, reaping, the
 * low watermark) can be watched against a device whose latency is known.
 *
 * With null_lat > 0 waits busy-wait below NULL_SLEEP_NS and sleep above,
 * so that long set latencies hold even when more threads than cores share
 * the machine; a stop ends them early.  With null_knee > 0 and more busy
 * clones than the knee, the latency grows in proportion (null_lat *
 * busy_clones / null_knee): a deterministic saturation point for sweep
 * tests, independent of the machine.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include "base/clock.h"
#include "engines/engine.h"
#include "job/job.h"
#include "engines/internal.h"

struct null_priv {
    uint64_t lat;            /* ns each I/O takes, 0 = none */
    const volatile int *stop; /* the run's stop flag: long waits end early */
    struct lb_io **ring;     /* async: depth slots, submitted then queued */
    unsigned depth, head;    /* ring[head] is the oldest submitted I/O */
    unsigned nsub, nqueued;  /* submitted (in flight), queued after them */
};

static bool null_async(const struct lb_job *job)
{
    return job && job->iodepth > 1;
}

static unsigned null_flags(const struct lb_job *job)
{
    return null_async(job) ? LB_ENG_NOFILES : LB_ENG_SYNC | LB_ENG_NOFILES;
}

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
    struct null_priv *p = calloc(1, sizeof(*p));

    if (!p)
        return -ENOMEM;
    p->lat = null_latency(cfg);
    p->stop = cfg->stop;
    if (null_async(cfg->job)) {
        p->depth = cfg->depth ? cfg->depth : 1;
        p->ring = calloc(p->depth, sizeof(*p->ring));
        if (!p->ring) {
            free(p);
            return -ENOMEM;
        }
    }
    *priv = p;
    return 0;
}

static void null_cleanup(void *priv)
{
    struct null_priv *p = priv;

    if (p)
        free(p->ring);
    free(p);
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

static bool null_stopping(const volatile int *stop)
{
    return stop && __atomic_load_n(stop, __ATOMIC_RELAXED);
}

/* Waits until the clock reads end (sooner when the run stops). */
static void __attribute__((noinline)) null_wait_until(uint64_t end, const volatile int *stop)
{
    uint64_t now = lb_clock_now();

    if (now < end && end - now >= NULL_SLEEP_NS) {
        while ((now = lb_clock_now()) < end) {
            if (null_stopping(stop))
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
    struct null_priv *p = priv;

    io->result = io->len;
    if (p->ring) {
        if (p->nsub + p->nqueued == p->depth)
            return LB_Q_BUSY;
        p->ring[(p->head + p->nsub + p->nqueued++) % p->depth] = io;
        return LB_Q_QUEUED;
    }
    if (__builtin_expect(p->lat != 0, 0))
        null_wait_until(lb_clock_now() + p->lat, p->stop);
    return LB_Q_DONE;
}

static int null_commit(void *priv)
{
    struct null_priv *p = priv;
    uint64_t now;

    if (!p->nqueued)
        return 0;
    now = lb_clock_now();
    for (unsigned i = 0; i < p->nqueued; i++)
        p->ring[(p->head + p->nsub + i) % p->depth]->t_issue = now;
    p->nsub += p->nqueued;
    p->nqueued = 0;
    return 0;
}

/* Moves the submitted I/Os that are due by now (all once stopping) to evs,
 * up to max. */
static unsigned null_take(struct null_priv *p, unsigned max, struct lb_io **evs)
{
    uint64_t now = lb_clock_now();
    bool all = null_stopping(p->stop);
    unsigned n = 0;

    while (n < max && p->nsub) {
        struct lb_io *io = p->ring[p->head];

        if (!all && io->t_issue + p->lat > now)
            break;
        evs[n++] = io;
        p->head = (p->head + 1) % p->depth;
        p->nsub--;
    }
    return n;
}

static int null_getevents(void *priv, unsigned min, unsigned max, struct lb_io **evs)
{
    struct null_priv *p = priv;
    unsigned n = 0;

    null_commit(p);
    if (min > p->nsub)
        min = p->nsub;            /* never wait for what was not submitted */
    for (;;) {
        n += null_take(p, max - n, evs + n);
        if (n >= min || n >= max || null_stopping(p->stop))
            return (int)n;
        null_wait_until(p->ring[p->head]->t_issue + p->lat, p->stop);
    }
}

const struct lb_engine_ops lb_engine_null = {
    .name = "null",
    .help = "completes every I/O at once (null_lat: each takes that many ns)",
    .flags = LB_ENG_NOFILES,
    .init = null_init,
    .cleanup = null_cleanup,
    .queue = null_queue,
    .commit = null_commit,
    .getevents = null_getevents,
    .job_flags = null_flags,
};
