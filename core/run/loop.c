/*
 * The per-I/O loop of a worker: generate, issue, complete, account.
 *
 * Sync engines complete each I/O inside queue(): t_start before it, t_done
 * after, clat = lat = t_done - t_start.  Async engines queue as fio does
 * (backend.c do_io): up to iodepth I/Os, submitted in batches of
 * iodepth_batch_submit; once the queue is full, reap at least
 * iodepth_batch_complete_min and at most ..._max completions per call
 * (fio's defaults: 1 and 1, so each completion is replaced at once), down
 * to iodepth_low; slat = t_issue - t_start, clat = t_done - t_issue,
 * lat = t_done - t_start.  Under a rate cap each I/O also has the time
 * the rate schedule had it due (t_sched <= t_start), and its open-loop
 * latency t_done - t_sched counts the time it waited behind a stall.
 *
 * The common completion costs two counter updates and one histogram record
 * per latency kind (clat and lat into the interval's histograms; the
 * cumulative ones are built at each interval roll-over), and one comparison of the clock
 * with next_event, the earliest of: the end of the ramp, the next interval
 * boundary, the runtime deadline.  Everything unusual (errors, short I/Os,
 * ramp, verification, fsync every N writes, tracing) takes complete_slow().
 * No lock, allocation or syscall other than the I/O itself on this path.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "base/clock.h"
#include "run/gen.h"
#include "run/interval.h"
#include "run/loop.h"
#include "run/openfiles.h"
#include "run/rate.h"
#include "run/run_state.h"
#include "run/stats_int.h"

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static inline unsigned depth_bucket(unsigned depth)
{
    unsigned b = depth > 1 ? 31 - (unsigned)__builtin_clz(depth) : 0;

    return b < 6 ? b : 6;
}

/* The bucket of a submission or reap of n I/Os: 0, 1-4, 5-8, 9-16, 17-32,
 * 33-64, more (fio's io_u_mark_submit and _complete). */
static inline unsigned batch_bucket(unsigned n)
{
    if (n == 0)
        return 0;
    if (n <= 4)
        return 1;
    if (n > 64)
        return 6;
    return 32 - (unsigned)__builtin_clz(n - 1) - 1;
}

void lb_worker_flags(struct lb_worker *w)
{
    w->cslow = !w->measuring || w->check_reads || w->sync_every || w->trace || w->opsrc ||
               w->of || w->rated || w->prio_stats || w->max_lat_ns[LB_READ] ||
               w->max_lat_ns[LB_WRITE];
}

static void next_event_set(struct lb_worker *w)
{
    if (!w->measuring)
        w->next_event = w->ramp_end;
    else
        w->next_event = w->iv_next < w->deadline ? w->iv_next : w->deadline;
    if (w->rmin_next && w->rmin_next < w->next_event)
        w->next_event = w->rmin_next;
    if (w->measuring && w->samp_next && w->samp_next < w->next_event)
        w->next_event = w->samp_next;
}

/* One kind of fio's rate samples (stat.c __add_samples), due every avg
 * ms from the end of the ramp (fio's helper thread keeps to that grid):
 * once one is due, each direction that moved since the last sample gets
 * one of whole KiB/s (bw) or IOPS over the whole ms spent since.  The
 * clock ns of this kind's next sample. */
static uint64_t rate_sample(struct lb_worker *w, uint64_t t, uint32_t avg, uint64_t *last,
                            uint64_t *done, int iops)
{
    uint64_t len = (uint64_t)avg * 1000000u;
    uint64_t due = w->t_measure + ((*last - w->t_measure) / len + 1) * len;

    if (t < due)
        return due;
    uint64_t ms = (t - *last) / 1000000u;
    for (int d = 0; d < LB_DDIR_N; d++) {
        uint64_t now = iops ? w->st.dir[d].ios + w->iv_ios[d]
                            : w->st.dir[d].bytes + w->iv_bytes[d];
        uint64_t delta = now - done[d];

        if (!delta)
            continue;
        struct lb_samples *s = iops ? &w->st.dir[d].iops : &w->st.dir[d].bw;
        lb_samples_add(s, !ms ? 0 : iops ? delta * 1000 / ms : delta * 1000 / ms / 1024);
        done[d] = now;
    }
    *last = t;
    return w->t_measure + ((t - w->t_measure) / len + 1) * len;
}

static void rate_samples(struct lb_worker *w, uint64_t t)
{
    const struct lb_job *j = w->job;
    uint64_t a = UINT64_MAX, b = UINT64_MAX;

    if (j->bwavgtime)
        a = rate_sample(w, t, j->bwavgtime, &w->bw_t, w->bw_bytes, 0);
    if (j->iopsavgtime)
        b = rate_sample(w, t, j->iopsavgtime, &w->iops_t, w->iops_ios, 1);
    w->samp_next = a < b ? a : b;
}

