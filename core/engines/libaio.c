/*
 * The libaio engine: Linux native AIO (io_setup / io_submit /
 * io_getevents), as fio's "libaio".  queue() fills an iocb from a pool of
 * depth slots and keeps it pending; commit() submits every pending iocb,
 * coping with partial submission, EAGAIN (kept for the next commit) and an
 * iocb the kernel refuses (reported as that I/O's result); getevents()
 * reaps.  Asynchronous only with O_DIRECT: buffered AIO completes inside
 * io_submit, which is what the kernel does, not a flaw here.
 *
 * Trim has no AIO opcode and runs synchronously in queue(); fsync uses
 * IO_CMD_FSYNC until the kernel refuses it, then runs synchronously too.
 */
#include <errno.h>
#include <libaio.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/clock.h"
#include "engines/engine.h"
#include "job/job.h"
#include "job/prio.h"
#include "engines/internal.h"

struct aio_priv {
    io_context_t ctx;
    unsigned depth;
    struct iocb *iocbs;          /* depth slots */
    unsigned *free;              /* stack of free slot numbers */
    unsigned nfree;
    struct iocb **pending;       /* queued, not yet submitted, in order */
    unsigned npending;
    struct lb_io **failed;       /* refused at submission, not reported yet */
    unsigned nfailed;
    unsigned inflight;           /* submitted, not reaped */
    struct io_event *events;     /* depth */
    bool sync_fsync;             /* IO_CMD_FSYNC refused: fsync inline */
    struct lb_cmdprio prio;      /* cmdprio_*: each I/O's priority */
};

#ifndef IOCB_FLAG_IOPRIO
#define IOCB_FLAG_IOPRIO (1 << 1)   /* aio_abi.h's: aio_reqprio is meant */
#endif

static const char *aio_hint(int err)
{
    switch (err) {
    case -ENOSYS: return " (kernel built without AIO)";
    case -EAGAIN: return " (fs.aio-max-nr reached?)";
    case -EPERM:  return " (blocked by a seccomp policy?)";
    default:      return "";
    }
}

static int aio_probe(char *why, size_t len)
{
    io_context_t ctx = 0;
    int ret = io_setup(1, &ctx);

    if (ret < 0) {
        lb_eng_why(why, len, "io_setup: %s%s", strerror(-ret), aio_hint(ret));
        return ret;
    }
    io_destroy(ctx);
    return 0;
}

static void aio_free(struct aio_priv *p)
{
    free(p->iocbs);
    free(p->free);
    free(p->pending);
    free(p->failed);
    free(p->events);
    free(p);
}

static int aio_alloc(struct aio_priv *p, unsigned depth)
{
    p->depth = depth;
    p->iocbs = calloc(depth, sizeof(*p->iocbs));
    p->free = calloc(depth, sizeof(*p->free));
    p->pending = calloc(depth, sizeof(*p->pending));
    p->failed = calloc(depth, sizeof(*p->failed));
    p->events = calloc(depth, sizeof(*p->events));
    if (!p->iocbs || !p->free || !p->pending || !p->failed || !p->events)
        return -ENOMEM;
    for (unsigned i = 0; i < depth; i++)
        p->free[i] = depth - 1 - i;
    p->nfree = depth;
    return 0;
}

static int aio_init(const struct lb_engine_cfg *cfg, void **priv)
{
    struct aio_priv *p = calloc(1, sizeof(*p));
    unsigned depth = cfg->depth ? cfg->depth : 1;
    int ret;

    if (!p)
        return -ENOMEM;
    lb_cmdprio_init(&p->prio, cfg->job, cfg->clone);
    ret = aio_alloc(p, depth);
    if (ret == 0) {
        ret = io_setup((int)depth, &p->ctx);
        if (ret < 0)
            lb_eng_cfg_why(cfg, "io_setup(%u): %s%s", depth, strerror(-ret),
                           aio_hint(ret));
    }
    if (ret < 0) {
        p->ctx = 0;
        aio_free(p);
        return ret;
    }
    *priv = p;
    return 0;
}

static void aio_cleanup(void *priv)
{
    struct aio_priv *p = priv;

    if (!p)
        return;
    if (p->ctx)
        io_destroy(p->ctx);       /* waits for what is in flight */
    aio_free(p);
}

static void aio_prep(struct iocb *cb, struct lb_io *io)
{
    int fd = io->file->fd;

    switch (io->ddir) {
    case LB_READ:
        io_prep_pread(cb, fd, io->buf, io->len, (long long)io->offset);
        break;
    case LB_WRITE:
        io_prep_pwrite(cb, fd, io->buf, io->len, (long long)io->offset);
        break;
    case LB_SYNC_OP:
        io_prep_fsync(cb, fd);
        break;
    default:
        io_prep_fdsync(cb, fd);
        break;
    }
    cb->data = io;
}

static void aio_prio(struct aio_priv *p, struct iocb *cb, struct lb_io *io)
{
    unsigned prio;

    io->ioprio = (uint16_t)p->prio.own;
    if (!lb_cmdprio_draw(p->prio.job, &p->prio.rng, io->ddir, io->len, &prio))
        return;
    io->ioprio = (uint16_t)prio;
    cb->aio_reqprio = (short)prio;
    cb->u.c.flags |= IOCB_FLAG_IOPRIO;
}

