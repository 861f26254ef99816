/*
 * The posixaio engine: POSIX asynchronous I/O (aio_read, aio_write,
 * aio_fsync, aio_error, aio_return, aio_suspend; glibc runs them on its own
 * threads), as fio's "posixaio".  As there, queue() hands each I/O to the
 * library at once (there is nothing left for commit() to submit), up to
 * iodepth of them; getevents() looks at every I/O in flight with
 * aio_error, returns all that are complete (more than max if so, as fio's)
 * and, until it has min completions, waits in aio_suspend on those still
 * in progress.  EAGAIN from the library leaves the I/O to the
 * caller (busy), as fio does.  Trim has no POSIX call: it runs in queue()
 * once nothing is in flight, as fio's.  fdatasync is aio_fsync(O_DSYNC).
 */
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "base/clock.h"
#include "engines/engine.h"
#include "job/job.h"
#include "engines/internal.h"

struct pa_priv {
    unsigned depth;
    struct aiocb *cbs;           /* depth slots ... */
    struct lb_io **ios;          /* ... the I/O in each, NULL when free */
    unsigned *free;              /* stack of free slot numbers */
    unsigned nfree;
    unsigned inflight;
    const struct aiocb **wait;   /* aio_suspend's list (depth) */
};

static void pa_free(struct pa_priv *p)
{
    free(p->cbs);
    free(p->ios);
    free(p->free);
    free(p->wait);
    free(p);
}

static int pa_init(const struct lb_engine_cfg *cfg, void **priv)
{
    struct pa_priv *p = calloc(1, sizeof(*p));
    unsigned depth = cfg->depth ? cfg->depth : 1;

    if (!p)
        return -ENOMEM;
    p->depth = depth;
    p->cbs = calloc(depth, sizeof(*p->cbs));
    p->ios = calloc(depth, sizeof(*p->ios));
    p->free = calloc(depth, sizeof(*p->free));
    p->wait = calloc(depth, sizeof(*p->wait));
    if (!p->cbs || !p->ios || !p->free || !p->wait) {
        pa_free(p);
        return -ENOMEM;
    }
    for (unsigned i = 0; i < depth; i++)
        p->free[i] = depth - 1 - i;
    p->nfree = depth;
    *priv = p;
    return 0;
}

/* Waits for whatever is still in flight: the buffers go with the run. */
static void pa_cleanup(void *priv)
{
    struct pa_priv *p = priv;

    if (!p)
        return;
    for (unsigned i = 0; i < p->depth; i++) {
        if (!p->ios[i])
            continue;
        const struct aiocb *one[1] = { &p->cbs[i] };
        aio_cancel(p->cbs[i].aio_fildes, &p->cbs[i]);
        while (aio_error(&p->cbs[i]) == EINPROGRESS)
            aio_suspend(one, 1, NULL);
        aio_return(&p->cbs[i]);
    }
    pa_free(p);
}

static int pa_submit(struct aiocb *cb, const struct lb_io *io)
{
    switch (io->ddir) {
    case LB_READ:
        return aio_read(cb);
    case LB_WRITE:
        return aio_write(cb);
    case LB_SYNC_OP:
        return aio_fsync(O_SYNC, cb);
    default:
        return aio_fsync(O_DSYNC, cb);
    }
}

static int pa_queue(void *priv, struct lb_io *io)
{
    struct pa_priv *p = priv;

    if (io->ddir > LB_DATASYNC_OP) {
        io->result = -EINVAL;
        return LB_Q_DONE;
    }
    if (io->ddir == LB_TRIM) {
        if (p->inflight)
            return LB_Q_BUSY;
        io->result = lb_eng_file_op(io->file->fd, io);
        return LB_Q_DONE;
    }
    if (p->nfree == 0)
        return LB_Q_BUSY;
    unsigned slot = p->free[p->nfree - 1];
    struct aiocb *cb = &p->cbs[slot];

    memset(cb, 0, sizeof(*cb));
    cb->aio_fildes = io->file->fd;
    cb->aio_buf = io->buf;
    cb->aio_nbytes = io->len;
    cb->aio_offset = (off_t)io->offset;
    cb->aio_sigevent.sigev_notify = SIGEV_NONE;
    if (pa_submit(cb, io) < 0) {
        if (errno == EAGAIN)
            return LB_Q_BUSY;
        io->result = -errno;
        return LB_Q_DONE;
    }
    io->t_issue = lb_clock_now();
    p->nfree--;
    p->ios[slot] = io;
    p->inflight++;
    return LB_Q_QUEUED;
}

/* Every I/O went to the library in queue(). */
static int pa_commit(void *priv)
{
    (void)priv;
    return 0;
}

/* As fio's posixaio, every I/O found complete is returned, max or not
 * (engine.h allows it): a reap takes all that completed meanwhile, and the
 * queue refills from that depth, which is what fio's iodepth_level and
 * iodepth_complete maps of posixaio show. */
static int pa_getevents(void *priv, unsigned min, unsigned max, struct lb_io **evs)
{
    struct pa_priv *p = priv;
    unsigned n = 0;

    (void)max;
    if (min > p->inflight)
        min = p->inflight;        /* never wait for what was not submitted */
    for (;;) {
        int nwait = 0;

        for (unsigned i = 0; i < p->depth; i++) {
            struct lb_io *io = p->ios[i];
            if (!io)
                continue;
            int err = aio_error(&p->cbs[i]);
            if (err == EINPROGRESS) {
                p->wait[nwait++] = &p->cbs[i];
                continue;
            }
            ssize_t ret = aio_return(&p->cbs[i]);
            io->result = err ? -err : (int64_t)ret;
            p->ios[i] = NULL;
            p->free[p->nfree++] = i;
            p->inflight--;
            evs[n++] = io;
        }
        if (n >= min || nwait == 0)
            return (int)n;
        if (aio_suspend(p->wait, nwait, NULL) < 0 && errno != EINTR && errno != EAGAIN)
            return n ? (int)n : -errno;
    }
}

const struct lb_engine_ops lb_engine_posixaio = {
    .name = "posixaio",
    .help = "POSIX asynchronous I/O (aio_read/aio_write, glibc's threads), as fio's posixaio",
    .flags = LB_ENG_NOCOMMIT,
    .init = pa_init,
    .cleanup = pa_cleanup,
    .queue = pa_queue,
    .commit = pa_commit,
    .getevents = pa_getevents,
};