/* fio's check_min_rate: after 2 s, the first look at a direction that has
 * done I/O notes its bytes and I/Os; each later one, once ratecycle has
 * passed, fails the job (EIO) when the rate since is below the minimum. */
static int min_rate_check(struct lb_worker *w, uint64_t t)
{
    const struct lb_job *j = w->job;
    uint64_t cycle = (uint64_t)j->ratecycle * 1000000u, next = UINT64_MAX;

    for (int d = 0; d < LB_DDIR_N; d++) {
        uint64_t bytes = w->st.dir[d].bytes + w->iv_bytes[d];
        uint64_t ios = w->st.dir[d].ios + w->iv_ios[d], ms, got;
        char msg[256];

        if ((!j->rate_min[d] && !j->rate_iops_min[d]) || !bytes)
            continue;
        if (w->rmin_t[d] && t - w->rmin_t[d] < cycle) {
            next = w->rmin_t[d] + cycle < next ? w->rmin_t[d] + cycle : next;
            continue;
        }
        ms = (t - w->rmin_t[d]) / 1000000u;
        if (w->rmin_t[d] && ms) {
            got = j->rate_min[d] ? (bytes - w->rmin_bytes[d]) * 1000 / ms
                                 : (ios - w->rmin_ios[d]) * 1000 / ms;
            if (got < (j->rate_min[d] ? j->rate_min[d] : j->rate_iops_min[d])) {
                if (j->rate_min[d])
                    snprintf(msg, sizeof(msg), "rate_min=%lluB/s not met, got %lluB/s",
                             (unsigned long long)j->rate_min[d],
                             (unsigned long long)got);
                else
                    snprintf(msg, sizeof(msg), "rate_iops_min=%llu not met, got %llu IOPS",
                             (unsigned long long)j->rate_iops_min[d],
                             (unsigned long long)got);
                lb_err_first(&w->st.err, EIO, d, "", 0, msg);
                w->rmin_next = 0;
                return END_ERROR;
            }
        }
        w->rmin_t[d] = t;
        w->rmin_bytes[d] = bytes;
        w->rmin_ios[d] = ios;
        next = t + cycle < next ? t + cycle : next;
    }
    /* a direction with no I/O yet is looked at again a cycle on */
    w->rmin_next = next != UINT64_MAX ? next : t + cycle;
    return 0;
}

void lb_measure_begin(struct lb_worker *w, uint64_t t)
{
    uint64_t k = t > w->t0 ? (t - w->t0) / w->iv_len : 0;

    w->measuring = true;
    w->t_measure = t;
    lb_rate_restart(w);   /* fio's reset_io_counters at the end of the ramp */
    getrusage(RUSAGE_THREAD, &w->ru0);
    w->iv_k = (uint32_t)k;
    w->iv_next = w->t0 + (k + 1) * w->iv_len;
    lb_iv_skip_to(w, w->iv_k);
    w->deadline = w->job->runtime ? t + w->job->runtime * 1000 : UINT64_MAX;
    memset(w->rmin_t, 0, sizeof(w->rmin_t));
    w->rmin_next = 0;
    /* fio's samples count from the end of the ramp (reset_all_stats) */
    w->bw_t = w->iops_t = t;
    for (int d = 0; d < LB_DDIR_N; d++) {
        w->bw_bytes[d] = w->st.dir[d].bytes + w->iv_bytes[d];
        w->iops_ios[d] = w->st.dir[d].ios + w->iv_ios[d];
    }
    w->samp_next = 0;
    if (w->job->bwavgtime || w->job->iopsavgtime)
        rate_samples(w, t);
    for (int d = 0; d < LB_DDIR_N; d++)
        if (w->job->rate_min[d] || w->job->rate_iops_min[d])
            w->rmin_next = t + 2000000000u;     /* fio's settling time */
    if (w->job->ramp_time && !w->opsrc) {
        lb_gen_ramp_over(w);
        /* fio's reset_all_stats: the mix counts its I/Os from here */
        memset(w->gen.mix_issued, 0, sizeof(w->gen.mix_issued));
        lb_gen_snapshot(w);
    }
    lb_worker_flags(w);
    next_event_set(w);
}

int lb_worker_event(struct lb_worker *w, uint64_t t)
{
    if (!w->measuring) {
        if (t >= w->ramp_end)           /* fio's ramp_time_over: from now */
            lb_measure_begin(w, t);
        return 0;
    }
    while (t >= w->iv_next)
        lb_iv_publish(w, w->iv_next, false);
    if (w->rmin_next && t >= w->rmin_next) {
        int r = min_rate_check(w, t);

        if (r)
            return r;
    }
    if (w->samp_next && t >= w->samp_next && t < w->deadline)
        rate_samples(w, t);     /* none at the end: fio's thread has left */
    next_event_set(w);
    return t >= w->deadline ? END_RUNTIME : 0;
}

