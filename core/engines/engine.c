/*
 * The engine list and the generic layer around it: finding an engine by
 * name, checking its mandatory hooks once, asking whether this kernel runs
 * it.  No engine-specific branch lives here; each engine is one file under
 * engines/ exporting a const ops table.  Also the helpers engines share
 * (engines/internal.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "engines/engine.h"
#include "job/job.h"
#include "engines/internal.h"

const struct lb_engine_ops *const lb_engines[] = {
    &lb_engine_null,
    &lb_engine_sync,
    &lb_engine_psync,
    &lb_engine_pvsync2,
    &lb_engine_libaio,
    &lb_engine_posixaio,
    &lb_engine_io_uring,
    &lb_engine_mmap,
    &lb_engine_fault,
    NULL,
};

const struct lb_engine_ops *lb_engine_find(const char *name)
{
    if (!name)
        return NULL;
    for (const struct lb_engine_ops *const *e = lb_engines; *e; e++)
        if (strcmp((*e)->name, name) == 0)
            return *e;
    return NULL;
}

int lb_engine_check(const struct lb_engine_ops *ops)
{
    if (!ops || !ops->name || !ops->init || !ops->cleanup || !ops->queue)
        return -EINVAL;
    if (!(ops->flags & LB_ENG_SYNC) && (!ops->commit || !ops->getevents))
        return -EINVAL;
    return 0;
}

int lb_engine_probe(const struct lb_engine_ops *ops, char *why, size_t len)
{
    if (why && len)
        why[0] = '\0';
    if (lb_engine_check(ops) < 0) {
        lb_eng_why(why, len, "engine '%s' lacks a mandatory hook",
                   ops && ops->name ? ops->name : "?");
        return -EINVAL;
    }
    return ops->probe ? ops->probe(why, len) : 0;
}

unsigned lb_engine_flags(const struct lb_engine_ops *ops, const struct lb_job *job)
{
    return ops->job_flags ? ops->job_flags(job) : ops->flags;
}

void lb_eng_why(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;

    if (!why || !len)
        return;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
}

static int64_t retry_eintr(int (*fn)(int), int fd)
{
    int ret;

    do
        ret = fn(fd);
    while (ret < 0 && errno == EINTR);
    return ret < 0 ? -errno : 0;
}

int64_t lb_eng_file_op(int fd, const struct lb_io *io)
{
    int64_t ret;

    switch (io->ddir) {
    case LB_TRIM:
        ret = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                        (off_t)io->offset, (off_t)io->len) < 0 ? -errno : 0;
        break;
    case LB_SYNC_OP:
        ret = retry_eintr(fsync, fd);
        break;
    case LB_DATASYNC_OP:
        ret = retry_eintr(fdatasync, fd);
        break;
    default:
        return -EINVAL;
    }
    return ret < 0 ? ret : (int64_t)io->len;
}
