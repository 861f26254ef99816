/*
 * The types of the run loop, and nothing else (like Lua's lstate.h): struct
 * lb_run, one struct lb_worker per clone (one thread each), the generator
 * of offsets (struct lb_gen) and their small parts.  Seen by the files of
 * core/run/ only; each of those has a header of its own for its functions.
 *
 * Ownership: a worker's fields are written by its own thread only, except
 * the few marked "run->mu" (shared, under the run's mutex), "atomic"
 * (published for the main thread's I/O watchdog) and "main" (written by the
 * main thread only).  The run is reference counted: each started thread
 * holds a reference, so a thread the run had to abandon (stuck in an I/O
 * past io_timeout) can still finish safely.
 */
#ifndef LB_RUN_INT_H
#define LB_RUN_INT_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include "base/hist.h"
#include "base/rng.h"
#include "base/verify.h"
#include "job/job.h"
#include "engines/engine.h"
#include "run/blkmap.h"
#include "run/bufs.h"
#include "run/run.h"

#define LB_OPBATCH 256                 /* ops pulled from an opsrc at once */
#define LB_NOFILES_SIZE (1ull << 30)   /* per clone when a NOFILES job has no size */

/* Why a loop returned. */
enum { END_NONE = 0, END_PASS, END_DONE, END_RUNTIME, END_STOP, END_ERROR };
/* What the generator produced (GEN_BUSY: the I/O's file cannot be opened
 * before an I/O in flight completes, openfiles.c). */
enum { GEN_OP = 0, GEN_PASS = 1, GEN_END = 2, GEN_BUSY = 3 };

/* A clone's position in one of its files. */
struct lb_wfile {
    uint64_t end;                /* usable bytes: the region, whole blocks */
    uint64_t nblocks;            /* end / align */
    uint64_t pos;                /* seq: next offset in the region; random: I/O count */
    uint64_t wpos;               /* seq, mixed: next offset of the writes */
    bool exhausted;              /* reached its end in this pass */
    bool drop_due;               /* wrapped: drop its cached pages (gen.wrap_drop) */
    uint64_t zstart;             /* zonemode=strided: the zone's start in the region */
    uint64_t zi;                 /* zonemode=strided, random: I/Os since the map reset */
    struct lb_perm perm;         /* random map: this pass's order */
    uint64_t last[LB_DDIR_N];    /* percentage_random: where each direction's last
                                    I/O ended (fio's last_pos) */
    uint64_t seq_end;            /* ... the file's end, from the region's start */
    bool last_reset_due;         /* ... the map wrapped: fio resets last at the
                                    next random draw */
};

/* Where the next I/O goes: plain values only, so that a copy taken at the
 * start of a pass replays the pass for verification. */
struct lb_gen {
    struct lb_rng rng_off;       /* offsets and permutation seeds */
    struct lb_rng rng_off0;      /* rng_off as the first pass began */
    struct lb_rng rng_aux;       /* direction, block size, file choice */
    uint8_t ddir;                /* the direction when not mixed */
    bool mixed, random, randmap, skewed;
    bool bmap;                   /* random map of blocks done (w->bmap): the
                                    block size varies or exceeds blockalign */
    bool lfsr;                   /* random_generator=lfsr: each block drawn once */
    bool wrap_drop;              /* drop a file's cached pages when it wraps */
    bool slow;                   /* lb_gen_next_slow: opsrc, verify, replay */
    bool wfill;                  /* writes refilled or scrambled (bufs.c) */
    bool replay;                 /* verify phase: replaying a pass */
    bool convert;                /* writes become reads, other ops skipped */
    uint32_t mixread;            /* percent of reads */
    struct lb_taus88 mix_rng;    /* rwmix draws, fio's generator and seed */
    uint32_t mix_seed;
    uint8_t mix_dir;             /* the direction drawn last */
    uint64_t mix_issued[2];      /* I/Os generated per direction, all passes */
    uint64_t mix_limit;          /* keep mix_dir until its count reaches this */
    bool seqmix;                 /* percentage_random below 100 in a direction */
    uint8_t pct_rand[LB_DDIR_N];
    struct lb_taus88 seq_rng[LB_DDIR_N];  /* its draws, fio's generator and seed */
    uint32_t seq_seed;
    bool trimwrite;              /* each trim is followed by its write */
    bool tw_due;                 /* the write of the last trim is next */
    uint32_t tw_file, tw_len;
    uint64_t tw_off;
    uint32_t bs_fixed[LB_DDIR_N];/* 0: bsrange or bssplit */
    uint64_t align;              /* blockalign */
    uint64_t skip;               /* rw_skip */
    uint32_t nfiles, cur, fst;
    bool cur_used;
    uint32_t nexh, exh_limit;    /* files exhausted; the pass ends at exh_limit */
    uint64_t pass_bytes, pass_budget, pass_ops;
    uint64_t ops_budget;         /* number_ios: a pass ends after so many I/Os */
    uint64_t replay_left;
    bool zoned;                  /* zonemode=strided */
    uint64_t zsize, zrange, zstep;   /* zonesize, zonerange, zonerange + zoneskip */
    uint64_t zbytes;             /* bytes issued in the current zone */
};

