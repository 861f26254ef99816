/*
 * The results of a run (stats.c): struct lb_stats for one clone, one job
 * (its clones merged) or the whole run, and struct lb_interval, one
 * interval's sample of the whole run.  Counters add up, histograms merge
 * exactly (bucket by bucket), runtime is the longest.
 */
#ifndef LB_STATS_H
#define LB_STATS_H

#include <stdint.h>
#include "base/hist.h"
#include "job/job.h"

#define LB_ERRNO_SLOTS 8

/* One priority's latencies (fio's per-priority clat_prio stats). */
struct lb_prio_lat {
    uint32_t ioprio;             /* class << 13 | level (job/prio.h) */
    struct lb_hist *clat, *lat;  /* lat: clat for a sync engine */
};

/* Failed I/Os count in errors, not in ios, bytes or latencies.  A short
 * I/O (fewer bytes than asked, no errno) counts in ios and short_ios with
 * the bytes it moved; it is not an error.  With a sync engine lat = clat
 * and slat is empty. */
/* Rate samples as fio's io_stat: n samples of whole KiB/s or IOPS, each
 * over bwavgtime (iopsavgtime) ms of one worker; mean and S (the sum of
 * squared deviations) as Welford's.  Merged (clones into a job, jobs into
 * the run) as fio's group_reporting sums them: min, max, mean, S and n
 * each added. */
struct lb_samples {
    uint64_t n, min, max;
    double mean, S;
};

struct lb_dir_stats {
    uint64_t ios;                /* completed I/Os, short ones included */
    uint64_t bytes;
    uint64_t short_ios;
    uint64_t errors;             /* failed I/Os */
    uint64_t bs_min, bs_max;     /* block sizes seen */
    struct lb_hist *slat, *clat, *lat;   /* never NULL in a result */
    struct lb_hist *sched;       /* open-loop latency, from the time the rate
                                    schedule had the I/O due to its
                                    completion; NULL without a rate cap */
    struct lb_prio_lat *prio;    /* by priority, nprio of them: NULL for a
                                    job without prio, prioclass, cmdprio_* */
    uint32_t nprio;
    struct lb_samples bw, iops;  /* KiB/s and IOPS samples */
};

/* Adds one sample v to s (fio's add_stat_sample). */
void lb_samples_add(struct lb_samples *s, uint64_t v);

struct lb_err_stats {
    uint64_t count;              /* all failed I/Os and verify failures */
    int first_errno;             /* positive errno; 0 when none */
    int first_ddir;
    uint64_t first_offset;
    char first_file[256];
    char first_msg[256];         /* e.g. a verify mismatch, expected/found */
    struct { int ddir, err; uint64_t count; } by_errno[LB_ERRNO_SLOTS];
    uint64_t verify_errors;
    uint64_t timeouts;           /* I/Os past io_timeout */
};

struct lb_stats {
    struct lb_dir_stats dir[LB_DDIR_N];
    uint64_t runtime_ns;         /* measured phase, ramp_time excluded
                                    (verification reads included) */
    uint64_t usr_ns, sys_ns;     /* CPU of the worker threads */
    uint64_t ctx;                /* context switches, voluntary + not */
    uint64_t majf, minf;
    uint64_t mem_bytes;          /* memory the run held per this stats */
    uint64_t iodepth_level[7];   /* I/Os submitted at depth 1,2,4,8,16,32,>=64 */
    uint64_t iodepth_submit[7];  /* submissions by the I/Os each took:
                                    0, 1-4, 5-8, 9-16, 17-32, 33-64, >64 */
    uint64_t iodepth_complete[7];/* reaps by the completions each returned,
                                    in the same buckets (fio's io_u_submit
                                    and io_u_complete maps) */
    uint64_t fsyncs;             /* fsyncs done (fio counts no fdatasync) */
    struct lb_hist *sync_lat;    /* fsync/fdatasync latencies; never NULL
                                    in a result */
    struct lb_err_stats err;
    uint32_t clones;             /* threads merged into this */
};

int lb_stats_init(struct lb_stats *s);                 /* allocates hists */
void lb_stats_release(struct lb_stats *s);             /* frees hists */
/* dst += src: counters summed, histograms merged, runtime max.  0 or
 * -ENOMEM. */
int lb_stats_merge(struct lb_stats *dst, const struct lb_stats *src);

/* One interval of the run (job->interval, 1 s by default; the smallest of
 * the jobs'), all workers merged.  Time 0 is the end of the earliest
 * startdelay + ramp_time. */
struct lb_interval {
    uint32_t index;
    uint64_t start_ns, end_ns;   /* relative to the start of measurement */
    uint64_t ios[LB_DDIR_N], bytes[LB_DDIR_N];
    struct lb_hist *clat[LB_DDIR_N];   /* the interval's completions */
    struct lb_hist *lat[LB_DDIR_N];    /* their total latency (slat + clat;
                                          clat for a sync engine) */
    struct lb_hist *sched[LB_DDIR_N];  /* their open-loop latency; NULL
                                          without a rate cap */
    uint32_t njobs;                    /* jobs of the arrays below ... */
    uint64_t *job_ios, *job_bytes;     /* ... [job * LB_DDIR_N + d], in a run of
                                          several jobs; NULL with one */
};

#endif
