/*
 * Training emulation: reader threads, the queue of ready batches, the
 * emulated accelerators and checkpoints (see train.h; the dataset itself
 * is train_data.c).
 *
 * Each epoch starts read_threads readers and K accelerators and ends when
 * every batch has been consumed.  Readers take batch numbers from an
 * atomic counter and read the batch's samples with pread on descriptors
 * kept open (packed files) or open/pread/close (a file per sample); the
 * only lock is taken once per batch, to queue it.  Accelerators take a
 * batch from the queue, record the wait, and compute (sleep) for
 * compute_time.  The calling thread waits and reports progress.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>

#include "base/clock.h"
#include "base/files.h"
#include "base/hist.h"
#include "base/rng.h"
#include "train/train.h"
#include "train/train_data.h"

#define SPIN_BELOW_NS 100000ull     /* shorter computes spin, longer sleep */
#define LAYOUT_BUF (1u << 20)
#define CKPT_BUF (1u << 20)

struct reader {
    struct train_run *run;
    char *buf;                   /* max_sample bytes, 4 KiB aligned */
    struct lb_hist *read;        /* ns per sample */
    _Atomic uint64_t samples;    /* over the run; read by progress */
    uint64_t bytes;
    struct lb_train_cpu cpu;
    char path[PATH_MAX];
};

struct accel {
    struct train_run *run;
    struct lb_rng rng;
    struct lb_hist *wait;        /* ns waited per step */
    uint64_t compute_ns, wait_ns, steps, end_ns;
};

struct train_run {
    const struct lb_train_cfg *cfg;
    struct lb_train_result *res;
    struct lb_dataset data;
    uint64_t nbatches;           /* per epoch */
    uint32_t epoch;
    struct lb_perm perm;         /* this epoch's order of samples or files */
    _Atomic uint64_t next;       /* next batch (or file, in layout) to take */
    _Atomic uint64_t laid_out;   /* layout: files checked */
    _Atomic uint64_t steps;      /* over all accelerators, the run */
    _Atomic int stop;
    pthread_mutex_t mu;          /* the queue and the thread count */
    pthread_cond_t ready_cv, room_cv, done_cv;
    uint64_t ready;              /* batches read and not yet taken */
    unsigned readers_left;       /* readers still reading this epoch */
    unsigned running;            /* threads not yet finished */
    pthread_t *th;
    unsigned nth;
    int err;                     /* first failure, -errno */
    struct reader *rd;
    struct accel *ac;
    pthread_mutex_t ckpt_mu;     /* one checkpoint at a time */
    char *ckpt_buf;
    uint64_t ckpt_last;          /* step of the checkpoint on disk, 0: none */
};

void lb_train_cfg_init(struct lb_train_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->files = 64;
    c->samples_per_file = 1;
    c->sample_size.a = 128 * 1024;
    c->format = LB_TRAIN_ONE_PER_FILE;
    c->batch_size = 4;
    c->read_threads = 1;
    c->epochs = 1;
    c->shuffle = LB_SHUFFLE_SAMPLE;
    c->prefetch = 2;
    c->accelerators = 1;
}

/* ---- failures and stopping ---- */

static void run_stop(struct train_run *r)
{
    pthread_mutex_lock(&r->mu);
    atomic_store(&r->stop, 1);
    pthread_cond_broadcast(&r->ready_cv);
    pthread_cond_broadcast(&r->room_cv);
    pthread_mutex_unlock(&r->mu);
}

/* Keeps the first failure; msg is already formatted, or NULL to format
 * what/path/errno. */
static void run_fail(struct train_run *r, int err, const char *msg,
                     const char *what, const char *path)
{
    pthread_mutex_lock(&r->mu);
    if (r->err == 0) {
        r->err = err;
        if (msg)
            snprintf(r->res->err, sizeof r->res->err, "%s", msg);
        else
            lb_file_errmsg(r->res->err, sizeof r->res->err, what, path, err);
    }
    pthread_mutex_unlock(&r->mu);
    run_stop(r);
}

/* ---- threads ---- */

static int spawn(struct train_run *r, void *(*fn)(void *), void *arg)
{
    pthread_mutex_lock(&r->mu);
    int rc = pthread_create(&r->th[r->nth], NULL, fn, arg);
    if (rc == 0) {
        r->nth++;
        r->running++;
    }
    pthread_mutex_unlock(&r->mu);
    if (rc)
        run_fail(r, -rc, NULL, "start", "thread");
    return -rc;
}

