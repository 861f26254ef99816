/*
 * A worker thread: one clone of one job, from setup to results.
 *
 * Setup (before the start barrier): CPU affinity, a private descriptor
 * table (unshare(CLONE_FILES), so fd lookups in the I/O syscalls touch no
 * table shared with other threads, as fio's processes enjoy; skipped if the
 * kernel refuses), opening its files, I/O slots with aligned buffers full
 * of pseudo-random bytes, the engine.  It then reports ready and waits for
 * lb_run_start.  After: startdelay, ramp, the measured loop (loop.c),
 * end_fsync, final statistics, teardown.  The worker's results stay in
 * struct lb_worker for lb_run_wait; everything else is freed at teardown.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "base/clock.h"
#include "base/files.h"
#include "job/prio.h"
#include "run/gen.h"
#include "run/interval.h"
#include "run/loop.h"
#include "run/openfiles.h"
#include "run/run_int.h"
#include "run/run_state.h"
#include "run/stats_int.h"
#include "run/worker.h"

static int fail(struct lb_worker *w, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct lb_worker *w, int err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(w->setup_msg, sizeof(w->setup_msg), fmt, ap);
    va_end(ap);
    return err;
}

/* setup */

static unsigned dirs_of(const struct lb_worker *w)
{
    const struct lb_job *j = w->job;
    unsigned m;

    if (w->opsrc)
        return LB_DDIR_ALL;
    m = lb_rw_dirs(j->rw);
    if (j->verify != LB_VERIFY_NONE)
        m |= 1u << LB_READ;
    return m;
}

/* cpus_allowed, and with cpus_allowed_policy=split the one CPU of the set
 * that is the worker's by its number in the run (fio's thread_number),
 * wrapping around the set; nice, as fio's, on the thread. */
static int set_affinity(struct lb_worker *w)
{
    cpu_set_t set;

    if (w->job->nice && setpriority(PRIO_PROCESS, (id_t)gettid(), w->job->nice) < 0)
        return fail(w, -errno, "cannot set nice=%d: %s", w->job->nice, strerror(errno));
    if (!w->job->cpus_allowed || !*w->job->cpus_allowed)
        return 0;
    if (lb_cpus_parse(w->job->cpus_allowed, &set))
        return fail(w, -EINVAL, "bad cpus_allowed '%s'", w->job->cpus_allowed);
    if (w->job->cpus_allowed_policy == LB_CPUS_SPLIT) {
        int n = CPU_COUNT(&set), k = (int)(w->id % (unsigned)n), cpu = -1;

        while (k >= 0)
            if (CPU_ISSET(++cpu, &set))
                k--;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
    }
    if (sched_setaffinity(0, sizeof(set), &set) < 0)
        return fail(w, -errno, "cannot set cpus_allowed=%s: %s", w->job->cpus_allowed,
                    strerror(errno));
    return 0;
}

/* fio's prio/prioclass: the thread's own I/O priority (ioprio_set on
 * this thread, which the kernel keeps per thread). */
static int set_ioprio(struct lb_worker *w)
{
    const struct lb_job *j = w->job;

    w->ioprio = (uint16_t)lb_job_ioprio(j);
    w->prio_stats = lb_job_cmdprio(j) || j->ioprio_set;
    if (j->ioprio_set && syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, 0,
                                 (int)w->ioprio) < 0)
        return fail(w, -errno, "cannot set prioclass=%u prio=%u: %s", j->ioprio_class,
                    j->ioprio_level, strerror(errno));
    return 0;
}

static int check_aligned(struct lb_worker *w, const char *what, uint64_t v,
                         unsigned align, const char *path)
{
    if (v % align == 0)
        return 0;
    return fail(w, -EINVAL, "direct=1: %s %llu is not a multiple of the logical block "
                "size of %s (%u bytes)", what, (unsigned long long)v, path, align);
}

