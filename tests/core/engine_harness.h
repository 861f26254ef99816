/*
 * Test harness for the engine tests: plays the run loop's part for one
 * engine instance on one file (open the file, allocate aligned buffers,
 * init / open_file / queue / commit / getevents / close_file / cleanup),
 * so the tests drive engines exactly as the core does.  Static functions
 * only: each test is one executable.
 */
#ifndef LB_ENGINE_HARNESS_H
#define LB_ENGINE_HARNESS_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "clock.h"
#include "engine.h"
#include "job.h"
#include "check.h"

#define H_BS 4096u
#define H_BLOCKS 64u

struct harness {
    const struct lb_engine_ops *ops;
    unsigned flags;              /* lb_engine_flags for the job */
    struct lb_engine_cfg cfg;
    struct lb_file file;
    void *priv;                  /* may be NULL for a started engine */
    bool started;                /* init succeeded */
    void *bufs;                  /* depth slots of H_BS, as the core gives */
    char why[256];
    volatile int stop;
};

/* Opens path with oflags (a negative fd for NOFILES engines is fine) and
 * starts the engine.  0 or -errno; h->why says what init refused. */
static inline int h_start(struct harness *h, const struct lb_engine_ops *ops,
                   const struct lb_job *job, const char *path, int oflags,
                   unsigned depth)
{
    int ret;

    memset(h, 0, sizeof(*h));
    h->ops = ops;
    h->flags = lb_engine_flags(ops, job);
    h->file.fd = -1;
    h->file.reg_index = -1;
    h->file.path = (char *)path;
    h->file.size = (uint64_t)H_BS * H_BLOCKS;
    if (path) {
        h->file.fd = open(path, oflags, 0600);
        if (h->file.fd < 0)
            return -errno;
    }
    if (posix_memalign(&h->bufs, 4096, (size_t)depth * H_BS))
        return -ENOMEM;
    h->cfg = (struct lb_engine_cfg){
        .job = job, .depth = depth, .direct = (oflags & O_DIRECT) != 0,
        .files = &h->file, .nfiles = 1, .bufs = h->bufs, .buf_len = H_BS,
        .clone = 0, .busy_clones = 1, .why = h->why, .why_len = sizeof(h->why),
        .stop = &h->stop,
    };
    ret = ops->init(&h->cfg, &h->priv);
    if (ret < 0)
        return ret;
    if (ops->open_file && h->file.fd >= 0) {
        ret = ops->open_file(h->priv, &h->file);
        if (ret < 0) {
            ops->cleanup(h->priv);
            return ret;
        }
    }
    h->started = true;
    return 0;
}

static inline void h_stop(struct harness *h)
{
    if (h->started) {
        if (h->ops->close_file && h->file.fd >= 0)
            h->ops->close_file(h->priv, &h->file);
        h->ops->cleanup(h->priv);
    }
    if (h->file.fd >= 0)
        close(h->file.fd);
    free(h->bufs);
    memset(h, 0, sizeof(*h));
}

/* Closes and reopens the engine's view of the file (after a truncate). */
static inline int h_reopen_file(struct harness *h)
{
    if (h->ops->close_file)
        h->ops->close_file(h->priv, &h->file);
    return h->ops->open_file ? h->ops->open_file(h->priv, &h->file) : 0;
}

static inline void h_io(struct lb_io *io, struct harness *h, int ddir, uint64_t off,
                 uint32_t len, void *buf)
{
    memset(io, 0, sizeof(*io));
    io->file = &h->file;
    io->ddir = (uint8_t)ddir;
    io->offset = off;
    io->len = len;
    io->buf = buf;
    io->buf_index = -1;
    io->result = INT64_MIN;       /* must be overwritten */
}

/* Runs n I/Os with up to the engine's depth in flight, as the run loop
 * does; returns 0 when all completed, or -errno from a hook. */
static inline int h_run(struct harness *h, struct lb_io *ios, unsigned n)
{
    unsigned next = 0, done = 0, inflight = 0;
    struct lb_io *evs[256];

    while (done < n) {
        bool queued = false;
        int ret = LB_Q_DONE;

        while (next < n) {
            ios[next].t_start = lb_clock_now();
            ret = h->ops->queue(h->priv, &ios[next]);
            if (ret < 0)
                return ret;
            if (ret == LB_Q_BUSY)
                break;
            if (ret == LB_Q_DONE) {
                done++;
            } else {
                inflight++;
                queued = true;
            }
            next++;
        }
        if (queued && (ret = h->ops->commit(h->priv)) < 0)
            return ret;
        if (inflight) {
            unsigned max = inflight < 256 ? inflight : 256;
            int k = h->ops->getevents(h->priv, 1, max, evs);
            if (k < 0)
                return k;
            done += (unsigned)k;
            inflight -= (unsigned)k;
        } else if (next < n && ret == LB_Q_BUSY) {
            return -EBUSY;        /* busy with nothing in flight */
        }
    }
    return 0;
}

/* One I/O, synchronously; its result. */
static inline int64_t h_one(struct harness *h, int ddir, uint64_t off, uint32_t len, void *buf)
{
    struct lb_io io;
    int ret;

    h_io(&io, h, ddir, off, len, buf);
    ret = h_run(h, &io, 1);
    return ret < 0 ? ret : io.result;
}

/* A temp file in dir; path written to out.  Returns 0 or -errno. */
static inline int h_tempfile(const char *dir, char *out, size_t len)
{
    snprintf(out, len, "%s/lb-engine-test.XXXXXX", dir);
    int fd = mkstemp(out);
    if (fd < 0)
        return -errno;
    close(fd);
    return 0;
}

/* A directory on tmpfs for buffered passes: /dev/shm, else /tmp. */
static inline const char *h_shm_dir(void)
{
    return access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
}

static inline void h_pattern(unsigned char *buf, size_t len, uint64_t off, unsigned seed)
{
    for (size_t i = 0; i < len; i++) {
        uint64_t x = (off + i) * 0x9E3779B97F4A7C15ull + seed;
        buf[i] = (unsigned char)(x >> 56);
    }
}

static inline void *h_alloc(size_t len)
{
    void *p = NULL;

    return posix_memalign(&p, 4096, len) ? NULL : p;
}

#endif
