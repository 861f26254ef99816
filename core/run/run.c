/*
 * The run's life (run.h): resolving engines, preparing files and threads,
 * the start barrier, handing out intervals, stopping, joining, results.
 *
 * The main thread sleeps on one condition variable (monotonic clock) that
 * workers signal when an interval is complete or a worker is done, and
 * wakes at least every 100 ms to merge what workers handed over, watch
 * io_timeout and notice lb_run_interrupt_all.  The run is reference
 * counted (lb_run_unref): lb_run_free drops the caller's reference, each
 * thread its own when it ends, so a thread abandoned after io_timeout never
 * touches freed memory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "base/clock.h"
#include "job/options.h"
#include "job/prio.h"
#include "run/interval.h"
#include "run/layout.h"
#include "run/openfiles.h"
#include "run/plan.h"
#include "run/run_state.h"
#include "run/stats_int.h"
#include "run/worker.h"

#define WAKE_NS 100000000ull           /* the main thread's longest sleep */
#define GRACE_NS 2000000000ull         /* after io_timeout, before abandoning */
#define THREAD_STACK (1u << 20)

static void lb_run_unref(struct lb_run *r);

static const char *job_name(const struct lb_job *j)
{
    return j->name && *j->name ? j->name : "job";
}

/* creation */

static void engine_names(char *buf, size_t len)
{
    size_t n = 0;

    buf[0] = '\0';
    for (const struct lb_engine_ops *const *e = lb_engines; *e && n < len; e++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", (*e)->name);
}

static int resolve_engine(struct lb_run *r, size_t j, char *err, size_t errlen)
{
    const struct lb_job *job = &r->jobs[j];
    const char *name = job->ioengine && *job->ioengine ? job->ioengine : "psync";
    const struct lb_engine_ops *ops = lb_engine_find(name);
    char why[256] = "", names[256];
    int ret;

    if (!ops) {
        engine_names(names, sizeof(names));
        snprintf(err, errlen, "unknown engine '%s' (engines: %s)", name, names);
        return -ENOENT;
    }
    ret = lb_engine_probe(ops, why, sizeof(why));
    if (ret < 0) {
        snprintf(err, errlen, "engine '%s' is not supported here: %s", name,
                 why[0] ? why : strerror(-ret));
        return ret;
    }
    if (strcmp(ops->name, "fault") == 0 && job->fault_engine && *job->fault_engine) {
        const struct lb_engine_ops *inner = lb_engine_find(job->fault_engine);
        if (!inner || inner == ops) {
            engine_names(names, sizeof(names));
            snprintf(err, errlen, "%s fault_engine '%s' (engines: %s)",
                     inner ? "the fault engine cannot wrap itself:" : "unknown",
                     job->fault_engine, names);
            return -ENOENT;
        }
    }
    r->jr[j].eng = ops;
    r->jr[j].flags = lb_engine_flags(ops, job);
    if (lb_job_cmdprio(job) && !(r->jr[j].flags & LB_ENG_IOPRIO)) {
        snprintf(err, errlen, "cmdprio_percentage and cmdprio_bssplit need an engine that "
                 "sets a priority per I/O (libaio, io_uring), not '%s'", name);
        return -EINVAL;
    }
    return 0;
}

static int check_job(const struct lb_job *j, char *err, size_t errlen)
{
    cpu_set_t set;
    int ret = lb_job_check(j, err, errlen);

    if (ret)
        return ret;
    if (j->cpus_allowed && *j->cpus_allowed && lb_cpus_parse(j->cpus_allowed, &set)) {
        snprintf(err, errlen, "bad value '%s' for 'cpus_allowed': expected CPUs like 0-3,8",
                 j->cpus_allowed);
        return -EINVAL;
    }
    if ((j->verify == LB_VERIFY_CRC32C || j->verify == LB_VERIFY_MD5 ||
         j->verify == LB_VERIFY_META) &&
        lb_job_bs_min(j, LB_DDIR_ALL) < LB_VHDR_SIZE) {
        snprintf(err, errlen, "verify=%s needs blocks of at least %u bytes",
                 j->verify == LB_VERIFY_MD5 ? "md5" : "crc32c", LB_VHDR_SIZE);
        return -EINVAL;
    }
    if (j->verify != LB_VERIFY_NONE && j->opsrc) {
        snprintf(err, errlen, "verify does not work with operations from a script");
        return -EINVAL;
    }
    return 0;
}

static int run_alloc(struct lb_run **out, size_t njobs)
{
    struct lb_run *r = calloc(1, sizeof(*r));
    pthread_condattr_t ca;

    *out = r;
    if (!r)
        return -ENOMEM;
    r->jobs = calloc(njobs, sizeof(*r->jobs));
    r->jr = calloc(njobs, sizeof(*r->jr));
    pthread_mutex_init(&r->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&r->cv_main, &ca);
    pthread_cond_init(&r->cv_work, NULL);
    pthread_condattr_destroy(&ca);
    atomic_init(&r->refs, 1);
    atomic_init(&r->laid_out, 0);
    r->intr0 = atomic_load(&lb_interrupt_gen);
    r->wait_k = UINT32_MAX;
    return r->jobs && r->jr ? 0 : -ENOMEM;
}

int lb_run_new(struct lb_run **out, const struct lb_job *jobs, size_t njobs,
               char *err, size_t errlen)
{
    struct lb_run *r = NULL;
    int ret;

    *out = NULL;
    if (!njobs) {
        snprintf(err, errlen, "no job to run");
        return -EINVAL;
    }
    ret = lb_clock_init() ?: run_alloc(&r, njobs);
    for (size_t j = 0; j < njobs && !ret; j++) {
        ret = lb_job_copy(&r->jobs[j], &jobs[j]);
        if (!ret && r->jobs[j].pre_read)
            r->jobs[j].invalidate = false;   /* fio's init.c: it would undo the pre-read */
        if (!ret) {
            r->exitall |= jobs[j].exitall;
            r->exitall_on_error |= jobs[j].exitall_on_error;
            r->njobs++;
        }
    }
    if (ret)
        snprintf(err, errlen, "%s", strerror(-ret));
    for (size_t j = 0; j < njobs && !ret; j++)
        ret = check_job(&r->jobs[j], err, errlen) ?: resolve_engine(r, j, err, errlen);
    if (ret) {
        lb_run_free(r);
        return ret;
    }
    r->t_new = lb_clock_now();
    *out = r;
    return 0;
}

void lb_run_set_trace(struct lb_run *r, lb_run_trace_fn fn, void *arg)
{
    r->trace = fn;
    r->trace_arg = arg;
}

/* preparing */

static void raise_nofile(struct lb_run *r)
{
    uint64_t need = 64;
    struct rlimit rl;

    for (size_t i = 0; i < r->nw; i++)
        need += (r->w[i]->nofiles ? 0 : r->w[i]->nfiles) + 4;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= need)
        return;
    rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || need < rl.rlim_max ? need : rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
}