static int direct_check(struct lb_worker *w, const struct lb_file *f, int fd)
{
    struct stat st;
    unsigned a;
    int ret = 0;

    if (fstat(fd, &st) < 0)
        return fail(w, -errno, "cannot stat %s: %s", f->path, strerror(errno));
    a = lb_file_direct_align(fd, &st);
    for (unsigned d = 0; d < LB_DDIR_N && !ret; d++) {
        if (!(w->dirs & (1u << d)))
            continue;
        ret = check_aligned(w, "bs", w->bs_lo[d], a, f->path) ?:
              check_aligned(w, "bs", w->bs_hi[d], a, f->path);
        for (unsigned i = 0; i < w->nbsw[d] && !ret; i++)
            ret = check_aligned(w, "bs", w->bsw[d][i].bs, a, f->path);
    }
    if (!ret)
        ret = check_aligned(w, "offset", f->file_offset, a, f->path);
    if (!ret && w->gen.random)
        ret = check_aligned(w, "blockalign", w->gen.align, a, f->path);
    return ret;
}

static int open_files(struct lb_worker *w)
{
    const struct lb_job *j = w->job;

    if (w->nofiles)
        return 0;
    if (w->open_max)
        return lb_of_setup(w);           /* opened at first use */
    for (unsigned i = 0; i < w->nfiles; i++) {
        struct lb_file *f = &w->files[i];
        int fd = lb_file_open(f->path, &f->id, w->writes, lb_job_oflags(j), w->setup_msg,
                              sizeof(w->setup_msg));
        int ret;

        if (fd < 0)
            return fd;
        f->fd = fd;
        ret = j->direct ? direct_check(w, f, fd) : 0;
        if (!ret)
            ret = lb_of_write_hint(w, f, fd, w->setup_msg, sizeof(w->setup_msg));
        if (ret)
            return ret;
        lb_of_advise(w, f, fd, true);
    }
    return 0;
}

/* fio's pre_read (filesetup.c pre_read_file): each file's region read
 * through its descriptor, in the largest read size, before the start and
 * outside the figures; a character device is skipped, a short read is
 * EIO.  A file opened lazily is opened for it and closed again. */
static int pre_read_one(struct lb_worker *w, struct lb_file *f, int fd)
{
    uint64_t bs = lb_job_bs_max(w->job, 1u << LB_READ), left = f->size, off = f->file_offset;
    struct stat st;

    if (bs > w->buf_len || bs == 0)
        bs = w->buf_len;
    if (fstat(fd, &st) == 0 && S_ISCHR(st.st_mode))
        return 0;
    while (left && !lb_worker_stopping(w)) {
        size_t n = left < bs ? (size_t)left : (size_t)bs;
        ssize_t r = pread(fd, w->bufs, n, (off_t)off);

        if (r != (ssize_t)n)
            return fail(w, -EIO, "pre_read of %s: %s at offset %llu", f->path,
                        r < 0 ? strerror(errno) : "short read", (unsigned long long)off);
        left -= n;
        off += n;
    }
    return 0;
}

static int pre_read(struct lb_worker *w)
{
    const struct lb_job *j = w->job;
    int ret = 0;

    if (!j->pre_read || w->nofiles)
        return 0;
    for (unsigned i = 0; i < w->nfiles && !ret; i++) {
        struct lb_file *f = &w->files[i];
        int fd = f->fd;

        if (fd < 0 && (fd = lb_file_open(f->path, &f->id, false, lb_job_oflags(j),
                                         w->setup_msg, sizeof(w->setup_msg))) < 0)
            return fd;
        ret = pre_read_one(w, f, fd);
        if (fd != f->fd)
            close(fd);
    }
    return ret;
}

/* One I/O slot's buffer: the largest block, in whole pages. */
static size_t buf_len_of(const struct lb_worker *w)
{
    size_t len = lb_job_bs_max(w->job, LB_DDIR_ALL);

    return (len + 4095) & ~(size_t)4095;
}

