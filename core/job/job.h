/*
 * One job: the workload a set of identical worker threads (numjobs clones)
 * runs, in fio's vocabulary.  Filled from option strings by options.c; the
 * option table there names every field, its unit and its help text.
 * Times are microseconds, sizes bytes.  Strings are owned (lb_job_free).
 * The pure functions of a job (its directions, block sizes, alignment)
 * are at the end, defined in job.c.
 */
#ifndef LB_JOB_H
#define LB_JOB_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include "base/verify.h"     /* enum lb_verify */

enum lb_ddir { LB_READ = 0, LB_WRITE = 1, LB_TRIM = 2, LB_DDIR_N = 3 };
#define LB_DDIR_ALL ((1u << LB_DDIR_N) - 1)   /* a mask of every direction */
/* What an I/O (lb_io.ddir, engine.h) may do beyond a direction. */
enum { LB_SYNC_OP = 3, LB_DATASYNC_OP = 4, LB_IO_OPS = 5 };

enum lb_rw {
    LB_RW_READ, LB_RW_WRITE, LB_RW_TRIM, LB_RW_RW,            /* sequential */
    LB_RW_RANDREAD, LB_RW_RANDWRITE, LB_RW_RANDTRIM, LB_RW_RANDRW,
    LB_RW_TRIMWRITE, LB_RW_RANDTRIMWRITE,   /* each block trimmed, then written */
};
#define LB_RW_IS_RANDOM(rw) ((rw) >= LB_RW_RANDREAD && (rw) != LB_RW_TRIMWRITE)
#define LB_RW_IS_TRIMWRITE(rw) ((rw) == LB_RW_TRIMWRITE || (rw) == LB_RW_RANDTRIMWRITE)

enum lb_cpus_policy { LB_CPUS_SHARED, LB_CPUS_SPLIT };
/* sync=, in the order of its values: fio's O_SYNC (sync, 1), O_DSYNC */
enum lb_sync_io { LB_SYNC_NONE, LB_SYNC_SYNC, LB_SYNC_DSYNC, LB_SYNC_0, LB_SYNC_1 };
/* fallocate=, in the order of its values (1 is posix, 0 none) */
enum lb_falloc { LB_FALLOC_NATIVE, LB_FALLOC_POSIX, LB_FALLOC_KEEP, LB_FALLOC_TRUNCATE,
                 LB_FALLOC_NONE, LB_FALLOC_1, LB_FALLOC_0 };
enum lb_fst { LB_FST_ROUNDROBIN, LB_FST_SEQUENTIAL, LB_FST_RANDOM };
/* fio's random_generator: the tausworthe ones draw uniform offsets
 * (luabench's 64-bit generator either way); lfsr visits every block once
 * per pass, norandommap or not (luabench's keyed permutation). */
enum lb_randgen { LB_RANDGEN_TAUSWORTHE, LB_RANDGEN_LFSR, LB_RANDGEN_TAUSWORTHE64 };
enum lb_rate_process { LB_RATE_LINEAR, LB_RATE_POISSON };
/* fio's zonemode: none, or strided (zonesize bytes of I/O in each zone of
 * zonerange bytes, then zonerange + zoneskip further on). */
enum lb_zonemode { LB_ZONE_NONE, LB_ZONE_STRIDED };
/* fadvise_hint, in the order of its values: none, the job's own pattern. */
enum lb_fadv { LB_FADV_NONE, LB_FADV_PATTERN, LB_FADV_SEQUENTIAL, LB_FADV_RANDOM };
/* continue_on_error bits, fio's names: none=0, read, write, io=read|write,
 * verify, all. */
enum { LB_COE_READ = 1, LB_COE_WRITE = 2, LB_COE_VERIFY = 4 };
/* The error types of continue_on_error and ignore_error, fio's order. */
enum { LB_ERRT_READ, LB_ERRT_WRITE, LB_ERRT_VERIFY, LB_ERRT_N };
#define LB_IGNORE_MAX 32     /* errnos in one ignore_error list */
/* exit_what: whom exitall ends (fio's group, stonewall, all) */
enum lb_exit_what { LB_EXIT_GROUP, LB_EXIT_STONEWALL, LB_EXIT_ALL };

