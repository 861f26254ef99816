/*
 * Files opened at first use (fio's openfiles and create_on_open): a
 * worker with w->open_max set opens each of its files when an I/O first
 * needs it and, once open_max files are open, closes the least recently
 * used one that has no I/O in flight.  Its main object is struct
 * lb_ofiles, the worker's list of open files in order of use.
 *
 * Which workers do this is decided once, on the main thread, by
 * lb_of_plan: a job whose openfiles is below its number of files, a job
 * with create_on_open, and, when openfiles is 0, a job with more files
 * than the descriptor limit allows (after the run raised the soft limit):
 * it gets a quarter of the descriptors left, shared between its clones
 * where they share a descriptor table, and the run records a note saying
 * so (lb_run_note).  Other workers open every file at setup (worker.c),
 * and nothing here touches their I/O path.
 *
 * For these workers the generator takes its slow path (gen.c), which calls
 * lb_of_use for each I/O: each I/O slot pins the file of its I/O until the
 * I/O completes (lb_of_done), so a file with I/Os in flight stays open;
 * when every open file is pinned the I/O waits for a completion
 * (GEN_BUSY, async engines only).  The engine's open_file and close_file
 * hooks run at each open and close (io_uring keeps its registered slots
 * current there; with more files than the descriptor limit, which is also
 * the most files a ring may register, the engine is given the job without
 * registerfiles).  A file that cannot be opened ends the clone, the
 * failure counted as a failed I/O with its message.  With create_on_open
 * a missing file is created empty (and marked as luabench's, files.h) at
 * its first open; reads past its end are short.  direct=1: the alignment
 * check made at setup for other jobs is not made; a misaligned I/O fails
 * with EINVAL.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/files.h"
#include "run/openfiles.h"
#include "run/run_int.h"
#include "run/stats_int.h"

/* Workers unshare their descriptor table (worker.c, private_fds), except
 * under ThreadSanitizer: then all clones count against one limit. */
#if defined(__SANITIZE_THREAD__)
#define FDS_SHARED 1
#else
#define FDS_SHARED 0
#endif

#define FDS_SPARE 16             /* per worker: engine, ring, the host's own */

enum { OF_SEEN = 1, OF_DIRTY = 2 };

struct lb_ofiles {
    uint32_t head;               /* sentinel index (nfiles) of the use list */
    uint32_t *prev, *next;       /* use list of open files, most recent first */
    uint32_t *pins;              /* per file: I/Os in flight */
    uint8_t *flags;              /* per file: OF_SEEN, OF_DIRTY */
    uint32_t *slot;              /* per I/O slot: file index + 1 it pins, 0 none */
    unsigned nslots, nopen;
    bool failed;                 /* an open failed: the clone is ending */
    bool own_job;                /* the engine gets job, not w->job */
    struct lb_job job;           /* w->job without registerfiles (shallow) */
};

/* planning (main thread) */

static uint64_t fds_open_now(void)
{
    DIR *d = opendir("/proc/self/fd");
    uint64_t n = 0;

    if (!d)
        return 64;
    while (readdir(d))
        n++;
    closedir(d);
    return n > 3 ? n - 3 : 0;    /* ".", ".." and the directory's own */
}

/* The bound a job asks for itself; 0: all its files, opened at setup. */
static unsigned asked_max(const struct lb_worker *w)
{
    const struct lb_job *j = w->job;

    if (j->openfiles && j->openfiles < w->nfiles)
        return j->openfiles;
    return j->create_on_open ? w->nfiles : 0;
}

static void note_set(struct lb_run *r, unsigned files, unsigned bound, uint64_t limit)
{
    snprintf(r->note, sizeof(r->note), "opening files lazily: %u files per clone, at most "
             "%u open at once (descriptor limit %llu)", files, bound, (unsigned long long)limit);
}