int lb_pause_until(struct lb_worker *w, uint64_t t)
{
    for (;;) {
        uint64_t now = lb_clock_now();

        if (now >= t)
            return 0;
        if (lb_worker_stopping(w))
            return 1;
        if (t - now > 50000) {
            uint64_t ns = t - now - 20000;
            struct timespec ts = { 0, (long)(ns < 10000000 ? ns : 10000000) };

            nanosleep(&ts, NULL);
        } else {
            cpu_relax();
        }
    }
}

/* errors and checks */

/* fio's td_non_fatal_error: continue_on_error goes on past an error of
 * its type (EILSEQ is verify's, else the direction's; a sync is a write)
 * only when the errno is on the type's ignore_error list, EIO and EILSEQ
 * by default. */
static bool err_continues(const struct lb_worker *w, unsigned d, int err)
{
    const struct lb_job *j = w->job;
    int t = err == EILSEQ ? LB_ERRT_VERIFY : d == LB_READ ? LB_ERRT_READ : LB_ERRT_WRITE;
    static const uint32_t bit[LB_ERRT_N] = { LB_COE_READ, LB_COE_WRITE, LB_COE_VERIFY };

    if (!(j->continue_on_error & bit[t]))
        return false;
    if (!j->nignore_error[t])
        return err == EIO || err == EILSEQ;
    for (uint32_t i = 0; i < j->nignore_error[t]; i++)
        if (j->ignore_error[t][i] == err)
            return true;
    return false;
}

static int io_failed(struct lb_worker *w, const struct lb_io *io)
{
    unsigned d = io->ddir < LB_DDIR_N ? io->ddir : LB_WRITE;
    int err = (int)-io->result;
    struct lb_err_stats *e = &w->st.err;

    w->st.dir[d].errors++;
    e->count++;
    lb_err_note(e, (int)d, err, 1);
    if (!e->first_errno && !e->first_msg[0]) {
        char msg[256];

        snprintf(msg, sizeof(msg), "%s of %s at offset %llu failed: %s",
                 lb_ddir_name(io->ddir < LB_IO_OPS ? io->ddir : LB_WRITE), io->file->path,
                 (unsigned long long)io->offset, strerror(err));
        lb_err_first(e, err, (int)d, io->file->path, io->offset, msg);
    }
    return err_continues(w, d, err) ? 0 : END_ERROR;
}

/* fio's max_latency (io_u.c lat_fatal): a read or write of the measured
 * phase that took longer is an ETIMEDOUT, counted, the I/O itself done. */
static int too_slow(struct lb_worker *w, const struct lb_io *io, uint64_t lat)
{
    struct lb_err_stats *e = &w->st.err;
    unsigned d = io->ddir;
    char msg[256];

    e->count++;
    lb_err_note(e, (int)d, ETIMEDOUT, 1);
    snprintf(msg, sizeof(msg), "latency of %llu nsec exceeds specified max (%llu nsec): "
             "%s %s %llu %u", (unsigned long long)lat, (unsigned long long)w->max_lat_ns[d],
             io->file->path, lb_ddir_name(d), (unsigned long long)io->offset, io->len);
    lb_err_first(e, ETIMEDOUT, (int)d, io->file->path, io->offset, msg);
    return err_continues(w, d, ETIMEDOUT) ? 0 : END_ERROR;
}

static int check_block(struct lb_worker *w, const struct lb_io *io)
{
    struct lb_vwhere at = {
        .path = io->file->path,
        .generation = w->gen.replay ? w->pass : UINT64_MAX,
    };
    uint32_t step = w->vchunk && w->vchunk < io->len ? w->vchunk : io->len;
    char msg[256];
    struct lb_err_stats *e = &w->st.err;

    for (uint32_t off = 0; off < io->len; off += step) {
        at.offset = io->offset + off;
        at.len = io->len - off < step ? io->len - off : step;
        at.block = (at.offset - io->file->file_offset) / step;
        if (lb_verify_check(&w->vcfg, (const char *)io->buf + off, &at, msg, sizeof(msg)))
            break;
        if (off + step >= io->len)
            return 0;
    }
    e->verify_errors++;
    e->count++;
    lb_err_note(e, LB_READ, EILSEQ, 1);
    lb_err_first(e, EILSEQ, LB_READ, io->file->path, at.offset, msg);
    if (err_continues(w, LB_READ, EILSEQ))
        return 0;
    if (w->job->verify_fatal)
        lb_run_stop(w->run, "verify_fatal");
    return END_ERROR;
}

/* sync operations (fsync=N, fdatasync=N, end_fsync); only with nothing in flight */

/* A sync operation's latency; its histogram is made at the first one (a
 * job without sync operations keeps none; lb_stats_fill adds it after). */
static void record_sync(struct lb_worker *w, uint64_t ns)
{
    if (w->st.sync_lat || lb_hist_new(&w->st.sync_lat) == 0)
        lb_hist_record(w->st.sync_lat, ns);
}