static void thread_done(struct train_run *r)
{
    pthread_mutex_lock(&r->mu);
    r->running--;
    pthread_cond_signal(&r->done_cv);
    pthread_mutex_unlock(&r->mu);
}

/* Waits for the threads, calling progress about once a second, and
 * joins them. */
static void wait_threads(struct train_run *r, const char *phase,
                         uint64_t (*done)(struct train_run *), uint64_t total)
{
    const struct lb_train_cfg *c = r->cfg;
    pthread_mutex_lock(&r->mu);
    while (r->running) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_sec += 1;
        if (pthread_cond_timedwait(&r->done_cv, &r->mu, &ts) != ETIMEDOUT || !c->progress)
            continue;
        pthread_mutex_unlock(&r->mu);
        if (c->progress(c->progress_arg, phase, done(r), total)) {
            r->res->stopped = 1;
            run_stop(r);
        }
        pthread_mutex_lock(&r->mu);
    }
    pthread_mutex_unlock(&r->mu);
    for (unsigned i = 0; i < r->nth; i++)
        pthread_join(r->th[i], NULL);
    r->nth = 0;
}

/* ---- layout ---- */

static void *layout_main(void *arg)
{
    struct reader *rd = arg;
    struct train_run *r = rd->run;
    char err[512];
    char *buf = malloc(LAYOUT_BUF);
    struct lb_rng rng;
    lb_rng_seed(&rng, (uint64_t)(rd - r->rd) + 1);
    for (size_t i = 0; buf && i < LAYOUT_BUF; i += 8) {
        uint64_t v = lb_rng_next(&rng);
        memcpy(buf + i, &v, 8);
    }
    if (buf == NULL)
        run_fail(r, -ENOMEM, "layout: not enough memory", NULL, NULL);
    while (buf && !atomic_load_explicit(&r->stop, memory_order_relaxed)) {
        uint64_t f = atomic_fetch_add(&r->next, 1);
        if (f >= r->cfg->files)
            break;
        int rc = lb_dataset_layout(&r->data, f, buf, LAYOUT_BUF, err, sizeof err);
        if (rc < 0)
            run_fail(r, rc, err, NULL, NULL);
        else if (rc == 1) {
            rd->bytes += lb_dataset_file_size(&r->data, f);
            rd->samples++;               /* files written, in layout */
        }
        atomic_fetch_add(&r->laid_out, 1);
    }
    free(buf);
    thread_done(r);
    return NULL;
}

static uint64_t layout_done(struct train_run *r)
{
    return atomic_load(&r->laid_out);
}

static int layout(struct train_run *r)
{
    struct lb_train_result *res = r->res;
    uint64_t t0 = lb_clock_now();
    int rc = lb_dataset_mkdirs(&r->data, res->err, sizeof res->err);
    if (rc < 0)
        return rc;
    atomic_store(&r->next, 0);
    for (uint32_t i = 0; i < r->cfg->read_threads; i++)
        if (spawn(r, layout_main, &r->rd[i]) < 0)
            break;
    wait_threads(r, "layout", layout_done, r->cfg->files);
    for (uint32_t i = 0; i < r->cfg->read_threads; i++) {
        res->laid_out_files += r->rd[i].samples;
        res->laid_out_bytes += r->rd[i].bytes;
        r->rd[i].samples = r->rd[i].bytes = 0;
    }
    res->layout_ns = lb_clock_now() - t0;
    if (r->err == 0 && !atomic_load(&r->stop))
        r->err = lb_dataset_open(&r->data, res->err, sizeof res->err);
    return r->err;
}

/* ---- readers ---- */

/* The sample at position pos of this epoch's order. */
static inline uint64_t order_at(const struct train_run *r, uint64_t pos)
{
    uint32_t spf = r->cfg->samples_per_file;
    switch (r->cfg->shuffle) {
    case LB_SHUFFLE_SAMPLE:
        return lb_perm_at(&r->perm, pos);
    case LB_SHUFFLE_FILE:
        return lb_perm_at(&r->perm, pos / spf) * spf + pos % spf;
    default:
        return pos;
    }
}