void lb_of_plan(struct lb_run *r)
{
    uint64_t need_all = 64, need_one = 0, left, bound, limit, used = fds_open_now();
    unsigned nauto = 0, most = 0;
    struct rlimit rl;

    for (size_t i = 0; i < r->nw; i++) {
        struct lb_worker *w = r->w[i];
        uint64_t n;

        if (w->nofiles)
            continue;
        w->open_max = asked_max(w);
        n = (w->open_max ? w->open_max : w->nfiles) + FDS_SPARE;
        need_all += n;
        need_one = n > need_one ? n : need_one;
        nauto += !w->job->openfiles;
    }
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY || !nauto)
        return;
    limit = rl.rlim_cur;
    left = limit > used ? limit - used : 0;
    if ((FDS_SHARED ? need_all : need_one + 64) <= left)
        return;
    bound = left / 4 / (FDS_SHARED ? nauto : 1);
    bound = bound ? bound : 1;
    for (size_t i = 0; i < r->nw; i++) {
        struct lb_worker *w = r->w[i];

        if (w->nofiles || w->job->openfiles || w->nfiles <= bound)
            continue;
        w->open_max = (unsigned)bound;
        most = w->nfiles > most ? w->nfiles : most;
    }
    if (most)
        note_set(r, most, (unsigned)bound, limit);
}

/* the use list */

static void lru_unlink(struct lb_ofiles *of, uint32_t i)
{
    of->next[of->prev[i]] = of->next[i];
    of->prev[of->next[i]] = of->prev[i];
}

static void lru_front(struct lb_ofiles *of, uint32_t i)
{
    uint32_t h = of->head;

    of->prev[i] = h;
    of->next[i] = of->next[h];
    of->prev[of->next[h]] = i;
    of->next[h] = i;
}

/* The least recently used open file without I/O in flight, or head. */
static uint32_t lru_victim(const struct lb_ofiles *of)
{
    uint32_t i = of->prev[of->head];

    while (i != of->head && of->pins[i])
        i = of->prev[i];
    return i;
}

/* setup and teardown (worker thread) */

int lb_of_setup(struct lb_worker *w)
{
    const struct lb_job *j = w->job;
    struct lb_ofiles *of = calloc(1, sizeof(*of));
    size_t n = (size_t)w->nfiles + 1;
    struct rlimit rl;

    w->of = of;
    if (!of)
        goto nomem;
    /* as alloc_slots (worker.c) sizes the I/O slots */
    of->nslots = w->sync ? 1 : (j->iodepth ? j->iodepth : 1);
    of->head = w->nfiles;
    of->prev = calloc(n, sizeof(*of->prev));
    of->next = calloc(n, sizeof(*of->next));
    of->pins = calloc(n, sizeof(*of->pins));
    of->flags = calloc(n, sizeof(*of->flags));
    of->slot = calloc(of->nslots, sizeof(*of->slot));
    if (!of->prev || !of->next || !of->pins || !of->flags || !of->slot)
        goto nomem;
    of->prev[of->head] = of->next[of->head] = of->head;
    if (j->registerfiles && getrlimit(RLIMIT_NOFILE, &rl) == 0 && w->nfiles > rl.rlim_cur) {
        of->job = *j;
        of->job.registerfiles = false;
        of->own_job = true;
    }
    return 0;
nomem:
    snprintf(w->setup_msg, sizeof(w->setup_msg), "out of memory");
    return -ENOMEM;
}

const struct lb_job *lb_of_engine_job(const struct lb_worker *w)
{
    return w->of && w->of->own_job ? &w->of->job : w->job;
}

void lb_of_free(struct lb_ofiles *of)
{
    if (!of)
        return;
    free(of->prev);
    free(of->next);
    free(of->pins);
    free(of->flags);
    free(of->slot);
    free(of);
}

/* opening and closing */

static int of_fail(struct lb_worker *w, const struct lb_io *io, int err, const char *msg)
{
    unsigned d = io->ddir < LB_DDIR_N ? io->ddir : LB_WRITE;
    struct lb_err_stats *e = &w->st.err;

    w->st.dir[d].errors++;
    e->count++;
    lb_err_note(e, (int)d, err, 1);
    lb_err_first(e, err, (int)d, io->file->path, io->offset, msg);
    w->of->failed = true;
    return GEN_END;
}