static int sync_one(struct lb_worker *w, struct lb_file *f, int op)
{
    struct lb_io *io = &w->sync_io, *ev[1];
    int q;

    memset(io, 0, sizeof(*io));
    io->file = f;
    io->ddir = (uint8_t)op;
    io->buf_index = -1;
    io->t_start = lb_clock_now();
    q = w->eng->queue(w->priv, io);
    if (q == LB_Q_QUEUED) {
        q = w->eng->commit(w->priv);
        if (q == 0) {
            do
                q = w->eng->getevents(w->priv, 1, 1, ev);
            while (q == 0 || q == -EINTR);
        }
        q = q < 0 ? q : LB_Q_DONE;
    }
    if (q == LB_Q_BUSY)
        q = -EBUSY;
    if (q < 0)
        io->result = q;
    w->last_sync = true;
    if (!w->sync_uncounted) {            /* fio counts fsyncs, times every sync */
        w->st.fsyncs += op == LB_SYNC_OP;
        if (io->result >= 0 && w->measuring)
            record_sync(w, lb_clock_now() - io->t_start);
    }
    return io->result < 0 ? io_failed(w, io) : 0;
}

/* fio's fsync=N (io_u.c get_rw_ddir): a sync goes before the next I/O,
 * of either direction, when the writes issued so far are a multiple of N
 * and the last operation done was not a sync; so there is none after a
 * job's last write, and a mixed job syncs again before each read until its
 * next write.  A new loop forgets the last sync (fio's clear_io_state):
 * a loop that ends on a multiple of N syncs at its end and again before
 * the next loop's first I/O.  Returns how many syncs are due before io,
 * and counts io; once they are done, io's issue clears last_sync (fio's
 * sync engines complete it before the next choice; counting at the issue
 * gives an async engine the same syncs). */
static unsigned syncs_before(struct lb_worker *w, const struct lb_io *io)
{
    bool mult = w->wissued && w->wissued % w->sync_every == 0;
    unsigned n = mult && !w->last_sync;

    if (w->pass != w->sync_pass) {
        w->sync_pass = w->pass;
        n += mult;
    }
    if (io->ddir == LB_WRITE)
        w->wissued++;
    if (w->gen.replay || w->opsrc)
        n = 0;
    if (!n)
        w->last_sync = false;
    return n;
}

static int sync_n(struct lb_worker *w, struct lb_file *f, unsigned n)
{
    int ret = 0;

    while (n-- && !ret)
        ret = lb_sync_files(w, f, w->sync_op);
    return ret;
}

int lb_sync_files(struct lb_worker *w, struct lb_file *only, int op)
{
    int ret = 0;

    w->sync_due = NULL;
    if (only)
        return sync_one(w, only, op);
    if (w->of)
        return lb_of_sync_all(w, op, lb_sync_files);
    for (unsigned i = 0; i < w->nfiles && !ret; i++)
        ret = sync_one(w, &w->files[i], op);
    return ret;
}

/* completion */

/* Where an I/O's open-loop latency counts from: its due time, but not
 * before the measured phase began, as the rate schedule restarts there:
 * an I/O issued during the ramp counts from its issue, one due in the ramp
 * and issued after it (it waited for its file, a sync) from the start of
 * the measured phase, so the ramp's backlog is in no I/O's figure. */
static inline uint64_t sched_from(const struct lb_worker *w, const struct lb_io *io)
{
    uint64_t floor = io->t_start < w->t_measure ? io->t_start : w->t_measure;

    return io->t_sched > floor ? io->t_sched : floor;
}

static void record(struct lb_worker *w, const struct lb_io *io, uint64_t t, bool sync)
{
    unsigned d = io->ddir;

    w->iv_ios[d]++;
    w->iv_bytes[d] += (uint64_t)io->result;
    if (io->result < (int64_t)io->len)
        w->st.dir[d].short_ios++;
    if (sync) {
        lb_hist_record(w->iv_clat[d], t - io->t_start);
    } else {
        lb_hist_record(w->iv_clat[d], t - io->t_issue);
        lb_hist_record(w->st.dir[d].slat, io->t_issue - io->t_start);
        lb_hist_record(w->iv_lat[d], t - io->t_start);
    }
    if (io->t_sched && w->iv_sched[d])
        lb_hist_record(w->iv_sched[d], t - sched_from(w, io));
    if (w->prio_stats)
        lb_stats_prio_record(&w->st.dir[d], io->ioprio,
                             t - (sync ? io->t_start : io->t_issue), t - io->t_start);
}