static bool aio_inline(const struct aio_priv *p, const struct lb_io *io)
{
    if (io->ddir == LB_TRIM)
        return true;
    return p->sync_fsync && (io->ddir == LB_SYNC_OP || io->ddir == LB_DATASYNC_OP);
}

static int aio_queue(void *priv, struct lb_io *io)
{
    struct aio_priv *p = priv;
    struct iocb *cb;

    if (io->ddir > LB_DATASYNC_OP) {
        io->result = -EINVAL;
        return LB_Q_DONE;
    }
    if (aio_inline(p, io)) {
        io->result = lb_eng_file_op(io->file->fd, io);
        return LB_Q_DONE;
    }
    if (p->nfree == 0)
        return LB_Q_BUSY;
    cb = &p->iocbs[p->free[--p->nfree]];
    aio_prep(cb, io);
    if (p->prio.on)
        aio_prio(p, cb, io);
    p->pending[p->npending++] = cb;
    return LB_Q_QUEUED;
}

static void aio_release(struct aio_priv *p, struct iocb *cb)
{
    p->free[p->nfree++] = (unsigned)(cb - p->iocbs);
}

/* The kernel refused the first pending iocb with err: that is its result
 * (or, for an fsync the kernel cannot do asynchronously, a plain fsync). */
static void aio_refuse(struct aio_priv *p, int err)
{
    struct iocb *cb = p->pending[0];
    struct lb_io *io = cb->data;

    if (err == -EINVAL && (io->ddir == LB_SYNC_OP || io->ddir == LB_DATASYNC_OP)) {
        p->sync_fsync = true;
        io->result = lb_eng_file_op(io->file->fd, io);
    } else {
        io->result = err;
    }
    io->t_issue = lb_clock_now();
    aio_release(p, cb);
    p->failed[p->nfailed++] = io;
}

static void aio_shift(struct aio_priv *p, unsigned n)
{
    p->npending -= n;
    if (p->npending)
        memmove(p->pending, p->pending + n, p->npending * sizeof(*p->pending));
}

static int aio_commit(void *priv)
{
    struct aio_priv *p = priv;

    while (p->npending) {
        int ret = io_submit(p->ctx, (long)p->npending, p->pending);

        if (ret == -EINTR)
            continue;
        if (ret == -EAGAIN || ret == 0)
            break;                /* kept; retried by the next call */
        if (ret < 0) {
            aio_refuse(p, ret);
            aio_shift(p, 1);
            continue;
        }
        uint64_t now = lb_clock_now();
        for (int i = 0; i < ret; i++)
            ((struct lb_io *)p->pending[i]->data)->t_issue = now;
        p->inflight += (unsigned)ret;
        aio_shift(p, (unsigned)ret);
    }
    return 0;
}

static unsigned aio_take_failed(struct aio_priv *p, unsigned max, struct lb_io **evs)
{
    unsigned n = p->nfailed < max ? p->nfailed : max;

    if (n == 0)
        return 0;                 /* the usual case: nothing refused */
    memcpy(evs, p->failed, n * sizeof(*evs));
    p->nfailed -= n;
    memmove(p->failed, p->failed + n, p->nfailed * sizeof(*p->failed));
    return n;
}

static int64_t aio_result(const struct io_event *ev)
{
    long res = (long)ev->res, res2 = (long)ev->res2;

    return res >= 0 && res2 < 0 ? res2 : res;
}

static int aio_getevents(void *priv, unsigned min, unsigned max, struct lb_io **evs)
{
    struct aio_priv *p = priv;
    unsigned n, want;
    int ret;

    if (p->npending)
        aio_commit(p);
    n = aio_take_failed(p, max, evs);
    min = min > n ? min - n : 0;
    if (min > p->inflight)
        min = p->inflight;        /* never wait for what was not submitted */
    want = max - n < p->inflight ? max - n : p->inflight;
    if (want == 0)
        return (int)n;
    if (min > want)
        min = want;               /* io_getevents refuses min > nr */
    do
        ret = io_getevents(p->ctx, (long)min, (long)want, p->events, NULL);
    while (ret == -EINTR);
    if (ret < 0)
        return n ? (int)n : ret;
    for (int i = 0; i < ret; i++) {
        struct iocb *cb = p->events[i].obj;
        struct lb_io *io = cb->data;

        io->result = aio_result(&p->events[i]);
        aio_release(p, cb);
        evs[n++] = io;
    }
    p->inflight -= (unsigned)ret;
    return (int)n;
}

const struct lb_engine_ops lb_engine_libaio = {
    .name = "libaio",
    .help = "Linux native asynchronous I/O (io_submit); async only with direct=1",
    .flags = LB_ENG_IOPRIO,
    .probe = aio_probe,
    .init = aio_init,
    .cleanup = aio_cleanup,
    .queue = aio_queue,
    .commit = aio_commit,
    .getevents = aio_getevents,
};