static int alloc_slots(struct lb_worker *w)
{
    const struct lb_job *j = w->job;
    unsigned depth = w->sync ? 1 : (j->iodepth ? j->iodepth : 1);
    char msg[200];

    w->depth = depth;
    w->buf_len = buf_len_of(w);
    if (posix_memalign(&w->bufs, 4096, depth * w->buf_len)) {
        w->bufs = NULL;
        return fail(w, -ENOMEM, "cannot allocate %u buffers of %zu bytes", depth, w->buf_len);
    }
    if (!(w->fill = malloc(sizeof(*w->fill))))
        return fail(w, -ENOMEM, "out of memory");
    if (lb_bufs_setup(w->fill, j, w->vseed, w->dirs & 1u << LB_READ, w->verify_writes,
                      msg, sizeof(msg)))
        return fail(w, -EINVAL, "job '%s': buffer_pattern: %s", j->name, msg);
    for (unsigned i = 0; i < depth; i++)
        lb_bufs_fill(w->fill, (char *)w->bufs + i * w->buf_len, w->buf_len);
    w->gen.wfill = w->fill->per_write;
    w->ios = calloc(depth, sizeof(*w->ios));
    w->evs = calloc(depth, sizeof(*w->evs));
    w->freeq = calloc(depth, sizeof(*w->freeq));
    w->queued = calloc(depth, sizeof(*w->queued));
    w->busy = calloc(depth, 1);
    if (!w->ios || !w->evs || !w->freeq || !w->queued || !w->busy)
        return fail(w, -ENOMEM, "out of memory");
    for (unsigned i = 0; i < depth; i++) {
        w->ios[i].buf = (char *)w->bufs + i * w->buf_len;
        w->ios[i].buf_index = (int)i;
        w->ios[i].ioprio = w->ioprio;    /* a cmdprio engine sets each I/O's */
        w->freeq[i] = &w->ios[depth - 1 - i];
    }
    w->nfree = depth;
    return 0;
}

static int alloc_stats(struct lb_worker *w)
{
    for (unsigned d = 0; d < LB_DDIR_N; d++) {
        struct lb_dir_stats *ds = &w->st.dir[d];

        if (!(w->dirs & (1u << d)))
            continue;
        if (lb_hist_new(&w->iv_clat[d]) || lb_hist_new(&ds->clat) ||
            (!w->sync && (lb_hist_new(&ds->slat) || lb_hist_new(&ds->lat) ||
                          lb_hist_new(&w->iv_lat[d]))) ||
            (w->rate_bps[d] && (lb_hist_new(&ds->sched) || lb_hist_new(&w->iv_sched[d]))))
            return fail(w, -ENOMEM, "out of memory");
        if (w->prio_stats) {      /* fio's order: the clone's own first */
            unsigned prios[LB_IOPRIO_SLOTS], n = lb_job_prios(w->job, d, prios);

            for (unsigned i = 0; i < n; i++)
                if (lb_stats_prio_add(ds, prios[i]))
                    return fail(w, -ENOMEM, "out of memory");
        }
    }
    return 0;
}

static void pacing_setup(struct lb_worker *w)
{
    const struct lb_job *j = w->job;

    for (unsigned d = 0; d < LB_DDIR_N; d++) {
        uint64_t bs = lb_job_bs_min(j, 1u << d), iops;

        bs = bs && bs != UINT32_MAX ? bs : 4096;
        /* fio's __setup_rate: rate, else rate_iops (never both), which counts
         * bytes at the smallest block size; poisson's mean gap is in
         * whole microseconds, as fio's usec_for_io has it */
        w->rate_bps[d] = j->rate[d] ? j->rate[d] : j->rate_iops[d] * bs;
        iops = w->rate_bps[d] / bs;
        w->mean_gap_us[d] = 1000000 / (iops ? iops : 1);
        w->rated |= w->rate_bps[d] != 0;
    }
    w->paced |= w->rated;
    w->poisson = j->rate_process == LB_RATE_POISSON;
    w->think_ns = j->thinktime * 1000;
    w->think_every = j->thinktime_blocks ? j->thinktime_blocks : 1;
    w->paced |= w->think_ns != 0;
    if (w->writes && (j->fsync || j->fdatasync)) {
        w->sync_every = j->fsync ? j->fsync : j->fdatasync;
        w->sync_op = j->fsync ? LB_SYNC_OP : LB_DATASYNC_OP;
    }
}