static void join_all(struct lb_run *r)
{
    for (size_t i = 0; i < r->nstarted; i++)
        if (!r->w[i]->joined) {
            pthread_join(r->w[i]->tid, NULL);
            r->w[i]->joined = true;
        }
}

/* A worker thread: the clone's whole life, then the thread's reference to
 * the run, dropped last and on this thread, so a thread abandoned after
 * io_timeout still finds the run when it ends. */
static void *thread_main(void *arg)
{
    struct lb_worker *w = arg;
    struct lb_run *r = w->run;

    lb_worker_main(w);
    lb_run_unref(r);
    return NULL;
}

/* flow_id and flow: each clone joins its flow with its weight. */
static int flows_setup(struct lb_run *r)
{
    for (size_t i = 0; i < r->nw; i++) {
        struct lb_worker *w = r->w[i];
        const struct lb_job *j = w->job;
        unsigned k = 0;

        if (!j->flow)
            continue;
        while (k < r->nflows && r->flows[k].id != j->flow_id)
            k++;
        if (k == LB_FLOWS_MAX)
            return lb_run_fail(r, -EINVAL, "more than %d flow_id values in one run",
                               LB_FLOWS_MAX);
        if (k == r->nflows) {
            r->flows[k].id = j->flow_id;
            r->flows[k].ios = 1;         /* fio's flow counter starts at 1 */
            r->nflows++;
        }
        r->flows[k].weight += j->flow;
        w->flow = &r->flows[k];
        w->flow_sleep_ns = (j->flow_sleep ? j->flow_sleep : 10) * 1000;
        w->paced = true;
    }
    return 0;
}

