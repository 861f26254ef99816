/*
 * Laying out files before the timed phase: every file the plan marked
 * (missing, or ours and too small) is written sequentially from its
 * current end to the size the run needs, in 1 MiB writes filled as the
 * first job laying it out fills its writes (bufs.c: random bytes, zeros,
 * a pattern, compressible chunks), one block at a time as fio lays out a
 * file, then fsync'd (fio's create_fsync).  Up to four files are written
 * in parallel, each by one thread; progress is counted in r->laid_out.
 * A new file is marked as luabench's (files.h) right after its creation;
 * an existing one is opened without following a symbolic link and must be
 * the file the plan checked (plan.c).  ENOSPC removes what was added.
 * Ctrl-C (lb_run_interrupt_all) or lb_run_stop ends the layout.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/files.h"
#include "run/bufs.h"
#include "run/layout.h"
#include "run/run_state.h"

#define LAYOUT_CHUNK (1u << 20)
#define LAYOUT_THREADS 4

struct layout {
    struct lb_run *r;
    struct lb_plan *p;
    size_t *todo, ntodo;
    atomic_size_t next;
    pthread_mutex_t mu;
    int err;                     /* the first failure; l->mu */
};

static int layout_err(struct layout *l)
{
    int err;

    pthread_mutex_lock(&l->mu);
    err = l->err;
    pthread_mutex_unlock(&l->mu);
    return err;
}

