/*
 * Training emulation: loaders (reader threads and their queue of ready
 * batches), the emulated accelerators with DLIO's accounting, the barrier
 * and checkpoints (see train.h; the dataset itself is train_data.c).
 *
 * The readers of every loader and K accelerators are started once per
 * run, before the first epoch's clock, and live across the epochs (as
 * DLIO's persistent PyTorch workers): each epoch is a job given to all of
 * them at once, and ends when every accelerator has taken its steps;
 * between epochs they sleep, and the queues are empty.  Readers take batch
 * numbers from their loader's atomic counter and read the batch's samples
 * with pread on descriptors kept open (packed files) or open/pread/close
 * (a file per sample); the only lock is the loader's, taken once per
 * batch to queue it.  An accelerator with no batch to take sleeps on a
 * futex, not on a condition variable: glibc's pthread_cond_wait returns
 * with the mutex marked contended, so every take would cost one more
 * system call (a futex wake at the unlock) than the handoff needs.
 * Accelerators take a batch from their loader, compute
 * (sleep or spin) for compute_time, meet at the barrier, and keep DLIO's
 * per-block sums.  The calling thread waits and reports progress.
 * DLIO's evaluation is a second run of the same machinery (struct
 * eval_run) over the evaluation's dataset, its crew started with the
 * training one and given a job after the epochs its schedule names.
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
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "base/clock.h"
#include "base/files.h"
#include "base/hist.h"
#include "base/rng.h"
#include "train/train.h"
#include "train/train_data.h"
#include "train/train_fmt.h"
#include "train/train_hdf5.h"

#define SPIN_BELOW_NS 100000ull     /* shorter computes spin, longer sleep */
#define VALUE_RANGES "uniform needs min <= max, gamma a shape in (0, 1e6] and a " \
    "scale above 0, exponential a scale above 0, poisson a lam in (0, 10000]"
#define LAYOUT_BUF (1u << 20)
#define CKPT_BUF (1u << 20)

#define READ_CHUNK (16u << 20)      /* larger samples: several preads */
#if defined(__SANITIZE_THREAD__)
#define STACK_BYTES (2u << 20)      /* ThreadSanitizer refuses stacks under
                                       about 900 KiB */
#else
#define STACK_BYTES (256u << 10)    /* per thread: the readers' deepest calls
                                       (zlib, the file marks) use a few KiB */
#endif
#define STACK_SYNC (2u << 20)       /* ranks: the exchange (MPI) runs on an
                                       accelerator's thread */
#define STACK_GUARD 4096u
#define STACKS_MAX 16384u           /* more threads: glibc's stacks (each
                                       guard is a mapping of its own) */
#define CONTAINER_BUF (320u << 10)  /* a zip's tail search, 256 KiB reads */

struct loader {                  /* one accelerator's input pipeline, or
                                    the shared one */
    struct train_run *run;
    uint64_t lo, n;              /* positions lo .. lo + n - 1 of the order */
    uint64_t nbatches;           /* read per epoch */
    struct lb_perm perm;         /* shuffle=sample: the order inside */
    _Atomic uint64_t next;       /* next batch to read */
    pthread_mutex_t mu;          /* ready, readers_left, takers */
    _Atomic uint32_t took_seq;   /* futex: bumped (mu held) when a batch
                                    is queued, readers end or the run stops */
    unsigned takers;             /* accelerators asleep on took_seq */
    struct accel *parked;        /* asleep for a batch, its steps taken
                                    for it (steps_by_readers), or NULL */
    uint64_t window;             /* in order (in_order): batches read ahead
                                    of the steps at most; 0: a queue */
    uint64_t taken;              /* in order: batches the steps took (mu) */
    uint8_t *done;               /* in order: batch b read, done[b % window] */
    pthread_cond_t *lane_cv;     /* in order: reader j waits on lane_cv[j] */
    pthread_cond_t room_cv;
    uint64_t ready;              /* batches read and not yet taken */
    unsigned readers_left;       /* readers still reading this epoch */
    uint32_t k;                  /* shard: its accelerator */
    uint64_t nfiles;             /* tfrecord: files this loader streams */
    _Atomic uint64_t next_file;  /* tfrecord: next of them to take */
    uint64_t *sbuf;              /* tfrecord: the shuffle buffer (mu) */
    uint32_t scount;
    struct lb_rng srng;          /* draws from the shuffle buffer */
    uint64_t fill;               /* samples in the batch being made */
    uint64_t *batch;             /* its samples (the on_sample hook) */
    uint64_t pos0;               /* tfrecord: its first position (hook) */
    _Atomic uint64_t made;       /* batches made this epoch */
    pthread_cond_t pass_cv;      /* tfrecord: a pass over the files ended */
    uint64_t pass;               /* passes ended this epoch (mu) */
    unsigned pass_arrived;       /* readers done with pass `pass` (mu) */
    uint64_t pass_made;          /* batches made when it began (mu) */
    int dry;                     /* a pass made no batch: no more passes */
};

struct reader {
    struct train_run *run;
    struct loader *ld;
    uint32_t lane;               /* in order: its batches are lane + m x W */
    char *buf;                   /* up to READ_CHUNK bytes, 4 KiB aligned,
                                    made on the first read (reader_room) */
    uint64_t buflen;
    uint64_t want;               /* bytes of buf before the first read */
    struct lb_rng rng;           /* preprocess_time draws */
    struct lb_hist *read;        /* ns per sample */
    _Atomic uint64_t samples;    /* over the run; read by progress */
    uint64_t bytes;
    uint64_t own_bytes, own_n;   /* the samples' own sizes (DLIO's MB/s) */
    struct lb_train_cpu cpu;
    struct lb_fmt_io io;         /* containers: the scratch is buf */
    uint64_t *recs;              /* tfrecord: records of the last read */
    size_t nrecs, caprecs;
    uint64_t file;               /* tfrecord: the file being streamed */
    uint64_t frecs;              /* tfrecord: its records so far */
    int oom;                     /* tfrecord: a record list could not grow */
    char path[PATH_MAX];
};

struct block {                   /* DLIO's block: steps between checkpoints */
    uint64_t start_ns, steps;
    uint64_t compute_in;         /* compute of the steps counted */
    uint64_t proc_out;           /* load + compute of the steps excluded */
};

struct accel {
    struct train_run *run;
    struct loader *ld;
    uint32_t k;
    struct lb_rng rng;
    struct lb_hist *wait;        /* ns waited per step */
    uint64_t compute_ns, wait_ns, steps, end_ns;
    uint64_t ep_step;            /* steps taken this epoch */
    struct block blk;
    uint64_t *tail;              /* (proc, compute) of the last steps, ring
                                    of exclude_end_steps pairs */
    uint64_t ntail;              /* pairs pushed this block */
    double au_w, tp_w;           /* this epoch: sum over blocks of au x
                                    steps and throughput x steps */
    uint64_t ep_steps;
    uint64_t ckpt_last;          /* shard loader: step of its part on disk */
    uint64_t wait_from;          /* parked: its wait for the next batch
                                    began then (ld->mu) */
};

struct train_run {
    const struct lb_train_cfg *cfg;
    struct lb_train_result *res;
    struct lb_dataset data;
    uint32_t epoch;
    uint32_t nloaders;
    struct loader *ld;
    struct lb_perm fperm;        /* shuffle=file: this epoch's file order */
    struct lb_perm tf_fperm;     /* tfrecord: the first epoch's, kept (DLIO
                                    builds its tf.data pipeline once) */
    _Atomic uint64_t next;       /* layout: next file to take */
    _Atomic uint64_t laid_out;   /* layout: files checked */
    _Atomic uint64_t rewritten;  /* layout: files rewritten (relayout) */
    _Atomic uint64_t steps;      /* over all accelerators, the run */
    _Atomic int stop;
    pthread_mutex_t mu;          /* the thread count, the first failure */
    pthread_cond_t done_cv;
    unsigned running;            /* threads not yet done with their job */
    _Atomic uint32_t crew[2];    /* futexes: the readers' [0] and the
                                    accelerators' [1] last job (enum job,
                                    low 2 bits) and the jobs given before */
    pthread_t *th;
    unsigned nth;
    char *stacks;                /* thread stacks (stacks_make), or NULL */
    size_t stack_slot;           /* bytes per thread, its guard page first */
    unsigned nstacks, nstacks_want;
    int stacks_tried;
    int err;                     /* first failure, -errno */
    struct reader *rd;
    uint32_t nreaders;
    struct accel *ac;
    pthread_mutex_t bar_mu;      /* the barrier after each step */
    pthread_cond_t bar_cv;
    unsigned bar_members, bar_arrived;
    uint64_t bar_gen;
    double *ep_au, *ep_tp;       /* this epoch, per accelerator */
    pthread_mutex_t ckpt_mu;     /* shared loader: one checkpoint at a time */
    char *ckpt_buf;
    uint64_t ckpt_last;          /* shared loader: step on disk, 0: none */
    struct eval_run *ev;         /* do_eval: the evaluation, or NULL */
    int by_readers;              /* steps_by_readers(cfg) */
};

struct eval_run {                /* the evaluation: a run of its own cfg */
    struct lb_train_cfg cfg;     /* lb_train_eval_cfg */
    char dir[PATH_MAX];          /* luabench's names: dir/valid */
    struct lb_train_result res;  /* its epochs are the evaluations */
    struct train_run run;
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
    c->loader = LB_TRAIN_LOADER_SHARD;
    c->barrier = true;
    c->drop_last = true;
    c->exclude_start_steps = 1;
    c->transfer_size = LB_FMT_TF_BUFFER;
    c->shuffle_size = 1024;
}

/* ---- failures and stopping ---- */

/* ---- the accelerators' wait for a batch ---- */

/* Something an accelerator waits for happened (ld->mu held); the
 * return value goes to taker_wake once the lock is let go. */
static unsigned taker_note(struct loader *ld)
{
    atomic_fetch_add_explicit(&ld->took_seq, 1, memory_order_release);
    return ld->takers;
}

static void taker_wake(struct loader *ld, unsigned asleep, int all)
{
    if (asleep)
        syscall(SYS_futex, &ld->took_seq, FUTEX_WAKE_PRIVATE, all ? INT_MAX : 1, NULL, NULL, 0);
}

/* Sleeps until taker_note (ld->mu held on entry and on return). */
static void taker_sleep(struct loader *ld)
{
    uint32_t seq = atomic_load_explicit(&ld->took_seq, memory_order_acquire);
    ld->takers++;
    pthread_mutex_unlock(&ld->mu);
    syscall(SYS_futex, &ld->took_seq, FUTEX_WAIT_PRIVATE, seq, NULL, NULL, 0);
    pthread_mutex_lock(&ld->mu);
    ld->takers--;
}

static unsigned batch_queued(struct train_run *r, struct loader *ld, uint64_t b);