static int create_threads(struct lb_run *r)
{
    pthread_attr_t attr;
    int ret = 0;

    ret = flows_setup(r);
    if (ret)
        return ret;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, THREAD_STACK);
    for (size_t i = 0; i < r->nw && !ret; i++) {
        struct lb_worker *w = r->w[i];

        atomic_fetch_add(&r->refs, 1);
        ret = pthread_create(&w->tid, &attr, thread_main, w);
        if (ret) {
            atomic_fetch_sub(&r->refs, 1);
            ret = lb_run_fail(r, -ret, "cannot start thread %u of job '%s': %s", w->clone,
                              job_name(w->job), strerror(ret));
            break;
        }
        w->started = true;
        r->nstarted++;
    }
    pthread_attr_destroy(&attr);
    return ret;
}

/* With r->mu held: the first worker whose setup failed. */
static int setup_failure(struct lb_run *r)
{
    for (size_t i = 0; i < r->nstarted; i++)
        if (r->w[i]->setup_err)
            return lb_run_fail(r, r->w[i]->setup_err, "%s", r->w[i]->setup_msg);
    return 0;
}

static int start_threads(struct lb_run *r)
{
    int ret = create_threads(r);

    pthread_mutex_lock(&r->mu);
    while (!ret && r->nready + r->nfailed < r->nstarted)
        pthread_cond_wait(&r->cv_main, &r->mu);
    if (!ret && r->nfailed)
        ret = setup_failure(r);
    r->phase = ret ? RUN_ABORT : RUN_PREPARED;
    pthread_cond_broadcast(&r->cv_work);
    pthread_mutex_unlock(&r->mu);
    if (ret)
        join_all(r);
    return ret;
}

int lb_run_prepare(struct lb_run *r)
{
    struct lb_plan p;
    int ret;

    if (r->phase != RUN_NEW || r->w)
        return lb_run_fail(r, -EINVAL, "the run was prepared already");
    r->t_prepare = lb_clock_now();
    ret = lb_plan_files(r, &p);
    if (!ret)
        ret = lb_layout_files(r, &p);
    lb_plan_free(r, &p);
    if (ret)
        return ret;
    raise_nofile(r);
    lb_of_plan(r);
    return start_threads(r);
}

uint64_t lb_run_origin_us(const struct lb_run *r)
{
    uint64_t delay = UINT64_MAX;

    for (size_t j = 0; j < r->njobs; j++) {
        uint64_t d = r->jobs[j].startdelay + r->jobs[j].ramp_time;

        delay = d < delay ? d : delay;
    }
    return delay;
}

void lb_run_set_origin_us(struct lb_run *r, uint64_t us)
{
    r->origin_us = us + 1;           /* 0: not set */
}

int lb_run_start(struct lb_run *r)
{
    uint64_t delay = r->origin_us ? r->origin_us - 1 : lb_run_origin_us(r);
    uint64_t iv = UINT64_MAX;

    for (size_t j = 0; j < r->njobs; j++) {
        const struct lb_job *job = &r->jobs[j];
        uint64_t i = job->interval ? job->interval : 1000000;

        iv = i < iv ? i : iv;
    }
    pthread_mutex_lock(&r->mu);
    if (r->phase != RUN_PREPARED) {
        pthread_mutex_unlock(&r->mu);
        return lb_run_fail(r, -EINVAL, "the run is not prepared");
    }
    r->t_release = lb_clock_now();
    r->t0 = r->t_release + delay * 1000;
    r->iv_len = iv * 1000;
    r->phase = RUN_STARTED;
    pthread_cond_broadcast(&r->cv_work);
    pthread_mutex_unlock(&r->mu);
    return 0;
}

/* running */

