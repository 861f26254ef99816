/*
 * The psync engine: pread / pwrite, one I/O at a time, as fio's "psync"
 * (its default).  Each I/O completes inside queue().  A short read at end
 * of file returns the short count (no loop); EINTR is retried; trim punches
 * a hole and the sync operations call fsync / fdatasync.  No state.
 */
#include <errno.h>
#include <unistd.h>
#include "engine.h"
#include "job.h"
#include "internal.h"

static int psync_init(const struct lb_engine_cfg *cfg, void **priv)
{
    *priv = NULL;
    return 0;
}

static void psync_cleanup(void *priv)
{
}

static int64_t psync_rw(int fd, const struct lb_io *io)
{
    ssize_t ret;

    do {
        if (io->ddir == LB_READ)
            ret = pread(fd, io->buf, io->len, (off_t)io->offset);
        else
            ret = pwrite(fd, io->buf, io->len, (off_t)io->offset);
    } while (ret < 0 && errno == EINTR);
    return ret < 0 ? -errno : ret;
}

static int psync_queue(void *priv, struct lb_io *io)
{
    int fd = io->file->fd;

    if (io->ddir == LB_READ || io->ddir == LB_WRITE)
        io->result = psync_rw(fd, io);
    else
        io->result = lb_eng_file_op(fd, io);
    return LB_Q_DONE;
}

const struct lb_engine_ops lb_engine_psync = {
    .name = "psync",
    .help = "pread/pwrite, one I/O at a time (the default)",
    .flags = LB_ENG_SYNC,
    .init = psync_init,
    .cleanup = psync_cleanup,
    .queue = psync_queue,
};