/* Stops the loaders; the caller wakes the barrier. */
static void stop_loaders(struct train_run *r)
{
    atomic_store(&r->stop, 1);
    for (uint32_t i = 0; r->ld && i < r->nloaders; i++) {
        struct loader *ld = &r->ld[i];
        pthread_mutex_lock(&ld->mu);
        unsigned asleep = taker_note(ld);
        pthread_cond_broadcast(&ld->room_cv);
        pthread_cond_broadcast(&ld->pass_cv);
        for (uint32_t j = 0; ld->lane_cv && j < r->cfg->read_threads; j++)
            pthread_cond_broadcast(&ld->lane_cv[j]);
        pthread_mutex_unlock(&ld->mu);
        taker_wake(ld, asleep, 1);
    }
}

static void run_stop(struct train_run *r)
{
    stop_loaders(r);
    pthread_mutex_lock(&r->bar_mu);
    pthread_cond_broadcast(&r->bar_cv);
    pthread_mutex_unlock(&r->bar_mu);
}

/* Keeps the first failure; msg is already formatted, or NULL to format
 * what/path/errno. */
static void note_fail(struct train_run *r, int err, const char *msg,
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
}

static void run_fail(struct train_run *r, int err, const char *msg,
                     const char *what, const char *path)
{
    note_fail(r, err, msg, what, path);
    run_stop(r);
}

/* ---- ranks training together ---- */

static uint32_t ranks_of(const struct lb_train_cfg *c)
{
    return c->nranks > 1 ? c->nranks : 1;
}

static uint32_t rank_of(const struct lb_train_cfg *c)
{
    return c->nranks > 1 ? c->rank : 0;
}

/* DLIO's read_threads=0, PyTorch's num_workers=0: each accelerator loads
 * its batches itself, on its own thread, one before each step; tf.data
 * takes 0 as 1, as DLIO's TFDataLoader does. */
static int loads_itself(const struct lb_train_cfg *c)
{
    return c->read_threads == 0 && c->container != LB_TRAIN_TFRECORD;
}

/* Reader threads of a loader (the layout's too). */
static uint32_t loader_threads(const struct lb_train_cfg *c)
{
    return c->read_threads ? c->read_threads : 1;
}

/* DLIO's PyTorch loader (one loader an accelerator, not TFRecord, not
 * read_threads=0): worker j of W makes batches j, j + W, j + 2W, ... in
 * turn, each at most W x prefetch_factor batches past the last one the
 * steps took, and the steps take the batches in order, each waiting for
 * its own; prefetch_factor is ceil(prefetch_size / W), 2 for a
 * prefetch_size of 0, as DLIO's TorchDataLoader sets it. */
static int in_order(const struct lb_train_cfg *c)
{
    return c->loader == LB_TRAIN_LOADER_SHARD && c->container != LB_TRAIN_TFRECORD &&
           !loads_itself(c);
}

static uint64_t order_window(const struct lb_train_cfg *c)
{
    uint64_t W = c->read_threads, ps = c->prefetch;
    return W * (ps ? (ps + W - 1) / W : 2);
}

/* One exchange with the other ranks (see lb_train_sync_fn): their bits,
 * 0 when alone.  A rank that stopped stops this one; a failed exchange
 * fails the run.  bar_held: called at the barrier, bar_mu held. */
static int rank_sync(struct train_run *r, int mine, int bar_held)
{
    const struct lb_train_cfg *c = r->cfg;
    if (ranks_of(c) < 2 || !c->sync)
        return 0;
    if (atomic_load(&r->stop) || r->err)
        mine |= LB_TRAIN_SYNC_STOP;
    int got = c->sync(c->sync_arg, mine);
    if (got >= 0 && !(got & LB_TRAIN_SYNC_STOP))
        return got;
    if (got < 0)
        note_fail(r, got, "the exchange with the other ranks failed", NULL, NULL);
    else if (!atomic_load(&r->stop))
        r->res->stopped = 1;            /* another rank stopped */
    if (bar_held) {
        stop_loaders(r);
        pthread_cond_broadcast(&r->bar_cv);
    } else {
        run_stop(r);
    }
    return got;
}

/* The epoch's last exchanges: until no rank has an accelerator stepping. */
static void ranks_settle(struct train_run *r)
{
    int got;
    do
        got = rank_sync(r, 0, 0);
    while (got > 0 && (got & LB_TRAIN_SYNC_BUSY));
}

/* ---- threads ---- */

/* Thread stacks: one mapping for all the threads alive at once (an
 * epoch's readers and accelerators), a guard page under each, made on
 * the first start and kept for the run.  glibc maps, guards and (beyond
 * its small cache) unmaps a stack per thread, and on a VM those calls
 * cost several times the clone itself: thousands of loaders would spend
 * most of their start there.  Without the mapping (too many threads for
 * the map count, say), glibc's stacks of the same size. */