#define LB_BSSPLIT_MAX 64

struct lb_bssplit {
    uint32_t bs;
    uint32_t pct;        /* 0 means "share the remainder" before normalising */
};

/* One entry of fio's cmdprio_bssplit: pct percent of the I/Os of bs bytes
 * go at prio (job/prio.h's values; -1: cmdprio_class and cmdprio's). */
struct lb_prio_split {
    uint32_t bs;
    uint16_t pct;
    int16_t prio;
};

enum { LB_BUFS_GIVEN_ZERO = 1, LB_BUFS_GIVEN_REFILL = 2, LB_BUFS_GIVEN_SCRAMBLE = 4 };
enum lb_dedupe_mode { LB_DEDUPE_REPEAT, LB_DEDUPE_WORKING_SET };

struct lb_job {
    char *name;
    char *ioengine;              /* engine name, "psync" by default */
    int rw;                      /* enum lb_rw */
    uint64_t rw_skip;            /* rw=read:8k: bytes skipped after each I/O */
    uint32_t rwmixread;          /* percent of reads in mixed workloads */
    uint32_t bs_min[LB_DDIR_N];  /* bs / bsrange per direction */
    uint32_t bs_max[LB_DDIR_N];
    bool bs_ranged[LB_DDIR_N];   /* bsrange given: bs no longer counts (fio's
                                    min_bs/max_bs over bs, in any order) */
    uint32_t nbssplit[LB_DDIR_N];
    struct lb_bssplit bssplit[LB_DDIR_N][LB_BSSPLIT_MAX];
    uint64_t blockalign;         /* 0: the minimum block size */
    uint32_t iodepth;
    uint32_t iodepth_batch_submit;
    uint32_t iodepth_batch_complete_min;
    uint32_t iodepth_batch_complete_max;   /* 0: iodepth_batch_complete_min */
    uint32_t iodepth_low;        /* 0: iodepth */
    uint32_t numjobs;
    bool direct;
    uint64_t size;               /* per clone total, 0 = file size */
    uint32_t size_pct;           /* size=N%: of the file, times 1000 */
    uint64_t filesize;           /* per file */
    uint64_t io_size;            /* bytes to transfer, 0 = size */
    uint64_t offset;
    uint64_t offset_increment;
    uint32_t offset_pct;         /* offset=N%: of the file's size before the run (0: none) */
    uint32_t offset_increment_pct;   /* offset_increment=N%: the same */
    uint64_t offset_align;       /* a percentage offset rounds up to this (0: the
                                    smallest bs of the three directions) */
    int zonemode;                /* enum lb_zonemode */
    uint64_t zonesize;           /* bytes of I/O in a zone before the next */
    uint64_t zonerange;          /* bytes a zone spans, 0 = zonesize */
    uint64_t zoneskip;           /* bytes skipped between zones */
    char *filename;              /* colon-separated list, "\:" escapes */
    char *directory;
    char *filename_format;       /* fio's $jobname.$jobnum.$filenum */
    uint32_t nrfiles;
    uint32_t openfiles;
    int file_service_type;       /* enum lb_fst */
    bool create_on_open;
    bool file_append;            /* a regular file's I/O starts at its end */
    bool unique_filename;        /* fio's client prefix: no clients here (default on) */
    uint32_t fsync;              /* every N writes */
    uint32_t fdatasync;
    bool end_fsync;
    bool allow_file_create;      /* default on */
    bool create_only;            /* lay the files out, do no I/O */
    bool unlink;                 /* remove the job's files (luabench's) when done */
    bool exitall, exitall_on_error;
    int exit_what;               /* enum lb_exit_what */
    uint64_t number_ios;         /* I/Os per loop at most (0: no limit) */
    int sync_io;                 /* sync=: enum lb_sync_io */
    bool overwrite;
    bool create_fsync;
    int fallocate;               /* enum lb_falloc */
    bool fsync_on_close;
    uint64_t rate[LB_DDIR_N];      /* bytes/s, 0 = unlimited */
    uint64_t rate_iops[LB_DDIR_N];
    uint64_t rate_min[LB_DDIR_N];  /* bytes/s below which the job fails */
    uint64_t rate_iops_min[LB_DDIR_N];
    uint32_t ratecycle;            /* ms the minimums are averaged over */
    uint32_t bwavgtime;            /* ms of a bandwidth sample (fio: 500) */
    uint32_t iopsavgtime;          /* ms of an IOPS sample (fio: 500) */
    int rate_process;            /* enum lb_rate_process */
    uint64_t thinktime;          /* us between I/Os */
    uint64_t thinktime_spin;     /* us of that pause spent busy */
    uint32_t thinktime_blocks;
    bool readonly;
    bool invalidate;
    bool pre_read;               /* read the regions into the cache before the start */
    int fadvise_hint;            /* enum lb_fadv */
    int write_hint;              /* 0: not set, else the kernel's RWH_WRITE_LIFE_* (1 none
                                    .. 5 extreme) */
    bool group_reporting;
    uint64_t runtime;            /* us, 0 = until size is done */
    bool time_based;
    uint64_t ramp_time;          /* us */
    uint64_t startdelay;         /* us */
    uint32_t loops;
    bool randrepeat;
    bool allrandrepeat;          /* every generator seeded as fio's, randseed or not */
    uint64_t randseed;
    bool norandommap;
    uint32_t perc_rand[LB_DDIR_N];   /* percentage_random: per direction, percent of a
                                    random job's I/Os that are random (default 100) */
    int random_generator;        /* enum lb_randgen */
    int random_distribution;     /* enum lb_dist_kind */
    double random_param;
    bool hipri;                  /* pvsync2 RWF_HIPRI, io_uring IOPOLL */
    bool nowait;                 /* pvsync2 RWF_NOWAIT */
    bool registerfiles;          /* io_uring */
    bool fixedbufs;
    bool sqthread_poll;
    char *cpus_allowed;          /* "0-3,8" */
    int cpus_allowed_policy;     /* enum lb_cpus_policy */
    int nice;
    /* I/O priorities (job/prio.h): the clones' own, and per I/O (libaio,
     * io_uring) for reads [0] and writes [1] */
    bool ioprio_set;             /* prio or prioclass given */
    uint32_t ioprio_class;       /* prioclass (0: best effort) */
    uint32_t ioprio_level;       /* prio */
    uint32_t cmdprio_pct[2];     /* cmdprio_percentage */
    uint32_t cmdprio_class[2];   /* cmdprio_class (0: realtime, fio's default) */
    uint32_t cmdprio_level[2];   /* cmdprio */
    uint32_t ncmdprio_split[2];  /* cmdprio_bssplit entries, 0 percent left out */
    struct lb_prio_split cmdprio_split[2][LB_BSSPLIT_MAX];
    uint64_t interval;           /* us between per-interval samples; 1 s */
    uint32_t flow_id;            /* jobs of one flow_id share their I/Os ... */
    uint32_t flow;               /* ... in proportion to this weight (0: no flow) */
    uint64_t flow_sleep;         /* us to wait when over its share (0: 10 us) */
    /* safety and reliability */
    bool allow_overwrite;
    uint32_t continue_on_error;  /* LB_COE_* bits */
    /* ignore_error: per error type the errnos continue_on_error goes on
     * after; 0 of them: fio's EIO and EILSEQ */
    uint32_t nignore_error[LB_ERRT_N];
    int ignore_error[LB_ERRT_N][LB_IGNORE_MAX];
    uint64_t max_latency[LB_DDIR_N];  /* us; a slower read or write fails the
                                         job with ETIMEDOUT (0: none) */
    int verify;                  /* enum lb_verify */
    bool verify_only;
    uint64_t verify_pattern;
    bool do_verify;              /* the written data is read back and checked */
    uint64_t verify_backlog;     /* check every N blocks written (0: per pass) */
    uint64_t verify_interval;    /* bytes under one header (0: the block) */
    bool verify_fatal;           /* a verify failure stops every job */
    bool experimental_verify;    /* fio's replayed verify: always what luabench does */
    /* what writes carry (core/run/bufs.c); verify's headers override them */
    bool zero_buffers;           /* zeros */
    bool refill_buffers;         /* fresh contents for every write */
    bool scramble_buffers;       /* offset and a write number in every 512 bytes */
    uint8_t bufs_given;          /* LB_BUFS_GIVEN_*: set by the user, not defaulted */
    char *buffer_pattern;        /* fio's pattern text, NULL: none */
    uint32_t buffer_compress_percentage;
    uint64_t buffer_compress_chunk;  /* bytes of random-then-compressible runs */
    uint32_t dedupe_percentage;  /* writes that repeat an earlier buffer */
    int dedupe_mode;             /* enum lb_dedupe_mode */
    uint64_t io_timeout;         /* us, 0 = off */
    /* engine knobs */
    uint64_t null_lat;           /* null engine: ns each I/O takes */
    uint32_t null_knee;          /* null engine: beyond this many busy clones
                                    latency grows proportionally */
    char *fault_engine;          /* fault: the engine it wraps */
    double fault_eio;            /* fault: probabilities per I/O */
    double fault_short;
    double fault_enospc;
    double fault_delay;
    uint64_t fault_delay_us;
    uint64_t fault_seed;
    unsigned kb_base;            /* 1024 or 1000 */
    /* set by the binding: a custom source of operations (Lua generators) */
    const struct lb_opsrc_ops *opsrc;
    void *opsrc_arg;
};