static int __attribute__((noinline)) complete_slow(struct lb_worker *w, struct lb_io *io,
                                                   uint64_t t, bool sync)
{
    unsigned d = io->ddir;
    int ret = 0;

    if (w->of)
        lb_of_done(w, io);
    if (w->trace) {
        io->t_done = t;
        if (sync)
            io->t_issue = 0;
        w->trace(w->trace_arg, w->job_index, w->clone, io);
    }
    if (d >= LB_DDIR_N) {
        w->st.fsyncs += d == LB_SYNC_OP;
        if (io->result >= 0 && w->measuring)
            record_sync(w, t - io->t_start);
        return io->result < 0 ? io_failed(w, io) : 0;
    }
    if (io->result < 0)
        return io_failed(w, io);
    if (w->check_reads && d == LB_READ && io->result == (int64_t)io->len)
        ret = check_block(w, io);
    if (w->measuring && !w->ramp_batch) {
        record(w, io, t, sync);
        if (d != LB_TRIM && w->max_lat_ns[d] && t - io->t_start > w->max_lat_ns[d] && !ret)
            ret = too_slow(w, io, t - io->t_start);
    }
    return ret;
}

static inline __attribute__((always_inline))
int complete(struct lb_worker *w, struct lb_io *io, uint64_t t, const bool sync)
{
    unsigned d = io->ddir;

    if (__builtin_expect(!w->cslow && io->result == (int64_t)io->len, 1)) {
        w->iv_ios[d]++;
        w->iv_bytes[d] += io->len;
        if (sync) {
            lb_hist_record(w->iv_clat[d], t - io->t_start);
        } else {
            lb_hist_record(w->iv_clat[d], t - io->t_issue);
            lb_hist_record(w->st.dir[d].slat, io->t_issue - io->t_start);
            lb_hist_record(w->iv_lat[d], t - io->t_start);
        }
    } else {
        int r = complete_slow(w, io, t, sync);

        if (r)
            return r;
    }
    if (__builtin_expect(t >= w->next_event, 0))
        return lb_worker_event(w, t);
    return 0;
}

/* pacing: rate, rate_iops, thinktime */

/* fio's flows (flow.c): a clone whose share of its flow's I/Os is above its
 * weight's share waits flow_sleep and looks again; the flow's count starts
 * at 1, so flow_ios / ios > flow / weight, strictly, is fio's test. */
static void flow_wait(struct lb_worker *w)
{
    struct lb_flow *f = w->flow;

    for (;;) {
        uint64_t all = atomic_load_explicit(&f->ios, memory_order_relaxed);
        uint64_t weight = atomic_load_explicit(&f->weight, memory_order_relaxed);
        struct timespec ts = { (time_t)(w->flow_sleep_ns / 1000000000u),
                               (long)(w->flow_sleep_ns % 1000000000u) };

        if (!weight || (unsigned __int128)w->flow_ios * weight <=
                       (unsigned __int128)w->job->flow * all)
            break;
        if (lb_worker_stopping(w) || lb_clock_now() >= w->deadline)
            return;
        nanosleep(&ts, NULL);
    }
    atomic_fetch_add_explicit(&f->ios, 1, memory_order_relaxed);
    w->flow_ios++;
}

/* When io may be issued: 0 for now, else the clock time to wait for.  The
 * rate is checked at the end of a thinktime pause, as if it had been
 * taken. */
static uint64_t pace_until(struct lb_worker *w, struct lb_io *io)
{
    uint64_t now, until, due;

    if (w->flow)
        flow_wait(w);
    now = until = lb_clock_now();

    if (w->think_ns) {
        if (w->think_count && w->think_count % w->think_every == 0) {
            until = now + w->think_ns;
            if (w->job->thinktime_spin) {    /* fio's: busy first, then asleep */
                uint64_t spin = now + (w->job->thinktime_spin < w->job->thinktime
                                       ? w->job->thinktime_spin : w->job->thinktime) * 1000;

                while (lb_clock_now() < spin)
                    cpu_relax();
            }
        }
        w->think_count++;
    }
    due = lb_rate_due(w, io, now);
    if (due > until)
        until = due;
    return until > now ? until : 0;
}

/* Waits until clock time until; as fio's rate_ddir, an I/O due after the
 * runtime is not issued: the wait ends at the deadline, and so does the
 * run.  0, END_STOP or END_RUNTIME. */
static int pace_wait(struct lb_worker *w, uint64_t until)
{
    if (w->measuring && until >= w->deadline) {
        if (lb_pause_until(w, w->deadline))
            return END_STOP;
        return lb_worker_event(w, lb_clock_now()) ?: END_RUNTIME;
    }
    return lb_pause_until(w, until) ? END_STOP : 0;
}

/* sync engines */

static inline void pub_start(struct lb_worker *w, const struct lb_io *io)
{
    atomic_store_explicit(&w->pub_off, io->offset, memory_order_relaxed);
    atomic_store_explicit(&w->pub_file, (uint32_t)(io->file - w->files), memory_order_relaxed);
    atomic_store_explicit(&w->pub_ddir, io->ddir, memory_order_relaxed);
    atomic_store_explicit(&w->pub_start, io->t_start, memory_order_release);
}

