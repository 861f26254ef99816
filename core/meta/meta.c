/*
 * Small files and metadata: the phases of lb_meta_run (see meta.h).
 *
 * A phase is a list of items (file numbers, or directory numbers for mkdir
 * and readdir) that `threads` worker threads take in chunks from one
 * atomic counter; stat and read map item k to file perm(k), a keyed
 * permutation, so the order is random without a shuffled array.  Each
 * worker records into its own histogram, merged into the op's when the
 * phase ends.  The calling thread waits and reports progress about once a
 * second.  This file does not know about Lua.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "base/clock.h"
#include "base/files.h"
#include "base/hist.h"
#include "meta/meta.h"
#include "base/rng.h"

#define CHUNK_MAX 64
#define FILE_PREFIX "f"
#define FILE_WIDTH 7

static const char *const op_names[LB_META_NOPS] = {
    "create", "stat", "read", "unlink", "mkdir", "readdir",
};

struct meta_run;

struct meta_worker {
    struct meta_run *run;
    pthread_t th;
    struct lb_hist *lat;         /* this phase's latencies */
    _Atomic uint64_t done;       /* items finished, read by progress */
    uint64_t skipped, bytes;
    uint64_t end_ns;             /* when the worker ran out of items */
    uint64_t usr_ns, sys_ns;     /* CPU over all phases */
    char *buf;                   /* cfg->size bytes (read: one more) */
    int *fds;                    /* descriptors kept open (openfiles) */
    unsigned nfds, fdmax, fdnext;
    char path[PATH_MAX];
};

struct meta_run {
    const struct lb_meta_cfg *cfg;
    struct lb_meta_result *res;
    uint64_t ndirs;
    _Atomic uint64_t *created;   /* bitmap: file i created by this run */
    struct lb_perm perm;
    enum lb_meta_op op;          /* the phase running */
    uint64_t items;
    uint64_t chunk;
    _Atomic uint64_t next;
    _Atomic int stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned running;
    int err;                     /* first failure, -errno */
    struct meta_worker *w;
};

const char *lb_meta_op_name(enum lb_meta_op op)
{
    return (unsigned)op < LB_META_NOPS ? op_names[op] : "?";
}

int lb_meta_op_find(const char *name)
{
    for (int i = 0; i < LB_META_NOPS; i++)
        if (!strcmp(name, op_names[i]))
            return i;
    return -1;
}

void lb_meta_cfg_init(struct lb_meta_cfg *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->size = 4096;
    cfg->fanout = 1000;
    cfg->threads = 1;
    cfg->nphases = 4;
    cfg->phases[0] = LB_META_CREATE;
    cfg->phases[1] = LB_META_STAT;
    cfg->phases[2] = LB_META_READ;
    cfg->phases[3] = LB_META_UNLINK;
}

/* ---- failures ---- */

static void meta_fail(struct meta_run *r, const char *what, const char *path, int err)
{
    pthread_mutex_lock(&r->mu);
    if (r->err == 0) {
        r->err = err;
        lb_file_errmsg(r->res->err, sizeof r->res->err, what, path, err);
    }
    pthread_mutex_unlock(&r->mu);
    atomic_store(&r->stop, 1);
}

/* ---- descriptors kept open (openfiles) ---- */

static void fd_release(struct meta_worker *w, int fd)
{
    if (w->fdmax == 0) {
        close(fd);
        return;
    }
    if (w->nfds == w->fdmax) {            /* full: close the oldest */
        close(w->fds[w->fdnext]);
        w->fds[w->fdnext] = fd;
        w->fdnext = (w->fdnext + 1) % w->fdmax;
        return;
    }
    w->fds[w->nfds++] = fd;
}

static void fd_close_all(struct meta_worker *w)
{
    for (unsigned i = 0; i < w->nfds; i++)
        close(w->fds[i]);
    w->nfds = 0;
    w->fdnext = 0;
}

/* ---- one operation each; 0 or -errno ---- */

static int write_all(int fd, const char *buf, uint64_t len)
{
    while (len) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EIO;
        buf += n;
        len -= (uint64_t)n;
    }
    return 0;
}