static int pread_full(int fd, char *buf, uint64_t len, uint64_t off)
{
    while (len) {
        ssize_t n = pread(fd, buf, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -ENODATA;   /* the file is too short */
        buf += n;
        len -= (uint64_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

/* Reads sample s: pread on the kept descriptor, or open/pread/close. */
static int read_sample(struct reader *rd, uint64_t s, uint64_t *len)
{
    struct train_run *r = rd->run;
    uint64_t f, off;
    lb_dataset_locate(&r->data, s, &f, &off, len);
    if (r->data.fds)
        return pread_full(r->data.fds[f], rd->buf, *len, off);
    lb_train_path(r->cfg, f, rd->path, sizeof rd->path);
    int fd = open(rd->path, r->data.oflags);
    if (fd < 0)
        return -errno;
    int rc = pread_full(fd, rd->buf, *len, off);
    close(fd);
    return rc;
}

static void read_failed(struct reader *rd, uint64_t s, int err)
{
    struct train_run *r = rd->run;
    uint64_t f = s / r->cfg->samples_per_file;
    lb_train_path(r->cfg, f, rd->path, sizeof rd->path);
    run_fail(r, err, NULL, "read", rd->path);
}

static int read_batch(struct reader *rd, uint64_t b)
{
    struct train_run *r = rd->run;
    const struct lb_train_cfg *c = r->cfg;
    uint64_t lo = b * c->batch_size, hi = lo + c->batch_size;
    uint64_t bytes = 0;
    hi = hi < r->data.nsamples ? hi : r->data.nsamples;
    for (uint64_t pos = lo; pos < hi; pos++) {
        uint64_t s = order_at(r, pos), len;
        uint64_t t0 = lb_clock_now();
        int rc = read_sample(rd, s, &len);
        lb_hist_record(rd->read, lb_clock_now() - t0);
        if (rc < 0) {
            read_failed(rd, s, rc);
            return rc;
        }
        bytes += len;
        if (c->on_sample)
            c->on_sample(c->on_sample_arg, r->epoch, pos, s);
    }
    rd->bytes += bytes;
    atomic_fetch_add_explicit(&rd->samples, hi - lo, memory_order_relaxed);
    return 0;
}

/* Puts a batch in the queue; waits while the queue is full. */
static void batch_ready(struct train_run *r)
{
    pthread_mutex_lock(&r->mu);
    while (r->ready >= r->cfg->prefetch && !atomic_load(&r->stop))
        pthread_cond_wait(&r->room_cv, &r->mu);
    r->ready++;
    pthread_cond_signal(&r->ready_cv);
    pthread_mutex_unlock(&r->mu);
}

static void *reader_main(void *arg)
{
    struct reader *rd = arg;
    struct train_run *r = rd->run;
    while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
        uint64_t b = atomic_fetch_add(&r->next, 1);
        if (b >= r->nbatches || read_batch(rd, b) < 0)
            break;
        batch_ready(r);
    }
    pthread_mutex_lock(&r->mu);
    if (--r->readers_left == 0)
        pthread_cond_broadcast(&r->ready_cv);   /* nothing more will come */
    pthread_mutex_unlock(&r->mu);
    lb_thread_cpu_add(&rd->cpu.usr_ns, &rd->cpu.sys_ns);
    thread_done(r);
    return NULL;
}

static uint64_t samples_done(struct train_run *r)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < r->cfg->read_threads; i++)
        n += atomic_load_explicit(&r->rd[i].samples, memory_order_relaxed);
    return n;
}

/* ---- checkpoints ---- */

static int ckpt_path(struct train_run *r, uint64_t step, char *buf, size_t len)
{
    return lb_tree_path(buf, len, r->cfg->dir, 0, "ckpt_", 8, ".dat", step);
}

static int ckpt_write(struct train_run *r, const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST && lb_file_unlink_ours(path) == 0)
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    int rc = lb_file_mark(fd, path);
    for (uint64_t done = 0; rc == 0 && done < r->cfg->checkpoint_size;) {
        uint64_t n = r->cfg->checkpoint_size - done;
        ssize_t w = write(fd, r->ckpt_buf, n < CKPT_BUF ? n : CKPT_BUF);
        if (w < 0 && errno == EINTR)
            continue;
        rc = w < 0 ? -errno : w == 0 ? -EIO : 0;
        done += w > 0 ? (uint64_t)w : 0;
    }
    if (rc == 0 && fsync(fd) < 0)
        rc = -errno;
    if (close(fd) < 0 && rc == 0)
        rc = -errno;
    return rc;
}

