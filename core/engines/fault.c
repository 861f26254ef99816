/*
 * The fault engine: wraps another engine (fault_engine, psync by default;
 * never itself) and injects failures, deterministically.  For each I/O,
 * in the order the core queues them, it draws from an rng seeded with
 * fault_seed + clone: with probability fault_eio the I/O fails with EIO,
 * fault_short returns half its length, fault_enospc fails a write with
 * ENOSPC, fault_delay holds its completion for fault_delay_us.  The real
 * I/O is still done by the inner engine; only what it reports changes, and
 * a real error is never masked.  Over an async engine the decision is made
 * at queue() and applied when getevents() reaps the I/O.
 *
 * Its flags are the inner engine's (job_flags); the static flags say
 * async so the hooks for both kinds are always there.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "engines/engine.h"
#include "job/job.h"
#include "base/rng.h"
#include "engines/internal.h"

enum { F_EIO = 1, F_SHORT = 2, F_ENOSPC = 4, F_DELAY = 8, F_DRAWN = 128 };

struct fault_slot {
    struct lb_io *io;            /* NULL: free */
    unsigned faults;             /* F_* decided at queue time */
};

struct fault_priv {
    const struct lb_engine_ops *inner;
    void *inner_priv;
    const struct lb_job *job;
    const volatile int *stop;
    struct lb_rng rng;
    unsigned next;               /* drawn for the next I/O, kept across BUSY */
    struct fault_slot *slots;    /* in flight in an async inner engine */
    unsigned nslots;
};

static const struct lb_engine_ops *fault_inner(const struct lb_job *job)
{
    const char *name = job && job->fault_engine && *job->fault_engine
                       ? job->fault_engine : "psync";

    return lb_engine_find(name);
}

static unsigned fault_job_flags(const struct lb_job *job)
{
    const struct lb_engine_ops *inner = fault_inner(job);

    return inner && inner != &lb_engine_fault ? lb_engine_flags(inner, job) : 0;
}

static int fault_pick_inner(struct fault_priv *p, const struct lb_engine_cfg *cfg)
{
    const char *name = cfg->job && cfg->job->fault_engine ? cfg->job->fault_engine : "psync";

    p->inner = fault_inner(cfg->job);
    if (!p->inner) {
        lb_eng_cfg_why(cfg, "fault: unknown fault_engine '%s'", name);
        return -ENOENT;
    }
    if (p->inner == &lb_engine_fault) {
        lb_eng_cfg_why(cfg, "fault: fault_engine cannot be fault itself");
        return -EINVAL;
    }
    return 0;
}

static int fault_init(const struct lb_engine_cfg *cfg, void **priv)
{
    struct fault_priv *p = calloc(1, sizeof(*p));
    int ret;

    if (!p)
        return -ENOMEM;
    p->job = cfg->job;
    p->stop = cfg->stop;
    p->nslots = cfg->depth ? cfg->depth : 1;
    p->slots = calloc(p->nslots, sizeof(*p->slots));
    ret = p->slots ? fault_pick_inner(p, cfg) : -ENOMEM;
    if (ret == 0)
        ret = p->inner->init(cfg, &p->inner_priv);
    if (ret < 0) {
        free(p->slots);
        free(p);
        return ret;
    }
    lb_rng_seed(&p->rng, (cfg->job ? cfg->job->fault_seed : 0) + cfg->clone);
    *priv = p;
    return 0;
}

static void fault_cleanup(void *priv)
{
    struct fault_priv *p = priv;

    if (!p)
        return;
    p->inner->cleanup(p->inner_priv);
    free(p->slots);
    free(p);
}

static int fault_open_file(void *priv, struct lb_file *f)
{
    struct fault_priv *p = priv;

    return p->inner->open_file ? p->inner->open_file(p->inner_priv, f) : 0;
}

static void fault_close_file(void *priv, struct lb_file *f)
{
    struct fault_priv *p = priv;

    if (p->inner->close_file)
        p->inner->close_file(p->inner_priv, f);
}

/* Four draws per I/O whatever the probabilities, so the faults of one kind
 * fall on the same I/Os when another probability changes. */