/* create_on_open: creates f if it is missing.  1 created, 0 exists, -errno.
 * A file that another clone created in the meantime is used only when it
 * is ours (or allow_overwrite), decided on its descriptor. */
static int of_create(struct lb_worker *w, struct lb_file *f, char *msg, size_t len)
{
    int fd = open(f->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    struct stat st;
    bool made = fd >= 0;

    if (fd < 0 && errno == EEXIST && f->id.type)
        return 0;                        /* existed when checked: open checks it */
    if (fd < 0 && errno == EEXIST)
        fd = open(f->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        fd = -errno;
        snprintf(msg, len, "%s %s: %s", fd == -ELOOP ? "refusing to open" : "cannot create",
                 f->path, fd == -ELOOP ? "it is a symbolic link" : strerror(-fd));
        return fd;
    }
    if (made)
        lb_file_mark(fd, f->path);
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
        (!made && !w->job->allow_overwrite && lb_file_is_ours_fd(fd, f->path) != 1)) {
        close(fd);
        snprintf(msg, len, "refusing to write to %s: it appeared after it was checked and "
                 "was not created by luabench", f->path);
        return -EPERM;
    }
    lb_file_id_set(&f->id, &st, false);
    close(fd);
    f->created = made;
    return made;
}

/* fsync_on_close: as fio's, a plain fsync of a job that writes, skipped
 * when its last operation was a sync; neither counted nor timed. */
void lb_of_close_sync(const struct lb_worker *w, const struct lb_file *f)
{
    if (w->job->fsync_on_close && w->writes && !w->last_sync && f->fd >= 0)
        (void)fsync(f->fd);
}

static void of_close(struct lb_worker *w, uint32_t i)
{
    struct lb_file *f = &w->files[i];

    if (w->engine_up && w->eng->close_file)
        w->eng->close_file(w->priv, f);
    lb_of_close_sync(w, f);
    close(f->fd);
    f->fd = -1;
    lru_unlink(w->of, i);
    w->of->nopen--;
}

/* Opens file i for io (whose file it is) once a slot is free.  GEN_OP,
 * GEN_BUSY (every open file has I/O in flight) or GEN_END (failed). */
static int of_open(struct lb_worker *w, const struct lb_io *io, uint32_t i)
{
    const struct lb_job *j = w->job;
    struct lb_ofiles *of = w->of;
    struct lb_file *f = &w->files[i];
    char msg[256];
    int fd, ret;

    if (of->nopen >= w->open_max) {
        uint32_t v = lru_victim(of);

        if (v == of->head)
            return GEN_BUSY;
        of_close(w, v);
    }
    ret = j->create_on_open ? of_create(w, f, msg, sizeof(msg)) : 0;
    fd = ret < 0 ? ret : lb_file_open(f->path, &f->id, w->writes, lb_job_oflags(j), msg,
                                         sizeof(msg));
    if (fd < 0)
        return of_fail(w, io, -fd, msg);
    f->fd = fd;
    if ((ret = lb_of_write_hint(w, f, fd, msg, sizeof(msg))) < 0) {
        close(fd);
        f->fd = -1;
        return of_fail(w, io, -ret, msg);
    }
    lb_of_advise(w, f, fd, !(of->flags[i] & OF_SEEN));
    of->flags[i] |= OF_SEEN;
    ret = w->engine_up && w->eng->open_file ? w->eng->open_file(w->priv, f) : 0;
    if (ret < 0) {
        snprintf(msg, sizeof(msg), "engine '%s' cannot use %s: %s", w->eng->name, f->path,
                 strerror(-ret));
        close(fd);
        f->fd = -1;
        return of_fail(w, io, -ret, msg);
    }
    lru_front(of, i);
    of->nopen++;
    return GEN_OP;
}

/* the I/O path */

static void of_unpin(struct lb_ofiles *of, size_t s)
{
    if (s < of->nslots && of->slot[s]) {
        of->pins[of->slot[s] - 1]--;
        of->slot[s] = 0;
    }
}

