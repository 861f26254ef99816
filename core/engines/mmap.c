/*
 * The mmap engine: each file's region is mapped (MAP_SHARED) when it is
 * opened; reads copy out of the mapping, writes copy into it, fsync is
 * msync.  The mapping is writable only when the file was opened O_RDWR.
 * Reads stop at end of file (a short count, never SIGBUS); a write past
 * end of file first extends the file inside the mapped region.  Trim
 * punches a hole through the descriptor.  The mapping itself is f->map
 * and f->map_len (struct lb_file, engine.h); what else the engine keeps
 * per file (struct mmap_file: where the mapping starts, the size it knows,
 * whether it may write) lives in f->eng.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "engines/engine.h"
#include "job/job.h"
#include "engines/internal.h"

struct mmap_file {
    uint64_t base;               /* file offset of the mapping (page aligned) */
    uint64_t eof;                /* file size as this engine knows it */
    bool writable;
};

static int mmap_init(const struct lb_engine_cfg *cfg, void **priv)
{
    *priv = NULL;
    return 0;
}

static void mmap_cleanup(void *priv)
{
}

static int mmap_map(struct lb_file *f, struct mmap_file *m)
{
    uint64_t end = f->size ? f->file_offset + f->size : m->eof;
    int prot = PROT_READ | (m->writable ? PROT_WRITE : 0);
    void *map;

    f->map = NULL;
    f->map_len = end > m->base ? end - m->base : 0;
    if (f->map_len == 0)
        return 0;
    map = mmap(NULL, f->map_len, prot, MAP_SHARED, f->fd, (off_t)m->base);
    if (map == MAP_FAILED) {
        f->map_len = 0;
        return -errno;
    }
    f->map = map;
    return 0;
}

static int mmap_open_file(void *priv, struct lb_file *f)
{
    long page = sysconf(_SC_PAGESIZE);
    struct mmap_file *m = calloc(1, sizeof(*m));
    struct stat st;
    int fl, ret;

    if (!m)
        return -ENOMEM;
    fl = fcntl(f->fd, F_GETFL);
    if (fl < 0 || fstat(f->fd, &st) < 0) {
        ret = -errno;
        free(m);
        return ret;
    }
    m->writable = (fl & O_ACCMODE) == O_RDWR;
    m->eof = (uint64_t)st.st_size;
    m->base = f->file_offset & ~(uint64_t)(page - 1);
    ret = mmap_map(f, m);
    if (ret < 0) {
        free(m);
        return ret;
    }
    f->eng = m;
    return 0;
}

static void mmap_close_file(void *priv, struct lb_file *f)
{
    if (f->map)
        munmap(f->map, f->map_len);
    f->map = NULL;
    f->map_len = 0;
    free(f->eng);
    f->eng = NULL;
}

static int64_t mmap_read(const struct lb_file *f, const struct mmap_file *m,
                         struct lb_io *io)
{
    uint64_t end = m->base + f->map_len < m->eof ? m->base + f->map_len : m->eof;
    uint64_t n;

    if (io->offset < m->base)
        return -EINVAL;
    if (io->offset >= end)
        return 0;
    n = end - io->offset < io->len ? end - io->offset : io->len;
    memcpy(io->buf, (char *)f->map + (io->offset - m->base), n);
    return (int64_t)n;
}

static int64_t mmap_write(const struct lb_file *f, struct mmap_file *m,
                          struct lb_io *io)
{
    uint64_t end = io->offset + io->len;

    if (!m->writable)
        return -EBADF;
    if (io->offset < m->base || end > m->base + f->map_len)
        return -EINVAL;           /* outside the mapped region */
    if (end > m->eof) {
        if (ftruncate(f->fd, (off_t)end) < 0)
            return -errno;
        m->eof = end;
    }
    memcpy((char *)f->map + (io->offset - m->base), io->buf, io->len);
    return io->len;
}

static int64_t mmap_sync(const struct lb_file *f, const struct lb_io *io)
{
    if (f->map && msync(f->map, f->map_len, MS_SYNC) < 0)
        return -errno;
    return io->len;
}

static int mmap_queue(void *priv, struct lb_io *io)
{
    struct lb_file *f = io->file;
    struct mmap_file *m = f->eng;

    if (!m)
        io->result = -EBADF;      /* open_file did not run */
    else if (io->ddir == LB_READ)
        io->result = mmap_read(f, m, io);
    else if (io->ddir == LB_WRITE)
        io->result = mmap_write(f, m, io);
    else if (io->ddir == LB_TRIM)
        io->result = lb_eng_file_op(f->fd, io);
    else
        io->result = mmap_sync(f, io);
    return LB_Q_DONE;
}

const struct lb_engine_ops lb_engine_mmap = {
    .name = "mmap",
    .help = "memcpy to and from a shared mapping of the file; fsync is msync",
    .flags = LB_ENG_SYNC | LB_ENG_NOEXTEND,
    .init = mmap_init,
    .cleanup = mmap_cleanup,
    .open_file = mmap_open_file,
    .close_file = mmap_close_file,
    .queue = mmap_queue,
};