static int op_create(struct meta_worker *w, uint64_t i)
{
    struct meta_run *r = w->run;
    uint64_t t0 = lb_clock_now();
    int fd = open(w->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    int rc = write_all(fd, w->buf, r->cfg->size);
    uint64_t t1 = lb_clock_now();
    if (rc == 0)
        rc = lb_file_mark(fd, w->path);   /* not part of the latency */
    atomic_fetch_or(&r->created[i / 64], 1ull << (i % 64));
    uint64_t t2 = lb_clock_now();
    fd_release(w, fd);
    lb_hist_record(w->lat, (t1 - t0) + (lb_clock_now() - t2));
    w->bytes += r->cfg->size;
    return rc;
}

static int op_stat(struct meta_worker *w, uint64_t i)
{
    struct stat st;
    uint64_t t0 = lb_clock_now();
    if (stat(w->path, &st) < 0)
        return -errno;
    lb_hist_record(w->lat, lb_clock_now() - t0);
    return 0;
}

static int op_read(struct meta_worker *w, uint64_t i)
{
    uint64_t t0 = lb_clock_now();
    int fd = open(w->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t n;
    uint64_t got = 0;
    size_t cap = w->run->cfg->size + 1;   /* one more: EOF in one call */
    while ((n = read(fd, w->buf, cap)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = -errno;
            close(fd);
            return e;
        }
        got += (uint64_t)n;
    }
    fd_release(w, fd);
    lb_hist_record(w->lat, lb_clock_now() - t0);
    w->bytes += got;
    return 0;
}

static int is_created(struct meta_run *r, uint64_t i)
{
    return (atomic_load_explicit(&r->created[i / 64], memory_order_relaxed) >>
            (i % 64)) & 1;
}

static int op_unlink(struct meta_worker *w, uint64_t i)
{
    uint64_t t0 = lb_clock_now();
    int rc;
    if (is_created(w->run, i))
        rc = unlink(w->path) < 0 ? -errno : 0;
    else
        rc = lb_file_unlink_ours(w->path);
    if (rc == -EPERM) {                   /* somebody else's file: kept */
        w->skipped++;
        return 0;
    }
    if (rc == 0)
        lb_hist_record(w->lat, lb_clock_now() - t0);
    return rc;
}

static int op_mkdir(struct meta_worker *w, uint64_t d)
{
    uint64_t t0 = lb_clock_now();
    if (mkdir(w->path, 0755) < 0)
        return -errno;
    lb_hist_record(w->lat, lb_clock_now() - t0);
    return 0;
}

static int op_readdir(struct meta_worker *w, uint64_t d)
{
    uint64_t t0 = lb_clock_now();
    DIR *dp = opendir(w->path);
    if (dp == NULL)
        return -errno;
    errno = 0;
    while (readdir(dp) != NULL)
        ;
    int rc = errno ? -errno : 0;
    closedir(dp);
    if (rc == 0)
        lb_hist_record(w->lat, lb_clock_now() - t0);
    return rc;
}

/* ---- workers ---- */

static int item_path(struct meta_worker *w, uint64_t k, uint64_t *target)
{
    struct meta_run *r = w->run;
    const struct lb_meta_cfg *c = r->cfg;
    if (r->op == LB_META_MKDIR || r->op == LB_META_READDIR) {
        *target = k;
        return lb_tree_dir(w->path, sizeof w->path, c->dir, k);
    }
    *target = (r->op == LB_META_STAT || r->op == LB_META_READ) ?
              lb_perm_at(&r->perm, k) : k;
    return lb_tree_path(w->path, sizeof w->path, c->dir, c->fanout,
                        FILE_PREFIX, FILE_WIDTH, NULL, *target);
}

static int do_item(struct meta_worker *w, uint64_t k)
{
    static int (*const ops[LB_META_NOPS])(struct meta_worker *, uint64_t) = {
        op_create, op_stat, op_read, op_unlink, op_mkdir, op_readdir,
    };
    uint64_t t;
    int rc = item_path(w, k, &t);
    if (rc >= 0)
        rc = ops[w->run->op](w, t);
    if (rc < 0)
        meta_fail(w->run, op_names[w->run->op], w->path, rc);
    return rc;
}

static void *meta_worker_main(void *arg)
{
    struct meta_worker *w = arg;
    struct meta_run *r = w->run;
    while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
        uint64_t k = atomic_fetch_add(&r->next, r->chunk);
        if (k >= r->items)
            break;
        uint64_t end = k + r->chunk < r->items ? k + r->chunk : r->items;
        for (; k < end; k++) {
            if (do_item(w, k) < 0)
                break;
            atomic_fetch_add_explicit(&w->done, 1, memory_order_relaxed);
        }
    }
    fd_close_all(w);
    w->end_ns = lb_clock_now();
    lb_thread_cpu_add(&w->usr_ns, &w->sys_ns);
    pthread_mutex_lock(&r->mu);
    r->running--;
    pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* ---- phases ---- */

static uint64_t phase_items(const struct meta_run *r, enum lb_meta_op op)
{
    return (op == LB_META_MKDIR || op == LB_META_READDIR) ? r->ndirs : r->cfg->files;
}

static uint64_t done_sum(const struct meta_run *r)
{
    uint64_t d = 0;
    for (uint32_t t = 0; t < r->cfg->threads; t++)
        d += atomic_load_explicit(&r->w[t].done, memory_order_relaxed);
    return d;
}

/* Waits for the workers, calling progress about once a second. */
static void wait_workers(struct meta_run *r, uint64_t before, uint64_t total)
{
    const struct lb_meta_cfg *c = r->cfg;
    pthread_mutex_lock(&r->mu);
    struct timespec ts;      /* the next call, a second on: a thread that ends */
    clock_gettime(CLOCK_MONOTONIC, &ts);  /* wakes the wait but does not move it */
    ts.tv_sec += 1;
    while (r->running) {
        if (pthread_cond_timedwait(&r->cv, &r->mu, &ts) != ETIMEDOUT || !c->progress)
            continue;
        ts.tv_sec += 1;
        pthread_mutex_unlock(&r->mu);
        if (c->progress(c->progress_arg, op_names[r->op], before + done_sum(r), total)) {
            r->res->stopped = 1;
            atomic_store(&r->stop, 1);
        }
        pthread_mutex_lock(&r->mu);
    }
    pthread_mutex_unlock(&r->mu);
}

/* Merges the workers' phase into the op's result. */
static int phase_collect(struct meta_run *r, uint64_t t0)
{
    struct lb_meta_op_result *o = &r->res->op[r->op];
    uint64_t end = t0;
    for (uint32_t t = 0; t < r->cfg->threads; t++) {
        struct meta_worker *w = &r->w[t];
        int rc = lb_hist_add(o->lat, w->lat);
        if (rc < 0)
            return rc;
        o->skipped += w->skipped;
        o->bytes += w->bytes;
        end = w->end_ns > end ? w->end_ns : end;
        lb_hist_reset(w->lat);
        w->skipped = w->bytes = 0;
    }
    o->count = lb_hist_count(o->lat);
    o->time_ns += end - t0;
    o->ops_per_s = o->time_ns ? o->count * 1e9 / o->time_ns : 0;
    return 0;
}

static int phase_run(struct meta_run *r, enum lb_meta_op op, uint64_t before,
                     uint64_t total)
{
    const struct lb_meta_cfg *c = r->cfg;
    r->op = op;
    r->items = phase_items(r, op);
    r->chunk = r->items / (c->threads * 8ull);
    r->chunk = r->chunk < 1 ? 1 : r->chunk > CHUNK_MAX ? CHUNK_MAX : r->chunk;
    atomic_store(&r->next, 0);
    r->running = 0;
    uint32_t started = 0;
    uint64_t t0 = lb_clock_now();
    for (; started < c->threads; started++) {
        pthread_mutex_lock(&r->mu);
        int rc = pthread_create(&r->w[started].th, NULL, meta_worker_main, &r->w[started]);
        r->running += rc == 0;
        pthread_mutex_unlock(&r->mu);
        if (rc) {
            meta_fail(r, "start thread for", op_names[op], -rc);
            break;
        }
    }
    wait_workers(r, before, total);
    for (uint32_t t = 0; t < started; t++) {
        pthread_join(r->w[t].th, NULL);
        atomic_store(&r->w[t].done, 0);
    }
    int rc = phase_collect(r, t0);
    return r->err ? r->err : rc;
}

/* ---- setup and teardown ---- */

const char *lb_meta_check(const struct lb_meta_cfg *c)
{
    const char *bad = !c->dir || !*c->dir ? "dir is missing" :
                      c->files == 0 ? "files must be positive" :
                      c->fanout == 0 ? "fanout must be positive" :
                      c->threads == 0 ? "threads must be positive" :
                      c->nphases == 0 || c->nphases > LB_META_MAX_PHASES ?
                      "ops must name 1 to 16 operations" : NULL;
    for (uint32_t i = 0; !bad && i < c->nphases; i++)
        if ((unsigned)c->phases[i] >= LB_META_NOPS)
            bad = "unknown operation";
    return bad;
}

/* The directories of the tree, made outside any timed phase; existing
 * ones are fine. */
static int make_dirs(struct meta_run *r)
{
    char path[PATH_MAX];
    for (uint64_t d = 0; d < r->ndirs; d++) {
        int rc = lb_tree_dir(path, sizeof path, r->cfg->dir, d);
        if (rc >= 0 && mkdir(path, 0755) < 0 && errno != EEXIST)
            rc = -errno;
        if (rc < 0) {
            meta_fail(r, "mkdir", path, rc);
            return rc;
        }
    }
    return 0;
}

/* After unlink: the tree's directories go when empty, a foreign file
 * keeps its directory. */
static void remove_dirs(struct meta_run *r)
{
    char path[PATH_MAX];
    for (uint64_t d = 0; d < r->ndirs; d++)
        if (lb_tree_dir(path, sizeof path, r->cfg->dir, d) >= 0)
            rmdir(path);
}

static int workers_new(struct meta_run *r)
{
    const struct lb_meta_cfg *c = r->cfg;
    unsigned fdmax = c->openfiles ? (c->openfiles + c->threads - 1) / c->threads : 0;
    r->w = calloc(c->threads, sizeof *r->w);
    if (r->w == NULL)
        return -ENOMEM;
    for (uint32_t t = 0; t < c->threads; t++) {
        struct meta_worker *w = &r->w[t];
        w->run = r;
        w->fdmax = fdmax;
        w->buf = malloc(c->size + 1);
        w->fds = fdmax ? calloc(fdmax, sizeof *w->fds) : NULL;
        if (w->buf == NULL || (fdmax && w->fds == NULL) || lb_hist_new(&w->lat) < 0)
            return -ENOMEM;
        for (uint64_t b = 0; b <= c->size; b++)   /* not zeros: defeats */
            w->buf[b] = (char)(b * 131 + t + 1);  /* zero detection */
    }
    return 0;
}

static void workers_free(struct meta_run *r)
{
    if (r->w == NULL)
        return;
    for (uint32_t t = 0; t < r->cfg->threads; t++) {
        r->res->usr_ns += r->w[t].usr_ns;
        r->res->sys_ns += r->w[t].sys_ns;
        free(r->w[t].buf);
        free(r->w[t].fds);
        lb_hist_free(r->w[t].lat);
    }
    free(r->w);
    r->w = NULL;
}

static int result_init(struct lb_meta_result *res)
{
    memset(res, 0, sizeof *res);
    for (int i = 0; i < LB_META_NOPS; i++)
        if (lb_hist_new(&res->op[i].lat) < 0)
            return -ENOMEM;
    return 0;
}

void lb_meta_result_free(struct lb_meta_result *res)
{
    for (int i = 0; i < LB_META_NOPS; i++) {
        lb_hist_free(res->op[i].lat);
        res->op[i].lat = NULL;
    }
}

static int run_phases(struct meta_run *r)
{
    const struct lb_meta_cfg *c = r->cfg;
    uint64_t total = 0, before = 0;
    int dirs_ready = 0, unlinked = 0, rc = 0;
    int writes = 0;
    for (uint32_t p = 0; p < c->nphases; p++) {
        total += phase_items(r, c->phases[p]);
        writes |= c->phases[p] == LB_META_CREATE || c->phases[p] == LB_META_MKDIR;
    }
    if (writes && mkdir(c->dir, 0755) < 0 && errno != EEXIST) {
        meta_fail(r, "mkdir", c->dir, -errno);
        return r->err;
    }
    for (uint32_t p = 0; p < c->nphases && rc == 0 && !atomic_load(&r->stop); p++) {
        enum lb_meta_op op = c->phases[p];
        if (op == LB_META_CREATE && !dirs_ready && (rc = make_dirs(r)) < 0)
            break;
        dirs_ready |= op == LB_META_CREATE || op == LB_META_MKDIR;
        rc = phase_run(r, op, before, total);
        before += phase_items(r, op);
        unlinked |= op == LB_META_UNLINK;
    }
    if (unlinked)
        remove_dirs(r);
    return rc;
}

int lb_meta_run(const struct lb_meta_cfg *c, struct lb_meta_result *res)
{
    struct meta_run r = {.cfg = c, .res = res};
    int rc = result_init(res);
    if (rc < 0)
        return rc;
    const char *bad = lb_meta_check(c);
    if (bad) {
        snprintf(res->err, sizeof res->err, "%s", bad);
        return -EINVAL;
    }
    lb_clock_init();
    r.ndirs = (c->files + c->fanout - 1) / c->fanout;
    res->files = c->files;
    res->dirs = r.ndirs;
    lb_perm_init(&r.perm, c->files, c->seed);
    pthread_mutex_init(&r.mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&r.cv, &ca);
    pthread_condattr_destroy(&ca);
    r.created = calloc((c->files + 63) / 64, sizeof *r.created);
    if (r.created == NULL || (rc = workers_new(&r)) < 0) {
        rc = -ENOMEM;
        snprintf(res->err, sizeof res->err, "not enough memory for %llu files",
                 (unsigned long long)c->files);
    } else {
        rc = run_phases(&r);
    }
    workers_free(&r);
    free(r.created);
    pthread_cond_destroy(&r.cv);
    pthread_mutex_destroy(&r.mu);
    return rc;
}