static void verify_setup(struct lb_worker *w)
{
    const struct lb_job *j = w->job;
    bool v = j->verify != LB_VERIFY_NONE && !w->opsrc;

    lb_verify_cfg_init(&w->vcfg, j->verify, j->verify_pattern);
    w->verify_writes = v && lb_job_writes(j);
    w->verify_phase = w->verify_writes && j->do_verify;
    w->backlog = w->verify_phase ? j->verify_backlog : 0;
    w->vchunk = j->verify_interval > UINT32_MAX ? 0 : (uint32_t)j->verify_interval;
    w->check_reads = v && !w->verify_writes;
}

static int engine_start(struct lb_worker *w)
{
    const struct lb_job *j = w->job;
    struct lb_engine_cfg *c = &w->cfg;
    int ret;

    c->job = lb_of_engine_job(w);
    c->depth = w->depth;
    c->direct = j->direct;
    c->files = w->files;
    c->nfiles = w->nfiles;
    c->bufs = w->bufs;
    c->buf_len = w->buf_len;
    c->clone = w->clone;
    c->busy_clones = j->numjobs ? j->numjobs : 1;
    c->why = w->why;
    c->why_len = sizeof(w->why);
    c->stop = &w->run->stop;
    w->nocommit = lb_engine_flags(w->eng, j) & LB_ENG_NOCOMMIT;
    ret = w->eng->init(c, &w->priv);
    if (ret < 0)
        return fail(w, ret, "cannot start engine '%s' for job '%s': %s", w->eng->name,
                    j->name, w->why[0] ? w->why : strerror(-ret));
    w->engine_up = true;
    for (unsigned i = 0; i < w->nfiles && w->eng->open_file && !w->nofiles; i++) {
        if (w->files[i].fd < 0)
            continue;                    /* opened at first use */
        ret = w->eng->open_file(w->priv, &w->files[i]);
        if (ret < 0)
            return fail(w, ret, "engine '%s' cannot use %s: %s", w->eng->name,
                        w->files[i].path, strerror(-ret));
    }
    return 0;
}

static int opsrc_start(struct lb_worker *w)
{
    struct lb_opsrc_env env = {
        .job = w->job, .clone = w->clone, .files = w->files, .nfiles = w->nfiles,
        .max_len = w->buf_len, .seed = w->vseed,
    };
    char msg[200] = "";
    int ret;

    if (!w->opsrc->start)
        return 0;
    ret = w->opsrc->start(w->opstate, &env, msg, sizeof(msg));
    if (ret < 0)
        return fail(w, ret, "job '%s': %s", w->job->name, msg[0] ? msg : strerror(-ret));
    return 0;
}

static int opsrc_open(struct lb_worker *w)
{
    int ret;

    if (!w->opsrc)
        return 0;
    w->ops = calloc(LB_OPBATCH, sizeof(*w->ops));
    if (!w->ops)
        return fail(w, -ENOMEM, "out of memory");
    ret = w->opsrc->open(w->job->opsrc_arg, w->clone, &w->opstate);
    if (ret < 0) {
        w->opstate = NULL;
        return fail(w, ret, "op source for clone %u of job '%s': %s", w->clone,
                    w->job->name, strerror(-ret));
    }
    return opsrc_start(w);
}

static int alloc_gen(struct lb_worker *w)
{
    size_t n = w->nfiles ? w->nfiles : 1;
    int ret;

    w->wf = calloc(n, sizeof(*w->wf));
    w->wf_snap = calloc(n, sizeof(*w->wf));
    w->wf_tmp = calloc(n, sizeof(*w->wf));
    w->dist = calloc(n, sizeof(*w->dist));
    if (!w->wf || !w->wf_snap || !w->wf_tmp || !w->dist)
        return fail(w, -ENOMEM, "out of memory");
    ret = lb_gen_setup(w);
    if (ret == -ENOMEM)
        return fail(w, ret, "out of memory for the random map of job '%s'", w->job->name);
    if (ret)
        return fail(w, -EINVAL, "bad random_distribution parameter %g for job '%s'",
                    w->job->random_param, w->job->name);
    return 0;
}

/* A descriptor table of the thread's own.  Not under ThreadSanitizer,
 * which tracks descriptors by number process-wide and would take fd 3 of
 * two threads for one file. */
static int private_fds(void)
{
#if !defined(__SANITIZE_THREAD__)
    unshare(CLONE_FILES);
#endif
    return 0;
}

