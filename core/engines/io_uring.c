/*
 * The io_uring engine (liburing), as fio's "io_uring".  One ring of depth
 * entries per worker: queue() fills an SQE, commit() submits them all and
 * stamps t_issue, getevents() reaps CQEs in batches and maps user_data
 * back to the lb_io.
 *
 * Options: registerfiles=1 registers the worker's files at init (slot =
 * index in cfg->files, kept current by open_file/close_file) and issues
 * with IOSQE_FIXED_FILE; fixedbufs=1 registers cfg->bufs as one buffer per
 * depth slot (io->buf_index names it); sqthread_poll=1 gives the ring a
 * kernel submission thread (SQPOLL); hipri=1 polls for completions
 * (IOPOLL), which needs direct=1 (and a device with poll queues: others
 * answer EOPNOTSUPP per I/O).  Trim is IORING_OP_FALLOCATE; on a polled
 * ring trim and fsync run synchronously in queue(), as the ring refuses
 * them.
 *
 * The ring asks for the cheapest completion delivery the kernel has, as
 * fio does: DEFER_TASKRUN with SINGLE_ISSUER (completions wait, as task
 * work, until this thread enters the kernel for events: no interrupt of
 * the thread per completion, and io-wq completions reach the ring in
 * batches), else COOP_TASKRUN, else none.  Not TASKRUN_FLAG: it makes the
 * kernel set a flag in the shared SQ ring at every completion, a cache
 * line the completing CPU and this thread then pass back and forth (5%
 * fewer IOPS on buffered tmpfs reads, where io-wq completes everything).
 * Every submission also asks for events, so the completions that arrived
 * meanwhile are in the CQ ring at the next reap without a wait.  The ring
 * fd is registered when the kernel can, which spares a descriptor look-up
 * per io_uring_enter.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "base/clock.h"
#include "engines/engine.h"
#include "job/job.h"
#include "job/prio.h"
#include "engines/internal.h"

struct uring_priv {
    struct io_uring ring;
    unsigned depth;
    unsigned inflight;           /* queued or submitted, not reaped */
    struct lb_io **queued;       /* in the SQ ring, not yet submitted */
    unsigned nqueued;
    bool fixed_files;
    bool fixed_bufs;
    bool iopoll;                 /* polled ring: no fsync or fallocate there */
    bool getevents;              /* submit with IORING_ENTER_GETEVENTS */
    bool lazy;                   /* completions may wait for this thread to enter */
    struct lb_file *files;       /* cfg->files: registered slot = index */
    unsigned nfiles;
    struct lb_cmdprio prio;      /* cmdprio_*: each I/O's priority */
};

static const char *uring_hint(int err)
{
    switch (err) {
    case -EPERM:  return " (io_uring disabled by kernel.io_uring_disabled?)";
    case -ENOSYS: return " (kernel built without io_uring)";
    case -ENOMEM: return " (RLIMIT_MEMLOCK too low?)";
    default:      return "";
    }
}

static int uring_probe(char *why, size_t len)
{
    struct io_uring ring;
    int ret = io_uring_queue_init(2, &ring, 0);

    if (ret < 0) {
        lb_eng_why(why, len, "io_uring_setup: %s%s", strerror(-ret), uring_hint(ret));
        return ret;
    }
    io_uring_queue_exit(&ring);
    return 0;
}

/* Completion delivery flags, best first; init takes the first the kernel
 * accepts (older kernels answer EINVAL to flags they do not know). */
static const unsigned uring_taskrun_flags[] = {
    IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
    IORING_SETUP_COOP_TASKRUN,
    0,
};

/* The ring with base flags and the best completion delivery it takes. */
static int uring_queue_init(struct uring_priv *p, unsigned base)
{
    struct io_uring_params params;
    unsigned first = base & IORING_SETUP_SQPOLL ? 2 : 0;   /* SQPOLL takes none */
    int ret = -EINVAL;

    for (unsigned i = first; i < 3 && ret == -EINVAL; i++) {
        p->lazy = uring_taskrun_flags[i] != 0;
        memset(&params, 0, sizeof(params));
        params.flags = base | uring_taskrun_flags[i] | IORING_SETUP_CQSIZE;
        params.cq_entries = p->depth;    /* never more in flight */
        ret = io_uring_queue_init_params(p->depth, &p->ring, &params);
        if (ret == -EINVAL) {
            params.flags &= ~IORING_SETUP_CQSIZE;
            ret = io_uring_queue_init_params(p->depth, &p->ring, &params);
        }
    }
    if (ret == 0)
        p->getevents = !(base & IORING_SETUP_SQPOLL);
    return ret;
}