static void wait_ns(struct lb_run *r, uint64_t ns)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += (time_t)(ns / 1000000000ull);
    ts.tv_nsec += (long)(ns % 1000000000ull);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&r->cv_main, &r->mu, &ts);
}

/* With r->mu held: merges handed-over data, watches timeouts and Ctrl-C. */
static void watch(struct lb_run *r, uint64_t now)
{
    lb_iv_drain(r);
    lb_watch_timeouts(r, now);
    if (r->timed_out && !r->grace_end)
        r->grace_end = now + GRACE_NS;
    if (!r->partial && atomic_load(&lb_interrupt_gen) != r->intr0) {
        r->partial = true;
        lb_run_stop_locked(r, "interrupted");
    }
}

int lb_run_next_interval(struct lb_run *r, const struct lb_interval **iv)
{
    int ret;

    *iv = NULL;
    if (r->phase == RUN_WAITED)
        return 0;
    if (r->phase != RUN_STARTED)
        return -EINVAL;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        uint64_t now = lb_clock_now(), edge, ns = WAKE_NS;

        watch(r, now);
        ret = lb_iv_next(r, now, iv);
        if (ret)
            break;
        edge = r->t0 + (uint64_t)(r->next_out + 1) * r->iv_len;
        if (edge > now && edge - now < ns)
            ns = edge - now;
        wait_ns(r, ns);
    }
    pthread_mutex_unlock(&r->mu);
    return ret == 1 ? 1 : ret == 2 ? 0 : ret;
}

/* joining and results */

/* With r->mu held: waits until every worker is done, or until the grace
 * after an io_timeout has passed. */
static void wait_done(struct lb_run *r)
{
    for (;;) {
        uint64_t now = lb_clock_now();

        watch(r, now);
        if (lb_run_over(r, now))
            break;
        wait_ns(r, WAKE_NS);
    }
}

static void join_or_abandon(struct lb_run *r)
{
    for (size_t i = 0; i < r->nstarted; i++) {
        struct lb_worker *w = r->w[i];
        bool done;

        pthread_mutex_lock(&r->mu);
        done = w->done;
        pthread_mutex_unlock(&r->mu);
        if (!done) {
            pthread_detach(w->tid);
            w->abandoned = true;
        } else if (r->timed_out) {
            struct timespec ts;

            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_sec += 2;
            if (pthread_timedjoin_np(w->tid, NULL, &ts))
                pthread_detach(w->tid);
        } else {
            pthread_join(w->tid, NULL);
        }
        w->joined = true;
    }
}

static struct lb_stats *clone_result(struct lb_worker *w)
{
    struct lb_stats *s = &w->st;

    if (w->abandoned || !w->started) {
        s = &w->st_lost;
        lb_stats_init(s);
        s->clones = 1;
    }
    lb_err_merge(&s->err, &w->tmo);
    return s;
}

static int build_results(struct lb_run *r)
{
    int ret = lb_stats_init(&r->total);

    for (size_t j = 0; j < r->njobs; j++) {
        struct lb_jobrun *jr = &r->jr[j];

        ret = lb_stats_init(&jr->stats) ?: ret;
        for (unsigned c = 0; c < jr->nclones && jr->first + c < r->nw; c++)
            ret = lb_stats_merge(&jr->stats, clone_result(r->w[jr->first + c])) ?: ret;
        ret = lb_stats_merge(&r->total, &jr->stats) ?: ret;
    }
    return ret;
}

/* fio's unlink: a job's files go once the run is over, luabench's own
 * only (a file it did not create is kept, and the end note says so). */
static void unlink_files(struct lb_run *r)
{
    for (size_t i = 0; i < r->nw; i++) {
        const struct lb_worker *w = r->w[i];

        if (!w->job->unlink || w->nofiles || w->job->readonly)
            continue;
        for (unsigned f = 0; f < w->nfiles; f++)
            if (lb_file_unlink_ours(w->files[f].path) == -EPERM && !r->end_note[0])
                snprintf(r->end_note, sizeof(r->end_note), "unlink: %s was kept: "
                         "luabench did not create it", w->files[f].path);
    }
}

