/*
 * The pvsync2 engine: preadv2 / pwritev2 with per-I/O flags, as fio's
 * "pvsync2".  hipri=1 adds RWF_HIPRI (polled completion, needs O_DIRECT on
 * a device that polls); nowait=1 adds RWF_NOWAIT, and the EAGAIN it brings
 * when the data is not at hand is the I/O's result, not a failure of the
 * engine.  Each I/O completes inside queue(); EINTR is retried.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/uio.h>
#include "engines/engine.h"
#include "job/job.h"
#include "engines/internal.h"

struct pvsync2_priv {
    int rwf;                 /* RWF_* for every read and write */
};

static int pvsync2_init(const struct lb_engine_cfg *cfg, void **priv)
{
    struct pvsync2_priv *p = malloc(sizeof(*p));

    if (!p)
        return -ENOMEM;
    p->rwf = 0;
    if (cfg->job && cfg->job->hipri)
        p->rwf |= RWF_HIPRI;
    if (cfg->job && cfg->job->nowait)
        p->rwf |= RWF_NOWAIT;
    *priv = p;
    return 0;
}

static void pvsync2_cleanup(void *priv)
{
    free(priv);
}

static int64_t pvsync2_rw(const struct pvsync2_priv *p, int fd, const struct lb_io *io)
{
    struct iovec iov = { .iov_base = io->buf, .iov_len = io->len };
    ssize_t ret;

    do {
        if (io->ddir == LB_READ)
            ret = preadv2(fd, &iov, 1, (off_t)io->offset, p->rwf);
        else
            ret = pwritev2(fd, &iov, 1, (off_t)io->offset, p->rwf);
    } while (ret < 0 && errno == EINTR);
    return ret < 0 ? -errno : ret;
}

static int pvsync2_queue(void *priv, struct lb_io *io)
{
    int fd = io->file->fd;

    if (io->ddir == LB_READ || io->ddir == LB_WRITE)
        io->result = pvsync2_rw(priv, fd, io);
    else
        io->result = lb_eng_file_op(fd, io);
    return LB_Q_DONE;
}

const struct lb_engine_ops lb_engine_pvsync2 = {
    .name = "pvsync2",
    .help = "preadv2/pwritev2 (hipri: RWF_HIPRI, nowait: RWF_NOWAIT)",
    .flags = LB_ENG_SYNC,
    .init = pvsync2_init,
    .cleanup = pvsync2_cleanup,
    .queue = pvsync2_queue,
};