static int uring_setup(struct uring_priv *p, const struct lb_engine_cfg *cfg)
{
    const struct lb_job *job = cfg->job;
    unsigned flags = 0;
    int ret;

    if (job && job->sqthread_poll)
        flags |= IORING_SETUP_SQPOLL;
    if (job && job->hipri) {
        if (!cfg->direct) {
            lb_eng_cfg_why(cfg, "io_uring: hipri=1 (IOPOLL) needs direct=1");
            return -EINVAL;
        }
        flags |= IORING_SETUP_IOPOLL;
        p->iopoll = true;
    }
    ret = uring_queue_init(p, flags);
    if (ret < 0) {
        lb_eng_cfg_why(cfg, "io_uring_setup: %s%s", strerror(-ret), uring_hint(ret));
        return ret;
    }
    io_uring_register_ring_fd(&p->ring);   /* an optimisation: may fail */
    return 0;
}

static int uring_register_files(struct uring_priv *p, const struct lb_engine_cfg *cfg)
{
    int *fds;
    int ret;

    if (!cfg->job || !cfg->job->registerfiles || cfg->nfiles == 0)
        return 0;
    fds = malloc(cfg->nfiles * sizeof(*fds));
    if (!fds)
        return -ENOMEM;
    for (unsigned i = 0; i < cfg->nfiles; i++)
        fds[i] = cfg->files[i].fd;
    ret = io_uring_register_files(&p->ring, fds, cfg->nfiles);
    free(fds);
    if (ret < 0) {
        lb_eng_cfg_why(cfg, "io_uring_register_files: %s", strerror(-ret));
        return ret;
    }
    for (unsigned i = 0; i < cfg->nfiles; i++)
        cfg->files[i].reg_index = cfg->files[i].fd >= 0 ? (int)i : -1;
    p->fixed_files = true;
    return 0;
}

static int uring_register_bufs(struct uring_priv *p, const struct lb_engine_cfg *cfg)
{
    struct iovec *iov;
    int ret;

    if (!cfg->job || !cfg->job->fixedbufs || !cfg->bufs || !cfg->buf_len)
        return 0;
    iov = malloc(p->depth * sizeof(*iov));
    if (!iov)
        return -ENOMEM;
    for (unsigned i = 0; i < p->depth; i++) {
        iov[i].iov_base = (char *)cfg->bufs + (size_t)i * cfg->buf_len;
        iov[i].iov_len = cfg->buf_len;
    }
    ret = io_uring_register_buffers(&p->ring, iov, p->depth);
    free(iov);
    if (ret < 0) {
        lb_eng_cfg_why(cfg, "io_uring_register_buffers: %s%s", strerror(-ret),
                       uring_hint(ret));
        return ret;
    }
    p->fixed_bufs = true;
    return 0;
}

static void uring_free(struct uring_priv *p)
{
    free(p->queued);
    free(p);
}

static int uring_init(const struct lb_engine_cfg *cfg, void **priv)
{
    struct uring_priv *p = calloc(1, sizeof(*p));
    int ret;

    if (!p)
        return -ENOMEM;
    p->depth = cfg->depth ? cfg->depth : 1;
    lb_cmdprio_init(&p->prio, cfg->job, cfg->clone);
    p->files = cfg->files;
    p->nfiles = cfg->nfiles;
    p->queued = calloc(p->depth, sizeof(*p->queued));
    if (!p->queued) {
        uring_free(p);
        return -ENOMEM;
    }
    ret = uring_setup(p, cfg);
    if (ret < 0) {
        uring_free(p);
        return ret;
    }
    ret = uring_register_files(p, cfg);
    if (ret == 0)
        ret = uring_register_bufs(p, cfg);
    if (ret < 0) {
        io_uring_queue_exit(&p->ring);
        uring_free(p);
        return ret;
    }
    *priv = p;
    return 0;
}