static int loop_sync(struct lb_worker *w)
{
    struct lb_io *io = w->ios;
    int (*queue)(void *, struct lb_io *) = w->eng->queue;
    void *priv = w->priv;

    for (;;) {
        uint64_t t;
        int g, q, e;

        if (lb_worker_stopping(w))
            return END_STOP;
        g = lb_gen_next(w, io);
        if (__builtin_expect(g != GEN_OP, 0))
            return g == GEN_PASS ? END_PASS : END_DONE;
        io->t_sched = 0;
        if (__builtin_expect(w->paced, 0)) {
            uint64_t until = pace_until(w, io);

            if (until && (e = pace_wait(w, until)) != 0)
                return e;
        }
        if (__builtin_expect(w->sync_every != 0, 0) &&
            (e = sync_n(w, io->file, syncs_before(w, io))) != 0)
            return e;
        w->last_sync = false;
        io->t_done = 0;
        io->t_start = lb_clock_now();
        if (w->tmo_ns)
            pub_start(w, io);
        q = queue(priv, io);
        t = io->t_done ? io->t_done : lb_clock_now();
        if (w->tmo_ns)
            atomic_store_explicit(&w->pub_start, 0, memory_order_relaxed);
        if (__builtin_expect(q != LB_Q_DONE, 0))
            io->result = q < 0 ? q : -EINVAL;
        e = complete(w, io, t, true);
        if (__builtin_expect(e != 0, 0))
            return e;
    }
}

/* async engines */

static void pub_oldest(struct lb_worker *w)
{
    const struct lb_io *old = NULL;

    for (unsigned i = 0; i < w->depth; i++)
        if (w->busy[i] && (!old || w->ios[i].t_start < old->t_start))
            old = &w->ios[i];
    if (old)
        pub_start(w, old);
    else
        atomic_store_explicit(&w->pub_start, 0, memory_order_relaxed);
}

static int fail_engine(struct lb_worker *w, const char *what, int err)
{
    char msg[256];

    snprintf(msg, sizeof(msg), "engine '%s': %s failed: %s", w->eng->name, what, strerror(-err));
    w->st.err.count++;
    lb_err_note(&w->st.err, LB_READ, -err, 1);
    lb_err_first(&w->st.err, -err, LB_READ, "", 0, msg);
    return END_ERROR;
}

/* Submits the nq I/Os queued.  fio counts I/Os in iodepth_level at the
 * depth of the moment only when a batch is complete (batch: its
 * td_io_commit); a commit made because the queue is full and must be reaped
 * (fio's getevents commits first) leaves them for the next batch, which
 * then completes that many I/Os sooner.  The engine stamps t_issue when the
 * kernel took the I/O (io_uring, libaio); the clock is read here only for
 * an engine that does not. */
static int commit(struct lb_worker *w, unsigned nq, bool batch)
{
    int ret = nq ? w->eng->commit(w->priv) : 0, end = 0;
    uint64_t t = 0;

    for (unsigned i = 0; i < nq; i++) {
        struct lb_io *io = w->queued[i];

        if (!io->t_issue)
            io->t_issue = t ? t : (t = lb_clock_now());
        if (ret < 0) {
            io->result = ret;
            end = complete(w, io, io->t_issue, false) ?: end;
            w->freeq[w->nfree++] = io;
        } else {
            w->busy[io - w->ios] = 1;
        }
    }
    if (ret < 0)
        return end;
    w->inflight += nq;
    w->unbatched += nq;
    if (w->measuring && nq && w->nocommit) {    /* fio's td_io_queue, no commit */
        w->st.iodepth_submit[batch_bucket(1)] += nq;
        w->st.iodepth_complete[batch_bucket(1)] += nq;
    } else if (w->measuring && nq) {
        w->st.iodepth_submit[batch_bucket(nq)]++;
    }
    if (batch) {
        if (w->measuring)
            w->st.iodepth_level[depth_bucket(w->inflight)] += w->unbatched;
        w->unbatched = 0;
    }
    return 0;
}

/* When to submit and how many to reap, from the job as fio reads it
 * (fio's init.c fixup_options, backend.c wait_for_completions). */
struct queue_rules {
    unsigned batch;              /* submit once this many are queued */
    unsigned cmin;               /* iodepth_batch_complete_min; 0: poll */
    unsigned cmax;               /* most reaped per call, at least cmin */
    unsigned low;                /* a full queue is reaped down to this */
    bool poll;                   /* cmin = cmax = 0: reap after every I/O */
};

static void queue_rules(const struct lb_worker *w, struct queue_rules *q)
{
    const struct lb_job *j = w->job;
    unsigned depth = w->depth;

    q->batch = j->iodepth_batch_submit && j->iodepth_batch_submit <= depth
               ? j->iodepth_batch_submit : depth;
    q->low = j->iodepth_low && j->iodepth_low <= depth ? j->iodepth_low : depth;
    q->cmin = j->iodepth_batch_complete_min;
    q->cmax = j->iodepth_batch_complete_max > q->cmin ? j->iodepth_batch_complete_max
                                                      : q->cmin;
    q->poll = !q->cmin && !j->iodepth_batch_complete_max;
}