static unsigned fault_draw(struct fault_priv *p)
{
    const struct lb_job *j = p->job;
    unsigned f = F_DRAWN;

    if (!j)
        return f;
    f |= lb_rng_double(&p->rng) < j->fault_eio ? F_EIO : 0;
    f |= lb_rng_double(&p->rng) < j->fault_short ? F_SHORT : 0;
    f |= lb_rng_double(&p->rng) < j->fault_enospc ? F_ENOSPC : 0;
    f |= lb_rng_double(&p->rng) < j->fault_delay ? F_DELAY : 0;
    return f;
}

/* Sleeps ns in slices of at most 10 ms, ending early once the run stops.
 * The run sets the flag with an atomic store from another thread: read it
 * atomically too (a plain volatile read is a data race). */
static void fault_sleep(uint64_t ns, const volatile int *stop)
{
    while (ns && !(stop && __atomic_load_n(stop, __ATOMIC_RELAXED))) {
        uint64_t slice = ns < 10000000 ? ns : 10000000;
        struct timespec ts = { 0, (long)slice };

        nanosleep(&ts, NULL);
        ns -= slice;
    }
}

static void fault_apply(const struct fault_priv *p, unsigned f, struct lb_io *io)
{
    bool data = io->ddir == LB_READ || io->ddir == LB_WRITE;

    if (f & F_DELAY)
        fault_sleep(p->job->fault_delay_us * 1000, p->stop);
    if (io->result < 0)
        return;                   /* a real error stays the answer */
    if (f & F_EIO)
        io->result = -EIO;
    else if ((f & F_ENOSPC) && io->ddir == LB_WRITE)
        io->result = -ENOSPC;
    else if ((f & F_SHORT) && data && io->result > io->len / 2)
        io->result = io->len / 2;
}

static struct fault_slot *fault_free_slot(struct fault_priv *p)
{
    for (unsigned i = 0; i < p->nslots; i++)
        if (!p->slots[i].io)
            return &p->slots[i];
    return NULL;
}

static unsigned fault_recall(struct fault_priv *p, const struct lb_io *io)
{
    for (unsigned i = 0; i < p->nslots; i++)
        if (p->slots[i].io == io) {
            p->slots[i].io = NULL;
            return p->slots[i].faults;
        }
    return 0;
}

static int fault_queue(void *priv, struct lb_io *io)
{
    struct fault_priv *p = priv;
    struct fault_slot *slot = fault_free_slot(p);
    int ret;

    if (!p->next)
        p->next = fault_draw(p);
    if (!slot)
        return LB_Q_BUSY;         /* depth I/Os in flight already */
    ret = p->inner->queue(p->inner_priv, io);
    if (ret == LB_Q_BUSY || ret < 0)
        return ret;               /* the same draw serves the retry */
    if (ret == LB_Q_DONE) {
        fault_apply(p, p->next, io);
    } else {
        slot->io = io;
        slot->faults = p->next;
    }
    p->next = 0;
    return ret;
}

static int fault_commit(void *priv)
{
    struct fault_priv *p = priv;

    return p->inner->commit ? p->inner->commit(p->inner_priv) : 0;
}

static int fault_getevents(void *priv, unsigned min, unsigned max, struct lb_io **evs)
{
    struct fault_priv *p = priv;
    int n;

    if (!p->inner->getevents)
        return 0;
    n = p->inner->getevents(p->inner_priv, min, max, evs);
    for (int i = 0; i < n; i++)
        fault_apply(p, fault_recall(p, evs[i]), evs[i]);
    return n;
}

const struct lb_engine_ops lb_engine_fault = {
    .name = "fault",
    .help = "wraps fault_engine and injects EIO, short I/O, ENOSPC and delays "
            "(fault_eio, fault_short, fault_enospc, fault_delay, fault_seed)",
    .flags = 0,
    .init = fault_init,
    .cleanup = fault_cleanup,
    .open_file = fault_open_file,
    .close_file = fault_close_file,
    .queue = fault_queue,
    .commit = fault_commit,
    .getevents = fault_getevents,
    .job_flags = fault_job_flags,
};