static void uring_cleanup(void *priv)
{
    struct uring_priv *p = priv;

    if (!p)
        return;
    io_uring_queue_exit(&p->ring);
    uring_free(p);
}

/* The registered slot of f, or -1 when f is not one of the worker's files. */
static int uring_slot(const struct uring_priv *p, const struct lb_file *f)
{
    if (!p->fixed_files || f < p->files || f >= p->files + p->nfiles)
        return -1;
    return (int)(f - p->files);
}

static int uring_open_file(void *priv, struct lb_file *f)
{
    struct uring_priv *p = priv;
    int slot = uring_slot(p, f);
    int ret;

    if (slot < 0)
        return 0;
    ret = io_uring_register_files_update(&p->ring, (unsigned)slot, &f->fd, 1);
    if (ret < 0)
        return ret;
    f->reg_index = slot;
    return 0;
}

static void uring_close_file(void *priv, struct lb_file *f)
{
    struct uring_priv *p = priv;
    int slot = uring_slot(p, f);
    int none = -1;

    if (slot < 0 || f->reg_index < 0)
        return;
    io_uring_register_files_update(&p->ring, (unsigned)slot, &none, 1);
    f->reg_index = -1;
}

static void uring_prep_rw(const struct uring_priv *p, struct io_uring_sqe *sqe,
                          int fd, const struct lb_io *io)
{
    bool fixed = p->fixed_bufs && io->buf_index >= 0;

    if (io->ddir == LB_READ && fixed)
        io_uring_prep_read_fixed(sqe, fd, io->buf, io->len, io->offset, io->buf_index);
    else if (io->ddir == LB_READ)
        io_uring_prep_read(sqe, fd, io->buf, io->len, io->offset);
    else if (fixed)
        io_uring_prep_write_fixed(sqe, fd, io->buf, io->len, io->offset, io->buf_index);
    else
        io_uring_prep_write(sqe, fd, io->buf, io->len, io->offset);
}

static void uring_prep(const struct uring_priv *p, struct io_uring_sqe *sqe,
                       struct lb_io *io)
{
    int fd = io->file->fd;
    unsigned flags = 0;

    if (p->fixed_files && io->file->reg_index >= 0) {
        fd = io->file->reg_index;
        flags = IOSQE_FIXED_FILE;
    }
    if (io->ddir == LB_READ || io->ddir == LB_WRITE)
        uring_prep_rw(p, sqe, fd, io);
    else if (io->ddir == LB_TRIM)
        io_uring_prep_fallocate(sqe, fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                                (off_t)io->offset, (off_t)io->len);
    else
        io_uring_prep_fsync(sqe, fd,
                            io->ddir == LB_DATASYNC_OP ? IORING_FSYNC_DATASYNC : 0);
    sqe->flags |= flags;
    io_uring_sqe_set_data(sqe, io);
}

static void uring_prio(struct uring_priv *p, struct io_uring_sqe *sqe, struct lb_io *io)
{
    unsigned prio;

    io->ioprio = (uint16_t)p->prio.own;
    if (lb_cmdprio_draw(p->prio.job, &p->prio.rng, io->ddir, io->len, &prio)) {
        io->ioprio = (uint16_t)prio;
        sqe->ioprio = (uint16_t)prio;
    }
}

/* With SQPOLL the kernel's thread may post an I/O's completion before it
 * moves the SQ head past its entry: a ring that looks full with nothing in
 * flight waits for the head (io_uring_sqring_wait), never for a completion
 * (none is coming); entries of ours not yet submitted are never waited on. */
static int uring_queue(void *priv, struct lb_io *io)
{
    struct uring_priv *p = priv;
    struct io_uring_sqe *sqe;

    if (io->ddir > LB_DATASYNC_OP) {
        io->result = -EINVAL;
        return LB_Q_DONE;
    }
    if (p->iopoll && io->ddir >= LB_TRIM) {
        io->result = lb_eng_file_op(io->file->fd, io);
        return LB_Q_DONE;         /* a polled ring refuses these */
    }
    if (p->inflight >= p->depth)
        return LB_Q_BUSY;
    sqe = io_uring_get_sqe(&p->ring);
    if (!sqe && !p->getevents && p->nqueued == 0 && io_uring_sqring_wait(&p->ring) >= 0)
        sqe = io_uring_get_sqe(&p->ring);   /* SQPOLL: see below */
    if (!sqe)
        return LB_Q_BUSY;
    uring_prep(p, sqe, io);
    if (p->prio.on)
        uring_prio(p, sqe, io);
    p->queued[p->nqueued++] = io;
    p->inflight++;
    return LB_Q_QUEUED;
}