/* Completes what one getevents call returned; all at one time stamp.  As
 * fio's, none of a batch whose first completion ended the ramp counts. */
static void reaped(struct lb_worker *w, int n, int *end)
{
    uint64_t t = lb_clock_now();

    w->ramp_batch = !w->measuring;
    for (int i = 0; i < n; i++) {
        struct lb_io *io = w->evs[i];
        int e;

        w->busy[io - w->ios] = 0;
        w->inflight--;
        e = complete(w, io, io->t_done ? io->t_done : t, false);
        w->freeq[w->nfree++] = io;
        if (e && !*end)
            *end = e;
    }
    w->ramp_batch = false;
}

/* One reap, as fio's io_u_queued_complete: at least min (at most what is
 * in flight) and at most max(cmax, min) completions.  With cmin = 0 the
 * engine is asked for no minimum and asked again until min have come (a
 * busy poll, as fio does).  The count, or -errno after fail_engine. */
static int reap(struct lb_worker *w, const struct queue_rules *q, unsigned min, int *end)
{
    unsigned max = q->cmax < w->inflight ? q->cmax : w->inflight, got = 0;

    if (min > w->inflight)
        min = w->inflight;
    if (max < min)
        max = min;
    while (max > got) {
        int n = w->eng->getevents(w->priv, q->cmin ? min - got : 0, max - got, w->evs);

        if (n < 0 && n != -EINTR && n != -EAGAIN) {
            w->inflight = 0;
            *end = fail_engine(w, "getevents", n);
            return n;
        }
        if (n > 0)
            reaped(w, n, end);
        got += n > 0 ? (unsigned)n : 0;
        if (got >= min)
            break;
    }
    if (w->measuring)
        w->st.iodepth_complete[batch_bucket(got)]++;
    if (w->tmo_ns)
        pub_oldest(w);
    return (int)got;
}

/* fio's wait_for_completions: at least one completion when the queue is
 * full or polled, else iodepth_batch_complete_min of them; a full queue is
 * then reaped until no more than iodepth_low are left in flight. */
static void reap_queue(struct lb_worker *w, const struct queue_rules *q, int *end)
{
    bool full = w->inflight >= w->depth;
    unsigned min = q->cmin < w->inflight ? q->cmin : w->inflight;

    if (!q->cmin || !min)
        min = 1;
    do {
        if (reap(w, q, min, end) < 0)
            return;
    } while (full && !*end && w->inflight > q->low);
}

/* Waits until io may be issued (rate, thinktime).  As fio does, what is
 * queued is submitted and everything in flight reaped first, so that the
 * wait counts in no I/O's latency. */
static int pace_async(struct lb_worker *w, const struct queue_rules *q, struct lb_io *io,
                      unsigned *nq)
{
    uint64_t until = pace_until(w, io);
    int end = 0;

    if (!until)
        return 0;
    if (*nq || w->unbatched) {
        end = commit(w, *nq, true);
        *nq = 0;
    }
    while (!end && w->inflight)
        if (reap(w, q, 1, &end) < 0)
            break;
    return end ? end : pace_wait(w, until);
}

/* Generates and queues I/Os until the queue is full (in polling mode:
 * one I/O); returns an END_ code when the loop must stop issuing. */
static int fill(struct lb_worker *w, const struct queue_rules *qr, unsigned *nq)
{
    while (!w->sync_due && w->inflight + *nq < w->depth) {
        struct lb_io *io = w->pending;
        int q, e;

        if (lb_worker_stopping(w))
            return END_STOP;
        if (w->held) {                   /* its syncs are done */
            io = w->held;
            w->held = NULL;
            w->last_sync = false;
        } else if (io) {
            w->pending = NULL;
            if (w->of && (q = lb_of_use(w, io)) != GEN_OP) {
                if (q == GEN_BUSY) {
                    w->pending = io;
                    return 0;
                }
                w->freeq[w->nfree++] = io;
                return END_DONE;
            }
        } else {
            int g;

            io = w->freeq[--w->nfree];
            g = lb_gen_next(w, io);
            io->t_sched = 0;
            if (g == GEN_OP && w->paced && (e = pace_async(w, qr, io, nq)) != 0) {
                w->freeq[w->nfree++] = io;       /* reaping refilled the free list */
                return e;
            }
            if (g != GEN_OP) {
                if (g == GEN_BUSY) {     /* its file waits for a completion */
                    w->pending = io;
                    return 0;
                }
                w->nfree++;
                return g == GEN_PASS ? END_PASS : g == GEN_END ? END_DONE : END_STOP;
            }
            if (w->sync_every && (w->sync_n = syncs_before(w, io)) != 0) {
                w->sync_due = io->file;  /* loop_async syncs once nothing is in flight */
                w->held = io;
                return 0;
            }
        }
        io->t_issue = io->t_done = 0;
        io->result = 0;
        io->t_start = lb_clock_now();
        if (w->tmo_ns && !w->inflight)
            pub_start(w, io);
        q = w->eng->queue(w->priv, io);
        if (q == LB_Q_QUEUED) {
            w->queued[(*nq)++] = io;
            if (w->unbatched + *nq >= qr->batch) {
                e = commit(w, *nq, true);
                *nq = 0;
                if (e)
                    return e;
            }
            if (qr->poll)
                return 0;
            continue;
        }
        if (q == LB_Q_BUSY) {
            w->pending = io;
            return 0;
        }
        if (q < 0)
            io->result = q;
        io->t_issue = io->t_start;
        if (w->measuring) {      /* done inside queue(): one submitted, one reaped */
            w->st.iodepth_level[depth_bucket(w->inflight + *nq + 1)]++;
            w->st.iodepth_submit[1]++;
            w->st.iodepth_complete[1]++;
        }
        e = complete(w, io, io->t_done ? io->t_done : lb_clock_now(), false);
        w->freeq[w->nfree++] = io;
        if (e)
            return e;
        if (qr->poll)
            return 0;
    }
    return 0;
}