static int worker_setup(struct lb_worker *w)
{
    w->opsrc = w->job->opsrc;
    w->dirs = dirs_of(w);
    w->tmo_ns = w->job->io_timeout * 1000;
    for (int d = 0; d < LB_DDIR_N; d++)
        w->max_lat_ns[d] = w->job->max_latency[d] * 1000;
    w->stopp = &w->run->stop;
    w->intr0 = w->run->intr0;
    w->trace = w->run->trace;
    w->trace_arg = w->run->trace_arg;
    verify_setup(w);
    pacing_setup(w);
    return set_affinity(w) ?: set_ioprio(w) ?: private_fds() ?: alloc_gen(w) ?:
           open_files(w) ?: alloc_slots(w) ?: pre_read(w) ?: alloc_stats(w) ?:
           engine_start(w) ?: opsrc_open(w);
}

/* results */

static uint64_t tv_ns(struct timeval tv)
{
    return (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
}

static void cpu_usage(struct lb_worker *w)
{
    struct rusage ru;

    if (getrusage(RUSAGE_THREAD, &ru) < 0)
        return;
    w->st.usr_ns = tv_ns(ru.ru_utime) - tv_ns(w->ru0.ru_utime);
    w->st.sys_ns = tv_ns(ru.ru_stime) - tv_ns(w->ru0.ru_stime);
    w->st.ctx = (uint64_t)(ru.ru_nvcsw - w->ru0.ru_nvcsw + ru.ru_nivcsw - w->ru0.ru_nivcsw);
    w->st.majf = (uint64_t)(ru.ru_majflt - w->ru0.ru_majflt);
    w->st.minf = (uint64_t)(ru.ru_minflt - w->ru0.ru_minflt);
}

static uint64_t hist_mem(const struct lb_hist *h)
{
    return h ? lb_hist_mem(h) : 0;
}

static uint64_t mem_of(const struct lb_worker *w)
{
    uint64_t m = sizeof(*w) + (uint64_t)w->depth * (w->buf_len + sizeof(*w->ios) + 3 * sizeof(void *) + 1);

    m += w->nfiles * (sizeof(*w->files) + 3 * sizeof(*w->wf) + sizeof(*w->dist)) + lb_gen_mem(w);
    for (int d = 0; d < LB_DDIR_N; d++) {
        m += hist_mem(w->iv_clat[d]) + hist_mem(w->iv_lat[d]) + hist_mem(w->st.dir[d].clat) +
             hist_mem(w->st.dir[d].slat) + hist_mem(w->st.dir[d].lat) +
             hist_mem(w->st.dir[d].sched) + hist_mem(w->iv_sched[d]);
    }
    return m;
}

static void stats_finish(struct lb_worker *w)
{
    struct lb_stats *s = &w->st;

    for (int d = 0; d < LB_DDIR_N; d++) {
        struct lb_dir_stats *ds = &s->dir[d];

        if (w->sync && ds->clat && (ds->lat || lb_hist_new(&ds->lat) == 0))
            lb_hist_add(ds->lat, ds->clat);
        if (w->seen_max[d] && (ds->ios || ds->errors)) {
            ds->bs_min = w->seen_min[d];
            ds->bs_max = w->seen_max[d];
        }
        if (w->sync) {           /* one I/O per submission and per reap */
            s->iodepth_level[0] += ds->ios;
            s->iodepth_submit[1] += ds->ios;
            s->iodepth_complete[1] += ds->ios;
        }
    }
    s->mem_bytes = mem_of(w);
    lb_stats_fill(s);
    s->clones = 1;
}

static void worker_finish(struct lb_worker *w)
{
    uint64_t t = lb_clock_now();

    w->t_end = t;
    if (w->measuring) {
        cpu_usage(w);
        w->st.runtime_ns = t - w->t_measure;
        lb_iv_publish(w, t, true);
    }
    stats_finish(w);
    lb_worker_done(w);
}

static void worker_run(struct lb_worker *w)
{
    const struct lb_job *j = w->job;
    struct lb_run *r = w->run;
    uint64_t start = r->t_release + j->startdelay * 1000;
    int end;

    w->t0 = r->t0;
    w->iv_len = r->iv_len;
    w->ramp_end = start + j->ramp_time * 1000;
    lb_iv_skip_to(w, (uint32_t)(w->ramp_end > w->t0 ? (w->ramp_end - w->t0) / w->iv_len : 0));
    if (!j->startdelay || !lb_pause_until(w, start)) {
        if (j->ramp_time) {
            lb_worker_flags(w);
            w->next_event = w->ramp_end;
        } else {
            /* every clone's clock starts at the release, not when the
             * scheduler first runs it: with more clones than cores a late
             * clone must not stretch the run */
            lb_measure_begin(w, start);
        }
        end = j->create_only ? END_DONE : lb_worker_io(w);   /* create_only: files only */
        if (end == END_ERROR && r->exitall_on_error)
            lb_run_stop(r, "exitall_on_error");
        else if (end != END_STOP && r->exitall)
            lb_run_stop(r, j->exit_what == LB_EXIT_ALL ? LB_EXITALL_ALL : "exitall");
        if (w->flow) {                   /* the others share the flow now */
            atomic_fetch_sub(&w->flow->weight, j->flow);
            atomic_fetch_sub(&w->flow->ios, w->flow_ios);
        }
        if (j->end_fsync && w->writes && (end == END_DONE || end == END_RUNTIME)) {
            w->sync_uncounted = true;    /* fio's end_fsync is outside the I/O */
            lb_sync_files(w, NULL, LB_SYNC_OP);
            w->sync_uncounted = false;
        }
    }
    worker_finish(w);
}

/* teardown */

static void worker_teardown(struct lb_worker *w)
{
    if (w->opstate)
        w->opsrc->close(w->opstate);
    w->opstate = NULL;
    if (w->engine_up) {
        for (unsigned i = 0; i < w->nfiles && w->eng->close_file; i++)
            if (w->files[i].fd >= 0)
                w->eng->close_file(w->priv, &w->files[i]);
        w->eng->cleanup(w->priv);
        w->engine_up = false;
    }
    for (unsigned i = 0; i < w->nfiles; i++) {
        if (w->files[i].fd >= 0) {
            lb_of_close_sync(w, &w->files[i]);
            close(w->files[i].fd);
        }
        w->files[i].fd = -1;
    }
    lb_of_free(w->of);
    w->of = NULL;
    free(w->bufs);
    free(w->fill);
    free(w->ios);
    free(w->evs);
    free(w->freeq);
    free(w->queued);
    free(w->busy);
    free(w->ops);
    free(w->wf);
    free(w->wf_snap);
    free(w->wf_tmp);
    free(w->dist);
    lb_gen_free(w);
    w->bufs = w->ios = NULL;
    w->fill = NULL;
    w->evs = w->freeq = w->queued = NULL;
    w->busy = NULL;
    w->ops = NULL;
    w->wf = w->wf_snap = w->wf_tmp = NULL;
    w->dist = NULL;
}

void lb_worker_main(struct lb_worker *w)
{
    struct lb_run *r = w->run;
    int ret = worker_setup(w);
    bool go;

    pthread_mutex_lock(&r->mu);
    w->setup_err = ret;
    w->ready = true;
    if (ret)
        r->nfailed++;
    else
        r->nready++;
    pthread_cond_broadcast(&r->cv_main);
    while (r->phase == RUN_NEW || r->phase == RUN_PREPARED)
        pthread_cond_wait(&r->cv_work, &r->mu);
    go = !ret && r->phase == RUN_STARTED;
    pthread_mutex_unlock(&r->mu);
    if (go)
        worker_run(w);
    worker_teardown(w);
}

void lb_worker_free(struct lb_worker *w)
{
    if (!w)
        return;
    worker_teardown(w);
    for (unsigned i = 0; i < w->nfiles; i++)
        free(w->files[i].path);
    free(w->files);
    for (int d = 0; d < LB_DDIR_N; d++) {
        lb_hist_free(w->iv_clat[d]);
        lb_hist_free(w->iv_lat[d]);
        lb_hist_free(w->iv_sched[d]);
    }
    lb_iv_nodes_free(w->spare);
    lb_stats_release(&w->st);
    lb_stats_release(&w->st_lost);
    free(w);
}