static int uring_commit(void *priv)
{
    struct uring_priv *p = priv;
    int ret;

    if (p->nqueued == 0)
        return 0;
    do
        ret = p->getevents ? io_uring_submit_and_get_events(&p->ring)
                           : io_uring_submit(&p->ring);
    while (ret == -EINTR);
    if (ret == -EAGAIN || ret == -EBUSY)
        return 0;                 /* stays in the SQ ring; retried later */
    if (ret < 0)
        return ret;
    if ((unsigned)ret > p->nqueued)
        ret = (int)p->nqueued;
    uint64_t now = lb_clock_now();
    for (int i = 0; i < ret; i++)
        p->queued[i]->t_issue = now;
    p->nqueued -= (unsigned)ret;
    if (p->nqueued)
        memmove(p->queued, p->queued + ret, p->nqueued * sizeof(*p->queued));
    return 0;
}

static int64_t uring_result(const struct io_uring_cqe *cqe, const struct lb_io *io)
{
    if (cqe->res == 0 && io->ddir >= LB_TRIM)
        return io->len;           /* fallocate and fsync answer 0 */
    return cqe->res;
}

/* Moves up to max completions from the CQ ring to evs, in one pass over
 * the ring (one acquire of the tail per entry, one release of the head). */
static unsigned uring_reap(struct uring_priv *p, unsigned max, struct lb_io **evs)
{
    struct io_uring_cqe *cqe;
    unsigned head, got = 0;

    io_uring_for_each_cqe(&p->ring, head, cqe) {
        struct lb_io *io;

        if (got == max)
            break;
        io = io_uring_cqe_get_data(cqe);
        io->result = uring_result(cqe, io);
        evs[got++] = io;
    }
    if (got) {
        io_uring_cq_advance(&p->ring, got);
        p->inflight -= got;
    }
    return got;
}

/* Whether completions may be held back until this thread enters the
 * kernel: deferred or cooperative task work (without TASKRUN_FLAG the ring
 * does not say whether some is pending), or an overflowed CQ ring. */
static bool uring_held_back(const struct uring_priv *p)
{
    return p->lazy || (IO_URING_READ_ONCE(*p->ring.sq.kflags) & IORING_SQ_CQ_OVERFLOW);
}

static int uring_getevents(void *priv, unsigned min, unsigned max, struct lb_io **evs)
{
    struct uring_priv *p = priv;
    struct io_uring_cqe *cqe;
    unsigned n = 0;

    if (p->nqueued)
        uring_commit(p);
    if (min > p->inflight - p->nqueued)
        min = p->inflight - p->nqueued;   /* never wait for the unsubmitted */
    for (;;) {
        int ret;

        n += uring_reap(p, max - n, evs + n);
        if (n >= max || (n >= min && (n || !uring_held_back(p))))
            return (int)n;
        if (n >= min)
            ret = io_uring_get_events(&p->ring);      /* min 0: flush, no wait */
        else
            ret = io_uring_wait_cqe_nr(&p->ring, &cqe, min - n);
        if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -ETIME)
            return n ? (int)n : ret;
        if (n >= min)
            return (int)(n + uring_reap(p, max - n, evs + n));
    }
}

const struct lb_engine_ops lb_engine_io_uring = {
    .name = "io_uring",
    .help = "io_uring via liburing (registerfiles, fixedbufs, sqthread_poll, hipri)",
    .flags = LB_ENG_IOPRIO,
    .probe = uring_probe,
    .init = uring_init,
    .cleanup = uring_cleanup,
    .open_file = uring_open_file,
    .close_file = uring_close_file,
    .queue = uring_queue,
    .commit = uring_commit,
    .getevents = uring_getevents,
};