/* One worker's share of one interval, handed to the main thread. */
struct lb_ivnode {
    struct lb_ivnode *next;
    struct lb_worker *w;
    uint32_t index;
    uint64_t end_ns;             /* relative to the run's origin */
    uint64_t ios[LB_DDIR_N], bytes[LB_DDIR_N];
    struct lb_hist *clat[LB_DDIR_N];
    struct lb_hist *lat[LB_DDIR_N];  /* NULL for a sync engine (lat = clat) */
    struct lb_hist *sched[LB_DDIR_N];    /* NULL without a rate cap */
};

struct lb_bsw {                  /* bssplit, cumulative weights */
    uint32_t bs, upto;
};

struct lb_genrec {               /* an operation generated, for the verify replay */
    uint64_t offset;
    uint32_t len, file;
    uint8_t ddir;
};

struct lb_worker {
    struct lb_run *run;
    const struct lb_job *job;    /* the run's copy of the clone's job */
    const struct lb_engine_ops *eng;
    unsigned job_index, clone, id;   /* job in the run, clone in the job, worker in the run */
    bool sync, nofiles, writes;  /* engine kind; opens files for writing */
    unsigned dirs;               /* bit per direction the clone may do */
    /* thread */
    pthread_t tid;
    bool started, joined, abandoned;       /* main */
    int setup_err;                         /* run->mu after ready */
    char setup_msg[256];         /* why setup failed (setup_err) */
    /* files */
    struct lb_file *files;       /* nfiles, in the job's order */
    struct lb_wfile *wf, *wf_snap, *wf_tmp;  /* positions; kept at pass start
                                    for the verify replay; swap space */
    struct lb_dist *dist;        /* per file: skewed random_distribution */
    struct lb_blkmap *bmap;      /* per file with gen.bmap: blocks done this pass */
    struct lb_genrec *rec;       /* with gen.bmap and verify: the operations
                                    since rec_base, replayed as generated */
    uint64_t rec_n, rec_cap, rec_base;
    bool rec_replayed;           /* a replay read them: the next one starts anew */
    unsigned nfiles;
    unsigned open_max;           /* files opened at first use, at most this many
                                    open (openfiles.c); 0: all, at setup */
    struct lb_ofiles *of;        /* with open_max: the open ones */
    /* engine and I/O slots */
    void *priv;                  /* the engine's per-worker state */
    bool engine_up;              /* init succeeded: cleanup is due */
    struct lb_engine_cfg cfg;    /* what the engine was started with */
    char why[200];               /* the engine's reason when init fails */
    unsigned depth;              /* iodepth; 1 for a sync engine */
    unsigned inflight, nfree;    /* I/Os submitted and not reaped; free slots */
    unsigned unbatched;          /* submitted by a reap's commit, not yet counted
                                    in a batch (loop.c commit) */
    struct lb_io *ios;           /* depth slots, each with its buffer */
    struct lb_io **evs;          /* getevents' completions */
    struct lb_io **freeq;        /* free slots, a stack of nfree */
    struct lb_io **queued;       /* queued, not yet committed */
    struct lb_io *pending;       /* generated, waiting for its file (GEN_BUSY) */
    struct lb_io sync_io;        /* the slot of an fsync or fdatasync */
    uint8_t *busy;               /* per slot: submitted (the watchdog's oldest) */
    void *bufs;                  /* depth buffers of buf_len, 4 KiB aligned */
    size_t buf_len;
    struct lb_bufs *fill;        /* what the writes carry (bufs.c) */
    struct lb_file *sync_due;    /* fsync this file once nothing is in flight */
    unsigned sync_n;             /* that many times (1 or 2, loop.c syncs_before) */
    struct lb_io *held;          /* generated, waiting for sync_due */
    uint32_t sync_every;         /* fsync/fdatasync before the I/O after every N writes */
    uint64_t wissued;            /* writes generated, every pass */
    bool last_sync;              /* the last operation done was a sync */
    bool sync_uncounted;         /* end_fsync: fio counts and times none */
    uint32_t sync_pass;          /* the pass of the last I/O generated */
    int sync_op;                 /* LB_SYNC_OP or LB_DATASYNC_OP */
    /* generator */
    struct lb_gen gen, gen_snap, gen_tmp;  /* now; at pass start; swap space */
    uint32_t pass, loops;        /* passes done; the job's loops */
    bool time_based;
    bool verify_writes;          /* writes carry verify headers */
    bool verify_phase;           /* ... and each pass is replayed as checked reads */
    uint64_t backlog, backlog_n; /* verify_backlog; writes since the last check */
    bool backlog_due;            /* the generator stopped for a backlog check */
    uint32_t vchunk;             /* bytes under one verify header (0: the block) */
    struct lb_flow *flow;        /* its flow_id's counts, or NULL */
    uint64_t flow_ios, flow_sleep_ns;
    bool check_reads;            /* reads are checked (replay, verify_only) */
    bool gen_failed;             /* the op source failed */
    struct lb_bsw bsw[LB_DDIR_N][LB_BSSPLIT_MAX];
    uint32_t nbsw[LB_DDIR_N];    /* bssplit entries; 0: bsrange */
    uint32_t bs_lo[LB_DDIR_N], bs_hi[LB_DDIR_N];     /* bsrange */
    uint32_t seen_min[LB_DDIR_N], seen_max[LB_DDIR_N];  /* block sizes issued */
    const struct lb_opsrc_ops *opsrc;
    void *opstate;
    struct lb_op *ops;           /* LB_OPBATCH from the op source */
    unsigned nops, opi;          /* ops filled; the next one */
    uint64_t opn;                /* ops taken, for messages */
    struct lb_verify_cfg vcfg;
    uint64_t vseed;              /* seed of the buffers, the verify payloads and
                                    the op source */
    /* pacing */
    bool paced;                  /* rate, rate_iops or thinktime set */
    uint64_t rmin_next;          /* rate_min, rate_iops_min: clock ns of the
                                    next check, 0 without a minimum */
    uint64_t rmin_t[LB_DDIR_N];  /* the last check of a direction, 0: none yet */
    uint64_t rmin_bytes[LB_DDIR_N], rmin_ios[LB_DDIR_N];  /* done at it */
    uint64_t samp_next;          /* clock ns of the next bw/iops sample, 0:
                                    none (bwavgtime = iopsavgtime = 0) */
    uint64_t bw_t, iops_t;       /* the last bw and iops samples (clock ns) */
    uint64_t bw_bytes[LB_DDIR_N], iops_ios[LB_DDIR_N];  /* done at them */
    bool rated;                  /* a direction has a rate cap: its I/Os
                                    get a due time (t_sched) */
    uint64_t rate_bps[LB_DDIR_N];/* fio's: rate, else rate_iops x the
                                    smallest block size; 0: no cap */
    uint64_t mean_gap_us[LB_DDIR_N];  /* poisson: fio's 1000000 / iops */
    uint64_t sched_bytes[LB_DDIR_N];  /* linear: bytes issued on the schedule */
    uint64_t sched_us[LB_DDIR_N];     /* poisson: the gaps drawn, summed */
    uint64_t next_due[LB_DDIR_N];     /* the next I/O's due time, us after
                                         sched_t0 (fio's rate_next_io_time) */
    uint64_t sched_t0;           /* clock ns the schedule counts from (fio's
                                    epoch): the first paced I/O, again after
                                    the ramp; 0: not begun */
    bool poisson;                /* rate_process=poisson */
    struct lb_rng rng_pace;      /* poisson gaps: apart from the replayed streams */
    uint64_t think_ns, think_every, think_count;   /* thinktime, _blocks; I/Os */
    /* measurement */
    bool measuring;              /* past the ramp */
    bool ramp_batch;             /* reaping a batch begun in the ramp: fio
                                    accounts none of it */
    bool cslow;                  /* completions take complete_slow */
    uint64_t max_lat_ns[LB_DDIR_N];  /* max_latency; 0: none */
    bool prio_stats;             /* latencies also by priority (prio,
                                    prioclass, cmdprio_*) */
    uint16_t ioprio;             /* the clone's own priority */
    bool nocommit;               /* LB_ENG_NOCOMMIT: depth maps count per I/O */
    uint64_t next_event;         /* clock ns: the earliest of the three below */
    uint64_t ramp_end, deadline, t_measure, t_end;  /* clock ns; measured
                                    phase from t_measure to t_end */
    uint64_t iv_len, iv_next, t0;  /* interval length, next boundary; the
                                    intervals' origin (run->t0) */
    uint32_t iv_k;               /* the interval being recorded */
    struct lb_hist *iv_clat[LB_DDIR_N];
    struct lb_hist *iv_lat[LB_DDIR_N];   /* async engines; a sync engine's
                                            lat is its clat */
    struct lb_hist *iv_sched[LB_DDIR_N]; /* directions with a rate cap */
    uint64_t iv_ios[LB_DDIR_N], iv_bytes[LB_DDIR_N];   /* this interval's */
    struct lb_stats st;          /* the clone's result */
    struct lb_stats st_lost;     /* main: the result of an abandoned thread */
    struct rusage ru0;           /* at the start of measurement */
    const volatile int *stopp;   /* &run->stop */
    unsigned intr0;              /* lb_interrupt_gen when the run began */
    lb_run_trace_fn trace;
    void *trace_arg;
    /* I/O watchdog: the oldest outstanding I/O (atomic) */
    uint64_t tmo_ns;             /* io_timeout; 0: no watchdog */
    _Atomic uint64_t pub_start, pub_off;   /* its queue time (0: none), offset */
    _Atomic uint32_t pub_file, pub_ddir;
    /* run->mu */
    uint32_t published;          /* intervals < published are handed over */
    bool ready, done;            /* setup over; everything handed over */
    struct lb_ivnode *spare;     /* nodes the main thread gave back */
    /* main */
    uint64_t tmo_seen;           /* pub_start already counted as a timeout */
    struct lb_err_stats tmo;     /* timeouts seen by the watchdog */
};