int lb_of_use(struct lb_worker *w, struct lb_io *io)
{
    struct lb_ofiles *of = w->of;
    uint32_t i = (uint32_t)(io->file - w->files);
    size_t s = (size_t)(io - w->ios);
    int ret;

    of_unpin(of, s);
    if (io->file->fd < 0) {
        ret = of_open(w, io, i);
        if (ret != GEN_OP)
            return ret;
    } else if (of->next[of->head] != i) {
        lru_unlink(of, i);
        lru_front(of, i);
    }
    if (s < of->nslots) {
        of->pins[i]++;
        of->slot[s] = i + 1;
    }
    if (io->ddir == LB_WRITE || io->ddir == LB_TRIM)
        of->flags[i] |= OF_DIRTY;
    return GEN_OP;
}

void lb_of_done(struct lb_worker *w, const struct lb_io *io)
{
    of_unpin(w->of, (size_t)(io - w->ios));
}

/* Syncs every file written to (end_fsync), the open ones first, then the
 * ones closed since, reopened; nothing is in flight.  0 or an END_ code. */
int lb_of_sync_all(struct lb_worker *w, int op, lb_of_sync_fn sync)
{
    struct lb_ofiles *of = w->of;
    int ret = 0;

    for (size_t s = 0; s < of->nslots; s++)
        of_unpin(of, s);
    for (int closed = 0; closed < 2; closed++)
        for (uint32_t i = 0; i < w->nfiles && !ret; i++) {
            struct lb_io at = { .file = &w->files[i], .ddir = LB_WRITE };

            if (!(of->flags[i] & OF_DIRTY) || (at.file->fd < 0) != closed)
                continue;
            if (closed && (of->failed || of_open(w, &at, i) != GEN_OP))
                continue;
            of->flags[i] &= (uint8_t)~OF_DIRTY;
            ret = sync(w, at.file, op);
        }
    return ret;
}

/* fio's write_hint (ioengines.c td_io_open_file): on a regular file or a
 * block device, fcntl F_SET_FILE_RW_HINT on the descriptor with direct=1,
 * F_SET_RW_HINT on the inode otherwise; a refusal fails the job. */
int lb_of_write_hint(const struct lb_worker *w, const struct lb_file *f, int fd,
                     char *msg, size_t n)
{
    const struct lb_job *j = w->job;
    uint64_t hint = (uint64_t)j->write_hint;
    struct stat st;

    if (!j->write_hint || fstat(fd, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)))
        return 0;
#if defined(F_SET_RW_HINT) && defined(F_SET_FILE_RW_HINT)
    if (fcntl(fd, j->direct ? F_SET_FILE_RW_HINT : F_SET_RW_HINT, &hint) == 0)
        return 0;
    snprintf(msg, n, "fcntl write hint on %s: %s", f->path, strerror(errno));
    /* the kernel's EINVAL (F_SET_FILE_RW_HINT is gone since Linux 6.9) is
     * a failure of the run, as in fio, not bad input */
    return errno == EINVAL || errno == EPERM ? -EOPNOTSUPP : -errno;
#else
    (void)hint;
    snprintf(msg, n, "fcntl write hint on %s: %s", f->path, strerror(EINVAL));
    return -EOPNOTSUPP;
#endif
}

void lb_of_advise(const struct lb_worker *w, const struct lb_file *f, int fd, bool first)
{
    const struct lb_job *j = w->job;
    int adv = j->fadvise_hint == LB_FADV_RANDOM ? POSIX_FADV_RANDOM : POSIX_FADV_SEQUENTIAL;

    if (j->fadvise_hint == LB_FADV_PATTERN)
        adv = w->gen.random ? POSIX_FADV_RANDOM : POSIX_FADV_SEQUENTIAL;
    if (first && j->invalidate)
        posix_fadvise(fd, (off_t)f->file_offset, (off_t)f->size, POSIX_FADV_DONTNEED);
    if (j->fadvise_hint != LB_FADV_NONE)
        posix_fadvise(fd, (off_t)f->file_offset, (off_t)f->size, adv);
}