int lb_run_wait(struct lb_run *r)
{
    int ret;

    if (r->phase == RUN_WAITED)
        return 0;
    if (r->phase == RUN_PREPARED) {
        lb_run_stop(r, NULL);
        lb_run_start(r);
    }
    if (r->phase != RUN_STARTED)
        return -EINVAL;
    pthread_mutex_lock(&r->mu);
    wait_done(r);
    pthread_mutex_unlock(&r->mu);
    join_or_abandon(r);
    pthread_mutex_lock(&r->mu);
    lb_iv_drain(r);
    pthread_mutex_unlock(&r->mu);
    r->t_end = lb_clock_now();
    ret = build_results(r);
    unlink_files(r);
    r->phase = RUN_WAITED;
    return r->op_err ? -r->op_err : ret;
}

/* freeing */

static void run_destroy(struct lb_run *r)
{
    for (size_t i = 0; i < r->nw; i++)
        lb_worker_free(r->w[i]);
    free(r->w);
    for (size_t j = 0; j < r->njobs; j++) {
        lb_stats_release(&r->jr[j].stats);
        lb_job_free(&r->jobs[j]);
    }
    free(r->jr);
    free(r->jobs);
    lb_iv_free_all(r);
    lb_stats_release(&r->total);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv_main);
    pthread_cond_destroy(&r->cv_work);
    free(r);
}

static void lb_run_unref(struct lb_run *r)
{
    if (atomic_fetch_sub(&r->refs, 1) == 1)
        run_destroy(r);
}

void lb_run_free(struct lb_run *r)
{
    if (!r)
        return;
    if (r->phase == RUN_PREPARED || r->phase == RUN_STARTED) {
        lb_run_stop(r, NULL);
        lb_run_wait(r);
    }
    lb_run_unref(r);
}

/* accessors */

const char *lb_run_error(const struct lb_run *r)
{
    return r->err;
}

const char *lb_run_note(const struct lb_run *r)
{
    return r->note[0] ? r->note : NULL;
}

const char *lb_run_end_note(const struct lb_run *r)
{
    return r->end_note[0] ? r->end_note : NULL;
}

const char *lb_run_stopped_by(const struct lb_run *r)
{
    int kind = __atomic_load_n(&r->stop_kind, __ATOMIC_SEQ_CST);

    return kind == 1 ? r->stop_reason : kind == 2 ? "stopped" : NULL;
}

int lb_run_partial(const struct lb_run *r)
{
    return r->partial;
}

size_t lb_run_njobs(const struct lb_run *r)
{
    return r->njobs;
}

const struct lb_job *lb_run_job(const struct lb_run *r, size_t j)
{
    return j < r->njobs ? &r->jobs[j] : NULL;
}

const struct lb_stats *lb_run_job_stats(const struct lb_run *r, size_t j)
{
    return r->phase == RUN_WAITED && j < r->njobs ? &r->jr[j].stats : NULL;
}

const struct lb_stats *lb_run_clone_stats(const struct lb_run *r, size_t j, size_t c)
{
    const struct lb_worker *w;

    if (r->phase != RUN_WAITED || j >= r->njobs || c >= r->jr[j].nclones)
        return NULL;
    w = r->w[r->jr[j].first + c];
    return w->abandoned || !w->started ? &w->st_lost : &w->st;
}

const struct lb_stats *lb_run_total(const struct lb_run *r)
{
    return r->phase == RUN_WAITED ? &r->total : NULL;
}

size_t lb_run_nintervals(const struct lb_run *r)
{
    return r->niv;
}

const struct lb_interval *lb_run_interval(const struct lb_run *r, size_t i)
{
    return i < r->niv ? r->iv[i] : NULL;
}

uint64_t lb_run_elapsed_ns(const struct lb_run *r)
{
    uint64_t from = r->t_prepare ? r->t_prepare : r->t_new;
    uint64_t to = r->t_end ? r->t_end : lb_clock_now();

    return to > from ? to - from : 0;
}

uint64_t lb_run_laid_out(const struct lb_run *r)
{
    return atomic_load(&((struct lb_run *)r)->laid_out);
}