/* Drops the I/O generated but never queued (the engine was busy). */
static void drop_pending(struct lb_worker *w)
{
    if (w->pending) {
        w->freeq[w->nfree++] = w->pending;
        w->pending = NULL;
        if (w->gen.pass_ops)
            w->gen.pass_ops--;
    }
    if (w->held) {
        w->freeq[w->nfree++] = w->held;
        w->held = NULL;
        w->sync_due = NULL;
    }
}

/* fio's do_io for an async engine: queue until the queue is full, submit
 * in batches, reap as reap_queue says; at the end reap all in flight. */
static int loop_async(struct lb_worker *w)
{
    struct queue_rules q;
    int end = 0;

    queue_rules(w, &q);
    for (;;) {
        unsigned nq = 0;

        if (!end)
            end = fill(w, &q, &nq);
        if (nq) {
            int e = commit(w, nq, false);

            end = end ? end : e;
        }
        if (w->inflight == 0) {
            if (w->sync_due && !end) {
                end = sync_n(w, w->sync_due, w->sync_n);
                continue;
            }
            if (end || w->pending) {
                drop_pending(w);
                return end ? end : fail_engine(w, "queue", -EBUSY);
            }
            continue;
        }
        if (end)
            reap(w, &q, w->inflight, &end);
        else
            reap_queue(w, &q, &end);
    }
}

static int run_loop(struct lb_worker *w)
{
    return w->sync ? loop_sync(w) : loop_async(w);
}

/* verification of a pass: replay its operations as reads and check them */

void lb_gen_snapshot(struct lb_worker *w)
{
    if (!w->verify_writes)
        return;
    w->gen_snap = w->gen;
    memcpy(w->wf_snap, w->wf, w->nfiles * sizeof(*w->wf));
}

static int verify_pass(struct lb_worker *w)
{
    uint64_t ops = w->gen.pass_ops - w->gen_snap.pass_ops;
    bool paced = w->paced;
    int end;

    w->gen_tmp = w->gen;
    memcpy(w->wf_tmp, w->wf, w->nfiles * sizeof(*w->wf));
    w->gen = w->gen_snap;
    memcpy(w->wf, w->wf_snap, w->nfiles * sizeof(*w->wf));
    w->gen.replay = w->gen.convert = w->gen.slow = true;
    w->gen.replay_left = ops;
    w->gen.pass_budget = UINT64_MAX;
    w->gen.exh_limit = UINT32_MAX;
    w->check_reads = true;
    w->paced = false;
    w->deadline = UINT64_MAX;
    lb_worker_flags(w);
    next_event_set(w);
    end = run_loop(w);
    w->paced = paced;
    w->check_reads = false;
    lb_worker_flags(w);
    w->gen = w->gen_tmp;
    memcpy(w->wf, w->wf_tmp, w->nfiles * sizeof(*w->wf));
    return end == END_DONE ? 0 : end;
}

int lb_worker_io(struct lb_worker *w)
{
    for (;;) {
        int end, v;

        lb_gen_snapshot(w);
        end = run_loop(w);
        if (!w->verify_writes || (end != END_PASS && end != END_RUNTIME))
            return end;
        if (w->backlog_due) {            /* verify_backlog: check, go on */
            w->backlog_due = false;
            w->backlog_n = 0;
            if (end == END_PASS) {
                v = verify_pass(w);
                if (v)
                    return v;
                continue;
            }
        }
        if (!w->verify_phase) {          /* do_verify=0 */
            if (end == END_RUNTIME || lb_gen_new_pass(w))
                return end == END_RUNTIME ? end : END_DONE;
            continue;
        }
        w->backlog_n = 0;
        v = verify_pass(w);
        if (v || end == END_RUNTIME)
            return v ? v : end;
        if (lb_gen_new_pass(w))
            return END_DONE;
    }
}