static void stacks_make(struct train_run *r)
{
    size_t slot = r->cfg->sync ? STACK_SYNC : STACK_BYTES, n = r->nstacks_want;
    r->stacks_tried = 1;
    if (n == 0 || n > STACKS_MAX)
        return;
    char *m = mmap(NULL, n * slot, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (m == MAP_FAILED)
        return;
    for (size_t i = 0; i < n; i++)
        if (mprotect(m + i * slot, STACK_GUARD, PROT_NONE) < 0) {
            munmap(m, n * slot);
            return;
        }
    r->stacks = m;
    r->stack_slot = slot;
    r->nstacks = (unsigned)n;
}

/* r->mu held. */
static int thread_start(struct train_run *r, void *(*fn)(void *), void *arg)
{
    pthread_attr_t at;
    if (!r->stacks_tried)
        stacks_make(r);
    pthread_attr_init(&at);
    if (r->stacks && r->nth < r->nstacks)
        pthread_attr_setstack(&at, r->stacks + (size_t)r->nth * r->stack_slot + STACK_GUARD,
                              r->stack_slot - STACK_GUARD);
    else
        pthread_attr_setstacksize(&at, r->cfg->sync ? STACK_SYNC : STACK_BYTES);
    int rc = pthread_create(&r->th[r->nth], &at, fn, arg);
    pthread_attr_destroy(&at);
    return rc;
}

/* busy: the thread starts on its job (layout), not waiting for one. */
static int spawn(struct train_run *r, void *(*fn)(void *), void *arg, int busy)
{
    pthread_mutex_lock(&r->mu);
    int rc = thread_start(r, fn, arg);
    if (rc == 0) {
        r->nth++;
        r->running += busy != 0;
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

/* Waits until the threads are done with their job, calling progress
 * about once a second. */
static void wait_threads(struct train_run *r, const char *phase,
                         uint64_t (*done)(struct train_run *), uint64_t total)
{
    const struct lb_train_cfg *c = r->cfg;
    pthread_mutex_lock(&r->mu);
    struct timespec ts;      /* the next call, a second on: a thread that ends */
    clock_gettime(CLOCK_MONOTONIC, &ts);  /* wakes the wait but does not move it */
    ts.tv_sec += 1;
    while (r->running) {
        if (pthread_cond_timedwait(&r->done_cv, &r->mu, &ts) != ETIMEDOUT || !c->progress)
            continue;
        ts.tv_sec += 1;
        pthread_mutex_unlock(&r->mu);
        if (c->progress(c->progress_arg, phase, done(r), total)) {
            r->res->stopped = 1;
            run_stop(r);
        }
        pthread_mutex_lock(&r->mu);
    }
    pthread_mutex_unlock(&r->mu);
}

static void join_threads(struct train_run *r)
{
    for (unsigned i = 0; i < r->nth; i++)
        pthread_join(r->th[i], NULL);
    r->nth = 0;
}

/* ---- the crew: readers and accelerators kept across the epochs ---- */

/* The job and its count share a word: a thread sees both at once.  They
 * wait on it with a futex, not a condition variable, so that thousands of
 * them woken at an epoch's start do not queue for a mutex. */
enum job { JOB_NONE, JOB_EPOCH, JOB_CKPT };

static void crew_post(struct train_run *r, int who, int job)
{
    uint32_t w = atomic_load_explicit(&r->crew[who], memory_order_relaxed);
    atomic_store_explicit(&r->crew[who], ((w >> 2) + 1) << 2 | (uint32_t)job,
                          memory_order_release);
    syscall(SYS_futex, &r->crew[who], FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* Gives the crew its next job, which n of its threads take part in: an
 * epoch all of them, a checkpoint the accelerators. */
static void crew_give(struct train_run *r, int job, unsigned n)
{
    pthread_mutex_lock(&r->mu);
    r->running = n;
    pthread_mutex_unlock(&r->mu);
    if (job == JOB_EPOCH)
        crew_post(r, 0, job);
    crew_post(r, 1, job);
}

/* A thread of the crew waits for its next job (accel: an accelerator's);
 * JOB_NONE when the crew ends.  *seen: the word of its last job. */
static int crew_wait(struct train_run *r, uint32_t *seen, int accel)
{
    _Atomic uint32_t *word = &r->crew[accel != 0];
    uint32_t w;
    while ((w = atomic_load_explicit(word, memory_order_acquire)) == *seen)
        syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, w, NULL, NULL, 0);
    *seen = w;
    return (int)(w & 3);
}

/* Ends the crew: its threads, waiting for a job, leave and are joined. */
static void crew_end(struct train_run *r)
{
    crew_post(r, 0, JOB_NONE);
    crew_post(r, 1, JOB_NONE);
    join_threads(r);
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
        uint64_t f = atomic_fetch_add(&r->next, 1) * ranks_of(r->cfg) + rank_of(r->cfg);
        if (f >= r->cfg->files)
            break;
        int rc = lb_dataset_layout(&r->data, f, buf, LAYOUT_BUF, err, sizeof err);
        if (rc < 0)
            run_fail(r, rc, err, NULL, NULL);
        else if (rc >= 1) {
            uint64_t size = lb_dataset_file_size(&r->data, f);
            struct stat st;
            if (size == 0 && lb_train_path(r->cfg, f, rd->path, sizeof rd->path) >= 0 &&
                stat(rd->path, &st) == 0)
                size = (uint64_t)st.st_size;    /* deflated: as written */
            rd->bytes += size;
            rd->samples++;               /* files written, in layout */
            if (rc == 2)
                atomic_fetch_add(&r->rewritten, 1);
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
    if (r->cfg->paths)                  /* an existing dataset: read only */
        return r->err = lb_dataset_open(&r->data, res->err, sizeof res->err);
    int rc = lb_dataset_manifest_check(&r->data, res->relaid, sizeof res->relaid,
                                       res->err, sizeof res->err);
    if (rc == -ESTALE)
        res->layout_refused = 1;
    /* this rank's files are f = i * R + rank; those below data.trusted
     * are taken as the record says, unchecked */
    uint64_t R = ranks_of(r->cfg), me = rank_of(r->cfg), trusted = r->data.trusted;
    uint64_t mine = (r->cfg->files - me + R - 1) / R;
    uint64_t first = trusted > me ? (trusted - me + R - 1) / R : 0;
    if (rc == 0 && first < mine)
        rc = lb_dataset_mkdirs(&r->data, res->err, sizeof res->err);
    if (rc < 0)
        return rc;
    atomic_store(&r->next, first);
    for (uint32_t i = 0; first < mine && i < loader_threads(r->cfg); i++)
        if (spawn(r, layout_main, &r->rd[i], 1) < 0)
            break;
    wait_threads(r, "layout", layout_done, first < mine ? mine - first : 0);
    join_threads(r);
    for (uint32_t i = 0; i < loader_threads(r->cfg); i++) {
        res->laid_out_files += r->rd[i].samples;
        res->laid_out_bytes += r->rd[i].bytes;
        r->rd[i].samples = r->rd[i].bytes = 0;
    }
    rank_sync(r, 0, 0);                  /* every rank's files are there */
    res->layout_ns = lb_clock_now() - t0;
    res->relaid_files = atomic_load(&r->rewritten);
    if (res->relaid_files && !res->relaid[0])
        snprintf(res->relaid, sizeof res->relaid, "files of other sizes");
    res->layout_refused = r->err == -ESTALE;
    if (r->err == 0 && !atomic_load(&r->stop))
        r->err = lb_dataset_manifest_write(&r->data, res->err, sizeof res->err);
    if (r->err == 0 && !atomic_load(&r->stop))
        r->err = lb_dataset_open(&r->data, res->err, sizeof res->err);
    return r->err;
}

/* ---- drawn times ---- */

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

/* ---- readers ---- */

/* The sample at position pos of this epoch's order, read by loader ld. */
static inline uint64_t order_at(const struct train_run *r, const struct loader *ld,
                                uint64_t pos)
{
    uint32_t spf = r->cfg->samples_per_file;
    switch (r->cfg->shuffle) {
    case LB_SHUFFLE_SAMPLE:
        return ld->lo + lb_perm_at(&ld->perm, pos - ld->lo);
    case LB_SHUFFLE_FILE:
        return lb_perm_at(&r->fperm, pos / spf) * spf + pos % spf;
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

/* The sample's bytes in reads of at most the buffer's length. */
static int pread_sample(struct reader *rd, int fd, uint64_t len, uint64_t off)
{
    int rc = 0;
    while (rc == 0 && len) {
        uint64_t n = len < rd->buflen ? len : rd->buflen;
        rc = pread_full(fd, rd->buf, n, off);
        len -= n;
        off += n;
    }
    return rc;
}

static int read_npz_whole(struct reader *rd, int fd);
static int reader_room(struct reader *rd, uint64_t want);

/* npz and hdf5, as DLIO's readers on demand: open, np.load(f)['x'] or
 * h5py's read of the sample, close.  *len: the bytes read, *own: the
 * sample's (x's array over the file's samples, or the hdf5 record). */
static int read_container(struct reader *rd, uint64_t s, uint64_t *len, uint64_t *own)
{
    struct train_run *r = rd->run;
    uint64_t spf = r->cfg->samples_per_file, f = s / spf, n = 0;
    lb_train_path(r->cfg, f, rd->path, sizeof rd->path);
    int fd = open(rd->path, r->data.oflags);
    if (fd < 0)
        return -errno;
    rd->io.bytes = rd->io.member = 0;
    rd->io.msg[0] = 0;
    int npz = r->cfg->container == LB_TRAIN_NPZ, rc;
    if (npz && r->cfg->direct)
        rc = read_npz_whole(rd, fd);
    else
        rc = npz ? lb_fmt_npz_read(fd, &rd->io)
                 : lb_fmt_hdf5_read(fd, rd->path, s - f * spf, r->cfg->num_dset_per_record,
                                   &rd->io, &n);
    close(fd);
    *len = rd->io.bytes;
    *own = npz ? rd->io.member / spf : n;
    if (rc == 0 && !npz && rd->io.member > rd->buflen)
        rc = reader_room(rd, rd->io.member);    /* libhdf5 reads a piece at once */
    return rc;
}

/* The reader's buffer holds at least want bytes (at most READ_CHUNK): made
 * by the reader itself on its first read, so that thousands of loaders
 * cost nothing until they read, and grown as a list's larger files come. */
static int reader_room(struct reader *rd, uint64_t want)
{
    want = want < READ_CHUNK ? want : READ_CHUNK;
    want = want ? (want + 4095) & ~4095ull : 4096;
    if (rd->buf && rd->buflen >= want)
        return 0;
    free(rd->buf);
    rd->buflen = 0;
    if (posix_memalign((void **)&rd->buf, 4096, want)) {
        rd->buf = NULL;
        return -ENOMEM;
    }
    rd->buflen = want;
    rd->io.buf = rd->buf;
    rd->io.buflen = rd->buflen;
    return 0;
}

/* direct=true npz, as DLIO's O_DIRECT reader: the file sized (fstat),
 * then read whole into the reader's buffer, grown to the largest file
 * (rounded up to 4 KiB: O_DIRECT's alignment) past READ_CHUNK. */
static int read_npz_whole(struct reader *rd, int fd)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -errno;
    uint64_t size = (uint64_t)st.st_size;
    uint64_t want = (size + LB_FMT_DIRECT_ALIGN - 1) & ~(uint64_t)(LB_FMT_DIRECT_ALIGN - 1);
    if (want > rd->buflen) {
        char *b = NULL;
        if (posix_memalign((void **)&b, LB_FMT_DIRECT_ALIGN, want))
            return -ENOMEM;
        free(rd->buf);
        rd->buf = rd->io.buf = b;
        rd->buflen = rd->io.buflen = want;
    }
    return lb_fmt_npz_read_whole(fd, size, &rd->io);
}

/* Reads sample s: pread on the kept descriptor, or open/pread/close; an
 * existing dataset's file is sized by fstat as it is first opened. */
static int read_sample(struct reader *rd, uint64_t s, uint64_t *len, uint64_t *own)
{
    struct train_run *r = rd->run;
    uint64_t f = s / r->cfg->samples_per_file, off = 0;
    int opened;
    if (r->cfg->container != LB_TRAIN_RAW)
        return read_container(rd, s, len, own);
    int fd = lb_dataset_fd(&r->data, f, rd->path, sizeof rd->path, &opened);
    if (fd < 0)
        return fd;
    int rc = 0;
    if (r->data.sizes && !atomic_load_explicit(&r->data.sizes[f], memory_order_relaxed))
        rc = lb_dataset_size(&r->data, f, fd, rd->io.msg, sizeof rd->io.msg);  /* first open */
    if (rc == 0) {
        lb_dataset_locate(&r->data, s, &f, &off, len);
        *own = *len;
        rc = reader_room(rd, *len);
    }
    if (rc == 0)
        rc = pread_sample(rd, fd, *len, off);
    if (rc == -ENODATA)
        snprintf(rd->io.msg, sizeof rd->io.msg, "the file ends before byte %llu, the end of "
                 "its sample", (unsigned long long)(off + *len));
    if (opened)
        close(fd);
    return rc;
}

/* A file of a layout taken on its record's word that is not there as
 * recorded: the record names what was laid out, relayout=1 the way out. */
static void untrusted_hint(struct train_run *r, uint64_t f, int err, char *msg, size_t len)
{
    size_t n = strlen(msg);
    if (r->cfg->paths || f >= r->data.trusted ||
        (err != -ENOENT && err != -ENODATA && err != -EILSEQ) || n >= len)
        return;
    snprintf(msg + n, len - n, " (laid out by an earlier run, as the record in %.200s says; "
             "relayout=1 checks every file and lays out again what is missing or short)",
             r->cfg->dir);
}

static void read_failed(struct reader *rd, uint64_t s, int err)
{
    struct train_run *r = rd->run;
    uint64_t f = s / r->cfg->samples_per_file;
    char msg[sizeof r->res->err];
    lb_train_path(r->cfg, f, rd->path, sizeof rd->path);
    if (rd->io.msg[0])
        snprintf(msg, sizeof msg, "read %.300s: %.200s", rd->path, rd->io.msg);
    else
        lb_file_errmsg(msg, sizeof msg, "read", rd->path, err);
    untrusted_hint(r, f, err, msg, sizeof msg);
    run_fail(r, err, msg, NULL, NULL);
}

static int read_batch(struct reader *rd, uint64_t b)
{
    struct train_run *r = rd->run;
    const struct lb_train_cfg *c = r->cfg;
    struct loader *ld = rd->ld;
    uint64_t lo = ld->lo + b * c->batch_size, hi = lo + c->batch_size;
    uint64_t bytes = 0;
    hi = hi < ld->lo + ld->n ? hi : ld->lo + ld->n;
    for (uint64_t pos = lo; pos < hi; pos++) {
        uint64_t s = order_at(r, ld, pos), len = 0, own = 0;
        uint64_t t0 = lb_clock_now();
        int rc = read_sample(rd, s, &len, &own);
        lb_hist_record(rd->read, lb_clock_now() - t0);
        if (rc < 0) {
            read_failed(rd, s, rc);
            return rc;
        }
        bytes += len;
        rd->own_bytes += own;
        rd->own_n++;
        if (!lb_train_value_zero(&c->preprocess_ns))
            compute(lb_train_value_draw(&c->preprocess_ns, &rd->rng));
        if (c->on_sample)
            c->on_sample(c->on_sample_arg, r->epoch, pos, s);
    }
    rd->bytes += bytes;
    atomic_fetch_add_explicit(&rd->samples, hi - lo, memory_order_relaxed);
    return 0;
}

/* Puts a batch in the queue; waits while the queue is full.  The wake
 * comes after the unlock: a woken accelerator does not find the lock
 * still held and sleep on it a second time. */
static void batch_ready(struct train_run *r, struct loader *ld, uint64_t b)
{
    pthread_mutex_lock(&ld->mu);
    while (!ld->window && ld->ready >= r->cfg->prefetch && !atomic_load(&r->stop))
        pthread_cond_wait(&ld->room_cv, &ld->mu);
    unsigned asleep = batch_queued(r, ld, b);
    pthread_mutex_unlock(&ld->mu);
    taker_wake(ld, asleep, 0);
}

/* The buffer before the first read; a failure stops the run. */
static int reader_start(struct reader *rd)
{
    if (reader_room(rd, rd->want) == 0)
        return 0;
    run_fail(rd->run, -ENOMEM, "not enough memory for a reader's buffer", NULL, NULL);
    return -ENOMEM;
}

/* In order: waits until batch b is inside the window; 0 on stop. */
static int batch_room(struct train_run *r, struct loader *ld, uint64_t b)
{
    pthread_mutex_lock(&ld->mu);
    while (b >= ld->taken + ld->window && !atomic_load(&r->stop))
        pthread_cond_wait(&ld->lane_cv[b % r->cfg->read_threads], &ld->mu);
    pthread_mutex_unlock(&ld->mu);
    return !atomic_load(&r->stop);
}

static void reader_epoch(struct reader *rd)
{
    struct train_run *r = rd->run;
    struct loader *ld = rd->ld;
    int rc = reader_start(rd);
    for (uint64_t b = rd->lane; rc == 0 && !atomic_load_explicit(&r->stop, memory_order_relaxed);
         b += r->cfg->read_threads) {
        if (!ld->window)
            b = atomic_fetch_add(&ld->next, 1);
        if (b >= ld->nbatches || (ld->window && !batch_room(r, ld, b)) || read_batch(rd, b) < 0)
            break;
        batch_ready(r, ld, b);
    }
    pthread_mutex_lock(&ld->mu);
    unsigned asleep = --ld->readers_left == 0 ? taker_note(ld) : 0;
    pthread_mutex_unlock(&ld->mu);
    taker_wake(ld, asleep, 1);          /* nothing more will come */
}


/* ---- tfrecord: streams through a shuffle buffer ---- */

static uint64_t all_loaders(const struct lb_train_cfg *c);
static uint64_t loader_index(const struct lb_train_cfg *c, uint32_t k);

static int shard_mode(const struct lb_train_cfg *c)
{
    return c->loader == LB_TRAIN_LOADER_SHARD;
}

/* File i of loader ld: shard k takes every K-th file of the file order
 * from k (DLIO shards the TFRecord file list so); the order is the first
 * epoch's in every epoch, as DLIO's pipeline is built once. */
static uint64_t tf_file(const struct train_run *r, const struct loader *ld, uint64_t i)
{
    const struct lb_train_cfg *c = r->cfg;
    uint64_t p = loader_index(c, ld->k) + i * all_loaders(c);
    return c->shuffle == LB_SHUFFLE_NONE ? p : lb_perm_at(&r->tf_fperm, p);
}

/* Files loader g of all ranks streams. */
static uint64_t tf_files(const struct lb_train_cfg *c, uint64_t g)
{
    uint64_t L = all_loaders(c);
    return c->files > g ? (c->files - g + L - 1) / L : 0;
}

/* A batch is complete: counted at once (others go on making the next
 * while this one waits), queued when there is room (ld->mu held). */
static void tf_batch(struct reader *rd, struct loader *ld, uint64_t n)
{
    struct train_run *r = rd->run;
    const struct lb_train_cfg *c = r->cfg;
    uint64_t made = atomic_load_explicit(&ld->made, memory_order_relaxed);
    for (uint64_t j = 0; c->on_sample && j < n; j++)
        c->on_sample(c->on_sample_arg, r->epoch, ld->pos0 + made * c->batch_size + j,
                     ld->batch[j]);
    ld->fill = 0;
    atomic_store_explicit(&ld->made, made + 1, memory_order_relaxed);
    if (made + 1 >= ld->nbatches)
        pthread_cond_broadcast(&ld->pass_cv);   /* no reader waits for a pass */
    while (ld->ready >= r->cfg->prefetch && !atomic_load(&r->stop))
        pthread_cond_wait(&ld->room_cv, &ld->mu);
    atomic_fetch_add_explicit(&rd->samples, n, memory_order_relaxed);
    taker_wake(ld, batch_queued(r, ld, 0), 0);  /* the taker then waits for ld->mu */
}

/* Sample s leaves the shuffle buffer into the batch being made. */
static void tf_emit(struct reader *rd, struct loader *ld, uint64_t s)
{
    struct train_run *r = rd->run;
    const struct lb_train_cfg *c = r->cfg;
    if (atomic_load_explicit(&ld->made, memory_order_relaxed) >= ld->nbatches)
        return;                         /* past the epoch's steps: unused */
    if (ld->batch)
        ld->batch[ld->fill] = s;
    if (++ld->fill == c->batch_size)
        tf_batch(rd, ld, c->batch_size);
}

/* As tf.data's shuffle: the buffer fills to shuffle_size, then each new
 * sample takes the place of one drawn at random, which goes out. */
static void tf_put(struct reader *rd, struct loader *ld, uint64_t s)
{
    const struct lb_train_cfg *c = rd->run->cfg;
    if (!ld->sbuf) {
        tf_emit(rd, ld, s);
        return;
    }
    if (ld->scount < c->shuffle_size) {
        ld->sbuf[ld->scount++] = s;
        return;
    }
    uint64_t i = lb_rng_below(&ld->srng, ld->scount), out = ld->sbuf[i];
    ld->sbuf[i] = s;
    tf_emit(rd, ld, out);
}

/* The end of a pass over the files: the buffer empties in random order,
 * and a last partial batch goes out unless drop_last (ld->mu held). */
static void tf_drain(struct reader *rd, struct loader *ld)
{
    while (ld->scount) {
        uint64_t i = lb_rng_below(&ld->srng, ld->scount), out = ld->sbuf[i];
        ld->sbuf[i] = ld->sbuf[--ld->scount];
        tf_emit(rd, ld, out);
    }
    if (ld->fill && !rd->run->cfg->drop_last &&
        atomic_load_explicit(&ld->made, memory_order_relaxed) < ld->nbatches)
        tf_batch(rd, ld, ld->fill);
    ld->fill = 0;                       /* drop_last: dropped */
}

/* Whether the loader still makes batches (ld->mu held). */
static int tf_going(const struct train_run *r, const struct loader *ld)
{
    return !atomic_load(&r->stop) && !ld->dry &&
           atomic_load_explicit(&ld->made, memory_order_relaxed) < ld->nbatches;
}

/* drop_last, as DLIO's pipeline (shuffle, batch(drop_remainder), repeat):
 * when the loader's files are streamed and the epoch's steps are not all
 * made, the files are streamed again from the first.  A reader done with
 * pass p waits until every reader is: the last one empties the buffer,
 * drops the partial batch and opens pass p + 1.  0 when the loader is
 * done instead. */
static int tf_pass_end(struct reader *rd, struct loader *ld, uint64_t p)
{
    struct train_run *r = rd->run;
    pthread_mutex_lock(&ld->mu);
    if (ld->pass == p && ++ld->pass_arrived >= ld->readers_left) {
        tf_drain(rd, ld);
        uint64_t made = atomic_load_explicit(&ld->made, memory_order_relaxed);
        ld->dry = made == ld->pass_made;        /* would never end */
        ld->pass_made = made;
        ld->pass++;
        ld->pass_arrived = 0;
        pthread_cond_broadcast(&ld->pass_cv);
    }
    while (ld->pass == p && tf_going(r, ld))
        pthread_cond_wait(&ld->pass_cv, &ld->mu);
    int going = tf_going(r, ld);
    pthread_mutex_unlock(&ld->mu);
    return going;
}

/* Record i of the file: its own size is the sample size as laid out, or
 * in an existing dataset its data length. */
static void tf_record(void *arg, uint64_t i, uint64_t len)
{
    struct reader *rd = arg;
    const struct lb_train_cfg *c = rd->run->cfg;
    rd->own_bytes += c->paths ? len : lb_train_sample_size(c, rd->file, 0);
    rd->own_n++;
    rd->frecs++;
    if (rd->nrecs == rd->caprecs) {
        size_t cap = rd->caprecs ? 2 * rd->caprecs : 256;
        uint64_t *p = realloc(rd->recs, cap * sizeof *p);
        if (p == NULL) {
            rd->oom = 1;
            return;
        }
        rd->recs = p;
        rd->caprecs = cap;
    }
    rd->recs[rd->nrecs++] = rd->file * rd->run->cfg->samples_per_file + i;
}

/* The records of one read: preprocessed, then into the buffer at once. */
static void tf_flush(struct reader *rd, struct loader *ld)
{
    const struct lb_train_cfg *c = rd->run->cfg;
    for (size_t i = 0; !lb_train_value_zero(&c->preprocess_ns) && i < rd->nrecs; i++)
        compute(lb_train_value_draw(&c->preprocess_ns, &rd->rng));
    pthread_mutex_lock(&ld->mu);
    for (size_t i = 0; i < rd->nrecs; i++)
        tf_put(rd, ld, rd->recs[i]);
    pthread_mutex_unlock(&ld->mu);
    rd->nrecs = 0;
}

/* Reads file f front to back in transfer_size reads, as TFRecordDataset
 * with buffer_size = transfer_size does. */
static int tf_stream(struct reader *rd, uint64_t f)
{
    struct train_run *r = rd->run;
    struct loader *ld = rd->ld;
    struct lb_fmt_tf t;
    uint64_t off = 0, piece = r->cfg->transfer_size;
    int rc = 0;
    piece = piece < rd->buflen ? piece : rd->buflen;
    rd->file = f;
    rd->frecs = 0;
    lb_train_path(r->cfg, f, rd->path, sizeof rd->path);
    int fd = open(rd->path, r->data.oflags);
    if (fd < 0)
        return -errno;
    lb_fmt_tf_init(&t);
    while (rc == 0 && !atomic_load_explicit(&r->stop, memory_order_relaxed) &&
           atomic_load_explicit(&ld->made, memory_order_relaxed) < ld->nbatches) {
        uint64_t t0 = lb_clock_now();
        ssize_t n = pread(fd, rd->buf, piece, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = -errno;
            break;
        }
        lb_hist_record(rd->read, lb_clock_now() - t0);
        if (n == 0) {
            rc = lb_fmt_tf_end(&t, rd->io.msg, sizeof rd->io.msg);
            if (rc == 0 && !r->cfg->paths && rd->frecs != r->cfg->samples_per_file) {
                snprintf(rd->io.msg, sizeof rd->io.msg, "%llu records, laid out with %u",
                         (unsigned long long)rd->frecs, r->cfg->samples_per_file);
                rc = -EILSEQ;           /* a short file, not fewer samples */
            }
            break;
        }
        off += (uint64_t)n;
        rd->bytes += (uint64_t)n;
        rc = lb_fmt_tf_feed(&t, rd->buf, (size_t)n, tf_record, rd, rd->io.msg,
                            sizeof rd->io.msg);
        if (rc == 0 && rd->oom)
            rc = -ENOMEM;
        tf_flush(rd, ld);
    }
    close(fd);
    return rc;
}

static void tf_reader_epoch(struct reader *rd)
{
    struct train_run *r = rd->run;
    struct loader *ld = rd->ld;
    uint64_t pass = 0;
    int repeat = r->cfg->drop_last, rc = reader_start(rd);
    while (rc == 0 && !atomic_load_explicit(&r->stop, memory_order_relaxed) &&
           atomic_load_explicit(&ld->made, memory_order_relaxed) < ld->nbatches) {
        uint64_t i = atomic_fetch_add(&ld->next_file, 1);
        if (ld->nfiles == 0 || (i >= ld->nfiles && !repeat))
            break;
        while (pass < i / ld->nfiles && tf_pass_end(rd, ld, pass))
            pass++;
        if (pass < i / ld->nfiles)
            break;
        rc = tf_stream(rd, tf_file(r, ld, i % ld->nfiles));
        if (rc < 0) {
            read_failed(rd, rd->file * r->cfg->samples_per_file, rc);
            break;
        }
    }
    pthread_mutex_lock(&ld->mu);
    if (ld->readers_left == 1 && !atomic_load(&r->stop))
        tf_drain(rd, ld);
    unsigned asleep = --ld->readers_left == 0 ? taker_note(ld) : 0;
    pthread_cond_broadcast(&ld->pass_cv);       /* one fewer to wait for */
    pthread_mutex_unlock(&ld->mu);
    taker_wake(ld, asleep, 1);
}

/* A reader's epochs; after each, its CPU is the thread's over the epochs
 * so far. */
/* The reader's CPU so far: its thread's, the calling one. */
static void reader_cpu_note(struct reader *rd)
{
    rd->cpu.usr_ns = rd->cpu.sys_ns = 0;
    lb_thread_cpu_add(&rd->cpu.usr_ns, &rd->cpu.sys_ns);
}

static void *reader_main(void *arg)
{
    struct reader *rd = arg;
    int tf = rd->run->cfg->container == LB_TRAIN_TFRECORD;
    uint32_t seen = 0;
    while (crew_wait(rd->run, &seen, 0) == JOB_EPOCH) {
        if (tf)
            tf_reader_epoch(rd);
        else
            reader_epoch(rd);
        reader_cpu_note(rd);
        thread_done(rd->run);
    }
    return NULL;
}

static uint64_t samples_done(struct train_run *r)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < r->nreaders; i++)
        n += atomic_load_explicit(&r->rd[i].samples, memory_order_relaxed);
    return n;
}

/* ---- checkpoints ---- */

/* The loaders of all ranks (shard: every accelerator's, shared: one per
 * rank) and the index among them of this rank's loader for accelerator k. */
static uint64_t all_loaders(const struct lb_train_cfg *c)
{
    return shard_mode(c) ? (uint64_t)c->accelerators * ranks_of(c) : ranks_of(c);
}

static uint64_t loader_index(const struct lb_train_cfg *c, uint32_t k)
{
    return shard_mode(c) ? (uint64_t)rank_of(c) * c->accelerators + k : rank_of(c);
}

/* The checkpoint part accelerator k writes: its loader's index, or -1
 * for the whole checkpoint of a run alone with the shared loader. */
static int ckpt_writer(const struct lb_train_cfg *c, uint32_t k)
{
    return all_loaders(c) > 1 || shard_mode(c) ? (int)loader_index(c, k) : -1;
}

/* ckpt_STEP.dat, or ckpt_STEP_KKKK.dat for the part of accelerator k. */
static int ckpt_path(struct train_run *r, uint64_t step, int k, char *buf, size_t len)
{
    int n = k < 0 ? snprintf(buf, len, "%s/ckpt_%08llu.dat", r->cfg->dir,
                             (unsigned long long)step)
                  : snprintf(buf, len, "%s/ckpt_%08llu_%04d.dat", r->cfg->dir,
                             (unsigned long long)step, k);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}

/* Bytes accelerator k writes per checkpoint: the checkpoint split over
 * the loaders of all ranks (shared loader alone: the whole). */
static uint64_t ckpt_part(const struct lb_train_cfg *c, uint32_t k)
{
    uint64_t n = all_loaders(c), i = loader_index(c, k);
    uint64_t part = c->checkpoint_size / n;
    return i + 1 == n ? c->checkpoint_size - part * i : part;
}

static int ckpt_write(struct train_run *r, const char *path, uint64_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST && lb_file_unlink_ours(path) == 0)
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    int rc = lb_file_mark(fd, path);
    for (uint64_t done = 0; rc == 0 && done < size;) {
        uint64_t n = size - done;
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

/* Writes the checkpoint (part) of step `step` and drops the previous one. */
static void checkpoint(struct train_run *r, struct accel *ac, uint64_t step)
{
    char path[PATH_MAX], old[PATH_MAX];
    int shard = shard_mode(r->cfg), k = ckpt_writer(r->cfg, ac->k);
    uint64_t *last = shard ? &ac->ckpt_last : &r->ckpt_last;
    if (!shard)
        pthread_mutex_lock(&r->ckpt_mu);
    int rc = ckpt_path(r, step, k, path, sizeof path);
    uint64_t t0 = lb_clock_now();
    if (rc >= 0)
        rc = ckpt_write(r, path, ckpt_part(r->cfg, ac->k));
    uint64_t t1 = lb_clock_now();
    if (rc < 0) {
        run_fail(r, rc, NULL, "checkpoint", path);
    } else {
        if (shard)
            pthread_mutex_lock(&r->ckpt_mu);    /* the shared loader holds it */
        lb_hist_record(r->res->checkpoint, t1 - t0);
        if (!shard || ac->k == 0)
            r->res->checkpoints++;
        if (shard)
            pthread_mutex_unlock(&r->ckpt_mu);
        if (*last && ckpt_path(r, *last, k, old, sizeof old) >= 0)
            unlink(old);
        *last = step;
    }
    if (!shard)
        pthread_mutex_unlock(&r->ckpt_mu);
}

/* ---- accelerators ---- */

/* The next step's batch is read (ld->mu held): in order, the batch the
 * steps took last plus one; else any. */
static int batch_there(const struct loader *ld)
{
    if (!ld->window)
        return ld->ready > 0;
    return ld->taken < ld->nbatches && ld->done[ld->taken % ld->window];
}

/* Takes it (ld->mu held): the condition whose reader may now go on. */
static pthread_cond_t *batch_took(struct loader *ld)
{
    if (!ld->window) {
        ld->ready--;
        return &ld->room_cv;
    }
    uint64_t b = ld->taken++;
    ld->done[b % ld->window] = 0;
    return &ld->lane_cv[b % ld->run->cfg->read_threads];    /* batch b + window's */
}

/* Takes a batch for the step whose wait began at *t0; 0 when the epoch
 * has none left (or the run stops).  While it sleeps the readers may
 * take its steps for it (batch_queued): *t0 is then when the last of
 * them ended. */
static int batch_take(struct train_run *r, struct accel *ac, uint64_t *t0)
{
    struct loader *ld = ac->ld;
    pthread_mutex_lock(&ld->mu);
    ac->wait_from = *t0;
    while (!batch_there(ld) && ld->readers_left && !atomic_load(&r->stop)) {
        ld->parked = r->by_readers ? ac : NULL;
        taker_sleep(ld);
        ld->parked = NULL;
    }
    *t0 = ac->wait_from;
    int got = batch_there(ld) && !atomic_load(&r->stop);
    pthread_cond_t *room = got ? batch_took(ld) : NULL;
    pthread_mutex_unlock(&ld->mu);
    if (room)
        pthread_cond_signal(room);      /* after the unlock, as above */
    return got;
}

/* read_threads=0: loads the loader's next batch on the accelerator's
 * thread; 0 when the epoch has none left, the run stops or a read fails. */
static int batch_load(struct train_run *r, struct reader *rd)
{
    uint64_t b = atomic_fetch_add(&rd->ld->next, 1);
    return b < rd->ld->nbatches && !atomic_load(&r->stop) && read_batch(rd, b) == 0;
}

/* The barrier after each step: the last of the members to arrive opens
 * it.  An accelerator out of steps leaves, so the others do not wait for
 * it; the barrier opens on stop too. */
static void barrier_open(struct train_run *r)
{
    rank_sync(r, LB_TRAIN_SYNC_BUSY, 1);  /* the barrier spans every rank */
    r->bar_arrived = 0;
    r->bar_gen++;
    pthread_cond_broadcast(&r->bar_cv);
}

static void barrier_wait(struct train_run *r)
{
    pthread_mutex_lock(&r->bar_mu);
    uint64_t gen = r->bar_gen;
    if (++r->bar_arrived >= r->bar_members)
        barrier_open(r);
    while (gen == r->bar_gen && !atomic_load(&r->stop))
        pthread_cond_wait(&r->bar_cv, &r->bar_mu);
    pthread_mutex_unlock(&r->bar_mu);
}

static void barrier_leave(struct train_run *r)
{
    pthread_mutex_lock(&r->bar_mu);
    r->bar_members--;
    if (r->bar_arrived && r->bar_arrived >= r->bar_members)
        barrier_open(r);
    pthread_mutex_unlock(&r->bar_mu);
}

static void block_open(struct accel *ac, uint64_t now)
{
    memset(&ac->blk, 0, sizeof ac->blk);
    ac->blk.start_ns = now;
    ac->ntail = 0;
}

/* A step of the block: DLIO's proc (load + compute) and compute.  The
 * first exclude_start_steps are out; the others are in until they turn
 * out to be among the last exclude_end_steps of the epoch. */
static void block_step(struct accel *ac, uint64_t proc, uint64_t comp)
{
    const struct lb_train_cfg *c = ac->run->cfg;
    uint32_t xe = c->exclude_end_steps;
    if (ac->blk.steps++ < c->exclude_start_steps) {
        ac->blk.proc_out += proc;
        return;
    }
    ac->blk.compute_in += comp;
    if (xe) {
        uint64_t *slot = &ac->tail[2 * (ac->ntail++ % xe)];
        slot[0] = proc;
        slot[1] = comp;
    }
}

/* Ends the block at `now`: DLIO's AU (compute counted over the block's
 * time less the excluded steps) and throughput ((steps - 2) batches over
 * the same time), weighted by the block's steps into the epoch's. */
static void block_close(struct accel *ac, uint64_t now, int epoch_end)
{
    const struct lb_train_cfg *c = ac->run->cfg;
    struct block *b = &ac->blk;
    uint64_t xe = c->exclude_end_steps, n = ac->ntail < xe ? ac->ntail : xe;
    for (uint64_t i = 0; epoch_end && i < n; i++) {
        b->proc_out += ac->tail[2 * i];
        b->compute_in -= ac->tail[2 * i + 1];
    }
    double t = ((double)(now - b->start_ns) - (double)b->proc_out) / 1e9;
    double au = b->compute_in && t > 0 ? b->compute_in / 1e9 / t : 0;
    double tp = b->steps > 2 && t > 0 ? (double)(b->steps - 2) * c->batch_size / t : 0;
    if (c->valid)                       /* DLIO's compute_metrics_eval: every step
                                           over the whole time */
        tp = now > b->start_ns ? (double)b->steps * c->batch_size / ((now - b->start_ns) / 1e9)
                               : 0;
    ac->au_w += au * (double)b->steps;
    ac->tp_w += tp * (double)b->steps;
    ac->ep_steps += b->steps;
}

/* A step that waited from t0 to t1 and computed until t2. */
static void step_count(struct accel *ac, uint64_t t0, uint64_t t1, uint64_t t2)
{
    lb_hist_record(ac->wait, t1 - t0);
    ac->wait_ns += t1 - t0;
    ac->compute_ns += t2 - t1;
    ac->steps++;
    block_step(ac, t2 - t0, t2 - t1);
}

/* Can the readers take the accelerators' steps?  When a step is
 * bookkeeping only (no compute, nobody to meet at the barrier, no
 * checkpoint, no hook) and the accelerator is the only one taking from
 * its loader, the reader that queues the batch it sleeps for counts the
 * step then and there, under the loader's lock, with the times the
 * accelerator would have taken (the wait ends when the batch is ready):
 * at compute_time 0 a futex wake, a wait and two context switches a
 * batch fewer, the same figures. */
static int steps_by_readers(const struct lb_train_cfg *c)
{
    int no_compute = lb_train_value_zero(&c->compute_ns);
    int alone = c->accelerators == 1 && ranks_of(c) < 2;
    return no_compute && !c->on_step && !c->checkpoint_steps && (!c->barrier || alone) &&
           (shard_mode(c) || c->accelerators == 1);
}

/* A batch is ready (ld->mu held): the step of the accelerator parked for
 * it is taken here, or the batch is queued and the return value goes to
 * taker_wake once the lock is let go. */
static unsigned batch_queued(struct train_run *r, struct loader *ld, uint64_t b)
{
    struct accel *ac = ld->parked;
    int there = batch_there(ld);         /* before this one */
    if (ld->window)
        ld->done[b % ld->window] = 1;
    else
        ld->ready++;
    if (ld->window && (there || !batch_there(ld)))  /* not the one it waits for */
        return 0;
    if (!ac || there || atomic_load(&r->stop))
        return taker_note(ld);
    while (batch_there(ld)) {           /* it, and those read before it */
        pthread_cond_signal(batch_took(ld));    /* a reader waiting for room goes
                                                   on, as after batch_take */
        uint64_t t = lb_clock_now();
        step_count(ac, ac->wait_from, t, t);
        ac->end_ns = ac->wait_from = t;
        ac->ep_step++;
        atomic_fetch_add(&r->steps, 1);     /* as ckpt_due counts them */
    }
    return 0;
}

/* Checkpoint due after this step of the accelerator (shared loader: of
 * all accelerators together)? */
static int ckpt_due(struct train_run *r, struct accel *ac, uint64_t *step)
{
    const struct lb_train_cfg *c = r->cfg;
    uint64_t all = atomic_fetch_add(&r->steps, 1) + 1;
    *step = shard_mode(c) ? ac->steps : all;
    return c->checkpoint_steps && *step % c->checkpoint_steps == 0;
}

static void accel_epoch(struct accel *ac)
{
    struct train_run *r = ac->run;
    const struct lb_train_cfg *c = r->cfg;
    struct reader *rd = loads_itself(c) ? &r->rd[ac->k] : NULL;
    if (rd && reader_start(rd) < 0)
        return;
    for (;;) {
        uint64_t t0 = lb_clock_now(), step;
        if (rd ? !batch_load(r, rd) : !batch_take(r, ac, &t0))
            break;
        uint64_t t1 = lb_clock_now();
        compute(lb_train_value_draw(&c->compute_ns, &ac->rng));
        uint64_t t2 = lb_clock_now();
        step_count(ac, t0, t1, t2);
        if (c->barrier)
            barrier_wait(r);
        ac->end_ns = lb_clock_now();
        if (c->on_step) {
            const uint64_t t[4] = {t0, t1, t2, ac->end_ns};
            c->on_step(c->on_step_arg, ac->k, r->epoch, ac->ep_step, t);
        }
        ac->ep_step++;
        if (ckpt_due(r, ac, &step)) {
            block_close(ac, ac->end_ns, 0);
            checkpoint(r, ac, step);
            block_open(ac, lb_clock_now());
        }
    }
    if (c->barrier)
        barrier_leave(r);
    if (!atomic_load(&r->stop)) {
        block_close(ac, ac->end_ns > ac->blk.start_ns ? ac->end_ns : ac->blk.start_ns, 1);
        r->ep_au[ac->k] = ac->ep_steps ? ac->au_w / (double)ac->ep_steps : 0;
        r->ep_tp[ac->k] = ac->ep_steps ? ac->tp_w / (double)ac->ep_steps : 0;
    }
}

/* An accelerator's jobs: the epochs, and the checkpoints between them. */
static void *accel_main(void *arg)
{
    struct accel *ac = arg;
    uint32_t seen = 0;
    int job;
    prctl(PR_SET_TIMERSLACK, 1UL);      /* sleep close to compute_time */
    while ((job = crew_wait(ac->run, &seen, 1)) != JOB_NONE) {
        if (job != JOB_EPOCH)
            checkpoint(ac->run, ac, ac->steps);
        else
            accel_epoch(ac);
        if (job == JOB_EPOCH && loads_itself(ac->run->cfg))
            reader_cpu_note(&ac->run->rd[ac->k]);   /* the reading on its thread */
        thread_done(ac->run);
    }
    return NULL;
}

/* ---- epochs ---- */

/* Loader g of all_loaders(c) reads the contiguous positions lo .. lo + len - 1
 * of the epoch's order: DLIO's global shards, rank r's accelerator k being
 * loader r * accelerators + k. */
static void loader_slice(const struct lb_train_cfg *c, uint64_t g, uint64_t *lo,
                         uint64_t *len)
{
    uint64_t n = c->files * c->samples_per_file, G = all_loaders(c);
    uint64_t per = (n + G - 1) / G;
    *lo = per * g < n ? per * g : n;
    *len = n - *lo < per ? n - *lo : per;
}

/* Steps of loader g per epoch: whole batches of its slice, at most DLIO's
 * floor(N / batch / loaders) with drop_last; tfrecord with drop_last
 * exactly that many, its files streamed again when they hold fewer. */
static uint64_t loader_steps(const struct lb_train_cfg *c, uint64_t g)
{
    uint64_t n = c->files * c->samples_per_file, bs = c->batch_size, lo, len, steps;
    uint64_t cap = c->total_training_steps;
    loader_slice(c, g, &lo, &len);
    if (c->container == LB_TRAIN_TFRECORD)
        len = tf_files(c, g) * c->samples_per_file;
    if (c->drop_last) {
        uint64_t most = n / bs / all_loaders(c);
        steps = len / bs < most && c->container != LB_TRAIN_TFRECORD ? len / bs : most;
    } else {
        steps = (len + bs - 1) / bs;
    }
    if (!shard_mode(c))
        cap *= c->accelerators;          /* the rank's accelerators together */
    return cap && cap < steps ? cap : steps;
}

uint64_t lb_train_steps(const struct lb_train_cfg *c, uint32_t k)
{
    return loader_steps(c, loader_index(c, k));
}

static void loader_begin(struct train_run *r, struct loader *ld, uint32_t k, uint64_t key)
{
    const struct lb_train_cfg *c = r->cfg;
    loader_slice(c, loader_index(c, k), &ld->lo, &ld->n);
    ld->nbatches = lb_train_steps(c, k);
    lb_perm_init(&ld->perm, ld->n, key);
    atomic_store(&ld->next, 0);
    ld->ready = 0;
    ld->taken = 0;
    if (ld->window)
        memset(ld->done, 0, ld->window);
    ld->readers_left = loader_threads(c);
    ld->nfiles = tf_files(c, loader_index(c, k));
    ld->pos0 = 0;
    for (uint64_t g = 0; c->on_sample && g < loader_index(c, k); g++) {
        uint64_t recs = tf_files(c, g) * c->samples_per_file, used = loader_steps(c, g);
        used *= c->batch_size;
        ld->pos0 += recs > used ? recs : used;  /* the loaders' positions apart */
    }
    atomic_store(&ld->next_file, 0);
    atomic_store(&ld->made, 0);
    ld->scount = 0;
    ld->fill = 0;
    ld->pass = ld->pass_made = 0;
    ld->pass_arrived = 0;
    ld->dry = 0;
    lb_rng_seed(&ld->srng, key ^ (0x94d049bb133111ebull * (k + 1)));
}

static void epoch_begin(struct train_run *r, uint32_t e)
{
    const struct lb_train_cfg *c = r->cfg;
    uint64_t key = c->seed + e, k1 = lb_rng_splitmix64(&key);
    r->epoch = e;
    lb_perm_init(&r->fperm, c->files, k1);
    if (r->res->nepochs == 0)           /* an evaluation's first may follow any epoch */
        r->tf_fperm = r->fperm;
    for (uint32_t i = 0; i < r->nloaders; i++)
        loader_begin(r, &r->ld[i], i, k1);
    r->bar_members = c->accelerators;
    r->bar_arrived = 0;
    for (uint32_t i = 0; i < c->accelerators; i++) {
        struct accel *ac = &r->ac[i];
        ac->au_w = ac->tp_w = 0;
        ac->ep_steps = ac->ep_step = 0;
        r->ep_au[i] = r->ep_tp[i] = 0;
    }
}

/* The epoch's DLIO figures: AU the mean over accelerators (those without
 * a step count as 0, as DLIO's mean over ranks does), throughput the sum. */
static void epoch_end(struct train_run *r, struct lb_train_epoch *ep)
{
    const struct lb_train_cfg *c = r->cfg;
    double au = 0, tp = 0;
    for (uint32_t i = 0; i < c->accelerators; i++) {
        au += r->ep_au[i];
        tp += r->ep_tp[i];
    }
    ep->au = au / c->accelerators;
    ep->dlio_samples_per_s = tp;
}

static int epoch_run(struct train_run *r, uint32_t e)
{
    const struct lb_train_cfg *c = r->cfg;
    uint64_t before = samples_done(r);
    epoch_begin(r, e);
    rank_sync(r, 0, 0);                  /* the ranks begin the epoch together */
    if (r->err || atomic_load(&r->stop))
        return r->err;
    uint64_t t0 = lb_clock_now(), end = t0, total = 0;
    for (uint32_t i = 0; i < r->nloaders; i++)
        total += r->ld[i].nbatches * c->batch_size;
    for (uint32_t i = 0; i < c->accelerators; i++) {
        block_open(&r->ac[i], t0);
        r->ac[i].end_ns = t0;
    }
    crew_give(r, JOB_EPOCH, (loads_itself(c) ? 0 : r->nreaders) + c->accelerators);
    wait_threads(r, c->valid ? "eval" : "train", samples_done, total * c->epochs);
    ranks_settle(r);
    for (uint32_t i = 0; i < c->accelerators; i++)
        end = r->ac[i].end_ns > end ? r->ac[i].end_ns : end;
    if (r->err || atomic_load(&r->stop))
        return r->err;
    struct lb_train_epoch *ep = &r->res->epochs[r->res->nepochs++];
    ep->start_ns = t0;
    ep->time_ns = end - t0;
    ep->samples = samples_done(r) - before;
    epoch_end(r, ep);
    return 0;
}

/* What is wrong with the evaluation's values, or NULL. */
static const char *eval_check(const struct lb_train_cfg *c)
{
    struct lb_train_cfg e;
    char dir[PATH_MAX];
    if (!c->do_eval)
        return NULL;
    if (c->paths)
        return "do_eval needs dir= a directory (the evaluation's files are laid out in "
               "dir/valid)";
    if (!c->eval_files || !c->eval_batch_size)
        return "do_eval needs num_files_eval and batch_size_eval positive";
    if (!lb_train_value_ok(&c->eval_ns))
        return "eval_time: " VALUE_RANGES;
    if (c->eval_files * (unsigned __int128)c->samples_per_file > UINT64_MAX / 2)
        return "num_files_eval: too many samples";
    if (lb_train_eval_cfg(c, &e, dir, sizeof dir) < 0)
        return "dir is too long for dir/valid";
    if (e.container == LB_TRAIN_TFRECORD && shard_mode(&e) && e.files < e.accelerators)
        return "num_files_eval: format=tfrecord shards files: num_files_eval must be at "
               "least accelerators";
    if (e.container == LB_TRAIN_TFRECORD && e.drop_last &&
        tf_files(&e, all_loaders(&e) - 1) * e.samples_per_file < e.batch_size)
        return "num_files_eval: format=tfrecord shards files: every accelerator's files "
               "must hold at least batch_size_eval records";
    if (loader_steps(&e, 0) == 0)
        return "num_files_eval: an evaluation has no step: fewer samples than "
               "batch_size_eval x accelerators (drop_last)";
    return NULL;
}

/* ---- setup and results ---- */

/* Whether the largest sample's file has chunks HDF5 or the writer refuses. */
static int hdf5_chunks_too_many(const struct lb_train_cfg *c)
{
    const struct lb_train_value *v = &c->sample_size;
    uint64_t len = v->dist == LB_TRAIN_UNIFORM ? v->b : v->dist == LB_TRAIN_NORMAL ?
                   v->a + 4 * v->b : v->a, rows, cols;
    uint64_t n = c->num_dset_per_record ? c->num_dset_per_record : 1, spf = c->samples_per_file;
    if (lb_h5_chunks(spf, len / n, c->chunk_size, c->compression == LB_TRAIN_GZIP, &rows,
                     &cols) < 0)
        return 1;
    return rows && n * ((spf + rows - 1) / rows) * ((len / n + cols - 1) / cols) > LB_H5_MAX_CHUNKS;
}

/* Whether some sample's size is not split evenly over the datasets. */
static int hdf5_dsets_split(const struct lb_train_cfg *c)
{
    const struct lb_train_value *v = &c->sample_size;
    return v->dist != LB_TRAIN_FIXED || v->a % c->num_dset_per_record != 0;
}

const char *lb_train_check(const struct lb_train_cfg *c)
{
    const struct lb_train_value *sz = &c->sample_size, *ct = &c->compute_ns;
    if (!c->paths && (!c->dir || !*c->dir))
        return "dir is missing";
    if (!c->files || !c->samples_per_file || !c->batch_size || !c->epochs || !c->accelerators)
        return "files, samples_per_file, batch_size, epochs and accelerators must be positive";
    if (!c->prefetch && !in_order(c) && !loads_itself(c))
        return "prefetch=0 (DLIO's prefetch_size 0: a prefetch factor of 2) is for the PyTorch "
               "loader: loader=\"shard\", not TFRecord";
    if (c->prefetch > LB_TRAIN_PREFETCH_MAX)
        return "prefetch is above 65536 batches";
    if (c->format == LB_TRAIN_ONE_PER_FILE && c->samples_per_file != 1)
        return "one sample per file needs samples_per_file = 1";
    if (c->direct && c->container != LB_TRAIN_RAW && c->container != LB_TRAIN_NPZ)
        return "direct reads need format=raw or npz (DLIO has no O_DIRECT reader for "
               "TFRecord or HDF5)";
    if (c->container == LB_TRAIN_TFRECORD && shard_mode(c) && c->files < c->accelerators)
        return "format=tfrecord shards files: files must be at least accelerators";
    if (c->container == LB_TRAIN_TFRECORD && c->drop_last &&
        tf_files(c, all_loaders(c) - 1) * c->samples_per_file < c->batch_size)
        return "format=tfrecord shards files: every accelerator's files (files / "
               "accelerators of all ranks) must hold at least batch_size records";
    if (c->compression == LB_TRAIN_ZIP && c->container != LB_TRAIN_NPZ)
        return "compression=\"zip\" is for format=npz (numpy.savez_compressed)";
    if (c->compression == LB_TRAIN_GZIP && c->container != LB_TRAIN_HDF5)
        return "compression=\"gzip\" is for format=hdf5 (h5py's compression='gzip')";
    if (c->num_dset_per_record > 1 && c->container != LB_TRAIN_HDF5)
        return "num_dset_per_record is for format=hdf5 (DLIO's records_0 .. records_{N-1})";
    if (c->num_dset_per_record > LB_H5_MAX_DSETS)
        return "num_dset_per_record: at most 7 (with labels, the 8 links of HDF5's compact "
               "group; more make h5py's root group dense, which is not written)";
    if (c->num_dset_per_record > 1 && !c->paths && hdf5_dsets_split(c))
        return "num_dset_per_record must divide sample_size (DLIO splits each record's first "
               "dimension N ways)";
    if (c->container == LB_TRAIN_HDF5 && !c->paths && hdf5_chunks_too_many(c))
        return "format=hdf5: chunk_size makes chunks of 4 GiB or more (HDF5's limit) or "
               "more than 2^24 chunks in a file, which are not written";
    if (c->compression != LB_TRAIN_NO_COMPRESSION && !lb_fmt_have_deflate())
        return c->compression == LB_TRAIN_ZIP ? "compression=\"zip\" needs zlib, and this "
               "build has none" : "compression=\"gzip\" needs zlib, and this build has none";
    if (c->transfer_size && c->transfer_size < 4096)
        return "transfer_size must be at least 4 KiB";
    if (sz->dist > LB_TRAIN_NORMAL)
        return "sample_size is fixed, uniform or normal";
    if (sz->dist == LB_TRAIN_UNIFORM ? sz->a == 0 || sz->a > sz->b : sz->a == 0)
        return "sample_size must be positive (uniform: 0 < min <= max)";
    if (!lb_train_value_ok(ct))
        return "compute_time: " VALUE_RANGES;
    if (!lb_train_value_ok(&c->preprocess_ns))
        return "preprocess_time: " VALUE_RANGES;
    if (c->files * (unsigned __int128)c->samples_per_file > UINT64_MAX / 2)
        return "too many samples";
    if ((uint64_t)c->read_threads * c->accelerators > 1u << 20)
        return "read_threads x accelerators is above 1048576 threads";
    if (c->checkpoint_steps && c->checkpoint_epochs)
        return "checkpoints every N steps or every N epochs, not both";
    if ((c->checkpoint_steps || c->checkpoint_epochs) && !c->checkpoint_size)
        return "checkpoint size must be positive";
    if ((c->checkpoint_steps || c->checkpoint_epochs) && c->readonly)
        return "checkpoints write, and writing is not allowed (--readonly)";
    if (c->nranks > 1 && (c->rank >= c->nranks || !c->sync))
        return "rank out of range, or no exchange between the ranks";
    if (c->checkpoint_steps && c->paths)
        return "checkpoints need dir= a directory (a list of files is read only)";
    uint64_t most = c->files * c->samples_per_file / c->batch_size / all_loaders(c);
    if (shard_mode(c) && c->total_training_steps > most)
        return "total_training_steps is above the steps an epoch has "
               "(samples / batch_size / accelerators of all ranks)";
    if (loader_steps(c, 0) == 0)
        return "an epoch has no step: fewer samples than batch_size x accelerators "
               "(drop_last)";
    return eval_check(c);
}

static int run_alloc(struct train_run *r)
{
    const struct lb_train_cfg *c = r->cfg;
    uint32_t K = c->accelerators, xe = c->exclude_end_steps;
    uint32_t nl = shard_mode(c) ? K : 1;
    r->by_readers = steps_by_readers(c);
    r->ld = calloc(nl, sizeof *r->ld);
    for (uint32_t i = 0; r->ld && i < nl; i++) {
        struct loader *ld = &r->ld[i];
        ld->run = r;
        ld->k = i;
        pthread_mutex_init(&ld->mu, NULL);
        pthread_cond_init(&ld->room_cv, NULL);
        pthread_cond_init(&ld->pass_cv, NULL);
    }
    r->nloaders = r->ld ? nl : 0;
    int buffered = c->container == LB_TRAIN_TFRECORD && c->shuffle == LB_SHUFFLE_SAMPLE &&
                   c->shuffle_size > 1;
    for (uint32_t i = 0; buffered && i < r->nloaders; i++)
        if (!(r->ld[i].sbuf = calloc(c->shuffle_size, sizeof *r->ld[i].sbuf)))
            return -ENOMEM;
    for (uint32_t i = 0; c->on_sample && i < r->nloaders; i++)
        if (!(r->ld[i].batch = calloc(c->batch_size, sizeof *r->ld[i].batch)))
            return -ENOMEM;
    for (uint32_t i = 0; in_order(c) && i < r->nloaders; i++) {
        struct loader *ld = &r->ld[i];
        ld->window = order_window(c);
        ld->done = calloc(ld->window, 1);
        ld->lane_cv = calloc(c->read_threads, sizeof *ld->lane_cv);
        if (!ld->done || !ld->lane_cv)
            return -ENOMEM;
        for (uint32_t j = 0; j < c->read_threads; j++)
            pthread_cond_init(&ld->lane_cv[j], NULL);
    }
    r->nreaders = loads_itself(c) ? K : nl * loader_threads(c);  /* a reader each: its
                                                                    buffer, its counts */
    r->th = calloc((size_t)r->nreaders + K, sizeof *r->th);
    r->nstacks_want = r->nreaders + K;
    r->rd = calloc(r->nreaders, sizeof *r->rd);
    r->ac = calloc(K, sizeof *r->ac);
    r->ep_au = calloc(K, sizeof *r->ep_au);
    r->ep_tp = calloc(K, sizeof *r->ep_tp);
    r->res->epochs = calloc(c->epochs, sizeof *r->res->epochs);
    r->res->evals = calloc(lb_train_evals(c) + 1, sizeof *r->res->evals);
    r->res->reader_cpu = calloc(r->nreaders, sizeof *r->res->reader_cpu);
    int ckpt = c->checkpoint_steps || c->checkpoint_epochs;
    r->ckpt_buf = ckpt ? malloc(CKPT_BUF) : NULL;
    if (!r->th || !r->ld || !r->rd || !r->ac || !r->ep_au || !r->ep_tp || !r->res->epochs ||
        !r->res->evals ||
        !r->res->reader_cpu || (ckpt && !r->ckpt_buf))
        return -ENOMEM;
    if (r->ckpt_buf)
        memset(r->ckpt_buf, 0x5a, CKPT_BUF);
    r->res->nreaders = r->nreaders;
    for (uint32_t i = 0; i < r->nreaders; i++) {
        struct reader *rd = &r->rd[i];
        rd->run = r;
        rd->ld = &r->ld[loads_itself(c) ? (shard_mode(c) ? i : 0) : i / loader_threads(c)];
        rd->lane = i % loader_threads(c);
        rd->want = r->data.max_sample;  /* 0 for a list: as its files come */
        if (c->container != LB_TRAIN_RAW) {     /* zip tails, transfers, chunks */
            uint64_t want = c->transfer_size > CONTAINER_BUF ? c->transfer_size : CONTAINER_BUF;
            rd->want = c->chunk_size > want ? c->chunk_size : want;
            if (c->container == LB_TRAIN_HDF5 && r->data.max_sample > rd->want)
                rd->want = r->data.max_sample;
        }
        lb_rng_seed(&rd->rng, c->seed * 0xbf58476d1ce4e5b9ull + i + 1);
        if (lb_hist_new(&rd->read) < 0)
            return -ENOMEM;
        rd->io.transfer = c->transfer_size;
    }
    for (uint32_t i = 0; i < K; i++) {
        struct accel *ac = &r->ac[i];
        ac->run = r;
        ac->k = i;
        ac->ld = &r->ld[shard_mode(c) ? i : 0];
        lb_rng_seed(&ac->rng, c->seed * 0x9e3779b97f4a7c15ull + i + 1);
        if (lb_hist_new(&ac->wait) < 0 || (xe && !(ac->tail = calloc(2 * (size_t)xe, 8))))
            return -ENOMEM;
    }
    return 0;
}

static void run_release(struct train_run *r)
{
    const struct lb_train_cfg *c = r->cfg;
    for (uint32_t i = 0; r->rd && i < r->nreaders; i++) {
        free(r->rd[i].buf);
        free(r->rd[i].io.zbuf);
        free(r->rd[i].recs);
        lb_hist_free(r->rd[i].read);
    }
    for (uint32_t i = 0; r->ac && i < c->accelerators; i++) {
        lb_hist_free(r->ac[i].wait);
        free(r->ac[i].tail);
    }
    for (uint32_t i = 0; r->ld && i < r->nloaders; i++) {
        free(r->ld[i].sbuf);
        free(r->ld[i].batch);
        free(r->ld[i].done);
        for (uint32_t j = 0; r->ld[i].lane_cv && j < c->read_threads; j++)
            pthread_cond_destroy(&r->ld[i].lane_cv[j]);
        free(r->ld[i].lane_cv);
        pthread_cond_destroy(&r->ld[i].pass_cv);
        pthread_mutex_destroy(&r->ld[i].mu);
        pthread_cond_destroy(&r->ld[i].room_cv);
    }
    free(r->ld);
    free(r->rd);
    free(r->ac);
    free(r->th);
    free(r->ep_au);
    free(r->ep_tp);
    free(r->ckpt_buf);
    if (r->stacks)
        munmap(r->stacks, (size_t)r->nstacks * r->stack_slot);
    lb_dataset_free(&r->data);
}

static void collect(struct train_run *r)
{
    const struct lb_train_cfg *c = r->cfg;
    struct lb_train_result *res = r->res;
    for (uint32_t i = 0; i < r->nreaders; i++) {
        struct reader *rd = &r->rd[i];
        res->samples += atomic_load(&rd->samples);
        res->bytes += rd->bytes;
        res->sample_bytes += rd->own_bytes;
        res->sample_n += rd->own_n;
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
    lb_train_figures(c, res);
}

/* The last checkpoint is scratch: removed at the end of the run. */
static void ckpt_cleanup(struct train_run *r)
{
    char path[PATH_MAX];
    if (r->ckpt_last && ckpt_path(r, r->ckpt_last, ckpt_writer(r->cfg, 0), path,
                                  sizeof path) >= 0)
        unlink(path);
    for (uint32_t i = 0; r->ac && i < r->cfg->accelerators; i++)
        if (r->ac[i].ckpt_last &&
            ckpt_path(r, r->ac[i].ckpt_last, ckpt_writer(r->cfg, i), path, sizeof path) >= 0)
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
    free(res->evals);
    free(res->reader_cpu);
    memset(res, 0, sizeof *res);
}

/* ---- epoch checkpoints ---- */

static int epoch_ckpt_due(const struct lb_train_cfg *c, uint32_t epoch)
{
    uint32_t first = c->checkpoint_after_epoch ? c->checkpoint_after_epoch : 1;
    return c->checkpoint_epochs && epoch >= first &&
           (epoch - first) % c->checkpoint_epochs == 0;
}

static uint64_t nothing_done(struct train_run *r)
{
    (void)r;
    return 0;
}

/* After epoch `epoch` (from 1): every accelerator writes its part at
 * once, on its own thread (the shared loader: one writes the whole). */
static int epoch_checkpoint(struct train_run *r, uint32_t epoch)
{
    const struct lb_train_cfg *c = r->cfg;
    if (!epoch_ckpt_due(c, epoch))
        return 0;
    if (!shard_mode(c)) {
        checkpoint(r, &r->ac[0], atomic_load(&r->steps));
        return r->err;
    }
    crew_give(r, JOB_CKPT, c->accelerators);
    wait_threads(r, "checkpoint", nothing_done, 0);
    return r->err;
}

/* The readers and accelerators, waiting for their first job: made before
 * the first epoch, so that their start is in no epoch's time. */
static int crew_start(struct train_run *r)
{
    const struct lb_train_cfg *c = r->cfg;
    for (uint32_t i = 0; !loads_itself(c) && i < r->nreaders; i++)
        if (spawn(r, reader_main, &r->rd[i], 0) < 0)
            return r->err;
    for (uint32_t i = 0; i < c->accelerators; i++)
        if (spawn(r, accel_main, &r->ac[i], 0) < 0)
            return r->err;
    return 0;
}

static void run_init(struct train_run *r)
{
    pthread_mutex_init(&r->mu, NULL);
    pthread_mutex_init(&r->ckpt_mu, NULL);
    pthread_mutex_init(&r->bar_mu, NULL);
    pthread_cond_init(&r->bar_cv, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&r->done_cv, &ca);
    pthread_condattr_destroy(&ca);
}

static void run_destroy(struct train_run *r)
{
    pthread_cond_destroy(&r->done_cv);
    pthread_cond_destroy(&r->bar_cv);
    pthread_mutex_destroy(&r->bar_mu);
    pthread_mutex_destroy(&r->mu);
    pthread_mutex_destroy(&r->ckpt_mu);
}

static int run_prepare(struct train_run *r)
{
    int rc = lb_dataset_init(&r->data, r->cfg, r->res->err, sizeof r->res->err);
    if (rc < 0)
        return rc;
    if ((rc = run_alloc(r)) < 0)
        snprintf(r->res->err, sizeof r->res->err, "not enough memory");
    return rc;
}

/* The dataset laid out (or checked) and the crew waiting for a job. */
static int run_start(struct train_run *r)
{
    int rc = layout(r);
    return rc < 0 ? rc : crew_start(r);
}

/* ---- the evaluation's run ---- */

/* What the evaluation's run did that the training's result says: its
 * layout, a refusal, a failure, a stop. */
static int eval_pass_on(struct train_run *r, int rc)
{
    struct train_run *v = &r->ev->run;
    struct lb_train_result *res = r->res, *er = v->res;
    res->laid_out_files += er->laid_out_files;
    res->laid_out_bytes += er->laid_out_bytes;
    res->layout_ns += er->layout_ns;
    res->relaid_files += er->relaid_files;
    if (er->relaid[0] && !res->relaid[0])
        snprintf(res->relaid, sizeof res->relaid, "%s", er->relaid);
    er->laid_out_files = er->laid_out_bytes = er->layout_ns = er->relaid_files = 0;
    res->layout_refused |= er->layout_refused;
    if (rc < 0 || v->err) {             /* the training's crew waits: no race */
        rc = rc < 0 ? rc : v->err;
        if (r->err == 0) {
            r->err = rc;
            snprintf(res->err, sizeof res->err, "%s", er->err[0] ? er->err : strerror(-rc));
        }
        run_stop(r);
        return rc;
    }
    if (atomic_load(&v->stop)) {
        res->stopped |= er->stopped;
        run_stop(r);
    }
    return 0;
}

/* The evaluation's run, its dataset's record checked before anything
 * of either dataset is written: a refusal of either writes nothing. */
static int eval_prepare(struct train_run *r)
{
    char what[256];
    if (!r->cfg->do_eval)
        return 0;
    struct eval_run *ev = r->ev = calloc(1, sizeof *ev);
    if (!ev) {
        snprintf(r->res->err, sizeof r->res->err, "not enough memory");
        return -ENOMEM;
    }
    ev->run.cfg = &ev->cfg;
    ev->run.res = &ev->res;
    run_init(&ev->run);
    int rc = result_init(&ev->res);
    if (rc == 0)
        rc = lb_train_eval_cfg(r->cfg, &ev->cfg, ev->dir, sizeof ev->dir);
    if (rc == 0)
        rc = run_prepare(&ev->run);
    if (rc == 0 && !ev->cfg.paths)
        rc = lb_dataset_manifest_check(&ev->run.data, what, sizeof what, ev->res.err,
                                       sizeof ev->res.err);
    ev->res.layout_refused = rc == -ESTALE;
    return eval_pass_on(r, rc);
}

/* The evaluation after training epoch e (from 0): DLIO's start_eval ..
 * end_eval, one epoch of the evaluation's run. */
static int eval_after(struct train_run *r, uint32_t e)
{
    struct train_run *v = &r->ev->run;
    uint64_t steps = 0, bytes = 0;
    for (uint32_t i = 0; i < v->cfg->accelerators; i++)
        steps -= v->ac[i].steps;
    for (uint32_t i = 0; i < v->nreaders; i++)
        bytes -= v->rd[i].bytes;
    uint32_t done = v->res->nepochs;
    int rc = eval_pass_on(r, epoch_run(v, e));
    if (rc < 0 || v->res->nepochs == done)
        return rc;
    for (uint32_t i = 0; i < v->cfg->accelerators; i++)
        steps += v->ac[i].steps;
    for (uint32_t i = 0; i < v->nreaders; i++)
        bytes += v->rd[i].bytes;
    const struct lb_train_epoch *ep = &v->res->epochs[done];
    r->res->evals[r->res->nevals++] = (struct lb_train_eval){
        .epoch = e + 1, .start_ns = ep->start_ns, .time_ns = ep->time_ns,
        .samples = ep->samples, .bytes = bytes, .steps = steps, .au = ep->au,
        .dlio_samples_per_s = ep->dlio_samples_per_s,
    };
    return 0;
}

static void eval_end(struct train_run *r)
{
    struct eval_run *ev = r->ev;
    if (!ev)
        return;
    crew_end(&ev->run);
    run_release(&ev->run);
    run_destroy(&ev->run);
    lb_train_result_free(&ev->res);
    free(ev);
    r->ev = NULL;
}

static int train(struct train_run *r)
{
    const struct lb_train_cfg *c = r->cfg;
    int rc = run_prepare(r);
    if (rc == 0)
        rc = eval_prepare(r);
    if (rc == 0)
        rc = run_start(r);
    if (rc == 0 && r->ev)               /* DLIO generates valid/ after train/ */
        rc = eval_pass_on(r, run_start(&r->ev->run));
    for (uint32_t e = 0; rc == 0 && e < c->epochs && !atomic_load(&r->stop); e++) {
        if ((rc = epoch_run(r, e)) == 0 && !atomic_load(&r->stop))
            rc = epoch_checkpoint(r, e + 1);
        if (rc == 0 && !atomic_load(&r->stop) && lb_train_eval_due(c, e + 1))
            rc = eval_after(r, e);
    }
    crew_end(r);
    eval_end(r);
    return rc < 0 ? rc : 0;
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
    run_init(&r);
    rc = train(&r);
    if (r.rd)
        collect(&r);
    ckpt_cleanup(&r);
    run_release(&r);
    run_destroy(&r);
    return rc;
}