/* One operation produced by a custom source. */
struct lb_op {
    uint8_t ddir;                /* enum lb_ddir */
    uint32_t file;               /* index into the job's file list */
    uint64_t offset;
    uint32_t len;
};

/* What a worker tells its source once its files are open. */
struct lb_file;
struct lb_opsrc_env {
    const struct lb_job *job;    /* the worker's copy of the job */
    unsigned clone;
    const struct lb_file *files; /* path, size (bytes the job uses), file_offset */
    unsigned nfiles;
    uint64_t max_len;            /* the longest op the buffers hold */
    uint64_t seed;               /* per clone; repeats with randrepeat */
};

struct lb_opsrc_ops {
    /* Per worker thread: create the source's state for clone number clone. */
    int (*open)(void *arg, unsigned clone, void **state);
    /* Fills up to max ops; returns how many (0 = done) or -errno; err gets a
     * message on failure.  A failure stops the run: lb_run_wait returns
     * the -errno and lb_run_error the message. */
    int (*next)(void *state, struct lb_op *ops, int max, char *err, unsigned errlen);
    void (*close)(void *state);
    /* Optional, on the worker thread after open, before the start barrier:
     * 0 or -errno with a message in err (the run then fails to prepare). */
    int (*start)(void *state, const struct lb_opsrc_env *env, char *err, unsigned errlen);
};