/* Writes the checkpoint of step `step` and drops the previous one. */
static void checkpoint(struct train_run *r, struct accel *ac, uint64_t step)
{
    char path[PATH_MAX], old[PATH_MAX];
    pthread_mutex_lock(&r->ckpt_mu);
    ckpt_path(r, step, path, sizeof path);
    uint64_t t0 = lb_clock_now();
    int rc = ckpt_write(r, path);
    uint64_t t1 = lb_clock_now();
    if (rc < 0) {
        run_fail(r, rc, NULL, "checkpoint", path);
    } else {
        lb_hist_record(r->res->checkpoint, t1 - t0);
        if (r->ckpt_last && ckpt_path(r, r->ckpt_last, old, sizeof old) >= 0)
            unlink(old);
        r->ckpt_last = step;
    }
    pthread_mutex_unlock(&r->ckpt_mu);
}

/* ---- accelerators ---- */

static uint64_t compute_draw(struct accel *ac)
{
    const struct lb_train_value *v = &ac->run->cfg->compute_ns;
    if (v->dist != LB_TRAIN_NORMAL || v->b == 0)
        return v->a;
    double u1 = (lb_rng_next(&ac->rng) >> 11) * 0x1.0p-53 + 0x1.0p-54;
    double u2 = lb_rng_double(&ac->rng);
    double y = (double)v->a + sqrt(-2 * log(u1)) * cos(2 * M_PI * u2) * (double)v->b;
    return y > 0 ? (uint64_t)y : 0;
}

/* Short computes spin, long ones sleep: a sleeping accelerator leaves
 * the CPU to the readers. */
static void compute(uint64_t ns)
{
    uint64_t end = lb_clock_now() + ns;
    if (ns >= SPIN_BELOW_NS) {
        struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
        while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
            ;
        return;
    }
    while (lb_clock_now() < end)
        ;
}

/* Takes a batch; 0 when the epoch has none left (or the run stops). */
static int batch_take(struct train_run *r)
{
    pthread_mutex_lock(&r->mu);
    while (r->ready == 0 && r->readers_left && !atomic_load(&r->stop))
        pthread_cond_wait(&r->ready_cv, &r->mu);
    int got = r->ready > 0 && !atomic_load(&r->stop);
    if (got) {
        r->ready--;
        pthread_cond_signal(&r->room_cv);
    }
    pthread_mutex_unlock(&r->mu);
    return got;
}

static void *accel_main(void *arg)
{
    struct accel *ac = arg;
    struct train_run *r = ac->run;
    const struct lb_train_cfg *c = r->cfg;
    prctl(PR_SET_TIMERSLACK, 1UL);      /* sleep close to compute_time */
    for (;;) {
        uint64_t t0 = lb_clock_now();
        if (!batch_take(r))
            break;
        uint64_t t1 = lb_clock_now();
        compute(compute_draw(ac));
        uint64_t t2 = lb_clock_now();
        lb_hist_record(ac->wait, t1 - t0);
        ac->wait_ns += t1 - t0;
        ac->compute_ns += t2 - t1;
        ac->steps++;
        ac->end_ns = t2;
        uint64_t step = atomic_fetch_add(&r->steps, 1) + 1;
        if (c->checkpoint_steps && step % c->checkpoint_steps == 0)
            checkpoint(r, ac, step);
    }
    thread_done(r);
    return NULL;
}

/* ---- epochs ---- */

static void epoch_begin(struct train_run *r, uint32_t e)
{
    const struct lb_train_cfg *c = r->cfg;
    uint64_t key = c->seed + e;
    uint64_t n = c->shuffle == LB_SHUFFLE_FILE ? c->files : r->data.nsamples;
    r->epoch = e;
    lb_perm_init(&r->perm, n, lb_rng_splitmix64(&key));
    atomic_store(&r->next, 0);
    r->ready = 0;
    r->readers_left = c->read_threads;
}