struct lb_jobrun {
    const struct lb_engine_ops *eng;
    unsigned flags;              /* lb_engine_flags */
    unsigned first, nclones;     /* workers [first, first + nclones) */
    struct lb_stats stats;
};

enum { RUN_NEW, RUN_PREPARED, RUN_STARTED, RUN_WAITED, RUN_ABORT };

/* Jobs of one flow_id: the I/Os they issued and the sum of their weights. */
#define LB_FLOWS_MAX 64
struct lb_flow {
    uint32_t id;
    _Atomic uint64_t weight;     /* of the clones still running */
    _Atomic uint64_t ios;
};

struct lb_run {
    struct lb_job *jobs;
    size_t njobs;
    bool exitall;                /* a job says exitall: the first clone to end
                                    ends the others (fio's exitall_on_terminate) */
    bool exitall_on_error;       /* a job says exitall_on_error */
    struct lb_jobrun *jr;
    struct lb_worker **w;
    size_t nw, nstarted;
    pthread_mutex_t mu;
    pthread_cond_t cv_main, cv_work;
    int phase;                   /* run->mu once threads exist */
    volatile int stop;           /* workers and engines poll it */
    int stop_kind;               /* 0 none, 1 reason given, 2 no reason */
    char stop_reason[128];
    bool partial, timed_out;
    int op_err;                  /* an op source failed (errno; run->mu) */
    unsigned intr0;
    atomic_int refs;
    uint64_t t_new, t_prepare, t_release, t0, iv_len, grace_end, t_end;
    uint64_t origin_us;          /* set origin after the release + 1, us;
                                    0: the jobs' earliest start */
    size_t nready, nfailed, ndone;
    /* intervals (run->mu) */
    struct lb_ivnode *inbox;
    struct lb_interval **iv;
    size_t niv, ivcap, next_out;
    uint32_t wait_k;
    size_t missing;
    /* results */
    struct lb_stats total;
    _Atomic uint64_t laid_out;
    lb_run_trace_fn trace;
    void *trace_arg;
    char err[512];
    char note[256];              /* lb_run_note; "" when none */
    char end_note[PATH_MAX + 64]; /* lb_run_end_note; "" when none */
    struct lb_flow flows[LB_FLOWS_MAX];
    unsigned nflows;
};

#endif