static int layout_fail(struct layout *l, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int layout_fail(struct layout *l, int err, const char *fmt, ...)
{
    va_list ap;

    pthread_mutex_lock(&l->mu);
    if (!l->err) {
        l->err = err;
        va_start(ap, fmt);
        vsnprintf(l->r->err, sizeof(l->r->err), fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&l->mu);
    return err;
}

static bool layout_stopped(struct layout *l)
{
    return __atomic_load_n(&l->r->stop, __ATOMIC_RELAXED) ||
           atomic_load(&lb_interrupt_gen) != l->r->intr0;
}

/* Writes t from off to t->need.  0, or -errno with *at where it stopped. */
static int write_range(struct layout *l, struct lb_target *t, int fd, uint64_t off, void *buf,
                       uint64_t *at)
{
    struct lb_bufs *b = (struct lb_bufs *)((char *)buf + LAYOUT_CHUNK);
    size_t bs = lb_job_bs_max(t->job, 1u << LB_WRITE);
    char msg[200];

    bs = bs && bs < LAYOUT_CHUNK ? bs : LAYOUT_CHUNK;
    if (lb_bufs_setup(b, t->job, (uint64_t)(uintptr_t)t ^ off, false, false, msg, sizeof(msg)))
        return layout_fail(l, -EINVAL, "job '%s': buffer_pattern: %s", t->job->name, msg);
    while (off < t->need) {
        size_t n = t->need - off < LAYOUT_CHUNK ? t->need - off : LAYOUT_CHUNK;
        ssize_t w;

        *at = off;
        if (layout_stopped(l))
            return layout_fail(l, -EINTR, "interrupted while laying out %s", t->path);
        for (size_t k = 0; k < n; k += bs)
            lb_bufs_fill(b, (char *)buf + k, n - k < bs ? n - k : bs);
        w = pwrite(fd, buf, n, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? -errno : -ENOSPC;
        off += (uint64_t)w;
        atomic_fetch_add(&l->r->laid_out, (uint64_t)w);
    }
    return 0;
}

/* A layout that ran out of space: what it added goes (the file it created
 * is removed, one of ours it extended is cut back) so the file system is
 * not left full; the message says how much did not fit. */
static int out_of_space(struct layout *l, struct lb_target *t, int fd, int err, uint64_t from,
                        uint64_t at)
{
    const char *undo = "";

    if (t->created && lb_file_unlink_ours(t->path) == 0) {
        t->created = false;
        undo = "; the partial file was removed";
    } else if (!t->created && ftruncate(fd, (off_t)from) == 0) {
        undo = "; the file was cut back to its former size";
    }
    return layout_fail(l, err, "cannot lay out %s: %s: %llu of %llu bytes did not fit%s",
                       t->path, strerror(-err), (unsigned long long)(t->need - at),
                       (unsigned long long)(t->need - from), undo);
}

static int layout_open(struct layout *l, struct lb_target *t)
{
    struct stat st;
    int fd;

    if (t->exists) {
        fd = lb_file_open_checked(t->path, O_WRONLY, &t->id);
        if (fd == -ELOOP || fd == -ESTALE)
            return layout_fail(l, -EPERM, "refusing to lay out %s: it was replaced by %s "
                               "after it was checked", t->path,
                               fd == -ELOOP ? "a symbolic link" : "another file");
        if (fd < 0)
            return layout_fail(l, fd, "cannot open %s for writing: %s", t->path,
                               strerror(-fd));
        return fd;
    }
    /* O_EXCL: a name taken since the check (a file, a symbolic link) fails */
    fd = open(t->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST)
        return layout_fail(l, -EPERM, "refusing to lay out %s: it appeared after it was "
                           "checked", t->path);
    if (fd < 0)
        return layout_fail(l, -errno, "cannot create %s: %s", t->path, strerror(errno));
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return layout_fail(l, -EIO, "cannot create %s: not a regular file", t->path);
    }
    t->created = true;
    lb_file_id_set(&t->id, &st, false);
    lb_file_mark(fd, t->path);
    return fd;
}

/* fio's fallocate= over what the layout adds; a file to be filled is then
 * sized with ftruncate (fallocate=truncate sizes every file so).  A file
 * that is not filled holds no data, only its space (and, but for
 * fallocate=none or keep, its size).  A mode the file system lacks
 * (EOPNOTSUPP) is passed over, as fio does.  0 or -errno. */
static int reserve(const struct lb_target *t, int fd, uint64_t from)
{
    off_t off = (off_t)from, len = (off_t)(t->need - from);
    int ret = 0;

    if (len <= 0)
        return 0;
    switch (t->fallocate) {
    case LB_FALLOC_NATIVE:
        ret = fallocate(fd, 0, off, len) < 0 ? -errno : 0;
        break;
    case LB_FALLOC_KEEP:
        ret = fallocate(fd, FALLOC_FL_KEEP_SIZE, off, len) < 0 ? -errno : 0;
        break;
    case LB_FALLOC_POSIX:
    case LB_FALLOC_1:
        ret = -posix_fallocate(fd, off, len);
        break;
    case LB_FALLOC_TRUNCATE:
        ret = ftruncate(fd, (off_t)t->need) < 0 ? -errno : 0;
        break;
    default:
        break;
    }
    if (ret == -EOPNOTSUPP || ret == -ENOSYS || ret == -EINVAL)
        ret = 0;
    if (!ret && t->fill && ftruncate(fd, (off_t)t->need) < 0)
        ret = -errno;
    return ret;
}

static int layout_one(struct layout *l, struct lb_target *t, void *buf)
{
    int fd = layout_open(l, t), ret;
    uint64_t at = 0, from;
    struct stat st;

    if (fd < 0)
        return fd;
    if (fstat(fd, &st) < 0) {
        close(fd);
        return layout_fail(l, -errno, "cannot stat %s: %s", t->path, strerror(errno));
    }
    from = (uint64_t)st.st_size;
    at = from;
    ret = reserve(t, fd, from);
    if (!ret && t->fill)
        ret = write_range(l, t, fd, from, buf, &at);
    if (!ret && t->fill && t->create_fsync && fsync(fd) < 0)
        ret = -errno;
    if (ret == -ENOSPC || ret == -EDQUOT)
        ret = out_of_space(l, t, fd, ret, from, at);
    else if (ret && ret != -EINTR)
        ret = layout_fail(l, ret, "cannot lay out %s: %s", t->path, strerror(-ret));
    close(fd);
    return ret;
}

static void *layout_thread(void *arg)
{
    struct layout *l = arg;
    void *buf = malloc(LAYOUT_CHUNK + sizeof(struct lb_bufs));  /* the fill's state after */

    if (!buf) {
        layout_fail(l, -ENOMEM, "out of memory");
        return NULL;
    }
    for (;;) {
        size_t i = atomic_fetch_add(&l->next, 1);

        if (i >= l->ntodo || layout_err(l))
            break;
        layout_one(l, &l->p->t[l->todo[i]], buf);
    }
    free(buf);
    return NULL;
}

int lb_layout_files(struct lb_run *r, struct lb_plan *p)
{
    struct layout l = { .r = r, .p = p };
    pthread_t tid[LAYOUT_THREADS];
    unsigned nt = 0;

    l.todo = calloc(p->n ? p->n : 1, sizeof(*l.todo));
    if (!l.todo)
        return lb_run_fail(r, -ENOMEM, "out of memory");
    for (size_t i = 0; i < p->n; i++)
        if (p->t[i].layout)
            l.todo[l.ntodo++] = i;
    pthread_mutex_init(&l.mu, NULL);
    atomic_init(&l.next, 0);
    while (nt + 1 < LAYOUT_THREADS && nt + 1 < l.ntodo &&
           pthread_create(&tid[nt], NULL, layout_thread, &l) == 0)
        nt++;
    if (l.ntodo)
        layout_thread(&l);
    for (unsigned i = 0; i < nt; i++)
        pthread_join(tid[i], NULL);
    pthread_mutex_destroy(&l.mu);
    free(l.todo);
    return l.err;
}