static int epoch_run(struct train_run *r, uint32_t e)
{
    const struct lb_train_cfg *c = r->cfg;
    uint64_t before = samples_done(r);
    epoch_begin(r, e);
    uint64_t t0 = lb_clock_now(), end = t0;
    uint32_t started = 0;
    for (; started < c->read_threads; started++)
        if (spawn(r, reader_main, &r->rd[started]) < 0)
            break;
    pthread_mutex_lock(&r->mu);
    r->readers_left -= c->read_threads - started;   /* those never started */
    pthread_mutex_unlock(&r->mu);
    for (uint32_t i = 0; i < c->accelerators && !r->err; i++)
        if (spawn(r, accel_main, &r->ac[i]) < 0)
            break;
    wait_threads(r, "train", samples_done,
                 r->data.nsamples * c->epochs);
    for (uint32_t i = 0; i < c->accelerators; i++)
        end = r->ac[i].end_ns > end ? r->ac[i].end_ns : end;
    if (r->err || atomic_load(&r->stop))
        return r->err;
    struct lb_train_epoch *ep = &r->res->epochs[r->res->nepochs++];
    ep->time_ns = end - t0;
    ep->samples = samples_done(r) - before;
    return 0;
}

/* ---- setup and results ---- */

const char *lb_train_check(const struct lb_train_cfg *c)
{
    const struct lb_train_value *sz = &c->sample_size;
    if (!c->dir || !*c->dir)
        return "dir is missing";
    if (!c->files || !c->samples_per_file || !c->batch_size || !c->read_threads ||
        !c->epochs || !c->prefetch || !c->accelerators)
        return "files, samples_per_file, batch_size, read_threads, epochs, "
               "prefetch and accelerators must be positive";
    if (c->format == LB_TRAIN_ONE_PER_FILE && c->samples_per_file != 1)
        return "one sample per file needs samples_per_file = 1";
    if (sz->dist == LB_TRAIN_UNIFORM ? sz->a == 0 || sz->a > sz->b : sz->a == 0)
        return "sample_size must be positive (uniform: 0 < min <= max)";
    if (c->files * (unsigned __int128)c->samples_per_file > UINT64_MAX / 2)
        return "too many samples";
    if (c->checkpoint_steps && !c->checkpoint_size)
        return "checkpoint size must be positive";
    if (c->checkpoint_steps && c->readonly)
        return "checkpoints write, and writing is not allowed (--readonly)";
    return NULL;
}

static int run_alloc(struct train_run *r)
{
    const struct lb_train_cfg *c = r->cfg;
    r->th = calloc(c->read_threads + c->accelerators, sizeof *r->th);
    r->rd = calloc(c->read_threads, sizeof *r->rd);
    r->ac = calloc(c->accelerators, sizeof *r->ac);
    r->res->epochs = calloc(c->epochs, sizeof *r->res->epochs);
    r->res->reader_cpu = calloc(c->read_threads, sizeof *r->res->reader_cpu);
    r->ckpt_buf = c->checkpoint_steps ? malloc(CKPT_BUF) : NULL;
    if (!r->th || !r->rd || !r->ac || !r->res->epochs || !r->res->reader_cpu ||
        (c->checkpoint_steps && !r->ckpt_buf))
        return -ENOMEM;
    if (r->ckpt_buf)
        memset(r->ckpt_buf, 0x5a, CKPT_BUF);
    r->res->nreaders = c->read_threads;
    for (uint32_t i = 0; i < c->read_threads; i++) {
        struct reader *rd = &r->rd[i];
        rd->run = r;
        if (posix_memalign((void **)&rd->buf, 4096, r->data.max_sample) ||
            lb_hist_new(&rd->read) < 0)
            return -ENOMEM;
    }
    for (uint32_t i = 0; i < c->accelerators; i++) {
        struct accel *ac = &r->ac[i];
        ac->run = r;
        lb_rng_seed(&ac->rng, c->seed * 0x9e3779b97f4a7c15ull + i + 1);
        if (lb_hist_new(&ac->wait) < 0)
            return -ENOMEM;
    }
    return 0;
}

static void run_release(struct train_run *r)
{
    const struct lb_train_cfg *c = r->cfg;
    for (uint32_t i = 0; r->rd && i < c->read_threads; i++) {
        free(r->rd[i].buf);
        lb_hist_free(r->rd[i].read);
    }
    for (uint32_t i = 0; r->ac && i < c->accelerators; i++)
        lb_hist_free(r->ac[i].wait);
    free(r->rd);
    free(r->ac);
    free(r->th);
    free(r->ckpt_buf);
    lb_dataset_free(&r->data);
}

