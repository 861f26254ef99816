/*
 * The sync engine: lseek then read or write, one I/O at a time, as fio's
 * "sync".  Each I/O completes inside queue().  A short read at end of file
 * returns the short count (no loop); EINTR is retried; trim punches a hole
 * and the sync operations call fsync / fdatasync.  No per-instance state.
 */
#include <errno.h>
#include <unistd.h>
#include "engines/engine.h"
#include "job/job.h"
#include "engines/internal.h"

static int sync_init(const struct lb_engine_cfg *cfg, void **priv)
{
    *priv = NULL;
    return 0;
}

static void sync_cleanup(void *priv)
{
}

static int64_t sync_rw(int fd, const struct lb_io *io)
{
    ssize_t ret;

    if (lseek(fd, (off_t)io->offset, SEEK_SET) < 0)
        return -errno;
    do {
        if (io->ddir == LB_READ)
            ret = read(fd, io->buf, io->len);
        else
            ret = write(fd, io->buf, io->len);
    } while (ret < 0 && errno == EINTR);
    return ret < 0 ? -errno : ret;
}

static int sync_queue(void *priv, struct lb_io *io)
{
    int fd = io->file->fd;

    if (io->ddir == LB_READ || io->ddir == LB_WRITE)
        io->result = sync_rw(fd, io);
    else
        io->result = lb_eng_file_op(fd, io);
    return LB_Q_DONE;
}

const struct lb_engine_ops lb_engine_sync = {
    .name = "sync",
    .help = "lseek + read/write, one I/O at a time",
    .flags = LB_ENG_SYNC,
    .init = sync_init,
    .cleanup = sync_cleanup,
    .queue = sync_queue,
};