/* "read", "write", "trim", "fsync" or "fdatasync" for an lb_io's ddir;
 * NULL for any other value. */
const char *lb_ddir_name(unsigned d);
/* The directions rw does, a mask of 1 << enum lb_ddir. */
unsigned lb_rw_dirs(int rw);
/* rw's direction: its only one, reads for a mix (rw, randrw). */
unsigned lb_rw_ddir(int rw);
/* The workload writes or trims (verify_only aside). */
bool lb_job_writes_data(const struct lb_job *j);
/* The job opens its files for writing. */
bool lb_job_writes(const struct lb_job *j);
/* Flags a job's files are opened with beyond the access mode: O_DIRECT
 * (direct), O_SYNC or O_DSYNC (sync). */
int lb_job_oflags(const struct lb_job *j);
/* The smallest and the largest block size the job issues in the
 * directions of the mask dirs: bssplit's sizes where it has them, else
 * bs/bsrange's.  UINT32_MAX and 0 when dirs is empty. */
uint32_t lb_job_bs_min(const struct lb_job *j, unsigned dirs);
uint32_t lb_job_bs_max(const struct lb_job *j, unsigned dirs);
/* The unit of random offsets and of a file region: blockalign, else the
 * smallest block size of rw's directions (4096 when that is 0). */
uint64_t lb_job_align(const struct lb_job *j);
/* "0-3,8" into set.  0 or -EINVAL. */
int lb_cpus_parse(const char *s, cpu_set_t *set);

#endif