static void collect(struct train_run *r)
{
    const struct lb_train_cfg *c = r->cfg;
    struct lb_train_result *res = r->res;
    for (uint32_t i = 0; i < c->read_threads; i++) {
        struct reader *rd = &r->rd[i];
        res->samples += atomic_load(&rd->samples);
        res->bytes += rd->bytes;
        res->reader_cpu[i] = rd->cpu;
        res->cpu.usr_ns += rd->cpu.usr_ns;
        res->cpu.sys_ns += rd->cpu.sys_ns;
        lb_hist_add(res->sample_read, rd->read);
    }
    for (uint32_t i = 0; i < c->accelerators; i++) {
        struct accel *ac = &r->ac[i];
        res->steps += ac->steps;
        res->compute_ns += ac->compute_ns;
        res->wait_ns += ac->wait_ns;
        lb_hist_add(res->batch_wait, ac->wait);
    }
    for (uint32_t e = 0; e < res->nepochs; e++)
        res->time_ns += res->epochs[e].time_ns;
    double s = res->time_ns / 1e9;
    res->samples_per_s = s > 0 ? res->samples / s : 0;
    res->bw_bytes = s > 0 ? res->bytes / s : 0;
    uint64_t busy = res->compute_ns + res->wait_ns;
    res->au = busy ? (double)res->compute_ns / busy : 0;
    res->checkpoints = lb_hist_count(res->checkpoint);
}

/* The last checkpoint is scratch: removed at the end of the run. */
static void ckpt_cleanup(struct train_run *r)
{
    char path[PATH_MAX];
    if (r->ckpt_last && ckpt_path(r, r->ckpt_last, path, sizeof path) >= 0)
        unlink(path);
}

static int result_init(struct lb_train_result *res)
{
    memset(res, 0, sizeof *res);
    if (lb_hist_new(&res->batch_wait) < 0 || lb_hist_new(&res->sample_read) < 0 ||
        lb_hist_new(&res->checkpoint) < 0)
        return -ENOMEM;
    return 0;
}

void lb_train_result_free(struct lb_train_result *res)
{
    lb_hist_free(res->batch_wait);
    lb_hist_free(res->sample_read);
    lb_hist_free(res->checkpoint);
    free(res->epochs);
    free(res->reader_cpu);
    memset(res, 0, sizeof *res);
}

static int train(struct train_run *r)
{
    int rc = lb_dataset_init(&r->data, r->cfg, r->res->err, sizeof r->res->err);
    if (rc < 0)
        return rc;
    if ((rc = run_alloc(r)) < 0) {
        snprintf(r->res->err, sizeof r->res->err, "not enough memory");
        return rc;
    }
    r->nbatches = (r->data.nsamples + r->cfg->batch_size - 1) / r->cfg->batch_size;
    if ((rc = layout(r)) < 0)
        return rc;
    for (uint32_t e = 0; e < r->cfg->epochs && !atomic_load(&r->stop); e++)
        if ((rc = epoch_run(r, e)) < 0)
            return rc;
    return 0;
}

int lb_train_run(const struct lb_train_cfg *c, struct lb_train_result *res)
{
    struct train_run r = {.cfg = c, .res = res};
    int rc = result_init(res);
    if (rc < 0)
        return rc;
    const char *bad = lb_train_check(c);
    if (bad) {
        snprintf(res->err, sizeof res->err, "%s", bad);
        return -EINVAL;
    }
    lb_clock_init();
    pthread_mutex_init(&r.mu, NULL);
    pthread_mutex_init(&r.ckpt_mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&r.done_cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_cond_init(&r.ready_cv, NULL);
    pthread_cond_init(&r.room_cv, NULL);
    rc = train(&r);
    if (r.rd)
        collect(&r);
    ckpt_cleanup(&r);
    run_release(&r);
    pthread_cond_destroy(&r.ready_cv);
    pthread_cond_destroy(&r.room_cv);
    pthread_cond_destroy(&r.done_cv);
    pthread_mutex_destroy(&r.mu);
    pthread_mutex_destroy(&r.ckpt_mu);
    return rc;
}
